import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { b64, invoiceXml } from "../support/ubl.js";
import { ApiError } from "../../src/domain/errors.js";
import { closeInvoiceWorkers, configureInvoiceWorkers, invoiceWorkerCount, readInvoiceAsync } from "../../src/document/default-pool.js";
import { createInvoiceWorkers, DEFAULT_WORKER_THRESHOLD } from "../../src/document/pool.js";
import { readInvoice } from "../../src/document/read.js";
import type { XmlLimits } from "../../src/document/xml.js";

const here = dirname(fileURLToPath(import.meta.url));
const coreRoot = join(here, "..", "..");
const repoRoot = join(coreRoot, "..", "..");
/** The default pool's module, for the scripts run in a child process. */
const DEFAULT_POOL_MODULE = pathToFileURL(join(coreRoot, "src", "document", "default-pool.ts")).href;

/** An invoice of about `bytes` bytes (a complete, valid invoice with as many lines as it takes). */
function largeXml(bytes: number, id = "LARGE-1"): string {
  const one = invoiceXml({ id, buyerVat: "BE0123456749", lines: 1 }).length;
  const two = invoiceXml({ id, buyerVat: "BE0123456749", lines: 2 }).length;
  return invoiceXml({ id, buyerVat: "BE0123456749", lines: Math.max(1, Math.ceil((bytes - one) / (two - one)) + 1) });
}

/** The error a call fails with (sync or async), or null. */
async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return null;
}

const NUL_LIMITS = null as unknown as XmlLimits;
const SMALL_LIMITS: XmlLimits = { maxBytes: 1024, maxDepth: 256, maxElements: 1000, maxAttributes: 10 };

/** One input per error the pipeline reports, with the code it must keep through the worker. */
const ERROR_CASES: Array<[string, string, XmlLimits | undefined, string]> = [
  ["bad base64", "!!!!" + b64(invoiceXml()), undefined, "invalid_base64_xml"],
  ["bytes that are not UTF-8", b64(Buffer.from([0x3c, 0x61, 0xff, 0x3e])), undefined, "invalid_base64_xml"],
  ["text that is not XML", b64("hello, not xml"), undefined, "invalid_base64_xml"],
  ["a ZIP archive", b64(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00])), undefined, "single_xml_only"],
  ["two documents", b64(invoiceXml() + invoiceXml()), undefined, "single_xml_only"],
  ["malformed XML", b64("<Invoice><broken></Invoice>"), undefined, "invalid_ubl_xml"],
  ["a DOCTYPE", b64(`<!DOCTYPE x [<!ENTITY a "b">]>` + invoiceXml({ declaration: false })), undefined, "invalid_ubl_xml"],
  ["a credit note root", b64(invoiceXml().replace(/Invoice/g, "CreditNote")), undefined, "invalid_ubl_xml"],
  ["a document over the size limit", b64(invoiceXml()), SMALL_LIMITS, "invalid_ubl_xml"],
  ["a recipient without a Peppol scheme", b64(invoiceXml({ scheme: "EM" })), undefined, "missing_recipient"],
];

afterEach(async () => {
  configureInvoiceWorkers({ threshold: DEFAULT_WORKER_THRESHOLD, size: 1 });
  await closeInvoiceWorkers();
});

