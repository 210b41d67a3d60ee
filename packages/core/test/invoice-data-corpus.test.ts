// The corpus round trip: every valid Peppol BIS Billing 3.0 document of the corpus, read as InvoiceData
// and built again, is valid and carries the same business terms. Two views: the InvoiceData read back
// from the rebuilt document equals the one read from the original (amounts compared as decimals), and
// every value the original carries in a leaf element is in the rebuilt document at the same path
// (compared on an independent xmldom tree). What does not survive is listed exactly below.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { buildInvoice, PEPPOL_BIS3_CUSTOMIZATION as PEPPOL_BIS3, readInvoiceData, validateInvoice } from "../src/index.js";
import { CORPUS_DIR, readIndex } from "./support/corpus.js";

const DECIMAL = /^-?\d*\.?\d+$/;

/** JSON pointers where two InvoiceData differ; decimal strings compare by value. */
function differences(a: unknown, b: unknown, at = ""): string[] {
  if (typeof a === "string" && typeof b === "string" && DECIMAL.test(a) && DECIMAL.test(b)) return Number(a) === Number(b) ? [] : [at];
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}/${k}`));
  }
  return isDeepStrictEqual(a, b) ? [] : [at];
}

/** Every leaf element as "path=value" (no positions, decimals by value), counted. */
function leafValues(xml: string): Map<string, number> {
  const doc = new DOMParser().parseFromString(xml, "text/xml");
  const out = new Map<string, number>();
  const walk = (el: Element, path: string) => {
    const here = `${path}/${el.localName}`;
    const kids = Array.from(el.childNodes).filter((n): n is Element => n.nodeType === 1);
    if (kids.length === 0) {
      let v = (el.textContent ?? "").trim();
      if (DECIMAL.test(v)) v = String(Number(v));
      out.set(`${here}=${v}`, (out.get(`${here}=${v}`) ?? 0) + 1);
    }
    for (const k of kids) walk(k, here);
  };
  walk(doc.documentElement as unknown as Element, "");
  return out;
}

/**
 * What does not survive, by document: the only loss is the position of an address line. InvoiceData
 * has `lines` (BT-35, BT-36, BT-162 in order); a document that skips the second (a street name and
 * an AddressLine, or an additional street name without a street name) comes back with the same
 * texts in the first positions.
 */
const KNOWN_LOSSES: Record<string, string[]> = {
  "cen-en16931/testfiles/BIS_Billing_30-InomstatligFakturering.xml": [
    "/Invoice/AccountingSupplierParty/Party/PostalAddress/AddressLine/Line=Åsens LVM-hem",
    "/Invoice/AccountingCustomerParty/Party/PostalAddress/AdditionalStreetName=Box 321",
    "/Invoice/AccountingCustomerParty/Party/PostalAddress/AddressLine/Line=Region Mitt",
  ],
};

describe("corpus round trip: buildUbl(readInvoiceData(doc))", () => {
  it("is valid and carries the same business terms for every valid Peppol BIS 3 corpus document", () => {
    let checked = 0;
    const losses: Record<string, string[]> = {};
    for (const row of readIndex()) {
      if (row.root !== "Invoice" && row.root !== "CreditNote") continue;
      const xml = readFileSync(join(CORPUS_DIR, row.path), "utf8");
      let report;
      try {
        report = validateInvoice(xml);
      } catch {
        continue; // not a readable document: nothing to round-trip
      }
      if (!report.valid || !(report.customizationId ?? "").startsWith(PEPPOL_BIS3)) continue;
      checked++;
      const { rootElement, documentType: _formerName, ...data } = readInvoiceData(xml);
      const built = buildInvoice(data, { rootElement });
      expect({ path: row.path, errors: built.report.errors }).toEqual({ path: row.path, errors: [] });
      expect({ path: row.path, differences: differences(readInvoiceData(built.xml), { rootElement, documentType: rootElement, ...data }) }).toEqual({ path: row.path, differences: [] });
      const rebuilt = leafValues(built.xml);
      const lost: string[] = [];
      for (const [k, n] of leafValues(xml)) {
        if (k.startsWith("/Invoice/UBLVersionID=") || k.startsWith("/CreditNote/UBLVersionID=")) continue; // syntax, not a business term
        if ((rebuilt.get(k) ?? 0) < n) lost.push(k);
      }
      if (lost.length > 0) losses[row.path] = lost;
    }
    expect(checked).toBeGreaterThanOrEqual(30);
    expect(losses).toEqual(KNOWN_LOSSES);
  }, 120_000);
});
