// The JSON body of a submit request, from raw bytes: parsed and checked against the request schema.
import { ApiError } from "../errors.js";
import { InvoiceRequestSchema, parseWith } from "../schemas.js";
import type { TargetNetwork } from "../types.js";

const utf8 = new TextDecoder("utf-8");

/** The JSON value of a request body; unparseable JSON is a 400 that says where, never what. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text = utf8.decode(bytes); // drops a BOM
  if (text.trim() === "") text = "{}";
  try {
    return JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec(e instanceof Error ? e.message : "");
    throw new ApiError("bad_request", `Request body is not valid JSON${at ? ` (at position ${at[1]})` : ""}.`);
  }
}

/** A submit request body, checked: `xml` and `targetNetwork`, or the 400 of its shape. */
export function parseSubmitBody(bytes: Uint8Array): { xml: string; targetNetwork: TargetNetwork } {
  return parseWith(InvoiceRequestSchema, parseJsonBody(bytes));
}
