import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { r121AverageDailyCountExceedsPastPeriod } from '../../src/rules/library/r-121-average-daily-count-exceeds-past-period.js';
import { r122AverageDailyAmountExceedsPastPeriod } from '../../src/rules/library/r-122-average-daily-amount-exceeds-past-period.js';
import { r131TransactionsExceedPastPeriod } from '../../src/rules/library/r-131-transactions-exceed-past-period.js';
import { DAY, HOUR, T0, errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;

/**
 * R-131 boundary table, through the engine. Period 1 = [T0 − 1 day, T0], period 2 = [T0 − 2 days,
 * T0] minus period 1 (both closed, ending at the current transaction). Every row sends `past`
 * transactions (default alice → bob), then the current one alice → bob at T0 (or `now`).
 */

const ONE_DAY = { units: 1, granularity: 'day', rollingBasis: true };
const TWO_DAYS = { units: 2, granularity: 'day', rollingBasis: true };
/** Midnight UTC of T0's day (T0 is 12:00 UTC). */
const D0 = Date.UTC(2025, 0, 15);

interface Past {
  at: number;
  origin?: string;
  destination?: string;
}

interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  past: Past[];
  now?: number;
  directions: string[];
}

const P2 = T0 - 1.5 * DAY; // inside period 2 only
const p1 = (n: number): Past[] => Array.from({ length: n }, (_, i) => ({ at: T0 - 1 - i }));
const p2 = (n: number): Past[] => Array.from({ length: n }, (_, i) => ({ at: P2 - i }));