describe("readInvoiceAsync: large documents on a worker thread", () => {
  it("reads a document above the threshold on a worker, with the result readInvoice gives", async () => {
    const xml = b64(largeXml(DEFAULT_WORKER_THRESHOLD + 64 * 1024));
    const inline = readInvoice(xml);
    const worker = await readInvoiceAsync(xml);
    expect(invoiceWorkerCount()).toBe(1);
    expect(worker.bytes.equals(inline.bytes)).toBe(true);
    expect(worker.bytes.byteOffset).toBe(0);
    expect(worker.bytes.buffer.byteLength).toBe(worker.bytes.length); // the transferred buffer, no pool slack
    expect(worker.sha256).toBe(inline.sha256);
    expect(worker.recipient).toEqual(inline.recipient);
    expect(worker.fields).toEqual(inline.fields);
    expect(worker.fields.recipient.vatId).toBe("BE0123456749");
  });

  it("reads a document at or below the threshold on the calling thread", async () => {
    const r = await readInvoiceAsync(b64(invoiceXml()));
    expect(r.recipient!.value).toBe("0123456749");
    expect(invoiceWorkerCount()).toBe(0);
  });

  it("keeps the code and message of every pipeline error", async () => {
    configureInvoiceWorkers({ threshold: 0 });
    for (const [name, xml, limits, code] of ERROR_CASES) {
      const inline = await failure(() => readInvoice(xml, limits));
      const worker = await failure(() => readInvoiceAsync(xml, limits));
      expect(inline, name).toBeInstanceOf(ApiError);
      expect(worker, name).toBeInstanceOf(ApiError);
      expect((worker as ApiError).code, name).toBe(code);
      expect((worker as ApiError).code, name).toBe((inline as ApiError).code);
      expect((worker as ApiError).message, name).toBe((inline as ApiError).message);
      expect((worker as ApiError).status, name).toBe(422);
    }
    expect(new Set(ERROR_CASES.map((c) => c[3]))).toEqual(new Set(["invalid_base64_xml", "single_xml_only", "invalid_ubl_xml", "missing_recipient"]));
    expect(invoiceWorkerCount()).toBe(1); // all of them went through the worker
  });

  it("rebuilds an unexpected error with its name and message", async () => {
    configureInvoiceWorkers({ threshold: 0 });
    const inline = (await failure(() => readInvoice(b64(invoiceXml()), NUL_LIMITS))) as Error;
    const worker = (await failure(() => readInvoiceAsync(b64(invoiceXml()), NUL_LIMITS))) as Error;
    expect(inline).toBeInstanceOf(TypeError);
    expect(worker).not.toBeInstanceOf(ApiError);
    expect(worker.name).toBe("TypeError");
    expect(worker.message).toBe(inline.message);
  });

  it("gives each of many concurrent documents its own result", async () => {
    configureInvoiceWorkers({ threshold: 0, size: 2 });
    const xmls = Array.from({ length: 12 }, (_, i) => b64(invoiceXml({ id: `INV-${i}`, endpoint: `BE${i}`, scheme: "0106" })));
    const results = await Promise.all(xmls.map((x) => readInvoiceAsync(x)));
    expect(invoiceWorkerCount()).toBe(2);
    results.forEach((r, i) => {
      expect(r.fields.invoiceNumber).toBe(`INV-${i}`);
      expect(r.recipient!.value).toBe(`BE${i}`);
      expect(r.sha256).toBe(readInvoice(xmls[i]!).sha256);
    });
  });

  it("closeInvoiceWorkers waits for documents being read, then ends the workers", async () => {
    configureInvoiceWorkers({ threshold: 0 });
    const reading = readInvoiceAsync(b64(invoiceXml()));
    await closeInvoiceWorkers();
    expect((await reading).recipient!.value).toBe("0123456749");
    expect(invoiceWorkerCount()).toBe(0);
    // The pool starts again on the next document.
    expect((await readInvoiceAsync(b64(invoiceXml({ endpoint: "X1", scheme: "0106" })))).recipient!.value).toBe("X1");
    expect(invoiceWorkerCount()).toBe(1);
  });

  it("ends an idle worker after the idle timeout", async () => {
    configureInvoiceWorkers({ threshold: 0, idleTimeoutMs: 20 });
    await readInvoiceAsync(b64(invoiceXml()));
    expect(invoiceWorkerCount()).toBe(1);
    await expect.poll(() => invoiceWorkerCount(), { timeout: 5000, interval: 20 }).toBe(0);
  });

  it("does not keep the process alive: a script that never closes the pool exits (from TypeScript source)", () => {
    const script = `
      import { readInvoiceAsync, configureInvoiceWorkers, invoiceWorkerCount } from ${JSON.stringify(DEFAULT_POOL_MODULE)};
      configureInvoiceWorkers({ threshold: 0 });
      const r = await readInvoiceAsync(${JSON.stringify(b64(invoiceXml({ endpoint: "CHILD", scheme: "0106" })))});
      console.log(r.recipient.value, invoiceWorkerCount());`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.error).toBeUndefined(); // a timeout would mean the worker held the process
    expect(run.stderr).not.toMatch(/could not start/);
    expect(run.stdout.trim()).toBe("CHILD 1");
    expect(run.status).toBe(0);
  });
});

