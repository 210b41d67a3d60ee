// The example service: a store, the /v1 and /admin routers, and /health, on one Express app.
import type { CoreOptions, Store } from "@einvoice/core";
import { createAdminRouter, createV1Router, type Logger } from "@einvoice/express";
import express, { type Express } from "express";
import { docsRouter } from "./docs-page.js";

export interface AppConfig extends CoreOptions {
  store: Store;
  adminToken: string;
  logger?: Logger;
}

/** Builds the Express app of the example server (no listening: tests use it with supertest). */
export function createApp(config: AppConfig): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  const { adminToken, ...routerOptions } = config;
  app.use("/v1", createV1Router(routerOptions));
  app.use("/admin", createAdminRouter({ ...routerOptions, adminToken }));
  app.use("/docs", docsRouter());
  app.use((req, res) => {
    res.status(404).json({ statusCode: 404, message: `Cannot ${req.method} ${req.path}`, error: "Not Found" });
  });
  return app;
}
