import { r26RoundAmountAnomaly } from '../../src/rules/library/r-26-round-amount-anomaly.js';
import { DAY, HOUR, T0 } from '../helpers.js';
import { dayAt, describeAnomalyRule, sends, type AnomalyRow, type Sent } from './kits/anomaly-oracle.js';

/**
 * R-26 boundary table, through the engine (amounts in euro cents; 10_000 = 100.00 EUR is round).
 * BASE: 10 baseline days 48, 46, …, 30 days back (quiet days between them are left out) with
 * daily round shares alternating 0 (one 150.00) and 1/2 (100.00 + 150.00): mean 25 %, σ 25 %,
 * mean + 2σ = 75 %. Recent days without a transaction are left out; the current transaction is at T0.
 */
const BASE: Sent[] = [48, 46, 44, 42, 40, 38, 36, 34, 32, 30].flatMap((d, i) =>
  i % 2 === 0 ? sends(d, 15_000) : [...sends(d, 10_000), ...sends(d, 15_000, 1, 2 * HOUR)],
);
const ROUND = 10_000;
const PLAIN = 15_000;
const now = (cents: number): Sent => ({ at: T0, cents });
/** Today before T0: `round` round and `plain` non-round transactions. */
const today = (round: number, plain: number): Sent[] => [...sends(0, ROUND, round), ...sends(0, PLAIN, plain, 2 * HOUR)];

const rows: AnomalyRow[] = [
  { name: 'exactly at the 2σ boundary (3 of 4 round today = 75 %) does not hit', past: [...BASE, ...today(2, 1)], now: now(ROUND), hit: false },
  { name: 'above the boundary (4 of 5 = 80 %) hits', past: [...BASE, ...today(3, 1)], now: now(ROUND), hit: true },
  { name: 'below the boundary (3 of 5 = 60 %) does not hit', past: [...BASE, ...today(2, 2)], now: now(ROUND), hit: false },
  { name: 'a round current transaction alone today (100 %) hits', past: BASE, now: now(ROUND), hit: true },
  { name: 'a non-round current transaction alone today (0 %) does not hit', past: BASE, now: now(PLAIN), hit: false },
  { name: '100.50 is not round', past: BASE, now: now(10_050), hit: false },
  { name: '0.00 is not round', past: BASE, now: now(0), hit: false },
  { name: '1000.00 is round', past: BASE, now: now(100_000), hit: true },
  {
    name: 'quiet recent days are left out: 50 % yesterday and 100 % today average 75 % (no hit)',
    past: [...BASE, ...sends(1, ROUND), ...sends(1, PLAIN, 1, 2 * HOUR)],
    now: now(ROUND),
    hit: false,
  },
  { name: 'too little history: 9 baseline days with a transaction never hit', past: BASE.slice(1), now: now(ROUND), hit: false },
  {
    name: 'day edge: a round one at 00:00 UTC of the first recent day is recent (100 % and 75 %: hit)',
    past: [...BASE, ...today(2, 1), { at: dayAt(29, 0), cents: ROUND }],
    now: now(ROUND),
    hit: true,
  },
  {
    name: 'day edge: 1 ms before it is in the last baseline day (no hit)',
    past: [...BASE, ...today(2, 1), { at: dayAt(30, DAY - 1), cents: ROUND }],
    now: now(ROUND),
    hit: false,
  },
  {
    name: 'baseline edge: a non-round one at 00:00 UTC 119 days back counts (σ falls: hit)',
    past: [...BASE, ...today(2, 1), { at: dayAt(119, 0), cents: PLAIN }],
    now: now(ROUND),
    hit: true,
  },
  {
    name: 'baseline edge: 1 ms earlier is outside (no hit)',
    past: [...BASE, ...today(2, 1), { at: dayAt(120, DAY - 1), cents: PLAIN }],
    now: now(ROUND),
    hit: false,
  },
  {
    name: 'a non-round transaction later today (stored first) does not count',
    past: [...BASE, ...today(3, 1), { at: T0 + HOUR, cents: PLAIN }],
    now: now(ROUND),
    hit: true,
  },
];

describeAnomalyRule({
  rule: r26RoundAmountAnomaly,
  metric: 'round',
  rows,
  description: {
    name: 'names the daily round shares and σ in the description',
    past: [...BASE, ...today(3, 1)],
    now: now(ROUND),
    text: "Sender's average daily share of round-amount transactions over the last 30 days is 80.00%, above the average of 25.00% plus 2 standard deviations of 25.00% over the 90 days before.",
    // Shares in percent: 4 round of 5 today, against 25 + 2 × 25.
    evidence: {
      field: 'dailyRoundShare',
      value: '80.00',
      limit: '75.00',
      recentMean: '80',
      baselineMean: '25',
      baselineVariance: '625',
      recentDays: 1,
      referenceDays: 10,
    },
  },
  plan: {
    name: 'plans 240 needs (a count and a round count per day) per transaction with a sender, none without',
    count: 240,
    signature: (n) => `${n.fn}:${n.series}:${n.key}:${n.field ?? ''}`,
    signatures: ['count:user-sending:alice:', 'countIn:user-sending:alice:round'],
  },
  unknownParameter: { name: 'roundTo', value: 100 },
});
