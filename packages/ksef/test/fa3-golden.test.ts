// The whole FA(3) output, byte for byte: the SHA-256 of what toFa3 writes (or the field and message
// of its Fa3MappingError) for every corpus invoice and credit note (with its seller made a Polish
// taxpayer) and for generated invoices that reach every section (third parties, buyer units,
// corrections, foreign currency, allowances and charges, payment), compared with
// fixtures/fa3-golden.tsv. A change of the mapping's output shows here as the documents it changes;
// UPDATE_GOLDEN=1 writes the file again (review its diff).
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Fa3MappingError, toFa3, type Fa3Node, type Fa3Options } from "../src/index.js";
import { corpusInvoices, corpusXml, withPolishSeller } from "./support/corpus.js";
import { ublTree } from "./support/tree.js";
import { GENERATED } from "./support/generated.js";

const GOLDEN = resolve(import.meta.dirname, "fixtures/fa3-golden.tsv");
const CREATED = new Date("2026-11-20T10:00:00Z");

/** One row: the FA(3)'s SHA-256 (hex), or `error <field> <sha256 of the message>`. */
function outcome(root: Fa3Node, options: Fa3Options): string {
  try {
    return createHash("sha256").update(toFa3(root, { createdAt: CREATED, ...options }), "utf8").digest("hex");
  } catch (e) {
    if (!(e instanceof Fa3MappingError)) throw e;
    return `error ${e.field} ${createHash("sha256").update(e.message, "utf8").digest("hex").slice(0, 16)}`;
  }
}

function rows(): string[] {
  const out: string[] = [];
  for (const path of corpusInvoices()) {
    const xml = corpusXml(path);
    out.push(`corpus\t${path}\t${outcome(ublTree(xml), { exchangeRate: "4.25" })}`);
    const polish = withPolishSeller(ublTree(xml));
    if (polish) out.push(`corpus-pl\t${path}\t${outcome(polish, { exchangeRate: "4.25", correctedInvoice: () => ({ outsideKsef: true }) })}`);
  }
  for (const [name, make, options] of GENERATED) out.push(`generated\t${name}\t${outcome(ublTree(make().xml), options)}`);
  return out;
}

describe("toFa3: the whole output, byte for byte", () => {
  it("writes for every corpus and generated document exactly the FA(3) (or the mapping error) recorded in fixtures/fa3-golden.tsv", () => {
    const now = rows();
    if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(GOLDEN, `kind\tdocument\tsha256 of the FA(3), or error field message-hash\n${now.join("\n")}\n`);
    const golden = readFileSync(GOLDEN, "utf8").trimEnd().split("\n").slice(1);
    expect(now.length).toBeGreaterThan(150);
    expect(now).toEqual(golden);
  });
});
