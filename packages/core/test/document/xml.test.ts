import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { DEFAULT_XML_LIMITS, hasForbiddenUtf8, knownNamesKept, parseXml, parseXmlUtf8 } from "../../src/document/xml.js";
import type { DocumentNode } from "../../src/document/model.js";
import { expectIndexMatchesWalk, qnameIndexOf, walkedByQname } from "../support/qname-index.js";
import { corpusBytes, readIndex } from "../support/corpus.js";

const parse = (s: string) => parseXml(s);

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
    expect(doc.root.ns).toBe("urn:x");
    expect(doc.root.children.map((c) => [c.qname, c.text])).toEqual([["{urn:x}ID", "1"]]);
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

  it("reads a document declared US-ASCII (any alias, any case) as the UTF-8 it is, and refuses a non-ASCII character under that declaration", () => {
    for (const name of ["US-ASCII", "us-ascii", "ASCII", "ANSI_X3.4-1968", "csASCII", "ISO646-US", "cp367"]) {
      expect(parse(`<?xml version="1.0" encoding="${name}"?><a>x</a>`).root.text, name).toBe("x");
    }
    // A character reference is ASCII text: it may name any character.
    expect(parse('<?xml version="1.0" encoding="US-ASCII"?><a>&#233;</a>').root.text).toBe("é");
    const e = failure(() => parse('<?xml version="1.0" encoding="US-ASCII"?>\n<a>caf\u00e9</a>'));
    expect(e?.code).toBe("invalid_ubl_xml");
    expect(e?.message).toMatch(/declares encoding "US-ASCII" but holds U\+00E9, which is not ASCII; declare encoding="UTF-8"/);
    expect(e?.message).toMatch(/line 2/);
  });

  it("rejects encodings other than UTF-8", () => {
    expect(failure(() => parse('<?xml version="1.0" encoding="ISO-8859-1"?><a/>'))?.message).toMatch(/ISO-8859-1/);
    expect(failure(() => parse('<?xml version="1.0" encoding="UTF-16"?><a/>'))?.code).toBe("invalid_ubl_xml");
  });

  it("rejects characters XML forbids, such as NUL", () => {
    expect(failure(() => parse("<a>\u0000</a>"))?.message).toMatch(/U\+0000/);
    expect(failure(() => parse("<a>\u000B</a>"))?.code).toBe("invalid_ubl_xml");
  });

  it("finds the characters XML forbids in the UTF-8 bytes exactly where the pattern finds them in the text, at any offset of the bytes in their buffer", () => {
    const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
    // Mostly characters that come near the word test's edges (controls, 0x1F/0x20, 0x7F-0xA0, U+FFFE/F), some of anything.
    const char = fc.oneof(
      fc.constantFrom("\t", "\n", "\r", " ", "\u001F", "\u0000", "\u000B", "\u007F", "\u0080", "\u00A0", "\u00FF", "\uFFFD", "\uFFFE", "\uFFFF", "a", "<", "é", "😀"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), fc.nat(7), (chars, offset) => {
        const text = chars.join("");
        const utf8 = Buffer.from(text, "utf8");
        const backing = Buffer.alloc(utf8.length + offset);
        utf8.copy(backing, offset);
        const bytes = backing.subarray(offset);
        // Lone surrogates are not UTF-8: their bytes decode to U+FFFD, as the strict decoder's caller never sees them.
        const decoded = bytes.toString("utf8");
        expect(hasForbiddenUtf8(bytes, decoded)).toBe(forbidden.test(decoded));
      }),
      { numRuns: 3000 },
    );
  });

  it("reads from UTF-8 bytes with the same answers as from the text: the model, and the forbidden character named", () => {
    const ok = "<a>\t<b x='1'>é\r\n</b>\u00A0</a>";
    expect(parseXmlUtf8(ok, Buffer.from(ok)).root.children[0]!.text).toBe(parseXml(ok).root.children[0]!.text);
    for (const bad of ["<a>\u0000</a>", "<a>  \u001F</a>", "<a>\uFFFE</a>", "<a x='\u0008'/>"]) {
      expect(failure(() => parseXmlUtf8(bad, Buffer.from(bad)))?.message).toBe(failure(() => parseXml(bad))?.message);
    }
  });

  it("gives each element its own name and namespace when names share a length and the characters the reader's cache hashes, a local name or a root's name, across documents", () => {
    // Names of nine characters that differ only at the 2nd, 4th, 6th and 8th share a slot of the reader's
    // cache of known names (it hashes the length and the characters at 0, n/4, n/2, n-1-n/4 and n-1), and
    // three of them are more than its two slots hold: each hit is confirmed in place.
    const doc = '<r xmlns:p="urn:p"><aXbXcXdXe/><aYbYcYdYe/><p:aXbXcXdXe/><aZbZcZdZe/><aXbXcXdXe/><aYbYcYdYe/><r/></r>';
    for (let round = 0; round < 3; round++) {
      const root = parseXml(doc).root;
      expect(root.qname).toBe("r");
      expect(root.children.map((c) => [c.name, c.ns, c.qname, c.index])).toEqual([
        ["aXbXcXdXe", "", "aXbXcXdXe", 1],
        ["aYbYcYdYe", "", "aYbYcYdYe", 1],
        ["aXbXcXdXe", "urn:p", "{urn:p}aXbXcXdXe", 1],
        ["aZbZcZdZe", "", "aZbZcZdZe", 1],
        ["aXbXcXdXe", "", "aXbXcXdXe", 2],
        ["aYbYcYdYe", "", "aYbYcYdYe", 2],
        ["r", "", "r", 1],
      ]);
    }
    // Two UBL names that share a slot of the cache (both are kept, in its two places).
    const parties = `<Invoice xmlns="${"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"}" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"><cac:AccountingSupplierParty/><cac:AccountingCustomerParty/><cac:AccountingSupplierParty/></Invoice>`;
    for (let round = 0; round < 2; round++) {
      expect(parseXml(parties).root.children.map((c) => [c.qname, c.index])).toEqual([
        ["cac:AccountingSupplierParty", 1],
        ["cac:AccountingCustomerParty", 1],
        ["cac:AccountingSupplierParty", 2],
      ]);
    }
    const invoice = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><Invoice/></Invoice>';
    const read = parseXml(invoice).root;
    expect([read.qname, read.children[0]!.qname]).toEqual(["Invoice", "{urn:oasis:names:specification:ubl:schema:xsd:Invoice-2}Invoice"]);
  });

  it("resolves a prefix by the declaration in scope where it is used: rebound in a child, restored after it, unknown past the element that declared it", () => {
    const root = parseXml('<r xmlns:p="urn:one"><p:a/><c xmlns:p="urn:two"><p:a/><d xmlns:p="urn:three"><p:a/></d><p:a/></c><p:a/></r>').root;
    const named = (n: DocumentNode): string[] => n.children.flatMap((c) => (c.name === "a" ? [c.ns] : named(c)));
    expect(named(root)).toEqual(["urn:one", "urn:two", "urn:three", "urn:two", "urn:one"]);
    const e = failure(() => parseXml('<r><c xmlns:q="urn:q"><q:a/></c><q:a/></r>'));
    expect(e?.code).toBe("invalid_ubl_xml");
    expect(e?.message).toContain('the namespace prefix "q" of <q:a> is not declared');
    // The same document again (the reader keeps nothing of a prefix's binding between documents).
    expect(failure(() => parseXml('<r><c xmlns:q="urn:q"><q:a/></c><q:a/></r>'))?.message).toContain('prefix "q"');
    expect(parseXml('<r xmlns:q="urn:q2"><q:a/></r>').root.children[0]!.ns).toBe("urn:q2");
  });

  it("turns parser errors into invalid_ubl_xml with the parser's reason", () => {
    expect(failure(() => parse("<a><b></a>"))?.message).toMatch(/line 1, column 7: the end tag <\/a> does not match the start tag <b>/);
    expect(failure(() => parse("<a x='1' x='2'/>"))?.code).toBe("invalid_ubl_xml");
    const many = Array.from({ length: 40 }, (_, i) => `a${i}='1'`).join(" ");
    expect(parse(`<a ${many}/>`).root.name).toBe("a");
    expect(failure(() => parse(`<a ${many} a3='2'/>`))?.message).toMatch(/the attribute a3 appears twice/);
    expect(failure(() => parse(`<a ${many} a39='2'/>`))?.message).toMatch(/the attribute a39 appears twice/);
    expect(failure(() => parse("<p:a/>"))?.code).toBe("invalid_ubl_xml");
    expect(failure(() => parse("<a>text</a>junk"))?.code).toBe("invalid_ubl_xml");
    expect(failure(() => parse("<a"))?.code).toBe("invalid_ubl_xml");
  });

  it("keeps attributes in no namespace with references resolved and literal whitespace normalised, whatever came before them", () => {
    const text = `<r xmlns:p="urn:p"><skip x="&amp;" y="&#65;"/><k a="1" b="x&amp;y&#x42;" c="t\tu\r\nv" d="&#9;&#13;&#10;" p:z="no" xmlns:q="urn:q">v</k></r>`;
    const k = parseXml(text).root.children[1]!;
    expect(k.attrs).toEqual({ a: "1", b: "x&yB", c: "t u v", d: "\t\r\n" });
    expect(k.text).toBe("v");
    expect(parseXml(text).root.children[0]!.attrs).toEqual({ x: "&", y: "A" });
  });

  it("normalises line ends before it expands character references: &#13; stays a CR", () => {
    const root = parse("<r>FR&#13;23342\r\nx\ry<![CDATA[a\r\nb]]></r>").root;
    expect(root.text).toBe("FR\r23342\nx\nya\nb");
  });

  it("refuses a document that declares XML 1.1, saying UBL is XML 1.0", () => {
    const e = failure(() => parse('<?xml version="1.1" encoding="UTF-8"?><a/>'));
    expect(e?.code).toBe("invalid_ubl_xml");
    expect(e?.message).toMatch(/declares XML 1\.1; UBL documents are XML 1\.0/);
    expect(parse('<?xml version="1.0"?><a/>').root.name).toBe("a");
  });

  it("finds a second document: a second root element or a second XML declaration", () => {
    expect(failure(() => parse("<Invoice></Invoice><Invoice></Invoice>"))?.code).toBe("single_xml_only");
    expect(failure(() => parse("<Invoice/>\n<Invoice/>"))?.code).toBe("single_xml_only");
    expect(failure(() => parse('<?xml version="1.0"?><a/><?xml version="1.0"?><a/>'))?.code).toBe("single_xml_only");
    expect(failure(() => parse('<?xml version="1.0"?><a><?xml version="1.0"?></a>'))?.code).toBe("single_xml_only");
    // A lone declaration out of place is not well-formed, not a second document.
    expect(failure(() => parse('<!-- c --><?xml version="1.0"?><a/>'))?.code).toBe("invalid_ubl_xml");
    expect(failure(() => parse('<a><?xml version="1.0"?></a>'))?.code).toBe("invalid_ubl_xml");
    // Markup-like text in comments, CDATA, attributes and processing instructions is not a document.
    expect(parse('<a><!-- <b/> --><![CDATA[</a><c>]]><d x="/>"/><?xml-stylesheet href="x"?></a>').root.children).toHaveLength(1);
  });

  it("refuses nesting deeper than the limit within 0.5 s of CPU time, and still finds a second document after it", () => {
    const deep = "<a>".repeat(100_000) + "</a>".repeat(100_000);
    // CPU time of this process (the parse runs on this thread), not wall-clock time: the bound
    // catches super-linear work, however busy the machine. Measured: 130 to 145 ms for both.
    const cpu = process.cpuUsage();
    expect(failure(() => parse(deep))?.message).toMatch(/deeper than 256 levels/);
    expect(failure(() => parse(deep + "<second/>"))?.code).toBe("single_xml_only");
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
    expect(parse("<a>".repeat(256) + "</a>".repeat(256)).root.name).toBe("a");
  });

  it("refuses too many elements and too many attributes", () => {
    const limits = { ...DEFAULT_XML_LIMITS, maxElements: 10, maxAttributes: 3 };
    expect(failure(() => parseXml("<r>" + "<e/>".repeat(10) + "</r>", limits))?.message).toMatch(/more than 10 elements/);
    expect(parseXml("<r>" + "<e/>".repeat(9) + "</r>", limits).root.children).toHaveLength(9);
    expect(failure(() => parseXml('<r a="1" b="2" c="3" d="4"/>', limits))?.message).toMatch(/more than 3 attributes/);
    expect(parseXml('<r a="1" b=\'2\' c="3"/>', limits).root.attrs).toEqual({ a: "1", b: "2", c: "3" });
  });

  it("numbers siblings of the same name, also past many children", () => {
    const kids = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? "<x/>" : "<y/>")).join("");
    const root = parse(`<r>${kids}</r>`).root;
    const xs = root.children.filter((c) => c.name === "x").map((c) => c.index);
    const ys = root.children.filter((c) => c.name === "y").map((c) => c.index);
    expect(xs).toEqual(Array.from({ length: xs.length }, (_, i) => i + 1));
    expect(ys).toEqual(Array.from({ length: ys.length }, (_, i) => i + 1));
    expect(root.children[5]!.parent).toBe(root);
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
    expect(parse("<a><a><a/></a><ab><a>1</a></ab></a>").root.name).toBe("a");
    expect(failure(() => parse("<ab><a></ab></a>"))?.message).toMatch(/the end tag <\/ab> does not match the start tag <a>/);
    expect(failure(() => parse("<a><b></b"))?.message).toMatch(/<\/b> is not closed with >|is not closed/);
  });
});

