// What the pages say exists must exist: every repository path (packages/…, docs/…, examples/…) that
// README.md, docs/*.md and the packages' READMEs name is a file or folder of the repository, every
// /v1 or /admin endpoint they name is in the OpenAPI document (with that method, when they give one),
// every `name(` they show is a name the source defines or uses, and every `file.ts` is a file of the
// repository; the source's comments name only repository paths that exist. A page that drifts (a file moved, an endpoint renamed, a function gone) fails here.
// The request and answer examples themselves run in examples/server/test/docs-examples.test.ts.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "@einvoice/express";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The pages checked, relative to the repository root. */
function pages(): string[] {
  const inFolder = (folder: string, name: (entry: string) => string | null): string[] =>
    readdirSync(join(REPO, folder))
      .map(name)
      .filter((path): path is string => path !== null && existsSync(join(REPO, path)));
  return [
    "README.md",
    ...inFolder("docs", (f) => (f.endsWith(".md") ? `docs/${f}` : null)),
    ...inFolder("packages", (p) => `packages/${p}/README.md`),
    ...inFolder("examples", (p) => `examples/${p}/README.md`),
  ];
}

/** Files the pages name that a run makes, not the repository holds (build output, benchmark results, a reader's own package). */
const MADE_BY_A_RUN = new Set(["examples/server/dist/main.js", "bench/results.json", "bench/scratch", "packages/my-store/test/my-store.test.ts"]);
/** Endpoints named as examples of what does not exist. */
const NAMED_AS_MISSING = new Set(["/v1/nothing"]);
/** File names the pages give as a pattern (`x.ts` next to `x.test.ts`), not as a file. */
const PATTERN_FILES = new Set(["x.ts", "x.test.ts"]);

interface Mention {
  page: string;
  line: number;
  text: string;
}

function mentions(pattern: RegExp, group = 1): Mention[] {
  const out: Mention[] = [];
  for (const page of pages()) {
    readFileSync(join(REPO, page), "utf8")
      .split("\n")
      .forEach((text, index) => {
        for (const m of text.matchAll(pattern)) out.push({ page, line: index + 1, text: m[group]! });
      });
  }
  return out;
}

const where = (m: Mention): string => `${m.page}:${m.line} ${m.text}`;

const trackedFiles = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: REPO, encoding: "utf8", maxBuffer: 64 << 20 })
  .split("\n")
  .filter(Boolean);

describe("the pages name only what exists", () => {
  it("finds the pages and what they name (so an empty scan cannot pass)", () => {
    expect(pages()).toEqual(expect.arrayContaining(["README.md", "docs/api.md", "docs/architecture.md", "packages/core/README.md"]));
    expect(mentions(REPO_PATH).length).toBeGreaterThan(50);
    expect(mentions(ENDPOINT).length).toBeGreaterThan(100);
    expect(mentions(CALL).length).toBeGreaterThan(100);
  });

  it("names repository paths that are files or folders of the repository", () => {
    const missing = mentions(REPO_PATH).filter((m) => !MADE_BY_A_RUN.has(m.text) && !existsSync(join(REPO, m.text)));
    expect(missing.map(where)).toEqual([]);
  });

  it("names /v1 and /admin endpoints that the OpenAPI document has, with the method it gives", () => {
    const operations = Object.entries(openApiDocument().paths as Record<string, Record<string, unknown>>).map(([path, item]) => ({
      // A parameter ({id}) stands for any one segment; the pages write ids as values (0208:0123456789), `{id}` or `%`.
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      // A page may cut a path short with `…` (`/v1/webhooks/%c0/…`): then it must begin a documented one.
      prefix: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}(/|$)`),
      methods: Object.keys(item).map((m) => m.toUpperCase()),
    }));
    const wrong = mentions(ENDPOINT, 0).filter((m) => {
      const [, method, rawPath] = /^(?:(GET|POST|PATCH|PUT|DELETE) )?(\S+)$/.exec(m.text)!;
      const path = rawPath!.replace(/[.:,;]+$/, "");
      if (path === "/v1" || path === "/admin" || NAMED_AS_MISSING.has(path)) return false;
      const cut = path.endsWith("/…");
      const whole = path.replace(/\/…$/, "");
      const matching = operations.filter((op) => (cut ? op.prefix.test(whole) || whole.split("/").length < 3 : op.pattern.test(whole)));
      if (matching.length === 0) return true;
      return method !== undefined && !matching.some((op) => op.methods.includes(method));
    });
    expect(wrong.map(where)).toEqual([]);
  });

  it("shows calls (`name(`) of functions the source has", () => {
    const names = new Set<string>();
    for (const file of trackedFiles.filter((f) => /^(packages|examples|bench|soak|scripts)\/.*\.(ts|mjs|cjs)$/.test(f))) {
      for (const line of readFileSync(join(REPO, file), "utf8").split("\n")) {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue; // a comment names, it does not define
        for (const m of line.matchAll(/[A-Za-z_$][\w$]*/g)) names.add(m[0]);
      }
    }
    const unknown = mentions(CALL).filter((m) => !names.has(m.text.split(".").pop()!));
    expect(unknown.map(where)).toEqual([]);
  });

  it("has source comments that name repository paths the repository has", () => {
    const missing: string[] = [];
    for (const file of trackedFiles.filter((f) => /^(packages|examples|bench|soak|scripts)\/.*\.(ts|mjs|cjs)$/.test(f) && !f.endsWith(".d.ts"))) {
      readFileSync(join(REPO, file), "utf8")
        .split("\n")
        .forEach((line, index) => {
          const comment = /(?:\/\/|\/\*|^\s*\*)(.*)$/.exec(line)?.[1];
          if (comment === undefined) return;
          for (const m of comment.matchAll(REPO_PATH)) {
            if (!MADE_BY_A_RUN.has(m[1]!) && !existsSync(join(REPO, m[1]!))) missing.push(`${file}:${index + 1} ${m[1]}`);
          }
        });
    }
    expect(missing).toEqual([]);
  });

  it("names source files (`name.ts`) that the repository has", () => {
    const baseNames = new Set(trackedFiles.map((f) => f.split("/").pop()!));
    const missing = mentions(TS_FILE).filter((m) => !PATTERN_FILES.has(m.text) && !baseNames.has(m.text.split("/").pop()!));
    expect(missing.map(where)).toEqual([]);
  });
});

/** A repository path: packages/…, docs/…, examples/… and the other top folders, not inside a longer path or URL. */
const REPO_PATH = /(?<![\w./-])((?:packages|docs|examples|bench|soak|scripts|testdata)\/[\w./@-]*[\w@])(?![\w*{-])/g;
/** An endpoint: an optional method, then /v1/… or /admin/…, not inside a URL. */
const ENDPOINT = /(?:(?:GET|POST|PATCH|PUT|DELETE) )?(?<![\w.:/-])\/(?:v1|admin)(?:\/[\w{}%:.…-]+)*/g;
/** A call shown in code: `name(` or `object.name(`. */
const CALL = /`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(/g;
/** A TypeScript file named in code: `name.ts` or `folder/name.ts`. */
const TS_FILE = /`((?:[\w.-]+\/)*[\w.-]+\.ts)`/g;
