// An export package of KSeF (pobieranie-faktur/przyrostowe-pobieranie-faktur.md, "Pobieranie i
// przetwarzanie paczek"; open-api.json GET /invoices/exports/{referenceNumber}): parts of at most
// 50 MB, each encrypted with AES-256-CBC (PKCS#7) under the key and IV the export was started with,
// decrypted, checked against their SHA-256 (encryptedPartHash, partHash) and joined into one ZIP of
// `{ksefNumber}.xml` files and `_metadata.json` ({ invoices: InvoiceMetadata[] }).
//
// Untrusted all the same: the ZIP is opened with fflate within bounds (entries, declared sizes, total,
// compression ratio: a zip bomb is refused before anything is inflated; fflate writes no more than an
// entry's declared size), and the metadata is only believed where the files agree with it.
import { createDecipheriv, createHash } from "node:crypto";
import { unzipSync } from "fflate";

/** A package that cannot be used as it is (corrupt, a bomb, inconsistent): its export is dropped, the window narrowed. */
export class PackageError extends Error {
  override readonly name = "PackageError";
}

export interface PackageBounds {
  /** Most entries (KSeF: at most 10,000 invoices and the metadata). */
  maxEntries: number;
  /** The most one entry may inflate to. */
  maxEntryBytes: number;
  /** The most all entries may inflate to. */
  maxTotalBytes: number;
  /** The highest ratio of inflated to compressed size of an entry over 1 MiB. */
  maxRatio: number;
}

export const DEFAULT_PACKAGE_BOUNDS: PackageBounds = { maxEntries: 10_010, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024, maxRatio: 200 };

const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("base64");

/** One part as downloaded: checked against its hashes, decrypted. Throws PackageError. */
export function decryptPart(encrypted: Uint8Array, part: { encryptedPartHash?: unknown; encryptedPartSize?: unknown; partHash?: unknown; partSize?: unknown }, key: Buffer, iv: Buffer): Buffer {
  if (typeof part.encryptedPartSize === "number" && encrypted.byteLength !== part.encryptedPartSize) throw new PackageError(`a package part is ${encrypted.byteLength} bytes, not the ${part.encryptedPartSize} KSeF announced`);
  if (typeof part.encryptedPartHash === "string" && sha256(encrypted) !== part.encryptedPartHash) throw new PackageError("a package part does not match its encryptedPartHash");
  let plain: Buffer;
  try {
    const d = createDecipheriv("aes-256-cbc", key, iv);
    plain = Buffer.concat([d.update(encrypted), d.final()]);
  } catch {
    throw new PackageError("a package part does not decrypt with the export's key");
  }
  if (typeof part.partHash === "string" && sha256(plain) !== part.partHash) throw new PackageError("a decrypted package part does not match its partHash");
  return plain;
}

export interface PackageEntry {
  name: string;
  content: Uint8Array;
}

/** The entries of the ZIP, within `bounds`. Throws PackageError. */
export function unzipPackage(zip: Uint8Array, bounds: PackageBounds = DEFAULT_PACKAGE_BOUNDS): PackageEntry[] {
  let count = 0;
  let total = 0;
  let refused: string | null = null;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter: (f) => {
        if (refused) return false;
        if (f.name.endsWith("/")) return false;
        count++;
        total += f.originalSize;
        if (count > bounds.maxEntries) refused = `more than ${bounds.maxEntries} entries`;
        else if (f.originalSize > bounds.maxEntryBytes) refused = `an entry that inflates to ${f.originalSize} bytes (at most ${bounds.maxEntryBytes})`;
        else if (total > bounds.maxTotalBytes) refused = `entries that inflate to more than ${bounds.maxTotalBytes} bytes`;
        else if (f.originalSize > 1024 * 1024 && f.originalSize > f.size * bounds.maxRatio) refused = `an entry compressed more than ${bounds.maxRatio} to 1 (a zip bomb)`;
        else if (f.compression !== 0 && f.compression !== 8) refused = `an entry compressed with method ${f.compression}`;
        return refused === null;
      },
    });
  } catch (e) {
    throw new PackageError(`the package is not a readable ZIP (${(e as Error).message})`);
  }
  if (refused) throw new PackageError(`the package holds ${refused}`);
  return Object.entries(files).map(([name, content]) => ({ name, content }));
}

/** KSeF's number (open-api.json, KsefNumber). */
export const KSEF_NUMBER = /^([1-9](\d[1-9]|[1-9]\d)\d{7})-(20[2-9][0-9]|2[1-9]\d{2}|[3-9]\d{3})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])-([0-9A-F]{6})-?([0-9A-F]{6})-([0-9A-F]{2})$/;

/** The KSeF number a package file is named after (`{ksefNumber}.xml`, maybe in a folder), or null. */
export function numberOfEntry(name: string): string | null {
  const base = name.split("/").pop() ?? "";
  const m = /^(.+)\.xml$/i.exec(base);
  return m && KSEF_NUMBER.test(m[1]!) ? m[1]! : null;
}

/** What `_metadata.json` says of each invoice: its number and its permanent-storage date (entries that say less are left out). */
export function readPackageMetadata(content: Uint8Array): { ksefNumber: string; permanentStorageDate: string }[] | null {
  try {
    const json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(content));
    if (!Array.isArray(json?.invoices)) return null;
    return (json.invoices as any[])
      .filter((i) => typeof i?.ksefNumber === "string" && KSEF_NUMBER.test(i.ksefNumber) && typeof i.permanentStorageDate === "string")
      .map((i) => ({ ksefNumber: i.ksefNumber as string, permanentStorageDate: i.permanentStorageDate as string }));
  } catch {
    return null;
  }
}