describe("names kept across documents", () => {
  it("keeps at most 4,096 names however many new ones documents bring, and still names every element right", () => {
    const wide = (tag: string, n: number) => `<r xmlns="urn:x:${tag}">${Array.from({ length: n }, (_, i) => `<n${tag}${i}/>`).join("")}</r>`;
    for (let d = 0; d < 3; d++) {
      const root = parseXml(wide(`d${d}`, 2000), { ...DEFAULT_XML_LIMITS, maxElements: 10_000 }).root;
      expect(root.children).toHaveLength(2000);
      expect(root.children[1999]!.name).toBe(`nd${d}1999`);
      expect(root.children[1999]!.qname).toBe(`{urn:x:d${d}}nd${d}1999`);
    }
    expect(knownNamesKept()).toBeLessThanOrEqual(4096);
    expect(knownNamesKept()).toBeGreaterThan(1000);
    // A name first seen in one namespace is not confused with the same local name in another, nor with the root's.
    const a = parseXml('<a xmlns="urn:one"><a/><b xmlns="urn:two"><a/></b></a>').root;
    expect(a.qname).toBe("{urn:one}a");
    expect(a.children[0]!.qname).toBe("{urn:one}a");
    expect(a.children[1]!.children[0]!.qname).toBe("{urn:two}a");
  });
});

describe("the reader's index of elements by qname (what the rules' //qname reads)", () => {
  it("holds every element of each corpus document under its qname, in document order, and nothing for absent qnames", () => {
    const rows = readIndex().filter((r) => r.path.endsWith(".xml")).slice(0, 60);
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      let root: DocumentNode;
      try {
        root = parseXml(corpusBytes(row.path).toString("utf8")).root;
      } catch {
        continue; // documents the reader refuses have no model
      }
      expectIndexMatchesWalk(root, row.path);
    }
  });

  it("keeps apart two names that share a qname (the root's Invoice and an Invoice element in no namespace)", () => {
    const ubl = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
    const root = parseXml(`<Invoice xmlns="${ubl}"><a xmlns=""><Invoice/></a><Invoice/></Invoice>`).root;
    expect(qnameIndexOf(root)!.get("Invoice")).toEqual(walkedByQname(root).get("Invoice"));
    expect(qnameIndexOf(root)!.get("Invoice")).toHaveLength(2);
    expect(qnameIndexOf(root)!.get(`{${ubl}}Invoice`)).toHaveLength(1);
  });
});