const rows: Row[] = [
  { name: 'the first transaction never hits (period 2 empty)', parameters: { multiplierThreshold: 0 }, past: [], directions: [] },
  { name: 'an empty period 2 never hits, whatever period 1 holds', past: p1(5), directions: [] },
  { name: 'count1 = 2 × count2 + 1 hits (3 > 2 × 1)', past: [...p2(1), ...p1(2)], directions: ['ORIGIN'] },
  { name: 'count1 exactly 2 × count2 does not hit (strict >)', past: [...p2(1), ...p1(1)], directions: [] },
  { name: 'count1 one below 2 × count2 does not hit (3 vs 2 × 2)', past: [...p2(2), ...p1(2)], directions: [] },
  { name: 'count1 one above 2 × count2 hits (5 > 2 × 2)', past: [...p2(2), ...p1(4)], directions: ['ORIGIN'] },
  { name: 'multiplier 0: any non-empty period 2 hits', parameters: { multiplierThreshold: 0 }, past: p2(3), directions: ['ORIGIN'] },
  { name: 'the default multiplier 100 needs more than 100 × count2', parameters: { multiplierThreshold: 100 }, past: [...p2(1), ...p1(99)], directions: [] },
  { name: 'the default multiplier 100 hits at 101 × count2', parameters: { multiplierThreshold: 100 }, past: [...p2(1), ...p1(100)], directions: ['ORIGIN'] },
  {
    name: 'a fractional multiplier: count1 exactly 1.5 × count2 does not hit (3 vs 1.5 × 2)',
    parameters: { multiplierThreshold: 1.5 },
    past: [...p2(2), ...p1(2)],
    directions: [],
  },
  {
    name: 'a fractional multiplier: count1 one above 1.5 × count2 hits (4 > 1.5 × 2)',
    parameters: { multiplierThreshold: 1.5 },
    past: [...p2(2), ...p1(3)],
    directions: ['ORIGIN'],
  },
  { name: 'a multiplier below 1: 1 is not above 0.5 × 3', parameters: { multiplierThreshold: 0.5 }, past: p2(3), directions: [] },
  { name: 'a multiplier below 1: 2 > 0.5 × 3 hits', parameters: { multiplierThreshold: 0.5 }, past: [...p2(3), ...p1(1)], directions: ['ORIGIN'] },
  {
    name: 'exact arithmetic: 29 is not above 0.29 × 100 (in floats 0.29 × 100 = 28.999…96)',
    parameters: { multiplierThreshold: 0.29 },
    past: [...p2(100), ...p1(28)],
    directions: [],
  },
  { name: 'exact arithmetic: 30 > 0.29 × 100 hits', parameters: { multiplierThreshold: 0.29 }, past: [...p2(100), ...p1(29)], directions: ['ORIGIN'] },
  {
    name: 'period1/period2 boundary: an entry exactly at period 1 start is in period 1 (2 > 1 × 1)',
    parameters: { multiplierThreshold: 1 },
    past: [{ at: P2 }, { at: T0 - DAY }],
    directions: ['ORIGIN'],
  },
  {
    name: 'period1/period2 boundary: 1 ms before period 1 start is in period 2 (1 vs 1 × 2)',
    parameters: { multiplierThreshold: 1 },
    past: [{ at: P2 }, { at: T0 - DAY - 1 }],
    directions: [],
  },
  {
    name: 'period 2 start: an entry exactly at T0 − 2 days counts in period 2',
    parameters: { multiplierThreshold: 0 },
    past: [{ at: T0 - 2 * DAY }],
    directions: ['ORIGIN'],
  },
  {
    name: 'period 2 start: an entry 1 ms earlier is outside (period 2 empty)',
    parameters: { multiplierThreshold: 0 },
    past: [{ at: T0 - 2 * DAY - 1 }],
    directions: [],
  },
  { name: 'an entry after the current timestamp counts nowhere', parameters: { multiplierThreshold: 0 }, past: [{ at: T0 + HOUR }], directions: [] },
  {
    name: 'minTransactionsInTimeWindow1 equal to count1 hits',
    parameters: { minTransactionsInTimeWindow1: 3 },
    past: [...p2(1), ...p1(2)],
    directions: ['ORIGIN'],
  },
  {
    name: 'minTransactionsInTimeWindow1 one above count1 does not hit',
    parameters: { minTransactionsInTimeWindow1: 4 },
    past: [...p2(1), ...p1(2)],
    directions: [],
  },
  {
    name: 'minTransactionsInTimeWindow2 equal to count2 hits',
    parameters: { multiplierThreshold: 1, minTransactionsInTimeWindow2: 2 },
    past: [...p2(2), ...p1(2)],
    directions: ['ORIGIN'],
  },
  {
    name: 'minTransactionsInTimeWindow2 one above count2 does not hit',
    parameters: { multiplierThreshold: 1, minTransactionsInTimeWindow2: 3 },
    past: [...p2(2), ...p1(2)],
    directions: [],
  },
  {
    name: 'initialTransactions equal to the all-time count (old one, period 2, period 1, current) hits',
    parameters: { initialTransactions: 5 },
    past: [{ at: T0 - 30 * DAY }, ...p2(1), ...p1(2)],
    directions: ['ORIGIN'],
  },
  {
    name: 'initialTransactions one above the all-time count does not hit',
    parameters: { initialTransactions: 6 },
    past: [{ at: T0 - 30 * DAY }, ...p2(1), ...p1(2)],
    directions: [],
  },
  {
    name: "initialTransactions counts received transactions even with checkSender 'sending'",
    parameters: { initialTransactions: 5, checkSender: 'sending' },
    past: [{ at: T0 - 30 * DAY, origin: 'carol', destination: 'alice' }, ...p2(1), ...p1(2)],
    directions: ['ORIGIN'],
  },
  { name: 'period 2 as long as period 1 never hits', parameters: { multiplierThreshold: 0, timeWindow2: ONE_DAY }, past: [...p2(1), ...p1(1)], directions: [] },
  {
    name: 'period 2 shorter than period 1 never hits',
    parameters: { multiplierThreshold: 0, timeWindow1: TWO_DAYS, timeWindow2: ONE_DAY },
    past: [...p2(1), ...p1(1)],
    directions: [],
  },
  {
    name: 'calendar days: 00:00 UTC today is period 1, 1 ms before is period 2 (2 > 1 × 1)',
    parameters: { multiplierThreshold: 1, timeWindow1: { units: 1, granularity: 'day' }, timeWindow2: { units: 2, granularity: 'day' } },
    past: [{ at: D0 - 1 }, { at: D0 }],
    directions: ['ORIGIN'],
  },
  {
    name: 'calendar days: 00:00 UTC yesterday is in period 2, 1 ms before is out',
    parameters: { multiplierThreshold: 0, timeWindow1: { units: 1, granularity: 'day' }, timeWindow2: { units: 2, granularity: 'day' } },
    past: [{ at: D0 - DAY - 1 }],
    directions: [],
  },
  {
    name: "checkSender 'sending': a transaction the sender received does not count",
    parameters: { multiplierThreshold: 0, checkSender: 'sending', checkReceiver: 'none' },
    past: [{ at: P2, origin: 'carol', destination: 'alice' }],
    directions: [],
  },
  {
    name: "checkSender 'all': a transaction the sender received counts",
    parameters: { multiplierThreshold: 0, checkSender: 'all', checkReceiver: 'none' },
    past: [{ at: P2, origin: 'carol', destination: 'alice' }],
    directions: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'receiving': the receiver's received transactions hit DESTINATION",
    parameters: { multiplierThreshold: 0, checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: P2, origin: 'carol', destination: 'bob' }],
    directions: ['DESTINATION'],
  },
  {
    name: "checkReceiver 'receiving': a transaction the receiver sent does not count",
    parameters: { multiplierThreshold: 0, checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: P2, origin: 'bob', destination: 'carol' }],
    directions: [],
  },
  {
    name: "both sides hit with checkSender and checkReceiver 'all'",
    parameters: { multiplierThreshold: 0, checkReceiver: 'all' },
    past: [{ at: P2 }],
    directions: ['ORIGIN', 'DESTINATION'],
  },
  {
    name: "checkSender and checkReceiver 'none' never hit",
    parameters: { multiplierThreshold: 0, checkSender: 'none', checkReceiver: 'none' },
    past: [{ at: P2 }],
    directions: [],
  },
];

