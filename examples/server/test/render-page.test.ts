// An invoice's HTML page (GET /v1/invoices/{id}/document?format=html) in headless Chromium, under the page's own
// Content-Security-Policy: its styles apply, it asks for nothing else, and its screenshot is not blank.
import { existsSync, mkdtempSync, statSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStore } from "@einvoice/core";
import { openApiDocument } from "@einvoice/express";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { eligibleAccount } from "./support/helpers.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// CI installs Debian's chromium and must run this; elsewhere a machine without it skips it, saying so.
const available = existsSync(CHROMIUM) || process.env.CI === "true";
if (!available) console.warn(`render-page.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const ADMIN = "render-test-admin-token-1";

/** POST /v1/render's documented example: the invoice /docs offers to "Try it out". */
function documentedExample(): Record<string, unknown> {
  const op = (openApiDocument() as unknown as { paths: Record<string, { post: { requestBody: { content: { "application/json": { examples: Record<string, { value: Record<string, unknown> }> } } } } }> }).paths["/v1/render"]!.post;
  return op.requestBody.content["application/json"].examples["html"]!.value;
}

describe.skipIf(!available)("an invoice's HTML page in Chromium", () => {
  let server: Server;
  let base: string;
  let browser: Browser;
  let apiKey: string;
  let id: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is needed at ${CHROMIUM} in CI: apt-get install chromium (.ci/run does this)`);
    const app = createApp({ store: memoryStore(), adminToken: ADMIN });
    server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ apiKey } = await eligibleAccount(base, ADMIN));
    const example = documentedExample();
    // The documented example renders as it is.
    const preview = await fetch(`${base}/v1/render`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify(example) });
    expect(preview.status).toBe(200);
    const submit = await fetch(`${base}/v1/peppol/invoice`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ invoice: { ...(example["invoice"] as object), buyer: { ...((example["invoice"] as Record<string, object>)["buyer"] as object), endpoint: { scheme: "0106", id: "12345678" } } } }),
    });
    const body = (await submit.json()) as { data: { submissionId: string; status: string } };
    expect(body.data.status).toBe("sending");
    id = body.data.submissionId;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  });

  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it("renders with its styles under its CSP, loads nothing else, and is not blank on screen or in print", async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 1200 } });
    await page.setExtraHTTPHeaders({ authorization: `Bearer ${apiKey}` });
    const requests: string[] = [];
    const violations: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("console", (m) => {
      if (/Content.Security.Policy|Refused/i.test(m.text())) violations.push(m.text());
    });
    const url = `${base}/v1/invoices/${id}/document?format=html`;
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'unsafe-inline'; img-src data:/);
    // The buyer is in AT: German.
    expect(await page.locator("h1").innerText()).toMatch(/^Rechnung INV-2026-0001/);
    expect(await page.locator("table.lines tbody tr").count()).toBe(2);
    expect(await page.locator("tr.due td").innerText()).toMatch(/^2\.141,64\sEUR$/);
    // The inline style applies (18pt is 24px): the CSP lets the page's own style in.
    expect(await page.evaluate('getComputedStyle(document.querySelector("h1")).fontSize')).toBe("24px");
    expect(violations).toEqual([]);
    expect(requests).toEqual([url]);

    const dir = mkdtempSync(join(tmpdir(), "einvoice-render-"));
    const shot = join(dir, "invoice.png");
    await page.screenshot({ path: shot, fullPage: true });
    const blank = await browser.newPage({ viewport: { width: 900, height: 1200 } });
    const blankShot = join(dir, "blank.png");
    await blank.setContent("<!DOCTYPE html><html><body></body></html>");
    await blank.screenshot({ path: blankShot, fullPage: true });
    // A white page compresses to almost nothing; the invoice's text does not.
    expect(statSync(shot).size).toBeGreaterThan(Math.max(20_000, 5 * statSync(blankShot).size));
    // Printed on A4: the lines' header is a table-header-group, so it repeats on each page.
    await page.emulateMedia({ media: "print" });
    expect(await page.evaluate('getComputedStyle(document.querySelector("table.lines thead")).display')).toBe("table-header-group");
    const pdf = await page.pdf({ format: "A4", preferCSSPageSize: true });
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    await blank.close();
    await page.close();
  }, 60_000);
});
