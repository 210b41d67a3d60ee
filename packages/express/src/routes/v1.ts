// The route table of /v1 (webhooks.ts holds /v1/webhooks): HTTP in, a core call, HTTP out.
import {
  AccountCreatedSchema,
  AccountRequestSchema,
  ApiKeyCreatedSchema,
  ApiKeySchema,
  ApiKeyRequestSchema,
  ClientSchema,
  CompanySchema,
  createAccount,
  createApiKey,
  getCompany,
  getInvoice,
  getInvoiceEvidence,
  getInvoiceDocument,
  getInvoiceDocumentData,
  getInvoiceFa3,
  documentQuery,
  getInvoiceCii,
  getInvoiceRenderInput,
  isRenderFormat,
  readRenderRequest,
  RenderRequestSchema,
  getInvoiceOriginal,
  DocumentQuerySchema,
  InvoiceDataSchema,
  getVerificationQr,
  DeliveryEvidenceSchema,
  InvoiceRequestSchema,
  CreditNoteRequestSchema,
  InvoiceSchema,
  listApiKeys,
  listClients,
  listSuppliers,
  getSupplier,
  ListClientsQuerySchema,
  listInvoices,
  ListInvoicesQuerySchema,
  revokeApiKey,
  submitCreditNote,
  submitCreditNoteBody,
  submitInvoice,
  submitInvoiceBody,
  SubmissionSchema,
  validateDocument,
  validateDocumentBody,
  ValidateRequestSchema,
  ValidationReportSchema,
  buildUbl,
  ApiError,
  type CoreOptions,
  type DocumentFormat,
  type DocumentReadOptions,
  type Invoice,
  type Store,
} from "@einvoice/core";
import { z } from "zod";
import { RENDERERS } from "./render.js";
import { codesOf, MediaAnswer, type Route, type RouteInput } from "./route.js";
import { data, page } from "./schemas.js";

/** What the /v1 handlers call. */
export interface V1Deps {
  store: Store;
  options: CoreOptions;
  /** How a received document is read (its extra syntaxes, such as FA(3)). */
  read?: DocumentReadOptions;
}

const EXAMPLE_XML =
  "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4KPEludm9pY2UgeG1sbnM9InVybjpvYXNpczpuYW1lczpzcGVjaWZpY2F0aW9uOnVibDpzY2hlbWE6eHNkOkludm9pY2UtMiI+Li4uPC9JbnZvaWNlPg==";

const EXAMPLE_CREDIT_NOTE_XML =
  "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4KPENyZWRpdE5vdGUgeG1sbnM9InVybjpvYXNpczpuYW1lczpzcGVjaWZpY2F0aW9uOnVibDpzY2hlbWE6eHNkOkNyZWRpdE5vdGUtMiI+Li4uPC9DcmVkaXROb3RlPg==";

const CREDIT_NOTE_EXAMPLES = {
  autoRouting: { summary: "Let the service choose the network", value: { xml: EXAMPLE_CREDIT_NOTE_XML } },
  explicitPeppol: { summary: "Send on Peppol", value: { xml: EXAMPLE_CREDIT_NOTE_XML, targetNetwork: "peppol" } },
};

const SUBMIT_EXAMPLES = {
  autoRouting: { summary: "Let the issuer decide: KSeF for a company in PL, Peppol for every other", value: { xml: EXAMPLE_XML } },
  explicitPeppol: { summary: "Send on Peppol", value: { xml: EXAMPLE_XML, targetNetwork: "peppol" } },
  explicitKsef: { summary: "Issue through KSeF (a company in PL)", value: { xml: EXAMPLE_XML, targetNetwork: "ksef" } },
};

