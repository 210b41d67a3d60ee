// The Polish tax identification number (NIP): 10 digits, the last a check digit.

const WEIGHTS = [6, 5, 7, 2, 3, 4, 5, 6, 7] as const;

/**
 * Whether `nip` is a NIP as KSeF takes it: exactly 10 digits, the tax office code (digits 1 to 3)
 * not starting with 0 nor ending in 00 (the FA(3) schema's `TNrNIP` pattern), and the check digit
 * the weighted sum (6, 5, 7, 2, 3, 4, 5, 6, 7) modulo 11 (a sum giving 10 is no valid NIP).
 */
export function isValidNip(nip: string): boolean {
  if (!/^[1-9]((\d[1-9])|([1-9]\d))\d{7}$/.test(nip)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += WEIGHTS[i]! * Number(nip[i]);
  return sum % 11 === Number(nip[9]);
}

/**
 * The NIP in `input` as its 10 digits, or null when it holds none: an optional `PL` prefix (its VAT
 * number form, any case), spaces and dashes between the digits are allowed ("PL 526-025-09-95").
 *
 * @example normaliseNip("PL526-025-09-95") // "5260250995"
 */
export function normaliseNip(input: string): string | null {
  const digits = input.trim().replace(/^pl\s*/i, "").replace(/[\s-]/g, "");
  return isValidNip(digits) ? digits : null;
}
