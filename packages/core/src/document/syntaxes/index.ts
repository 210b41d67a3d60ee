// The syntax registry: every XML syntax the core reads and writes, one line each (see types.ts). The rule sets of a
// syntax are registered in validation/rulesets/ with the same id.
import type { DocumentNode } from "../model.js";
import { cii } from "./cii/index.js";
import type { Syntax } from "./types.js";
import { ubl } from "./ubl.js";

export type { DocumentSyntax, InvoiceKind, Syntax, WriteOptions } from "./types.js";

export const SYNTAXES: readonly Syntax[] = [ubl, cii];

/** The syntax whose document `root` is the root of, or null when none registered knows it. */
export function syntaxOf(root: DocumentNode): Syntax | null {
  for (const s of SYNTAXES) if (s.recognises(root)) return s;
  return null;
}

/** The registered syntax with this id. */
export function syntaxById(id: string): Syntax | null {
  return SYNTAXES.find((s) => s.id === id) ?? null;
}
