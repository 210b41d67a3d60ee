// The request and answer examples of docs/api.md marked `<!-- docs-example -->`, run as written (in a
// shell, from the repository root) against the example server started as a real process: each answer
// must equal the one the page shows, ids, times and key prefixes aside. A page that drifts from the
// server fails here, as the README's quickstart does in quickstart.test.ts.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { json, type RunningServer } from "./support/server-process.js";
import { serverSuite, tempDir } from "./support/server-suite.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const ADMIN_TOKEN = "docs-examples-test-admin-token-0123456789";

interface Example {
  /** The line of the sh block in docs/api.md. */
  line: number;
  sh: string;
  answer: string;
}

/** The marked examples: a `<!-- docs-example -->` line, a sh block, a blank line, a json block. */
function markedExamples(page: string): Example[] {
  const out: Example[] = [];
  for (const m of page.matchAll(/<!-- docs-example -->\n```sh\n([^]*?)\n```\n\n```json\n([^]*?)\n```/g)) {
    out.push({ line: page.slice(0, m.index).split("\n").length + 1, sh: m[1]!, answer: m[2]! });
  }
  return out;
}

/** What differs from run to run: ids, times, key prefixes. */
const normalise = (text: string): unknown =>
  JSON.parse(
    text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
      .replace(/einv_[0-9a-f]{8}\b/g, "einv_<prefix>"),
  );

describe("docs/api.md's marked examples against the example server", () => {
  const page = readFileSync(join(REPO, "docs", "api.md"), "utf8");
  const examples = markedExamples(page);
  const shellDir = tempDir("docs-examples-shell");
  const suite = serverSuite("docs-examples", { ADMIN_TOKEN });
  let server: RunningServer;
  let apiKey: string;

  beforeAll(async () => {
    server = await suite.start();
    // The account of the page: POST /v1/accounts, then the operator's PATCH, with the page's values.
    const signUp = await json(server.base, "POST", "/v1/accounts", { email: "ap@acme.example", companyName: "Acme B.V.", country: "NL" });
    expect(signUp.status).toBe(201);
    apiKey = signUp.body.data.apiKey;
    const patch = await json(
      server.base,
      "PATCH",
      `/admin/companies/${signUp.body.data.companyId}`,
      { enterprise: true, subscription: "pro", legalEntityId: "LE-1", peppolSendingEnabled: true },
      ADMIN_TOKEN,
    );
    expect(patch.status).toBe(200);
  });

  it("finds the marked examples (submit, validate a valid and an invalid invoice, the company, the keys)", () => {
    expect(examples.map((e) => /curl -s (?:-X (\w+) )?"?\$BASE(\/v1\/[\w/-]+)/.exec(e.sh)?.slice(1).join(" ").trim())).toEqual([
      "POST /v1/peppol/invoice",
      "POST /v1/validate",
      "POST /v1/validate",
      "/v1/company",
      "/v1/api-keys",
    ]);
  });

  it("answers each marked example as the page shows it", () => {
    for (const { line, sh, answer } of examples) {
      // Run from the repository root (the page's paths, examples/invoice.xml, are relative to it); body.json goes to a scratch folder.
      const script = `set -euo pipefail\ncd "$REPO"\n${sh.replaceAll("> body.json", '> "$SCRATCH/body.json"').replaceAll("@body.json", '@"$SCRATCH/body.json"')}`;
      const got = execFileSync("bash", ["-c", script], {
        env: { ...process.env, BASE: server.base, API_KEY: apiKey, REPO, SCRATCH: shellDir },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect({ line, answer: normalise(got) }).toEqual({ line, answer: normalise(answer) });
    }
  });
});
