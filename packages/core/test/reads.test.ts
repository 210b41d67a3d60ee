import { describe, expect, it } from "vitest";
import { encodeCursor, getInvoice, listClients, listInvoices, submitInvoice } from "../src/index.js";
import { failure } from "./support/errors.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";


async function seeded(n: number) {
  const s = await setup();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await submitInvoice(s.store, s.auth, { xml: b64(invoiceXml({ id: `N-${i}`, endpoint: `E${i % 3}`, scheme: "0106" })) }, s.options);
    ids.push(r.submissionId);
  }
  return { ...s, ids };
}

describe("listInvoices", () => {
  it("lists newest first, 20 by default, with a cursor to the next page", async () => {
    const { store, auth, ids } = await seeded(25);
    const p1 = await listInvoices(store, auth, {});
    expect(p1.data.map((i) => i.id)).toEqual(ids.slice().reverse().slice(0, 20));
    expect(p1.nextCursor).toEqual(expect.any(String));
    const p2 = await listInvoices(store, auth, { cursor: p1.nextCursor! });
    expect(p2.data.map((i) => i.id)).toEqual(ids.slice().reverse().slice(20));
    expect(p2.nextCursor).toBeNull();
  });

  it("pages through everything exactly once with any limit", async () => {
    const { store, auth, ids } = await seeded(11);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listInvoices>> = await listInvoices(store, auth, cursor ? { limit: "4", cursor } : { limit: "4" });
      expect(page.data.length).toBeLessThanOrEqual(4);
      seen.push(...page.data.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids.slice().reverse());
  });

  it("filters by status and by client", async () => {
    const { store, auth, options, ids } = await seeded(6);
    const dup = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "N-0", endpoint: "E0", scheme: "0106" })) }, options);
    const failed = await listInvoices(store, auth, { status: "failed" });
    expect(failed.data.map((i) => i.id)).toEqual([dup.submissionId]);
    const one = await getInvoice(store, auth, ids[0]!);
    const mine = await listInvoices(store, auth, { clientId: one.clientId!.toUpperCase() });
    expect(mine.data.map((i) => i.id)).toEqual([ids[3], ids[0]]);
    expect((await listInvoices(store, auth, { clientId: "00000000-0000-4000-8000-000000000000" })).data).toEqual([]);
  });

  it("takes numbers for limit from library callers", async () => {
    const { store, auth } = await seeded(3);
    expect((await listInvoices(store, auth, { limit: 2 })).data).toHaveLength(2);
  });

  it("refuses bad queries with 400 and class-validator wording", async () => {
    const { store, auth } = await seeded(1);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ limit: "0" }, "limit must not be less than 1"],
      [{ limit: "101" }, "limit must not be greater than 100"],
      [{ limit: "" }, "limit must be an integer number"],
      [{ limit: "2.5" }, "limit must be an integer number"],
      [{ limit: ["1", "2"] }, "limit must not be repeated"],
      [{ status: "sent" }, "status must be one of the following values: sending, delivered, failed, received"],
      [{ direction: "both" }, "direction must be one of the following values: outbound, inbound"],
      [{ supplierId: "abc" }, "supplierId must be a UUID"],
      [{ clientId: "abc" }, "clientId must be a UUID"],
      [{ page: "2" }, "property page should not exist"],
      [{ cursor: "garbage" }, "cursor must be a valid pagination cursor (pass nextCursor from the previous page unchanged)"],
      [{ cursor: "" }, "cursor must be a valid pagination cursor (pass nextCursor from the previous page unchanged)"],
      [{ cursor: Buffer.from('["i","2026-13-45T99:99:99.999Z","00000000-0000-4000-8000-000000000000"]').toString("base64url") }, "cursor must be a valid pagination cursor (pass nextCursor from the previous page unchanged)"],
    ];
    for (const [query, message] of cases) {
      const e = await failure(listInvoices(store, auth, query));
      expect(e.status).toBe(400);
      expect(e.details).toContain(message);
    }
  });

  it("does not take a client cursor for an invoice cursor", async () => {
    const { store, auth } = await seeded(1);
    const clientCursor = encodeCursor("c", { at: "2026-01-01T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" });
    expect((await failure(listInvoices(store, auth, { cursor: clientCursor }))).status).toBe(400);
  });

  it("never shows another company's invoices", async () => {
    const a = await seeded(3);
    const b = await setup({ store: a.store });
    expect((await listInvoices(b.store, b.auth, {})).data).toEqual([]);
    for (const id of a.ids) {
      const e = await failure(getInvoice(b.store, b.auth, id));
      expect([e.code, e.status]).toEqual(["invoice_not_found", 404]);
    }
  });
});

describe("getInvoice", () => {
  it("answers invoice_not_found for unknown and malformed ids", async () => {
    const { store, auth } = await seeded(1);
    for (const id of ["00000000-0000-4000-8000-000000000000", "abc", "' OR 1=1 --", ""]) {
      expect((await failure(getInvoice(store, auth, id))).code).toBe("invoice_not_found");
    }
  });
});

describe("listClients", () => {
  it("lists one client per recipient, latest invoice first, with counts and a cursor", async () => {
    const { store, auth } = await seeded(7);
    const all = await listClients(store, auth, {});
    expect(all.data.map((c) => [c.endpointId, c.invoiceCount])).toEqual([
      ["0106:E0", 3],
      ["0106:E2", 2],
      ["0106:E1", 2],
    ]);
    expect(all.nextCursor).toBeNull();
    const p1 = await listClients(store, auth, { limit: "2" });
    const p2 = await listClients(store, auth, { limit: "2", cursor: p1.nextCursor! });
    expect([...p1.data, ...p2.data].map((c) => c.id)).toEqual(all.data.map((c) => c.id));
    expect(p2.nextCursor).toBeNull();
    expect((await failure(listClients(store, auth, { status: "failed" }))).details).toEqual(["property status should not exist"]);
  });
});