/** A complete invoice as data (POST /v1/render's example: "Try it out" on /docs shows the page). */
const EXAMPLE_INVOICE = {
  number: "INV-2026-0001",
  issueDate: "2026-03-01",
  dueDate: "2026-03-31",
  currency: "EUR",
  buyerReference: "PO-4711",
  seller: {
    name: "Beispiel Lieferant GmbH",
    vatId: "DE123456789",
    endpoint: { scheme: "9930", id: "DE123456789" },
    address: { lines: ["Hauptstraße 1"], city: "Berlin", postalCode: "10115", country: "DE" },
  },
  buyer: {
    name: "Kunde Österreich GmbH",
    vatId: "ATU12345678",
    endpoint: { scheme: "9914", id: "ATU12345678" },
    address: { lines: ["Mariahilfer Straße 2"], city: "Wien", postalCode: "1070", country: "AT" },
  },
  payment: { meansCode: "58", reference: "INV-2026-0001", accounts: [{ iban: "DE75512108001245126199", bic: "SOGEDEFFXXX" }] },
  paymentTerms: "30 Tage netto",
  lines: [
    { id: "1", name: "Beratung", description: "Architektur-Review", quantity: "12.5", unitCode: "HUR", price: "120.00", vat: { category: "S", rate: "19" } },
    { id: "2", name: "Lizenz", quantity: "3", unitCode: "C62", price: "99.90", vat: { category: "S", rate: "19" } },
  ],
};

/**
 * The data read from a received document: InvoiceData's fields with their values as written, not held to its input
 * rules (a sender's electronic address may be empty, or of a scheme such as EM).
 */
const RECEIVED_INVOICE_DATA = z.record(z.string(), z.unknown()).meta({
  id: "ReceivedInvoiceData",
  description:
    "For a received document: the InvoiceData read from it, whatever its syntax, every value as the sender wrote it. Its fields are InvoiceData's, but they are not held to InvoiceData's input rules (what a sender wrote is shown as written: an electronic address may be empty or of another scheme than four digits, such as EM).",
});

/**
 * The headers of bytes a network delivered (untrusted): nothing in them may run or load, whatever the app's other
 * headers say, should they ever be opened in a browser (an XML document may carry XHTML script, a PDF JavaScript).
 */
export const RECEIVED_BYTES_HEADERS: Readonly<Record<string, string>> = { "Content-Security-Policy": "default-src 'none'; sandbox", "X-Content-Type-Options": "nosniff" };

/** A received syntax as people read it, in a message. */
const SYNTAX_NAMES: Record<string, string> = { ubl: "UBL", cii: "CII", pdf: "a Factur-X PDF", fa3: "FA(3)", unknown: "a document that could not be read" };

/**
 * `GET /v1/invoices/{id}/document` of a received document (`direction` inbound). Without `format` (and with
 * `original`): the bytes exactly as received, with their media type, or for `Accept: application/json` the InvoiceData
 * read from them whatever their syntax. `ubl`: as received when it came as UBL, else the UBL written from its
 * InvoiceData. `fa3`: as received when it came as FA(3) (KSeF), else 409. (`cii` and the rendered formats are the
 * core's, which read a received document whatever its syntax.)
 */
async function receivedDocument(deps: V1Deps, auth: RouteInput<V1Deps>["auth"], invoice: Invoice, format: DocumentFormat, explicit: boolean, asData: boolean): Promise<MediaAnswer> {
  const id = invoice.id;
  const received = SYNTAX_NAMES[invoice.syntax ?? "unknown"] ?? String(invoice.syntax);
  if (format === "fa3") {
    if (invoice.syntax !== "fa3") {
      throw new ApiError("document_not_available", `Invoice ${id} was received as ${received}, not as FA(3): only an invoice received from KSeF has one. Ask without format for it as received.`);
    }
    return new MediaAnswer("application/xml", (await getInvoiceOriginal(deps.store, auth, id)).content, RECEIVED_BYTES_HEADERS);
  }
  if (asData) return new MediaAnswer("application/json", await getInvoiceDocumentData(deps.store, auth, id, deps.read));
  if (explicit && format === "ubl" && invoice.syntax !== "ubl") {
    const data = await getInvoiceDocumentData(deps.store, auth, id, deps.read);
    try {
      return new MediaAnswer("application/xml", Buffer.from(buildUbl(data, { rootElement: invoice.kind === "creditNote" ? "CreditNote" : "Invoice" }), "utf8"));
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== "bad_request") throw e;
      throw new ApiError(
        "document_not_available",
        `Invoice ${id} was received as ${received} and cannot be written as UBL: ${e.details?.[0] ?? e.message}. Ask without format for it as received, or with Accept: application/json for its data.`,
      );
    }
  }
  const original = await getInvoiceOriginal(deps.store, auth, id);
  return new MediaAnswer(original.mediaType, original.content, RECEIVED_BYTES_HEADERS);
}

