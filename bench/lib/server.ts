// Starts a server-child in its own process and talks to it over loopback only.
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { REPO_ROOT } from "./corpus.ts";

export interface BenchServer {
  url: string;
  apiKey: string;
  child: ChildProcess;
  /** The server's event-loop delay (p99 and max, ms) and its main thread's GCs since the last call. */
  eventLoopDelay(): Promise<LoopReport>;
  /**
   * Bench only: from now on, large bodies are read and dropped unparsed and answered after `ms` as
   * if accepted (0: back to the app). For the floor of latency_under_large.
   */
  sinkLarge(ms: number): Promise<void>;
  /** The app on an empty memory store from now on, with a new company and API key (`apiKey` changes); the bare route has no state. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export interface LoopReport {
  p99: number;
  max: number;
  /** Mark-compacts (major) and the other GC pauses (minor: scavenges, incremental steps), and their summed ms. */
  gc: { major: number; majorMs: number; minor: number; minorMs: number };
  /** CPU time of the whole server process (all its threads) per wall-clock time: cores busy. */
  cores: number;
  /** p99 (ms) of small requests measured inside the server, from their "request" event to the end of the answer. */
  smallP99: number;
}

export async function startServer(mode: "app" | "bare", nodeFlags: string[] = []): Promise<BenchServer> {
  const child = fork(join(REPO_ROOT, "bench", "metrics", "server-child.ts"), [mode], {
    cwd: REPO_ROOT,
    execArgv: [...nodeFlags, "--conditions=source", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [msg] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => Promise.reject(new Error(`server-child ${mode} exited with ${code}`))),
  ])) as [{ port: number; apiKey: string }];
  const server: BenchServer = {
    url: `http://127.0.0.1:${msg.port}`,
    apiKey: msg.apiKey,
    child,
    async eventLoopDelay() {
      const reply = new Promise<LoopReport>((resolve) => {
        const on = (m: { eld?: LoopReport }) => {
          if (!m.eld) return;
          child.off("message", on);
          resolve(m.eld);
        };
        child.on("message", on);
      });
      child.send("eld");
      return reply;
    },
    async sinkLarge(ms: number) {
      const reply = new Promise<void>((resolve) => {
        const on = (m: { sink?: number }) => {
          if (m.sink === undefined) return;
          child.off("message", on);
          resolve();
        };
        child.on("message", on);
      });
      child.send(`sink:${ms}`);
      return reply;
    },
    async reset() {
      const reply = new Promise<void>((resolve) => {
        const on = (m: { reset?: string }) => {
          if (m.reset === undefined) return;
          child.off("message", on);
          server.apiKey = m.reset;
          resolve();
        };
        child.on("message", on);
      });
      child.send("reset");
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
  return server;
}