describe("the invoice workers under V8 flags", () => {
  // A V8 flag such as --max-old-space-size is common in production. Node refuses one in a worker's
  // execArgv (ERR_WORKER_INVALID_EXEC_ARGV): passed on, it made every document above the threshold
  // fail (a 500 on the HTTP API).
  const script = (endpoint: string) => `
    import { readInvoiceAsync, configureInvoiceWorkers, invoiceWorkerCount, closeInvoiceWorkers } from ${JSON.stringify(DEFAULT_POOL_MODULE)};
    configureInvoiceWorkers({ threshold: 0 });
    const r = await readInvoiceAsync(${JSON.stringify(b64(invoiceXml({ endpoint, scheme: "0106" })))});
    console.log(r.recipient.value, invoiceWorkerCount());
    await closeInvoiceWorkers();`;

  it("reads on a worker thread in a process started with --max-old-space-size and --stack-trace-limit (a script file)", () => {
    const dir = join(coreRoot, "node_modules", ".cache", `einvoice-v8-flags-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const file = join(dir, "read.mts");
      writeFileSync(file, script("V8FILE"));
      const run = spawnSync(process.execPath, ["--max-old-space-size=512", "--stack-trace-limit=20", "--import", "tsx", file], { cwd: repoRoot, encoding: "utf8", timeout: 30_000 });
      expect(run.stderr).not.toMatch(/could not start|ERR_WORKER_INVALID_EXEC_ARGV/);
      expect(run.stdout.trim(), run.stderr).toBe("V8FILE 1");
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads on a worker thread in a process started with a V8 flag and --input-type (code given with -e): the flags a worker refuses are left out", () => {
    const run = spawnSync(process.execPath, ["--max-old-space-size=512", "--import", "tsx", "--input-type=module", "-e", script("V8EVAL")], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.stderr).not.toMatch(/could not start|ERR_WORKER_INVALID_EXEC_ARGV/);
    expect(run.stdout.trim(), run.stderr).toBe("V8EVAL 1");
    expect(run.status).toBe(0);
  });
});

describe("a worker that Node cannot start", () => {
  it("reads the documents on the calling thread from then on, with a warning, and the process ends cleanly", () => {
    const script = `
      import { readInvoiceAsync, configureInvoiceWorkers, invoiceWorkerCount, closeInvoiceWorkers } from ${JSON.stringify(DEFAULT_POOL_MODULE)};
      configureInvoiceWorkers({ threshold: 0 });
      const first = await readInvoiceAsync(${JSON.stringify(b64(invoiceXml({ endpoint: "INLINE1", scheme: "0106" })))});
      const second = await readInvoiceAsync(${JSON.stringify(b64(invoiceXml({ endpoint: "INLINE2", scheme: "0106" })))});
      console.log(first.recipient.value, second.recipient.value, invoiceWorkerCount());
      await closeInvoiceWorkers();`;
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "--import", pathToFileURL(join(here, "..", "support", "refuse-workers.mjs")).href, "--input-type=module", "-e", script],
      { cwd: repoRoot, encoding: "utf8", timeout: 30_000 },
    );
    expect(run.stdout.trim(), run.stderr).toBe("INLINE1 INLINE2 0");
    expect(run.stderr).toMatch(/the invoice worker could not start \(Worker initialization failure: EMFILE\); large documents are read on the main thread/);
    expect(run.status).toBe(0);
  });
});

describe("the invoice worker in the built package", () => {
  it("is emitted by tsup beside the bundle and found from it; without it documents are read inline, with a warning", async () => {
    const outDir = join(coreRoot, "node_modules", ".cache", `einvoice-pool-test-${process.pid}`);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    try {
      const { build } = await import("tsup");
      const config = (await import("../../tsup.config.js")).default as Record<string, unknown>;
      const entry = Object.fromEntries(Object.entries(config.entry as Record<string, string>).map(([k, v]) => [k, join(coreRoot, v)]));
      await build({ ...config, entry, config: false, outDir, dts: false, sourcemap: false, silent: true, clean: false });
      const check = join(outDir, "check.mjs");
      writeFileSync(
        check,
        `import { readInvoice, readInvoiceAsync, configureInvoiceWorkers } from "./index.js";
         configureInvoiceWorkers({ threshold: 0 });
         const xml = ${JSON.stringify(b64(invoiceXml({ endpoint: "BUILT", scheme: "0106" })))};
         const r = await readInvoiceAsync(xml);
         const e = await readInvoiceAsync("!!!!").catch((e) => e);
         console.log(r.recipient.value, r.sha256 === readInvoice(xml).sha256, e.constructor.name, e.code);`,
      );
      const run = spawnSync(process.execPath, [check], { cwd: outDir, encoding: "utf8", timeout: 30_000 });
      expect(run.stderr).not.toMatch(/could not start/);
      expect(run.stdout.trim(), run.stderr).toBe("BUILT true ApiError invalid_base64_xml");
      expect(run.status).toBe(0);
      // A bundle without the worker file (a bundler that left it out): the same answers, read on the
      // calling thread, with one warning.
      rmSync(join(outDir, "invoice-worker.js"));
      const without = spawnSync(process.execPath, [check], { cwd: outDir, encoding: "utf8", timeout: 30_000 });
      expect(without.stdout.trim(), without.stderr).toBe("BUILT true ApiError invalid_base64_xml");
      expect(without.stderr).toMatch(/the invoice worker could not start .*large documents are read on the main thread/);
      expect(without.status).toBe(0);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("createInvoiceWorkers: a pool per instance", () => {
  it("reads with its own options, beside the default pool, and ends its threads on close", async () => {
    const own = createInvoiceWorkers({ threshold: 0, size: 1 });
    try {
      const xml = b64(invoiceXml({ endpoint: "OWN", scheme: "0106" }));
      const r = await own.readInvoice(xml);
      expect(r.recipient!.value).toBe("OWN");
      expect(r.sha256).toBe(readInvoice(xml).sha256);
      expect(own.threadCount).toBe(1);
      expect(invoiceWorkerCount()).toBe(0); // the default pool was not used
      const e = await failure(() => own.readInvoice("!!!!" + xml));
      expect((e as ApiError).code).toBe("invalid_base64_xml");
    } finally {
      await own.close();
    }
    expect(own.threadCount).toBe(0);
  });
});
