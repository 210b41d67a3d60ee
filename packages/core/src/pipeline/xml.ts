// Step 4 of the document pipeline: a safe XML parse. No DTDs, no entity expansion, errors are ours.
import { DOMParser } from "@xmldom/xmldom";
import { ApiError } from "../errors.js";
import type { ScanResult } from "./scan.js";
import { speedUpXmldom } from "./xmldom-speed.js";

speedUpXmldom();

// XML 1.0 forbids these characters anywhere in a document; xmldom would let them through.
const ILLEGAL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** The DOM types the pipeline reads: xmldom's own. */
export type XmlDocument = ReturnType<DOMParser["parseFromString"]>;
export type XmlElement = NonNullable<XmlDocument["documentElement"]>;

function invalid(reason: string): ApiError {
  return new ApiError("invalid_ubl_xml", `xml is not a well-formed UBL document: ${reason}`);
}

/**
 * Checks what the scan found (DOCTYPE, declared encoding), then parses with xmldom. Any parser
 * error or fatal error becomes `invalid_ubl_xml`; nothing is written to the console.
 */
export function parseXml(text: string, scan: ScanResult): XmlDocument {
  if (scan.hasDoctype) throw invalid("a DOCTYPE is not allowed (no DTDs, no entities).");
  if (scan.encoding !== null && scan.encoding.toLowerCase() !== "utf-8") {
    throw invalid(`the declared encoding is ${JSON.stringify(scan.encoding)}; only UTF-8 is accepted.`);
  }
  const illegal = ILLEGAL_CHARS.exec(text);
  if (illegal) {
    const code = illegal[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw invalid(`it contains the character U+${code}, which XML does not allow.`);
  }
  let problem: string | null = null;
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== "warning" && problem === null) problem = message;
    },
  });
  let doc: XmlDocument | undefined;
  try {
    doc = parser.parseFromString(text, "application/xml");
  } catch (e) {
    problem ??= e instanceof Error ? e.message : "the parser stopped";
  }
  if (problem !== null || doc === undefined) throw invalid(describe(problem ?? "the parser stopped"));
  if (doc.doctype) throw invalid("a DOCTYPE is not allowed (no DTDs, no entities).");
  return doc;
}

function describe(message: string): string {
  const clean = message.replace(/^\[xmldom [^\]]*\]\s*/, "").replace(/\s+/g, " ").trim();
  const short = clean.length > 200 ? clean.slice(0, 200) + "…" : clean;
  return short.endsWith(".") ? short : short + ".";
}
