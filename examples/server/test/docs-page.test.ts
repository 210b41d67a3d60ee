// The API reference page renders in headless Chromium, from local assets only, and shows the submit operation.
import { existsSync, mkdtempSync, statSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStore } from "@einvoice/core";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// CI installs Debian's chromium and must run this; elsewhere a machine without it skips it, saying so.
const available = existsSync(CHROMIUM) || process.env.CI === "true";
if (!available) console.warn(`docs-page.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!available)("GET /docs", () => {
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is needed at ${CHROMIUM} in CI: apt-get install chromium (.ci/run does this)`);
    const app = createApp({ store: memoryStore(), adminToken: "docs-test-admin-token-1" });
    server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  });

  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it("renders the reference from local assets and shows the submit operation", async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(base)) foreign.push(r.url());
    });
    await page.goto(`${base}/docs`);
    const submit = page.locator(".opblock-summary-path", { hasText: "/v1/peppol/invoice" });
    await submit.first().waitFor({ timeout: 20_000 });
    expect(await page.locator(".opblock-summary-description", { hasText: "Submit one invoice: UBL, CII or Factur-X" }).count()).toBe(1);
    expect(await page.locator(".info .title").innerText()).toMatch(/einvoice API/);
    // The introduction links an invoice rendered for people: POST /v1/render, whose example body renders as it is.
    expect(await page.locator('.info a[href="#/default/renderInvoice"]').count()).toBe(1);
    expect(await page.locator(".opblock-summary-path", { hasText: "/v1/render" }).count()).toBe(1);
    const shot = join(mkdtempSync(join(tmpdir(), "einvoice-docs-")), "docs.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(20_000);
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it("answers a missing asset with the JSON 404, never a server path", async () => {
    const res = await fetch(`${base}/docs/assets/nope.js`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).not.toMatch(/node_modules|\/work\/|ENOENT/);
    expect(JSON.parse(text)).toEqual({ code: "route_not_found", message: "Cannot GET /docs/assets/nope.js" });
  });
});
