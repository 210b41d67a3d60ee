// The resolve hook of hide-drivers.mjs (runs on Node's hooks thread).
const HIDDEN = new Set(["pg", "@electric-sql/pglite"]);

export async function resolve(specifier, context, nextResolve) {
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
  if (HIDDEN.has(name)) {
    const e = new Error(`Cannot find package '${name}' imported from ${context.parentURL ?? "the entry"}`);
    e.code = "ERR_MODULE_NOT_FOUND";
    throw e;
  }
  return nextResolve(specifier, context);
}
