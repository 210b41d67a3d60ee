// Issue 16, finding 7: the bytes of large bodies in flight are bounded. A large body waits for room
// (its socket is not read meanwhile), then gets 503 server_busy with Retry-After; small requests are
// never held back; room freed by an answered request goes to the next large body in line.
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { memoryStore } from "@einvoice/core";
import { createBodyBudget, type BodyBudget } from "@einvoice/express";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../../examples/server/src/app.js";
import { ADMIN_TOKEN } from "./support/app.js";

const KiB = 1024;
const BIG = 1536 * KiB;

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function start(budget: BodyBudget) {
  const app = createApp({ store: memoryStore(), adminToken: ADMIN_TOKEN, bodyBudget: budget, rateLimit: false, signUpRateLimit: false });
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server!.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const created = await fetch(`${base}/v1/accounts`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `b${Math.random()}@example.com`, companyName: "B", country: "NL" }) });
  const { apiKey } = ((await created.json()) as { data: { apiKey: string } }).data;
  return { base, apiKey, port: (server.address() as AddressInfo).port };
}

/** A body of `bytes` bytes of a submit request (its document is no invoice: a 403 or 422 when read whole). */
function bigBody(bytes: number): Buffer {
  const head = Buffer.from('{"xml":"');
  const tail = Buffer.from('"}');
  return Buffer.concat([head, Buffer.alloc(bytes - head.length - tail.length, 0x41), tail]);
}

/** Opens a submission of a large body and sends only its headers and `sent` bytes of it; `finish` sends the rest and resolves with the answer's status line. */
function slowSubmission(port: number, apiKey: string, body: Buffer, sent: number) {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  let answer = "";
  socket.on("data", (d) => (answer += d.toString("latin1")));
  socket.write(`POST /v1/peppol/invoice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, sent));
  return {
    finish: async (): Promise<string> => {
      socket.write(body.subarray(sent));
      const deadline = Date.now() + 15_000;
      while (!/\r\n\r\n/.test(answer) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return answer.split("\r\n")[0]!;
    },
  };
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the budget of large bodies in flight", () => {
  it("past the budget a large body waits, then gets 503 server_busy with Retry-After; small requests are served meanwhile", async () => {
    const budget = createBodyBudget({ maxBytes: 2 * BIG - 1, smallBytes: 64 * KiB, queueTimeoutMs: 400, retryAfterSeconds: 3 });
    const { base, apiKey, port } = await start(budget);
    const first = slowSubmission(port, apiKey, bigBody(BIG), 100 * KiB);
    await until("the first body to hold the budget", () => budget.inFlight() === BIG);

    const t0 = Date.now();
    const second = fetch(`${base}/v1/peppol/invoice`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: bigBody(BIG) });
    await until("the second body to wait", () => budget.waiting() === 1);
    const small = await fetch(`${base}/v1/company`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(small.status).toBe(200);
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);

    const refused = await second;
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("3");
    expect(await refused.json()).toEqual({ code: "server_busy", message: "The server is busy with other large requests; retry after 3 seconds." });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
    expect(budget.waiting()).toBe(0);

    expect(await first.finish()).toMatch(/^HTTP\/1\.1 403/); // the free company's answer: the body was read once admitted
    await until("the budget to be free", () => budget.inFlight() === 0);
  });

  it("a waiting body is admitted as soon as room is freed, in order", async () => {
    const budget = createBodyBudget({ maxBytes: BIG, smallBytes: 64 * KiB, queueTimeoutMs: 10_000 });
    const { base, apiKey, port } = await start(budget);
    const first = slowSubmission(port, apiKey, bigBody(BIG), 10 * KiB);
    await until("the first body to hold the budget", () => budget.inFlight() === BIG);
    const second = fetch(`${base}/v1/peppol/invoice`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: bigBody(BIG) });
    await until("the second body to wait", () => budget.waiting() === 1);
    expect(await first.finish()).toMatch(/^HTTP\/1\.1 403/);
    const answered = await second;
    expect(answered.status).toBe(403);
    await until("the budget to be free", () => budget.inFlight() === 0 && budget.waiting() === 0);
  });

  it("a client that leaves while waiting leaves the queue; bodies without a key never take room (401 first)", async () => {
    const budget = createBodyBudget({ maxBytes: BIG, smallBytes: 64 * KiB, queueTimeoutMs: 10_000 });
    const { base, apiKey, port } = await start(budget);
    const first = slowSubmission(port, apiKey, bigBody(BIG), 10 * KiB);
    await until("the first body to hold the budget", () => budget.inFlight() === BIG);
    const leaving = slowSubmission(port, apiKey, bigBody(BIG), 0);
    await until("the second body to wait", () => budget.waiting() === 1);
    sockets[1]!.destroy();
    await until("the queue to be empty", () => budget.waiting() === 0);
    const noKey = await fetch(`${base}/v1/peppol/invoice`, { method: "POST", headers: { "content-type": "application/json" }, body: bigBody(BIG) });
    expect(noKey.status).toBe(401);
    expect(await first.finish()).toMatch(/^HTTP\/1\.1 403/);
    void leaving;
  });

  it("sign-ups, webhooks, API keys and the admin patch go through the same budget", async () => {
    const budget = createBodyBudget({ maxBytes: BIG, smallBytes: 64 * KiB, queueTimeoutMs: 200 });
    const { base, apiKey, port } = await start(budget);
    const first = slowSubmission(port, apiKey, bigBody(BIG), 10 * KiB);
    await until("the first body to hold the budget", () => budget.inFlight() === BIG);
    const big = Buffer.from(JSON.stringify({ pad: "x".repeat(BIG) }));
    for (const [method, path, token] of [
      ["POST", "/v1/accounts", null],
      ["POST", "/v1/webhooks", apiKey],
      ["POST", "/v1/api-keys", apiKey],
      ["PATCH", "/admin/companies/00000000-0000-4000-8000-000000000000", ADMIN_TOKEN],
    ] as const) {
      const res = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: big });
      expect(res.status, path).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe("server_busy");
    }
    expect(await first.finish()).toMatch(/^HTTP\/1\.1 403/);
  });
});
