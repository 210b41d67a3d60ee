// /v1/webhooks routes: register, list, delete, and see deliveries. Mounted by the /v1 router.
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  type AuthContext,
  type CoreOptions,
  type Store,
  type TargetPolicy,
  type WebhookStore,
} from "@einvoice/core";
import type { Request, RequestHandler, Router } from "express";
import { declaredSizeLimit, jsonBody, wrap } from "./middleware.js";

export interface WebhookRouteDeps {
  store: Store & Partial<WebhookStore>;
  options: CoreOptions;
  targets: TargetPolicy | undefined;
  limit: number;
  authenticated: RequestHandler;
  noQuery: RequestHandler;
  authOf: (req: Request) => AuthContext;
}

function hasWebhooks(store: Store & Partial<WebhookStore>): store is Store & WebhookStore {
  return typeof store.insertWebhook === "function" && typeof store.claimWebhookEvents === "function";
}

/** Adds the webhook routes to `router` when the store keeps webhooks; otherwise they do not exist (404). */
export function mountWebhooks(router: Router, deps: WebhookRouteDeps): void {
  const { store, options, targets, limit, authenticated, noQuery, authOf } = deps;
  if (!hasWebhooks(store)) return;

  router.post(
    "/webhooks",
    declaredSizeLimit(limit),
    authenticated,
    noQuery,
    ...jsonBody(limit),
    wrap(async (req, res) => {
      res.status(201).json({ data: await createWebhook(store, authOf(req), req.body, { ...options, targets }) });
    }),
  );

  router.get(
    "/webhooks",
    authenticated,
    noQuery,
    wrap(async (req, res) => {
      res.json({ data: await listWebhooks(store, authOf(req)) });
    }),
  );

  router.delete(
    "/webhooks/:id",
    authenticated,
    noQuery,
    wrap(async (req, res) => {
      await deleteWebhook(store, authOf(req), String(req.params.id), options);
      res.status(204).end();
    }),
  );

  router.get(
    "/webhooks/:id/deliveries",
    authenticated,
    noQuery,
    wrap(async (req, res) => {
      res.json({ data: await listWebhookDeliveries(store, authOf(req), String(req.params.id)) });
    }),
  );
}
