// The stream of large submissions for latency_under_large, in its own process: writing an 8 MiB
// body blocks the writer's event loop for milliseconds, which must not land in the latencies of
// the small submissions measured by the parent. Posts one large invoice after another (each a
// distinct document, each must be answered 200 with success) until told to stop, then reports
// how long each took.
import { request, Agent } from "node:http";
import { largeInvoice } from "../lib/corpus.ts";
import { distinctBase64, invoiceBody } from "../lib/setup.ts";
import { nowMs } from "../lib/stats.ts";

const [url, apiKey, lines, prefix] = process.argv.slice(2) as [string, string, string, string];
const next = distinctBase64(largeInvoice(Number(lines)), prefix);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies: number[] = [];
let stopping = false;

const post = (body: string) =>
  new Promise<void>((resolve, reject) => {
    const t = nowMs();
    const req = request(
      `${url}/v1/peppol/invoice`,
      { method: "POST", agent, headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}`, "content-length": Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200 || !text.includes('"success":true')) reject(new Error(`large submission: ${res.statusCode} ${text.slice(0, 200)}`));
          else {
            latencies.push(nowMs() - t);
            resolve();
          }
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });

process.on("message", (m) => {
  if (m === "stop") stopping = true;
});
process.on("disconnect", () => process.exit(1));
process.send!("started");
try {
  while (!stopping) await post(invoiceBody(next()));
  process.send!({ latencies });
} catch (e) {
  process.send!({ error: (e as Error).message });
}
agent.destroy();
process.disconnect();
