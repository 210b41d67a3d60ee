// The companies' KSeF credentials, for a KSeF network adapter: the NIP and the decrypted token.
import { readKsefCredential, type KsefCredential, type TokenCipher } from "../domain/token-cipher.js";
import type { Store } from "../ports/store.js";

export type { KsefCredential } from "../domain/token-cipher.js";

/**
 * A company's credential by its id: its NIP and its token, decrypted with `cipher`; null when the
 * company has none (or does not exist). A stored token that does not decrypt under `cipher`
 * (another key, damaged) throws a `KsefCredentialsError` whose message tells the operator what to
 * do; a store failure throws the store's error. The dispatcher reads the credential itself and
 * hands it to the network with each send (its `tokenCipher` option); this is for other uses.
 *
 * @example const credential = await ksefCredentials(store, tokenCipher(process.env.KSEF_TOKEN_KEY!))(companyId)
 */
export function ksefCredentials(store: Pick<Store, "getCompany">, cipher: TokenCipher): (companyId: string) => Promise<KsefCredential | null> {
  return async (companyId) => {
    const company = await store.getCompany(companyId);
    return company ? readKsefCredential(company, cipher) : null;
  };
}

export { ksefCorrectedInvoices, KsefCorrectionPendingError } from "../workers/ksef-corrections.js";
