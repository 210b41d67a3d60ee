// Rule family: PEPPOL-EN16931-*, PEPPOL-COMMON-* and the national rules of Peppol BIS Billing 3.0 release
// 2026.5 (the official PEPPOL-EN16931-UBL.sch, "2026 May release 3.0.21"), in one pass over the document.
// The rules live in peppol-bis.ts (Peppol's own) and peppol-national.ts (NO, DK, IT, SE, GR, IS, NL, DE).
import type { RuleFamily, UblNode } from "../../document/model.js";
import { codeRules, documentRules, emptyElement, mainRules } from "./peppol-bis.js";
import { nationalDocumentRules, nationalFacts, nationalRules, type NationalFacts } from "./peppol-national.js";
import { peppolFacts, type PeppolFacts } from "./peppol-support.js";

export const peppolRules: RuleFamily = (ctx) => {
  const env = peppolFacts(ctx);
  const nat = nationalFacts(env);
  documentRules(env);
  nationalDocumentRules(env, nat);
  visit(env, nat, ctx.root);
};

function visit(env: PeppolFacts, nat: NationalFacts, node: UblNode): void {
  emptyElement(env, node);
  mainRules(env, node);
  if (nat.any) nationalRules(env, nat, node);
  codeRules(env, node);
  for (const element of node.children) visit(env, nat, element);
}
