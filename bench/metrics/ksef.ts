// ksef_mapping_vs_parse, ksef_send_seconds: the UBL → FA(3) mapping of @einvoice/ksef (readUbl + toFa3)
// against a bare xmldom parse of the same bytes, and one full send of ksefNetwork against the fake
// KSeF of its tests (authentication cached after the first; the fake decrypts and validates the FA(3)
// against the official XSD before it decides, as KSeF does asynchronously).
import { randomUUID } from "node:crypto";
import { DOMParser } from "@xmldom/xmldom";
import { documentModel } from "../../packages/core/src/index.ts";
import { ksefNetwork, readUbl, toFa3 } from "../../packages/ksef/src/index.ts";
import { startFakeKsef } from "../../packages/ksef/test/support/fake-ksef.ts";
import { ublInvoice, type GenLine } from "../../packages/ksef/test/support/ubl.ts";
import { alternate, median, nowMs, perCallSync, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const BATCH = 200;
const NIP = "5260250995";
const TOKEN = "bench-token";

/** A Polish invoice of 20 lines over four rates. */
function invoice(id: string): string {
  const rates = ["23", "8", "5", "0"];
  const lines: GenLine[] = Array.from({ length: 20 }, (_, i) => {
    const r = rates[i % 4]!;
    return { name: `Towar ${i + 1}`, quantity: String(1 + (i % 5)), price: `${10 + i}.${String(i * 7 % 100).padStart(2, "0")}`, cat: r === "0" ? { id: "Z", percent: "0" } : { id: "S", percent: r } };
  });
  return ublInvoice({ id, lines }).xml;
}

export async function ksefMetrics(): Promise<Record<string, Metric>> {
  const bytes = Array.from({ length: BATCH }, (_, i) => Buffer.from(invoice(`FV/BENCH/${i}`), "utf8"));
  const createdAt = new Date();
  const xmldom = (b: Buffer) => new DOMParser().parseFromString(b.toString("utf8"), "application/xml");
  const mapping = await alternate({
    rounds: 15,
    warmup: 3,
    a: () => perCallSync(BATCH, (i) => toFa3(readUbl(bytes[i]!), { createdAt })),
    b: () => perCallSync(BATCH, (i) => xmldom(bytes[i]!)),
  });

  const fake = await startFakeKsef({ nip: NIP, token: TOKEN });
  const network = ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20 });
  const sends: number[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const id = randomUUID();
      let state: string | null = null;
      const document = Buffer.from(invoice(`FV/SEND/${id.slice(0, 8)}`), "utf8");
      const t = nowMs();
      const o = await network.send({
        submissionId: id,
        idempotencyKey: id,
        document,
        model: documentModel(document),
        routing: { network: "ksef", recipient: { scheme: "9945", value: "PL5213017228" } },
        companyId: "bench",
        legalEntityId: "1",
        attempt: 1,
        state,
        saveState: async (s) => void (state = s),
      });
      if (o.outcome !== "delivered") throw new Error(`the send was not delivered: ${JSON.stringify(o)}`);
      sends.push((nowMs() - t) / 1000);
    }
  } finally {
    await fake.close();
  }
  const ms = (x: number) => `${round(x * 1000, 0)} us`;
  const warm = median(sends.slice(1));
  return {
    ksef_mapping_vs_parse: {
      value: round(mapping.ratio),
      goal: "<= 3",
      ok: mapping.ratio <= 3,
      note: `readUbl + toFa3 ${ms(median(mapping.a))}/invoice vs xmldom parse ${ms(median(mapping.b))} (20 lines, 4 rates, ${bytes[0]!.length} B)`,
    },
    ksef_send_seconds: {
      value: round(warm, 2),
      goal: "<= 2",
      ok: warm <= 2,
      note: `one send against the fake KSeF, authenticated (the first, with authentication: ${round(sends[0]!, 2)} s): session, upload, close, status, UPO; the fake's XSD check included`,
      detail: { seconds: sends },
    },
  };
}