/** The submit routes (invoice, credit note): one body, one set of answers, the core call for the document kind. */
/** What names an operation: the fields each route helper below takes as they are. */
type Operation = Pick<Route<V1Deps>, "path" | "operationId" | "summary">;
const operation = ({ path, operationId, summary }: Operation): Operation => ({ path, operationId, summary });

function submitRoute(r: Operation & {
  description: string;
  examples: Record<string, { summary: string; value: unknown }>;
  noun: "invoice" | "credit note";
  submit: typeof submitInvoice | typeof submitCreditNote;
  submitBody: typeof submitInvoiceBody;
  schema: typeof InvoiceRequestSchema | typeof CreditNoteRequestSchema;
}): Route<V1Deps> {
  return {
    method: "post",
    ...operation(r),
    description: r.description,
    auth: "apiKey",
    company: true,
    body: { kind: "raw", schema: r.schema, examples: r.examples },
    success: { status: 200, description: "Processed: `sending` or `failed`.", schema: data(SubmissionSchema) },
    idempotent: true,
    errors: [
      { codes: codesOf(403), description: "The company is not eligible for the Peppol API." },
      { codes: ["idempotency_in_progress"], description: "A request with this `Idempotency-Key` is still being processed: retry once it has been answered." },
      {
        codes: codesOf(422).filter((c) => c !== "ksef_token_key_not_configured"),
        description: `The ${r.noun} or the account failed validation (\`ksef_not_configured\`: routed to KSeF, which this server delivers to directly, and the company has no KSeF credential). A document that breaks a fatal rule of EN 16931 (or of Peppol BIS Billing 3.0, when its CustomizationID says so) is \`invalid_ubl_xml\` with the broken rules in \`errors\`; a CII \`document\` is judged by the EN 16931 CII rules, then converted to Peppol BIS Billing 3.0 UBL and judged by the UBL rules, each error then naming the InvoiceData field (\`path\`) and its place in the CII (\`source\`). \`unsupported_document\`: a \`document\` that is neither UBL, CII nor a Factur-X PDF (ZUGFeRD 1.0 included). \`invalid_pdf\`, \`pdf_encrypted\`, \`pdf_without_invoice\`: a PDF that is broken or past a limit, encrypted, or carries no invoice XML. \`idempotency_key_reused\`: this \`Idempotency-Key\` was used with another body or endpoint in the last 24 hours.`,
      },
    ],
    handle: async ({ deps, auth, body, idempotency }) => {
      // With an Idempotency-Key the submission takes the key's id: a retry after a crash finds the one already stored.
      const options = idempotency ? { ...deps.options, submissionId: idempotency.resourceId } : deps.options;
      return {
        // The raw bytes go to the core: a large body is parsed off the event loop, with its document.
        data:
          Buffer.isBuffer(body) || Array.isArray(body)
            ? await r.submitBody(deps.store, auth, body, { ...options, transfer: true })
            : await r.submit(deps.store, auth, {} as never, options),
      };
    },
  };
}

/** The list routes (invoices, clients, suppliers): one page of the company's records, its query validated by the core call. */
function pageRoute(r: Operation & {
  description?: string;
  noun: string;
  query: z.ZodObject;
  schema: z.ZodType;
  list: typeof listInvoices | typeof listClients | typeof listSuppliers;
}): Route<V1Deps> {
  return {
    method: "get",
    ...operation(r),
    ...(r.description ? { description: r.description } : {}),
    auth: "apiKey",
    query: r.query,
    success: { status: 200, description: `A page of ${r.noun}.`, schema: page(r.schema) },
    handle: ({ deps, auth, query }) => r.list(deps.store, auth, query),
  };
}

