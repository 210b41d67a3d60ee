// Rule family: the Belgian rules of UBL.BE 1.31 (GLOBALUBL.BE, pattern ubl-model-BE): ubl-BE-01 to ubl-BE-15, all
// fatal. Written from the official Schematron; the Belgian lists (BELM, BTCC, BVERC) are generated from it
// (codelists/ublbe.ts, scripts/generate-ublbe-codelists.mjs).
import * as L from "../codelists/ublbe.js";
import { dec } from "../decimal.js";
import { child, children, norm, normalizeSpace, stringValue, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { all } from "./cen-common.js";
import { q, xlength, xsDate } from "./peppol-support.js";

const BELM = new Set(L.BELM_CODES), BELM_TEXT = new Set(L.BELM_TEXTS);
const BTCC = new Set(L.BTCC_CODES), BVERC = new Set(L.BVERC_CODES), BVERC_TEXT = new Set(L.BVERC_TEXTS);

/** `//cbc:X[text() = 'v']`: the element's own text is the value exactly (not trimmed). */
const countText = (root: DocumentNode, qname: string, ...values: string[]) => all(root, qname).filter((node) => values.includes(node.text)).length;

export const ublbeRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const report = ctx.fatal;
  const doc = ctx.rootElement === "CreditNote" ? "credit note" : "invoice";

  // ubl-BE-01 (context /*): at least two additional document references (UBL.BE's own reference and the document type).
  const refs = children(root, "cac:AdditionalDocumentReference");
  if (refs.length < 2) {
    report("ubl-BE-01", `A UBL.BE ${doc} needs at least two additional document references (cac:AdditionalDocumentReference); this one has ${refs.length}.`, root);
  }

  // ubl-BE-02, ubl-BE-03 (context every cac:AdditionalDocumentReference), ubl-BE-04 (each one's cbc:ID).
  const allRefs = all(root, "cac:AdditionalDocumentReference");
  if (allRefs.length > 0) {
    const types = countText(root, "cbc:DocumentDescription", "CommercialInvoice", "CreditNote");
    const ublbe = countText(root, "cbc:ID", "UBL.BE");
    for (const ref of allRefs) {
      if (types !== 1) {
        report("ubl-BE-02", types === 0
          ? "No additional document reference says which document this is: one cbc:DocumentDescription must read 'CommercialInvoice' or 'CreditNote'."
          : `${types} document descriptions read 'CommercialInvoice' or 'CreditNote'; exactly one may.`, ref);
      }
      if (ublbe !== 1) {
        report("ubl-BE-03", ublbe === 0
          ? "No identifier reads 'UBL.BE': add an additional document reference with cbc:ID 'UBL.BE'."
          : `${ublbe} identifiers read 'UBL.BE'; exactly one may.`, ref);
      }
      for (const id of children(ref, "cbc:ID")) {
        const count = children(ref, "cbc:DocumentDescription").length;
        if (count !== 1) {
          report("ubl-BE-04", `The additional document reference ${q(norm(id))} has ${count} document descriptions (cbc:DocumentDescription); it needs exactly one.`, ref);
        }
      }
    }
  }

  // ubl-BE-05, ubl-BE-06 (context //cac:Delivery/cac:DeliveryTerms): a Belgian legal mention, by code and by text.
  for (const terms of all(root, "cac:DeliveryTerms")) {
    if (terms.parent?.qname !== "cac:Delivery") continue;
    const ids = children(terms, "cbc:ID");
    if (ids.length <= 1 && !BELM.has(norm(ids[0]))) {
      report("ubl-BE-05", `The legal mention code (cac:DeliveryTerms/cbc:ID) ${q(norm(ids[0]))} is not a Belgian legal mention code (BELM-001 to BELM-008).`, ids[0] ?? terms);
    }
    const special = children(terms, "cbc:SpecialTerms");
    if (!special.some((specialTerms) => BELM_TEXT.has(stringValue(specialTerms)))) {
      report("ubl-BE-06", `The legal mention text (cbc:SpecialTerms) ${q(stringValue(special[0]))} is not one of the Belgian legal mention texts, written exactly as listed (for example 'Special ruling - used goods').`, special[0] ?? terms);
    }
  }

  // ubl-BE-07 to ubl-BE-09 (context //cac:PaymentTerms): a settlement discount needs a percentage in (0, 100), an
  // amount and a payment due date.
  for (const terms of all(root, "cac:PaymentTerms")) {
    const pctNode = child(terms, "cbc:SettlementDiscountPercent");
    if (!pctNode) continue;
    const pct = dec(stringValue(pctNode));
    if (pct !== null && !((pct.gt(0) && pct.lt(100)) || pct.eq(-1))) {
      report("ubl-BE-07", `The settlement discount percentage ${q(norm(pctNode))} must be between 0 and 100 (both excluded).`, pctNode);
    } else if (pct === null && children(terms, "cbc:SettlementDiscountPercent").length === 1) {
      report("ubl-BE-07", `The settlement discount percentage ${q(norm(pctNode))} is not a number.`, pctNode);
    }
    const amounts = children(terms, "cbc:Amount");
    const amount = amounts.length === 1 ? dec(stringValue(amounts[0])) : null;
    if (amounts.length === 0 || (amount !== null && amount.eq(0))) {
      report("ubl-BE-08", amounts.length === 0
        ? `The payment terms give a settlement discount of ${q(norm(pctNode))} % but no discount amount (cbc:Amount).`
        : "The settlement discount amount (cac:PaymentTerms/cbc:Amount) is 0; give the amount of the discount.", amounts[0] ?? terms);
    }
    const due = children(terms, "cbc:PaymentDueDate");
    const dueText = due.length === 1 ? stringValue(due[0]) : null;
    if (due.length === 0 || (dueText !== null && !(xlength(dueText) === 10 && xsDate(dueText) !== null))) {
      report("ubl-BE-09", due.length === 0
        ? `The payment terms give a settlement discount of ${q(norm(pctNode))} % but no payment due date (cbc:PaymentDueDate).`
        : `The settlement discount's payment due date ${q(dueText)} is not a date written YYYY-MM-DD.`, due[0] ?? terms);
    }
  }

  // ubl-BE-14 (every line): exactly one line VAT total; ubl-BE-13 (its cac:TaxTotal): a numeric amount.
  for (const line of [...all(root, "cac:InvoiceLine"), ...all(root, "cac:CreditNoteLine")]) {
    const totals = children(line, "cac:TaxTotal");
    if (totals.length !== 1) {
      report("ubl-BE-14", `Line ${q(norm(child(line, "cbc:ID")))} has ${totals.length} VAT totals (cac:TaxTotal with cbc:TaxAmount); UBL.BE requires exactly one on every line.`, line);
    }
    for (const total of totals) {
      const amount = children(total, "cbc:TaxAmount");
      if (amount.length === 1 && dec(stringValue(amount[0])) === null) {
        report("ubl-BE-13", `The VAT amount ${q(norm(amount[0]))} of line ${q(norm(child(line, "cbc:ID")))} is not a number.`, amount[0]!);
      }
    }
  }

  // ubl-BE-10 to ubl-BE-12 (context //cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory): the Belgian tax category code in
  // cbc:Name, and the Belgian exemption reason code and text when given.
  for (const cat of all(root, "cac:TaxCategory")) {
    if (cat.parent?.qname !== "cac:TaxSubtotal" || cat.parent.parent?.qname !== "cac:TaxTotal") continue;
    const names = children(cat, "cbc:Name");
    const category = norm(child(cat, "cbc:ID"));
    if (names.length <= 1 && !BTCC.has(norm(names[0]))) {
      report("ubl-BE-10", names.length === 0
        ? `The VAT breakdown of category ${q(category)} has no Belgian tax category code (cac:TaxCategory/cbc:Name, such as '03' for 21 %).`
        : `The Belgian tax category code (cac:TaxCategory/cbc:Name) ${q(norm(names[0]))} of VAT category ${q(category)} is not one of UBL.BE's codes (00, 01, 02, 03, 45, NA, FD, SC, ...).`, names[0] ?? cat);
    }
    const codes = children(cat, "cbc:TaxExemptionReasonCode");
    if (codes.length === 1 && !BVERC.has(norm(codes[0]))) {
      report("ubl-BE-11", `The VAT exemption reason code ${q(norm(codes[0]))} of category ${q(category)} is not a Belgian code (BETE-45, BETE-EX, BETE-FD, ...).`, codes[0]!);
    }
    const reasons = children(cat, "cbc:TaxExemptionReason");
    if (reasons.length === 1 && !BVERC_TEXT.has(norm(reasons[0]))) {
      report("ubl-BE-12", `The VAT exemption reason ${q(norm(reasons[0]))} of category ${q(category)} is not one of UBL.BE's texts (such as 'Reverse charge - Contractor' or 'Exempt').`, reasons[0]!);
    }
  }

  // ubl-BE-15 (every cac:ClassifiedTaxCategory): exactly one cbc:Name.
  for (const cat of all(root, "cac:ClassifiedTaxCategory")) {
    const count = children(cat, "cbc:Name").length;
    if (count !== 1) {
      report("ubl-BE-15", `The item's VAT category ${q(normalizeSpace(stringValue(child(cat, "cbc:ID"))))} has ${count} Belgian tax category codes (cbc:Name); it needs exactly one.`, cat);
    }
  }
};
