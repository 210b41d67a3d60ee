// The XML reader against independent parsers. Verdict: saxes (strict XML 1.0 and Namespaces in XML),
// on every corpus file and on generated documents: both accept the same documents and see the same
// root. Content: the reader's model against a tree built from xmldom's DOM (test/support/xmldom-tree.ts),
// on every corpus document and on generated documents with non-ASCII names and text, references, CDATA
// and line ends: same elements, names, namespaces, attributes, text and positions. The reader's
// deliberate refusals (a DOCTYPE, a declared encoding other than UTF-8, XML 1.1) are left out here
// and tested in test/document/xml.test.ts.
import fc from "fast-check";
import { SaxesParser } from "saxes";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/domain/errors.js";
import { parseXml } from "../src/document/xml.js";
import type { DocumentNode } from "../src/document/model.js";
import { corpusBytes, readIndex } from "./support/corpus.js";
import { xmldomTree } from "./support/xmldom-tree.js";

type Verdict = { ok: true; root: string } | { ok: false; reason: string };

function ours(text: string): Verdict {
  try {
    const root = parseXml(text).root;
    return { ok: true, root: `{${root.ns}}${root.name}` };
  } catch (e) {
    if (e instanceof ApiError && (e.code === "invalid_ubl_xml" || e.code === "single_xml_only")) return { ok: false, reason: e.message };
    throw e;
  }
}

function oracle(text: string): Verdict {
  const p = new SaxesParser({ xmlns: true, forceXMLVersion: true, defaultXMLVersion: "1.0" });
  let root: string | null = null;
  p.on("opentag", (t) => {
    root ??= `{${t.uri ?? ""}}${t.local}`;
  });
  try {
    p.write(text).close();
    return { ok: true, root: root! };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

/**
 * Where saxes is laxer than XML 1.0 and the reader follows the spec: a processing instruction
 * target must be followed by whitespace or `?>` (production [16]); saxes takes `<?x?y?>`.
 */
const SAXES_LAX = [/a processing instruction target must be followed by a space or \?>/];

/** Where the reader refuses on purpose what XML 1.0 allows (UBL is UTF-8 XML 1.0 without DTDs). */
const DELIBERATE = [/only UTF-8 \(and US-ASCII, a subset of it\) is accepted/, /declares XML 1\.1/, /a DOCTYPE is not allowed/];

function agree(text: string): void {
  const a = ours(text);
  const b = oracle(text);
  if (!a.ok && b.ok && [...SAXES_LAX, ...DELIBERATE].some((r) => r.test(a.reason))) return;
  expect({ text, ok: a.ok, root: a.ok ? a.root : null }, `reader: ${a.ok ? "accepted" : a.reason}; saxes: ${b.ok ? "accepted" : b.reason}`).toEqual({
    text,
    ok: b.ok,
    root: b.ok ? b.root : null,
  });
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

describe("the XML reader agrees with saxes", () => {
  it("on every corpus document in UTF-8 without a DOCTYPE (and accepts nearly all)", () => {
    let compared = 0;
    let accepted = 0;
    for (const { path } of readIndex()) {
      let text: string;
      try {
        text = strictUtf8.decode(corpusBytes(path));
      } catch {
        continue;
      }
      if (/<!DOCTYPE/.test(text)) continue;
      agree(text);
      compared++;
      if (ours(text).ok) accepted++;
    }
    expect(compared).toBeGreaterThan(590);
    expect(accepted).toBeGreaterThan(570);
  });

  // Pieces that make and break well-formedness: tags, attributes, namespaces, references, comments,
  // CDATA, processing instructions, line ends, and stray markup characters.
  const pieces = [
    "<a>", "</a>", "<b/>", "<b >", "</b >", "<p:c xmlns:p='urn:p'>", "</p:c>", "<p:d/>", "<e x='1' y=\"2\">", "</e>",
    "<f xmlns='urn:f'>", "</f>", "<g xmlns:q=''>", "</g>", "<h q:z='1' xmlns:q='urn:q'/>", "<i a='1' a='2'/>",
    "<j xmlns:r='urn:q' xmlns:s='urn:q' r:k='1' s:k='2'/>", "<xmlns:k/>", "<l xml:lang='en'/>", "<m xmlns:xml='urn:no'/>",
    " ", "\n", "\r\n", "\t", "text", "é", "😀", "&amp;", "&lt;", "&bogus;", "&#x41;", "&#65;", "&#0;", "&#xD800;", "&#x1F600;", "&", ";", "#",
    "<!-- c -->", "<!-- a -- b -->", "<!--->", "<![CDATA[ x < y ]]>", "]]>", "]]", "<?pi data?>", "<?pi?>", "<?xml version='1.0'?>",
    "<?XML x?>", "<?p:i x?>", "<?x?y?>", "<", ">", "/", "=", "'", '"', ":", "<1a/>", "<a:/>", "<:a/>", "<a:b:c/>", "x='1'", "<n a=\"<\"/>", "<o a='&amp;&#x9;'/>",
    "<!x>", "< a/>", "<a/ >", "<e x='1'y='2'/>", "<e x = '1' />",
  ];

  it("on generated documents: same verdict, same root", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 0, maxLength: 12 }), (parts) => {
        agree(parts.join(""));
      }),
      { numRuns: 4000, seed: 20261121 },
    );
  });

  it("on generated documents inside a well-formed root: same verdict, same root", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 10 }), fc.boolean(), (parts, declaration) => {
        agree(`${declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ""}<root xmlns:p="urn:p">${parts.join("")}</root>`);
      }),
      { numRuns: 4000, seed: 20261122 },
    );
  });

  it("on a real invoice with a random stretch deleted or repeated", () => {
    const text = strictUtf8.decode(corpusBytes("openpeppol-bis3/examples/base-example.xml"));
    fc.assert(
      fc.property(fc.nat(text.length - 1), fc.integer({ min: 1, max: 40 }), fc.boolean(), (at, len, repeat) => {
        const piece = text.slice(at, at + len);
        agree(repeat ? text.slice(0, at) + piece + piece + text.slice(at + len) : text.slice(0, at) + text.slice(at + len));
      }),
      { numRuns: 1500, seed: 20261123 },
    );
  });

  it("on a real invoice with pieces and random characters inserted", () => {
    const text = strictUtf8.decode(corpusBytes("openpeppol-bis3/examples/base-example.xml"));
    fc.assert(
      fc.property(fc.nat(text.length - 1), fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 3 }), (at, ps, junk) => {
        agree(text.slice(0, at) + ps.join("") + junk + text.slice(at));
      }),
      { numRuns: 1500, seed: 20261124 },
    );
  });
});

