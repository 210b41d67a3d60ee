// Test support: validates an FA(3) document against the official FA(3) XSD (schemat_FA(3)_v1-0E.xsd
// and its base schemas, copied from CIRFMF/ksef-docs into test/fixtures/fa3) with xmllint-wasm.
// The official schema imports its base schemas by absolute http URLs; xmllint runs offline here, so
// the base schemas are preloaded under their file names and the import points at them.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { validateXML } from "xmllint-wasm";

const dir = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/fa3");
const BASE = ["StrukturyDanych_v10-0E.xsd", "ElementarneTypyDanych_v10-0E.xsd", "KodyKrajow_v10-0E.xsd"];

const main = readFileSync(resolve(dir, "schemat_FA3_v1-0E.xsd"), "utf8").replace(
  /schemaLocation="http:\/\/crd\.gov\.pl\/xml\/schematy\/dziedzinowe\/mf\/2022\/01\/05\/eD\/DefinicjeTypy\/StrukturyDanych_v10-0E\.xsd"/,
  'schemaLocation="StrukturyDanych_v10-0E.xsd"',
);
if (!main.includes('schemaLocation="StrukturyDanych_v10-0E.xsd"')) throw new Error("the FA(3) XSD no longer imports StrukturyDanych by the expected URL");
const preload = BASE.map((f) => ({ fileName: f, contents: readFileSync(resolve(dir, "bazowe", f), "utf8") }));

/** The XSD errors of an FA(3) document ([] when valid). */
export async function fa3SchemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: "faktura.xml", contents: xml }], schema: [{ fileName: "schemat_FA3.xsd", contents: main }], preload, maxMemoryPages: 65536 });
  return result.valid ? [] : result.errors.map((e) => e.message);
}
