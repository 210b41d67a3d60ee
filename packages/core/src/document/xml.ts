// Step 4 of the document pipeline: a strict, namespace-aware XML 1.0 reader that builds, in one pass,
// the compact model of the whole document the rules and the invoice record read (document/model.ts).
// No DTDs, no entity expansion, no DOM.
//
// Why our own reader and not a library: the checks are those of XML 1.0 (fifth edition) and
// Namespaces in XML 1.0 well-formedness, which saxes also implements, and the tests hold this
// reader to saxes's verdict and to xmldom's content on the corpus and on generated documents. But a
// library builds either a DOM (xmldom: about 34 bytes of heap per byte of document, 0.4 ms for
// 9 KiB) or an event object per tag and attribute (saxes); this reader walks the text with indexOf
// and makes one small node per element, with names, whitespace and empty lists shared.
//
// It is the only tokenizer of the pipeline: the checks of contract rows 6 (one document) and 8 (no
// DOCTYPE, UTF-8 only, XML 1.0, the size limits) are made here, as the text is read.
import { ApiError } from "../domain/errors.js";
import { BY_QNAME, descendants, isBlankText, isXmlSpace as isSpace, qnameOf, type QnameIndex, type DocumentNode } from "./model.js";

export { xmlTrim } from "./model.js";

/** The namespace bound to the `xml` prefix. */
export const XML_NS = "http://www.w3.org/XML/1998/namespace";
/** The namespace of namespace declarations. */
export const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

export interface XmlLimits {
  /** Largest decoded document, in bytes. */
  maxBytes: number;
  /** Deepest element nesting. */
  maxDepth: number;
  /** Most elements in one document. */
  maxElements: number;
  /** Most attributes (namespace declarations included) on one element. */
  maxAttributes: number;
}

/**
 * The limits applied when none are given: far above any real invoice (a 10,000-line Peppol BIS
 * invoice has about 450,000 elements and nests 8 deep), far below what hurts.
 */
export const DEFAULT_XML_LIMITS: XmlLimits = Object.freeze({
  maxBytes: 8 * 1024 * 1024,
  maxDepth: 256,
  maxElements: 1_000_000,
  maxAttributes: 256,
});

/** The `invalid_ubl_xml` error of a limit passed. */
export function limitError(what: string): ApiError {
  return new ApiError("invalid_ubl_xml", `xml is too large to accept: ${what}.`);
}

/** The `single_xml_only` error of a second document (contract row 6). */
export function multipleDocumentsError(): ApiError {
  return new ApiError(
    "single_xml_only",
    "xml holds more than one XML document (a second XML declaration or a second root element); send one invoice per request.",
  );
}

/** One element of the model: what `DocumentNode` describes, built by the reader. */
export class XmlNode implements DocumentNode {
  attrs: Readonly<Record<string, string>> = NO_ATTRS;
  text = "";
  children: DocumentNode[] = NO_CHILDREN;
  index = 1;
  memo: Map<symbol, unknown> | undefined = undefined;
  numeric: unknown = undefined;
  constructor(
    readonly ns: string,
    readonly name: string,
    readonly qname: string,
    readonly parent: XmlNode | null,
  ) {}
}

const NO_ATTRS: Readonly<Record<string, string>> = Object.freeze({});
const NO_CHILDREN: DocumentNode[] = Object.freeze([]) as unknown as DocumentNode[];

/** A read document: its root element, with the whole tree below it. */
export interface XmlDocument {
  root: XmlNode;
}

// XML 1.0 forbids these characters anywhere in a document (a strict UTF-8 decode already rules out lone surrogates).
const ILLEGAL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function invalid(reason: string): ApiError {
  return new ApiError("invalid_ubl_xml", `xml is not a well-formed UBL document: ${reason}`);
}

/**
 * Reads `text` once, checking every well-formedness and namespace rule, one document only, no
 * DOCTYPE, UTF-8 and XML 1.0 if declared, and the element limits; returns the model of the whole
 * document. The first problem becomes `single_xml_only` (a second document) or `invalid_ubl_xml`
 * with its line and column; nothing is written to the console.
 *
 * Line ends are normalised first (CR LF and CR become LF), as XML 1.0 section 2.11 says, so a
 * character reference `&#13;` still gives a CR.
 *
 * @example parseXml(text).root.children[0]?.text
 */
