// An example-server app on an in-memory store, and helpers to get an eligible company over HTTP.
import { memoryStore, type DiscoveryPort, type ReceiveSyntax, type Store, type TargetPolicy, type TokenCipher } from "@einvoice/core";
import type { Logger } from "@einvoice/express";
import request from "supertest";
import { createApp } from "../../../../examples/server/src/app.js";
import { recordResponses, type Recorded } from "./openapi-check.js";

/** Every answer of every app made by `makeApp` in this test file, for the OpenAPI check. */
export const answers: Recorded[] = [];

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export function makeApp(
  opts: {
    store?: Store;
    logger?: Logger;
    webhookTargets?: TargetPolicy;
    discovery?: DiscoveryPort;
    ksef?: { tokenCipher?: TokenCipher; ksefCredentialsRequired?: boolean; ksefCorrections?: boolean };
    /** Syntaxes received documents may be in besides UBL and CII (the router's `syntaxes`: `fa3Syntax`). */
    syntaxes?: readonly ReceiveSyntax[];
  } = {},
) {
  const store = opts.store ?? memoryStore();
  const logs: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger: Logger = opts.logger ?? { error: (obj, msg) => logs.push({ obj, msg }) };
  const app = createApp({
    store,
    adminToken: ADMIN_TOKEN,
    logger,
    ...(opts.webhookTargets ? { webhookTargets: opts.webhookTargets } : {}),
    ...(opts.discovery ? { discovery: opts.discovery } : {}),
    ...(opts.syntaxes ? { syntaxes: opts.syntaxes } : {}),
    ...opts.ksef,
  });
  const records = recordResponses(app);
  answers.push = answers.push.bind(answers);
  const origPush = records.push.bind(records);
  records.push = (...items: Recorded[]) => (answers.push(...items), origPush(...items));
  return { app, store, logs };
}

export async function signUp(app: Parameters<typeof request>[0], email = `${Math.random().toString(36).slice(2)}@example.com`) {
  const res = await request(app).post("/v1/accounts").send({ email, companyName: "Acme B.V.", country: "NL" });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { accountId: string; companyId: string; apiKey: string };
}

export async function makeEligible(app: Parameters<typeof request>[0], companyId: string, patch: Record<string, unknown> = {}) {
  const res = await request(app)
    .patch(`/admin/companies/${companyId}`)
    .set("Authorization", `Bearer ${ADMIN_TOKEN}`)
    .send({ enterprise: true, subscription: "pro", legalEntityId: "LE-1", peppolSendingEnabled: true, ...patch });
  if (res.status !== 200) throw new Error(`admin patch failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A signed-up company made eligible (NL unless the patch says otherwise, such as `{ country: "PL" }` for KSeF). */
export async function eligibleAccount(app: Parameters<typeof request>[0], patch: Record<string, unknown> = {}) {
  const account = await signUp(app);
  await makeEligible(app, account.companyId, patch);
  return account;
}
