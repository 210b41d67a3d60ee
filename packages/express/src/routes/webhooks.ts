// The route table of /v1/webhooks: register, list, delete, and see deliveries. The /v1 router
// mounts it when the store keeps webhooks (otherwise these paths are 404).
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  parseWith,
  EmptyBodySchema,
  rotateWebhookSecret,
  WebhookSecretRotatedSchema,
  WebhookCreatedSchema,
  WebhookDeliverySchema,
  WebhookRequestSchema,
  WebhookSchema,
  type CoreOptions,
  type Store,
  type TargetPolicy,
  type WebhookStore,
} from "@einvoice/core";
import { z } from "zod";
import type { Route } from "./route.js";
import { data } from "./schemas.js";

export interface WebhookDeps {
  store: Store & WebhookStore;
  options: CoreOptions;
  targets: TargetPolicy | undefined;
}

/** Whether `store` keeps webhooks (implements `WebhookStore`). */
export function hasWebhooks(store: Store & Partial<WebhookStore>): store is Store & WebhookStore {
  return typeof store.insertWebhook === "function" && typeof store.claimWebhookEvents === "function";
}

const webhookId = { id: "The webhook's id." };
const notFound = { codes: ["webhook_not_found"], description: "No such webhook in this company." } as const;

export const WEBHOOK_ROUTES: readonly Route<WebhookDeps>[] = [
  {
    method: "post",
    path: "/webhooks",
    operationId: "createWebhook",
    summary: "Register a webhook for invoice status changes (the secret is shown once)",
    description:
      "Each change of an invoice's status after creation (`delivered`, `failed`) is POSTed as `{id, type, createdAt, data:{invoice}}` with the headers `Einvoice-Event-Id` and `Einvoice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" with the secret>`, retried with backoff until a 2xx. The URL must be https and resolve to public addresses.",
    auth: "apiKey",
    body: { kind: "json", schema: WebhookRequestSchema },
    success: { status: 201, description: "Created.", schema: data(WebhookCreatedSchema) },
    handle: async ({ deps, auth, body }) => ({ data: await createWebhook(deps.store, auth, body, { ...deps.options, targets: deps.targets }) }),
  },
  {
    method: "get",
    path: "/webhooks",
    operationId: "listWebhooks",
    summary: "List the company's webhooks (never their secrets)",
    auth: "apiKey",
    success: { status: 200, description: "The webhooks.", schema: data(z.array(WebhookSchema)) },
    handle: async ({ deps, auth }) => ({ data: await listWebhooks(deps.store, auth) }),
  },
  {
    method: "delete",
    path: "/webhooks/{id}",
    operationId: "deleteWebhook",
    summary: "Delete a webhook; its pending events are not sent",
    auth: "apiKey",
    params: webhookId,
    success: { status: 204, description: "Deleted." },
    errors: [notFound],
    handle: ({ deps, auth, params }) => deleteWebhook(deps.store, auth, params.id!, deps.options),
  },
  {
    method: "post",
    path: "/webhooks/{id}/rotate-secret",
    operationId: "rotateWebhookSecret",
    summary: "Give a webhook a new signing secret (shown once); both secrets sign for 24 hours",
    description:
      "For 24 hours after a rotation each delivery's `Einvoice-Signature` carries two signatures, `t=<unix seconds>,v1=<with the new secret>,v1=<with the previous secret>` (as Stripe does): a receiver that checks any `v1` against its secret keeps working while it switches to the new secret. Then only the new one signs. Rotating again within the 24 hours drops the oldest secret at once. No body (or `{}`).",
    auth: "apiKey",
    params: webhookId,
    body: { kind: "json" },
    success: { status: 200, description: "Rotated.", schema: data(WebhookSecretRotatedSchema) },
    errors: [notFound],
    handle: async ({ deps, auth, params, body }) => {
      parseWith(EmptyBodySchema, body);
      return { data: await rotateWebhookSecret(deps.store, auth, params.id!, deps.options) };
    },
  },
  {
    method: "get",
    path: "/webhooks/{id}/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "The webhook's recent deliveries, newest first, with each attempt's status code and error",
    auth: "apiKey",
    params: webhookId,
    success: { status: 200, description: "The deliveries.", schema: data(z.array(WebhookDeliverySchema)) },
    errors: [notFound],
    handle: async ({ deps, auth, params }) => ({ data: await listWebhookDeliveries(deps.store, auth, params.id!) }),
  },
];
