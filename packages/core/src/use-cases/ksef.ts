// The companies' KSeF credentials, for a KSeF network adapter: the NIP and the decrypted token.
import type { TokenCipher } from "../domain/token-cipher.js";
import type { Store } from "../ports/store.js";

/** What a KSeF adapter authenticates with. */
export interface KsefCredential {
  nip: string;
  token: string;
}

/**
 * The resolver a KSeF network adapter asks for a company's credential: its NIP and its token,
 * decrypted with `cipher`; null when the company has none (or does not exist). A stored token that
 * does not decrypt under `cipher` (another key, damaged) throws a `KsefCredentialsError` whose
 * message tells the operator what to do; a store failure throws the store's error.
 *
 * @example ksefNetwork({ baseUrl, credentials: ksefCredentials(store, tokenCipher(process.env.KSEF_TOKEN_KEY!)) })
 */
export function ksefCredentials(store: Pick<Store, "getCompany">, cipher: TokenCipher): (companyId: string) => Promise<KsefCredential | null> {
  return async (companyId) => {
    const company = await store.getCompany(companyId);
    if (!company?.ksef) return null;
    return { nip: company.ksef.nip, token: cipher.decrypt(company.ksef.tokenCiphertext, company.id) };
  };
}
