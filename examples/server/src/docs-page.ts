// GET /docs: the API reference (Swagger UI from the swagger-ui-dist package, served from here: no CDN).
import { createRequire } from "node:module";
import { dirname } from "node:path";
import express, { type Router } from "express";

const require = createRequire(import.meta.url);
const assets = dirname(require.resolve("swagger-ui-dist/package.json"));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>einvoice API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true });\n`;

/** The reference page router, to mount at `/docs`. */
export function docsRouter(): Router {
  const router = express.Router();
  router.get("/", (_req, res) => {
    res.type("html").send(PAGE);
  });
  router.get("/init.js", (_req, res) => {
    res.type("application/javascript").send(INIT);
  });
  router.use("/assets", express.static(assets, { index: false }));
  return router;
}
