// The optional drivers (`pg`, `@electric-sql/pglite`), each imported only when a store is opened on
// it: a user of one never needs the other installed, and a missing one says what to install.

/** The peer dependency ranges this package is tested with (package.json's peerDependencies). */
export const DRIVER_PACKAGES = {
  pg: { range: "^8.16.0", usedFor: "a PostgreSQL server (databaseUrl)" },
  "@electric-sql/pglite": { range: "~0.5.16", usedFor: "the embedded store (PGlite: dataDir, or in memory)" },
} as const;

export type DriverPackage = keyof typeof DRIVER_PACKAGES;

/**
 * An optional driver the store needs is not installed. `install` is the command that fixes it,
 * such as `npm install "pg@^8.16.0"`.
 */
export class MissingDriverError extends Error {
  override readonly name = "MissingDriverError";
  readonly code = "ERR_EINVOICE_MISSING_DRIVER";
  readonly packageName: DriverPackage;
  readonly install: string;

  constructor(packageName: DriverPackage, options?: { cause?: unknown }) {
    const { range, usedFor } = DRIVER_PACKAGES[packageName];
    const install = `npm install "${packageName}@${range}"`;
    super(`@einvoice/postgres needs the package ${packageName} for ${usedFor}, and it is not installed. Install it: ${install}`, options);
    this.packageName = packageName;
    this.install = install;
  }
}

/** Whether `e` says that `packageName` itself (not something it imports) cannot be found. */
function isNotFound(e: unknown, packageName: string): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || (err.code !== "ERR_MODULE_NOT_FOUND" && err.code !== "MODULE_NOT_FOUND")) return false;
  return typeof err.message === "string" && (err.message.includes(`'${packageName}'`) || err.message.includes(`"${packageName}"`));
}

/**
 * Runs `load` (a dynamic `import()` of `packageName`); when the package is not installed, throws a
 * `MissingDriverError` naming the npm command. Any other failure goes through unchanged.
 */
export async function loadDriver<T>(packageName: DriverPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (isNotFound(e, packageName)) throw new MissingDriverError(packageName, { cause: e });
    throw e;
  }
}
