// Webhooks: a company registers URLs; every status change of its invoices is POSTed there, signed.
import { randomBytes } from "node:crypto";
import { ApiError, badRequest, quoteId } from "../domain/errors.js";
import { guardStore, resolveOptions, type CoreOptions } from "./options.js";
import type { Store, WebhookStore } from "../ports/store.js";
import {
  isUuid,
  parseWith,
  WebhookRequestSchema,
  type WebhookCreated,
  type WebhookDeliveryView,
  type WebhookSecretRotated,
  type WebhookView,
} from "../domain/schemas.js";
import type { AuthContext, WebhookEventRecord, WebhookRecord } from "../domain/types.js";
import { checkWebhookTarget, type TargetPolicy } from "../domain/webhook-target.js";

export interface WebhookOptions extends CoreOptions {
  /** Which targets are allowed (SSRF guard). Default: public https only. */
  targets?: TargetPolicy;
}

/** At most this many webhooks per company. */
export const MAX_WEBHOOKS = 10;

function view(w: WebhookRecord): WebhookView {
  return { id: w.id, url: w.url, events: [...w.events], createdAt: w.createdAt };
}

function notFound(id: string): ApiError {
  return new ApiError("webhook_not_found", `No webhook ${quoteId(id)} in this company.`);
}

/**
 * Registers a webhook for the caller's company. The URL must be https and resolve to public
 * addresses (unless `targets.allowPrivate`); the signing secret is in the answer and nowhere else.
 *
 * @example const { secret } = await createWebhook(store, auth, { url: "https://erp.example.com/einvoice" })
 */
export async function createWebhook(store: Store & WebhookStore, auth: AuthContext, body: unknown, options: WebhookOptions = {}): Promise<WebhookCreated> {
  const input = parseWith(WebhookRequestSchema, body);
  const refusal = await checkWebhookTarget(input.url, options.targets);
  if (refusal) throw badRequest([refusal]);
  const s = guardStore(store);
  const full = () => badRequest([`a company can have at most ${MAX_WEBHOOKS} webhooks; delete one first`]);
  if ((await s.listWebhooks(auth.companyId)).length >= MAX_WEBHOOKS) throw full(); // early, before making a secret
  const o = resolveOptions(options);
  const webhook: WebhookRecord = {
    id: o.newId(),
    companyId: auth.companyId,
    url: new URL(input.url).toString(),
    events: input.events,
    secret: newSecret(),
    createdAt: o.now(),
    deletedAt: null,
    previousSecret: null,
    previousSecretExpiresAt: null,
  };
  // The cap is enforced by the store in the same step as the insert: concurrent registrations cannot pass it.
  if (!(await s.insertWebhook(webhook, { max: MAX_WEBHOOKS }))) throw full();
  return { ...view(webhook), secret: webhook.secret };
}

/** The company's webhooks, without their secrets. */
export async function listWebhooks(store: Store & WebhookStore, auth: AuthContext): Promise<WebhookView[]> {
  return (await guardStore(store).listWebhooks(auth.companyId)).map(view);
}

/** How long the previous secret still signs after a rotation. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 3_600_000;

const newSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`;

/**
 * Gives the company's webhook a new signing secret, returned once. For 24 hours both secrets sign
 * (each delivery carries two `v1=` signatures, as Stripe does), so the receiver can switch to the
 * new one without missing a delivery; then only the new one. A second rotation within the 24 hours
 * drops the oldest secret at once. Unknown or another company's: `webhook_not_found`.
 *
 * @example const { secret, previousSecretExpiresAt } = await rotateWebhookSecret(store, auth, webhookId)
 */
export async function rotateWebhookSecret(store: Store & WebhookStore, auth: AuthContext, id: string, options?: CoreOptions): Promise<WebhookSecretRotated> {
  if (!isUuid(id)) throw notFound(id);
  const o = resolveOptions(options);
  const previousSecretExpiresAt = new Date(Date.parse(o.now()) + WEBHOOK_SECRET_OVERLAP_MS).toISOString();
  const rotated = await guardStore(store).rotateWebhookSecret(auth.companyId, id.toLowerCase(), { secret: newSecret(), previousSecretExpiresAt });
  if (!rotated) throw notFound(id);
  return { id: rotated.id, secret: rotated.secret, previousSecretExpiresAt };
}

/** Deletes one of the company's webhooks; its pending events are dropped. Unknown or another company's: `webhook_not_found`. */
export async function deleteWebhook(store: Store & WebhookStore, auth: AuthContext, id: string, options?: CoreOptions): Promise<void> {
  const ok = isUuid(id) && (await guardStore(store).deleteWebhook(auth.companyId, id.toLowerCase(), resolveOptions(options).now()));
  if (!ok) throw notFound(id);
}

function deliveryView(e: WebhookEventRecord): WebhookDeliveryView {
  return {
    eventId: e.id,
    type: e.type,
    status: e.status,
    createdAt: e.createdAt,
    attempts: e.attempts,
    nextAttemptAt: e.nextAttemptAt,
    deliveredAt: e.deliveredAt,
    log: e.log.map((a) => ({ ...a })),
  };
}

/** The webhook's most recent deliveries (50), newest first, each with its attempts: status code and error. */
export async function listWebhookDeliveries(store: Store & WebhookStore, auth: AuthContext, id: string): Promise<WebhookDeliveryView[]> {
  const s = guardStore(store);
  const webhook = isUuid(id) ? await s.getWebhook(auth.companyId, id.toLowerCase()) : null;
  if (!webhook) throw notFound(id);
  return (await s.listWebhookEvents(auth.companyId, webhook.id, 50)).map(deliveryView);
}

