/**
 * Days of the history and times within a day: which weekday and day of the month a day is, when a
 * monthly payment falls due, and at what time of day people and banks make payments.
 */
import { DAY_MS, HOUR_MS } from '../../domain/index.js';
import { createWeightedPicker, type Random } from './random.js';

/** One day of the history. */
export interface DayInfo {
  /** Days since the start (0 is the first day). */
  readonly index: number;
  /** Epoch ms of the day's UTC midnight. */
  readonly start: number;
  /** 0 = Sunday … 6 = Saturday. */
  readonly weekday: number;
  readonly dayOfMonth: number;
  readonly daysInMonth: number;
}

/** The `index`-th day of a history starting at `start` (a UTC midnight). */
export function dayInfo(start: number, index: number): DayInfo {
  const dayStart = start + index * DAY_MS;
  const date = new Date(dayStart);
  const daysInMonth = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  return { index, start: dayStart, weekday: date.getUTCDay(), dayOfMonth: date.getUTCDate(), daysInMonth };
}

/** Whether a day is Saturday or Sunday. */
export function isWeekend(day: DayInfo): boolean {
  return day.weekday === 0 || day.weekday === 6;
}

/**
 * Whether a monthly payment scheduled on day-of-month `target` (31: the month's last day) falls on
 * `day`. A date on a weekend moves to the Friday before, or to the Monday after when that Friday is
 * in the previous month, so each month has exactly one due date.
 */
export function isDue(target: number, day: DayInfo): boolean {
  let due = Math.min(target, day.daysInMonth);
  const weekday = (((day.weekday + due - day.dayOfMonth) % 7) + 7) % 7;
  if (weekday === 6) due = due > 1 ? due - 1 : due + 2;
  else if (weekday === 0) due = due > 2 ? due - 2 : due + 1;
  return due === day.dayOfMonth;
}

/** When in the day payments of a kind happen, by local hour. */
export type DayProfile = 'retail' | 'office' | 'batch';

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const HOUR_WEIGHTS: Readonly<Record<DayProfile, readonly number[]>> = Object.freeze({
  // People pay through the day, with a lunch and an evening peak, and little at night.
  retail: [1, 0.5, 0.3, 0.2, 0.2, 0.4, 1, 2.5, 4, 4.5, 5, 6, 7.5, 6.5, 5.5, 5.5, 6, 7.5, 8, 7, 5.5, 4, 3, 2],
  // Transfers people and businesses make from their desks.
  office: [0.2, 0.1, 0.1, 0.1, 0.1, 0.2, 0.5, 2, 5, 7, 7, 6, 5, 6, 7, 7, 6, 4, 3, 2.5, 2, 1.5, 1, 0.5],
  // Salaries, direct debits and settlements the banks post in the early morning.
  batch: [0.5, 1, 3, 5, 6, 6, 4, 2, 1, 0.5, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2],
});
const PICK_HOUR: Readonly<Record<DayProfile, (random: Random) => number>> = Object.freeze({
  retail: createWeightedPicker(HOURS, HOUR_WEIGHTS.retail),
  office: createWeightedPicker(HOURS, HOUR_WEIGHTS.office),
  batch: createWeightedPicker(HOURS, HOUR_WEIGHTS.batch),
});

/**
 * A time on `day` (epoch ms): a local hour drawn from `profile`, turned into UTC with the
 * customer's offset and kept within the UTC day (wrapped), plus a random minute, second and millisecond.
 */
export function drawTimeOn(random: Random, day: DayInfo, profile: DayProfile, utcOffset: number): number {
  const hour = (((PICK_HOUR[profile](random) - utcOffset) % 24) + 24) % 24;
  return day.start + hour * HOUR_MS + random.int(0, HOUR_MS - 1);
}
