// readBoundedText stops reading at the cap: a hostile server streaming 256 MiB costs the client about the cap.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileServer, type HostileServer } from "../support/hostile-server.js";
import { readBoundedText } from "../../src/domain/bounded-read.js";

const MiB = 1024 * 1024;
let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer(256 * MiB);
});
afterAll(() => hostile.close());

describe("readBoundedText (issue 26, finding 5)", () => {
  it("stops at the cap of a 256 MiB chunked answer: null, and neither the client's memory nor the bytes served grow past a few times the cap", async () => {
    const before = process.memoryUsage();
    const res = await fetch(hostile.url);
    expect(await readBoundedText(res, 4 * MiB)).toBeNull();
    const after = process.memoryUsage();
    // Before (res.text()): the whole 256 MiB was read (and the process grew by more than that).
    expect(hostile.sent()).toBeLessThan(32 * MiB);
    expect(after.rss - before.rss).toBeLessThan(64 * MiB);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(32 * MiB);
  });

  it("reads an answer within the cap whole, and refuses a declared Content-Length over it without reading", async () => {
    expect(await readBoundedText(new Response("héllo"), 10)).toBe("héllo");
    expect(await readBoundedText(new Response("x".repeat(11)), 10)).toBeNull();
    expect(await readBoundedText(new Response(null), 10)).toBe("");
    const declared = new Response("x", { headers: { "content-length": "999999999" } });
    expect(await readBoundedText(declared, 10)).toBeNull();
  });
});