export const V1_ROUTES: readonly Route<V1Deps>[] = [
  {
    method: "post",
    path: "/accounts",
    operationId: "createAccount",
    summary: "Create an account, its company and its first API key",
    auth: "none",
    signUpLimit: true,
    body: { kind: "json", schema: AccountRequestSchema },
    success: { status: 201, description: "Created. The API key is shown once.", schema: data(AccountCreatedSchema) },
    errors: [{ codes: ["email_taken"], description: "An account with this email exists." }],
    handle: async ({ deps, body }) => ({ data: await createAccount(deps.store, body, deps.options) }),
  },
  submitRoute({
    path: "/peppol/invoice",
    operationId: "submitInvoice",
    summary: "Submit one invoice: UBL, CII or Factur-X",
    description:
      "The invoice as `xml` (a UBL Invoice, base64), as `document` (base64 of a UBL Invoice, a UN/CEFACT CII invoice — EN 16931, XRechnung, Factur-X / ZUGFeRD 2.x XML — or a Factur-X / ZUGFeRD PDF; told apart by content; a CII is sent on Peppol as the Peppol BIS Billing 3.0 UBL made of it, every value kept), or as data (`invoice`). HTTP 200 means the request was processed: inspect `data.status`. `sending`: accepted and queued. `failed`: not sent, `errorMessage` says why (a duplicate of an earlier submission, a route that cannot be taken).",
    examples: SUBMIT_EXAMPLES,
    noun: "invoice",
    submit: submitInvoice,
    submitBody: submitInvoiceBody,
    schema: InvoiceRequestSchema,
  }),
  submitRoute({
    path: "/peppol/credit-note",
    operationId: "submitCreditNote",
    summary: "Submit one credit note: UBL, CII or Factur-X",
    description:
      "The same body, checks, order and answers as `POST /v1/peppol/invoice`, for a UBL `CreditNote` (namespace `urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2`); the recipient is `/CreditNote/cac:AccountingCustomerParty/cac:Party/cbc:EndpointID`. An `Invoice` sent here is `invalid_ubl_xml` naming `POST /v1/peppol/invoice`. A credit note routed to KSeF is sent as a KSeF correction (KOR) when the server has a KSeF connection, and `failed` otherwise. The record is listed and read under /v1/invoices with `kind: \"creditNote\"`.",
    examples: CREDIT_NOTE_EXAMPLES,
    noun: "credit note",
    submit: submitCreditNote,
    submitBody: submitCreditNoteBody,
    schema: CreditNoteRequestSchema,
  }),
  {
    method: "post",
    path: "/validate",
    operationId: "validateInvoice",
    summary: "Validate an invoice or credit note (UBL, CII, Factur-X PDF) against the official rules, without submitting it",
    description:
      "Any authenticated account (no eligibility, no account preconditions). The body is a submit's `xml` (a UBL document in base64), `document` (base64 of a UBL or CII document or of a Factur-X / ZUGFeRD PDF, told apart by content), or the invoice or credit note as data. A CII document is judged by the official CII rules on its own tree: EN 16931 CII always, XRechnung CII for an XRechnung guideline id. The answer names the `syntax` and carries `invoice`, the document read as InvoiceData. For UBL, the rules of EN 16931 (CEN UBL) always apply, and those of each registered rule set `cbc:CustomizationID` selects (Peppol BIS Billing 3.0, national CIUS such as NLCIUS); a specification without rules here gets the CEN rules and a warning `EINVOICE-RULESET-MISSING` naming the rules not checked. Nothing is stored.",
    auth: "apiKey",
    body: { kind: "raw", schema: ValidateRequestSchema },
    success: {
      status: 200,
      description:
        "The report: `valid` is false when a fatal rule is broken. `errors` and `warnings` list at most the first 100 findings each (`truncated` says when there are more); `errorCount`, `warningCount` and `ruleCounts` count them all. A message or location longer than 1,000 characters is cut.",
      schema: data(ValidationReportSchema),
    },
    errors: [
      {
        codes: ["invalid_base64_xml", "single_xml_only", "invalid_ubl_xml", "unsupported_document", "invalid_pdf", "pdf_encrypted", "pdf_without_invoice"],
        description:
          "The document cannot be read: bad base64, not UTF-8 XML text, two documents, not well-formed, an `xml` that is not a UBL Invoice or CreditNote (`invalid_ubl_xml`), a `document` that is neither UBL, CII nor a PDF (`unsupported_document`, ZUGFeRD 1.0 named), a broken, encrypted or invoice-less PDF.",
      },
    ],
    // The raw bytes go to the core: a large body is parsed and validated off the event loop.
    handle: async ({ deps, body }) => ({
      data: Buffer.isBuffer(body) || Array.isArray(body) ? await validateDocumentBody(body, { ...deps.options, transfer: true }) : validateDocument({}, deps.options),
    }),
  },
  {
    method: "post",
    path: "/render",
    operationId: "renderInvoice",
    summary: "Render an invoice (UBL, CII, Factur-X or data) as a page for people, without storing it",
    description:
      "A preview: the body's invoice (`xml`, `document` or as data, as in a submit) rendered in `format` (`html`: a printable HTML page, no script, served under a Content-Security-Policy that allows none) and `lang` (default: the buyer's country's, else en). The document is read, not judged (`POST /v1/validate` judges it); nothing is stored. The submit body limits and the per-company rate limit apply.",
    auth: "apiKey",
    body: {
      kind: "json",
      schema: RenderRequestSchema,
      examples: {
        html: { summary: "An invoice sent as data, as a German HTML page", value: { invoice: EXAMPLE_INVOICE, format: "html", lang: "de" } },
        xml: { summary: "A UBL invoice (base64) as a page in the buyer's language", value: { xml: EXAMPLE_XML, format: "html" } },
      },
    },
    success: {
      status: 200,
      description: "The rendered invoice: `text/html` for `html`; `application/pdf` for `pdf` and `facturx`.",
      mediaType: "text/html",
      schema: z.string().meta({ description: "The invoice as a printable HTML page." }),
      alternatives: { "application/pdf": z.string().meta({ format: "binary", description: "With `format=pdf` or `format=facturx`: the PDF." }) },
    },
    errors: [
      {
        codes: ["invalid_base64_xml", "single_xml_only", "invalid_ubl_xml", "unsupported_document", "invalid_pdf", "pdf_encrypted", "pdf_without_invoice"],
        description:
          "The document cannot be read: bad base64, not UTF-8 XML text, not well-formed, an `xml` that is not UBL, a `document` that is neither UBL, CII nor a PDF, a broken, encrypted or invoice-less PDF.",
      },
    ],
    handle: async ({ deps, body }) => {
      const input = await readRenderRequest(body, deps.options);
      const renderer = RENDERERS[input.format];
      return new MediaAnswer(renderer.mediaType, await renderer.render(input, input.lang), renderer.headers);
    },
  },
  pageRoute({
    path: "/invoices",
    operationId: "listInvoices",
    summary: "List invoices sent and received, newest first",
    description:
      "The company's submissions (`direction` `outbound`) and the documents it received (`inbound`: from KSeF, from Peppol through the access point, or from another company of this server in the sandbox), newest first (`createdAt`; a received document's is when it was stored). `direction` keeps one of them; `supplierId` keeps one supplier's received documents (GET /v1/suppliers), `clientId` one client's submissions. A received document's `status` is always `received`.",
    noun: "invoices",
    query: ListInvoicesQuerySchema,
    schema: InvoiceSchema,
    list: listInvoices,
  }),
  {
    method: "get",
    path: "/invoices/{id}",
    operationId: "getInvoice",
    summary: "Get one invoice",
    auth: "apiKey",
    params: { id: "The invoice's id: a submissionId, or the id of a received document." },
    success: { status: 200, description: "The invoice.", schema: data(InvoiceSchema) },
    errors: [{ codes: ["invoice_not_found"], description: "No such invoice in this company." }],
    handle: async ({ deps, auth, params }) => ({ data: await getInvoice(deps.store, auth, params.id!) }),
  },
  {
    method: "get",
    path: "/invoices/{id}/evidence",
    operationId: "getInvoiceEvidence",
    summary: "Get the delivery evidence of an invoice",
    description:
      "The proof of delivery the network gave, kept with the invoice when it was delivered: KSeF's UPO, the access point's evidence of the Peppol transmission, or the sandbox's synthetic evidence. `content` is the document as the network gave it (text); `mediaType` says what it is. Always a JSON envelope, whatever `Accept` says.",
    auth: "apiKey",
    params: { id: "The invoice's id: a submissionId, or the id of a received document." },
    success: { status: 200, description: "The delivery evidence.", schema: data(DeliveryEvidenceSchema) },
    errors: [
      { codes: ["invoice_not_found"], description: "No such invoice in this company." },
      {
        codes: ["evidence_not_available"],
        description: "The invoice has no delivery evidence: it is still sending, it failed, or it was delivered without evidence (the message says which).",
      },
    ],
    handle: async ({ deps, auth, params }) => ({ data: await getInvoiceEvidence(deps.store, auth, params.id!) }),
  },
  {
    method: "get",
    path: "/invoices/{id}/evidence/qr",
    operationId: "getInvoiceVerificationQr",
    summary: "Get the KSeF verification QR code of an invoice",
    description:
      "The invoice's KSeF verification link (KOD I, `verificationUrl` of the invoice) as a QR code, an SVG image with the invoice's KSeF number under the code, as KSeF asks it to be printed on any visualisation of a KSeF invoice (PDF, paper, e-mail). For an invoice delivered to KSeF.",
    auth: "apiKey",
    params: { id: "The invoice's id: a submissionId, or the id of a received document." },
    success: { status: 200, description: "The QR code, an SVG document.", mediaType: "image/svg+xml", schema: z.string().meta({ description: "An SVG document." }) },
    errors: [
      { codes: ["invoice_not_found"], description: "No such invoice in this company." },
      {
        codes: ["evidence_not_available"],
        description: "The invoice has no KSeF verification link: it is not a KSeF invoice, it is still being sent, or it failed (the message says which).",
      },
    ],
    handle: async ({ deps, auth, params }) => (await getVerificationQr(deps.store, auth, params.id!)).svg,
  },
  {
    method: "get",
    path: "/invoices/{id}/document",
    operationId: "getInvoiceDocument",
    summary: "Get the document of an invoice as it was sent or received",
    description:
      "**A received document** (`direction` `inbound`): without `format` (or with `format=original`), the bytes exactly as received, with their media type (`application/xml`, `application/pdf` for a Factur-X PDF, `application/octet-stream` for bytes that are neither); with `Accept: application/json`, the InvoiceData read from it whatever its syntax (UBL, CII, Factur-X, FA(3)), or 422 `document_unreadable` when it cannot be read as an invoice (its bytes are still served). `format=ubl`: as received when it came as UBL, else the UBL written from its InvoiceData (amounts computed again from its lines, as for a submission sent as data; 409 when its data cannot make one, such as an FA(3), which names no Peppol electronic addresses). `format=cii`: the CII written from its InvoiceData. `format=fa3`: the FA(3) as received from KSeF (409 for a document received otherwise). `format=html`, `pdf`, `facturx`: rendered from its InvoiceData. A document received larger than 10 MiB is kept without its bytes: 409 `document_not_available`.\n\n**A submission**: with `format=html` (or `pdf`, `facturx`), the invoice rendered for people, in the language `lang` (default: the buyer's country's), sent or received, whatever its syntax; a KSeF invoice with its KSeF number and verification QR code. Otherwise the UBL document stored at submission, byte for byte: as sent in `xml`, as built from `invoice` / `creditNote`, or as converted from a CII or Factur-X `document` (`format=original` gives that document exactly as it was submitted, `application/xml` or `application/pdf`; `format=cii` the invoice as EN 16931 CII). `Accept: application/xml` (the default) answers the XML; `Accept: application/json` answers the same document read as InvoiceData (its amounts and totals as written). A failed submission keeps no document. With `format=fa3`, for an invoice delivered through KSeF: the FA(3) XML exactly as it was sent to KSeF (the bytes KSeF accepted and hashed; always `application/xml`).",
    auth: "apiKey",
    params: { id: "The invoice's id: a submissionId, or the id of a received document." },
    query: DocumentQuerySchema,
    success: {
      status: 200,
      description: "The document: UBL XML, or InvoiceData for `Accept: application/json`; with `format=fa3`, the FA(3) XML sent to KSeF; with `format=html`, the printable page (`text/html`).",
      mediaType: "application/xml",
      schema: z.string().meta({ description: "The UBL document, or with format=fa3 the FA(3) document." }),
      alternatives: {
        "application/json": z.union([InvoiceDataSchema, RECEIVED_INVOICE_DATA]),
        "application/pdf": z.string().meta({ format: "binary", description: "With `format=original`, for a Factur-X PDF submitted as `document`: the PDF exactly as it was submitted; a received Factur-X PDF as received. With `format=pdf` or `format=facturx`: the invoice rendered as a PDF, or as a Factur-X PDF." }),
        "application/octet-stream": z.string().meta({ format: "binary", description: "A received document that is neither XML nor PDF, exactly as received (without `format`, or with `format=original`)." }),
        "text/html": z.string().meta({ description: "With `format=html`: the invoice as a printable HTML page in the language `lang` (no script; served with `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src data:`). A KSeF invoice carries its KSeF number and verification QR code." }),
      },
    },
    errors: [
      { codes: ["invoice_not_found"], description: "No such invoice in this company (another company's id, sent or received, is not found either)." },
      {
        codes: ["document_not_available"],
        description:
          "The submission failed, and a failed submission's document is not stored; a received document larger than 10 MiB was kept without its bytes. With `format=fa3`: the invoice has no FA(3) to serve: it is not a KSeF invoice, it is still being sent, it failed, it was delivered without a kept FA(3), or it was received otherwise than from KSeF (the message says which). With `format=ubl`, a received document whose data cannot make a UBL document.",
      },
      {
        codes: ["document_unreadable"],
        description: "A received document asked for as data (`Accept: application/json`, `format=cii`, a rendered format) that cannot be read as an invoice (not XML, not an invoice, broken): its bytes are still served without `format`.",
      },
    ],
    handle: async ({ deps, auth, params, query, req }) => {
      const { format, lang } = documentQuery(query);
      const id = params.id!;
      if (isRenderFormat(format)) {
        const renderer = RENDERERS[format];
        return new MediaAnswer(renderer.mediaType, await renderer.render(await getInvoiceRenderInput(deps.store, auth, id, deps.read), lang), renderer.headers);
      }
      if (format === "cii") return new MediaAnswer("application/xml", await getInvoiceCii(deps.store, auth, id, deps.read));
      if (format === "original") {
        const original = await getInvoiceOriginal(deps.store, auth, id);
        // A document as a client or a network gave it (a received one is untrusted): served so that nothing in it runs.
        return new MediaAnswer(original.mediaType, original.content, RECEIVED_BYTES_HEADERS);
      }
      const asData = req.accepts(["application/xml", "application/json"]) === "application/json";
      // Which way the record went decides what `ubl`, `fa3` and no format mean (one small read, by key).
      const invoice = await getInvoice(deps.store, auth, id);
      if (invoice.direction === "inbound") return receivedDocument(deps, auth, invoice, format, query.format !== undefined, asData);
      if (format === "fa3") return new MediaAnswer("application/xml", await getInvoiceFa3(deps.store, auth, id));
      return asData
        ? new MediaAnswer("application/json", await getInvoiceDocumentData(deps.store, auth, id))
        : new MediaAnswer("application/xml", await getInvoiceDocument(deps.store, auth, id));
    },
  },
  pageRoute({
    path: "/clients",
    operationId: "listClients",
    summary: "List clients, latest invoice first",
    noun: "clients",
    query: ListClientsQuerySchema,
    schema: ClientSchema,
    list: listClients,
  }),
  {
    method: "get",
    path: "/company",
    operationId: "getCompany",
    summary: "The caller's company and its eligibility",
    auth: "apiKey",
    success: { status: 200, description: "The company.", schema: data(CompanySchema) },
    handle: async ({ deps, auth }) => ({ data: await getCompany(deps.store, auth.companyId) }),
  },
  {
    method: "get",
    path: "/api-keys",
    operationId: "listApiKeys",
    summary: "List the company's active API keys (never the keys)",
    auth: "apiKey",
    success: { status: 200, description: "The keys.", schema: data(z.array(ApiKeySchema)) },
    handle: async ({ deps, auth }) => ({ data: await listApiKeys(deps.store, auth) }),
  },
  {
    method: "post",
    path: "/api-keys",
    operationId: "createApiKey",
    summary: "Make another API key (shown once)",
    auth: "apiKey",
    // Absent, `{}`, or a name.
    body: { kind: "json", schema: ApiKeyRequestSchema },
    success: { status: 201, description: "Created.", schema: data(ApiKeyCreatedSchema) },
    errors: [{ codes: ["too_many_api_keys"], description: "The company already has 20 active keys (`MAX_ACTIVE_API_KEYS`): revoke one first." }],
    handle: async ({ deps, auth, body }) => ({ data: await createApiKey(deps.store, auth, deps.options, body) }),
  },
  {
    method: "delete",
    path: "/api-keys/{id}",
    operationId: "revokeApiKey",
    summary: "Revoke an API key; it gets 401 from the next request on",
    auth: "apiKey",
    params: { id: "The key's id." },
    success: { status: 204, description: "Revoked." },
    errors: [
      { codes: ["api_key_not_found"], description: "No such active key in this company." },
      { codes: ["last_api_key"], description: "The company's last active key: create another first." },
    ],
    handle: ({ deps, auth, params }) => revokeApiKey(deps.store, auth, params.id!, deps.options),
  },
];

