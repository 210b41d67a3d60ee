// What the dispatcher hands a network beside the stored record: the document's model, read on first
// use, and on the ksef route the company's KSeF credential, so that no network reads the bytes again
// or asks the store for a secret.
import { decodeUtf8 } from "../document/text.js";
import { parseXml } from "../document/xml.js";
import { KsefCredentialsError, readKsefCredential, type KsefCredential, type TokenCipher } from "../domain/token-cipher.js";
import type { Company, InvoiceRecord, Network } from "../domain/types.js";
import type { ModelNode, SendOutcome, SendRequest as SendRequestFields } from "../ports/network.js";
import type { Store } from "../ports/store.js";
import { ksefCorrectedInvoices, KsefCorrectionPendingError } from "./ksef-corrections.js";
import type { WorkerLogger } from "./polling-loop.js";

/** `SendRequest.model`: the stored document read into the core's model on the first call, then the same tree. */
export function documentModel(bytes: Uint8Array): () => ModelNode {
  let root: ModelNode | null = null;
  return () => {
    if (root) return root;
    const text = decodeUtf8(bytes);
    if (text === null) throw new Error("the stored document is not valid UTF-8");
    root = parseXml(text).root;
    return root;
  };
}

/**
 * `SendRequest.ksefCredential` of an attempt on `route` (only `ksef`, with a cipher), or the outcome
 * that replaces the send: a retry whose reason is the `KsefCredentialsError`'s message (what the
 * operator must do), its `operatorDetail` (which key encrypted the token) logged for the operator.
 */
export function credentialOf(
  route: Network,
  company: Pick<Company, "id" | "ksef">,
  cipher: TokenCipher | undefined,
  log: { submissionId: string; logger: WorkerLogger | undefined },
): { ksefCredential?: KsefCredential | null } | { outcome: SendOutcome } {
  if (route !== "ksef" || !cipher) return {};
  try {
    return { ksefCredential: readKsefCredential(company, cipher) };
  } catch (e) {
    if (!(e instanceof KsefCredentialsError)) return { outcome: { outcome: "retry", reason: `The company's KSeF credentials could not be read (${(e as Error).name}).` } };
    const { logger } = log;
    if (e.operatorDetail && logger) (logger.warn ?? logger.error).call(logger, { submissionId: log.submissionId, companyId: company.id, detail: e.operatorDetail }, "a company's KSeF token cannot be read");
    return { outcome: { outcome: "retry", reason: e.message } };
  }
}

const own = (node: ModelNode | null | undefined, qname: string): ModelNode | null => node?.children.find((c) => c.qname === qname) ?? null;
const normalized = (node: ModelNode | null): string => (node ? node.text.replace(/[ \t\r\n]+/g, " ").trim() : "");

/**
 * `SendRequest.correctedInvoices` of an attempt on `route`: for a credit note on `ksef`, each
 * preceding invoice reference (BT-25, BT-26) with the KSeF number this service got for it
 * (`ksefCorrectedInvoices`), or the retry when one is still being delivered. A document that does
 * not read gives none (the network reports it).
 */
export async function correctionsOf(
  route: Network,
  inv: Pick<InvoiceRecord, "kind" | "companyId">,
  model: () => ModelNode,
  store: Pick<Store, "listInvoices" | "getEvidence">,
): Promise<Pick<SendRequestFields, "correctedInvoices"> | { outcome: SendOutcome }> {
  if (route !== "ksef" || inv.kind !== "creditNote") return {};
  let root: ModelNode;
  try {
    root = model();
  } catch {
    return {};
  }
  const lookup = ksefCorrectedInvoices(store);
  const correctedInvoices: NonNullable<SendRequestFields["correctedInvoices"]> = [];
  for (const ref of root.children.filter((c) => c.qname === "cac:BillingReference")) {
    const doc = own(ref, "cac:InvoiceDocumentReference");
    const number = normalized(own(doc, "cbc:ID"));
    const issueDate = normalized(own(doc, "cbc:IssueDate"));
    try {
      correctedInvoices.push({ number, issueDate, ksefNumber: (await lookup(inv.companyId, { number, issueDate }))?.ksefNumber ?? null });
    } catch (e) {
      const reason = e instanceof KsefCorrectionPendingError ? e.message : `the corrected invoice ${number} could not be looked up (${(e as Error).name})`;
      return { outcome: { outcome: "retry", reason } };
    }
  }
  return { correctedInvoices };
}
