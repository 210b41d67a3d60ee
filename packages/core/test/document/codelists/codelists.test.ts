import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isPeppolParticipantScheme, PARTICIPANT_SCHEMES } from "../../../src/document/codelists/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..", "..", "..");

describe("the shipped Peppol participant scheme list", () => {
  it("is exactly what scripts/generate-codelists.mjs makes from the corpus code list", async () => {
    // @ts-expect-error: a plain .mjs script without types
    const { render, SOURCE, TARGET } = await import("../../../../../scripts/generate-codelists.mjs");
    expect(existsSync(SOURCE)).toBe(true);
    expect(readFileSync(TARGET, "utf8")).toBe(render(readFileSync(SOURCE, "utf8")));
    expect(join(repo, "packages/core/src/document/codelists/participant-schemes.ts")).toBe(TARGET);
  });

  it("counts active and deprecated schemes, not removed ones", () => {
    expect(PARTICIPANT_SCHEMES).toHaveLength(105);
    expect(isPeppolParticipantScheme("0088")).toBe(true); // GLN, active
    expect(isPeppolParticipantScheme("9945")).toBe(true); // Polish VAT
    expect(isPeppolParticipantScheme("0193")).toBe(true); // deprecated
    expect(isPeppolParticipantScheme("0037")).toBe(false); // removed
    expect(isPeppolParticipantScheme("EM")).toBe(false);
    expect(isPeppolParticipantScheme("")).toBe(false);
  });
});
