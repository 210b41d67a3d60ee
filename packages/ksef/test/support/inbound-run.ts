// Test support: the poller's side of an InboundSource run, in memory: `store` keeps each KSeF number once (a second
// time answers duplicate), `checkpoint` records every save (and can be made to fail, as a lost lease or a kill -9
// between storing and saving would), the backfill requests taken are dropped as the store would.
import type { BackfillRequest, Company, InboundRunResult, InboundSource, ReceivedDocument, StoredOutcome } from "@einvoice/core";

export const COMPANY_ID = "7d0c5d4e-1f7a-4c1e-9a57-0c3f2f1a0042";

export function plCompany(nip: string): Company {
  return {
    id: COMPANY_ID,
    name: "Nabywca S.A.",
    country: "PL",
    enterprise: false,
    subscription: "free",
    legalEntityId: null,
    peppolSendingEnabled: false,
    ksef: { nip, tokenCiphertext: "v1.x.y.z.w", updatedAt: "2026-11-01T00:00:00.000Z" },
    createdAt: "2026-11-01T00:00:00.000Z",
    updatedAt: "2026-11-01T00:00:00.000Z",
  } as unknown as Company;
}

export interface Harness {
  /** The documents stored, by KSeF number. */
  stored: Map<string, ReceivedDocument>;
  /** Every `store` call's KSeF number and outcome, in order. */
  storeCalls: { ksefNumber: string; outcome: StoredOutcome["outcome"] }[];
  /** Every checkpoint, in order. */
  checkpoints: { state: string; taken?: string[] }[];
  /** The state the store holds (the last checkpoint, or the last run's end). */
  state: string | null;
  requests: BackfillRequest[];
  /** The checkpoint numbered `n` (1-based, from now on) rejects, and so does the run's end (a kill -9 after it). */
  cutAtCheckpoint(n: number): void;
  /** One run, as the poller makes it: its end's state kept unless the run was cut. */
  run(): Promise<InboundRunResult>;
  results: InboundRunResult[];
}

export function harness(source: InboundSource, credential: { nip: string; token: string }): Harness {
  let cutAt: number | null = null;
  let cut = false;
  const h: Harness = {
    stored: new Map(),
    storeCalls: [],
    checkpoints: [],
    state: null,
    requests: [],
    results: [],
    cutAtCheckpoint(n) {
      cutAt = n;
    },
    async run() {
      cut = false;
      const company = plCompany(credential.nip);
      const result = await source.run({
        scope: COMPANY_ID,
        company,
        ksefCredential: credential,
        state: h.state,
        requests: [...h.requests],
        signal: new AbortController().signal,
        async store(doc) {
          const ksefNumber = (doc.reference as { ksefNumber: string }).ksefNumber;
          const had = h.stored.has(ksefNumber);
          if (!had) h.stored.set(ksefNumber, doc);
          const outcome: StoredOutcome = had ? { outcome: "duplicate", invoiceId: ksefNumber } : { outcome: "stored", invoiceId: ksefNumber };
          h.storeCalls.push({ ksefNumber, outcome: outcome.outcome });
          return outcome;
        },
        async checkpoint(state, taken) {
          if (cutAt !== null && --cutAt <= 0) {
            cutAt = null;
            cut = true;
            throw new Error("lease lost");
          }
          if (cut) throw new Error("lease lost");
          h.checkpoints.push({ state, ...(taken ? { taken } : {}) });
          h.state = state;
          if (taken) h.requests = h.requests.filter((r) => !taken.includes(r.id));
        },
      });
      h.results.push(result);
      if (!cut) {
        h.state = result.state;
        if (result.takenRequests) h.requests = h.requests.filter((r) => !result.takenRequests!.includes(r.id));
      }
      return result;
    },
  };
  return h;
}
