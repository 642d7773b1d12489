/**
 * Time windows of stateful rules (`timeWindow` parameters; the schema is `TimeWindowSchema` in the
 * domain): where a window starts for a given end instant, how it reads in a rule description, and
 * how long it can be.
 *
 * All arithmetic is in UTC on epoch milliseconds; there is no time-zone or DST handling, so a
 * day is always 86 400 000 ms. The semantics follow docs/wire-format.md#time-windows.
 */
import { TxmonError } from '../errors.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../domain/time.js';
import { DEFAULT_FISCAL_YEAR_START, MAX_TIME_WINDOW_UNITS, type TimeWindow } from '../domain/schemas/time-window.js';

const WEEK_MS = 7 * DAY_MS;

/**
 * Start of the window that ends at `end` — the window is the closed interval **[start, end]**,
 * so an entry exactly at `start` and one exactly at `end` are both inside.
 *
 * - **Rolling** (`rollingBasis: true`, and always for second/minute/hour): `end − units × unit`.
 *   Seconds to weeks are fixed lengths (a day is 86 400 000 ms; UTC has no DST). Months and years
 *   use calendar arithmetic, keeping the day of month and time of day and clamping to the end of
 *   a shorter month: 31 March − 1 month = 28 (or 29) February; 29 Feb 2024 − 1 year = 28 Feb 2023.
 *   A rolling `fiscal_year` is a rolling year. Because the time of day is kept, the start is not
 *   monotonic across clamped days: 30 Mar 10:00 → 28 Feb 10:00 but 31 Mar 09:00 → 28 Feb 09:00.
 * - **Calendar-aligned** (`rollingBasis` false or absent; day/week/month/year): the beginning of
 *   the calendar unit containing `end`, minus `units − 1` units. "1 day" starts at 00:00:00.000 UTC
 *   today; weeks start on Monday 00:00 UTC; "1 month" starts on the 1st of this month; "1 year" on
 *   1 January.
 * - **Fiscal year** (not rolling): the start of the fiscal year containing `end` (from
 *   `fiscalYear`, default {@link DEFAULT_FISCAL_YEAR_START}, a start day past the month's end is
 *   clamped to its last day), minus `units − 1` fiscal years.
 *
 * `end` may be fractional (timestamps are epoch ms, non-integers allowed): rolling windows keep
 * the fraction (as far as a double at the start's magnitude can hold it, which is exact for any
 * start after 1970), calendar-aligned and fiscal starts are whole milliseconds.
 *
 * @param end the window's end: the current transaction's timestamp (epoch ms, UTC)
 * @param window the rule's time window (already validated against {@link TimeWindowSchema})
 * @returns the window's first instant (epoch ms, UTC), always `≤ end`
 * @throws TxmonError `VALIDATION_FAILED` when `end` is not finite, `units` is not an integer in
 *   1..10000, `fiscalYear` is out of range or `granularity` is unknown (detail paths `/end`,
 *   `/units`, `/fiscalYear/startMonth`, `/fiscalYear/startDay`, `/granularity`)
 * @example
 * ```ts
 * windowStart(Date.UTC(2024, 2, 31, 12), { units: 1, granularity: 'month', rollingBasis: true })
 * // → Date.UTC(2024, 1, 29, 12): 29 Feb 2024, 12:00 UTC
 * ```
 */
export function windowStart(end: number, window: TimeWindow): number {
  assertWindowInput(end, window);
  const { units, granularity } = window;
  const rolling = window.rollingBasis === true;
  switch (granularity) {
    case 'second':
      return end - units * SECOND_MS;
    case 'minute':
      return end - units * MINUTE_MS;
    case 'hour':
      return end - units * HOUR_MS;
    case 'day':
      return rolling ? end - units * DAY_MS : startOfUtcDay(end) - (units - 1) * DAY_MS;
    case 'week':
      return rolling ? end - units * WEEK_MS : startOfUtcWeek(end) - (units - 1) * WEEK_MS;
    case 'month':
      return rolling ? subtractMonthsClamped(end, units) : startOfUtcMonth(end, units - 1);
    case 'year':
      return rolling ? subtractMonthsClamped(end, 12 * units) : startOfUtcMonth(end, 12 * (units - 1), 0);
    case 'fiscal_year':
      return rolling ? subtractMonthsClamped(end, 12 * units) : startOfFiscalYear(end, window, units - 1);
    default:
      throw invalidWindow('/granularity', 'enum', 'must be one of the time-window granularities');
  }
}

/**
 * A short English phrase for a time window, used in rule descriptions: rolling windows read
 * "1 day", "30 days", "1 hour"; calendar-aligned ones "1 calendar day", "2 calendar months";
 * fiscal years "1 fiscal year" (a rolling fiscal year reads "1 year").
 *
 * @example
 * ```ts
 * describeTimeWindow({ units: 30, granularity: 'day', rollingBasis: true }) // "30 days"
 * describeTimeWindow({ units: 2, granularity: 'month' })                    // "2 calendar months"
 * ```
 */
