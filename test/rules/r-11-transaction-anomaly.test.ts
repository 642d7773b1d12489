import { expect, it } from 'vitest';
import { r11TransactionAnomaly } from '../../src/rules/library/r-11-transaction-anomaly.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';
import { dayAt, describeAnomalyRule, sends, type AnomalyRow, type Sent } from './kits/anomaly-oracle.js';

/**
 * R-11 boundary table, through the engine (base currency EUR, amounts in euro cents). BASE: 100.00
 * EUR on each of the 10 baseline days 49, 47, …, 31 days back, nothing on 48, 46, …, 30: 20 daily
 * volumes 100, 0, 100, 0, … — mean 50, σ 50, mean + 2σ = 150.00 EUR per day, i.e. 4500.00 EUR
 * over the 30 recent days (the current transaction, at T0, included).
 */
const BASE: Sent[] = [49, 47, 45, 43, 41, 39, 37, 35, 33, 31].flatMap((d) => sends(d, 10_000));
const RECENT_4400: Sent[] = sends(5, 440_000);
const now = (cents: number): Sent => ({ at: T0, cents });

const rows: AnomalyRow[] = [
  { name: 'exactly at the 2σ boundary (4500.00 EUR in 30 days = 150.00/day) does not hit', past: [...BASE, ...RECENT_4400], now: now(10_000), hit: false },
  { name: 'one cent above the boundary hits', past: [...BASE, ...RECENT_4400], now: now(10_001), hit: true },
  { name: 'one cent below the boundary does not hit', past: [...BASE, ...RECENT_4400], now: now(9_999), hit: false },
  { name: 'a quiet recent period (only the current transaction) does not hit', past: BASE, now: now(10_000), hit: false },
  { name: 'too little history: 9 baseline days with volume never hit', past: BASE.slice(1), now: now(10_000_000), hit: false },
  {
    name: 'a baseline day of zero-amount transactions has no volume (9 days: no hit)',
    past: [...BASE.slice(1), ...sends(49, 0, 3)],
    now: now(10_000_000),
    hit: false,
  },
  {
    name: 'day edge: 100.00 EUR at 00:00 UTC of the first recent day is recent (hit)',
    past: [...BASE, ...RECENT_4400, { at: dayAt(29, 0), cents: 10_000 }],
    now: now(10_000),
    hit: true,
  },
  {
    name: 'day edge: 1 ms before it is in the last baseline day (no hit)',
    past: [...BASE, ...RECENT_4400, { at: dayAt(30, DAY - 1), cents: 10_000 }],
    now: now(10_000),
    hit: false,
  },
  {
    name: 'day edge: 0.5 ms before it is in the last baseline day too (no hit)',
    past: [...BASE, ...RECENT_4400, { at: dayAt(30, DAY - 0.5), cents: 10_000 }],
    now: now(10_000),
    hit: false,
  },
  {
    name: 'baseline edge: 00:00 UTC 119 days back counts (baseline now 90 days: hit)',
    past: [...BASE, ...RECENT_4400, { at: dayAt(119, 0), cents: 10_000 }],
    now: now(10_000),
    hit: true,
  },
  {
    name: 'baseline edge: 1 ms earlier is outside (no hit)',
    past: [...BASE, ...RECENT_4400, { at: dayAt(120, DAY - 1), cents: 10_000 }],
    now: now(10_000),
    hit: false,
  },
  {
    name: 'a transaction later today (stored first) does not count',
    past: [...BASE, ...RECENT_4400, { at: T0 + HOUR, cents: 10_000 }],
    now: now(10_000),
    hit: false,
  },
  { name: 'a transaction earlier today counts', past: [...BASE, ...RECENT_4400, { at: T0 - HOUR, cents: 1 }], now: now(10_000), hit: true },
];

describeAnomalyRule({
  rule: r11TransactionAnomaly,
  metric: 'volume',
  rows,
  description: {
    name: 'names the daily volumes and σ in the base currency in the description',
    past: [...BASE, ...RECENT_4400],
    now: now(10_001),
    text: "Sender's average daily volume over the last 30 days is 150.00 EUR, above the average of 50.00 EUR plus 2 standard deviations of 50.00 EUR over the 90 days before.",
    // 4500.01 EUR over 30 days against 50 + 2 × 50: the fourth place first tells them apart.
    evidence: {
      field: 'dailyVolume',
      value: '150.0003',
      limit: '150.0000',
      currency: 'EUR',
      recentMean: '450001/3000',
      baselineMean: '50',
      baselineVariance: '2500',
      recentDays: 30,
      referenceDays: 20,
    },
  },
  more() {
    it('keeps volumes in the base currency: the same euro history hits in a USD engine, described in USD', async () => {
      const usd = testEngine({ baseCurrency: 'USD' }).engine;
      await usd.createRuleInstance({ ruleId: 'R-11', parameters: {} });
      const amount = (cents: number) => ({ transactionAmount: cents / 100, transactionCurrency: 'EUR' });
      for (const p of [...BASE, ...RECENT_4400])
        await usd.createTransaction(tx({ timestamp: p.at, originAmountDetails: amount(p.cents), destinationAmountDetails: amount(p.cents) }));
      const r = await usd.createTransaction(tx({ timestamp: T0, originAmountDetails: amount(20_000), destinationAmountDetails: amount(20_000) }));
      expect(r.hitRules[0]?.ruleDescription).toMatch(/is [0-9.]+ USD, above the average of [0-9.]+ USD/);
    });
  },
  plan: {
    name: 'plans 91 sum needs per transaction with a sender, none without',
    count: 91,
    signature: (n) => `${n.fn}:${n.series}:${n.key}:${n.includeCurrent}`,
    signatures: ['sum:user-sending:alice:true'],
  },
  unknownParameter: { name: 'stddevThreshold', value: 3 },
});
