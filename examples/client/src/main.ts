// A typed client of the einvoice API (types from docs/openapi.json by openapi-typescript, calls by
// openapi-fetch): signs up, has an operator make the company eligible, looks the recipient up, validates and submits an invoice, reads back,
// and fetches the delivery evidence once it is delivered; a second company, receiving on the recipient's identifier in
// the sandbox, finds the invoice in its inbox.
// Usage: EINVOICE_URL=http://localhost:3000 ADMIN_TOKEN=... pnpm --filter @einvoice/example-client start [path/to/invoice.xml]
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const baseUrl = process.env.EINVOICE_URL ?? "http://localhost:3000";
const adminToken = process.env.ADMIN_TOKEN;
if (!adminToken) throw new Error("Set ADMIN_TOKEN to the server's admin token (printed at its start).");
// Default: the quickstart's example invoice in this repository (examples/invoice.xml).
// A path given is relative to where the command was typed (pnpm runs the script in examples/client).
const invoicePath = process.argv[2]
  ? resolve(process.env.INIT_CWD || process.cwd(), process.argv[2])
  : join(dirname(fileURLToPath(import.meta.url)), "..", "..", "invoice.xml");

const api = createClient<paths>({ baseUrl });

function fail(step: string, status: number, error: unknown): never {
  throw new Error(`${step} failed with ${status}: ${JSON.stringify(error)}`);
}

// 1. Sign up: the API key is in this answer only.
const signUp = await api.POST("/v1/accounts", { body: { email: `client-${randomUUID()}@example.com`, companyName: "Client Example B.V.", country: "NL" } });
if (!signUp.data) fail("sign-up", signUp.response.status, signUp.error);
const { companyId, apiKey } = signUp.data.data;
console.log(`signed up: company ${companyId}`);

// 2. An operator makes the company eligible for the Peppol API.
const admin = await api.PATCH("/admin/companies/{companyId}", {
  params: { path: { companyId } },
  headers: { Authorization: `Bearer ${adminToken}` },
  body: { enterprise: true, subscription: "pro", legalEntityId: "12345", peppolSendingEnabled: true },
});
if (!admin.data) fail("admin update", admin.response.status, admin.error);
console.log(`eligible: enterprise=${admin.data.data.enterprise} subscription=${admin.data.data.subscription}`);

const auth = { Authorization: `Bearer ${apiKey}` };
const bytes = readFileSync(invoicePath);
const text = bytes.toString("utf8");
const endpoint = /<cac:AccountingCustomerParty>[\s\S]*?<cbc:EndpointID[^>]*schemeID="([^"]+)"[^>]*>([^<]+)</.exec(text);
const recipientId = endpoint ? `${endpoint[1]}:${endpoint[2]!.trim()}` : null;

// 2b. A second company receives on the recipient's identifier (the sandbox delivers there into its inbox).
let receiverAuth: { Authorization: string } | null = null;
if (recipientId) {
  const receiver = await api.POST("/v1/accounts", { body: { email: `receiver-${randomUUID()}@example.com`, companyName: "Receiver Example SE", country: "NL" } });
  if (!receiver.data) fail("receiver sign-up", receiver.response.status, receiver.error);
  const set = await api.PATCH("/admin/companies/{companyId}", {
    params: { path: { companyId: receiver.data.data.companyId } },
    headers: { Authorization: `Bearer ${adminToken}` },
    body: { participantIds: [recipientId] },
  });
  if (set.data) {
    receiverAuth = { Authorization: `Bearer ${receiver.data.data.apiKey}` };
    console.log(`receiver: receives on ${set.data.data.participantIds.join(", ")}`);
  } else if (set.response.status === 409) console.log(`receiver: ${recipientId} is another company's already (participant_id_taken); the inbox step is skipped`);
  else fail("receiver participant ids", set.response.status, set.error);
}

// 3. Ask whether the recipient is on Peppol (the server's participant discovery; 404 when it has none).
if (recipientId) {
  const participantId = recipientId;
  const found = await api.GET("/v1/participants/{participantId}", { headers: auth, params: { path: { participantId } } });
  if (found.data) {
    const p = found.data.data;
    console.log(`recipient ${p.participantId}: ${p.registered ? `registered on Peppol, ${p.documentTypes.length} document type(s)` : "not registered on Peppol"}`);
  } else if (found.response.status !== 404) fail("participant lookup", found.response.status, found.error);
}

