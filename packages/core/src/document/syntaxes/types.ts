// What a syntax is to the core: one module that recognises its document root, reads the document into the EN 16931
// model (InvoiceData) and writes the model back, and whose rule sets (validation/rulesets/, declared with the same
// syntax) judge its documents on their own tree. The registry (index.ts) lists them; adding one is a folder and a line.
import type { InvoiceData } from "../../domain/invoice-data.js";
import type { RuleSyntax } from "../../validation/rulesets/types.js";
import type { DocumentNode } from "../model.js";

/** The XML syntaxes of EN 16931 the core reads and writes: OASIS UBL 2.1 and UN/CEFACT CII D16B. */
export type DocumentSyntax = RuleSyntax;

/** Whether a document is an invoice or a credit note (from its root for UBL, its type code for CII). */
export type InvoiceKind = "invoice" | "creditNote";

/** What a syntax's writer is asked for. */
export interface WriteOptions {
  /** Invoice or credit note; by default from the data's type code (a credit note code gives a credit note). */
  kind?: InvoiceKind;
}

export interface Syntax {
  /** "ubl" or "cii": what the API's `syntax` says and what the syntax's rule sets declare. */
  readonly id: DocumentSyntax;
  /** For people: "UBL 2.1", "UN/CEFACT CII D16B". */
  readonly title: string;
  /** True when `root` is the root element of one of this syntax's documents. */
  recognises(root: DocumentNode): boolean;
  /** Invoice or credit note, from the document's own tree. */
  kindOf(root: DocumentNode): InvoiceKind;
  /**
   * The document read into InvoiceData: every value as written (amounts and totals not recomputed), nothing
   * validated (the rule sets judge the document; the data may miss fields the schema requires).
   */
  read(root: DocumentNode): InvoiceData;
  /** The document of an invoice given as data, UTF-8 XML text, in this syntax. */
  write(data: InvoiceData, options?: WriteOptions): string;
}
