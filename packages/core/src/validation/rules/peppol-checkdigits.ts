// The identifier checks of Peppol BIS Billing 3.0 (release 2026.5), as the official Schematron functions
// compute them (u:gln, u:mod11, u:mod97-0208, u:abn, u:checkSEOrgnr, u:TinVerification, u:checkCF,
// u:checkCodiceIPA, u:checkPIVAseIT) and the IBAN test of the German rules. Pure functions on strings.

const isDigit = (text: string | undefined): boolean => text !== undefined && text >= "0" && text <= "9";

/** The XPath number() of a one-character string: its digit, or NaN. */
function digitOf(text: string | undefined): number {
  return isDigit(text) ? text!.charCodeAt(0) - 48 : NaN;
}

/**
 * GS1 check digit (u:gln): from the right of the body, weights 3, 1, 3, 1, ...; the last character is the
 * check digit. Callers check the digits-only format first (PEPPOL-COMMON-R040).
 */
export function glnCheckDigitValid(val: string): boolean {
  const chars = Array.from(val);
  const body = chars.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += (body[body.length - 1 - i]!.charCodeAt(0) - 48) * (i % 2 === 0 ? 3 : 1);
  return ((10 - (sum % 10)) % 10) === digitOf(chars[chars.length - 1]);
}

/**
 * Modulus 11 (u:mod11, Norwegian organisation numbers): from the right of the body, weights 2..7 repeating;
 * check digit (11 - sum mod 11) mod 11, which can never be the two digits 10. The whole value must be above 0.
 */
export function mod11Valid(val: string): boolean {
  const chars = Array.from(val);
  if (!(xsNumberPositive(val))) return false;
  const body = chars.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += (body[body.length - 1 - i]!.charCodeAt(0) - 48) * ((i % 6) + 2);
  return ((11 - (sum % 11)) % 11) === digitOf(chars[chars.length - 1]);
}

function xsNumberPositive(val: string): boolean {
  const text = val.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  return /^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text) && /[1-9]/.test(text.replace(/[eE].*$/, ""));
}

/**
 * Belgian enterprise number (u:mod97-0208): the last two digits equal 97 - (first eight digits mod 97).
 * Callers check the ten-digit format first (PEPPOL-COMMON-R043).
 */
export function belgianEnterpriseNumberValid(val: string): boolean {
  const body = val.slice(0, 8), check = val.slice(8, 10);
  if (!/^[0-9]+$/.test(body) || !/^[0-9]+$/.test(check)) return false;
  return Number(check) === 97 - (Number(body) % 97);
}

/**
 * Australian Business Number (u:abn): subtract 1 from the first digit, weights 10, 1, 3, 5, ..., 19; the sum
 * is divisible by 89. Callers check the eleven-digit format first (PEPPOL-COMMON-R050).
 */
export function abnValid(val: string): boolean {
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  let sum = 0;
  for (let i = 0; i < 11; i++) {
    const value = digitOf(val[i]);
    if (Number.isNaN(value)) return false;
    sum += (i === 0 ? value - 1 : value) * weights[i]!;
  }
  return sum % 89 === 0;
}

/**
 * Swedish organisation number (u:checkSEOrgnr): digits only; the Luhn check digit of the first nine digits
 * is the tenth character.
 */
export function swedishOrgNumberValid(val: string): boolean {
  if (!/^[0-9]+$/.test(val)) return false;
  const main = val.slice(0, 9);
  let sum = 0;
  for (let pos = 1; pos <= main.length; pos++) {
    const value = main.charCodeAt(main.length - pos) - 48;
    sum += pos % 2 === 1 ? ((value * 2) % 10) + Math.floor((value * 2) / 10) : value;
  }
  return (10 - (sum % 10)) % 10 === digitOf(val[9]);
}

/**
 * Greek tax number (AFM, u:TinVerification): the first eight digits weighted 256, 128, ..., 2; (sum mod 11)
 * mod 10 is the ninth digit. Characters after the ninth are not looked at.
 */
export function greekTinValid(val: string): boolean {
  const chars = Array.from(val);
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += digitOf(chars[i]) * 2 ** (8 - i);
  const check = digitOf(chars[8]);
  return !Number.isNaN(sum) && (sum % 11) % 10 === check;
}

/** XPath `castable as xs:integer`: optional sign and digits, XML whitespace around allowed. */
export function isXsInteger(text: string): boolean {
  return /^[ \t\r\n]*[+-]?[0-9]+[ \t\r\n]*$/.test(text);
}

const LETTERS = /^[A-Za-z]*$/;

/** Italian IPA office code (u:checkCodiceIPA): six ASCII letters or digits. */
export function italianIpaCodeValid(val: string): boolean {
  return /^[A-Za-z0-9]{6}$/.test(val);
}

/**
 * Italian tax code (u:checkCF): sixteen characters in the personal pattern (u:checkCF16: six letters, two
 * digits, a letter, two digits, three characters, a digit, a letter), or eleven characters that are an integer.
 */
export function italianFiscalCodeValid(val: string): boolean {
  const chars = Array.from(val);
  if (chars.length === 16) {
    const part = (start: number, len: number) => chars.slice(start - 1, start - 1 + len).join("");
    return LETTERS.test(part(1, 6)) && isXsInteger(part(7, 2)) && LETTERS.test(part(9, 1)) &&
      isXsInteger(part(10, 2)) && isXsInteger(part(15, 1)) && LETTERS.test(part(16, 1));
  }
  return chars.length === 11 && isXsInteger(val);
}

/**
 * Italian VAT number (u:checkPIVAseIT): when it starts with IT (or it), the eleven digits after it must pass
 * the Partita IVA check (odd positions as they are, even positions doubled with their digits summed, total
 * divisible by 10). Anything not starting with IT passes.
 */
export function italianVatNumberValid(val: string): boolean {
  const country = val.slice(0, 2);
  if (country !== "IT" && country !== "it") return true;
  const code = Array.from(val).slice(2);
  if (code.length !== 11 || !isXsInteger(code.join(""))) return false;
  let sum = 0;
  for (let i = 0; i < code.length; i++) {
    const value = digitOf(code[i]);
    if (Number.isNaN(value)) return false;
    sum += i % 2 === 0 ? value : Number("0246813579"[value]);
  }
  return sum % 10 === 0;
}

/**
 * IBAN check of the German rules (DE-R-019, DE-R-020), as written there: whitespace removed, two capital
 * letters, two digits and up to 30 letters or digits; the country and check digits moved to the end, each
 * character above '@' replaced by its code point minus 55 (so A=10; a lower-case letter gives its own, larger
 * number), the rest by its digit; the number mod 97 is 1.
 */
export function germanRulesIbanValid(raw: string): boolean {
  const iban = raw.replace(/[ \n\r\t]/g, "");
  if (!/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{0,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 2).toUpperCase() + iban.slice(2, 4);
  let digits = "";
  for (const ch of moved) {
    const cp = ch.codePointAt(0)!;
    digits += String(cp > 64 ? cp - 55 : cp - 48);
  }
  let rest = 0;
  for (const ch of digits) rest = (rest * 10 + (ch.charCodeAt(0) - 48)) % 97;
  return rest === 1;
}
