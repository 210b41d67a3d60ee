// A clean stop of the HTTP server: no new connections, the requests in flight finish (bounded), idle sockets closed.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";

export interface Draining {
  /** The request listener to give `createServer`: while stopping, every answer says `Connection: close`. */
  listener: RequestListener;
  /** Requests being answered now. */
  readonly inFlight: number;
  /**
   * Stops taking connections, lets the requests in flight finish for at most `timeoutMs`, then
   * closes what is left. Resolves with how many requests were cut off (0 in a clean stop).
   */
  close(server: Server, timeoutMs: number): Promise<number>;
}

/** Wraps `app` so that a stop can wait for its requests in flight. */
export function draining(app: (req: IncomingMessage, res: ServerResponse) => void): Draining {
  let stopping = false;
  const open = new Set<ServerResponse>();
  let onIdle: (() => void) | null = null;
  // A keep-alive client is told to reconnect (to another instance behind the proxy) after its answer.
  const closing = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader("Connection", "close");
  };
  const listener: RequestListener = (req, res) => {
    open.add(res);
    if (stopping) closing(res);
    res.once("close", () => {
      open.delete(res);
      if (open.size === 0) onIdle?.();
    });
    app(req, res);
  };
  return {
    listener,
    get inFlight() {
      return open.size;
    },
    async close(server, timeoutMs) {
      stopping = true;
      for (const res of open) closing(res);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive sockets would hold `close` open; those that turn idle later are closed as they do.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<void>((resolve) => {
        if (open.size === 0) resolve();
        onIdle = resolve;
      });
      const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
      const result = await Promise.race([idle, timedOut]);
      const cut = result === "timeout" ? open.size : 0;
      clearInterval(sweep);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
      return cut;
    },
  };
}
