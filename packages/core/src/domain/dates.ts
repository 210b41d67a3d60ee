// Calendar arithmetic shared by the checks of dates: query parameters, InvoiceData and the document's xs:dates.

/** True when `day` exists in `month` (1 to 12) of `year` in the proleptic Gregorian calendar. */
export function dayExists(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}
