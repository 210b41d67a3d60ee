// A lock file that keeps a second process off an embedded PGlite folder (PGlite serves one process).
import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { DbError } from "./db.js";

/** Folders this process holds (a second PGlite on the same folder in one process corrupts it too). */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface LockContent {
  pid: number;
  host: string;
}

async function readLock(path: string): Promise<LockContent | null> {
  try {
    const v = JSON.parse(await readFile(path, "utf8")) as Partial<LockContent>;
    return typeof v.pid === "number" && typeof v.host === "string" ? { pid: v.pid, host: v.host } : null;
  } catch {
    return null;
  }
}

async function youngerThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs < ms;
  } catch {
    return false;
  }
}

/**
 * Takes `<dir>/lock` for this process, or throws when a live process (on this host, or any process
 * on another host) holds it. A lock left by a process that is gone (a crash) is taken over.
 * Returns the release function. Best effort: it guards against the common mistake of starting two
 * servers on one data folder, not against every race of two starts after a crash.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const folder = resolve(dir);
  const path = join(folder, "lock");
  const mine: LockContent = { pid: process.pid, host: hostname() };
  const inUse = (who: string) =>
    new DbError(
      `the data folder ${folder} is in use by ${who}; embedded PGlite serves one process: stop the other one, ` +
        `or share a PostgreSQL server (DATABASE_URL) between several instances. If no other process uses it, delete ${path}.`,
    );
  if (held.has(folder)) throw inUse("this process");
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path, JSON.stringify(mine), { flag: "wx" });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 2) throw e;
    }
    const other = await readLock(path);
    if (!other && (await youngerThan(path, 5_000))) throw inUse("another process that is starting");
    if (other && other.host !== mine.host) throw inUse(`process ${other.pid} on host ${other.host}`);
    // Our own pid in the file is a previous life of this process (such as pid 1 in a restarted container).
    if (other && other.pid !== process.pid && alive(other.pid)) throw inUse(`process ${other.pid}`);
    await unlink(path).catch(() => {});
  }
  held.add(folder);
  return async () => {
    held.delete(folder);
    const now = await readLock(path);
    if (now && now.pid === mine.pid && now.host === mine.host) await unlink(path).catch(() => {});
  };
}
