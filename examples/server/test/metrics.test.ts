// GET /metrics on the example server: the Prometheus text format through prom-client, each einvoice
// metric counted by what the server did, the default process metrics, METRICS_TOKEN and METRICS=off.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json } from "./support/server-process.js";
import { serverSuite } from "./support/server-suite.js";

const ADMIN = "metrics-test-admin-token-0123456789";
const TOKEN = "metrics-token-0123456789abcdef";

/** The value of one sample (`name{labels} value`), or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe("GET /metrics", () => {
  const suite = serverSuite("metrics", { ADMIN_TOKEN: ADMIN });

  const scrape = async (token: string | null = TOKEN) => {
    const res = await fetch(`${suite.server.base}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };

  it("with METRICS_TOKEN: 401 without the token, the text format with it; every einvoice metric counts what happened", async () => {
    const receiver = await suite.receiver();
    const server = await suite.start({
      METRICS_TOKEN: TOKEN,
      SANDBOX_DELAY_MS: "20",
      WEBHOOK_ALLOW_PRIVATE: "true",
      SIGNUP_RATE_LIMIT_PER_HOUR: "2",
    });
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape("wrong-token-0123456789abcdef00")).status).toBe(401);
    const empty = await scrape();
    expect(empty.status).toBe(200);
    expect(empty.type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      "einvoice_submissions_total",
      "einvoice_delivery_attempts_total",
      "einvoice_delivery_duration_seconds",
      "einvoice_queue_depth",
      "einvoice_webhook_deliveries_total",
      "einvoice_validation_duration_seconds",
      "einvoice_rate_limited_total",
      "process_cpu_user_seconds_total",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(empty.text).toContain(`# TYPE ${name} `);
    }
    expect(sample(empty.text, "einvoice_queue_depth")).toBe(0);

    const { apiKey } = await eligibleAccount(server.base, ADMIN);
    expect((await json(server.base, "POST", "/v1/webhooks", { url: receiver.url }, apiKey)).status).toBe(201);
    const xml = invoiceB64(`MET-${randomUUID()}`);
    const sent = await json(server.base, "POST", "/v1/peppol/invoice", { xml }, apiKey);
    expect(sent.body.data.status).toBe("sending");
    expect((await json(server.base, "POST", "/v1/peppol/invoice", { xml }, apiKey)).body.data.status).toBe("failed"); // a duplicate
    expect((await json(server.base, "POST", "/v1/validate", { xml }, apiKey)).status).toBe(200);
    // Sign-ups: the account above was the first of two an hour; the third is refused.
    await json(server.base, "POST", "/v1/accounts", { email: `${randomUUID()}@example.com`, companyName: "B", country: "NL" });
    expect((await json(server.base, "POST", "/v1/accounts", { email: `${randomUUID()}@example.com`, companyName: "C", country: "NL" })).status).toBe(429);

    const text = await waitFor("the delivery and its webhook to be counted", async () => {
      const t = (await scrape()).text;
      return sample(t, 'einvoice_webhook_deliveries_total{outcome="delivered"}') === 1 ? t : undefined;
    });
    expect(sample(text, 'einvoice_submissions_total{network="peppol",status="sending"}')).toBe(1);
    expect(sample(text, 'einvoice_submissions_total{network="peppol",status="failed"}')).toBe(1);
    expect(sample(text, 'einvoice_delivery_attempts_total{network="peppol",outcome="delivered"}')).toBe(1);
    expect(sample(text, 'einvoice_delivery_duration_seconds_count{network="peppol"}')).toBe(1);
    expect(sample(text, 'einvoice_delivery_duration_seconds_sum{network="peppol"}')).toBeGreaterThan(0);
    // Read and checked three times: the submission, the duplicate, the validation.
    expect(sample(text, "einvoice_validation_duration_seconds_count")).toBe(3);
    expect(sample(text, 'einvoice_rate_limited_total{limit="sign-up"}')).toBe(1);
    expect(sample(text, "einvoice_queue_depth")).toBe(0);
  }, 120_000);

  it("METRICS=off: no /metrics route (404)", async () => {
    await suite.start({ METRICS: "off", DISPATCHER: "off" });
    expect((await scrape()).status).toBe(404);
  }, 120_000);
});
