// A local DNS server on 127.0.0.1 (UDP, dns-packet) that answers NAPTR queries from a table: NXDOMAIN for names it does not know.
import { createSocket, type RemoteInfo } from "node:dgram";
import type { AddressInfo } from "node:net";
import * as packet from "dns-packet";

export interface NaptrAnswer {
  order?: number;
  preference?: number;
  flags?: string;
  services?: string;
  regexp: string;
  replacement?: string;
}

export interface FakeDns {
  /** `127.0.0.1:<port>`, for `DNS_SERVERS` or `dnsServers`. */
  server: string;
  /** NAPTR answers by lower-case name; `"servfail"` answers SERVFAIL, `"silent"` never answers. */
  records: Map<string, NaptrAnswer[] | "servfail" | "silent">;
  /** Every name asked, in order. */
  queries: string[];
  close(): Promise<void>;
}

const NXDOMAIN = 3;
const SERVFAIL = 2;

export async function startFakeDns(): Promise<FakeDns> {
  const socket = createSocket("udp4");
  const records: FakeDns["records"] = new Map();
  const queries: string[] = [];
  socket.on("message", (msg: Buffer, rinfo: RemoteInfo) => {
    let q: packet.Packet;
    try {
      q = packet.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.push(name);
    const entry = records.get(name);
    if (entry === "silent") return;
    const reply = (flags: number, answers: packet.Answer[] = []) =>
      socket.send(packet.encode({ id: q.id, type: "response", flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | flags, questions: q.questions, answers }), rinfo.port, rinfo.address);
    if (entry === "servfail") return reply(SERVFAIL);
    if (!entry) return reply(NXDOMAIN);
    if (question.type !== "NAPTR") return reply(0);
    reply(
      0,
      entry.map((a) => ({
        type: "NAPTR",
        name: question.name,
        ttl: 60,
        data: { order: a.order ?? 100, preference: a.preference ?? 10, flags: a.flags ?? "U", services: a.services ?? "Meta:SMP", regexp: a.regexp, replacement: a.replacement ?? "." },
      })) as packet.Answer[],
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const { port } = socket.address() as AddressInfo;
  return { server: `127.0.0.1:${port}`, records, queries, close: () => new Promise<void>((r) => socket.close(() => r())) };
}
