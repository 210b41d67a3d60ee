import { readFileSync } from "node:fs";
import { validate } from "@readme/openapi-parser";
import { openApiDocument } from "@einvoice/express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { OPENAPI_PATH, renderOpenApi } from "../../../scripts/generate-openapi.js";
import { makeApp } from "./support/app.js";

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { examples?: Record<string, unknown> }> }; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
};

describe("the OpenAPI document", () => {
  const doc = openApiDocument() as unknown as Doc;

  it("passes a real OpenAPI 3.1 validator", async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it("is 3.1, version 1.0.0, with the bearer scheme and the three submit examples", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    const examples = doc.paths["/v1/peppol/invoice"]!.post!.requestBody!.content["application/json"]!.examples!;
    expect(Object.keys(examples).sort()).toEqual(["autoRouting", "explicitKsef", "explicitPeppol"]);
  });

  it("documents every status the submit endpoint answers", () => {
    expect(Object.keys(doc.paths["/v1/peppol/invoice"]!.post!.responses).sort()).toEqual(["200", "400", "401", "403", "409", "413", "422", "429", "500", "503"]);
  });

  it("holds no secrets in its examples", () => {
    expect(JSON.stringify(doc)).not.toMatch(/einv_[0-9a-f]{32}_/);
  });

  it("names InvoiceData's parts as components, each defined once and referenced, never written out inline", () => {
    const schemas = (doc.components as unknown as { schemas: Record<string, unknown> }).schemas;
    const parts = ["InvoiceSeller", "InvoiceBuyer", "InvoiceAddress", "InvoiceContact", "InvoiceIdentifier", "InvoiceEndpoint", "InvoiceVat", "InvoiceAllowanceCharge", "InvoiceLineAllowanceCharge", "InvoiceLine", "InvoicePayment", "InvoicePaymentAccount", "InvoiceAttachment", "InvoiceLinePeriod", "InvoicingPeriod", "InvoiceTotals", "InvoiceVatBreakdown"];
    for (const id of parts) expect(schemas[id], id).toMatchObject({ type: "object" });
    const text = JSON.stringify(doc);
    // The address is used by the seller, the buyer, the tax representative, the payee-less delivery: one definition, several references.
    expect(text.match(/"#\/components\/schemas\/InvoiceAddress"/g)?.length).toBeGreaterThanOrEqual(3);
    // A field's own description stays beside its reference.
    expect((schemas.InvoiceLine as { properties: Record<string, unknown> }).properties.vat).toEqual({ description: "Line VAT information (BG-30).", $ref: "#/components/schemas/InvoiceVat" });
    // Each part's description appears once in the whole document: nothing is inlined a second time.
    for (const [id, description] of [["InvoiceAddress", "A postal address (BG-5, BG-8, BG-12, BG-15)."], ["InvoiceLine", "An invoice line (BG-25)."], ["InvoiceVat", "VAT category and rate (BT-95/96, BT-102/103, BG-30)."]]) {
      expect(text.split(JSON.stringify(description)).length - 1, id).toBe(1);
    }
  });

  it("is committed up to date in docs/openapi.json (run `pnpm openapi` after changing a schema)", () => {
    expect(readFileSync(OPENAPI_PATH, "utf8")).toBe(renderOpenApi());
  });

  it("is served at GET /v1/openapi.json without a key", async () => {
    const { app } = makeApp();
    const res = await request(app).get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(renderOpenApi()));
  });
});
