// validateInvoice: the official verdict of the registered rule sets that apply to the document
// (rulesets/: EN 16931 always, Peppol BIS Billing 3.0 and national CIUS when the CustomizationID says
// so), on the model the reader builds in one pass. Pure: no store.
import { ApiError } from "../domain/errors.js";
import { base64DecodedSize, checkBase64 } from "../document/base64.js";
import { decodeUtf8, decodeUtf8Lossy, notUtf8Error, rejectZip, requireMarkupStart } from "../document/text.js";
import { requireUblRoot, type UblDocumentType } from "../document/ubl.js";
import { DEFAULT_XML_LIMITS, parseXml, probeForSecondDocument, type XmlLimits } from "../document/xml.js";
import { requireBoundedDecimals } from "./bounds.js";
import { runRules } from "./engine.js";
import { normalizeSpace, stringValue, child, locationOf, type Finding, type UblNode } from "../document/model.js";
import { familiesOf, levelsOf, ruleSetsApplying, uncheckedSpecification } from "./rulesets/select.js";
import type { RuleSet } from "./rulesets/types.js";
import { RULE_SETS } from "./rulesets/index.js";
import { cen } from "./rulesets/cen.js";
import { peppol } from "./rulesets/peppol.js";

/** One broken rule, as the report and the submit error list it. */
export interface ValidationItem {
  /** The official rule id, such as "BR-CO-10" or "PEPPOL-EN16931-R001". */
  rule: string;
  /** What is wrong, naming the values involved. */
  message: string;
  /** Where, such as `/Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount`. */
  location: string;
}

/** What `validateInvoice` returns. */
export interface ValidationReport {
  /** True when no fatal rule is broken (warnings do not count). */
  valid: boolean;
  documentType: UblDocumentType;
  /** The document's cbc:CustomizationID (whitespace-normalised), or null when it has none. */
  customizationId: string | null;
  /** The ids of the rule sets that were applied, in run order: the CEN one always, then those the CustomizationID selects. */
  ruleSets: string[];
  /** Broken fatal rules, in the order the rule sets report them. */
  errors: ValidationItem[];
  /** Broken warning rules. */
  warnings: ValidationItem[];
}

/** The rule id of the warning that says a specification's own rules were not checked. */
export const UNCHECKED_RULES = "EINVOICE-RULESET-MISSING";

/**
 * Runs the registered rule sets that apply (rulesets/index.ts) on the model of a UBL Invoice or
 * CreditNote: each set whose `appliesTo` matches cbc:CustomizationID, with the sets it is basedOn,
 * each once, bases first. A CustomizationID naming a specification none of them covers gets a
 * warning (`EINVOICE-RULESET-MISSING`) saying which rules were not checked. A number longer than the rules
 * read (`MAX_INTEGER_DIGITS`, `MAX_FRACTION_DIGITS`) is `invalid_ubl_xml`, thrown before any rule runs.
 */
export function validateModel(root: UblNode): ValidationReport {
  requireBoundedDecimals(root);
  const documentType: UblDocumentType = root.name === "CreditNote" ? "CreditNote" : "Invoice";
  const cid = child(root, "cbc:CustomizationID");
  const customizationId = cid === null ? null : normalizeSpace(stringValue(cid));
  const sets = ruleSetsApplying(customizationId);
  const findings = runRules(root, familiesOf(sets));
  const levels = levelsOf(sets, { documentType, customizationId });
  const errors: ValidationItem[] = [];
  const warnings: ValidationItem[] = [];
  for (const f of findings) {
    const level = levels?.[f.rule] ?? f.flag;
    if (level !== "information") (level === "fatal" ? errors : warnings).push(item(f));
  }
  const unchecked = uncheckedSpecification(customizationId, sets);
  if (unchecked !== null) warnings.unshift(uncheckedItem(unchecked, sets, locationOf(cid ?? root)));
  return { valid: errors.length === 0, documentType, customizationId, ruleSets: sets.map((s) => s.id), errors, warnings };
}

function uncheckedItem(spec: string, sets: readonly RuleSet[], location: string): ValidationItem {
  const ran = sets.map((s) => `${s.title} (${s.id})`).join(", ");
  return {
    rule: UNCHECKED_RULES,
    message: `The CustomizationID says the document follows ${spec}, whose own rules einvoice does not have: it was checked against ${ran} only, and the rules of ${spec} were not checked. Check them with that specification's validator before sending.`,
    location,
  };
}

