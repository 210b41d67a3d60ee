// A clean stop: SIGTERM to the `pnpm start` process (what systemd or a container runtime sends) ends
// the server itself (no orphan), lets a request in flight finish, gives back the delivery lease it
// holds, frees the port and exits 0. NODE_ENV=production without ADMIN_TOKEN refuses to start.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { request } from "node:http";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json, startServer } from "./support/server-process.js";
import { withTempDir } from "./support/server-suite.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const DATABASE_URL = process.env.DATABASE_URL;
const ADMIN = "shutdown-test-admin-token-0123456789";

/** Whether something still listens on the port: a listen on it succeeds only when it is free. */
async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "0.0.0.0", () => probe.close(() => resolve(true)));
  });
}

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!DATABASE_URL)("SIGTERM to `pnpm start` (on PostgreSQL: the lease is read from the database)", () => {
  const schema = `einvoice_stop_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const db = new pg.Client({ connectionString: DATABASE_URL });
  afterAll(async () => {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.end();
  });

  it("finishes the request in flight, gives back the delivery lease it holds, frees the port and exits 0, leaving no process behind", async () => {
    await db.connect();
    // The sandbox holds each send for a minute: the submission is leased and in flight when SIGTERM comes.
    const child = spawn("pnpm", ["start"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", DATABASE_URL, DATABASE_SCHEMA: schema, ADMIN_TOKEN: ADMIN, SANDBOX_DELAY_MS: "60000", SHUTDOWN_TIMEOUT_MS: "1500", DISPATCH_LEASE_MS: "120000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const base = await waitFor("the ready line", async () => /^ready: taking requests on (http:\/\/localhost:\d+)/m.exec(out)?.[1], 90_000, 50);
      const port = Number(new URL(base).port);
      const { apiKey } = await eligibleAccount(base, ADMIN);
      const sent = await json(base, "POST", "/v1/peppol/invoice", { xml: invoiceB64(`STOP-${randomUUID()}`) }, apiKey);
      expect(sent.body.data.status).toBe("sending");
      const id = sent.body.data.submissionId as string;
      const lease = async () =>
        (await db.query<{ lease_owner: string | null }>(`SELECT lease_owner FROM ${schema}.invoices WHERE id = $1`, [id])).rows[0]!.lease_owner;
      await waitFor("the dispatcher to lease the submission", async () => ((await lease()) ? true : undefined));

      // A request in flight: its headers and half its body are sent before SIGTERM, the rest after.
      const body = JSON.stringify({ xml: invoiceB64(`STOP-LATE-${randomUUID()}`) });
      const half = Math.floor(body.length / 2);
      const late = request(`${base}/v1/peppol/invoice`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      });
      const answered = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
        late.once("response", (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }));
        });
        late.once("error", reject);
      });
      late.write(body.slice(0, half));
      await once(late, "socket").then(([socket]) => once(socket as NodeJS.EventEmitter, "connect"));
      await new Promise((r) => setTimeout(r, 500)); // for the server to read the headers: the stopping line checks it did

      child.kill("SIGTERM"); // to pnpm, as a process manager would
      await waitFor("the server to begin stopping", async () => (/"msg":"stopping"/.test(out) ? true : undefined), 20_000, 20);
      expect(out).toMatch(/"inFlightRequests":1\b/);
      late.end(body.slice(half));
      const reply = await answered;
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text).data.status).toBe("sending");
      expect(reply.connection).toBe("close");

      expect(await exited).toBe(0);
      expect(await portIsFree(port)).toBe(true);
      // The leased submission is free for another instance at once, not after the 2-minute lease.
      expect(await lease()).toBeNull();
      expect(out).toMatch(/"msg":"stopped"/);
      // No server process left behind pnpm (the orphan of the issue): the pid the server logged is gone.
      const pid = Number(/"serverPid":(\d+)/.exec(out)?.[1]);
      expect(pid).toBeGreaterThan(0);
      expect(alive(pid)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 180_000);
});

describe("production settings", () => {
  it("NODE_ENV=production without ADMIN_TOKEN refuses to start, naming the variable", async () => {
    const started = startServer({ NODE_ENV: "production", ADMIN_TOKEN: undefined, DATABASE_URL: undefined, DATA_DIR: join(ROOT, "never-created") });
    await expect(started).rejects.toThrow(/ADMIN_TOKEN must be set when NODE_ENV=production/);
  });

  it("a SIGTERM to the server process ends it with 0 (the embedded store)", async () => {
    await withTempDir("stop", async (dataDir) => {
      const server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: undefined, ADMIN_TOKEN: ADMIN, NODE_ENV: "production" });
      const port = Number(new URL(server.base).port);
      expect((await json(server.base, "GET", "/health")).status).toBe(200);
      expect(await server.stop()).toBe(0);
      expect(await portIsFree(port)).toBe(true);
    });
  }, 120_000);
});

