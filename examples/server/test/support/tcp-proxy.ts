// A TCP proxy in front of the machine's PostgreSQL, for the tests that take "the database" away under
// a running server without touching the shared cluster: cut (connections reset, new ones refused) or
// hang (connections accepted, nothing forwarded), then restore.
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Resets every connection and refuses new ones (a database that went away). */
  cut(): void;
  /** Keeps connections open but forwards nothing, either way (a database that hangs); new ones hang too. */
  hang(): void;
  /** Forwards again; what a hang held back goes through. */
  restore(): void;
  close(): Promise<void>;
}

type Mode = "forward" | "cut" | "hang";

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: Mode = "forward";
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    if (mode === "cut") {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    if (mode === "forward") flow(pair);
  });
  /** Bytes move both ways (again). */
  const flow = ([c, u]: [Socket, Socket]) => {
    c.pipe(u);
    u.pipe(c);
  };
  /** Bytes stay where they are, both ways. */
  const hold = ([c, u]: [Socket, Socket]) => {
    c.unpipe(u);
    u.unpipe(c);
    c.pause();
    u.pause();
  };
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      mode = "cut";
      for (const [c, u] of pairs) {
        c.resetAndDestroy();
        u.destroy();
      }
      pairs.clear();
    },
    hang() {
      mode = "hang";
      for (const pair of pairs) hold(pair);
    },
    restore() {
      if (mode === "hang") for (const pair of pairs) flow(pair);
      mode = "forward";
    },
    async close() {
      for (const [c, u] of pairs) {
        c.destroy();
        u.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