function item(f: Finding): ValidationItem {
  return { rule: f.rule, message: f.message, location: f.location };
}

/**
 * Validates a UBL Invoice or CreditNote against the official rules and returns the report.
 *
 * `document` is the XML: its bytes (a Buffer or Uint8Array, UTF-8), or a string that is either the
 * XML text itself (it starts with `<`, after any whitespace) or the document in base64 (as `xml` in
 * the HTTP body; base64 never contains `<`, so the two cannot be confused).
 * The checks before the rules are those of submit (contract rows 5 to 8), with their codes: bad
 * base64 or not UTF-8 XML text → `invalid_base64_xml`; a ZIP or two documents → `single_xml_only`;
 * not well-formed, a DOCTYPE, another encoding, XML 1.1, a root other than Invoice or CreditNote →
 * `invalid_ubl_xml`. A document that breaks rules is not an error: the report says so.
 *
 * @example const report = validateInvoice(readFileSync("invoice.xml")); if (!report.valid) console.log(report.errors)
 * @example validateInvoice(body.xml) // base64, as in POST /v1/validate
 */
export function validateInvoice(
  document: Uint8Array | string,
  options: { limits?: XmlLimits } = {},
): ValidationReport {
  const limits = options.limits ?? DEFAULT_XML_LIMITS;
  let text: string;
  if (typeof document === "string" && /^\uFEFF?[ \t\r\n]*</.test(document)) {
    text = document.charCodeAt(0) === 0xfeff ? document.slice(1) : document;
    if (Buffer.byteLength(text, "utf8") > limits.maxBytes) throw tooLarge(Buffer.byteLength(text, "utf8"), limits);
  } else {
    const bytes = typeof document === "string" ? decodeBase64(document, limits) : document;
    rejectZip(bytes);
    const decoded = decodeUtf8(bytes);
    if (decoded === null) {
      probeForSecondDocument(decodeUtf8Lossy(bytes), limits);
      throw notUtf8Error();
    }
    if (bytes.length > limits.maxBytes) throw tooLarge(bytes.length, limits);
    text = decoded;
  }
  requireMarkupStart(text);
  return validateModel(requireUblRoot(parseXml(text, limits), ["Invoice", "CreditNote"]));
}

function decodeBase64(b64: string, limits: XmlLimits): Buffer {
  const compact = checkBase64(b64);
  const size = base64DecodedSize(compact);
  if (size > limits.maxBytes * 4) throw tooLarge(size, limits);
  return Buffer.from(compact, "base64");
}

function tooLarge(bytes: number, limits: XmlLimits): ApiError {
  const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return new ApiError("invalid_ubl_xml", `xml is too large to accept: the document is ${mib(bytes)} MiB; the limit is ${mib(limits.maxBytes)} MiB.`);
}

/** At most this many items in the `errors` of a submit refused for broken rules. */
export const MAX_REPORTED_ERRORS = 100;

/**
 * The `invalid_ubl_xml` error of a document that breaks fatal rules: the count, the rule sets (by their
 * titles; `ruleSets` are the report's ids, EN 16931 / Peppol BIS Billing 3.0 when not given) and the
 * first rule ids, and the items.
 */
export function rulesError(
  errors: readonly ValidationItem[],
  documentName: "invoice" | "credit note" = "invoice",
  ruleSets: readonly string[] = [cen.id, peppol.id],
): ApiError {
  const titles = ruleSets.map((id) => RULE_SETS.find((s) => s.id === id)?.title ?? id).join(" / ");
  const ids: string[] = [];
  for (const e of errors) if (!ids.includes(e.rule) && ids.push(e.rule) >= 5) break;
  const n = errors.length;
  const more = new Set(errors.map((e) => e.rule)).size > ids.length ? ", ..." : "";
  return new ApiError(
    "invalid_ubl_xml",
    `The ${documentName} breaks ${n} fatal rule${n === 1 ? "" : "s"} of ${titles} (${ids.join(", ")}${more}); a receiving access point would reject it. See errors for each rule, its message and location.`,
    { errors: errors.slice(0, MAX_REPORTED_ERRORS) },
  );
}
