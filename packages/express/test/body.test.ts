// How the submit route reads its body, over real HTTP: the chunks are kept as they arrive (a large
// body is joined on the worker that reads it, not on the event loop), the 10 MiB limit holds for
// bodies without a Content-Length, a body cut off is refused, and compressed bodies still work.
import { once } from "node:events";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { ApiError, closeInvoiceWorkers, memoryStore } from "@einvoice/core";
import express, { type NextFunction, type Request, type Response } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawJsonBody } from "../src/middleware/body.js";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

const MiB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Answer {
  status: number;
  body: unknown;
}

/** Starts `app` on a loopback port. */
async function listen(app: express.Express): Promise<{ server: Server; port: number }> {
  const server = createServer(app).listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * POSTs `pieces` as separate writes (without a Content-Length unless one is given: then the body
 * goes chunked), waiting a tick between them so they arrive as separate reads.
 */
function post(port: number, path: string, headers: Record<string, string | number>, pieces: Buffer[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
      });
    });
    req.on("error", reject);
    void (async () => {
      for (const p of pieces) {
        if (!req.write(p)) await once(req, "drain");
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    })();
  });
}

/** A large invoice (about `kib` KiB of XML: long enough for the worker) as its XML text. */
function largeXml(kib: number, id: string): string {
  return invoiceXml({ id }).replace("<cbc:ID>", `<cbc:Note>${"n".repeat(kib * 1024)}</cbc:Note><cbc:ID>`);
}

/** `bytes` cut into pieces of `size` bytes. */
function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

afterAll(() => {
  // Every answer of the app here is described by the OpenAPI document, status and body.
  expect(answers.length).toBeGreaterThan(4);
  expect(undocumentedAnswers(answers)).toEqual([]);
});

describe("the submit route over HTTP", () => {
  let server: Server;
  let port: number;
  let apiKey: string;
  let documents: ReadonlyMap<string, Uint8Array>;
  const headers = () => ({ "content-type": "application/json", authorization: `Bearer ${apiKey}` });

  beforeAll(async () => {
    const store = memoryStore();
    const made = makeApp({ store });
    documents = store.documents;
    apiKey = (await eligibleAccount(made.app)).apiKey;
    ({ server, port } = await listen(made.app));
  });

  afterAll(async () => {
    server.close();
    await closeInvoiceWorkers();
  });

  it("a large invoice sent chunked in 64 KiB pieces → 200 sending, and the stored document is byte for byte the one sent", async () => {
    const xml = largeXml(900, "BODY-CHUNKED");
    const body = Buffer.from(JSON.stringify({ xml: b64(xml) }));
    const answer = await post(port, "/v1/peppol/invoice", headers(), pieces(body, 64 * 1024));
    expect(answer).toEqual({ status: 200, body: { data: { submissionId: expect.stringMatching(UUID), success: true, status: "sending" } } });
    const id = (answer.body as { data: { submissionId: string } }).data.submissionId;
    expect(Buffer.from(documents.get(id)!).equals(Buffer.from(xml))).toBe(true);
  });

  it("the same large invoice with a Content-Length, in one write → 200, the document again byte for byte", async () => {
    const xml = largeXml(900, "BODY-WHOLE");
    const body = Buffer.from(JSON.stringify({ xml: b64(xml), targetNetwork: "peppol" }));
    const answer = await post(port, "/v1/peppol/invoice", { ...headers(), "content-length": body.length }, [body]);
    expect(answer.status).toBe(200);
    const id = (answer.body as { data: { submissionId: string } }).data.submissionId;
    expect(Buffer.from(documents.get(id)!).equals(Buffer.from(xml))).toBe(true);
  });

  it("a chunked body over 10 MiB → 413 Payload Too Large once it has been read, and nothing is stored", async () => {
    const before = documents.size;
    const body = Buffer.from(JSON.stringify({ xml: b64(largeXml(8 * 1024, "BODY-OVER")) }));
    expect(body.length).toBeGreaterThan(10 * MiB);
    const answer = await post(port, "/v1/peppol/invoice", headers(), pieces(body, MiB));
    expect(answer).toEqual({ status: 413, body: { statusCode: 413, message: expect.stringMatching(/10 MiB/), error: "Payload Too Large" } });
    expect(documents.size).toBe(before);
  });

  it("a gzip-compressed body (Content-Encoding: gzip) is inflated and submitted → 200 sending", async () => {
    const xml = invoiceXml({ id: "BODY-GZIP" });
    const body = gzipSync(JSON.stringify({ xml: b64(xml) }));
    const answer = await post(port, "/v1/peppol/invoice", { ...headers(), "content-encoding": "gzip", "content-length": body.length }, [body]);
    expect(answer).toEqual({ status: 200, body: { data: { submissionId: expect.stringMatching(UUID), success: true, status: "sending" } } });
    const id = (answer.body as { data: { submissionId: string } }).data.submissionId;
    expect(Buffer.from(documents.get(id)!).toString()).toBe(xml);
  });
});

