import { expect, it } from 'vitest';
import { r12TransactionsFrequencyAnomaly } from '../../src/rules/library/r-12-transactions-frequency-anomaly.js';
import { DAY, HOUR, T0, tx } from '../helpers.js';
import { anomalyEngine, dayAt, describeAnomalyRule, sends, type AnomalyRow, type Sent } from './kits/anomaly-oracle.js';

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

const rows: AnomalyRow[] = [
  {
    name: 'exactly at the 2σ boundary (45 in 30 days = 1.5/day, current included; 70 quiet days before the first baseline transaction are not history) does not hit',
    past: [...BASE, ...recentCount(44)],
    hit: false,
  },
  { name: 'one transaction above the boundary (46) hits', past: [...BASE, ...recentCount(45)], hit: true },
  { name: 'a quiet recent period does not hit', past: BASE, hit: false },
  { name: 'too little history: 9 active baseline days never hit', past: [...BASE.slice(1), ...recentCount(80)], hit: false },
  { name: 'several transactions on one baseline day are one daily count', past: [...BASE, ...sends(31, 5_000, 2), ...recentCount(45)], hit: false },
  {
    name: 'day edge: a transaction at 00:00 UTC of the first recent day is recent (46: hit)',
    past: [...BASE, ...recentCount(44), { at: dayAt(29, 0), cents: 5_000 }],
    hit: true,
  },
  {
    name: 'day edge: 1 ms before it is in the last baseline day (no hit)',
    past: [...BASE, ...recentCount(44), { at: dayAt(30, DAY - 1), cents: 5_000 }],
    hit: false,
  },
  {
    name: 'day edge: 0.5 ms before it is in the last baseline day too (no hit)',
    past: [...BASE, ...recentCount(44), { at: dayAt(30, DAY - 0.5), cents: 5_000 }],
    hit: false,
  },
  {
    name: 'baseline edge: 00:00 UTC 119 days back counts (baseline now 90 days: hit)',
    past: [...BASE, ...recentCount(44), { at: dayAt(119, 0), cents: 5_000 }],
    hit: true,
  },
  { name: 'baseline edge: 1 ms earlier is outside (no hit)', past: [...BASE, ...recentCount(44), { at: dayAt(120, DAY - 1), cents: 5_000 }], hit: false },
  { name: 'a transaction later today (stored first) does not count', past: [...BASE, ...recentCount(44), { at: T0 + HOUR, cents: 5_000 }], hit: false },
  { name: 'a transaction earlier today counts', past: [...BASE, ...recentCount(44), { at: T0 - HOUR, cents: 5_000 }], hit: true },
  { name: 'a transaction at the same instant as the current one counts', past: [...BASE, ...recentCount(44), { at: T0, cents: 5_000 }], hit: true },
];

describeAnomalyRule({
  rule: r12TransactionsFrequencyAnomaly,
  metric: 'count',
  now: NOW,
  rows,
  description: {
    name: 'names the recent and baseline daily counts and σ in the description',
    past: [...BASE, ...recentCount(45)],
    now: NOW,
    text: 'Sender made 1.53 transactions per day over the last 30 days, above the average of 0.50 plus 2 standard deviations of 0.50 over the 90 days before.',
    // 46 transactions over 30 days against 0.5 + 2 × 0.5.
    evidence: {
      field: 'dailyCount',
      value: '1.53',
      limit: '1.50',
      recentMean: '23/15',
      baselineMean: '0.5',
      baselineVariance: '0.25',
      recentDays: 30,
      referenceDays: 20,
    },
  },
  more() {
    it("does not read the receiver's history", async () => {
      const engine = anomalyEngine();
      await engine.createRuleInstance({ ruleId: 'R-12', parameters: {} });
      for (const p of [...BASE, ...recentCount(45)]) await engine.createTransaction(tx({ timestamp: p.at, originUserId: 'carol', destinationUserId: 'alice' }));
      const r = await engine.createTransaction(tx({ timestamp: T0 }));
      expect(r.hitRules).toEqual([]);
    });
  },
  plan: {
    name: 'plans 91 count needs per transaction with a sender, none without',
    count: 91,
    signature: (n) => `${n.fn}:${n.series}:${n.key}`,
    signatures: ['count:user-sending:alice'],
  },
  unknownParameter: { name: 'period', value: 30 },
});
