// Test support for the acceptance corpus in testdata/corpus (read-only; never edited).
// Everything here is derived from the corpus files themselves, never from @einvoice/core, so that
// the expectations of corpus.test.ts are independent of the code under test.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DOMParser } from "@xmldom/xmldom";
import { CORPUS_DIR } from "../../../../testdata/index.js";

export { CORPUS_DIR };

export const UBL_INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
export const VEFA_NS = "http://difi.no/xsd/vefa/validator/1.0";
export const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
export const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/** One row of INDEX.tsv. */
export interface IndexRow {
  path: string;
  root: string;
  rootNamespace: string;
  customizationId: string;
  profileId: string;
  buyerEndpointScheme: string;
  buyerEndpointValue: string;
  sellerEndpointScheme: string;
  sellerEndpointValue: string;
  expectation: string;
}

/** Reads INDEX.tsv (header row first, tab separated). */
export function readIndex(): IndexRow[] {
  const lines = readFileSync(resolve(CORPUS_DIR, "INDEX.tsv"), "utf8").split(/\r?\n/).filter((l) => l !== "");
  const header = lines[0]!.split("\t");
  const expected = [
    "path",
    "root",
    "rootNamespace",
    "CustomizationID",
    "ProfileID",
    "buyerEndpointScheme",
    "buyerEndpointValue",
    "sellerEndpointScheme",
    "sellerEndpointValue",
    "expectation",
  ];
  if (header.join("\t") !== expected.join("\t")) throw new Error(`INDEX.tsv has an unexpected header: ${header.join(", ")}`);
  return lines.slice(1).map((line) => {
    const c = line.split("\t");
    return {
      path: c[0] ?? "",
      root: c[1] ?? "",
      rootNamespace: c[2] ?? "",
      customizationId: c[3] ?? "",
      profileId: c[4] ?? "",
      buyerEndpointScheme: c[5] ?? "",
      buyerEndpointValue: c[6] ?? "",
      sellerEndpointScheme: c[7] ?? "",
      sellerEndpointValue: c[8] ?? "",
      expectation: c[9] ?? "",
    };
  });
}

export function corpusBytes(path: string): Buffer {
  return readFileSync(resolve(CORPUS_DIR, path));
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export const PARTICIPANT_SCHEMES_FILE = "codelists/Peppol_Code_Lists_-_Participant_identifier_schemes_v9.7.xml";

/**
 * The Peppol participant identifier schemes of the shipped code list, read here with xmldom:
 * ISO 6523 code (`iso6523`) -> `state` (active | deprecated | removed).
 */
export function readParticipantSchemeStates(): Map<string, string> {
  const text = readFileSync(resolve(CORPUS_DIR, PARTICIPANT_SCHEMES_FILE), "utf8");
  const doc = new DOMParser().parseFromString(text, "application/xml");
  const out = new Map<string, string>();
  const list = doc.getElementsByTagName("participant-identifier-scheme");
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i)!;
    const code = el.getAttribute("iso6523");
    const state = el.getAttribute("state");
    if (code && state) out.set(code, state);
  }
  const declared = Number(doc.documentElement?.getAttribute("entry-count"));
  if (out.size !== declared) throw new Error(`code list: read ${out.size} schemes, the file declares ${declared}`);
  return out;
}

/** The `encoding` of the XML declaration at the start of the bytes, or null. */
export function declaredEncoding(bytes: Buffer): string | null {
  const head = bytes.subarray(0, 200).toString("latin1");
  const m = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^?]*\bencoding\s*=\s*["']([^"']*)["']/.exec(head);
  return m ? m[1]! : null;
}
