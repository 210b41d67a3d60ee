// Edits of the official Peppol base example (openpeppol-bis3/examples/base-example.xml) that exercise the
// tricky parts of the Peppol rules; each expectation was checked against the official rules (testdata/rules).
// Used by test/validation/rules/peppol.test.ts.

export interface PeppolCase {
  name: string;
  /** [search, replacement] applied in order to the base example. */
  edits: ReadonlyArray<readonly [string, string]>;
  /** Rule ids that must fire. */
  fires: readonly string[];
  /** Rule ids that must stay silent. */
  silent: readonly string[];
}

const SELLER_COUNTRY = "<cbc:IdentificationCode>GB</cbc:IdentificationCode>";
const BUYER_COUNTRY = "<cbc:IdentificationCode>SE</cbc:IdentificationCode>\n                </cac:Country>\n            </cac:PostalAddress>\n            <cac:PartyTaxScheme>";
const DOC_ALLOWANCE = "<cac:AllowanceCharge>\n            <cbc:ChargeIndicator>true</cbc:ChargeIndicator>";

export const PEPPOL_CASES: readonly PeppolCase[] = [
  {
    name: "a percentage without base amount is R041, and the amount check R040 is not made",
    edits: [[DOC_ALLOWANCE, "<cac:AllowanceCharge>\n            <cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric>"]],
    fires: ["PEPPOL-EN16931-R041"],
    silent: ["PEPPOL-EN16931-R043", "PEPPOL-EN16931-R040"],
  },
  {
    name: "a charge indicator with spaces passes R043 (normalized) but is no longer 'true' for the code list rule CL003",
    edits: [[DOC_ALLOWANCE, "<cac:AllowanceCharge>\n            <cbc:ChargeIndicator> true </cbc:ChargeIndicator>"]],
    fires: [],
    silent: ["PEPPOL-EN16931-R043", "PEPPOL-EN16931-CL003"],
  },
  {
    name: "profile urn:peppol:bis:billing_with_response is approved (02); the old billing:02:1.0 form is not",
    edits: [["urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", "urn:peppol:bis:billing_with_response"]],
    fires: [],
    silent: ["PEPPOL-EN16931-R007", "PEPPOL-EN16931-P0100"],
  },
  {
    name: "profile urn:fdc:peppol.eu:2017:poacc:billing:02:1.0 is no longer approved in 2026.5",
    edits: [["urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", "urn:fdc:peppol.eu:2017:poacc:billing:02:1.0"]],
    fires: ["PEPPOL-EN16931-R007"],
    silent: ["PEPPOL-EN16931-P0100"],
  },
  {
    name: "a GLN with a wrong check digit is R040, a Belgian enterprise number with wrong check digits is R043",
    edits: [["<cbc:EndpointID schemeID=\"0088\">9482348239847239874</cbc:EndpointID>", "<cbc:EndpointID schemeID=\"0088\">5790000436102</cbc:EndpointID>"],
      ["<cbc:EndpointID schemeID=\"0002\">FR23342</cbc:EndpointID>", "<cbc:EndpointID schemeID=\"0208\">0403019262</cbc:EndpointID>"]],
    fires: ["PEPPOL-COMMON-R040", "PEPPOL-COMMON-R043"],
    silent: [],
  },
  {
    name: "the VAT total in accounting currency (a tax total without breakdown) is exempt from R051, other amounts are not",
    edits: [["<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>", "<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:TaxCurrencyCode>SEK</cbc:TaxCurrencyCode>"],
      ["<cac:TaxTotal>", "<cac:TaxTotal><cbc:TaxAmount currencyID=\"SEK\">3000</cbc:TaxAmount></cac:TaxTotal><cac:TaxTotal>"],
      ["<cbc:PriceAmount currencyID=\"EUR\">400</cbc:PriceAmount>", "<cbc:PriceAmount currencyID=\"SEK\">400</cbc:PriceAmount>"]],
    fires: ["PEPPOL-EN16931-R051"],
    silent: ["PEPPOL-EN16931-R054", "PEPPOL-EN16931-R055", "PEPPOL-EN16931-R005"],
  },
  {
    name: "line net amount within 0.02 of quantity × price / base quantity passes R120, exactly (no floats)",
    edits: [["<cbc:InvoicedQuantity unitCode=\"DAY\">7</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID= \"EUR\">2800</cbc:LineExtensionAmount>", "<cbc:InvoicedQuantity unitCode=\"DAY\">3</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID= \"EUR\">0.30</cbc:LineExtensionAmount>"],
      ["<cbc:PriceAmount currencyID=\"EUR\">400</cbc:PriceAmount>", "<cbc:PriceAmount currencyID=\"EUR\">0.1</cbc:PriceAmount>"]],
    fires: [],
    silent: ["PEPPOL-EN16931-R120"],
  },
  {
    name: "line net amount off by more than 0.02 is R120",
    edits: [["<cbc:InvoicedQuantity unitCode=\"DAY\">7</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID= \"EUR\">2800</cbc:LineExtensionAmount>", "<cbc:InvoicedQuantity unitCode=\"DAY\">7</cbc:InvoicedQuantity>\n    <cbc:LineExtensionAmount currencyID= \"EUR\">2800.03</cbc:LineExtensionAmount>"]],
    fires: ["PEPPOL-EN16931-R120"],
    silent: [],
  },
  {
    name: "an empty element is R008 and a date not written YYYY-MM-DD is F001",
    edits: [["<cbc:IssueDate>", "<cbc:TaxPointDate>2017-11-1</cbc:TaxPointDate><cbc:AccountingCost/><cbc:IssueDate>"]],
    fires: ["PEPPOL-EN16931-R008", "PEPPOL-EN16931-F001"],
    silent: [],
  },
  {
    name: "German seller and buyer: cash discount terms must follow the #SKONTO# format ending in a line break",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode>DE</cbc:IdentificationCode>"], [BUYER_COUNTRY, BUYER_COUNTRY.replace(">SE<", ">DE<")],
      ["<cbc:Note>Payment within 10 days, 2% discount</cbc:Note>", "<cbc:Note>#SKONTO#TAGE=10#PROZENT=2#</cbc:Note>"]],
    fires: ["DE-R-018", "DE-R-002"],
    silent: ["PEPPOL-EN16931-R002"],
  },
  {
    name: "German seller and buyer: a well-formed #SKONTO# line passes DE-R-018",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode>DE</cbc:IdentificationCode>"], [BUYER_COUNTRY, BUYER_COUNTRY.replace(">SE<", ">DE<")],
      ["<cbc:Note>Payment within 10 days, 2% discount</cbc:Note>", "<cbc:Note>#SKONTO#TAGE=10#PROZENT=2.00#\n</cbc:Note>"]],
    fires: [],
    silent: ["DE-R-018"],
  },
  {
    name: "a Swedish seller with an organisation number with a wrong Luhn digit is SE-R-013 (and R049 on scheme 0007)",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode>SE</cbc:IdentificationCode>"],
      ["<cbc:EndpointID schemeID=\"0088\">9482348239847239874</cbc:EndpointID>", "<cbc:EndpointID schemeID=\"0007\">5567321708</cbc:EndpointID>"]],
    fires: ["PEPPOL-COMMON-R049", "SE-R-013"],
    silent: [],
  },
  {
    name: "a Norwegian seller (by its VAT number) with a wrong organisation number check digit is NO-R-001; 'Foretaksregisteret' missing is the warning NO-R-002",
    edits: [["<cbc:CompanyID>GB1232434</cbc:CompanyID>", "<cbc:CompanyID>NO974760674MVA</cbc:CompanyID>"]],
    fires: ["NO-R-001", "NO-R-002"],
    silent: [],
  },
  {
    name: "a valid Norwegian VAT number passes NO-R-001",
    edits: [["<cbc:CompanyID>GB1232434</cbc:CompanyID>", "<cbc:CompanyID>NO974760673MVA</cbc:CompanyID>"]],
    fires: ["NO-R-002"],
    silent: ["NO-R-001"],
  },
  {
    name: "a Danish seller's legal registration number needs scheme 0184 (DK-R-014)",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode>DK</cbc:IdentificationCode>"]],
    fires: ["DK-R-014"],
    silent: ["DK-R-002"],
  },
  {
    name: "the Danish rules compare the seller's country code as written: ' DK' does not apply them",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode> DK</cbc:IdentificationCode>"]],
    fires: [],
    silent: ["DK-R-014"],
  },
  {
    name: "a Greek seller's invoice number must have six segments and a MARK reference",
    edits: [["<cbc:CompanyID>GB1232434</cbc:CompanyID>", "<cbc:CompanyID>EL094259216</cbc:CompanyID>"], [SELLER_COUNTRY, "<cbc:IdentificationCode>GR</cbc:IdentificationCode>"]],
    fires: ["GR-R-001-1", "GR-R-001-2", "GR-R-004-1", "GR-R-009", "GR-S-008-1"],
    silent: ["GR-R-003", "GR-S-011"],
  },
  {
    name: "a Dutch seller needs a KVK or OIN legal registration number",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode>NL</cbc:IdentificationCode>"]],
    fires: ["NL-R-003"],
    silent: ["NL-R-002", "NL-R-007"],
  },
  {
    name: "a repeated seller makes the seller's country an XPath error, so the Danish rules gated on it do not apply",
    edits: [[SELLER_COUNTRY, "<cbc:IdentificationCode>DK</cbc:IdentificationCode>"],
      ["</cac:AccountingSupplierParty>", "</cac:AccountingSupplierParty><cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID=\"0088\">4006381333931</cbc:EndpointID><cac:PostalAddress><cac:Country><cbc:IdentificationCode>DK</cbc:IdentificationCode></cac:Country></cac:PostalAddress></cac:Party></cac:AccountingSupplierParty>"]],
    fires: [],
    silent: ["DK-R-014", "DK-R-002"],
  },
];
