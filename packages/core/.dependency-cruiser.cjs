// The dependency rules of the core's folders (docs/architecture.md, "Inside the core"), checked by
// dependency-cruiser in packages/core/test/structure.test.ts (part of `pnpm test`). Each folder may
// import only the folders below it in this order, so the folders cannot form a cycle:
//   domain < ports < document/model.ts < validation < document < routing < adapters < workers < use-cases < testing
// (the test also checks the collapsed folder graph for cycles, and no-circular forbids module cycles).
const SRC = "^src/";
const layer = (folder, allowed) => ({
  name: `${folder}-imports-only-${allowed.join("-") || "itself"}`,
  comment: `${folder}/ may import ${allowed.length ? allowed.join(", ") : "nothing but itself"} (docs/architecture.md)`,
  severity: "error",
  from: { path: `${SRC}${folder}/` },
  to: {
    path: SRC,
    pathNot: [`${SRC}${folder}/`, ...allowed.map((a) => (a.endsWith(".ts") ? `${SRC}${a.replace(/\./g, "\\.")}$` : `${SRC}${a}/`))],
  },
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no module imports itself through others at run time (a type-only import, erased by the compiler, may close a loop: domain/types.ts derives types from domain/schemas.ts)",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "no-express-or-database-driver",
      comment: "the core never imports Express or a database driver",
      severity: "error",
      from: { path: SRC },
      to: { path: "(^|/)node_modules/(express|pg|@electric-sql/pglite)/" },
    },
    layer("domain", []),
    layer("ports", ["domain"]),
    layer("validation", ["domain", "document/model.ts"]),
    layer("document", ["domain", "ports", "validation"]),
    layer("routing", ["domain", "ports", "document"]),
    layer("adapters", ["domain", "ports", "document", "routing"]),
    layer("workers", ["domain", "ports", "document", "routing", "adapters"]),
    layer("use-cases", ["domain", "ports", "document", "validation", "routing", "adapters", "workers"]),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
