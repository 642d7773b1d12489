import { r25AverageTransactionValueSpike } from '../../src/rules/library/r-25-average-transaction-value-spike.js';
import { DAY, HOUR, T0 } from '../helpers.js';
import { dayAt, describeAnomalyRule, sends, type AnomalyRow, type Sent } from './kits/anomaly-oracle.js';

/**
 * R-25 boundary table, through the engine (base currency EUR, amounts in euro cents). BASE: 10
 * baseline days 66, 62, …, 30 days back (3 quiet days between them, which have no average and
 * are left out) with daily averages alternating 100.00 (one transaction) and 300.00 (200.00 +
 * 400.00): mean 200, σ 100, mean + 2σ = 400.00 EUR. Recent days without a transaction are left
 * out too; the current transaction is at T0.
 */
const BASE: Sent[] = [66, 62, 58, 54, 50, 46, 42, 38, 34, 30].flatMap((d, i) =>
  i % 2 === 0 ? sends(d, 10_000) : [...sends(d, 20_000), ...sends(d, 40_000, 1, 2 * HOUR)],
);
const now = (cents: number): Sent => ({ at: T0, cents });

const rows: AnomalyRow[] = [
  { name: 'exactly at the 2σ boundary (today averages 400.00) does not hit', past: BASE, now: now(40_000), hit: false },
  { name: 'one cent above the boundary hits', past: BASE, now: now(40_001), hit: true },
  { name: 'one cent below the boundary does not hit', past: BASE, now: now(39_999), hit: false },
  { name: "a day's value is its average: 300.00 and 500.00 today average 400.00 (no hit)", past: [...BASE, ...sends(0, 30_000)], now: now(50_000), hit: false },
  { name: '300.00 and 500.02 today average 400.01 (hit)', past: [...BASE, ...sends(0, 30_000)], now: now(50_002), hit: true },
  { name: 'quiet recent days are left out: 400.00 yesterday and 400.01 today (hit)', past: [...BASE, ...sends(1, 40_000)], now: now(40_001), hit: true },
  {
    name: 'recent days weigh equally, not transactions: 399.99 (×3) yesterday and 400.03 today average 400.01 per day (hit)',
    past: [...BASE, ...sends(1, 39_999, 3)],
    now: now(40_003),
    hit: true,
  },
  { name: 'too little history: 9 baseline days with an amount never hit', past: BASE.slice(1), now: now(10_000_000), hit: false },
  {
    name: 'day edge: 400.02 at 00:00 UTC of the first recent day is recent (hit)',
    past: [...BASE, { at: dayAt(29, 0), cents: 40_002 }],
    now: now(40_000),
    hit: true,
  },
  {
    name: 'day edge: 1 ms before it is in the last baseline day (no hit)',
    past: [...BASE, { at: dayAt(30, DAY - 1), cents: 40_002 }],
    now: now(40_000),
    hit: false,
  },
  {
    name: 'baseline edge: 200.00 at 00:00 UTC 119 days back counts (σ falls: hit)',
    past: [...BASE, { at: dayAt(119, 0), cents: 20_000 }],
    now: now(40_000),
    hit: true,
  },
  { name: 'baseline edge: 1 ms earlier is outside (no hit)', past: [...BASE, { at: dayAt(120, DAY - 1), cents: 20_000 }], now: now(40_000), hit: false },
  { name: 'a transaction later today (stored first) does not count', past: [...BASE, { at: T0 + HOUR, cents: 100 }], now: now(40_001), hit: true },
  { name: 'a transaction earlier today counts', past: [...BASE, { at: T0 - HOUR, cents: 100 }], now: now(40_001), hit: false },
];

describeAnomalyRule({
  rule: r25AverageTransactionValueSpike,
  metric: 'average',
  rows,
  description: {
    name: 'names the daily averages and σ in the base currency in the description',
    past: BASE,
    now: now(40_001),
    text: "Sender's average daily transaction amount over the last 30 days is 400.01 EUR, above the average of 200.00 EUR plus 2 standard deviations of 100.00 EUR over the 90 days before.",
    // One recent day with a value (today's), against 200 + 2 × 100.
    evidence: {
      field: 'dailyAverageAmount',
      value: '400.01',
      limit: '400.00',
      currency: 'EUR',
      recentMean: '400.01',
      baselineMean: '200',
      baselineVariance: '10000',
      recentDays: 1,
      referenceDays: 10,
    },
  },
  plan: {
    name: 'plans 240 needs (a sum and an amount count per day) per transaction with a sender, none without',
    count: 240,
    signature: (n) => `${n.fn}:${n.series}:${n.key}`,
    signatures: ['sum:user-sending:alice', 'amountCount:user-sending:alice'],
  },
  unknownParameter: { name: 'periodDays', value: 7 },
});
