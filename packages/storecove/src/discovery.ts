// Storecove's participant discovery: POST /discovery/exists (is the participant on Peppol) and POST /discovery/receives (does it receive this kind of document).
import { DiscoveryError, documentTypeId, readBoundedText, PARTICIPANT_ID_SCHEME, type DiscoveryPort, type ParticipantId, type ParticipantLookup } from "@einvoice/core";
import { storecoveScheme } from "./index.js";

const BILLING = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const UBL = (root: string) => `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`;

/**
 * The Peppol document types behind each of Storecove's discovery document types. Storecove's
 * `invoice` covers Peppol BIS Billing 3.0 invoices and credit notes.
 */
export const STORECOVE_DOCUMENT_TYPES: Readonly<Record<string, readonly string[]>> = {
  invoice: [documentTypeId(UBL("Invoice"), "Invoice", BILLING), documentTypeId(UBL("CreditNote"), "CreditNote", BILLING)],
  order: [documentTypeId(UBL("Order"), "Order", "urn:fdc:peppol.eu:poacc:trns:order:3")],
};

/** Storecove's discovery document type of a Peppol document type identifier, or null when it has none. */
export function storecoveDocumentType(documentTypeId: string): string | null {
  for (const [name, ids] of Object.entries(STORECOVE_DOCUMENT_TYPES)) if (ids.includes(documentTypeId)) return name;
  return null;
}

export interface StorecoveDiscoveryOptions {
  /** The API root, such as `https://<host>/api/v2`. */
  baseUrl: string;
  /** The Storecove API key (a bearer token; never logged or put in a message). */
  apiKey: string;
  fetch?: typeof fetch;
  /** Per request. Default 5000 ms. */
  timeoutMs?: number;
  /** Default `storecove`. */
  name?: string;
}

/**
 * Participant discovery through Storecove (its published API): `POST /discovery/exists` says
 * whether the participant is on Peppol; `POST /discovery/receives` with `documentTypes` whether it
 * receives that kind of document (`{"code":"OK"}` or `{"code":"NOK"}`). `documentTypes` lists the
 * Peppol identifiers behind each kind that answered OK (`invoice`: BIS Billing 3.0 invoice and
 * credit note). Storecove routes documents itself and does not tell the endpoint: `endpoint` is
 * always null. A document type Storecove has no kind for, a non-2xx answer, a timeout: a `DiscoveryError`.
 *
 * @example storecoveDiscovery({ baseUrl: process.env.STORECOVE_URL!, apiKey: process.env.STORECOVE_API_KEY! })
 */
export function storecoveDiscovery(options: StorecoveDiscoveryOptions): DiscoveryPort {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const name = options.name ?? "storecove";

  async function ask(path: "exists" | "receives", participant: ParticipantId, documentTypes: string[] | null, signal?: AbortSignal): Promise<boolean> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const body = {
      network: "peppol",
      metaScheme: PARTICIPANT_ID_SCHEME,
      scheme: storecoveScheme(participant.scheme),
      identifier: participant.value,
      ...(documentTypes ? { documentTypes } : {}),
    };
    let res: Response;
    try {
      res = await doFetch(`${base}/discovery/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      if (timeout.aborted) throw new DiscoveryError("timeout", `Storecove's discovery did not answer within ${timeoutMs} ms.`, { cause: e });
      throw new DiscoveryError("unreachable", "Storecove's discovery could not be reached.", { cause: e });
    }
    const text = await readBoundedText(res).catch(() => "");
    if (text === null) throw new DiscoveryError("invalid_answer", "Storecove's discovery answer is larger than 4 MiB; it was not read.");
    if (res.status < 200 || res.status > 299) throw new DiscoveryError("unreachable", `Storecove's discovery answered ${res.status}.`);
    let code: unknown;
    try {
      code = (JSON.parse(text) as { code?: unknown }).code;
    } catch {
      code = undefined;
    }
    if (code === "OK") return true;
    if (code === "NOK") return false;
    throw new DiscoveryError("invalid_answer", "Storecove's discovery answered without a code of OK or NOK.");
  }

  return {
    name,
    async lookup(participant, documentTypeId, opts): Promise<ParticipantLookup> {
      const participantId = `${participant.scheme}:${participant.value}`;
      const signal = opts?.signal;
      const kind = documentTypeId ? storecoveDocumentType(documentTypeId) : null;
      if (documentTypeId && !kind) throw new DiscoveryError("invalid_answer", `Storecove's discovery has no document type for ${documentTypeId}.`);
      if (!(await ask("exists", participant, null, signal))) return { participantId, registered: false, documentTypes: [], endpoint: null };
      const kinds = [...new Set(["invoice", ...(kind ? [kind] : [])])];
      const answers = await Promise.all(kinds.map((k) => ask("receives", participant, [k], signal)));
      const documentTypes = kinds.filter((_, i) => answers[i]).flatMap((k) => STORECOVE_DOCUMENT_TYPES[k]!);
      return { participantId, registered: true, documentTypes, endpoint: null };
    },
  };
}