// 4. Validate it first (the official EN 16931 and Peppol BIS 3 rules; nothing is stored), then submit.
const xml = bytes.toString("base64");
const validated = await api.POST("/v1/validate", { headers: auth, body: { xml } });
if (!validated.data) fail("validate", validated.response.status, validated.error);
const report = validated.data.data;
console.log(`validated: ${report.valid ? "valid" : "invalid"} (${report.ruleSets.join(", ")}), ${report.errors.length} error(s), ${report.warnings.length} warning(s)`);
for (const e of report.errors) console.log(`  ${e.rule} at ${e.location}: ${e.message}`);
// A UBL CreditNote has its own endpoint; the body and the answers are the same.
const isCreditNote = /<(?:[A-Za-z_][\w.-]*:)?CreditNote[\s>]/.test(text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, "").trimStart().slice(0, 400));
const submitted = await api.POST(isCreditNote ? "/v1/peppol/credit-note" : "/v1/peppol/invoice", { headers: auth, body: { xml, targetNetwork: "auto" } });
if (!submitted.data) fail("submit", submitted.response.status, submitted.error);
const submission = submitted.data.data;
console.log(`submitted: ${submission.submissionId} ${submission.status}${submission.errorMessage ? ` (${submission.errorMessage})` : ""}`);
if (submission.status !== "sending") process.exitCode = 1;

// 5. Read back: the invoice list and the clients.
const invoices = await api.GET("/v1/invoices", { headers: auth, params: { query: { limit: 10 } } });
if (!invoices.data) fail("list invoices", invoices.response.status, invoices.error);
for (const inv of invoices.data.data) {
  console.log(`${inv.kind === "creditNote" ? `credit note (for ${inv.billingReference ?? "-"})` : "invoice"} ${inv.invoiceNumber}: ${inv.status} on ${inv.network ?? "-"} to ${inv.recipient.name} (${inv.recipient.endpointId}), payable ${inv.totals.payable} ${inv.currency}`);
}
const clients = await api.GET("/v1/clients", { headers: auth });
if (!clients.data) fail("list clients", clients.response.status, clients.error);
for (const c of clients.data.data) console.log(`client ${c.name} (${c.endpointId}): ${c.invoiceCount} invoice(s)`);

// 6. Once delivered, the delivery evidence the network gave (the sandbox's is synthetic and says so).
if (submission.status === "sending") {
  const deadline = Date.now() + 20_000;
  let status: string = submission.status;
  while (status === "sending" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const inv = await api.GET("/v1/invoices/{id}", { headers: auth, params: { path: { id: submission.submissionId } } });
    if (!inv.data) fail("get invoice", inv.response.status, inv.error);
    status = inv.data.data.status;
  }
  const evidence = await api.GET("/v1/invoices/{id}/evidence", { headers: auth, params: { path: { id: submission.submissionId } } });
  if (evidence.data) {
    const e = evidence.data.data;
    console.log(`evidence: ${e.kind} (${e.mediaType}, ${Buffer.byteLength(e.content)} bytes) from ${e.network}, reference ${e.reference ?? "-"}, delivered at ${e.deliveredAt}`);
  } else if (evidence.response.status === 409) {
    // Still sending, failed, or delivered without evidence: the message says which.
    console.log(`no evidence yet: ${evidence.error.message}`);
  } else fail("evidence", evidence.response.status, evidence.error);
}

// 7. The receiving company's inbox: the invoice as received (the sandbox delivered it there), and its supplier.
if (receiverAuth) {
  const deadline = Date.now() + 20_000;
  let inbox: { invoiceNumber: string | null; supplier: { name: string | null; endpointId: string | null }; valid: boolean | null; syntax: string | null }[] = [];
  while (inbox.length === 0 && Date.now() < deadline) {
    const got = await api.GET("/v1/invoices", { headers: receiverAuth, params: { query: { direction: "inbound" } } });
    if (!got.data) fail("list inbound", got.response.status, got.error);
    inbox = got.data.data;
    if (inbox.length === 0) await new Promise((r) => setTimeout(r, 250));
  }
  for (const inv of inbox) console.log(`received: ${inv.invoiceNumber} from ${inv.supplier.name} (${inv.supplier.endpointId}), ${inv.valid ? "valid" : "invalid"}, as ${inv.syntax}`);
  const suppliers = await api.GET("/v1/suppliers", { headers: receiverAuth });
  if (!suppliers.data) fail("list suppliers", suppliers.response.status, suppliers.error);
  for (const s of suppliers.data.data) console.log(`supplier ${s.name} (${s.endpointId}): ${s.invoiceCount} invoice(s)`);
}