export function describeTimeWindow(window: TimeWindow): string {
  const { units, granularity } = window;
  const rolling = window.rollingBasis === true;
  let noun: string;
  switch (granularity) {
    case 'second':
    case 'minute':
    case 'hour':
      noun = granularity;
      break;
    case 'fiscal_year':
      noun = rolling ? 'year' : 'fiscal year';
      break;
    default:
      noun = rolling ? granularity : `calendar ${granularity}`;
  }
  return `${units} ${noun}${units === 1 ? '' : 's'}`;
}

/**
 * An upper bound of `end − windowStart(end, window)` over every possible `end`, in ms — for
 * retention decisions (how much history a key must keep). Months count as 31 days and years
 * (calendar, rolling or fiscal) as 366 days; fixed-length units are exact.
 *
 * @throws TxmonError `VALIDATION_FAILED` when `granularity` is unknown (detail path `/granularity`)
 */
export function maxWindowSpanMs(window: TimeWindow): number {
  const { units, granularity } = window;
  switch (granularity) {
    case 'second':
      return units * SECOND_MS;
    case 'minute':
      return units * MINUTE_MS;
    case 'hour':
      return units * HOUR_MS;
    case 'day':
      return units * DAY_MS;
    case 'week':
      return units * WEEK_MS;
    case 'month':
      return units * 31 * DAY_MS;
    case 'year':
    case 'fiscal_year':
      return units * 366 * DAY_MS;
    default:
      throw invalidWindow('/granularity', 'enum', 'must be one of the time-window granularities');
  }
}

function assertWindowInput(end: number, window: TimeWindow): void {
  if (!Number.isFinite(end)) throw invalidWindow('/end', 'type', 'must be a finite number');
  const { units } = window;
  if (!Number.isInteger(units) || units < 1 || units > MAX_TIME_WINDOW_UNITS) {
    throw invalidWindow('/units', 'range', 'must be an integer from 1 to 10000');
  }
  const fiscal = window.fiscalYear;
  if (fiscal !== undefined) {
    if (!Number.isInteger(fiscal.startMonth) || fiscal.startMonth < 1 || fiscal.startMonth > 12) {
      throw invalidWindow('/fiscalYear/startMonth', 'range', 'must be an integer from 1 to 12');
    }
    if (!Number.isInteger(fiscal.startDay) || fiscal.startDay < 1 || fiscal.startDay > 31) {
      throw invalidWindow('/fiscalYear/startDay', 'range', 'must be an integer from 1 to 31');
    }
  }
}

function invalidWindow(path: string, code: string, message: string): TxmonError {
  return new TxmonError('VALIDATION_FAILED', `Invalid time window: ${path} ${message}`, [{ path, code, message }]);
}

function startOfUtcDay(t: number): number {
  return Math.floor(t / DAY_MS) * DAY_MS;
}

function startOfUtcWeek(t: number): number {
  const day = Math.floor(t / DAY_MS);
  // Day 0 (1970-01-01) was a Thursday; Monday-based weekday index = (day + 3) mod 7.
  const weekday = (((day + 3) % 7) + 7) % 7;
  return (day - weekday) * DAY_MS;
}

/** Builds a UTC instant from calendar fields; unlike `Date.UTC`, years 0..99 are not shifted to 19xx. */
function utcInstant(year: number, month: number, day: number, timeOfDay = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d.getTime() + timeOfDay;
}

/** 1st of the month containing `t`, moved back `monthsBack` months (the month is normalised). */
function startOfUtcMonth(t: number, monthsBack: number, month?: number): number {
  const d = new Date(Math.floor(t));
  return utcInstant(d.getUTCFullYear(), (month ?? d.getUTCMonth()) - monthsBack, 1);
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of `month`.
  return new Date(utcInstant(year, month + 1, 0)).getUTCDate();
}

/** `t` minus `months` calendar months, same day of month and time of day, clamped to month end. */
function subtractMonthsClamped(t: number, months: number): number {
  const whole = Math.floor(t);
  const fraction = t - whole;
  const d = new Date(whole);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() - months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month));
  const timeOfDay = whole - startOfUtcDay(whole);
  return utcInstant(year, month, day, timeOfDay) + fraction;
}

function fiscalYearStartIn(year: number, startMonth: number, startDay: number): number {
  const month = startMonth - 1;
  return utcInstant(year, month, Math.min(startDay, daysInMonth(year, month)));
}

function startOfFiscalYear(t: number, window: TimeWindow, yearsBack: number): number {
  const { startMonth, startDay } = window.fiscalYear ?? DEFAULT_FISCAL_YEAR_START;
  const calendarYear = new Date(Math.floor(t)).getUTCFullYear();
  const fiscalYear = t >= fiscalYearStartIn(calendarYear, startMonth, startDay) ? calendarYear : calendarYear - 1;
  return fiscalYearStartIn(fiscalYear - yearsBack, startMonth, startDay);
}
