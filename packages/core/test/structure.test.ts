// The folders' dependency rules (docs/architecture.md, "Inside the core"), checked by dependency-cruiser
// with packages/core/.dependency-cruiser.cjs: each folder imports only the folders below it, no module
// cycle, no Express or database driver. Then the folder graph dependency-cruiser found is checked for
// cycles (document/model.ts, the model the pipeline builds and the rules read, is its own node). Last, the
// page itself: the folders it lists, the domain's one I/O, the packages it names.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const CORE = resolve(import.meta.dirname, "..");
// the workspace's devDependency (the CLI; its JSON output is what the checks below read)
const BIN = join(CORE, "..", "..", "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");

interface Cruise {
  modules: Array<{ source: string; dependencies: Array<{ resolved: string; coreModule: boolean; couldNotResolve: boolean }> }>;
  summary: { violations: Array<{ from: string; to: string; rule: { name: string } }>; totalCruised: number };
}

function cruise(): Cruise {
  let out: string;
  try {
    out = execFileSync(process.execPath, [BIN, "--config", ".dependency-cruiser.cjs", "--output-type", "json", "src"], { cwd: CORE, encoding: "utf8", maxBuffer: 64 << 20 });
  } catch (e) {
    // depcruise exits non-zero on violations; its JSON is still on stdout
    out = (e as { stdout?: string }).stdout ?? "";
    if (!out) throw e;
  }
  return JSON.parse(out) as Cruise;
}

/** The node of a source file in the folder graph: its folder under src/, document/model.ts on its own. */
const folderOf = (path: string): string | null => {
  if (!path.startsWith("src/")) return null;
  if (path === "src/document/model.ts") return "document/model";
  const parts = path.split("/");
  return parts.length > 2 ? parts[1]! : null;
};

/** The folders on a cycle of the graph, or [] (depth-first search for a back edge). */
function cycle(edges: Map<string, Set<string>>): string[] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): string[] => {
    state.set(n, "open");
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === "open") return [...stack.slice(stack.indexOf(m)), m];
      if (!state.has(m)) {
        const found = visit(m);
        if (found.length) return found;
      }
    }
    stack.pop();
    state.set(n, "done");
    return [];
  };
  for (const n of edges.keys()) if (!state.has(n)) {
    const found = visit(n);
    if (found.length) return found;
  }
  return [];
}


