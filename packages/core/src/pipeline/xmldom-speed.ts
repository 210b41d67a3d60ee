// A workaround for a hot spot of @xmldom/xmldom 0.9: its SAX parser builds a new RegExp (from a
// ~600-character Unicode source) for every end tag, through `grammar.reg`. Remembering the few
// RegExps it builds (always from the grammar's own constants) makes a parse about 40% faster on
// a real invoice, with the same results: they have no `g` or `y` flag, so `exec` keeps no state.
import { createRequire } from "node:module";

type Reg = (this: unknown, ...parts: Array<string | RegExp>) => RegExp;

const MAX_CACHED = 64;
let installed = false;

/** Installs the cache once; does nothing when xmldom's grammar module is not laid out as expected. */
export function speedUpXmldom(): void {
  if (installed) return;
  installed = true;
  let grammar: { reg?: Reg } | undefined;
  try {
    const require = createRequire(import.meta.url);
    grammar = require("@xmldom/xmldom/lib/grammar.js") as { reg?: Reg };
  } catch {
    return;
  }
  const original = grammar.reg;
  if (typeof original !== "function") return;
  const END = Symbol("regexp");
  const root = new Map<unknown, Map<unknown, unknown>>();
  let cached = 0;
  grammar.reg = function cachedReg(this: unknown, ...parts: Array<string | RegExp>): RegExp {
    let node: Map<unknown, unknown> = root;
    for (const part of parts) {
      let next = node.get(part) as Map<unknown, unknown> | undefined;
      if (!next) {
        if (cached >= MAX_CACHED) return original.apply(this, parts);
        node.set(part, (next = new Map()));
      }
      node = next;
    }
    let re = node.get(END) as RegExp | undefined;
    if (!re) {
      re = original.apply(this, parts);
      if (re.global || re.sticky || cached >= MAX_CACHED) return re;
      node.set(END, re);
      cached++;
    }
    return re;
  };
}
