// The README's quickstart, against the example server started as a real process: the banner, the
// three steps it prints (run as printed, in a shell), and the corpus invoice through to delivered.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { corpusPath } from "../../../testdata/index.js";
import { waitFor } from "./support/helpers.js";
import { fileURLToPath } from "node:url";

const REPO_ROOT = join(fileURLToPath(import.meta.url), "../../../..");
import { json, type RunningServer } from "./support/server-process.js";
import { serverSuite, tempDir, withTempDir } from "./support/server-suite.js";


describe("example server quickstart", () => {
  /** Where the user typed `pnpm start` (INIT_CWD): the printed steps run there. */
  const shellDir = tempDir("quickstart-shell");
  const suite = serverSuite("quickstart", { ADMIN_TOKEN: undefined }, { emptyDataDir: true }); // a newcomer's first start
  let server: RunningServer;

  beforeAll(async () => {
    server = await suite.start({ INIT_CWD: shellDir });
  });

  /** The lines of the printed quickstart, between its heading and the "ready" line. */
  const printedSteps = () => {
    const out = server.output();
    return out.slice(out.indexOf("Quickstart"), out.search(/^ready: /m)).split("\n").slice(1).join("\n");
  };

  it("prints where it listens, the store, a generated admin token, a three-step quickstart, and 'ready' last", () => {
    const out = server.output();
    expect(out).toMatch(/^einvoice example server on http:\/\/localhost:\d+, store: /m);
    expect(server.adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const steps = printedSteps();
    expect(steps).toMatch(/1\. ACCOUNT=\$\(curl .*\/v1\/accounts/);
    expect(steps).toMatch(/COMPANY_ID=\$\(node -p/);
    expect(steps).toMatch(/2\. curl .*\/admin\/companies\/\$COMPANY_ID .*"legalEntityId":"LE-1"/);
    expect(steps).toMatch(/3\. node -e .* > body\.json/);
    expect(steps).toMatch(/curl .*\/v1\/peppol\/invoice .*--data-binary @body\.json/);
    // The invoice it names is in the repository (absolute here: INIT_CWD is outside it).
    const file = /3\. node -e '.*' (\S+) > body\.json/.exec(steps)?.[1];
    expect(file && existsSync(file), `step 3 names ${file}`).toBe(true);
    expect(out.trimEnd().split("\n").at(-1)).toMatch(/^ready: taking requests on http:\/\/localhost:\d+/);
  });

  it("the printed steps, run as printed in a shell, sign up, make the company eligible and submit the example invoice → sending, then delivered", async () => {
    const script = `set -euo pipefail\n${printedSteps().replace(/^\s+(\d\.\s+)?/gm, "")}\nprintf "\\n%s %s\\n" "$COMPANY_ID" "$API_KEY"`;
    const lines = execFileSync("bash", ["-c", script], { cwd: shellDir, encoding: "utf8", timeout: 60_000 }).trim().split("\n");
    const [companyId, apiKey] = lines.at(-1)!.split(" ");
    expect(companyId).toMatch(/^[0-9a-f-]{36}$/);
    // The output of step 2 then step 3, each on a line of its own (curl -s prints the body only).
    const answers = lines.slice(0, -1).join("\n").replace(/\}\{/g, "}\n{").split("\n").map((l) => JSON.parse(l));
    expect(answers[0].data).toMatchObject({ id: companyId, legalEntityId: "LE-1", peppolSendingEnabled: true });
    expect(answers[1]).toEqual({ data: { submissionId: expect.any(String), success: true, status: "sending" } });
    const id = answers[1].data.submissionId as string;
    const read = await waitFor("the example invoice delivered", async () => {
      const r = await json(server.base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
      return r.body.data.status === "delivered" ? r.body.data : undefined;
    });
    expect(read).toMatchObject({ invoiceNumber: "QS-2026-001", recipient: { endpointId: "0002:FR23342" } });
  });

  it("answers /health with 200 ok", async () => {
    expect(await json(server.base, "GET", "/health")).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("takes a new user from sign-up to a corpus invoice answered sending, reads it back, and sees it delivered", async () => {
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
    const xml = readFileSync(corpusPath("openpeppol-bis3/examples/base-example.xml")).toString("base64");
    const submit = await json(server.base, "POST", "/v1/peppol/invoice", { xml }, apiKey);
    expect(submit).toEqual({ status: 200, body: { data: { submissionId: expect.any(String), success: true, status: "sending" } } });
    // Read back at once: still sending, or already delivered (the sandbox may be faster than this read).
    const inv = await json(server.base, "GET", `/v1/invoices/${submit.body.data.submissionId}`, undefined, apiKey);
    expect(inv.body.data).toMatchObject({ invoiceNumber: "Snippet1", recipient: { endpointId: "0002:FR23342" } });
    expect(["sending", "delivered"]).toContain(inv.body.data.status);
    await waitFor("the corpus invoice delivered", async () => {
      const r = await json(server.base, "GET", `/v1/invoices/${submit.body.data.submissionId}`, undefined, apiKey);
      return r.body.data.status === "delivered" ? true : undefined;
    });
    const clients = await json(server.base, "GET", "/v1/clients", undefined, apiKey);
    expect(clients.body.data.map((c: { endpointId: string }) => c.endpointId)).toEqual(["0002:FR23342"]);
  });

  it("the README's JSON quickstart, run as written in a shell: the invoice as data previews valid, is answered sending, and is delivered", async () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const block = /<!-- json-quickstart -->\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "README.md has the JSON quickstart").toBeTruthy();
    const signUp = await json(server.base, "POST", "/v1/accounts", { email: "json@start.example", companyName: "Json", country: "NL" });
    const { companyId, apiKey } = signUp.body.data;
    const patch = await json(server.base, "PATCH", `/admin/companies/${companyId}`, { enterprise: true, subscription: "pro", legalEntityId: "LE-1", peppolSendingEnabled: true }, server.adminToken);
    expect(patch.status).toBe(200);
    await withTempDir("json-quickstart", async (work) => {
      // Run at a copy of the repository's examples (the block names examples/invoice.json), writing its body file there.
      execFileSync("cp", ["-r", join(REPO_ROOT, "examples"), work]);
      const out = execFileSync("bash", ["-c", `set -euo pipefail\n${block}`], {
        cwd: work,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, BASE: server.base, API_KEY: apiKey },
      });
      const [preview, submit] = out.trim().split("\n").map((l) => JSON.parse(l));
      expect(preview).toEqual({ valid: true, errors: [] });
      expect(submit).toEqual({ data: { submissionId: expect.any(String), success: true, status: "sending" } });
      const read = await waitFor("the JSON quickstart invoice delivered", async () => {
        const r = await json(server.base, "GET", `/v1/invoices/${submit.data.submissionId}`, undefined, apiKey);
        return r.body.data.status === "delivered" ? r.body.data : undefined;
      });
      expect(read).toMatchObject({ invoiceNumber: "INV-2026-0001", totals: { payable: "1295.31" }, recipient: { endpointId: "0208:0123456749" } });
    });
  });

  it("stops cleanly on SIGTERM", async () => {
    expect(await server.stop()).toBe(0);
  });
});
