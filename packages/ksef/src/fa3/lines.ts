// FaWiersz: the invoice lines (BG-25), then the document-level allowances (negative) and charges
// (BG-20, BG-21) as lines of their own, so that the lines add up to the taxable amounts.
import Big from "big.js";
import type { Fa3Node } from "../model.js";
import { childOf, childrenOf, firstAt, text } from "../model.js";
import { amount, Fa3MappingError, PRICE, QUANTITY } from "./values.js";
import { category, slotFor, type VatBreakdown } from "./vat.js";
import type { Xml } from "./xml.js";

/** What writing the lines needs of the document. */
export interface LinesContext {
  root: Fa3Node;
  credit: boolean;
  /** A credit note's amounts turned negative; others as they are. */
  signed: (value: string) => string;
  /** The exchange rate to PLN (KursWaluty) of a foreign-currency invoice, or null. */
  rate: string | null;
  vat: VatBreakdown;
}

export function writeLines(x: Xml, c: LinesContext): void {
  let row = 0;
  for (const line of childrenOf(c.root, c.credit ? "cac:CreditNoteLine" : "cac:InvoiceLine")) writeLine(x, c, line, ++row);
  for (const ac of childrenOf(c.root, "cac:AllowanceCharge")) writeAllowanceCharge(x, c, ac, ++row);
}

/** The unit price (P_9A): the price per one unit of the base quantity, or "" when it is not exact in 8 decimals (P_9A is optional). */
function unitPriceOf(line: Fa3Node): string {
  const price = text(firstAt(line, "cac:Price/cbc:PriceAmount"));
  const baseQty = text(firstAt(line, "cac:Price/cbc:BaseQuantity"));
  if (!price) return "";
  const s = baseQty && new Big(baseQty).gt(0) && !new Big(baseQty).eq(1) ? new Big(price).div(baseQty).toFixed() : price;
  return PRICE.test(s) ? s : "";
}

function writeLine(x: Xml, c: LinesContext, line: Fa3Node, row: number): void {
  const field = `Fa/FaWiersz[${row}]`;
  const item = childOf(line, "cac:Item");
  const slot = slotFor(c.vat, category(childOf(item, "cac:ClassifiedTaxCategory")), `${field}/P_12`);
  const qtyNode = childOf(line, c.credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity");
  const qty = text(qtyNode);
  if (qty && !QUANTITY.test(qty)) throw new Fa3MappingError(`${field}/P_8B`, `the quantity "${qty}" (BT-129) has more than 6 decimals or is not a decimal`);
  const unitPrice = unitPriceOf(line);
  const gtin = childrenOf(item, "cac:StandardItemIdentification").map((s) => childOf(s, "cbc:ID")).find((id) => id?.attrs["schemeID"] === "0160");
  x.open("FaWiersz")
    .leaf("NrWierszaFa", String(row))
    .leaf("P_7", text(childOf(item, "cbc:Name")).slice(0, 512))
    .leaf("Indeks", text(firstAt(item, "cac:SellersItemIdentification/cbc:ID")).slice(0, 50))
    .leaf("GTIN", gtin ? text(gtin).slice(0, 20) : "")
    .leaf("P_8A", qtyNode?.attrs["unitCode"])
    .leaf("P_8B", qty ? c.signed(qty) : qty)
    .leaf("P_9A", unitPrice)
    .leaf("P_11", c.signed(amount(text(childOf(line, "cbc:LineExtensionAmount")), `${field}/P_11`, "the line net amount (BT-131)")))
    .leaf("P_12", slot.code)
    .leaf("KursWaluty", c.rate ?? "")
    .close("FaWiersz");
}

function writeAllowanceCharge(x: Xml, c: LinesContext, ac: Fa3Node, row: number): void {
  const field = `Fa/FaWiersz[${row}]`;
  const isCharge = text(childOf(ac, "cbc:ChargeIndicator")) === "true";
  const slot = slotFor(c.vat, category(childOf(ac, "cac:TaxCategory")), `${field}/P_12`);
  const amt = amount(text(childOf(ac, "cbc:Amount")), `${field}/P_11`, isCharge ? "the charge amount (BT-99)" : "the allowance amount (BT-92)");
  const reason = text(childOf(ac, "cbc:AllowanceChargeReason")) || text(childOf(ac, "cbc:AllowanceChargeReasonCode"));
  x.open("FaWiersz")
    .leaf("NrWierszaFa", String(row))
    .leaf("P_7", `${isCharge ? "Charge" : "Allowance"}${reason ? `: ${reason}` : ""}`.slice(0, 512))
    .leaf("P_11", c.signed(isCharge ? amt : new Big(amt).times(-1).toFixed(2)))
    .leaf("P_12", slot.code)
    .leaf("KursWaluty", c.rate ?? "")
    .close("FaWiersz");
}