const BASE = { multiplierThreshold: 2, timeWindow1: ONE_DAY, timeWindow2: TWO_DAYS, checkSender: 'all', checkReceiver: 'none' };

describe('R-131 Transactions exceed past period', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = engineFor();
      const parameters = { ...BASE, ...row.parameters };
      await engine.createRuleInstance({ ruleId: 'R-131', parameters });
      for (const p of row.past) {
        await engine.createTransaction(tx({ timestamp: p.at, originUserId: p.origin ?? 'alice', destinationUserId: p.destination ?? 'bob' }));
      }
      const r = await engine.createTransaction(tx({ timestamp: row.now ?? T0 }));
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.directions);
    });
  }

  it('names both counts, both windows and the factor in the description', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-131', parameters: BASE });
    for (const p of [...p2(1), ...p1(2)]) await engine.createTransaction(tx({ timestamp: p.at }));
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(r.hitRules[0]?.ruleDescription).toBe('Sender made 3 transactions in 1 day, more than 2 times the 1 in the rest of 2 days.');
  });

  it('states its unit, a factor, where R-121 and R-122 state a percentage', () => {
    const title = (schema: unknown) => (schema as { title?: string }).title ?? '';
    expect(title(r131TransactionsExceedPastPeriod.parametersSchema.properties.multiplierThreshold)).toContain('(factor, ×)');
    expect(title(r121AverageDailyCountExceedsPastPeriod.parametersSchema.properties.multiplierThreshold)).toContain('(%)');
    expect(title(r122AverageDailyAmountExceedsPastPeriod.parametersSchema.properties.multiplierThreshold)).toContain('(%)');
  });

  it('uses the source defaults (docs/wire-format.md#rule-library)', () => {
    expect(r131TransactionsExceedPastPeriod.defaultParameters).toMatchObject({ multiplierThreshold: 100, checkSender: 'all', checkReceiver: 'all' });
    expect(r131TransactionsExceedPastPeriod.defaultAction).toBe('FLAG');
    expect(r131TransactionsExceedPastPeriod.defaultNature).toBe('FRAUD');
  });

  const invalid = [
    { name: 'a negative multiplier', parameters: { multiplierThreshold: -1 }, path: '/parameters/multiplierThreshold' },
    { name: 'a multiplier above 1,000,000', parameters: { multiplierThreshold: 1_000_000.5 }, path: '/parameters/multiplierThreshold' },
    { name: 'a window without units', parameters: { timeWindow1: { granularity: 'day' } }, path: '/parameters/timeWindow1/units' },
    { name: 'an unknown window property', parameters: { timeWindow2: { units: 2, granularity: 'day', extra: 1 } }, path: '/parameters/timeWindow2/extra' },
    { name: 'a negative minimum count', parameters: { minTransactionsInTimeWindow2: -1 }, path: '/parameters/minTransactionsInTimeWindow2' },
    { name: 'a fractional initialTransactions', parameters: { initialTransactions: 2.5 }, path: '/parameters/initialTransactions' },
    { name: 'an unknown checkSender', parameters: { checkSender: 'receiving' }, path: '/parameters/checkSender' },
    { name: 'an unknown parameter', parameters: { multiplier: 2 }, path: '/parameters/multiplier' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-131', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  const pastArb = fc.array(fc.record({ offset: fc.integer({ min: -7 * HOUR, max: HOUR }), received: fc.boolean() }), { maxLength: 12 });
  // Multipliers in hundredths (0, 0.01 … 3): the oracle compares count1 × 100 > hundredths × count2 in integers.
  test.prop([pastArb, fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 6 }), fc.constantFrom('sending', 'all')], {
    numRuns: 60,
  })('the sender side hits exactly when a brute-force count over the two periods says so', async (past, hundredths, hours1, hours2, checkSender) => {
    const engine = engineFor();
    await engine.createRuleInstance({
      ruleId: 'R-131',
      parameters: {
        multiplierThreshold: hundredths / 100,
        timeWindow1: { units: hours1, granularity: 'hour' },
        timeWindow2: { units: hours2, granularity: 'hour' },
        checkSender,
        checkReceiver: 'none',
      },
    });
    for (const p of past) {
      await engine.createTransaction(
        tx({ timestamp: T0 + p.offset, originUserId: p.received ? 'carol' : 'alice', destinationUserId: p.received ? 'alice' : 'bob' }),
      );
    }
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    // Oracle: the current one plus every counted past transaction inside [T0 − window, T0].
    const counted = past.filter((p) => checkSender === 'all' || !p.received).map((p) => T0 + p.offset);
    const start1 = T0 - hours1 * HOUR;
    const start2 = T0 - hours2 * HOUR;
    const count1 = 1 + counted.filter((t) => t >= start1 && t <= T0).length;
    const count2 = counted.filter((t) => t >= start2 && t < start1).length;
    const expected = start2 < start1 && count2 > 0 && count1 * 100 > hundredths * count2;
    expect(r.hitRules.length > 0).toBe(expected);
  });
});
