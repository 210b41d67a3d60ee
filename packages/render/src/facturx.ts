// toFacturX: the invoice's PDF as a PDF/A-3b with its EN 16931 CII attached as factur-x.xml (Factur-X 1.0 /
// ZUGFeRD 2.x, profile EN 16931): the PDF German customers who receive invoices by e-mail accept.
import { syntaxById, type InvoiceData } from "@einvoice/core";
import { collect, documentDate, pdfStream, type RenderPdfOptions } from "./pdf-render.js";

export type ToFacturXOptions = RenderPdfOptions;

/** The attachment's name Factur-X 1.0 prescribes for every profile but XRechnung. */
export const FACTURX_FILENAME = "factur-x.xml";

/**
 * The invoice as a Factur-X PDF: the page of `renderPdf` as PDF/A-3b (XMP with pdfaid part 3 / conformance B, an
 * sRGB OutputIntent, every font embedded) with the invoice's EN 16931 CII embedded as `factur-x.xml`: a file
 * specification with `/AFRelationship /Data` in the catalog's `/AF` and the EmbeddedFiles name tree, `/Subtype
 * /text#2Fxml`, and the Factur-X XMP extension schema (DocumentType INVOICE, Version 1.0, ConformanceLevel EN 16931).
 * The CII is `syntaxById("cii").write(invoice)`: what `extractInvoiceXml` takes back out, byte for byte.
 *
 * @example writeFileSync("invoice.pdf", await toFacturX(invoice, { lang: "de" }));
 */
export async function toFacturX(invoice: InvoiceData, options: ToFacturXOptions = {}): Promise<Buffer> {
  const cii = syntaxById("cii")!.write(invoice, options.kind ? { kind: options.kind } : {});
  const date = documentDate(invoice);
  const stream = pdfStream(invoice, options, { pdfVersion: "1.7", subset: "PDF/A-3b" }, (doc) => {
    doc.file(Buffer.from(cii, "utf8"), {
      name: FACTURX_FILENAME,
      type: "text/xml",
      relationship: "Data",
      description: "Factur-X invoice (EN 16931 CII)",
      creationDate: date,
      modifiedDate: date,
    } as Parameters<typeof doc.file>[1]);
    doc.appendXML(FACTURX_XMP);
  });
  return collect(stream);
}

/** The Factur-X 1.0 XMP properties and their PDF/A extension schema (Factur-X 1.0.07, section 6.2.2). */
const FACTURX_XMP = `
        <rdf:Description xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#" rdf:about="">
            <fx:DocumentType>INVOICE</fx:DocumentType>
            <fx:DocumentFileName>${FACTURX_FILENAME}</fx:DocumentFileName>
            <fx:Version>1.0</fx:Version>
            <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
        </rdf:Description>
        <rdf:Description xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#" rdf:about="">
            <pdfaExtension:schemas>
                <rdf:Bag>
                    <rdf:li rdf:parseType="Resource">
                        <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                        <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
                        <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                        <pdfaSchema:property>
                            <rdf:Seq>
${["DocumentFileName:name of the embedded XML invoice file", "DocumentType:INVOICE", "Version:The actual version of the Factur-X XML schema", "ConformanceLevel:The conformance level of the embedded Factur-X data"]
  .map((p) => {
    const [name, description] = p.split(/:(.*)/s) as [string, string];
    return `                                <rdf:li rdf:parseType="Resource">
                                    <pdfaProperty:name>${name}</pdfaProperty:name>
                                    <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                                    <pdfaProperty:category>external</pdfaProperty:category>
                                    <pdfaProperty:description>${description}</pdfaProperty:description>
                                </rdf:li>`;
  })
  .join("\n")}
                            </rdf:Seq>
                        </pdfaSchema:property>
                    </rdf:li>
                </rdf:Bag>
            </pdfaExtension:schemas>
        </rdf:Description>
`;
