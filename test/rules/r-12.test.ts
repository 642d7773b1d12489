import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { r12TransactionsFrequencyAnomaly } from '../../src/rules/library/r-12-transactions-frequency-anomaly.js';
import { DAY, HOUR, T0, errorOf, tx } from '../helpers.js';
import { anomalyEngine, dayAt, expectedSpike, historyArb, runHistory, sends, type Sent } from './anomaly-oracle.js';

const engineFor = () => anomalyEngine();
const rule = r12TransactionsFrequencyAnomaly;

/**
 * R-12 boundary table, through the engine. BASE: one transaction on each of the 10 baseline days
 * 49, 47, …, 31 days back (none on 48, 46, …, 30), so the baseline runs from its first active day
 * (49 back) to 30 back: 20 daily counts 1, 0, 1, 0, … — mean 0.5, σ 0.5, mean + 2σ = 1.5 per day,
 * i.e. 45 transactions over the 30 recent days. The current transaction is at T0 (12:00 UTC).
 */
const BASE: Sent[] = [49, 47, 45, 43, 41, 39, 37, 35, 33, 31].flatMap((d) => sends(d, 5_000));
/** `n` transactions spread over the recent days 1..29 back. */
const recentCount = (n: number): Sent[] => Array.from({ length: n }, (_, i) => ({ at: dayAt(1 + (i % 29), HOUR + i), cents: 5_000 }));
const NOW: Sent = { at: T0, cents: 5_000 };

interface Row {
  name: string;
  past: Sent[];
  now?: Sent;
  hit: boolean;
}

const rows: Row[] = [
  { name: 'exactly at the 2σ boundary (45 in 30 days = 1.5/day, current included; 70 quiet days before the first baseline transaction are not history) does not hit', past: [...BASE, ...recentCount(44)], hit: false },
  { name: 'one transaction above the boundary (46) hits', past: [...BASE, ...recentCount(45)], hit: true },
  { name: 'a quiet recent period does not hit', past: BASE, hit: false },
  { name: 'too little history: 9 active baseline days never hit', past: [...BASE.slice(1), ...recentCount(80)], hit: false },
  { name: 'several transactions on one baseline day are one daily count', past: [...BASE, ...sends(31, 5_000, 2), ...recentCount(45)], hit: false },
  { name: 'day edge: a transaction at 00:00 UTC of the first recent day is recent (46: hit)', past: [...BASE, ...recentCount(44), { at: dayAt(29, 0), cents: 5_000 }], hit: true },
  { name: 'day edge: 1 ms before it is in the last baseline day (no hit)', past: [...BASE, ...recentCount(44), { at: dayAt(30, DAY - 1), cents: 5_000 }], hit: false },
  { name: 'day edge: 0.5 ms before it is in the last baseline day too (no hit)', past: [...BASE, ...recentCount(44), { at: dayAt(30, DAY - 0.5), cents: 5_000 }], hit: false },
  { name: 'baseline edge: 00:00 UTC 119 days back counts (baseline now 90 days: hit)', past: [...BASE, ...recentCount(44), { at: dayAt(119, 0), cents: 5_000 }], hit: true },
  { name: 'baseline edge: 1 ms earlier is outside (no hit)', past: [...BASE, ...recentCount(44), { at: dayAt(120, DAY - 1), cents: 5_000 }], hit: false },
  { name: 'a transaction later today (stored first) does not count', past: [...BASE, ...recentCount(44), { at: T0 + HOUR, cents: 5_000 }], hit: false },
  { name: 'a transaction earlier today counts', past: [...BASE, ...recentCount(44), { at: T0 - HOUR, cents: 5_000 }], hit: true },
  { name: 'a transaction at the same instant as the current one counts', past: [...BASE, ...recentCount(44), { at: T0, cents: 5_000 }], hit: true },
];

describe('R-12 Transactions frequency anomaly', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const r = await runHistory(rule, row.past, row.now ?? NOW);
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.hit ? ['ORIGIN'] : []);
      expect(expectedSpike('count', row.past, row.now ?? NOW)).toBe(row.hit);
    });
  }

  it('names the recent and baseline daily counts and σ in the description', async () => {
    const r = await runHistory(rule, [...BASE, ...recentCount(45)], NOW);
    expect(r.hitRules[0]?.ruleDescription).toBe(
      'Sender made 1.53 transactions per day over the last 30 days, above the average of 0.50 plus 2 standard deviations of 0.50 over the 90 days before.',
    );
  });

  it("does not read the receiver's history", async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-12', parameters: {} });
    for (const p of [...BASE, ...recentCount(45)]) await engine.createTransaction(tx({ timestamp: p.at, originUserId: 'carol', destinationUserId: 'alice' }));
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(r.hitRules).toEqual([]);
  });

  it('plans 91 count needs per transaction with a sender, none without', () => {
    const needs = rule.aggregates?.({ transaction: tx({ timestamp: T0 }) as never, parameters: {} }) ?? [];
    expect(needs).toHaveLength(91);
    expect(new Set(needs.map((n) => `${n.fn}:${n.series}:${n.key}`))).toEqual(new Set(['count:user-sending:alice']));
    expect(rule.aggregates?.({ transaction: tx({ timestamp: T0, originUserId: undefined }) as never, parameters: {} })).toEqual([]);
  });

  it('has no parameters', async () => {
    expect(rule.defaultParameters).toEqual({});
    const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-12', parameters: { period: 30 } }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details.map((d) => d.path)).toContain('/parameters/period');
  });
});

describe('properties', () => {
  test.prop([historyArb], { numRuns: 40 })('hits exactly when a brute-force exact recomputation from the sent transactions says so', async ({ past, current }) => {
    const r = await runHistory(rule, past, current);
    expect(r.hitRules.length > 0).toBe(expectedSpike('count', past, current));
  });

  it('the generator yields both outcomes', () => {
    const outcomes = fc.sample(historyArb, { numRuns: 300, seed: 1 }).map((h) => expectedSpike('count', h.past, h.current));
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });
});
