// renderHtml: an invoice (InvoiceData) as one printable HTML page, every value escaped, no script, nothing loaded from elsewhere.
import type { InvoiceData } from "@einvoice/core";
import {
  documentKind,
  formatAmount,
  formatDate,
  formatNumber,
  formatPercent,
  isLanguage,
  labelsFor,
  languageFor,
  paymentMeansName,
  unitName,
  vatCategoryName,
  type Labels,
  type Language,
} from "./labels.js";

/** What a KSeF invoice carries on its visualisation: its KSeF number and the verification link (KOD I) as a QR code. */
export interface KsefMarks {
  /** The number KSeF gave the invoice. */
  ksefNumber: string;
  /** The verification link (KOD I). */
  verificationUrl: string;
  /** The link as a QR code, an SVG document (`verificationQrSvg` of @einvoice/core); without it the link is shown as text only. */
  qrSvg?: string;
}

export interface RenderOptions {
  /** The language of the labels and formats; default `languageFor(invoice)` (the buyer's country, else English). */
  lang?: Language;
  /** Invoice or credit note (the UBL root); default from the type code (BT-3). */
  kind?: "invoice" | "creditNote";
  /** For an invoice delivered through or received from KSeF. */
  ksef?: KsefMarks;
}

/**
 * Text for HTML, in an element or a double-quoted attribute: the five characters that could end either (`& < > " '`)
 * as character references. Our own four lines rather than a library: every value goes through this one function,
 * every attribute we write is double-quoted, and we write no value into a URL, a style or a script context (the only
 * URL we write is the KSeF link, checked to be https first, and the QR code's data: URL, which is base64).
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escaped text; `undefined` and empty become nothing. */
const e = (v: string | undefined | null): string => (v ? escapeHtml(v) : "");

/** A definition row (label: value) when there is a value. */
const row = (label: string, value: string | undefined | null, raw = false): string =>
  value ? `<tr><th scope="row">${e(label)}</th><td>${raw ? value : e(value)}</td></tr>` : "";

/** A table of definition rows, or nothing when all are empty. */
const rows = (cls: string, ...r: string[]): string => {
  const body = r.join("");
  return body ? `<table class="${cls}">${body}</table>` : "";
};

/** A section with a heading, or nothing when it has no content. */
const section = (cls: string, heading: string, body: string): string => (body ? `<section class="${cls}"><h2>${e(heading)}</h2>${body}</section>` : "");

type Address = NonNullable<InvoiceData["seller"]["address"]>;

function addressLines(a: Address | undefined): string {
  if (!a) return "";
  const lines = [...(a.lines ?? []), [a.postalCode, a.city].filter(Boolean).join(" "), a.subdivision, a.country].filter((l): l is string => !!l);
  return lines.map((l) => `<div>${e(l)}</div>`).join("");
}

const scheme = (id: { id: string; scheme?: string | undefined } | undefined): string | undefined => (id ? (id.scheme ? `${id.id} (${id.scheme})` : id.id) : undefined);

function party(title: string, p: InvoiceData["seller"] | InvoiceData["buyer"], L: Labels): string {
  const contact = p.contact ? [p.contact.name, p.contact.phone, p.contact.email].filter(Boolean).join(", ") : undefined;
  return (
    `<section class="party"><h2>${e(title)}</h2>` +
    `<div class="name">${e(p.name)}</div>` +
    (p.tradingName ? `<div class="trading">${e(p.tradingName)}</div>` : "") +
    `<address>${addressLines(p.address)}</address>` +
    rows(
      "ids",
      row(L.vatId, p.vatId),
      row(L.taxRegistrationId, "taxRegistrationId" in p ? p.taxRegistrationId : undefined),
      row(L.legalId, scheme(p.legalId)),
      ...(p.identifiers ?? []).map((i) => row(L.identifier, scheme(i))),
      row(L.electronicAddress, p.endpoint ? `${p.endpoint.scheme}:${p.endpoint.id}` : undefined),
      row(L.contact, contact),
      row(L.legalInfo, p.legalInfo),
    ) +
    `</section>`
  );
}

/**
 * The invoice as a complete HTML page (A4, print CSS, the lines' header repeated on every printed page): the parties,
 * the title and dates, the references, the lines, the document allowances and charges, the VAT breakdown, the totals,
 * payment, notes, delivery and attachments, and for a KSeF invoice its KSeF number and verification QR code. Every
 * value is escaped; the page has no script and loads nothing (styles inline, the QR code a data: image), so it can be
 * served under `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src data:`.
 * Amounts are shown with their digits as written (`formatAmount`).
 *
 * @example const html = renderHtml(invoice, { lang: "de" })
 */