/** A node and everything below it as plain data, parents checked on the way. */
function plain(n: DocumentNode, parent: DocumentNode | null = null): unknown {
  expect(n.parent).toBe(parent);
  return { ns: n.ns, name: n.name, qname: n.qname, index: n.index, attrs: { ...n.attrs }, text: n.text, children: n.children.map((c) => plain(c, n)) };
}

function sameContent(text: string): void {
  expect(plain(parseXml(text).root)).toEqual(plain(xmldomTree(text)));
}

describe("the reader's model has the content xmldom sees", () => {
  it("on every UBL document of the corpus: elements, names, attributes, text and positions", () => {
    let compared = 0;
    for (const { path } of readIndex()) {
      let text: string;
      try {
        text = strictUtf8.decode(corpusBytes(path));
      } catch {
        continue;
      }
      if (/<!DOCTYPE/.test(text) || !ours(text).ok) continue;
      sameContent(text);
      compared++;
    }
    expect(compared).toBeGreaterThan(570);
  }, 120_000);

  // Generated documents: names (ASCII, Latin, CJK, astral), namespaces by prefix and by default,
  // attributes with references and whitespace, text with references, CDATA, CR LF and CR, non-ASCII.
  const localName = fc.constantFrom("a", "ID", "Note", "é", "Ñame", "名前", "ǅx", "x·y", "𐀀z", "_u-1.2", "Ωmega");
  const prefix = fc.constantFrom("", "p", "q", "ü");
  const textPiece = fc.constantFrom(
    "x", " ", "\n", "\r\n", "\r", "\t", "é", "日本", "😀", "\u3000", "\uFEFF", "&amp;", "&lt;", "&#13;", "&#x9;", "&#10;", "&#x1F600;", "<![CDATA[a\r\nb <c>]]>", "<!-- c -->", "<?pi d?>", "FR&#13;23342",
  );
  const attrValue = fc.array(fc.constantFrom("v", " ", "\t", "\r\n", "\n", "&#9;", "&#13;", "&amp;", "&quot;", "é", "😀", "&#xA0;"), { maxLength: 5 }).map((a) => a.join(""));
  type Gen = { prefix: string; name: string; attrs: Array<[string, string]>; content: Array<string | Gen> };
  const element: fc.Memo<Gen> = fc.memo((depth) =>
    fc.record({
      prefix,
      name: localName,
      attrs: fc.uniqueArray(fc.tuple(fc.constantFrom("a", "schemeID", "é", "b", "ü:z"), attrValue), { maxLength: 3, selector: (t) => t[0] }),
      content: fc.array(depth > 1 ? fc.oneof(textPiece, element(depth - 1)) : textPiece, { maxLength: 5 }),
    }),
  );
  const write = (g: Gen, root: boolean): string => {
    const q = g.prefix === "" ? g.name : `${g.prefix}:${g.name}`;
    const ns = root ? ' xmlns="urn:default" xmlns:p="urn:p" xmlns:q="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" xmlns:ü="urn:ü"' : "";
    const attrs = g.attrs.map(([k, v]) => ` ${k}="${v}"`).join("");
    return `<${q}${ns}${attrs}>${g.content.map((c) => (typeof c === "string" ? c : write(c, false))).join("")}</${q}>`;
  };

  it("on generated documents with non-ASCII names and text, references, CDATA and line ends", () => {
    fc.assert(
      fc.property(element(4), fc.boolean(), (g, declaration) => {
        sameContent(`${declaration ? '<?xml version="1.0" encoding="UTF-8"?>\r\n' : ""}${write(g, true)}`);
      }),
      { numRuns: 1500, seed: 20261125 },
    );
  });
});
