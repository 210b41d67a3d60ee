import { describe, expect, it } from "vitest";
import { decodeQrSvg } from "../support/qr.js";
import { verificationQrSvg } from "../../src/use-cases/verification-qr.js";

const LINK = "https://qr-test.ksef.mf.gov.pl/invoice/5260250995/20-11-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE";
const NUMBER = "5260250995-20261120-0100001AF629-AF";

describe("verificationQrSvg", () => {
  it("draws the link as a QR code that decodes back to it, with the KSeF number under the code", async () => {
    const svg = await verificationQrSvg(LINK, NUMBER);
    expect(decodeQrSvg(svg)).toBe(LINK);
    expect(svg).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" /);
    // The label is under the code: its baseline below the code's square.
    const size = Number(/<svg width="(\d+)" height="\1"/.exec(svg)?.[1]);
    const label = /<text x="[\d.]+" y="([\d.]+)"[^>]*>([^<]*)<\/text>/.exec(svg);
    expect(label?.[2]).toBe(NUMBER);
    expect(Number(label?.[1])).toBeGreaterThan(size);
  });

  it("escapes what it writes as text, and a label without a KSeF number reads OFFLINE", async () => {
    const odd = "https://qr.example.test/invoice/1111111111/01-02-2026/a&b<c>";
    const svg = await verificationQrSvg(odd, "OFFLINE");
    expect(decodeQrSvg(svg)).toBe(odd);
    expect(svg).toContain("<title>https://qr.example.test/invoice/1111111111/01-02-2026/a&amp;b&lt;c&gt;</title>");
    expect(svg).toContain(">OFFLINE</text>");
  });
});
