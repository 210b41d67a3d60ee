// Platnosc: the due date (BT-9), the payment means (BG-16) as FA(3)'s form of payment, and the
// payee's bank accounts (BT-84, BT-86, BT-85).
import type { Fa3Node } from "../model.js";
import { childOf, childrenOf, firstAt, text } from "../model.js";
import { date } from "./values.js";
import type { Xml } from "./xml.js";

// UNCL4461 payment means to TFormaPlatnosci (1 cash, 2 card, 3 voucher, 4 cheque, 5 credit, 6 transfer, 7 mobile).
const PAYMENT_FORMS: Record<string, string> = {
  "10": "1",
  "20": "4",
  "30": "6",
  "31": "6",
  "42": "6",
  "58": "6",
  "48": "2",
  "54": "2",
  "55": "2",
  "68": "7",
};

/** Platnosc, when the invoice has a due date or payment means; nothing otherwise. */
export function writePayment(x: Xml, root: Fa3Node): void {
  const due = text(childOf(root, "cbc:DueDate")) || text(firstAt(root, "cac:PaymentMeans/cbc:PaymentDueDate"));
  const means = childrenOf(root, "cac:PaymentMeans");
  if (!due && means.length === 0) return;
  x.open("Platnosc");
  if (due) x.open("TerminPlatnosci").leaf("Termin", date(due, "Fa/Platnosc/TerminPlatnosci/Termin", "the due date (BT-9)", "2016-07-01")).close("TerminPlatnosci");
  const first = means[0];
  if (first) {
    const code = text(childOf(first, "cbc:PaymentMeansCode"));
    const form = PAYMENT_FORMS[code];
    const name = childOf(first, "cbc:PaymentMeansCode")?.attrs["name"];
    if (form) x.leaf("FormaPlatnosci", form);
    else x.leaf("PlatnoscInna", "1").leaf("OpisPlatnosci", `UNCL4461 ${code}${name ? ` (${name})` : ""}`.slice(0, 256));
  }
  for (const m of means) {
    const account = text(firstAt(m, "cac:PayeeFinancialAccount/cbc:ID")).replace(/\s/g, "");
    if (account.length < 10 || account.length > 34) continue;
    const bic = text(firstAt(m, "cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID")).toUpperCase();
    x.open("RachunekBankowy").leaf("NrRB", account).leaf("SWIFT", /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic) ? bic : "").leaf("NazwaBanku", text(firstAt(m, "cac:PayeeFinancialAccount/cbc:Name")).slice(0, 256)).close("RachunekBankowy");
  }
  x.close("Platnosc");
}
