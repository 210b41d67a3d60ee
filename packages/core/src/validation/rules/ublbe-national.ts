// Rule family: the Peppol national rules GLOBALUBL.BE 1.31 embeds (Norway, Denmark, Italy, Sweden, Greece). They
// apply to sellers from those countries sending UBL.BE. Most are the same assertions as in Peppol BIS 3 release
// 2026.5, so they run through that family's national visitors (peppol-national.ts), keeping only the ids UBL.BE
// carries, with UBL.BE's flags. UBL.BE's own forms of the Greek document references (MARK number and invoice URL,
// required of every Greek seller, the URL described '##INVOICE-URL##') and GR-R-007-1 to 3 (VAT number or tax
// representative) and DK-R-015 (only UBL.BE has it) are written here. Left at their 2026.5 form (Danish seller and
// buyer only): DK-R-003, DK-R-004 and DK-R-008, which UBL.BE's older copy words slightly more strictly.
import { child, children, first, normalizeSpace, select, stringValue, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { all } from "./cen-common.js";
import { greekTinValid } from "./peppol-checkdigits.js";
import { nationalDocumentRules, nationalFacts, nationalRules } from "./peppol-national.js";
import { peppolFacts, q, xlength, xsubstring } from "./peppol-support.js";

/** The national rule ids GLOBALUBL.BE 1.31 carries that the 2026.5 visitors give the same verdict for, with UBL.BE's flag. */
const CARRIED: ReadonlyMap<string, "fatal" | "warning"> = new Map([
  ["NO-R-001", "fatal"], ["NO-R-002", "warning"],
  ...["002", "004", "005", "006", "007", "008", "009", "010", "011", "013", "014", "016"].map((text) => [`DK-R-${text}`, "fatal"] as const),
  ["DK-R-003", "warning"],
  ...["001", "002", "003", "004"].map((text) => [`IT-R-${text}`, "fatal"] as const),
  ["SE-R-001", "fatal"], ["SE-R-002", "fatal"], ["SE-R-005", "fatal"], ["SE-R-006", "fatal"],
  ...["003", "004", "007", "008", "009", "010", "011", "012"].map((text) => [`SE-R-${text}`, "warning"] as const),
  ...["1", "2", "3", "4", "5", "6", "7"].map((text) => [`GR-R-001-${text}`, "fatal"] as const),
  ...["002", "003", "005", "006", "009", "010"].map((text) => [`GR-R-${text}`, "fatal"] as const),
]);

export const ublbeNationalRules: RuleFamily = (ctx) => {
  const carried: RuleContext = {
    ...ctx,
    report(rule, _flag, message, node) {
      const flag = CARRIED.get(rule);
      if (flag) ctx.report(rule, flag, message, node);
    },
  };
  const facts = peppolFacts(carried);
  const national = nationalFacts(facts);
  nationalDocumentRules(facts, national);
  if (national.any) {
    const visit = (node: DocumentNode): void => {
      nationalRules(facts, national, node);
      for (const element of node.children) visit(element);
    };
    visit(ctx.root);
  }
  if (facts.supplierCountry === "GR" || facts.supplierCountry === "EL") greekRules(ctx);
  if (facts.supplierAddressCountryRaw === "DK") danishVatNumber(ctx);
};

/** DK-R-015 (only in UBL.BE): a Danish seller's VAT number, in its first or second tax scheme, is DK and eight digits. */
function danishVatNumber(ctx: RuleContext): void {
  const party = first(ctx.root, "cac:AccountingSupplierParty/cac:Party");
  const schemes = children(party, "cac:PartyTaxScheme").slice(0, 2);
  for (const pts of schemes) {
    if (normalizeSpace(first(pts, "cac:TaxScheme/cbc:ID")?.text ?? "") !== "VAT") continue;
    const value = child(pts, "cbc:CompanyID")?.text ?? "";
    if (!(xlength(value) === 10 && xsubstring(value, 1, 2) === "DK" && /^[0-9]*$/.test(xsubstring(value, 3, 8)))) {
      ctx.report("DK-R-015", "fatal", `The Danish seller's VAT number ${q(value)} must be DK followed by eight digits.`, child(pts, "cbc:CompanyID") ?? pts);
      return;
    }
  }
}

/** UBL.BE's Greek rules where its wording differs from 2026.5's: every Greek seller (by VAT number), whatever its address. */
function greekRules(ctx: RuleContext): void {
  const root = ctx.root;
  const refs = children(root, "cac:AdditionalDocumentReference");
  const described = (node: DocumentNode, text: string) => children(node, "cbc:DocumentDescription").some((documentDescription) => stringValue(documentDescription) === text);
  const marks = refs.filter((additionalDocumentReference) => described(additionalDocumentReference, "##M.AR.K##")).length, urls = refs.filter((additionalDocumentReference) => described(additionalDocumentReference, "##INVOICE-URL##")).length;
  if (marks !== 1) ctx.report("GR-R-004-1", "fatal", `A Greek seller's invoice must carry exactly one MARK number (a document reference described '##M.AR.K##'); it has ${marks}.`, root);
  if (urls !== 1) ctx.report("GR-S-008-1", "warning", `A Greek seller's invoice should carry one invoice URL (a document reference described '##INVOICE-URL##'); it has ${urls}.`, root);
  if (urls > 1) ctx.report("GR-R-008-2", "fatal", `A Greek seller's invoice may carry at most one invoice URL; it has ${urls}.`, root);
  for (const ref of all(root, "cac:AdditionalDocumentReference")) {
    if (described(ref, "##M.AR.K##")) {
      for (const id of children(ref, "cbc:ID")) {
        if (!/^[1-9]([0-9]*)/.test(stringValue(id))) ctx.report("GR-R-004-2", "fatal", `The MARK number ${q(stringValue(id))} must be a positive whole number.`, id);
      }
    } else if (described(ref, "##INVOICE-URL##") && normalizeSpace(stringValue(first(ref, "cac:Attachment/cac:ExternalReference/cbc:URI"))) === "") {
      ctx.report("GR-R-008-3", "fatal", "The invoice URL reference of a Greek seller must give the URL (Attachment/ExternalReference/URI).", ref);
    }
  }
  const vatIds = (party: DocumentNode) => children(party, "cac:PartyTaxScheme").filter((partyTaxScheme) => normalizeSpace(stringValue(first(partyTaxScheme, "cac:TaxScheme/cbc:ID"))) === "VAT").flatMap((partyTaxScheme) => children(partyTaxScheme, "cbc:CompanyID"));
  for (const party of select(root, "cac:AccountingSupplierParty/cac:Party")) {
    if (vatIds(party).length !== 1 && !(ctx.rootElement === "Invoice" && children(root, "cac:TaxRepresentativeParty").length === 1)) {
      ctx.report("GR-R-007-1", "fatal", "A Greek seller must give exactly one VAT number, or a tax representative.", party);
    }
  }
  for (const rep of all(root, "cac:TaxRepresentativeParty")) {
    if (xlength(normalizeSpace(stringValue(first(rep, "cac:PartyName/cbc:Name")))) === 0) ctx.report("GR-R-007-2", "fatal", "The Greek seller's tax representative must give its name (PartyName/Name).", rep);
    const ids = vatIds(rep), text = stringValue(ids[0]);
    if (!(ids.length === 1 && xsubstring(text, 1, 2) === "EL" && greekTinValid(xsubstring(text, 3)))) {
      ctx.report("GR-R-007-3", "fatal", `The Greek seller's tax representative must give one VAT number of the form EL followed by a valid tax number (AFM); it has ${q(text)}.`, child(rep, "cac:PartyTaxScheme") ?? rep);
    }
  }
}
