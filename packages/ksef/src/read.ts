// UBL bytes read into the FA(3) mapping's model with the core's own one-pass reader (`parseXml`: the
// DocumentNode tree the validation rules read), for a caller of toFa3 that holds bytes. The network adapter
// does not need it: the send request carries the model the core read (`SendRequest.model`).
import { parseXml } from "@einvoice/core";
import type { Fa3Node } from "./model.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The model of a UBL document; throws when the bytes are not well-formed UTF-8 XML. */
export function readUbl(bytes: Uint8Array): Fa3Node {
  let text: string;
  try {
    text = utf8.decode(bytes); // a UTF-8 BOM is dropped
  } catch {
    throw new Error("the document is not well-formed XML: it is not valid UTF-8");
  }
  try {
    return parseXml(text).root;
  } catch (e) {
    throw new Error(`the document is not well-formed XML: ${(e as Error).message.replace(/^xml is not a well-formed UBL document: /, "")}`);
  }
}