describe("rawJsonBody", () => {
  let server: Server;
  let port: number;
  /** What reached the route, and what reached the error middleware. */
  const seen: Array<{ chunks: number; bytes: string } | { error: string }> = [];

  beforeAll(async () => {
    const app = express();
    app.post("/echo", ...rawJsonBody(1024), (req: Request, res: Response) => {
      const body = req.body as Buffer[];
      seen.push({ chunks: body.length, bytes: Buffer.concat(body).toString() });
      res.json({ chunks: body.length, isArray: Array.isArray(body) });
    });
    app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
      seen.push({ error: err instanceof ApiError ? `${err.status} ${err.message}` : String(err) });
      res.status(err instanceof ApiError ? err.status : 500).json({ code: err instanceof ApiError ? err.code : "internal" });
    });
    ({ server, port } = await listen(app));
  });

  afterAll(() => {
    server.close();
  });

  it("gives the route the chunks as they arrived, not joined: one Buffer per read", async () => {
    seen.length = 0;
    const parts = ['{"xml":', '"QUJD"', ',"targetNetwork":"auto"}'].map((s) => Buffer.from(s));
    const answer = await post(port, "/echo", { "content-type": "application/json" }, parts);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ isArray: true });
    expect((answer.body as { chunks: number }).chunks).toBeGreaterThan(1);
    expect(seen).toEqual([{ chunks: (answer.body as { chunks: number }).chunks, bytes: Buffer.concat(parts).toString() }]);
  });

  it("refuses a chunked body over the limit with 413 after reading it to its end, so the answer still arrives", async () => {
    seen.length = 0;
    const answer = await post(port, "/echo", { "content-type": "application/json" }, [Buffer.alloc(600, 0x20), Buffer.alloc(600, 0x20), Buffer.alloc(600, 0x20)]);
    expect(answer).toEqual({ status: 413, body: { code: "payload_too_large" } });
    expect(seen).toEqual([{ error: expect.stringMatching(/^413 /) }]);
  });

  it("a body cut off before its end (the client goes away) reaches the route never, and is a 400 'not received whole'", async () => {
    seen.length = 0;
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    // The client goes away once the server has the request (its headers and part of its body).
    const received = once(server, "request");
    socket.write(`POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${"{".padEnd(400, " ")}`);
    await received;
    socket.destroy();
    const deadline = Date.now() + 10_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([{ error: "400 Request body was not received whole." }]);
  });

  it("leaves a body in another content type to the next check (req.body undefined: 400 Content-Type must be application/json)", async () => {
    seen.length = 0;
    const answer = await post(port, "/echo", { "content-type": "text/plain" }, [Buffer.from("{}")]);
    expect(answer).toEqual({ status: 400, body: { code: "bad_request" } });
    expect(seen).toEqual([{ error: "400 Content-Type must be application/json." }]);
  });
});
