// Records every answer an app sends in a test file, and checks each against docs' OpenAPI document:
// an undocumented status, a missing or extra field, or a wrong type is a failure.
import { openApiDocument } from "@einvoice/express";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Express, NextFunction, Request, Response } from "express";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

export interface Recorded {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...(doc as object), $id: "openapi" });
const compiled = new Map<string, ValidateFunction>();

const templates = Object.keys(doc.paths).map((t) => ({
  template: t,
  re: new RegExp("^" + t.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+") + "$"),
}));

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Installs, before every route of `app`, a recorder of what `res.json` and `res.end` answer. */
export function recordResponses(app: Express): Recorded[] {
  const records: Recorded[] = [];
  const layer = (req: Request, res: Response, next: NextFunction) => {
    const json = res.json.bind(res);
    let body: unknown;
    let sawJson = false;
    res.json = (b: unknown) => {
      body = b;
      sawJson = true;
      return json(b);
    };
    res.on("finish", () => {
      records.push({ method: req.method.toLowerCase(), path: req.originalUrl.split("?")[0]!, status: res.statusCode, body: sawJson ? body : undefined });
    });
    next();
  };
  // Put the recorder first in the stack, whatever was mounted before.
  app.use(layer);
  const stack = (app as unknown as { router?: { stack: unknown[] }; _router?: { stack: unknown[] } }).router ?? (app as unknown as { _router: { stack: unknown[] } })._router;
  stack.stack.unshift(stack.stack.pop()!);
  return records;
}

/** Every problem found in the recorded answers; empty when all match the document. */
export function undocumentedAnswers(records: Recorded[]): string[] {
  const problems: string[] = [];
  for (const r of records) {
    const match = templates.find((t) => t.re.test(r.path));
    if (!match) continue; // not an operation of the API (unknown routes answer a plain 404)
    const op = doc.paths[match.template]![r.method];
    const where = `${r.method.toUpperCase()} ${r.path} → ${r.status}`;
    if (!op) {
      if (r.status !== 404) problems.push(`${where}: method not documented`);
      continue;
    }
    const response = op.responses[String(r.status)];
    if (!response) {
      problems.push(`${where}: status not documented`);
      continue;
    }
    if (!response.content) {
      if (r.body !== undefined) problems.push(`${where}: a body where none is documented`);
      continue;
    }
    // A document answered as XML or PDF (GET /v1/invoices/{id}/document) is recorded without a JSON body: its media type is documented.
    if (r.body === undefined && Object.keys(response.content).some((t) => t !== "application/json")) continue;
    const ref = `openapi#/${pointer("paths", match.template, r.method, "responses", String(r.status), "content", "application/json", "schema")}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    if (!validate(r.body)) problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  return problems;
}
