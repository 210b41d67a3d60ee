// The Peppol document type and process of a UBL document, from its root, CustomizationID and ProfileID.
import { DOCTYPE_SCHEME, PROCESS_SCHEME } from "../ports/discovery.js";
import { child, type DocumentNode } from "./model.js";
import { text } from "./ubl.js";
import { parseXml } from "./xml.js";

/** The identifiers a Peppol SMP lists a document under: its Peppol document type identifier and process. */
export interface PeppolDocumentType {
  /** `busdox-docid-qns::<root namespace>::<root name>##<CustomizationID>::<UBL version>`. */
  id: string;
  /** `cenbii-procid-ubl::<ProfileID>`, or null when the document has no ProfileID. */
  processId: string | null;
}

/** @deprecated The former name of `PeppolDocumentType`, kept so existing code still builds. */
export type DocumentType = PeppolDocumentType;

/** The UBL version of the document type identifiers of Peppol BIS 3 (and of every UBL 2.x syntax binding they name). */
export const UBL_SYNTAX_VERSION = "2.1";

/**
 * The Peppol document type identifier of a UBL document (Peppol Policy for use of identifiers 4.x,
 * POLICY 15): root namespace, `::`, root local name, `##`, the CustomizationID, `::`, the syntax
 * version. Null when the document has no CustomizationID.
 *
 * @example documentTypeId(UBL_INVOICE_NS, "Invoice", "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0")
 * // "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
 */
export function documentTypeId(rootNamespace: string, rootName: string, customizationId: string): string {
  return `${DOCTYPE_SCHEME}::${rootNamespace}::${rootName}##${customizationId}::${UBL_SYNTAX_VERSION}`;
}

/** The process identifier of a ProfileID: `cenbii-procid-ubl::<ProfileID>`. */
export function processId(profileId: string): string {
  return `${PROCESS_SCHEME}::${profileId}`;
}

/** Reads the document type of a UBL root from the model (its `CustomizationID` and `ProfileID`); null without a CustomizationID. */
export function extractDocumentType(root: DocumentNode): PeppolDocumentType | null {
  const customization = text(child(root, "cbc:CustomizationID"));
  if (customization === null || !root.ns) return null;
  const profile = text(child(root, "cbc:ProfileID"));
  return { id: documentTypeId(root.ns, root.name, customization), processId: profile === null ? null : processId(profile) };
}

/**
 * The document type of stored document bytes (the dispatcher's view: it keeps no parsed document).
 * Null when the bytes are not a readable XML document or have no CustomizationID.
 */
export function documentTypeOf(bytes: Uint8Array): PeppolDocumentType | null {
  try {
    const xml = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return extractDocumentType(parseXml(xml).root);
  } catch {
    return null;
  }
}
