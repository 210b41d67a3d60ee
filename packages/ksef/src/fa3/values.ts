// What the FA(3) mapping's parts share: its error, and FA(3)'s value types (amounts, quantities,
// prices, dates) with the decimal arithmetic (big.js) of fields that several UBL amounts feed.
import Big from "big.js";

/** A value of the UBL invoice that FA(3) cannot carry, or a value FA(3) requires that is missing. */
export class Fa3MappingError extends Error {
  override readonly name = "Fa3MappingError";
  constructor(
    /** The FA(3) field, such as "Podmiot1/DaneIdentyfikacyjne/NIP" or "Fa/FaWiersz[2]/P_12". */
    readonly field: string,
    /** What is wrong, naming the UBL source (business term) and its value. */
    readonly reason: string,
  ) {
    super(`FA(3) ${field}: ${reason}`);
  }
}

export const AMOUNT = /^-?([1-9]\d{0,15}|0)(\.\d{1,2})?$/;
export const QUANTITY = /^-?([1-9]\d{0,15}|0)(\.\d{1,6})?$/;
export const PRICE = /^-?([1-9]\d{0,13}|0)(\.\d{1,8})?$/;
export const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export const EU_COUNTRIES = new Set(["AT", "BE", "BG", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "EL", "GR", "HR", "HU", "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PT", "RO", "SK", "SI", "ES", "SE", "XI"]);

/** The value when it is an FA(3) amount (at most 2 decimals); throws naming `field` and `source` otherwise. */
export function amount(value: string, field: string, source: string): string {
  if (!AMOUNT.test(value)) throw new Fa3MappingError(field, `${source} "${value}" is not an amount with at most 2 decimals`);
  return value;
}

/** A date within the range of the FA(3) date type (TDataT: 2006-01-01 to 2050-01-01; TData from 2016-07-01). */
export function date(value: string, field: string, source: string, min = "2006-01-01"): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value < min || value > "2050-01-01") throw new Fa3MappingError(field, `${source} "${value}" is not a date from ${min} to 2050-01-01`);
  return value;
}

export function sum(values: readonly string[]): string {
  let total = new Big(0);
  for (const v of values) total = total.plus(v);
  return total.toFixed(2);
}

/** Round half up to 2 decimals (VAT Act art. 106e sec. 11). */
export function times(value: string, rate: string): string {
  return new Big(value).times(rate).round(2, Big.roundHalfUp).toFixed(2);
}

/** The amount with its sign turned (a credit note's amounts are the correction's negative differences). */
export function negate(value: string): string {
  if (/^-?0(\.0*)?$/.test(value)) return value.replace(/^-/, "");
  return value.startsWith("-") ? value.slice(1) : `-${value}`;
}
