// The folders' dependency rules (docs/architecture.md), checked on the import statements of the source.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

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

describe("the core's folders", () => {
  const files = sourceFiles(SRC);

  it("finds the source", () => {
    expect(files.length).toBeGreaterThan(30);
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

  it("never imports Express or a database driver", () => {
    const offending = files.flatMap((f) =>
      importsOf(f)
        .filter((spec) => /^(express|pg|@electric-sql\/pglite)(\/|$)/.test(spec))
        .map((spec) => ({ file: relative(SRC, f), spec })),
    );
    expect(offending).toEqual([]);
  });
});
