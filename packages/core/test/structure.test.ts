// The folders' dependency rules (docs/architecture.md), checked on the import statements of the source.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
const ARCHITECTURE = readFileSync(resolve(SRC, "../../../docs/architecture.md"), "utf8");
const MANIFEST = JSON.parse(readFileSync(resolve(SRC, "../package.json"), "utf8")) as {
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

/** The folder under src/ a relative import of `file` lands in (null for a package). */
function folderOf(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  return relative(SRC, resolve(dirname(file), spec)).split("/")[0]!;
}

/** The package a bare import names (`@scope/name` or `name`), or null for a relative or built-in one. */
function packageOf(spec: string): string | null {
  if (spec.startsWith(".") || spec.startsWith("node:") || builtinModules.includes(spec)) return null;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

describe("the core's folders", () => {
  const files = sourceFiles(SRC);
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  /** The folders docs/architecture.md's tree of packages/core/src/ names. */
  const documented = [...(/```\npackages\/core\/src\/\n([^]*?)```/.exec(ARCHITECTURE)?.[1] ?? "").matchAll(/^ {2}([\w-]+)\/ /gm)].map((m) => m[1]!).sort();

  it("has exactly the folders docs/architecture.md describes, each with source in it", () => {
    expect(folders).toEqual(documented);
    for (const folder of folders) expect(files.filter((f) => relative(SRC, f).startsWith(`${folder}/`)), folder).not.toEqual([]);
  });

  it("keeps the background workers off the use-cases: they depend on ports, the domain, the document reader and the discovery cache", () => {
    const offending = files
      .filter((f) => relative(SRC, f).startsWith("workers/"))
      .flatMap((f) => importsOf(f).map((spec) => ({ file: relative(SRC, f), spec, folder: folderOf(f, spec) })))
      .filter((i) => i.folder !== null && !["workers", "ports", "domain", "document", "adapters"].includes(i.folder));
    expect(offending).toEqual([]);
  });

  it("keeps the domain free of the moving parts: it imports no adapter, use-case or worker (port contracts and the document reader only)", () => {
    const offending = files
      .filter((f) => relative(SRC, f).startsWith("domain/"))
      .flatMap((f) => importsOf(f).map((spec) => ({ file: relative(SRC, f), spec, folder: folderOf(f, spec) })))
      .filter((i) => i.folder !== null && !["domain", "document", "ports"].includes(i.folder));
    expect(offending).toEqual([]);
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

  it("never imports Express or a database driver", () => {
    const offending = files.flatMap((f) =>
      importsOf(f)
        .filter((spec) => /^(express|pg|@electric-sql\/pglite)(\/|$)/.test(spec))
        .map((spec) => ({ file: relative(SRC, f), spec })),
    );
    expect(offending).toEqual([]);
  });
});
