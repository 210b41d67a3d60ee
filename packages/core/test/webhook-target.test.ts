import { describe, expect, it } from "vitest";
import { checkWebhookTarget, isPrivateAddress } from "../src/index.js";

const publicDns = async () => ["93.184.215.14"];

describe("webhook targets (SSRF guard)", () => {
  it("refuses loopback, metadata, IPv6 loopback and private addresses by default", async () => {
    for (const url of [
      "http://127.0.0.1/hook",
      "https://127.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[fd00:ec2::254]/",
      "https://10.1.2.3/",
      "https://192.168.1.1/",
      "https://172.20.0.1/",
      "https://0.0.0.0/",
    ]) {
      expect(await checkWebhookTarget(url, { resolve: publicDns }), url).toMatch(/url must (use https|point to a public address)/);
    }
  });

  it("refuses a name that resolves to a private address, even when another address is public", async () => {
    expect(await checkWebhookTarget("https://internal.example/hook", { resolve: async () => ["10.0.0.7"] })).toMatch(/public address/);
    expect(await checkWebhookTarget("https://mixed.example/hook", { resolve: async () => ["93.184.215.14", "127.0.0.1"] })).toMatch(/public address/);
    expect(await checkWebhookTarget("https://gone.example/hook", { resolve: async () => { throw new Error("ENOTFOUND"); } })).toMatch(/does not resolve/);
  });

  it("accepts a public https URL", async () => {
    expect(await checkWebhookTarget("https://erp.example.com/einvoice", { resolve: publicDns })).toBeNull();
  });

  it("refuses http, credentials and non-URLs without the operator's permission", async () => {
    expect(await checkWebhookTarget("http://erp.example.com/", { resolve: publicDns })).toBe("url must use https");
    expect(await checkWebhookTarget("https://user:pw@erp.example.com/", { resolve: publicDns })).toBe("url must not carry credentials");
    expect(await checkWebhookTarget("ftp://erp.example.com/", { resolve: publicDns })).toBe("url must use https");
    expect(await checkWebhookTarget("not a url", { resolve: publicDns })).toBe("url must be an absolute http(s) URL");
  });

  it("refuses port 0, and a URL over 2,048 characters once percent-encoded as it is stored, also with the operator's permission", async () => {
    // Port 0 was accepted, and every delivery then failed as unreachable.
    expect(await checkWebhookTarget("http://127.0.0.1:0/x", { allowPrivate: true })).toBe("url must not use port 0");
    expect(await checkWebhookTarget("https://erp.example.com:0/x", { resolve: publicDns })).toBe("url must not use port 0");
    // 1,022 characters as sent, 6,022 as stored (each ü is %C3%BC): the stored URL was over the documented limit.
    const long = `https://erp.example.com/${"ü".repeat(1000)}`;
    expect(long.length).toBeLessThanOrEqual(2048);
    expect(await checkWebhookTarget(long, { resolve: publicDns })).toBe(
      "url must be shorter than or equal to 2048 characters as stored, percent-encoded (it is 6024: a character such as ü takes 6)",
    );
    expect(await checkWebhookTarget(`https://erp.example.com/${"ü".repeat(300)}`, { resolve: publicDns })).toBeNull();
  });

  it("allows http and private targets when the operator allows them", async () => {
    expect(await checkWebhookTarget("http://127.0.0.1:8080/hook", { allowPrivate: true })).toBeNull();
    expect(await checkWebhookTarget("http://[::1]/hook", { allowPrivate: true })).toBeNull();
    expect(await checkWebhookTarget("file:///etc/passwd", { allowPrivate: true })).toBe("url must use http or https");
  });

  it("classifies addresses", () => {
    expect(isPrivateAddress("8.8.8.8")).toBe(false);
    expect(isPrivateAddress("2a00:1450:4001:80b::200e")).toBe(false);
    expect(isPrivateAddress("100.64.0.1")).toBe(true);
    expect(isPrivateAddress("fe80::1")).toBe(true);
    expect(isPrivateAddress("::ffff:10.0.0.1")).toBe(true);
    expect(isPrivateAddress("64:ff9b::a00:1")).toBe(true);
    expect(isPrivateAddress("not-an-ip")).toBe(true);
  });
});
