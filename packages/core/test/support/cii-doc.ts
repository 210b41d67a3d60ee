// Test support: a small valid UN/CEFACT CII invoice (EN 16931), with parts spliced in, for the CII rule tests.

const NS = `xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"`;

/** A small valid CII invoice: `context` in the guideline parameter, `typeCode` and `document` in the exchanged document,
 * `product` in each line's product, `lines` lines, `header` after them. */
export function ciiDoc(parts: { context?: string; typeCode?: string; document?: string; product?: string; lines?: number; header?: string } = {}): string {
  const line = (i: number) => `<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>${i}</ram:LineID></ram:AssociatedDocumentLineDocument>` +
    `<ram:SpecifiedTradeProduct><ram:Name>Item</ram:Name>${parts.product ?? ""}</ram:SpecifiedTradeProduct>` +
    `<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>1</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>` +
    `<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">1</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>` +
    `<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode></ram:ApplicableTradeTax></ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>`;
  return `<rsm:CrossIndustryInvoice ${NS}><rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>${parts.context ?? "<ram:ID>urn:cen.eu:en16931:2017</ram:ID>"}</ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>` +
    `<rsm:ExchangedDocument><ram:ID>1</ram:ID>${parts.typeCode ?? "<ram:TypeCode>380</ram:TypeCode>"}${parts.document ?? `<ram:IssueDateTime><udt:DateTimeString format="102">20260131</udt:DateTimeString></ram:IssueDateTime>`}</rsm:ExchangedDocument>` +
    `<rsm:SupplyChainTradeTransaction>${Array.from({ length: parts.lines ?? 1 }, (_, i) => line(i + 1)).join("")}${parts.header ?? ""}</rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>`;
}

