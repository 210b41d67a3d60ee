import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../domain/errors.js";
import { scanXml } from "./scan.js";
import { parseXml } from "./xml.js";

const parse = (s: string) => parseXml(s, scanXml(s));

function failure(fn: () => unknown): ApiError | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  return undefined;
}

describe("parseXml", () => {
  const spies: Array<ReturnType<typeof vi.spyOn>> = [];
  beforeEach(() => {
    for (const m of ["log", "warn", "error", "info", "debug"] as const) spies.push(vi.spyOn(console, m));
  });
  afterEach(() => {
    for (const s of spies) {
      expect(s).not.toHaveBeenCalled();
      s.mockRestore();
    }
    spies.length = 0;
  });

  it("parses a namespaced document", () => {
    const doc = parse('<?xml version="1.0" encoding="utf-8"?><Invoice xmlns="urn:x"><ID>1</ID></Invoice>');
    expect(doc.documentElement?.namespaceURI).toBe("urn:x");
  });

  it("rejects a DOCTYPE with internal entities (no expansion happens)", () => {
    const lol = '<!DOCTYPE a [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><a>&b;</a>';
    const e = failure(() => parse(lol));
    expect(e?.code).toBe("invalid_ubl_xml");
    expect(e?.message).toMatch(/DOCTYPE is not allowed/);
  });

  it("rejects an external entity declaration", () => {
    const e = failure(() => parse('<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'));
    expect(e?.code).toBe("invalid_ubl_xml");
    expect(e?.message).not.toMatch(/root:/);
  });

  it("rejects an undeclared entity reference", () => {
    expect(failure(() => parse("<a>&foo;</a>"))?.code).toBe("invalid_ubl_xml");
  });

  it("rejects encodings other than UTF-8", () => {
    expect(failure(() => parse('<?xml version="1.0" encoding="ISO-8859-1"?><a/>'))?.message).toMatch(/ISO-8859-1/);
    expect(failure(() => parse('<?xml version="1.0" encoding="UTF-16"?><a/>'))?.code).toBe("invalid_ubl_xml");
  });

  it("rejects characters XML forbids, such as NUL", () => {
    expect(failure(() => parse("<a>\u0000</a>"))?.message).toMatch(/U\+0000/);
    expect(failure(() => parse("<a>\u000B</a>"))?.code).toBe("invalid_ubl_xml");
  });

  it("turns parser errors into invalid_ubl_xml with the parser's reason", () => {
    expect(failure(() => parse("<a><b></a>"))?.message).toMatch(/line 1, column 7: the end tag <\/a> does not match the start tag <b>/);
    expect(failure(() => parse("<a x='1' x='2'/>"))?.code).toBe("invalid_ubl_xml");
    const many = Array.from({ length: 40 }, (_, i) => `a${i}='1'`).join(" ");
    expect(parse(`<a ${many}/>`).documentElement.localName).toBe("a");
    expect(failure(() => parse(`<a ${many} a3='2'/>`))?.message).toMatch(/the attribute a3 appears twice/);
    expect(failure(() => parse(`<a ${many} a39='2'/>`))?.message).toMatch(/the attribute a39 appears twice/);
    expect(failure(() => parse("<p:a/>"))?.code).toBe("invalid_ubl_xml");
    expect(failure(() => parse("<a>text</a>junk"))?.code).toBe("invalid_ubl_xml");
    expect(failure(() => parse("<a"))?.code).toBe("invalid_ubl_xml");
  });

  it("keeps a kept element's attributes with references resolved and whitespace normalised, whatever came before them", () => {
    const text = `<r xmlns:p="urn:p"><skip x="&amp;" y="&#65;"/><k a="1" b="x&amp;y&#x42;" c="t\tu\r\nv" p:z="no" xmlns:q="urn:q">v</k></r>`;
    const doc = parseXml(text, scanXml(text), { k: ["", "text"] });
    const k = doc.documentElement.children[0]!;
    expect(k.attributes).toEqual({ a: "1", b: "x&yB", c: "t u v" });
    expect(k.text).toBe("v");
  });

  it("checks every attribute of an element it does not keep: references, prefixes and expanded names", () => {
    expect(failure(() => parse('<a><b x="1" y="&bad;"/></a>'))?.message).toMatch(/the entity &bad; is not defined/);
    expect(failure(() => parse('<a><b x="1" y="&#0;"/></a>'))?.message).toMatch(/does not name a character/);
    expect(failure(() => parse('<a><b p:x="1"/></a>'))?.message).toMatch(/the namespace prefix "p" of the attribute p:x is not declared/);
    expect(failure(() => parse('<a xmlns:p="urn:1" xmlns:q="urn:1"><b p:x="1" q:x="2"/></a>'))?.message).toMatch(/q:x appears twice/);
    expect(failure(() => parse('<a><b xmlns:p=""/></a>'))?.message).toMatch(/may not be undeclared/);
    expect(failure(() => parse('<a><xmlns:b/></a>'))?.message).toMatch(/may not have the prefix xmlns/);
    // A binding made on an element ends with it.
    expect(failure(() => parse('<a><b xmlns:p="urn:p"><p:c/></b><p:c/></a>'))?.message).toMatch(/the namespace prefix "p" of <p:c> is not declared/);
    // The same names at different depths: each end tag matches its own start tag.
    expect(parse("<a><a><a/></a><ab><a>1</a></ab></a>").documentElement.localName).toBe("a");
    expect(failure(() => parse("<ab><a></ab></a>"))?.message).toMatch(/the end tag <\/ab> does not match the start tag <a>/);
    expect(failure(() => parse("<a><b></b"))?.message).toMatch(/<\/b> is not closed with >|is not closed/);
  });
});
