import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR } from "../../support/corpus.js";
import { xmldomTree } from "../../support/xmldom-tree.js";
import { runRules } from "../../../src/validation/engine.js";
import { PEPPOL_CASES } from "../../../src/validation/rules/peppol.cases.js";
import { peppolRules } from "../../../src/validation/rules/peppol.js";

const base = readFileSync(resolve(CORPUS_DIR, "openpeppol-bis3/examples/base-example.xml"), "utf8");
const findings = (xml: string) => runRules(xmldomTree(xml), [peppolRules]);
const edit = (edits: ReadonlyArray<readonly [string, string]>) =>
  edits.reduce((x, [a, b]) => { expect(x, `the base example contains ${a}`).toContain(a); return x.replace(a, b); }, base);

describe("Peppol BIS Billing 3.0 rules (release 2026.5)", () => {
  it("finds nothing in the official base example", () => {
    expect(findings(base)).toEqual([]);
  });

  for (const c of PEPPOL_CASES) {
    it(c.name, () => {
      const ids = new Set(findings(edit(c.edits)).map((f) => f.rule));
      for (const r of c.fires) expect(ids, `${r} fires`).toContain(r);
      for (const r of c.silent) expect(ids, `${r} stays silent`).not.toContain(r);
    });
  }

  it("names the identifier, its scheme and what is wrong, at the element's location", () => {
    const [f] = findings(base.replace("9482348239847239874", "5790000436102")).filter((x) => x.rule === "PEPPOL-COMMON-R040");
    expect(f).toEqual({
      rule: "PEPPOL-COMMON-R040",
      flag: "fatal",
      message: "The seller's electronic address '5790000436102' (scheme 0088) is not a valid GLN: the check digit is wrong.",
      location: "/Invoice/cac:AccountingSupplierParty[1]/cac:Party[1]/cbc:EndpointID[1]",
    });
  });

  it("reports warnings with their official flag", () => {
    const out = findings(base.replace('<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>', '<cbc:EndpointID schemeID="0106">1234567</cbc:EndpointID>'));
    expect(out.filter((f) => f.rule === "PEPPOL-COMMON-R054").map((f) => f.flag)).toEqual(["warning"]);
  });
});
