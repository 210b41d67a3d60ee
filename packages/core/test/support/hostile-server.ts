// A hostile HTTP server on 127.0.0.1 for tests: every answer is 200, chunked, and streams up to `totalBytes`
// (far more than any client should read), as fast as the client reads. `sent()` says how much it wrote.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface HostileServer {
  url: string;
  /** Bytes written to the sockets so far (what the client read, plus what sits in the buffers between). */
  sent(): number;
  close(): Promise<void>;
}

export async function startHostileServer(totalBytes = 256 * 1024 * 1024, contentType = "application/json"): Promise<HostileServer> {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, "a");
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": contentType }); // no Content-Length: chunked
    let mine = 0;
    const pump = (): void => {
      while (mine < totalBytes && !res.destroyed) {
        mine += chunk.length;
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on("close", () => (mine = totalBytes));
    pump();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
