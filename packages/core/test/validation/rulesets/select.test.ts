import { describe, expect, it } from "vitest";
import type { RuleFamily } from "../../../src/document/model.js";
import { RULE_SETS } from "../../../src/validation/rulesets/index.js";
import { familiesOf, ruleSetIdsFor, ruleSetsApplying, uncheckedSpecification } from "../../../src/validation/rulesets/select.js";
import type { RuleSet } from "../../../src/validation/rulesets/types.js";

const family: RuleFamily = () => {};
const set = (id: string, basedOn: string[], appliesTo: (cid: string | null) => boolean): RuleSet => ({
  id,
  title: id,
  version: "1",
  syntax: "ubl",
  licence: "test",
  customizationIds: [],
  appliesTo,
  basedOn,
  families: { [id]: family },
});

describe("rule-set selection", () => {
  const base = set("BASE", [], () => true);
  const mid = set("MID", ["BASE"], (c) => c === "x" || c === "y");
  const top = set("TOP", ["MID", "BASE"], (c) => c === "y");

  it("runs the sets that apply with their basedOn closure, bases first, each once, whatever the registration order", () => {
    expect(ruleSetsApplying("y", [top, mid, base]).map((s) => s.id)).toEqual(["BASE", "MID", "TOP"]);
    expect(ruleSetsApplying("x", [top, base, mid]).map((s) => s.id)).toEqual(["BASE", "MID"]);
    expect(ruleSetsApplying(null, [top, mid, base]).map((s) => s.id)).toEqual(["BASE"]);
  });

  it("runs a set's base even when the base itself would not apply", () => {
    const onlyWithTop = set("HIDDEN", [], () => false);
    const t = set("T", ["HIDDEN"], () => true);
    expect(ruleSetsApplying("z", [onlyWithTop, t]).map((s) => s.id)).toEqual(["HIDDEN", "T"]);
  });

  it("refuses a registry whose basedOn names an unknown set or loops", () => {
    expect(() => ruleSetsApplying("y", [set("A", ["NOPE"], () => true)])).toThrow(/NOPE, which is not registered/);
    expect(() => ruleSetsApplying("y", [set("A", ["B"], () => true), set("B", ["A"], () => false)])).toThrow(/basedOn itself/);
  });

  it("returns the families of the sets in run order", () => {
    expect(familiesOf([base, mid])).toEqual([family, family]);
  });

  it("the registry: CEN always, Peppol BIS Billing 3.0 on top for its CustomizationID and extensions of it", () => {
    expect(ruleSetIdsFor(null)).toEqual(["CEN-EN16931-UBL-2026.5"]);
    expect(ruleSetIdsFor("urn:cen.eu:en16931:2017")).toEqual(["CEN-EN16931-UBL-2026.5"]);
    const bis = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
    expect(ruleSetIdsFor(bis)).toEqual(["CEN-EN16931-UBL-2026.5", "PEPPOL-EN16931-UBL-2026.5"]);
    expect(ruleSetIdsFor(`${bis}#conformant#urn:example.org:ext`)).toEqual(["CEN-EN16931-UBL-2026.5", "PEPPOL-EN16931-UBL-2026.5"]);
  });

  it("the registry: NLCIUS on top of CEN for its CustomizationID and its extensions, whose own rules are reported as not checked", () => {
    const nl = "urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0";
    expect(ruleSetIdsFor(nl)).toEqual(["CEN-EN16931-UBL-2026.5", "NLCIUS-SI-UBL-2.0.3.13"]);
    expect(uncheckedSpecification(nl, ruleSetsApplying(nl))).toBeNull();
    const gaccount = `${nl}#conformant#urn:fdc:nen.nl:gaccount:v1.0`;
    expect(ruleSetIdsFor(gaccount)).toEqual(["CEN-EN16931-UBL-2026.5", "NLCIUS-SI-UBL-2.0.3.13"]);
    expect(uncheckedSpecification(gaccount, ruleSetsApplying(gaccount))).toBe("urn:fdc:nen.nl:gaccount:v1.0");
    expect(ruleSetIdsFor("urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.01")).toEqual(["CEN-EN16931-UBL-2026.5"]);
  });

  it("every registered set has a unique id, a licence, and bases that are registered", () => {
    const ids = RULE_SETS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of RULE_SETS) {
      expect(s.licence).not.toBe("");
      for (const b of s.basedOn) expect(ids).toContain(b);
      for (const cid of s.customizationIds) expect(s.appliesTo(cid)).toBe(true);
    }
  });

  it("names the specification a CustomizationID follows that no applied set covers", () => {
    const cenOnly = ruleSetsApplying("urn:cen.eu:en16931:2017#compliant#urn:example.org:cius");
    expect(uncheckedSpecification("urn:cen.eu:en16931:2017#compliant#urn:example.org:cius", cenOnly)).toBe("urn:example.org:cius");
    expect(uncheckedSpecification("urn:cen.eu:en16931:2017#compliant#urn:a#conformant#urn:b", cenOnly)).toBe("urn:a and urn:b");
    expect(uncheckedSpecification("urn:something:else", cenOnly)).toBe("urn:something:else");
    expect(uncheckedSpecification("urn:cen.eu:en16931:2017", cenOnly)).toBeNull();
    expect(uncheckedSpecification(null, cenOnly)).toBeNull();
    const bis = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
    expect(uncheckedSpecification(bis, ruleSetsApplying(bis))).toBeNull();
    expect(uncheckedSpecification(`${bis}#conformant#urn:example.org:ext`, ruleSetsApplying(bis))).toBe("urn:example.org:ext");
  });
});
