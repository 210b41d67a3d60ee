// Starts the example server as a real process (as `pnpm start` does) and waits until it takes requests.
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface RunningServer {
  base: string;
  adminToken: string;
  process: ChildProcess;
  output: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
}

/** Every server started by this test process: none outlives it, whatever a test did. */
const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

export async function startServer(env: Record<string, string | undefined>, timeoutMs = 90_000): Promise<RunningServer> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts"], {
    cwd: serverDir,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  // main.ts ends its banner with the "ready" line: only then are all its lines (and the admin token) there.
  let base: string | undefined;
  while (!base) {
    const m = /^ready: taking requests on (http:\/\/localhost:\d+)/m.exec(out);
    if (m) base = m[1];
    else if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    else if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start in time:\n${out}`);
    } else await new Promise((r) => setTimeout(r, 50));
  }
  const token = env.ADMIN_TOKEN ?? /this run's admin token: (\S+)/.exec(out)?.[1] ?? "";
  return {
    base,
    adminToken: token,
    process: child,
    output: () => out,
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

export async function json(base: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
