// Test support: a fake KSeF 2.0 on 127.0.0.1 following the published OpenAPI document (open-api.json
// of CIRFMF/ksef-docs) for the calls the adapter makes. It holds its own RSA key pair (test only),
// decrypts the KSeF token and each session key and invoice, checks the hashes and sizes, validates the
// FA(3) against the official XSD, and answers with the documented status codes.
import { constants, createDecipheriv, createHash, privateDecrypt, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fa3SchemaErrors } from "./xsd.js";
import { buyerSideOf, type BuyerSide, type BuyerSideOptions } from "./fake-ksef-buyer.js";

const dir = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/fake-ksef");
const privateKey = readFileSync(resolve(dir, "key.pem"), "utf8");
const certificate = readFileSync(resolve(dir, "cert.pem"), "utf8").replace(/-----[^-]+-----|\s/g, "");
const upoExample = readFileSync(resolve(dir, "upo-faktura-kontekst-id-nip.xml"), "utf8");

const decrypt = (b64: string): Buffer => privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(b64, "base64"));
const sha = (b: Buffer): string => createHash("sha256").update(b).digest("base64");

interface Invoice {
  session: string;
  ordinal: number;
  /** invoiceHash of the upload (SHA-256 of the FA(3), base64). */
  hash: string;
  invoicingDate: string;
  status: { code: number; description: string; details?: string[]; extensions?: Record<string, string> };
  ksefNumber?: string;
  acquisitionDate?: string;
  invoiceNumber?: string;
  issueDate?: string;
  fa3?: string;
  /** Status polls still answered 150 before the decision. */
  pendingPolls: number;
}

export interface FakeKsef {
  url: string;
  /** Every FA(3) the fake accepted (decrypted). */
  accepted: string[];
  /** How many invoices were sent (POST .../invoices). */
  invoicesSent: number;
  /** Calls by "METHOD /path-template". */
  calls: string[];
  /** The next N calls answer 429 with Retry-After: seconds. */
  throttle(n: number, seconds: number): void;
  /** The next invoice fails semantic verification (450) with this detail. */
  rejectNext(detail: string): void;
  /** Until released, every invoice status answers 150 (processing), whatever KSeF decided. */
  holdStatus(): void;
  releaseStatus(): void;
  /** The next N UPO downloads answer 400 21178 (no UPO found yet). */
  upoMissing(n: number): void;
  /** The next upload is received and processed, but its answer is never sent (the connection is cut). */
  cutNextUploadAnswer(): void;
  close(): Promise<void>;
  /** The buyer side (receiving): see buyer.ts's `BuyerSide`. */
  buyer: BuyerSide;
}

export interface FakeKsefOptions {
  nip: string;
  token: string;
  /** More taxpayers whose KSeF tokens the fake accepts. */
  others?: { nip: string; token: string }[];
  pendingPolls?: number;
  /** Invoices to this buyer NIP fail semantic verification (450) with the detail. */
  rejectBuyer?: { nip: string; detail: string };
  /** The first `failures` invoices to this buyer NIP end with 550 (cancelled by the system; retry). */
  flakyBuyer?: { nip: string; failures: number };
  /** The buyer side's options (its clock, rate limits, truncation, export parts). */
  buyer?: BuyerSideOptions;
}

