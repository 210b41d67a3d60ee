// The official rules' verdicts on generated documents, stored: SaxonJS takes 0.1-0.3 s a document, and the same
// seeded documents get the same verdict from the same rules, so a test judges them once (scripts/*-verdicts.ts) and
// then reads the stored verdict by the document's sha256. A stored verdict is used only while the rules and the
// verdict function that made it are byte for byte the ones in the repository (the fingerprint); a document
// without one is judged by SaxonJS on the spot, so a stale file costs time, never an assertion. Each run also judges
// a small sample of the stored ones again under SaxonJS and compares.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { RULE_SETS, rulesPath } from "../../../../testdata/index.js";

export interface StoredVerdict {
  fatal: string[];
  warning: string[];
}

/** The document's key in a verdict file: the sha256 of its text, 16 hex digits. */
export const verdictKey = (xml: string): string => createHash("sha256").update(xml).digest("hex").slice(0, 16);

/** sha256 (16 hex digits) of the UBL rule sets and of test/support/official.ts (KoSIT's levels, the rule-set choice). */
export function ublRulesFingerprint(): string {
  const h = createHash("sha256");
  for (const name of [RULE_SETS.cen, RULE_SETS.peppol, RULE_SETS.xrechnung, RULE_SETS.nlcius]) h.update(readFileSync(rulesPath(name)));
  h.update(readFileSync(new URL("./official.ts", import.meta.url)));
  return h.digest("hex").slice(0, 16);
}

/**
 * A verdict file: a first line `{"fingerprint": …}`, then `{"key", …, "fatal", "warning"}` a line. Empty when the
 * file is missing or its fingerprint is not `fingerprint` (then `stale` says so).
 */
export function readStoredVerdicts(path: URL | string, fingerprint: string): { verdicts: Map<string, StoredVerdict>; stale: boolean } {
  if (!existsSync(path)) return { verdicts: new Map(), stale: true };
  const [head, ...lines] = readFileSync(path, "utf8").split("\n").filter(Boolean);
  if (!head || (JSON.parse(head) as { fingerprint?: string }).fingerprint !== fingerprint) return { verdicts: new Map(), stale: true };
  const verdicts = new Map<string, StoredVerdict>();
  for (const l of lines) {
    const v = JSON.parse(l) as { key: string } & StoredVerdict;
    verdicts.set(v.key, { fatal: v.fatal, warning: v.warning });
  }
  return { verdicts, stale: false };
}

export function writeStoredVerdicts(path: URL | string, fingerprint: string, rows: Array<{ key: string } & Record<string, unknown> & StoredVerdict>): void {
  writeFileSync(path, [JSON.stringify({ fingerprint }), ...rows.map((r) => JSON.stringify(r))].join("\n") + "\n");
}

/** `k` distinct indexes of 0..n-1, at random (a different sample each run; the failure names the document). */
export function randomSample(n: number, k: number): Set<number> {
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return new Set(all.slice(0, Math.min(n, k)));
}