export function parseXml(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlDocument {
  return parseXmlText(text, limits, null);
}

/**
 * `parseXml` of `text` decoded (strictly) from the UTF-8 `bytes`: the characters XML forbids are
 * looked for in the bytes, four at a time, instead of by a pattern over the text (2.3 against 5.3
 * µs for a 9 KiB invoice). Same answers.
 */
export function parseXmlUtf8(text: string, bytes: Uint8Array, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlDocument {
  return parseXmlText(text, limits, bytes);
}

function parseXmlText(text: string, limits: XmlLimits, bytes: Uint8Array | null): XmlDocument {
  // With the bytes: only a document that has a forbidden character is scanned by the pattern (for its place in the text).
  const illegal = bytes !== null && !hasForbiddenUtf8(bytes, text) ? null : ILLEGAL_CHARS.exec(text);
  if (illegal) {
    // A second document before the bad character still counts first (row 6 before row 8).
    probeForSecondDocument(text.slice(0, illegal.index), limits);
    const code = illegal[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw invalid(`it contains the character U+${code}, which XML does not allow.`);
  }
  const normalized = normalizeLineEnds(text);
  // A document that may hold more than 60 % of the element limit (far more than a 10,000-line
  // invoice) is read once without building anything first, so that a flood of elements, or one
  // that ends past a limit, costs a read (about a fifth of a build), not a model.
  if (normalized.length > 2 * 1024 * 1024 && startTagBound(normalized) > 0.6 * limits.maxElements) {
    new Reader(normalized, limits, false).read();
  }
  const root = new Reader(normalized, limits, true).read();
  return { root: root! };
}

/** At least as many as the start tags of the text: each `<` not followed by `/`, `!` or `?`. */
function startTagBound(text: string): number {
  let count = 0;
  for (let i = text.indexOf("<"); i !== -1; i = text.indexOf("<", i + 1)) {
    const c = text.charCodeAt(i + 1);
    if (c !== 47 && c !== 33 && c !== 63) count++;
  }
  return count;
}

/**
 * Reads `text` without building anything, only to find a second document (contract row 6 comes
 * before rows 7 and 8): throws `single_xml_only` if the reader meets one before any other problem.
 */
export function probeForSecondDocument(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): void {
  try {
    new Reader(normalizeLineEnds(text), limits, false).read();
  } catch (e) {
    if (e instanceof ApiError && e.code === "single_xml_only") throw e;
  }
}

const NO_WORDS = new Int32Array(0);
/** Bytes that are C0 control characters XML allows: TAB, LF, CR. */
const ALLOWED_CONTROL = new Uint8Array(32);
ALLOWED_CONTROL[9] = ALLOWED_CONTROL[10] = ALLOWED_CONTROL[13] = 1;

/** The byte at `i` is a C0 control character other than TAB, LF and CR (in UTF-8 such a byte is always that character). */
function forbiddenByte(bytes: Uint8Array, i: number): boolean {
  const c = bytes[i]!;
  return c < 32 && ALLOWED_CONTROL[c] === 0;
}

/**
 * Whether UTF-8 `bytes` (and `text`, decoded from them) hold a character of ILLEGAL_CHARS: a C0
 * control byte other than TAB, LF and CR (never part of a multi-byte sequence), or U+FFFE / U+FFFF
 * (looked for in the text; a text of one-byte characters cannot hold them, and V8 answers that at
 * once). Four bytes a step: a 32-bit word has a byte below 0x20 exactly when
 * `(x - 0x20202020) & ~x & 0x80808080` is not zero, and only such words are looked at byte by byte.
 */
export function hasForbiddenUtf8(bytes: Uint8Array, text: string): boolean {
  const n = bytes.length;
  let i = 0;
  while (i < n && ((bytes.byteOffset + i) & 3) !== 0) if (forbiddenByte(bytes, i++)) return true;
  // Past the loop above, i is at a multiple of 4 of the buffer, or at the end (then no word is read).
  const words = n - i < 4 ? NO_WORDS : new Int32Array(bytes.buffer, bytes.byteOffset + i, (n - i) >> 2);
  for (let k = 0; k < words.length; k++) {
    const x = words[k]!;
    if ((((x - 0x20202020) | 0) & ~x & 0x80808080) !== 0) {
      const at = i + k * 4;
      if (forbiddenByte(bytes, at) || forbiddenByte(bytes, at + 1) || forbiddenByte(bytes, at + 2) || forbiddenByte(bytes, at + 3)) return true;
    }
  }
  for (let j = i + words.length * 4; j < n; j++) if (forbiddenByte(bytes, j)) return true;
  return text.indexOf("\uFFFE") !== -1 || text.indexOf("\uFFFF") !== -1;
}

/** XML 1.0 section 2.11: CR LF and a lone CR become LF before anything else reads the text. */
function normalizeLineEnds(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

// ---- characters -------------------------------------------------------------------------------

// ASCII name characters: 1 may start a name (no colon: names here are NCNames), 2 may follow.
const ASCII_NAME = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const start = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  const more = start || (c >= 48 && c <= 57) || c === 45 || c === 46;
  ASCII_NAME[c] = (start ? 1 : 0) | (more ? 2 : 0);
}
// Non-ASCII NameStartChar and NameChar of XML 1.0 fifth edition (astral planes as surrogate pairs).
const NAME_START_HIGH = /[\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;
const NAME_MORE_HIGH = /[\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u037D\u037F-\u1FFF\u200C\u200D\u203F\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/;


/** Whitespace-only text (XML's four characters). */

function isXmlChar(cp: number): boolean {
  return cp === 9 || cp === 10 || cp === 13 || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", apos: "'", quot: '"' };

/** One open element: where its qualified name stands in the text, its node, and the namespace bindings it made. */
interface Open {
  qs: number;
  qe: number;
  node: XmlNode | null;
  /** Bindings this element declared, to undo at its end: prefix, then the value it replaced. */
  undo: Array<string | undefined> | null;
  /** How many children of each qname, once the node has many children (null before). */
  counts: Map<string, number> | null;
}

/** Past this many children, an element counts its children's qnames in a map (positions stay linear). */
const MANY_CHILDREN = 16;

/**
 * Element names and qnames seen so far, by namespace, kept for the next documents: a few hundred in
 * practice (the UBL names an invoice uses). Their strings are internalised (V8's table of unique
 * strings, where the rules' literals such as "cbc:ID" live), so that the rules' comparisons and map
 * lookups of a qname are one pointer test and a hash computed once for the process, not a comparison
 * of characters and a hash per document. Bounded: past MAX_KNOWN_NAMES (a hostile stream of new
 * names), names are shared within their document only, as before.
 */
const KNOWN_NAMES = new Map<string, Map<string, KnownName>>();
/** A name as the reader keeps it: local name, qname, and its id among the known names (-1: not kept). */
type KnownName = [name: string, qname: string, id: number];
/** The known names' ids by qname (a qname names one namespace and local name, and whether it is the root's). */
const QNAME_IDS = new Map<string, number>();
/** Qnames that two known names share (see nameOf). */
const AMBIGUOUS_QNAMES = new Set<string>();
const MAX_KNOWN_NAMES = 4096;
/**
 * Known names (ids >= 0) by a hash of their length and five of their characters, in the hashed slot or
 * its neighbour: a hit is confirmed by comparing the name in place, so a collision only costs the long
 * way (Reader.nameOf).
 */
const NAME_CACHE_SIZE = 4096;
const NAME_CACHE: ({ uri: string; isRoot: boolean; local: string; known: KnownName } | undefined)[] = new Array(NAME_CACHE_SIZE).fill(undefined);
let knownNameCount = 0;

/** How many names are kept across documents (for tests: it never passes MAX_KNOWN_NAMES). */
export function knownNamesKept(): number {
  return knownNameCount;
}

/** The internalised copy of `s`: a property key is internalised, and Object.keys gives it back. */
function internalised(s: string): string {
  const holder: Record<string, true> = {};
  holder[s] = true;
  return Object.keys(holder)[0]!;
}

/** Every element of a read document by qname, in document order, as the reader filed them. */
class ReadIndex implements QnameIndex {
  constructor(
    private readonly root: XmlNode,
    private readonly byId: readonly (XmlNode[] | undefined)[],
    private readonly others: ReadonlyMap<string, XmlNode[]> | null,
  ) {}

  get(qname: string): readonly DocumentNode[] | undefined {
    if (AMBIGUOUS_QNAMES.has(qname)) return this.root.qname === qname ? [this.root, ...descendants(this.root, qname)] : descendants(this.root, qname);
    const id = QNAME_IDS.get(qname);
    // A qname known now but not when this document was read has no element here (it would have been filed by id).
    return id !== undefined ? this.byId[id] : (this.others?.get(qname) ?? undefined);
  }
}

/**
 * The start tag's attribute positions (see Reader.attrs), one buffer for every read of this thread: a read
 * runs to its end without yielding, and a typed array of this size is allocated outside V8's heap, at a
 * cost per document. It grows with the most attributes a tag has had (at most the attribute limit).
 */
let attributePositions = new Int32Array(16 * 5);

/** Above this many characters, a document's whitespace-only texts are shared (see Reader.shareBlanks). */
const SHARE_BLANKS_ABOVE = 256 * 1024;

class Reader {
  private i = 0;
  private readonly n: number;
  /** Next `&` at or after the current position (or n), found once and reused until passed. */
  private nextAmp = -1;
  /** Next `]]>` at or after the current position (or n), likewise. */
  private nextCdataEnd = -1;
  /** Prefix bindings in scope; "" is the default namespace. */
  private readonly ns = new Map<string, string>([["xml", XML_NS]]);
  private readonly open: Open[] = [];
  /** How many of `open` are open now. */
  private depth = 0;
  private root: XmlNode | null = null;
  /** Whether the document starts with an XML declaration (a second one is a second document). */
  private declared = false;
  private elements = 0;
  /** The first limit passed (the read goes on without building, to find a second document). */
  private over: string | null = null;
  /** Names and qnames by namespace, shared by every node. */
  private readonly names = new Map<string, Map<string, KnownName>>();
  /** The document's elements by the id of their name, in document order (the index the rules read, see ReadIndex). */
  private readonly byId: (XmlNode[] | undefined)[] = [];
  /** Elements whose names are not kept across documents (past MAX_KNOWN_NAMES), by qname. */
  private others: Map<string, XmlNode[]> | null = null;
  /** Short whitespace-only texts, shared by every node. */
  private readonly blanks = new Map<string, string>();
  /**
   * Whether whitespace is shared at all: it saves the memory of a large document's indentation (one
   * string for the thousands of lines' same whitespace); a small document's lives for one request, and
   * joining and looking up each parent's whitespace would cost more than it keeps.
   */
  private readonly shareBlanks: boolean;

  constructor(
    private readonly s: string,
    private readonly limits: XmlLimits,
    private build: boolean,
  ) {
    this.n = s.length;
    this.shareBlanks = s.length > SHARE_BLANKS_ABOVE;
  }

  // ---- errors ----------------------------------------------------------------------------------

  private fail(at: number, what: string): never {
    if (this.over !== null) throw limitError(this.over);
    const s = this.s;
    let line = 1;
    let lineStart = 0;
    for (let k = s.indexOf("\n"); k !== -1 && k < at; k = s.indexOf("\n", k + 1)) {
      line++;
      lineStart = k + 1;
    }
    throw invalid(`line ${line}, column ${at - lineStart + 1}: ${what}`);
  }

  private limit(what: string): void {
    if (this.over === null) this.over = what;
    this.build = false;
    this.root = null;
  }

  // ---- the document ----------------------------------------------------------------------------

  read(): XmlNode | null {
    const s = this.s;
    if (s.startsWith("<?xml", 0) && (isSpace(s.charCodeAt(5)) || s.startsWith("?>", 5))) this.declaration();
    // Before the root: whitespace, comments and processing instructions.
    for (;;) {
      this.skipSpace();
      if (this.i >= this.n) this.fail(this.i, "the document has no root element.");
      if (s.charCodeAt(this.i) !== 60 /* < */) this.fail(this.i, "text is not allowed before the root element.");
      const c = s.charCodeAt(this.i + 1);
      if (c === 33 /* ! */ && s.startsWith("<!--", this.i)) this.comment();
      else if (c === 63 /* ? */) this.pi();
      else if (c === 33 && s.startsWith("<!DOCTYPE", this.i)) this.fail(this.i, "a DOCTYPE is not allowed (no DTDs, no entities).");
      else break;
    }
    if (!this.startTag()) this.content();
    // After the root: whitespace, comments and processing instructions only; another element is a second document.
    for (;;) {
      this.skipSpace();
      if (this.i >= this.n) break;
      if (s.charCodeAt(this.i) !== 60) this.fail(this.i, "text is not allowed after the root element.");
      const c = s.charCodeAt(this.i + 1);
      if (c === 33 && s.startsWith("<!--", this.i)) this.comment();
      else if (c === 63) this.pi();
      else if (this.nameChar(this.i + 1, true) !== 0) throw multipleDocumentsError();
      else this.fail(this.i, "markup is not allowed after the root element (one root element only).");
    }
    if (this.over !== null) throw limitError(this.over);
    // The rules' `//qname` index (model.ts, BY_QNAME), made as the elements were read instead of by a walk.
    if (this.root !== null) this.root.memo = new Map([[BY_QNAME, new ReadIndex(this.root, this.byId, this.others)]]);
    return this.root;
  }

  private skipSpace(): void {
    const s = this.s;
    let i = this.i;
    while (i < this.n && isSpace(s.charCodeAt(i))) i++;
    this.i = i;
  }

  /** `<?xml version="1.x" encoding="..." standalone="yes|no"?>` at the very start: XML 1.0 and UTF-8 (or US-ASCII) only. */
  private declaration(): void {
    const m = DECLARATION.exec(this.s);
    if (!m) this.fail(0, "the XML declaration is malformed (expected <?xml version=\"1.0\" ...?>).");
    const version = m[1] ?? m[2]!;
    if (version === "1.1") {
      throw invalid('the document declares XML 1.1; UBL documents are XML 1.0 (declare version="1.0").');
    }
    const encoding = m[3] ?? m[4];
    if (encoding !== undefined && encoding.toLowerCase() !== "utf-8") {
      if (!US_ASCII.has(encoding.toLowerCase())) {
        throw invalid(`the declared encoding is ${JSON.stringify(encoding)}; only UTF-8 (and US-ASCII, a subset of it) is accepted.`);
      }
      // US-ASCII is UTF-8 restricted to its first 128 characters: the bytes must keep that promise.
      const other = NON_ASCII.exec(this.s);
      if (other) {
        const c = this.s.codePointAt(other.index)!;
        this.fail(other.index, `the document declares encoding ${JSON.stringify(encoding)} but holds U+${c.toString(16).toUpperCase().padStart(4, "0")}, which is not ASCII; declare encoding="UTF-8".`);
      }
    }
    this.declared = true;
    this.i = m[0].length;
  }

  /** `<!-- ... -->`; `--` may not occur inside. */
  private comment(): void {
    const from = this.i + 4;
    const end = this.s.indexOf("-->", from);
    if (end === -1) this.fail(this.i, "a comment is not closed with -->.");
    const dashes = this.s.indexOf("--", from);
    if (dashes !== end) this.fail(dashes, "a comment may not contain --.");
    this.i = end + 3;
  }

  /** `<?target ...?>`: the target is a name with no colon and not `xml` in any case. */
  private pi(): void {
    const s = this.s;
    const start = this.i + 2;
    const end = this.name(start);
    if (end === start) this.fail(start, "a processing instruction needs a target name.");
    if (s.charCodeAt(end) === 58 /* : */) this.fail(end, "a processing instruction target may not contain a colon.");
    if (end - start === 3 && s.slice(start, end).toLowerCase() === "xml") {
      // A second declaration after the first is a second document (row 6); a lone one out of place is not well-formed.
      if (this.declared && s.startsWith("xml", start) && (isSpace(s.charCodeAt(end)) || s.startsWith("?>", end))) throw multipleDocumentsError();
      this.fail(this.i, "an XML declaration is only allowed at the very start of the document.");
    }
    if (s.startsWith("?>", end)) {
      this.i = end + 2;
      return;
    }
    if (!isSpace(s.charCodeAt(end))) this.fail(end, "a processing instruction target must be followed by a space or ?>.");
    const close = s.indexOf("?>", end);
    if (close === -1) this.fail(this.i, "a processing instruction is not closed with ?>.");
    this.i = close + 2;
  }

  /** The end of the NCName starting at `at` (`at` itself when there is none). */
  private name(at: number): number {
    // nameChar's ASCII test inlined: element and attribute names are read for every tag.
    const s = this.s;
    const n = this.n;
    if (at >= n) return at;
    const first = s.charCodeAt(at);
    let j: number;
    if (first < 128) {
      if ((ASCII_NAME[first]! & 1) === 0) return at;
      j = at + 1;
    } else {
      const w = this.highNameChar(at, true);
      if (w === 0) return at;
      j = at + w;
    }
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c < 128) {
        if ((ASCII_NAME[c]! & 2) === 0) break;
        j++;
      } else {
        const w = this.highNameChar(j, false);
        if (w === 0) break;
        j += w;
      }
    }
    return j;
  }

  /** The width (1 or 2 code units) of the name character at `j` (a first one when `start`), or 0 when it is none. */
  private nameChar(j: number, start: boolean): number {
    if (j >= this.n) return 0;
    const c = this.s.charCodeAt(j);
    if (c < 128) return (ASCII_NAME[c]! & (start ? 1 : 2)) === 0 ? 0 : 1;
    return this.highNameChar(j, start);
  }

  /** The width (1 or 2 code units) of the non-ASCII name character at `j`, or 0 when it is none. */
  private highNameChar(j: number, start: boolean): number {
    const c = this.s.charCodeAt(j);
    if (c >= 0xd800 && c <= 0xdb7f) {
      // U+10000 to U+EFFFF: a high surrogate up to DB7F with its low surrogate.
      const d = this.s.charCodeAt(j + 1);
      return d >= 0xdc00 && d <= 0xdfff ? 2 : 0;
    }
    return (start ? NAME_START_HIGH : NAME_MORE_HIGH).test(this.s[j]!) ? 1 : 0;
  }

  /** A qualified name at `at`: returns its end; `prefixEnd` is where the prefix ends (-1: none). */
  private qname(at: number, what: string): number {
    const end = this.name(at);
    if (end === at) this.fail(at, `${what} must start with a name.`);
    this.prefixEnd = -1;
    if (this.s.charCodeAt(end) !== 58 /* : */) return end;
    const local = this.name(end + 1);
    if (local === end + 1) this.fail(end + 1, `${what} has a colon not followed by a local name.`);
    if (this.s.charCodeAt(local) === 58) this.fail(local, `${what} has more than one colon.`);
    this.prefixEnd = end;
    return local;
  }
  private prefixEnd = -1;

  // ---- elements --------------------------------------------------------------------------------

  /**
   * Reads the start tag at `this.i` (which is at `<` followed by a name character or not). Returns
   * true when the element was empty (`/>`), so the caller does not enter its content.
   */
  private startTag(): boolean {
    const s = this.s;
    const lt = this.i;
    const nameEnd = this.qname(lt + 1, "an element");
    const prefixEnd = this.prefixEnd;
    // The tag may not contain `<`: it ends before the next one.
    let nextLt = s.indexOf("<", nameEnd);
    if (nextLt === -1) nextLt = this.n;
    let j = nameEnd;
    // Attributes, as positions: name start, name end, prefix end (-1: none), value start, value end.
    const at = this.attrs;
    let count = 0;
    let declares = false;
    let prefixedAttrs = false;
    let plainAttrs = false;
    let empty = false;
    for (;;) {
      const ws = j;
      while (j < nextLt && isSpace(s.charCodeAt(j))) j++;
      if (j >= nextLt) this.fail(j, `the start tag <${s.slice(lt + 1, nameEnd)}> is not closed with >.`);
      const c = s.charCodeAt(j);
      if (c === 62 /* > */) {
        j++;
        break;
      }
      if (c === 47 /* / */) {
        if (s.charCodeAt(j + 1) !== 62) this.fail(j, `expected /> to close the start tag <${s.slice(lt + 1, nameEnd)}>.`);
        j += 2;
        empty = true;
        break;
      }
      if (j === ws) this.fail(j, `attributes of <${s.slice(lt + 1, nameEnd)}> must be separated by spaces.`);
      const aStart = j;
      const aEnd = this.qname(j, "an attribute");
      const aPrefixEnd = this.prefixEnd;
      j = aEnd;
      while (j < nextLt && isSpace(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) !== 61 /* = */) this.fail(j, `the attribute ${s.slice(aStart, aEnd)} needs = and a quoted value.`);
      j++;
      while (j < nextLt && isSpace(s.charCodeAt(j))) j++;
      const q = s.charCodeAt(j);
      if (q !== 34 && q !== 39) this.fail(j, `the value of the attribute ${s.slice(aStart, aEnd)} must be in quotes.`);
      const vStart = j + 1;
      const vEnd = s.indexOf(q === 34 ? '"' : "'", vStart);
      if (vEnd === -1 || vEnd > nextLt) {
        this.fail(vEnd === -1 ? vStart : nextLt, `the value of the attribute ${s.slice(aStart, aEnd)} may not contain < (or is not closed).`);
      }
      j = vEnd + 1;
      // Up to 16 attributes, compared in place; past that, a set keeps the check linear.
      if (count < 16) {
        for (let k = 0; k < count; k++) {
          if (this.sameText(at[k * 5]!, at[k * 5 + 1]!, aStart, aEnd)) this.fail(aStart, `the attribute ${s.slice(aStart, aEnd)} appears twice.`);
        }
      } else {
        if (count === 16) {
          this.many.clear();
          for (let k = 0; k < 16; k++) this.many.add(s.slice(at[k * 5]!, at[k * 5 + 1]!));
        }
        const aName = s.slice(aStart, aEnd);
        if (this.many.has(aName)) this.fail(aStart, `the attribute ${aName} appears twice.`);
        this.many.add(aName);
      }
      if ((count + 1) * 5 > at.length) {
        const grown = new Int32Array(at.length * 2);
        grown.set(at);
        this.attrs = attributePositions = grown;
        return this.restartTag(lt);
      }
      const o = count * 5;
      at[o] = aStart;
      at[o + 1] = aEnd;
      at[o + 2] = aPrefixEnd;
      at[o + 3] = vStart;
      at[o + 4] = vEnd;
      count++;
      if (this.isXmlns(aStart, aPrefixEnd !== -1 ? aPrefixEnd : aEnd)) {
        declares = true;
      } else if (aPrefixEnd !== -1) {
        prefixedAttrs = true;
      } else {
        plainAttrs = true;
      }
    }
    if (count > this.limits.maxAttributes) this.limit(`an element has more than ${this.limits.maxAttributes} attributes`);
    if (++this.elements > this.limits.maxElements) this.limit(`more than ${this.limits.maxElements} elements`);

    // Namespace declarations first (they apply to the element and all its attributes), then every
    // other value checked for references where it stands.
    let undo: Array<string | undefined> | null = null;
    for (let k = 0; k < count; k++) {
      const o = k * 5;
      const aStart = at[o]!;
      const aEnd = at[o + 1]!;
      const aPrefixEnd = at[o + 2]!;
      if (declares && this.isXmlns(aStart, aPrefixEnd !== -1 ? aPrefixEnd : aEnd)) {
        const value = this.attributeValue(at[o + 3]!, at[o + 4]!);
        undo = this.declare(aStart, aPrefixEnd === -1 ? "" : s.slice(aPrefixEnd + 1, aEnd), value, undo);
      } else {
        this.checkValue(at[o + 3]!, at[o + 4]!);
      }
    }

    // The element's namespace, and the prefixed attributes' (unbound prefix, same expanded name twice).
    let uri: string;
    let localStart: number;
    if (prefixEnd === -1) {
      uri = this.ns.get("") ?? "";
      localStart = lt + 1;
    } else {
      if (this.isXmlns(lt + 1, prefixEnd)) this.fail(lt + 1, "an element may not have the prefix xmlns.");
      const bound = this.prefixUri(lt + 1, prefixEnd);
      if (bound === undefined || bound === "") {
        this.fail(lt + 1, `the namespace prefix ${JSON.stringify(s.slice(lt + 1, prefixEnd))} of <${s.slice(lt + 1, nameEnd)}> is not declared.`);
      }
      uri = bound;
      localStart = prefixEnd + 1;
    }
    if (prefixedAttrs) this.checkPrefixedAttributes(lt, count);

    // The node.
    const parentOpen = this.depth === 0 ? null : this.open[this.depth - 1]!;
    let node: XmlNode | null = null;
    if (this.build) {
      const parent = parentOpen?.node ?? null;
      const [name, qname, id] = this.nameOf(uri, localStart, nameEnd, parent === null);
      node = new XmlNode(uri, name, qname, parent);
      if (id >= 0) {
        const list = this.byId[id];
        if (list === undefined) this.byId[id] = [node];
        else list.push(node);
      } else {
        const others = (this.others ??= new Map());
        const list = others.get(qname);
        if (list === undefined) others.set(qname, [node]);
        else list.push(node);
      }
      if (plainAttrs) {
        const attrs: Record<string, string> = {};
        for (let k = 0; k < count; k++) {
          const o = k * 5;
          if (at[o + 2] !== -1) continue; // prefixed (and xmlns:*) attributes are not kept
          const aName = s.slice(at[o]!, at[o + 1]!);
          if (aName !== "xmlns") attrs[aName] = this.keptValue(at[o + 3]!, at[o + 4]!);
        }
        node.attrs = attrs;
      }
      if (parent === null) this.root = node;
      else this.addChild(parentOpen!, parent, node);
    }

    this.i = j;
    if (empty) {
      if (undo !== null) this.undo(undo);
      return true;
    }
    if (this.depth + 1 > this.limits.maxDepth) this.limit(`elements nest deeper than ${this.limits.maxDepth} levels`);
    // Open elements are reused from a stack that only grows: no object per element.
    let open = this.open[this.depth];
    if (open === undefined) {
      open = { qs: 0, qe: 0, node: null, undo: null, counts: null };
      this.open.push(open);
    }
    open.qs = lt + 1;
    open.qe = nameEnd;
    open.node = node;
    open.undo = undo;
    open.counts = null;
    this.depth++;
    // The content starts at j; the next `<` is known.
    this.knownLt = nextLt;
    return false;
  }

  /** The shared local name and qname of an element. */
  private nameOf(uri: string, from: number, to: number, isRoot: boolean): KnownName {
    // A known name is first looked for in a small cache by its length and five of its characters, in
    // two slots (names such as AccountingSupplierParty and AccountingCustomerParty share the first), and
    // confirmed in place (no string is made for it); any other goes the long way, below.
    const s = this.s;
    const len = to - from;
    const slot = (((((len * 31 + s.charCodeAt(from)) * 31 + s.charCodeAt(from + (len >> 2))) * 31 + s.charCodeAt(from + (len >> 1))) * 31 + s.charCodeAt(to - 1 - (len >> 2))) * 31 + s.charCodeAt(to - 1)) & (NAME_CACHE_SIZE - 1);
    const first = NAME_CACHE[slot];
    if (first !== undefined && first.uri === uri && first.isRoot === isRoot && first.local.length === len && s.startsWith(first.local, from)) return first.known;
    const other = slot ^ 1;
    const second = NAME_CACHE[other];
    if (second !== undefined && second.uri === uri && second.isRoot === isRoot && second.local.length === len && s.startsWith(second.local, from)) return second.known;
    const known = this.lookUpName(uri, from, to, isRoot);
    if (known[2] >= 0) NAME_CACHE[first === undefined ? slot : other] = { uri, isRoot, local: known[0], known };
    return known;
  }

  private lookUpName(uri: string, from: number, to: number, isRoot: boolean): KnownName {
    const local = this.s.slice(from, to);
    const key = isRoot ? `/${local}` : local;
    // The names every invoice uses are kept across documents, each string internalised once (below).
    const known = KNOWN_NAMES.get(uri)?.get(key);
    if (known !== undefined) return known;
    let byName = this.names.get(uri);
    if (byName === undefined) {
      byName = new Map();
      this.names.set(uri, byName);
    }
    let pair = byName.get(key);
    if (pair === undefined) {
      pair = [local, qnameOf(uri, local, isRoot), -1];
      if (knownNameCount < MAX_KNOWN_NAMES && uri.length <= 256 && local.length <= 128) {
        pair = [internalised(pair[0]), internalised(pair[1]), knownNameCount];
        // Two names can share a qname (the root's "Invoice" and an Invoice element in no namespace): such a qname is looked up by a walk.
        if (QNAME_IDS.has(pair[1])) AMBIGUOUS_QNAMES.add(pair[1]);
        else QNAME_IDS.set(pair[1], pair[2]);
        let global = KNOWN_NAMES.get(uri);
        if (global === undefined) KNOWN_NAMES.set(internalised(uri), (global = new Map()));
        global.set(internalised(key), pair);
        knownNameCount++;
      } else if (QNAME_IDS.has(pair[1])) {
        AMBIGUOUS_QNAMES.add(pair[1]);
      }
      byName.set(key, pair);
    }
    return pair;
  }

  /** Appends `node` to `parent`'s children, with its position among the siblings of its qname. */
  private addChild(open: Open, parent: XmlNode, node: XmlNode): void {
    const kids = parent.children === NO_CHILDREN ? (parent.children = []) : parent.children;
    if (open.counts !== null) {
      const c = (open.counts.get(node.qname) ?? 0) + 1;
      open.counts.set(node.qname, c);
      node.index = c;
    } else {
      // The nearest earlier sibling of the same qname gives the position.
      for (let k = kids.length - 1; k >= 0; k--) {
        if (kids[k]!.qname === node.qname) {
          node.index = kids[k]!.index + 1;
          break;
        }
      }
      if (kids.length + 1 >= MANY_CHILDREN) {
        const counts = new Map<string, number>();
        for (const kid of kids) counts.set(kid.qname, kid.index);
        counts.set(node.qname, node.index);
        open.counts = counts;
      }
    }
    kids.push(node);
  }

  /** After the attribute positions grew: read the same start tag again. */
  private restartTag(lt: number): boolean {
    this.i = lt;
    return this.startTag();
  }

  /** Positions of the current start tag's attributes, five numbers each (see startTag); shared by every read. */
  private attrs = attributePositions;
  /** Attribute names of a start tag past 16 attributes. */
  private readonly many = new Set<string>();
  /** Prefixes seen so far, so that resolving one takes no new string. */
  private readonly prefixes: string[] = [];

  /** The namespace bound to each of `prefixes` when it was last looked up, and the `bindings` count it was bound under then. */
  private readonly prefixUris: (string | undefined)[] = [];
  private readonly prefixUnder: number[] = [];
  /** Counts the changes to the bindings (declare, undo): a prefix's namespace looked up under the same count is still its namespace. */
  private bindings = 0;

  /**
   * The namespace bound to the prefix `from..to` (undefined: none). A prefix seen before is found in
   * place, without a string, and its namespace is looked up again only when the bindings changed since
   * (in a UBL document, the root declares them all: every later element's prefix is then one comparison).
   */
  private prefixUri(from: number, to: number): string | undefined {
    const len = to - from;
    const prefixes = this.prefixes;
    for (let k = 0; k < prefixes.length; k++) {
      const p = prefixes[k]!;
      if (p.length !== len || !this.s.startsWith(p, from)) continue;
      if (this.prefixUnder[k] !== this.bindings) {
        this.prefixUris[k] = this.ns.get(p);
        this.prefixUnder[k] = this.bindings;
      }
      return this.prefixUris[k];
    }
    const p = this.s.slice(from, to);
    const uri = this.ns.get(p);
    if (prefixes.length < 16) {
      prefixes.push(p);
      this.prefixUris.push(uri);
      this.prefixUnder.push(this.bindings);
    }
    return uri;
  }

  /** Whether `from..to` of the text is `xmlns` (an attribute's name or prefix, an element's prefix). */
  private isXmlns(from: number, to: number): boolean {
    return to - from === 5 && this.s.startsWith("xmlns", from);
  }

  /** Whether `a..aEnd` and `b..bEnd` of the text hold the same characters. */
  private sameText(a: number, aEnd: number, b: number, bEnd: number): boolean {
    if (aEnd - a !== bEnd - b) return false;
    const s = this.s;
    for (let k = 0; k < aEnd - a; k++) if (s.charCodeAt(a + k) !== s.charCodeAt(b + k)) return false;
    return true;
  }

  /** The next `<` found by the last start tag, so the content loop need not search for it again. */
  private knownLt = -1;

  /** Binds `prefix` (or the default namespace for "") to `value`, checking the Namespaces in XML rules. */
  private declare(at: number, prefix: string, value: string, undo: Array<string | undefined> | null): Array<string | undefined> {
    if (prefix === "xmlns") this.fail(at, "the prefix xmlns may not be declared.");
    if (prefix === "xml" && value !== XML_NS) this.fail(at, `the prefix xml may only be bound to ${XML_NS}.`);
    if (prefix !== "xml" && value === XML_NS) this.fail(at, `only the prefix xml may be bound to ${XML_NS}.`);
    if (value === XMLNS_NS) this.fail(at, `no prefix may be bound to ${XMLNS_NS}.`);
    if (prefix !== "" && value === "") this.fail(at, `the prefix ${prefix} may not be undeclared (an empty namespace name) in XML 1.0.`);
    const out = undo ?? [];
    out.push(prefix, this.ns.get(prefix));
    // Internalised (a few per document): every element's namespace is then the string KNOWN_NAMES and the
    // rules' literals hold, so looking it up or comparing it is a pointer test, not a comparison of its characters.
    this.ns.set(prefix, value.length <= 256 ? internalised(value) : value);
    this.bindings++;
    return out;
  }

  private undo(undo: Array<string | undefined>): void {
    for (let k = undo.length - 2; k >= 0; k -= 2) {
      const prefix = undo[k]!;
      const previous = undo[k + 1];
      if (previous === undefined) this.ns.delete(prefix);
      else this.ns.set(prefix, previous);
      this.bindings++;
    }
  }

  private checkPrefixedAttributes(lt: number, count: number): void {
    const s = this.s;
    const at = this.attrs;
    const seen = new Set<string>();
    for (let k = 0; k < count; k++) {
      const o = k * 5;
      const aPrefixEnd = at[o + 2]!;
      if (aPrefixEnd === -1) continue;
      const aStart = at[o]!;
      const aEnd = at[o + 1]!;
      if (this.isXmlns(aStart, aPrefixEnd)) continue;
      const name = s.slice(aStart, aEnd);
      const prefix = s.slice(aStart, aPrefixEnd);
      const bound = this.ns.get(prefix);
      if (bound === undefined || bound === "") this.fail(lt, `the namespace prefix ${JSON.stringify(prefix)} of the attribute ${name} is not declared.`);
      const expanded = `${bound}\u0000${s.slice(aPrefixEnd + 1, aEnd)}`;
      if (seen.has(expanded)) this.fail(lt, `the attribute ${name} appears twice (the same namespace and local name).`);
      seen.add(expanded);
    }
    // An unprefixed attribute is in no namespace, so it cannot clash with a prefixed one.
  }

  /** The normalised value of an attribute (each literal whitespace character a space, then references resolved). */
  private attributeValue(from: number, to: number): string {
    if (this.nextAmp < from) this.nextAmp = this.indexOrEnd("&", from);
    return this.nextAmp < to ? this.references(from, to, true) : spaces(this.s.slice(from, to));
  }

  /**
   * The normalised value of a kept attribute, read again after all values were checked (so the
   * `&` cursor may have passed it: look within the value itself).
   */
  private keptValue(from: number, to: number): string {
    const s = this.s;
    let amp = from;
    while (amp < to && s.charCodeAt(amp) !== 38 /* & */) amp++;
    return amp < to ? this.references(from, to, true) : spaces(s.slice(from, to));
  }

  /** Checks an attribute value's references without building the value (when there are none, there is nothing to check). */
  private checkValue(from: number, to: number): void {
    if (this.nextAmp < from) this.nextAmp = this.indexOrEnd("&", from);
    if (this.nextAmp < to) this.references(from, to, true);
  }

  private indexOrEnd(needle: string, from: number): number {
    const k = this.s.indexOf(needle, from);
    return k === -1 ? this.n : k;
  }

  /**
   * The text of `from..to` with its entity and character references resolved (each checked). In an
   * attribute value (`attr`), literal whitespace becomes a space first; what a reference gives stays.
   */
  private references(from: number, to: number, attr: boolean): string {
    const s = this.s;
    let out = "";
    let k = from;
    for (let amp = s.indexOf("&", from); amp !== -1 && amp < to; amp = s.indexOf("&", k)) {
      out += attr ? spaces(s.slice(k, amp)) : s.slice(k, amp);
      const semi = s.indexOf(";", amp + 1);
      if (semi === -1 || semi >= to) this.fail(amp, "an & must start a reference such as &amp; (write & itself as &amp;).");
      const ref = s.slice(amp + 1, semi);
      if (ref.charCodeAt(0) === 35 /* # */) {
        const m = /^#(?:([0-9]+)|x([0-9a-fA-F]+))$/.exec(ref);
        const cp = m === null ? NaN : m[1] !== undefined ? Number(m[1]) : parseInt(m[2]!, 16);
        if (!isXmlChar(cp)) this.fail(amp, `the character reference &${ref}; does not name a character XML allows.`);
        out += String.fromCodePoint(cp);
      } else {
        const v = Object.hasOwn(PREDEFINED, ref) ? PREDEFINED[ref] : undefined;
        if (v === undefined) this.fail(amp, `the entity &${ref}; is not defined (only &lt; &gt; &amp; &apos; &quot; and character references are).`);
        out += v;
      }
      k = semi + 1;
    }
    this.nextAmp = this.indexOrEnd("&", to);
    return out + (attr ? spaces(s.slice(k, to)) : s.slice(k, to));
  }

  // ---- content ---------------------------------------------------------------------------------

  /** The content of the root element, through its end tag. */
  private content(): void {
    const s = this.s;
    const n = this.n;
    for (;;) {
      const at = this.i;
      let lt = this.knownLt >= at ? this.knownLt : s.indexOf("<", at);
      if (lt === -1) lt = n;
      if (lt > at) this.charData(at, lt);
      if (lt >= n) {
        const top = this.open[this.depth - 1]!;
        this.fail(n, `the element <${s.slice(top.qs, top.qe)}> is not closed.`);
      }
      this.i = lt;
      const c = s.charCodeAt(lt + 1);
      if (c === 47 /* / */) {
        if (this.endTag()) return;
      } else if (c === 33 /* ! */) {
        if (s.startsWith("<!--", lt)) this.comment();
        else if (s.startsWith("<![CDATA[", lt)) this.cdata();
        else this.fail(lt, "<! must start a comment or a CDATA section here.");
      } else if (c === 63 /* ? */) {
        this.pi();
      } else {
        this.startTag();
      }
    }
  }

  /** Character data `from..to` (no `<` in it): references checked, `]]>` refused, text added to the open element's node. */
  private charData(from: number, to: number): void {
    if (this.nextCdataEnd < from) this.nextCdataEnd = this.indexOrEnd("]]>", from);
    if (this.nextCdataEnd < to) this.fail(this.nextCdataEnd, "]]> is not allowed in text (write it as ]]&gt;).");
    if (this.nextAmp < from) this.nextAmp = this.indexOrEnd("&", from);
    if (this.nextAmp < to) {
      const t = this.references(from, to, false);
      if (this.build) this.addText(t);
    } else if (this.build) {
      this.addText(this.s.slice(from, to));
    }
  }

  private addText(t: string): void {
    const node = this.open[this.depth - 1]!.node!;
    node.text = node.text === "" ? t : node.text + t;
  }

  /** `<![CDATA[ ... ]]>`. */
  private cdata(): void {
    const from = this.i + 9;
    const end = this.s.indexOf("]]>", from);
    if (end === -1) this.fail(this.i, "a CDATA section is not closed with ]]>.");
    if (this.build) this.addText(this.s.slice(from, end));
    this.i = end + 3;
  }

  /** `</name S?>`, matching the open element. Returns true when it closed the root. */
  private endTag(): boolean {
    const s = this.s;
    const lt = this.i;
    const top = this.open[--this.depth]!;
    let j = lt + 2 + (top.qe - top.qs);
    if (!this.sameText(top.qs, top.qe, lt + 2, Math.min(j, this.n)) || (j < this.n && !isSpace(s.charCodeAt(j)) && s.charCodeAt(j) !== 62)) {
      const end = this.name(lt + 2);
      const found = s.slice(lt + 2, s.charCodeAt(end) === 58 ? this.name(end + 1) : end);
      this.fail(lt, `the end tag </${found}> does not match the start tag <${s.slice(top.qs, top.qe)}>.`);
    }
    while (j < this.n && isSpace(s.charCodeAt(j))) j++;
    if (s.charCodeAt(j) !== 62) this.fail(j, `the end tag </${s.slice(top.qs, top.qe)}> is not closed with >.`);
    this.i = j + 1;
    const node = top.node;
    if (node !== null && this.shareBlanks && node.children !== NO_CHILDREN) {
      if (node.text !== "") node.text = this.shared(node.text);
      // A large document's elements keep arrays of exactly their children: one grown by push has 17
      // slots from its second child, a tenth of a large model's memory (a small one's dies young).
      if (node.children.length > 1 && node !== this.root) node.children = node.children.slice();
    }
    if (top.undo !== null) this.undo(top.undo);
    top.node = null;
    top.undo = null;
    top.counts = null;
    return this.depth === 0;
  }

  /** The indentation between child elements, shared: one string for every element with the same. */
  private shared(text: string): string {
    if (text.length > 256 || !isBlankText(text)) return text;
    const known = this.blanks.get(text);
    if (known !== undefined) return known;
    if (this.blanks.size < 4096) this.blanks.set(text, text);
    return text;
  }
}

/** Attribute-value normalisation of literal text: each whitespace character a space (line ends are LF by now). */
function spaces(raw: string): string {
  // A loop, not a regular expression, for the common value with none of them.
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 9 || c === 10 || c === 13) return raw.replace(/[\t\n\r]/g, " ");
  }
  return raw;
}

/**
 * US-ASCII under the names the IANA character set registry gives it (lower-cased), and "ascii": a
 * document in US-ASCII is a UTF-8 document, so it is read as one (its bytes must all be ASCII).
 */
const US_ASCII: ReadonlySet<string> = new Set(["us-ascii", "ascii", "iso-ir-6", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso646-us", "us", "ibm367", "cp367", "csascii"]);
const NON_ASCII = /[^\x00-\x7f]/;

// `<?xml version="1.x" (encoding="...")? (standalone="yes|no")? S? ?>`, S being XML's four spaces.
const DECLARATION =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:"(1\.[0-9]+)"|'(1\.[0-9]+)')(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:"([A-Za-z][A-Za-z0-9._-]*)"|'([A-Za-z][A-Za-z0-9._-]*)'))?(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\r\n]*\?>/;

