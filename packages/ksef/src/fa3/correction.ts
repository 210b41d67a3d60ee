// A credit note as an FA(3) correction (KOR): the invoices it corrects (BG-3: BT-25, BT-26), each
// with what KSeF knows of it (its KSeF number, or that it was issued outside KSeF), as
// DaneFaKorygowanej. UBL carries neither, so the mapping never infers it.
import type { Fa3Node } from "../model.js";
import { childrenOf, firstAt, text } from "../model.js";
import { date, Fa3MappingError } from "./values.js";
import type { Xml } from "./xml.js";

/** What KSeF knows of a corrected invoice (see `Fa3Options.correctedInvoice`). */
export type CorrectedInvoice = { ksefNumber: string } | { outsideKsef: true };

/** A corrected invoice as DaneFaKorygowanej writes it. */
export interface Correction {
  number: string;
  issueDate: string;
  known: CorrectedInvoice;
}

const KSEF_NUMBER = /^([1-9]((\d[1-9])|([1-9]\d))\d{7}|M\d{9}|[A-Z]{3}\d{7})-(20[2-9][0-9]|2[1-9][0-9]{2}|[3-9][0-9]{3})(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])-([0-9A-F]{6})-?([0-9A-F]{6})-([0-9A-F]{2})$/;

/** The invoices a credit note corrects (BG-3: BT-25 number, BT-26 issue date). */
export function correctedInvoices(root: Fa3Node): { number: string; issueDate: string }[] {
  return childrenOf(root, "cac:BillingReference").map((b) => ({ number: text(firstAt(b, "cac:InvoiceDocumentReference/cbc:ID")), issueDate: text(firstAt(b, "cac:InvoiceDocumentReference/cbc:IssueDate")) }));
}

/** Each corrected invoice of a credit note with what `known` says of it; throws when one is unnamed, undated or unknown. */
export function readCorrections(root: Fa3Node, known: ((ref: { number: string; issueDate: string }) => CorrectedInvoice | null) | undefined): Correction[] {
  const refs = correctedInvoices(root);
  if (refs.length === 0 || refs.some((r) => !r.number)) throw new Fa3MappingError("Fa/DaneFaKorygowanej/NrFaKorygowanej", "a correction (KOR) names the invoice it corrects: the credit note has no preceding invoice reference (BT-25)");
  return refs.map((r) => {
    const issueDate = date(r.issueDate, "Fa/DaneFaKorygowanej/DataWystFaKorygowanej", `the issue date (BT-26) of the corrected invoice ${r.number}`);
    const k = known?.(r) ?? null;
    if (!k) throw new Fa3MappingError("Fa/DaneFaKorygowanej", `KSeF correction invoices (KOR) need the KSeF number of the corrected invoice ${r.number}, or to know it was issued outside KSeF; UBL does not carry either and none was given`);
    if ("ksefNumber" in k && !KSEF_NUMBER.test(k.ksefNumber)) throw new Fa3MappingError("Fa/DaneFaKorygowanej/NrKSeFFaKorygowanej", `"${k.ksefNumber}" given for the corrected invoice ${r.number} is not a KSeF number`);
    return { number: r.number, issueDate, known: k };
  });
}

export function writeCorrections(x: Xml, corrections: readonly Correction[]): void {
  for (const c of corrections) {
    x.open("DaneFaKorygowanej").leaf("DataWystFaKorygowanej", c.issueDate).leaf("NrFaKorygowanej", c.number.slice(0, 256));
    if ("ksefNumber" in c.known) x.leaf("NrKSeF", "1").leaf("NrKSeFFaKorygowanej", c.known.ksefNumber);
    else x.leaf("NrKSeFN", "1");
    x.close("DaneFaKorygowanej");
  }
}
