import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { dayInfo, drawTimeOn, isDue } from '../../../src/simulation/generate/calendar.js';
import { createRandom } from '../../../src/simulation/generate/random.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

describe('dayInfo', () => {
  it('names the weekday, the day of the month and the month length', () => {
    expect(dayInfo(START, 0)).toEqual({ index: 0, start: START, weekday: 4, dayOfMonth: 1, daysInMonth: 31 });
    expect(dayInfo(START, 31)).toMatchObject({ dayOfMonth: 1, daysInMonth: 28 });
  });
});

describe('isDue', () => {
  it.each([
    { name: 'a weekday date is kept', target: 15, date: '2026-01-15', due: true },
    { name: 'a Saturday moves to the Friday before', target: 31, date: '2026-01-30', due: true },
    { name: 'a Sunday moves to the Friday before', target: 1, date: '2026-03-02', due: true },
    { name: 'the 1st on a Sunday moves to Monday the 2nd (the Friday is last month)', target: 1, date: '2026-02-02', due: true },
    { name: 'and is not due on the Sunday itself', target: 1, date: '2026-02-01', due: false },
    { name: 'day 31 is the last day of a short month', target: 31, date: '2026-04-30', due: true },
  ])('$name', ({ target, date, due }) => {
    const index = (Date.parse(`${date}T00:00:00Z`) - START) / DAY;
    expect(isDue(target, dayInfo(START, index))).toBe(due);
  });

  test.prop([fc.integer({ min: 1, max: 31 }), fc.integer({ min: 0, max: 400 })])('falls on exactly one weekday of each month', (target, monthOffset) => {
    const first = Date.UTC(2000, monthOffset, 1);
    const info = dayInfo(first, 0);
    const due = Array.from({ length: info.daysInMonth }, (_, i) => dayInfo(first, i)).filter((d) => isDue(target, d));
    expect(due).toHaveLength(1);
    expect([1, 2, 3, 4, 5]).toContain(due[0]?.weekday);
  });
});

describe('drawTimeOn', () => {
  test.prop([fc.nat(), fc.integer({ min: -12, max: 14 })])('stays within the UTC day whatever the offset', (seed, offset) => {
    const random = createRandom(seed);
    const day = dayInfo(START, 3);
    for (const profile of ['retail', 'office', 'batch'] as const) {
      const t = drawTimeOn(random, day, profile, offset);
      expect(t).toBeGreaterThanOrEqual(day.start);
      expect(t).toBeLessThan(day.start + DAY);
    }
  });
});
