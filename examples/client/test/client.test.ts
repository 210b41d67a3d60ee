// The typed example client runs against a started example server, and its types match docs/openapi.json.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/test/support/server-process.js";

const run = promisify(execFile);
const clientDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("examples/client", () => {
  let server: RunningServer;
  let dataDir: string;
  const adminToken = "client-test-admin-token-123";

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "einvoice-client-"));
    server = await startServer({ DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, DATABASE_URL: undefined });
  });
  afterAll(async () => {
    await server?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("signs up, becomes eligible, looks the recipient up on Peppol, submits the example invoice answered sending, and reads it back (sending or already delivered), then fetches the sandbox's evidence once delivered; a second company finds it in its inbox", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: clientDir,
      env: { ...process.env, EINVOICE_URL: server.base, ADMIN_TOKEN: adminToken },
    });
    expect(stdout).toMatch(/^signed up: company [0-9a-f-]{36}$/m);
    expect(stdout).toMatch(/^eligible: enterprise=true subscription=pro$/m);
    expect(stdout).toMatch(/^recipient 0002:FR23342: registered on Peppol, 2 document type\(s\)$/m);
    expect(stdout).toMatch(/^validated: valid \(CEN-EN16931-UBL-2026.5, PEPPOL-EN16931-UBL-2026.5\), 0 error\(s\)/m);
    expect(stdout).toMatch(/^submitted: [0-9a-f-]{36} sending$/m);
    // The dispatcher may deliver it before the client reads the list back.
    expect(stdout).toMatch(/^invoice QS-2026-001: (sending|delivered) on peppol to Exemple Client SARL \(0002:FR23342\), payable 119\.00 EUR$/m);
    expect(stdout).toMatch(/^client Exemple Client SARL \(0002:FR23342\): 1 invoice\(s\)$/m);
    // The sandbox delivers it, with its synthetic evidence.
    expect(stdout).toMatch(/^evidence: sandbox \(application\/json, \d+ bytes\) from peppol, reference SANDBOX-[0-9a-f-]{36}, delivered at \S+Z$/m);
    // A second company receives on the recipient's identifier: the sandbox delivered the invoice into its inbox.
    expect(stdout).toMatch(/^receiver: receives on 0002:fr23342$/m);
    expect(stdout).toMatch(/^received: QS-2026-001 from Beispiel Lieferant GmbH \(9930:DE123456789\), valid, as ubl$/m);
    expect(stdout).toMatch(/^supplier Beispiel Lieferant GmbH \(9930:DE123456789\): 1 invoice\(s\)$/m);
  }, 60_000);

  it("has types generated from the committed docs/openapi.json (run `pnpm --filter @einvoice/example-client generate`)", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "einvoice-types-")), "api.d.ts");
    await run(process.execPath, [join(clientDir, "node_modules", "openapi-typescript", "bin", "cli.js"), "../../docs/openapi.json", "-o", out], { cwd: clientDir });
    expect(readFileSync(join(clientDir, "src", "api.d.ts"), "utf8")).toBe(readFileSync(out, "utf8"));
  }, 60_000);
});
