// A store with an eligible company and a fake clock, for use-case tests.
import { authenticate, createAccount, memoryStore, updateCompany, type AuthContext, type CoreOptions, type Store } from "../../src/index.js";

export function fakeClock(start = Date.UTC(2026, 0, 1)): { now: () => Date; advance: (ms: number) => void } {
  let t = start;
  return { now: () => new Date(t), advance: (ms) => (t += ms) };
}

export interface Setup {
  store: Store;
  auth: AuthContext;
  apiKey: string;
  companyId: string;
  options: CoreOptions;
  clock: ReturnType<typeof fakeClock>;
}

export const ELIGIBLE = { enterprise: true, subscription: "pro", legalEntityId: "LE-1", peppolSendingEnabled: true } as const;

/** An account whose company may submit (unless `eligible` is false). */
export async function setup(opts: { store?: Store; eligible?: boolean; email?: string; country?: string } = {}): Promise<Setup> {
  const store = opts.store ?? memoryStore();
  const clock = fakeClock();
  const options: CoreOptions = { clock: () => {
    clock.advance(1);
    return clock.now();
  } };
  const created = await createAccount(store, { email: opts.email ?? `${Math.random().toString(36).slice(2)}@example.com`, companyName: "Acme B.V.", country: opts.country ?? "NL" }, options);
  if (opts.eligible !== false) await updateCompany(store, created.companyId, ELIGIBLE, options);
  const auth = await authenticate(store, created.apiKey, options);
  return { store, auth, apiKey: created.apiKey, companyId: created.companyId, options, clock };
}