/** `nip` and `token` is the taxpayer whose KSeF token the fake accepts; `others` more of them. */
export async function startFakeKsef(options: FakeKsefOptions): Promise<FakeKsef> {
  const taxpayers = [{ nip: options.nip, token: options.token }, ...(options.others ?? [])];
  const challenges = new Map<string, number>();
  const authOps = new Map<string, { nip: string | null; redeemed: boolean }>();
  /** Access token → the NIP it was issued for. */
  const accessTokens = new Map<string, string>();
  const refreshTokens = new Set<string>();
  const sessions = new Map<string, { key: Buffer; iv: Buffer; open: boolean; nip: string }>();
  const invoices = new Map<string, Invoice>();
  const byHash = new Map<string, { ksefNumber: string; session: string }>();
  let throttleLeft = 0;
  let throttleSeconds = 0;
  let reject: string | null = null;
  let held = false;
  let upoMissing = 0;
  let cutNext = false;
  let flakyLeft = options.flakyBuyer?.failures ?? 0;
  let counter = 0;
  const fake: FakeKsef = {
    url: "",
    accepted: [],
    invoicesSent: 0,
    calls: [],
    throttle(n, seconds) {
      throttleLeft = n;
      throttleSeconds = seconds;
    },
    rejectNext(detail) {
      reject = detail;
    },
    holdStatus() {
      held = true;
    },
    releaseStatus() {
      held = false;
    },
    upoMissing(n) {
      upoMissing = n;
    },
    cutNextUploadAnswer() {
      cutNext = true;
    },
    close: async () => {},
    buyer: undefined as unknown as BuyerSide,
  };
  const buyerSide = buyerSideOf(options.buyer ?? {});
  fake.buyer = buyerSide.side;

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body === undefined ? "" : JSON.stringify(body));
  };
  const exception = (res: ServerResponse, status: number, code: number, description: string): void =>
    send(res, status, { exception: { exceptionDetailList: [{ exceptionCode: code, exceptionDescription: description }], serviceCode: randomUUID(), timestamp: new Date().toISOString() } });
  const bearer = (req: IncomingMessage): string => (req.headers.authorization ?? "").replace(/^Bearer /, "");
  const ref = (kind: string): string => `20261122-${kind}-${(++counter).toString(16).toUpperCase().padStart(10, "0")}-${randomUUID().slice(0, 10).toUpperCase()}-AB`;
  const until = (ms: number): string => new Date(Date.now() + ms).toISOString();

  /** SessionInvoiceStatusResponse; `poll` counts down the pending polls of a status request. */
  function statusOf(r: string, inv: Invoice, poll: boolean): Record<string, unknown> {
    const pending = held || inv.pendingPolls > 0;
    if (poll && inv.pendingPolls > 0) inv.pendingPolls--;
    const decided = !pending && inv.status.code !== 100;
    return {
      ordinalNumber: inv.ordinal,
      referenceNumber: r,
      invoiceHash: inv.hash,
      invoicingDate: inv.invoicingDate,
      ...(decided && inv.invoiceNumber ? { invoiceNumber: inv.invoiceNumber } : {}),
      ...(decided && inv.ksefNumber ? { ksefNumber: inv.ksefNumber, acquisitionDate: inv.acquisitionDate } : {}),
      status: pending ? { code: 150, description: "Trwa przetwarzanie" } : inv.status,
    };
  }

  /** The invoice's UPO, modelled on the documentation's example (upo-faktura-kontekst-id-nip.xml, v4-3). */
  function upo(inv: Invoice): string {
    const nip = sessions.get(inv.session)!.nip;
    const set = (xml: string, tag: string, value: string): string => xml.replace(new RegExp(`<${tag}>[^<]*</${tag}>`), `<${tag}>${value}</${tag}>`);
    let xml = upoExample;
    xml = set(xml, "NumerReferencyjnySesji", inv.session);
    xml = set(xml, "Nip", nip);
    xml = set(xml, "NipSprzedawcy", nip);
    xml = set(xml, "NumerKSeFDokumentu", inv.ksefNumber!);
    xml = set(xml, "NumerFaktury", inv.invoiceNumber ?? "");
    xml = set(xml, "DataWystawieniaFaktury", inv.issueDate ?? "");
    xml = set(xml, "DataPrzeslaniaDokumentu", inv.invoicingDate);
    xml = set(xml, "DataNadaniaNumeruKSeF", inv.acquisitionDate!);
    xml = set(xml, "SkrotDokumentu", inv.hash);
    return xml;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any = null;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
    } catch {
      return exception(res, 400, 21405, "Błąd walidacji danych wejściowych: treść nie jest JSON.");
    }
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname.replace(/^\/v2/, "");
    const route = `${req.method} ${path.replace(/\/20261122-[A-Z]{2}-[0-9A-F-]+AB/g, "/{ref}").replace(/\/ksef\/[^/]+/, "/ksef/{ksefNumber}").replace(/^\/storage\/.*/, "/storage/{part}")}`;
    fake.calls.push(route);
    if (throttleLeft > 0) {
      throttleLeft--;
      return send(res, 429, { status: { code: 429, description: "Too Many Requests" } }, { "retry-after": String(throttleSeconds) });
    }
    const authed = (): boolean => accessTokens.has(bearer(req));
    if (await buyerSide.handle(route, url, body, accessTokens.get(bearer(req)) ?? null, req, res, `http://${req.headers.host}`)) return;
    switch (route) {
      case "GET /security/public-key-certificates":
        return send(res, 200, [
          { certificate, certificateId: "fake-1", publicKeyId: "fake-1", validFrom: "2025-01-01T00:00:00Z", validTo: "2099-01-01T00:00:00Z", usage: ["KsefTokenEncryption", "SymmetricKeyEncryption"] },
        ]);
      case "POST /auth/challenge": {
        const challenge = ref("CR");
        const ts = Date.now();
        challenges.set(challenge, ts);
        return send(res, 200, { challenge, timestamp: new Date(ts).toISOString(), timestampMs: ts, clientIp: "127.0.0.1" });
      }
      case "POST /auth/ksef-token": {
        const ts = challenges.get(body?.challenge);
        if (ts === undefined) return exception(res, 400, 21001, "Nieprawidłowe wyzwanie autoryzacyjne.");
        challenges.delete(body.challenge);
        let nip: string | null = null;
        try {
          const said = decrypt(body.encryptedToken).toString("utf8");
          const t = taxpayers.find((p) => said === `${p.token}|${ts}` && body.contextIdentifier?.type === "Nip" && body.contextIdentifier?.value === p.nip);
          nip = t?.nip ?? null;
        } catch {
          nip = null;
        }
        const r = ref("AU");
        authOps.set(r, { nip, redeemed: false });
        return send(res, 202, { referenceNumber: r, authenticationToken: { token: `auth-${r}`, validUntil: until(600_000) } });
      }
      case "GET /auth/{ref}": {
        const r = path.split("/")[2]!;
        const op = authOps.get(r);
        if (!op || bearer(req) !== `auth-${r}`) return send(res, 401, { title: "Unauthorized" });
        return send(res, 200, {
          startDate: new Date().toISOString(),
          authenticationMethod: "Token",
          authenticationMethodInfo: { category: "Token", code: "auth.method.token", displayName: "Token KSeF" },
          status: op.nip ? { code: 200, description: "Uwierzytelnianie zakończone sukcesem" } : { code: 450, description: "Uwierzytelnianie zakończone niepowodzeniem z powodu błędnego tokenu", details: ["Nieprawidłowy token."] },
        });
      }
      case "POST /auth/token/redeem": {
        const r = bearer(req).replace(/^auth-/, "");
        const op = authOps.get(r);
        if (!op || !op.nip || op.redeemed) return exception(res, 400, 21301, "Brak autoryzacji.");
        op.redeemed = true;
        const access = `access-${randomUUID()}`;
        const refresh = `refresh-${randomUUID()}`;
        accessTokens.set(access, op.nip);
        refreshTokens.add(refresh);
        return send(res, 200, { accessToken: { token: access, validUntil: until(900_000) }, refreshToken: { token: refresh, validUntil: until(86_400_000) } });
      }
      case "POST /sessions/online": {
        if (!authed()) return send(res, 401, { title: "Unauthorized" });
        const fc = body?.formCode;
        if (fc?.systemCode !== "FA (3)" || fc?.schemaVersion !== "1-0E" || fc?.value !== "FA") return exception(res, 400, 21405, "Błąd walidacji danych wejściowych: formCode.");
        let key: Buffer;
        try {
          key = decrypt(body.encryption.encryptedSymmetricKey);
        } catch {
          return exception(res, 400, 21405, "Błąd odszyfrowania klucza.");
        }
        const r = ref("SO");
        sessions.set(r, { key, iv: Buffer.from(body.encryption.initializationVector, "base64"), open: true, nip: accessTokens.get(bearer(req))! });
        return send(res, 201, { referenceNumber: r, validUntil: until(43_200_000) });
      }
      case "POST /sessions/online/{ref}/invoices": {
        if (!authed()) return send(res, 401, { title: "Unauthorized" });
        const sref = path.split("/")[3]!;
        const s = sessions.get(sref);
        if (!s || !s.open) return exception(res, 400, 21180, "Sesja nie istnieje lub jest zamknięta.");
        fake.invoicesSent++;
        const enc = Buffer.from(body.encryptedInvoiceContent, "base64");
        const r = ref("EE");
        const ordinal = [...invoices.values()].filter((i) => i.session === sref).length + 1;
        const inv: Invoice = { session: sref, ordinal, hash: body.invoiceHash, invoicingDate: new Date().toISOString(), status: { code: 100, description: "Faktura przyjęta do dalszego przetwarzania" }, pendingPolls: options.pendingPolls ?? 1 };
        invoices.set(r, inv);
        if (cutNext) {
          cutNext = false;
          req.socket.destroy();
        } else send(res, 202, { referenceNumber: r });
        // Processing, after the 202 (as KSeF does asynchronously).
        if (sha(enc) !== body.encryptedInvoiceHash || enc.length !== body.encryptedInvoiceSize) {
          inv.status = { code: 430, description: "Błąd weryfikacji pliku faktury", details: ["Skrót lub rozmiar zaszyfrowanej faktury się nie zgadza."] };
          return;
        }
        let plain: Buffer;
        try {
          const d = createDecipheriv("aes-256-cbc", s.key, s.iv);
          plain = Buffer.concat([d.update(enc), d.final()]);
        } catch {
          inv.status = { code: 435, description: "Błąd odszyfrowania pliku" };
          return;
        }
        if (sha(plain) !== body.invoiceHash || plain.length !== body.invoiceSize) {
          inv.status = { code: 430, description: "Błąd weryfikacji pliku faktury", details: ["Skrót lub rozmiar faktury się nie zgadza."] };
          return;
        }
        const fa3 = plain.toString("utf8");
        const errors = await fa3SchemaErrors(fa3);
        if (errors.length > 0) {
          inv.status = { code: 430, description: "Błąd weryfikacji pliku faktury", details: errors.slice(0, 3) };
          return;
        }
        const buyerNip = /<Podmiot2>.*?<NIP>([^<]+)</s.exec(fa3)?.[1];
        if (options.rejectBuyer && buyerNip === options.rejectBuyer.nip) reject = options.rejectBuyer.detail;
        if (reject) {
          inv.status = { code: 450, description: "Błąd weryfikacji semantyki dokumentu faktury", details: [reject] };
          reject = null;
          return;
        }
        if (options.flakyBuyer && buyerNip === options.flakyBuyer.nip && flakyLeft > 0) {
          flakyLeft--;
          inv.status = { code: 550, description: "Operacja została anulowana przez system", details: ["Przetwarzanie zostało przerwane z przyczyn wewnętrznych systemu. Spróbuj ponownie"] };
          return;
        }
        // Duplicates are detected on the seller's NIP, the invoice kind and the invoice number (P_2).
        const hash = `${/<NIP>([^<]+)</.exec(fa3)?.[1]}|${/<RodzajFaktury>([^<]+)</.exec(fa3)?.[1]}|${/<P_2>([^<]+)</.exec(fa3)?.[1]}`;
        const dup = byHash.get(hash);
        if (dup) {
          inv.status = { code: 440, description: "Duplikat faktury", details: [`Duplikat faktury. Faktura o numerze KSeF: ${dup.ksefNumber} została już prawidłowo przesłana do systemu w sesji: ${dup.session}`], extensions: { originalSessionReferenceNumber: dup.session, originalKsefNumber: dup.ksefNumber } };
          return;
        }
        inv.ksefNumber = `${s.nip}-20261122-${createHash("sha256").update(r).digest("hex").slice(0, 12).toUpperCase()}-${(counter % 100).toString().padStart(2, "0")}`;
        inv.fa3 = fa3;
        inv.acquisitionDate = new Date().toISOString();
        inv.invoiceNumber = /<P_2>([^<]+)</.exec(fa3)?.[1];
        inv.issueDate = /<P_1>([^<]+)</.exec(fa3)?.[1];
        byHash.set(hash, { ksefNumber: inv.ksefNumber, session: sref });
        fake.accepted.push(fa3);
        inv.status = { code: 200, description: "Sukces" };
        return;
      }
      case "POST /sessions/online/{ref}/close": {
        if (!authed()) return send(res, 401, { title: "Unauthorized" });
        const s = sessions.get(path.split("/")[3]!);
        if (s) s.open = false;
        return send(res, 204);
      }
      case "GET /sessions/{ref}/invoices": {
        // SessionInvoicesResponse, paged by pageSize and the x-continuation-token header.
        if (!authed()) return send(res, 401, { title: "Unauthorized" });
        const sref = path.split("/")[2]!;
        if (!sessions.has(sref)) return exception(res, 400, 21173, "Brak sesji o wskazanym numerze referencyjnym.");
        const all = [...invoices.entries()].filter(([, i]) => i.session === sref);
        const size = Math.min(1000, Math.max(10, Number(url.searchParams.get("pageSize") ?? 10)));
        const from = Number(req.headers["x-continuation-token"] ?? 0);
        const page = all.slice(from, from + size).map(([r, i]) => statusOf(r, i, false));
        return send(res, 200, { invoices: page, ...(from + size < all.length ? { continuationToken: String(from + size) } : {}) });
      }
      case "GET /sessions/{ref}/invoices/{ref}": {
        if (!authed()) return send(res, 401, { title: "Unauthorized" });
        const r = path.split("/")[4]!;
        const inv = invoices.get(r);
        if (!inv || inv.session !== path.split("/")[2]) return exception(res, 400, 21405, "Błąd walidacji danych wejściowych.");
        return send(res, 200, statusOf(r, inv, true));
      }
      case "GET /sessions/{ref}/invoices/ksef/{ksefNumber}/upo": {
        if (!authed()) return send(res, 401, { title: "Unauthorized" });
        const number = decodeURIComponent(path.split("/")[5]!);
        const inv = [...invoices.values()].find((i) => i.ksefNumber === number && i.session === path.split("/")[2]);
        if (!inv || upoMissing > 0) {
          if (inv) upoMissing--;
          return exception(res, 400, 21178, "Nie znaleziono UPO dla podanych kryteriów.");
        }
        res.writeHead(200, { "content-type": "application/xml" });
        return void res.end(upo(inv));
      }
      default:
        return send(res, 404, { title: "Not Found" });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { title: "fake error" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake;
}
