// The README's quickstart, against the example server started as a real process.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startServer, type RunningServer } from "./server-process.js";

const corpus = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "shared", "corpus");

describe("example server quickstart", () => {
  let server: RunningServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "einvoice-quickstart-"));
    server = await startServer({ DATA_DIR: dataDir, ADMIN_TOKEN: undefined, DATABASE_URL: undefined });
  });
  afterAll(async () => {
    await server?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints where it listens, the store, a generated admin token and a three-step quickstart", () => {
    const out = server.output();
    expect(out).toMatch(/einvoice example server on http:\/\/localhost:\d+, store: /);
    expect(server.adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(out).toMatch(/1\. curl .*\/v1\/accounts/);
    expect(out).toMatch(/2\. curl .*\/admin\/companies\//);
    expect(out).toMatch(/3\. curl .*\/v1\/peppol\/invoice/);
  });

  it("answers /health with 200 ok", async () => {
    expect(await json(server.base, "GET", "/health")).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("takes a new user from sign-up to a corpus invoice answered sending, then reads it back", async () => {
    const signUp = await json(server.base, "POST", "/v1/accounts", { email: "quick@start.example", companyName: "Quick", country: "BE" });
    expect(signUp.status).toBe(201);
    const { companyId, apiKey } = signUp.body.data;
    const patch = await json(
      server.base,
      "PATCH",
      `/admin/companies/${companyId}`,
      { enterprise: true, subscription: "pro", legalEntityId: "LE-1", peppolSendingEnabled: true },
      server.adminToken,
    );
    expect(patch.status).toBe(200);
    const xml = readFileSync(join(corpus, "openpeppol-bis3", "examples", "base-example.xml")).toString("base64");
    const submit = await json(server.base, "POST", "/v1/peppol/invoice", { xml }, apiKey);
    expect(submit).toEqual({ status: 200, body: { data: { submissionId: expect.any(String), success: true, status: "sending" } } });
    const inv = await json(server.base, "GET", `/v1/invoices/${submit.body.data.submissionId}`, undefined, apiKey);
    expect(inv.body.data).toMatchObject({ status: "sending", invoiceNumber: "Snippet1", recipient: { endpointId: "0002:FR23342" } });
    const clients = await json(server.base, "GET", "/v1/clients", undefined, apiKey);
    expect(clients.body.data.map((c: { endpointId: string }) => c.endpointId)).toEqual(["0002:FR23342"]);
  });

  it("stops cleanly on SIGTERM", async () => {
    expect(await server.stop()).toBe(0);
  });
});
