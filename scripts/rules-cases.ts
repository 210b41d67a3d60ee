// Developer tool: checks the expectations of packages/core/test/support/cen-rule-cases.ts (the tricky-semantics
// cases of the CEN rule tests) against the official rules, so the tests assert the official verdicts.
//   tsx --conditions=source scripts/rules-cases.ts [--oracle PATH/official.mjs] (default: test/support/official.ts over testdata/rules)
import { officialOracle } from "../packages/core/test/support/official.js";
import { CEN_RULE_CASES } from "../packages/core/test/support/cen-rule-cases.js";

const args = process.argv.slice(2);
const i = args.indexOf("--oracle");
const officialValidate = await officialOracle(i >= 0 ? args[i + 1] : undefined);
let bad = 0;
for (const c of CEN_RULE_CASES) {
  let fired: boolean | string;
  try {
    const v = officialValidate(c.xml);
    fired = [...v.fatal, ...v.warning].includes(c.rule);
  } catch (e) {
    fired = `no verdict (${String((e as Error).message).slice(0, 80)})`;
  }
  if (fired !== c.fires) { bad++; console.log(`DISAGREES: ${c.name}: expected ${c.fires ? "fires" : "silent"}, official ${fired}`); }
}
console.log(`${CEN_RULE_CASES.length - bad}/${CEN_RULE_CASES.length} cases have the official verdict`);
process.exitCode = bad ? 1 : 0;
