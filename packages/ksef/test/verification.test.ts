import { describe, expect, it } from "vitest";
import { KSEF_ENVIRONMENTS, ksefQrBase, verificationFacts, verificationUrl } from "../src/index.js";
import { ublTree } from "./support/tree.js";
import { ublInvoice } from "./support/ubl.js";

describe("the KSeF verification link (KOD I)", () => {
  it("is built as kody-qr.md's example: {qr host}/invoice/{NIP}/{DD-MM-YYYY}/{SHA-256, base64url without padding}", () => {
    // The example of CIRFMF/ksef-docs kody-qr.md: issued 01-02-2026 by NIP 1111111111.
    const hash = Buffer.from("UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE", "base64url");
    const expected = "https://qr-test.ksef.mf.gov.pl/invoice/1111111111/01-02-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE";
    expect(verificationUrl("https://qr-test.ksef.mf.gov.pl", { nip: "1111111111", issueDate: "2026-02-01", fa3Sha256: hash })).toBe(expected);
    // KSeF's invoiceHash form (standard base64 with padding) gives the same link.
    expect(verificationUrl("https://qr-test.ksef.mf.gov.pl/", { nip: "1111111111", issueDate: "2026-02-01", fa3Sha256: hash.toString("base64") })).toBe(expected);
  });

  it("refuses parts that would make a wrong link", () => {
    const fa3Sha256 = new Uint8Array(32);
    expect(() => verificationUrl("https://q", { nip: "PL1111111111", issueDate: "2026-02-01", fa3Sha256 })).toThrow(/NIP/);
    expect(() => verificationUrl("https://q", { nip: "1111111111", issueDate: "01-02-2026", fa3Sha256 })).toThrow(/issue date/);
    expect(() => verificationUrl("https://q", { nip: "1111111111", issueDate: "2026-02-01", fa3Sha256: new Uint8Array(20) })).toThrow(/SHA-256/);
  });

  it("points to the QR address of the KSEF_URL's environment, the first edition's API hosts included; elsewhere to qrUrl, else the API's origin", () => {
    expect(ksefQrBase("https://api-test.ksef.mf.gov.pl/v2")).toBe("https://qr-test.ksef.mf.gov.pl");
    expect(ksefQrBase("https://api-demo.ksef.mf.gov.pl/v2", "https://ignored.example")).toBe("https://qr-demo.ksef.mf.gov.pl");
    expect(ksefQrBase("https://api.ksef.mf.gov.pl/v2")).toBe("https://qr.ksef.mf.gov.pl");
    expect(ksefQrBase("https://ksef-test.mf.gov.pl/api/v2")).toBe("https://qr-test.ksef.mf.gov.pl");
    expect(ksefQrBase("https://ksef.mf.gov.pl/api/v2")).toBe("https://qr.ksef.mf.gov.pl");
    expect(ksefQrBase("http://127.0.0.1:4100/v2", "https://qr.example.test/")).toBe("https://qr.example.test");
    expect(ksefQrBase("http://127.0.0.1:4100/v2")).toBe("http://127.0.0.1:4100");
    expect(KSEF_ENVIRONMENTS.map((e) => [e.name, e.api, e.qr])).toEqual([
      ["test", "https://api-test.ksef.mf.gov.pl/v2", "https://qr-test.ksef.mf.gov.pl"],
      ["demo", "https://api-demo.ksef.mf.gov.pl/v2", "https://qr-demo.ksef.mf.gov.pl"],
      ["production", "https://api.ksef.mf.gov.pl/v2", "https://qr.ksef.mf.gov.pl"],
    ]);
  });

  it("takes the seller's NIP (BT-31, with or without PL) and the issue date (BT-2) of the UBL invoice", () => {
    const line = { name: "x", quantity: "1", price: "1.00", cat: { id: "S", percent: "23" } };
    expect(verificationFacts(ublTree(ublInvoice({ lines: [line] }).xml))).toEqual({ nip: "5260250995", issueDate: "2026-11-20" });
    expect(verificationFacts(ublTree(ublInvoice({ sellerVat: "5260250995", lines: [line] }).xml))).toEqual({ nip: "5260250995", issueDate: "2026-11-20" });
    expect(verificationFacts(ublTree(ublInvoice({ sellerVat: "DE123456789", lines: [line] }).xml))).toBeNull();
  });
});
