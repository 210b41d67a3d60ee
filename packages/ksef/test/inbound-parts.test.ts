import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { PackageError, decryptPart, numberOfEntry, readPackageMetadata, unzipPackage, DEFAULT_PACKAGE_BOUNDS } from "../src/inbound/package.js";
import { initialState, readInboundState, timeKey, waitFor, leftThisHour, plus } from "../src/inbound/state.js";

const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("base64");

describe("the sync state's timestamps", () => {
  it("orders KSeF's stamps exactly, whatever their offset and precision", () => {
    const a = timeKey("2026-11-10T10:00:00.1234561+00:00")!;
    const b = timeKey("2026-11-10T10:00:00.1234562+00:00")!;
    const c = timeKey("2026-11-10T11:00:00.1234562+01:00")!;
    expect(a < b).toBe(true);
    expect(b).toBe(c);
    expect(timeKey("2026-11-10T10:00:00Z")).toBe(timeKey("2026-11-10T10:00:00.000000000+00:00"));
    expect(timeKey("yesterday")).toBeNull();
    expect(timeKey(42)).toBeNull();
    expect(plus("2026-11-10T10:00:00.5+00:00", 1500)).toBe("2026-11-10T10:00:02.000Z");
  });

  it("reads back what it writes and refuses anything else (the caller starts afresh)", () => {
    const s = initialState("2026-02-01T00:00:00.000Z");
    expect(readInboundState(JSON.stringify(s))).toEqual(s);
    expect(readInboundState("{not json")).toBeNull();
    expect(readInboundState(JSON.stringify({ ...s, inc: { ...s.inc, from: "soon" } }))).toBeNull();
    expect(readInboundState(JSON.stringify({ ...s, v: 2 }))).toBeNull();
  });

  it("counts the calls of the last second, minute and hour against a rate", () => {
    const rate = { perSecond: 2, perMinute: 3, perHour: 4 };
    const t = 10_000_000;
    expect(waitFor([], rate, t)).toBe(0);
    expect(waitFor([t - 10, t - 5], rate, t)).toBe(991);
    expect(waitFor([t - 30_000, t - 20_000, t - 10_000], rate, t)).toBe(30_001);
    expect(waitFor([t - 3000_000, t - 2000_000, t - 1000_000, t - 100_000], rate, t)).toBe(600_001);
    expect(leftThisHour([t - 3700_000, t - 10], rate, t)).toBe(3);
  });
});

describe("an export package", () => {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const enc = (b: Uint8Array): Buffer => {
    const c = createCipheriv("aes-256-cbc", key, iv);
    return Buffer.concat([c.update(b), c.final()]);
  };

  it("decrypts a part checked against its hashes and size, and refuses one that is not", () => {
    const plain = Buffer.from("PK part");
    const e = enc(plain);
    const part = { encryptedPartHash: sha(e), encryptedPartSize: e.length, partHash: sha(plain), partSize: plain.length };
    expect(decryptPart(e, part, key, iv).toString()).toBe("PK part");
    expect(() => decryptPart(e.subarray(1), part, key, iv)).toThrow(PackageError);
    expect(() => decryptPart(e, { ...part, encryptedPartHash: sha(plain) }, key, iv)).toThrow(/encryptedPartHash/);
    expect(() => decryptPart(e, { ...part, partHash: sha(e) }, key, iv)).toThrow(/partHash/);
    expect(() => decryptPart(e, { encryptedPartSize: e.length }, randomBytes(32), iv)).toThrow(PackageError);
  });

  it("unzips within bounds: entries, an entry's size, the total, the ratio; a lying size is not trusted further", () => {
    const files = { "5260250995-20261110-0A1B2C3D4E5F-01.xml": new TextEncoder().encode("<Faktura/>"), "_metadata.json": new TextEncoder().encode('{"invoices":[]}') };
    expect(unzipPackage(zipSync(files)).map((e) => e.name).sort()).toEqual(Object.keys(files).sort());
    expect(() => unzipPackage(zipSync(files), { ...DEFAULT_PACKAGE_BOUNDS, maxEntries: 1 })).toThrow(/more than 1 entries/);
    const bomb = zipSync({ "a.xml": new Uint8Array(4 * 1024 * 1024) }, { level: 9 });
    expect(() => unzipPackage(bomb)).toThrow(/zip bomb/);
    expect(() => unzipPackage(bomb, { ...DEFAULT_PACKAGE_BOUNDS, maxEntryBytes: 1024 * 1024 })).toThrow(/inflates to 4194304 bytes/);
    expect(() => unzipPackage(zipSync(files), { ...DEFAULT_PACKAGE_BOUNDS, maxTotalBytes: 12 })).toThrow(/more than 12 bytes/);
    expect(() => unzipPackage(new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3]))).toThrow(/not a readable ZIP/);
    // The central directory says 10 bytes for an entry of 1 MB: no more than 10 come out.
    const big = zipSync({ "a.xml": new Uint8Array(1_000_000).fill(65) });
    const dv = new DataView(big.buffer, big.byteOffset, big.byteLength);
    for (let i = 0; i < big.length - 4; i++) if (dv.getUint32(i, true) === 0x02014b50) dv.setUint32(i + 24, 10, true);
    expect(unzipPackage(big)[0]!.content.byteLength).toBe(10);
  });

  it("names its files after KSeF numbers and reads only what _metadata.json says plainly", () => {
    expect(numberOfEntry("5260250995-20261110-0A1B2C3D4E5F-01.xml")).toBe("5260250995-20261110-0A1B2C3D4E5F-01");
    expect(numberOfEntry("dir/5260250995-20261110-0A1B2C-3D4E5F-01.XML")).toBe("5260250995-20261110-0A1B2C-3D4E5F-01");
    expect(numberOfEntry("../../etc/passwd.xml")).toBeNull();
    expect(numberOfEntry("0260250995-20261110-0A1B2C3D4E5F-01.xml")).toBeNull();
    const meta = { invoices: [{ ksefNumber: "5260250995-20261110-0A1B2C3D4E5F-01", permanentStorageDate: "2026-11-10T10:00:00+00:00" }, { ksefNumber: "nope", permanentStorageDate: "x" }, null] };
    expect(readPackageMetadata(new TextEncoder().encode(JSON.stringify(meta)))).toEqual([meta.invoices[0]]);
    expect(readPackageMetadata(new TextEncoder().encode("{"))).toBeNull();
    expect(readPackageMetadata(new Uint8Array([0xff, 0xfe]))).toBeNull();
  });
});