export function renderHtml(invoice: InvoiceData, options: RenderOptions = {}): string {
  const lang: Language = options.lang && isLanguage(options.lang) ? options.lang : languageFor(invoice);
  const L = labelsFor(lang);
  const cur = invoice.currency;
  const amount = (v: string | undefined) => (v === undefined ? undefined : formatAmount(v, null, lang));
  const money = (v: string | undefined) => (v === undefined ? undefined : formatAmount(v, cur, lang));
  const date = (v: string | undefined) => (v === undefined ? undefined : formatDate(v, lang));
  const vat = (v: { category: string; rate?: string | undefined }) =>
    `${vatCategoryName(v.category, lang)} (${v.category})${v.rate !== undefined ? ` ${formatPercent(v.rate, lang)}` : ""}`;
  const kind = documentKind(invoice, options.kind);
  const title = kind === "creditNote" ? L.creditNote : L.invoice;
  const period = (p: { start?: string | undefined; end?: string | undefined } | undefined) =>
    p && (p.start || p.end) ? `${date(p.start) ?? ""} – ${date(p.end) ?? ""}` : undefined;

  const out: string[] = [];
  out.push(
    `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<meta name="referrer" content="no-referrer">` +
      `<title>${e(`${title} ${invoice.number}`)}</title><style>${CSS}</style></head><body><main class="invoice">`,
  );

  // 1. Seller and buyer.
  out.push(`<div class="parties">${party(L.seller, invoice.seller, L)}${party(L.buyer, invoice.buyer, L)}</div>`);
  if (invoice.payee || invoice.taxRepresentative) {
    out.push(`<div class="parties">`);
    if (invoice.payee)
      out.push(
        `<section class="party"><h2>${e(L.payee)}</h2><div class="name">${e(invoice.payee.name)}</div>` +
          rows("ids", row(L.identifier, scheme(invoice.payee.identifier)), row(L.legalId, scheme(invoice.payee.legalId))) +
          `</section>`,
      );
    if (invoice.taxRepresentative)
      out.push(
        `<section class="party"><h2>${e(L.taxRepresentative)}</h2><div class="name">${e(invoice.taxRepresentative.name)}</div>` +
          `<address>${addressLines(invoice.taxRepresentative.address)}</address>` +
          rows("ids", row(L.vatId, invoice.taxRepresentative.vatId)) +
          `</section>`,
      );
    out.push(`</div>`);
  }

  // 2. Title, number, dates.
  out.push(
    `<header class="title"><h1>${e(title)} <span class="number">${e(invoice.number)}</span></h1>` +
      rows(
        "facts",
        row(L.number, invoice.number),
        row(L.issueDate, date(invoice.issueDate)),
        row(L.dueDate, date(invoice.dueDate)),
        row(L.taxPointDate, date(invoice.taxPointDate)),
        row(L.invoicingPeriod, period(invoice.period)),
        row(L.currency, invoice.vatAccountingCurrency ? `${cur} / ${invoice.vatAccountingCurrency.code}` : cur),
      ) +
      `</header>`,
  );

  // 3. References.
  out.push(
    section(
      "references",
      L.references,
      rows(
        "facts",
        row(L.buyerReference, invoice.buyerReference),
        row(L.orderReference, invoice.orderReference),
        row(L.salesOrderReference, invoice.salesOrderReference),
        row(L.contractReference, invoice.contractReference),
        row(L.projectReference, invoice.projectReference),
        row(L.tenderReference, invoice.tenderReference),
        row(L.receivingAdviceReference, invoice.receivingAdviceReference),
        row(L.despatchAdviceReference, invoice.despatchAdviceReference),
        row(L.identifier, scheme(invoice.objectId)),
        row(L.accountingCost, invoice.accountingCost),
        ...(invoice.precedingInvoices ?? []).map((p) => row(L.precedingInvoice, p.issueDate ? `${p.number} (${date(p.issueDate)})` : p.number)),
      ),
    ),
  );

  // 4. Lines.
  out.push(
    `<section class="lines"><h2>${e(L.lines)}</h2><table class="lines"><thead><tr>` +
      `<th scope="col" class="pos">${e(L.position)}</th><th scope="col">${e(L.item)}</th><th scope="col" class="num">${e(L.quantity)}</th>` +
      `<th scope="col" class="num">${e(L.unitPrice)}</th><th scope="col">${e(L.vat)}</th><th scope="col" class="num">${e(L.netAmount)}</th>` +
      `</tr></thead><tbody>`,
  );
  for (const line of invoice.lines) {
    const details: string[] = [];
    if (line.description) details.push(`<div class="desc">${e(line.description)}</div>`);
    const ids = [line.sellerItemId, line.buyerItemId, line.standardItemId ? `${line.standardItemId.id} (${line.standardItemId.scheme})` : undefined].filter(Boolean).join(" · ");
    if (ids) details.push(`<div class="meta">${e(ids)}</div>`);
    for (const a of line.attributes ?? []) details.push(`<div class="meta">${e(a.name)}: ${e(a.value)}</div>`);
    const linePeriod = period(line.period);
    if (linePeriod) details.push(`<div class="meta">${e(L.period)}: ${e(linePeriod)}</div>`);
    if (line.orderLineReference) details.push(`<div class="meta">${e(L.orderReference)}: ${e(line.orderLineReference)}</div>`);
    if (line.accountingCost) details.push(`<div class="meta">${e(L.accountingCost)}: ${e(line.accountingCost)}</div>`);
    if (line.note) details.push(`<div class="note">${e(line.note)}</div>`);
    const acs = [
      ...(line.allowances ?? []).map((a) => ({ a, label: L.lineAllowance, sign: "−" })),
      ...(line.charges ?? []).map((a) => ({ a, label: L.lineCharge, sign: "+" })),
    ];
    for (const { a, label, sign } of acs) {
      const how = a.percent !== undefined && a.baseAmount !== undefined ? ` (${formatPercent(a.percent, lang)} × ${amount(a.baseAmount)})` : "";
      details.push(`<div class="ac">${e(label)}${a.reason || a.reasonCode ? `: ${e(a.reason ?? a.reasonCode)}` : ""} ${sign} ${e(amount(a.amount) ?? "")}${e(how)}</div>`);
    }
    const base = line.priceBaseQuantity && line.priceBaseQuantity !== "1" ? ` / ${formatNumber(line.priceBaseQuantity, lang)} ${unitName(line.priceBaseUnitCode ?? line.unitCode, lang)}` : "";
    const discount =
      line.grossPrice !== undefined && line.grossPrice !== line.price ? `<div class="meta">${e(L.priceDiscount)}: ${e(amount(line.grossPrice))} → ${e(amount(line.price))}</div>` : "";
    out.push(
      `<tr><td class="pos">${e(line.id)}</td><td class="item"><div class="name">${e(line.name)}</div>${details.join("")}</td>` +
        `<td class="num">${e(formatNumber(line.quantity, lang))} ${e(unitName(line.unitCode, lang))}</td>` +
        `<td class="num">${e(amount(line.price))}${e(base)}${discount}</td>` +
        `<td>${e(vat(line.vat))}</td><td class="num">${e(amount(line.netAmount))}</td></tr>`,
    );
  }
  out.push(`</tbody></table></section>`);

  // 5. Document allowances and charges.
  const docAcs = [...(invoice.allowances ?? []).map((a) => ({ a, label: L.allowance })), ...(invoice.charges ?? []).map((a) => ({ a, label: L.charge }))];
  if (docAcs.length > 0) {
    out.push(
      `<section class="allowances"><h2>${e(L.allowancesAndCharges)}</h2><table class="grid"><thead><tr><th scope="col"></th><th scope="col">${e(L.reason)}</th>` +
        `<th scope="col" class="num">${e(L.baseAmount)}</th><th scope="col">${e(L.vat)}</th><th scope="col" class="num">${e(L.netAmount)}</th></tr></thead><tbody>`,
    );
    for (const { a, label } of docAcs) {
      const reason = [a.reason, a.reasonCode ? `(${a.reasonCode})` : undefined].filter(Boolean).join(" ");
      const base = a.baseAmount !== undefined ? `${amount(a.baseAmount)}${a.percent !== undefined ? ` × ${formatPercent(a.percent, lang)}` : ""}` : "";
      out.push(`<tr><td>${e(label)}</td><td>${e(reason)}</td><td class="num">${e(base)}</td><td>${e(vat(a.vat))}</td><td class="num">${e(amount(a.amount))}</td></tr>`);
    }
    out.push(`</tbody></table></section>`);
  }

  // 6. VAT breakdown.
  const totals = invoice.totals ?? {};
  const breakdown = totals.vatBreakdown ?? [];
  if (breakdown.length > 0) {
    const exemptionOf = (category: string) => {
      const ex = invoice.vatExemptions?.[category as keyof NonNullable<InvoiceData["vatExemptions"]>];
      return ex ? [ex.reason, ex.code ? `(${ex.code})` : undefined].filter(Boolean).join(" ") : "";
    };
    const exemptions = breakdown.some((b) => exemptionOf(b.category) !== "");
    out.push(
      `<section class="vat"><h2>${e(L.vatBreakdown)}</h2><table class="grid"><thead><tr><th scope="col">${e(L.category)}</th><th scope="col" class="num">${e(L.rate)}</th>` +
        `<th scope="col" class="num">${e(L.taxableAmount)}</th><th scope="col" class="num">${e(L.taxAmount)}</th>${exemptions ? `<th scope="col">${e(L.exemptionReason)}</th>` : ""}</tr></thead><tbody>`,
    );
    for (const b of breakdown) {
      out.push(
        `<tr><td>${e(`${vatCategoryName(b.category, lang)} (${b.category})`)}</td><td class="num">${e(b.rate !== undefined ? formatPercent(b.rate, lang) : "")}</td>` +
          `<td class="num">${e(amount(b.taxableAmount))}</td><td class="num">${e(amount(b.taxAmount))}</td>${exemptions ? `<td>${e(exemptionOf(b.category))}</td>` : ""}</tr>`,
      );
    }
    out.push(`</tbody></table></section>`);
  }

  // 7. Totals.
  const vatAccounting =
    invoice.vatAccountingCurrency && "vatTotal" in invoice.vatAccountingCurrency ? formatAmount(invoice.vatAccountingCurrency.vatTotal, invoice.vatAccountingCurrency.code, lang) : undefined;
  out.push(
    section(
      "totals",
      L.totals,
      rows(
        "sums",
        row(L.lineTotal, money(totals.lineTotal)),
        row(L.allowanceTotal, money(totals.allowanceTotal)),
        row(L.chargeTotal, money(totals.chargeTotal)),
        row(L.taxExclusive, money(totals.taxExclusive)),
        row(L.vatTotal, money(totals.vatTotal)),
        row(L.vatTotal, vatAccounting),
        row(L.taxInclusive, money(totals.taxInclusive)),
        row(L.paidAmount, money(invoice.paidAmount)),
        row(L.roundingAmount, money(invoice.roundingAmount)),
        totals.payable !== undefined ? `<tr class="due"><th scope="row">${e(L.payable)}</th><td>${e(money(totals.payable))}</td></tr>` : "",
      ),
    ),
  );

  // 8. Payment.
  const p = invoice.payment;
  const payment: string[] = [];
  if (p) {
    payment.push(row(L.paymentMeans, `${paymentMeansName(p.meansCode, lang)}${p.meansText ? ` – ${p.meansText}` : ""}`));
    for (const a of p.accounts ?? []) {
      payment.push(row(L.iban, a.bic ? `${a.iban} (${L.bic} ${a.bic})` : a.iban));
      payment.push(row(L.accountName, a.name));
    }
    if (p.card) payment.push(row(L.card, [`…${p.card.last4}`, p.card.holder, p.card.network && p.card.network !== "NA" ? p.card.network : undefined].filter(Boolean).join(", ")));
    if (p.directDebit) {
      payment.push(row(L.mandate, p.directDebit.mandate), row(L.creditorId, p.directDebit.creditorId), row(L.debitedAccount, p.directDebit.debitedAccount));
    }
    payment.push(row(L.paymentReference, p.reference));
  }
  if (invoice.paymentTerms) payment.push(`<tr><th scope="row">${e(L.paymentTerms)}</th><td class="pre">${e(invoice.paymentTerms)}</td></tr>`);
  out.push(section("payment", L.payment, rows("facts", ...payment)));

  // 9. Notes.
  if (invoice.notes && invoice.notes.length > 0) out.push(section("notes", L.notes, invoice.notes.map((n) => `<p class="pre">${e(n)}</p>`).join("")));

  // 10. Delivery.
  const d = invoice.delivery;
  if (d) {
    out.push(
      section(
        "delivery",
        L.delivery,
        rows(
          "facts",
          row(L.deliveryDate, date(d.date)),
          row(L.deliverTo, d.partyName),
          row(L.location, scheme(d.location)),
          d.address ? `<tr><th scope="row">${e(L.deliverTo)}</th><td><address>${addressLines(d.address)}</address></td></tr>` : "",
        ),
      ),
    );
  }

  // 11. Attachments, by name (their content is not shown; an external location is text, never a link).
  const atts = invoice.attachments ?? [];
  if (atts.length > 0) {
    out.push(
      section(
        "attachments",
        L.attachments,
        `<ul>${atts
          .map((a) => `<li><span class="name">${e(a.filename ?? a.id)}</span>${a.filename ? ` <span class="meta">(${e(a.id)})</span>` : ""}${a.description ? ` – ${e(a.description)}` : ""}${a.url ? ` <span class="meta">${e(a.url)}</span>` : ""}</li>`)
          .join("")}</ul>`,
      ),
    );
  }

  // 12. KSeF: the number and the verification QR code (KOD I) with its label.
  const k = options.ksef;
  if (k) {
    const link = /^https:\/\/[^\s"'<>]+$/.test(k.verificationUrl) ? `<a href="${e(k.verificationUrl)}" rel="noreferrer">${e(k.verificationUrl)}</a>` : e(k.verificationUrl);
    const qr = k.qrSvg ? `<img class="qr" alt="${e(`${L.ksefQrLabel}: ${k.ksefNumber}`)}" src="data:image/svg+xml;base64,${Buffer.from(k.qrSvg, "utf8").toString("base64")}">` : "";
    out.push(
      `<section class="ksef"><h2>${e(L.ksef)}</h2>` +
        rows("facts", row(L.ksefNumber, k.ksefNumber)) +
        `<figure>${qr}<figcaption><div class="qr-label">${e(L.ksefQrLabel)}</div><div class="ksef-number">${e(k.ksefNumber)}</div><div class="link">${link}</div></figcaption></figure>` +
        `</section>`,
    );
  }

  out.push(`</main></body></html>`);
  return out.join("");
}

/** The page's style: screen and A4 print; the lines' header repeats on each printed page, a row is never split. */
const CSS = `
*{box-sizing:border-box}
html{font-family:"DejaVu Sans","Liberation Sans",Arial,Helvetica,sans-serif;font-size:10pt;color:#111;background:#fff}
body{margin:0;padding:16px}
main.invoice{max-width:190mm;margin:0 auto}
h1{font-size:18pt;margin:12px 0 8px}
h1 .number{font-weight:normal}
h2{font-size:10pt;text-transform:uppercase;letter-spacing:.04em;color:#444;margin:14px 0 4px;border-bottom:1px solid #ccc;padding-bottom:2px}
.parties{display:flex;gap:24px}
.parties>section{flex:1}
.party .name{font-weight:bold;font-size:11pt}
address{font-style:normal}
table{border-collapse:collapse}
table.facts th,table.ids th,table.sums th{text-align:left;font-weight:normal;color:#555;padding:1px 12px 1px 0;vertical-align:top}
table.facts td,table.ids td,table.sums td{padding:1px 0;vertical-align:top}
table.lines,table.grid{width:100%}
table.lines th,table.grid th{text-align:left;border-bottom:1px solid #888;padding:4px;font-weight:bold}
table.lines td,table.grid td{border-bottom:1px solid #ddd;padding:4px;vertical-align:top}
.num,table.lines th.num,table.grid th.num{text-align:right;white-space:nowrap}
.pos{white-space:nowrap}
.item .name{font-weight:bold}
.meta,.desc,.note,.ac{font-size:9pt;color:#444}
.pre{white-space:pre-wrap}
section.totals table.sums{margin-left:auto}
section.totals table.sums td{text-align:right;padding-left:24px}
tr.due th,tr.due td{font-weight:bold;border-top:1px solid #888;padding-top:3px}
.ksef figure{margin:6px 0;display:flex;gap:12px;align-items:center}
.ksef img.qr{width:40mm;height:auto}
.ksef .ksef-number{font-family:monospace}
.ksef .link{font-size:8pt;word-break:break-all}
thead{display:table-header-group}
tr{break-inside:avoid}
@page{size:A4;margin:14mm 12mm 16mm;@bottom-right{content:counter(page) " / " counter(pages);font-size:8pt}}
@media print{body{padding:0}main.invoice{max-width:none}a{color:inherit;text-decoration:none}}
`;
