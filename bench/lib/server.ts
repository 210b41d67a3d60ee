// Starts a server-child in its own process and talks to it over loopback only.
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { REPO_ROOT } from "./corpus.ts";

export interface BenchServer {
  url: string;
  apiKey: string;
  child: ChildProcess;
  /** The server's event-loop delay (p99 and max, ms) since the last call. */
  eventLoopDelay(): Promise<{ p99: number; max: number }>;
  stop(): Promise<void>;
}

export async function startServer(mode: "app" | "bare"): Promise<BenchServer> {
  const child = fork(join(REPO_ROOT, "bench", "metrics", "server-child.ts"), [mode], {
    cwd: REPO_ROOT,
    execArgv: ["--conditions=source", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [msg] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => Promise.reject(new Error(`server-child ${mode} exited with ${code}`))),
  ])) as [{ port: number; apiKey: string }];
  return {
    url: `http://127.0.0.1:${msg.port}`,
    apiKey: msg.apiKey,
    child,
    async eventLoopDelay() {
      const reply = new Promise<{ p99: number; max: number }>((resolve) => {
        const on = (m: { eld?: { p99: number; max: number } }) => {
          if (!m.eld) return;
          child.off("message", on);
          resolve(m.eld);
        };
        child.on("message", on);
      });
      child.send("eld");
      return reply;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.send("stop");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