const SRC = join(CORE, "src");
const ARCHITECTURE = readFileSync(resolve(CORE, "../../docs/architecture.md"), "utf8");
const MANIFEST = JSON.parse(readFileSync(resolve(CORE, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

/** The modules a file imports (static `from "..."` and dynamic `import("...")`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
}

/** The package a bare import names (`@scope/name` or `name`), or null for a relative or built-in one. */
function packageOf(spec: string): string | null {
  if (spec.startsWith(".") || spec.startsWith("node:") || builtinModules.includes(spec)) return null;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

describe("the core's folders (dependency-cruiser)", () => {
  const result = cruise();

  it("cruises every source file of src/, under a rule for each folder but the top one (testing/), the cycle rule and the driver rule", async () => {
    const cruised = result.modules.map((m) => m.source).filter((p) => p.startsWith("src/"));
    const code = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? code(join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [relative(CORE, join(dir, e.name))] : []));
    expect(cruised.sort()).toEqual(code(SRC).sort());
    const config = (await import(join(CORE, ".dependency-cruiser.cjs"))).default as { forbidden: Array<{ name: string; from: { path?: string } }> };
    const names = config.forbidden.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["no-circular", "no-express-or-database-driver"]));
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const layered = config.forbidden.map((r) => /^\^src\/([\w-]+)\/$/.exec(r.from.path ?? "")?.[1]).filter((f) => f !== undefined);
    expect(layered.sort()).toEqual(folders.filter((f) => f !== "testing").sort());
  });

  it("breaks no dependency rule: each folder imports only the folders below it, no module cycle, no Express or database driver", () => {
    expect(result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it("has no cycle between folders, and the rules import nothing of the document pipeline but its model", () => {
    const edges = new Map<string, Set<string>>();
    for (const m of result.modules) {
      const from = folderOf(m.source);
      if (!from) continue;
      for (const d of m.dependencies) {
        const to = folderOf(d.resolved);
        if (!to || to === from) continue;
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
      }
    }
    expect(cycle(edges)).toEqual([]);
    expect([...(edges.get("validation") ?? [])].sort()).toEqual(["document/model", "domain"]);
    expect(edges.get("document")).toContain("validation");
  });
});

describe("docs/architecture.md says what the source is", () => {
  const files = sourceFiles(SRC);
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  /** The folders docs/architecture.md's tree of packages/core/src/ names. */
  const documented = [...(/```\npackages\/core\/src\/\n([^]*?)```/.exec(ARCHITECTURE)?.[1] ?? "").matchAll(/^ {2}([\w-]+)\/ /gm)].map((m) => m[1]!).sort();

  it("has exactly the folders docs/architecture.md describes, each with source in it", () => {
    expect(folders).toEqual(documented);
    for (const folder of folders) expect(files.filter((f) => relative(SRC, f).startsWith(`${folder}/`)), folder).not.toEqual([]);
  });

  it("keeps I/O out of the domain but for the DNS lookup of webhook-target.ts that docs/architecture.md names", () => {
    const io = /^node:(dns|dns\/promises|net|fs|fs\/promises|http|https|child_process|worker_threads)$/;
    const doing = files
      .filter((f) => relative(SRC, f).startsWith("domain/"))
      .flatMap((f) => importsOf(f).filter((spec) => io.test(spec)).map((spec) => `${relative(SRC, f)} ${spec}`));
    expect(doing).toEqual(["domain/webhook-target.ts node:dns/promises", "domain/webhook-target.ts node:net"]);
    expect(ARCHITECTURE).toMatch(/domain\/ +the rules and records, no I\/O but one: webhook-target\.ts's default resolver asks the\n *system's DNS/);
  });

  it("imports only the packages its package.json lists, and docs/architecture.md names exactly its dependencies", () => {
    const declared = new Set([...Object.keys(MANIFEST.dependencies), ...Object.keys(MANIFEST.peerDependencies ?? {})]);
    const imported = files.flatMap((f) => importsOf(f).map((spec) => ({ file: relative(SRC, f), pkg: packageOf(spec) })));
    expect(imported.filter((i) => i.pkg !== null && !declared.has(i.pkg))).toEqual([]);
    // The sentence of the core's bullet: "It depends on `zod` (…), `big.js` (…), …; its XML reader …".
    const sentence = /^- \*\*core\*\* [^]*?It depends on ([^;]*);/m.exec(ARCHITECTURE)?.[1] ?? "";
    const named = [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    expect(named.sort()).toEqual(Object.keys(MANIFEST.dependencies).sort());
  });

  it("keeps every test in its package's test/, and a test in a sub-folder of test/ at the path of what it tests in src/ (Where the tests are)", () => {
    const root = resolve(CORE, "..", "..");
    const walk = (dir: string): string[] =>
      existsSync(dir)
        ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [join(dir, e.name)] : []))
        : [];
    const projects = ["packages", "examples"].flatMap((d) =>
      readdirSync(join(root, d), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(root, d, e.name)),
    );
    const inSrc = projects.flatMap((p) => walk(join(p, "src")).map((t) => relative(root, t)));
    expect(inSrc).toEqual([]);
    // test/<folder>/<name>.test.ts tests src/<folder>/<name>.ts, the folder src/<folder> when <name> is
    // its last part, or the family src/<folder>/<name's first word>-*.ts.
    const misplaced = projects.flatMap((p) =>
      walk(join(p, "test"))
        .filter((t) => {
          const folder = relative(join(p, "test"), dirname(t));
          if (folder === "" || folder === "support" || folder.startsWith("support/")) return false;
          const src = join(p, "src", folder);
          const name = t.slice(dirname(t).length + 1, -".test.ts".length);
          let modules: string[];
          try {
            modules = readdirSync(src).filter((n) => n.endsWith(".ts"));
          } catch {
            return true; // no such folder in src/
          }
          return !modules.includes(`${name}.ts`) && name !== folder.split("/").at(-1) && !modules.some((n) => n.startsWith(`${name.split("-")[0]}-`));
        })
        .map((t) => relative(root, t)),
    );
    expect(misplaced).toEqual([]);
    expect(ARCHITECTURE).toMatch(/## Where the tests are\n/);
  });

  it("keeps the tests' helpers in test/support/ and their fixtures in test/fixtures/, in the packages and the examples alike (Where the tests are)", () => {
    const root = resolve(CORE, "..", "..");
    const files = (dir: string): string[] =>
      existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)])) : [];
    const projects = ["packages", "examples"].flatMap((d) =>
      readdirSync(join(root, d), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(root, d, e.name)),
    );
    const helpers = projects.flatMap((p) => files(join(p, "test", "support")));
    // The example server's process helpers are among them: the check reaches the examples.
    expect(helpers.map((f) => relative(root, f))).toContain("examples/server/test/support/server-process.ts");
    const astray = projects.flatMap((p) =>
      files(join(p, "test"))
        .filter((f) => !f.endsWith(".test.ts"))
        .filter((f) => !/^(support|fixtures)\//.test(relative(join(p, "test"), f)))
        .map((f) => relative(root, f)),
    );
    expect(astray).toEqual([]);
    expect(ARCHITECTURE).toMatch(/a file that is not a `\*\.test\.ts` is under `test\/support\/` or `test\/fixtures\/`, in the packages and\n *in the examples alike/);
  });
});
