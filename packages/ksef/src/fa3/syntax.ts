// fa3Syntax: FA(3) as one syntax module of the core's shape (`Syntax`: recognise the root, say invoice or credit
// note, read into InvoiceData, write from it). Its id "fa3" is not in the core's union (the core cannot import this
// package), so it has its own interface with the same methods; the core's registry does not list it.
import { convertCiiToUbl, type InvoiceData, type InvoiceKind, type ModelNode, type WriteOptions } from "@einvoice/core";
import { toFa3, type Fa3Options } from "../fa3.js";
import { fa3KindOf, invoiceDataOfFa3, isFa3Root } from "./read.js";

/** The core's `Syntax`, for FA(3): the same methods, its own id. */
export interface Fa3Syntax {
  readonly id: "fa3";
  readonly title: string;
  recognises(root: ModelNode): boolean;
  kindOf(root: ModelNode): InvoiceKind;
  read(root: ModelNode): InvoiceData;
  write(data: InvoiceData, options?: WriteOptions & Fa3Options): string;
}

/**
 * FA(3) as a syntax. `write` takes the data through the core's UBL builder with every amount as written (the
 * builder `convertCiiToUbl` uses) and maps that with `toFa3`, so it throws `Fa3MappingError` where toFa3 does
 * (a credit note needs `correctedInvoice`; a foreign currency an exchange rate).
 *
 * @example const data = fa3Syntax.read(fa3Root(bytes)); const again = fa3Syntax.write(data, { kind: fa3Syntax.kindOf(root) });
 */
export const fa3Syntax: Fa3Syntax = {
  id: "fa3",
  title: "FA(3) (KSeF, schema 1-0E)",
  recognises: isFa3Root,
  kindOf: fa3KindOf,
  read: invoiceDataOfFa3,
  write: (data, options = {}) => {
    const kind = options.kind ?? (data.typeCode === "381" ? "creditNote" : "invoice");
    const { root } = convertCiiToUbl(data, kind === "creditNote" ? "CreditNote" : "Invoice");
    return toFa3(root, options);
  },
};
