// Rule family: PEPPOL-EN16931-*, PEPPOL-COMMON-* and the national rules of Peppol BIS Billing 3.0 release
// 2026.5 (the official PEPPOL-EN16931-UBL.sch, "2026 May release 3.0.21"), in one pass over the document.
// The rules live in peppol-bis.ts (Peppol's own) and peppol-national.ts (NO, DK, IT, SE, GR, IS, NL, DE).
import type { RuleFamily, DocumentNode } from "../../document/model.js";
import { codeRules, documentRules, emptyElement, mainRules } from "./peppol-bis.js";
import { nationalDocumentRules, nationalFacts, nationalRules, type NationalFacts } from "./peppol-national.js";
import { peppolFacts, type PeppolFacts } from "./peppol-support.js";

export const peppolRules: RuleFamily = (ctx) => {
  const facts = peppolFacts(ctx);
  const national = nationalFacts(facts);
  documentRules(facts);
  nationalDocumentRules(facts, national);
  visit(facts, national, ctx.root);
};

function visit(facts: PeppolFacts, national: NationalFacts, node: DocumentNode): void {
  emptyElement(facts, node);
  mainRules(facts, node);
  if (national.any) nationalRules(facts, national, node);
  codeRules(facts, node);
  // An index loop: this recursion is not optimised enough for V8 to drop for-of's iterator objects.
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) visit(facts, national, kids[i]!);
}