/**
 * The suppliers (the sellers of the documents the company received): mounted when the store keeps an inbox. A list of
 * its own, not `GET /v1/clients?role=`: a client is whom the company invoices (counted by its submissions), a supplier
 * who invoices it (counted by what it received); the two are keyed and counted apart, and one business can be both.
 */
export const SUPPLIER_ROUTES: readonly Route<V1Deps>[] = [
  pageRoute({
    path: "/suppliers",
    operationId: "listSuppliers",
    summary: "List suppliers, latest received document first",
    description:
      "The sellers of the documents the company received, each in the shape of a client: keyed by the seller's electronic address (BT-34, `scheme:value`, the value without case), else by its VAT id; `invoiceCount` counts the documents received from it, `lastInvoiceAt` the latest. Its received documents: `GET /v1/invoices?supplierId=`. Keyset pagination as `GET /v1/clients`.",
    noun: "suppliers",
    query: ListClientsQuerySchema,
    schema: ClientSchema,
    list: listSuppliers,
  }),
  {
    method: "get",
    path: "/suppliers/{id}",
    operationId: "getSupplier",
    summary: "Get one supplier",
    auth: "apiKey",
    params: { id: "The supplier's id (`supplierId` of a received document)." },
    success: { status: 200, description: "The supplier.", schema: data(ClientSchema) },
    errors: [{ codes: ["supplier_not_found"], description: "No such supplier in this company." }],
    handle: async ({ deps, auth, params }) => ({ data: await getSupplier(deps.store, auth, params.id!) }),
  },
];
