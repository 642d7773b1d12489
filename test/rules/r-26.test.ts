import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { r26RoundAmountAnomaly } from '../../src/rules/library/r-26-round-amount-anomaly.js';
import { DAY, HOUR, T0, errorOf, tx } from '../helpers.js';
import { anomalyEngine, dayAt, expectedSpike, historyArb, runHistory, sends, type Sent } from './anomaly-oracle.js';

const engineFor = () => anomalyEngine();
const rule = r26RoundAmountAnomaly;

/**
 * R-26 boundary table, through the engine (amounts in euro cents; 10_000 = 100.00 EUR is round).
 * BASE: 10 baseline days 48, 46, …, 30 days back (quiet days between them are left out) with
 * daily round shares alternating 0 (one 150.00) and 1/2 (100.00 + 150.00): mean 25 %, σ 25 %,
 * mean + 2σ = 75 %. Recent days without a transaction are left out; the current transaction is at T0.
 */
const BASE: Sent[] = [48, 46, 44, 42, 40, 38, 36, 34, 32, 30].flatMap((d, i) => (i % 2 === 0 ? sends(d, 15_000) : [...sends(d, 10_000), ...sends(d, 15_000, 1, 2 * HOUR)]));
const ROUND = 10_000;
const PLAIN = 15_000;
const now = (cents: number): Sent => ({ at: T0, cents });
/** Today before T0: `round` round and `plain` non-round transactions. */
const today = (round: number, plain: number): Sent[] => [...sends(0, ROUND, round), ...sends(0, PLAIN, plain, 2 * HOUR)];

interface Row {
  name: string;
  past: Sent[];
  now: Sent;
  hit: boolean;
}

const rows: Row[] = [
  { name: 'exactly at the 2σ boundary (3 of 4 round today = 75 %) does not hit', past: [...BASE, ...today(2, 1)], now: now(ROUND), hit: false },
  { name: 'above the boundary (4 of 5 = 80 %) hits', past: [...BASE, ...today(3, 1)], now: now(ROUND), hit: true },
  { name: 'below the boundary (3 of 5 = 60 %) does not hit', past: [...BASE, ...today(2, 2)], now: now(ROUND), hit: false },
  { name: 'a round current transaction alone today (100 %) hits', past: BASE, now: now(ROUND), hit: true },
  { name: 'a non-round current transaction alone today (0 %) does not hit', past: BASE, now: now(PLAIN), hit: false },
  { name: '100.50 is not round', past: BASE, now: now(10_050), hit: false },
  { name: '0.00 is not round', past: BASE, now: now(0), hit: false },
  { name: '1000.00 is round', past: BASE, now: now(100_000), hit: true },
  { name: 'quiet recent days are left out: 50 % yesterday and 100 % today average 75 % (no hit)', past: [...BASE, ...sends(1, ROUND), ...sends(1, PLAIN, 1, 2 * HOUR)], now: now(ROUND), hit: false },
  { name: 'too little history: 9 baseline days with a transaction never hit', past: BASE.slice(1), now: now(ROUND), hit: false },
  { name: 'day edge: a round one at 00:00 UTC of the first recent day is recent (100 % and 75 %: hit)', past: [...BASE, ...today(2, 1), { at: dayAt(29, 0), cents: ROUND }], now: now(ROUND), hit: true },
  { name: 'day edge: 1 ms before it is in the last baseline day (no hit)', past: [...BASE, ...today(2, 1), { at: dayAt(30, DAY - 1), cents: ROUND }], now: now(ROUND), hit: false },
  { name: 'baseline edge: a non-round one at 00:00 UTC 119 days back counts (σ falls: hit)', past: [...BASE, ...today(2, 1), { at: dayAt(119, 0), cents: PLAIN }], now: now(ROUND), hit: true },
  { name: 'baseline edge: 1 ms earlier is outside (no hit)', past: [...BASE, ...today(2, 1), { at: dayAt(120, DAY - 1), cents: PLAIN }], now: now(ROUND), hit: false },
  { name: 'a non-round transaction later today (stored first) does not count', past: [...BASE, ...today(3, 1), { at: T0 + HOUR, cents: PLAIN }], now: now(ROUND), hit: true },
];

describe('R-26 Round-amount anomaly', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const r = await runHistory(rule, row.past, row.now);
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.hit ? ['ORIGIN'] : []);
      expect(expectedSpike('round', row.past, row.now)).toBe(row.hit);
    });
  }

  it('names the daily round shares and σ in the description', async () => {
    const r = await runHistory(rule, [...BASE, ...today(3, 1)], now(ROUND));
    expect(r.hitRules[0]?.ruleDescription).toBe(
      "Sender's average daily share of round-amount transactions over the last 30 days is 80.00%, above the average of 25.00% plus 2 standard deviations of 25.00% over the 90 days before.",
    );
  });

  it('plans 240 needs (a count and a round count per day) per transaction with a sender, none without', () => {
    const needs = rule.aggregates?.({ transaction: tx({ timestamp: T0 }) as never, parameters: {} }) ?? [];
    expect(needs).toHaveLength(240);
    expect(new Set(needs.map((n) => `${n.fn}:${n.series}:${n.key}:${n.field ?? ''}`))).toEqual(new Set(['count:user-sending:alice:', 'countIn:user-sending:alice:round']));
    expect(rule.aggregates?.({ transaction: tx({ timestamp: T0, originUserId: undefined }) as never, parameters: {} })).toEqual([]);
  });

  it('has no parameters', async () => {
    expect(rule.defaultParameters).toEqual({});
    const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-26', parameters: { roundTo: 100 } }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details.map((d) => d.path)).toContain('/parameters/roundTo');
  });
});

describe('properties', () => {
  test.prop([historyArb], { numRuns: 40 })('hits exactly when a brute-force exact recomputation from the sent transactions says so', async ({ past, current }) => {
    const r = await runHistory(rule, past, current);
    expect(r.hitRules.length > 0).toBe(expectedSpike('round', past, current));
  });

  it('the generator yields both outcomes', () => {
    const outcomes = fc.sample(historyArb, { numRuns: 300, seed: 1 }).map((h) => expectedSpike('round', h.past, h.current));
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });
});
