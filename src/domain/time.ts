/**
 * Time units in milliseconds and calendar dates (`YYYY-MM-DD`, proleptic Gregorian, UTC). One home
 * for these, used by windows, rules, filters and validation.
 */

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Epoch ms of 00:00 UTC of a `YYYY-MM-DD` date (a time part after `T` is ignored), or `null` when
 * the value is not such a date or names a day that does not exist (2023-02-30).
 */
export function parseCalendarDate(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(value);
  if (match === null) return null;
  const year = Number(match[1]);
  const month = Number(match[2]) - 1;
  const day = Number(match[3]);
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month, day);
  // A date that does not exist rolls over; reject it.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month || date.getUTCDate() !== day) return null;
  return date.getTime();
}

/** Whether `value` is exactly `YYYY-MM-DD` naming a day that exists. */
export function isCalendarDate(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && parseCalendarDate(value) !== null;
}
