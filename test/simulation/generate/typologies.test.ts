/**
 * Each injected typology has the documented shape (docs/typologies.md): amounts, counts, windows,
 * ratios and paths, checked on every scheme of a run from its labelled transactions.
 */
import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import type { Transaction } from '../../../src/domain/index.js';
import { TYPOLOGIES, type Typology } from '../../../src/simulation/generate/index.js';
import { HIGH_RISK_COUNTRIES, REPORTING_THRESHOLD, roundUnit, unitsPerEur } from '../../../src/simulation/generate/geography.js';
import { CYCLE } from '../../../src/simulation/generate/typologies/cycle.js';
import { DORMANCY_BURST } from '../../../src/simulation/generate/typologies/dormancy-burst.js';
import { FAN_IN } from '../../../src/simulation/generate/typologies/fan-in.js';
import { FAN_OUT } from '../../../src/simulation/generate/typologies/fan-out.js';
import { HIGH_RISK_CORRIDOR } from '../../../src/simulation/generate/typologies/high-risk-corridor.js';
import { PASS_THROUGH } from '../../../src/simulation/generate/typologies/pass-through.js';
import { ROUND_AMOUNTS } from '../../../src/simulation/generate/typologies/round-amounts.js';
import { STRUCTURING } from '../../../src/simulation/generate/typologies/structuring.js';
import { collectRun, type CollectedRun } from './run.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Conversions and cents: amounts are compared with this much slack. */
const SLACK = 0.01;

const amountOf = (t: Transaction) => t.originAmountDetails?.transactionAmount ?? 0;
const currencyOf = (t: Transaction) => t.originAmountDetails?.transactionCurrency ?? '';
/** EUR equivalent of the origin amount, at txmon's default rates. */
const eurOf = (t: Transaction) => amountOf(t) / unitsPerEur(currencyOf(t));
/** EUR equivalent of what arrived on the destination side. */
const receivedEur = (t: Transaction) =>
  (t.destinationAmountDetails?.transactionAmount ?? 0) / unitsPerEur(t.destinationAmountDetails?.transactionCurrency ?? '');
const spanOf = (list: readonly Transaction[]) => (list.length === 0 ? 0 : (list.at(-1) as Transaction).timestamp - (list[0] as Transaction).timestamp);
const within = (value: number, min: number, max: number) => value >= min * (1 - SLACK) && value <= max * (1 + SLACK);

interface Scheme {
  readonly accounts: readonly string[];
  readonly transactions: readonly Transaction[];
  readonly run: CollectedRun;
}

type Check = (scheme: Scheme) => string[];

const structuring: Check = ({ accounts, transactions }) => {
  const account = accounts[0] as string;
  const problems: string[] = [];
  const inBand = transactions.filter((t) => {
    const threshold = REPORTING_THRESHOLD[currencyOf(t)] ?? 0;
    return amountOf(t) >= STRUCTURING.band.min * threshold && amountOf(t) < STRUCTURING.band.max * threshold;
  });
  if (inBand.length < STRUCTURING.transactions.min || inBand.length > STRUCTURING.transactions.max) problems.push(`${inBand.length} in the band`);
  if (spanOf(inBand) > (STRUCTURING.spanDays.max + 1) * DAY) problems.push('band transactions span too long');
  for (const t of inBand) {
    const unit = roundUnit(currencyOf(t));
    if (amountOf(t) % (10 * unit) !== 0 || amountOf(t) % (100 * unit) === 0) problems.push(`amount ${amountOf(t)} is not in tens but not hundreds`);
  }
  const rest = transactions.filter((t) => !inBand.includes(t));
  if (rest.length > 1) problems.push('more than one move-out');
  for (const t of rest) if (t.originUserId !== account || t.timestamp < (inBand.at(-1)?.timestamp ?? 0)) problems.push('move-out not after the deposits');
  return problems;
};

const fanIn: Check = ({ accounts, transactions }) => {
  const [collector, ...senders] = accounts;
  const problems: string[] = [];
  const into = transactions.filter((t) => t.destinationUserId === collector && t.type === 'TRANSFER');
  const distinct = new Set(into.map((t) => t.originUserId));
  if (distinct.size < FAN_IN.senders.min || distinct.size !== senders.length) problems.push(`${distinct.size} distinct senders`);
  for (const id of distinct) if (!senders.includes(id as string)) problems.push(`sender ${id} is not in the scheme`);
  if (spanOf(into) > FAN_IN.windowHours.max * HOUR) problems.push('payments in span more than the window');
  for (const t of into) if (!within(eurOf(t), FAN_IN.amountEur.min, FAN_IN.amountEur.max)) problems.push(`payment in of ${eurOf(t)} EUR`);
  const collected = into.reduce((s, t) => s + amountOf(t), 0);
  const out = transactions.filter((t) => t.originUserId === collector);
  const forwarded = out.reduce((s, t) => s + amountOf(t), 0);
  if (!within(forwarded / collected, FAN_IN.forwardedShare.min, FAN_IN.forwardedShare.max)) problems.push(`forwarded ${forwarded / collected}`);
  if (out.some((t) => t.timestamp <= (into.at(-1)?.timestamp ?? 0) || t.destinationUserId !== undefined))
    problems.push('forwarding is not after, or not external');
  return problems;
};

const fanOut: Check = ({ accounts, transactions }) => {
  const [disperser, ...receivers] = accounts;
  const problems: string[] = [];
  const inflow = transactions.filter((t) => t.destinationUserId === disperser && t.type === 'DEPOSIT');
  const paid = transactions.filter((t) => t.originUserId === disperser);
  const distinct = new Set(paid.map((t) => t.destinationUserId));
  if (distinct.size < FAN_OUT.receivers.min || distinct.size !== receivers.length) problems.push(`${distinct.size} distinct receivers`);
  if (spanOf(paid) > FAN_OUT.dispersalHours * HOUR) problems.push('dispersal takes longer than documented');
  const received = inflow.reduce((s, t) => s + receivedEur(t), 0);
  if (!within(received, FAN_OUT.inflowEur.min, FAN_OUT.inflowEur.max)) problems.push(`inflow of ${received} EUR`);
  const share = paid.reduce((s, t) => s + eurOf(t), 0) / received;
  if (!within(share, FAN_OUT.paidOutShare.min, FAN_OUT.paidOutShare.max)) problems.push(`paid out ${share}`);
  if ((paid[0]?.timestamp ?? 0) <= (inflow.at(-1)?.timestamp ?? Number.POSITIVE_INFINITY)) problems.push('paid out before the money came');
  for (const t of transactions) {
    if (t.originUserId === disperser || t.destinationUserId === disperser) continue;
    const got = paid.find((p) => p.destinationUserId === t.originUserId);
    if (got === undefined || t.timestamp <= got.timestamp || amountOf(t) > amountOf(got)) problems.push('a cash-out that does not follow a receipt');
  }
  return problems;
};

const passThrough: Check = ({ accounts, transactions }) => {
  const mule = accounts[0];
  const problems: string[] = [];
  const rounds: { in: Transaction; out: Transaction[] }[] = [];
  for (const t of transactions) {
    if (t.destinationUserId === mule && t.type === 'DEPOSIT') rounds.push({ in: t, out: [] });
    else if (t.originUserId === mule) rounds.at(-1)?.out.push(t);
  }
  if (rounds.length < PASS_THROUGH.rounds.min) problems.push(`${rounds.length} rounds`);
  if (spanOf(rounds.map((r) => r.in)) > (PASS_THROUGH.spanDays.max + 2) * DAY) problems.push('rounds span too long');
  for (const round of rounds) {
    const first = round.out[0];
    if (first === undefined) {
      problems.push('a round without money out');
      continue;
    }
    const delay = (first.timestamp - round.in.timestamp) / HOUR;
    if (delay < PASS_THROUGH.delayHours.min || delay > PASS_THROUGH.delayHours.max + 0.01) problems.push(`out ${delay} h after in`);
    const ratio = round.out.reduce((s, t) => s + amountOf(t), 0) / (round.in.destinationAmountDetails?.transactionAmount ?? 1);
    if (!within(ratio, PASS_THROUGH.outShare.min, PASS_THROUGH.outShare.max)) problems.push(`out/in ratio ${ratio}`);
    if (round.out.length > 2) problems.push('more than two transfers out');
  }
  return problems;
};

const dormancyBurst: Check = ({ accounts, transactions, run }) => {
  const account = accounts[0] as string;
  const problems: string[] = [];
  const first = transactions[0];
  if (first === undefined) return ['no burst'];
  const earlier = (run.byUser.get(account) ?? []).filter((t) => t.timestamp < first.timestamp);
  const previous = earlier.at(-1);
  if (previous === undefined) problems.push('no transaction before the dormancy');
  else if (first.timestamp - previous.timestamp < DORMANCY_BURST.gapDays(run.data.options.days) * DAY) problems.push('dormancy shorter than documented');
  if (spanOf(transactions) > DORMANCY_BURST.burstHours * HOUR) problems.push('burst longer than documented');
  const inflow = transactions.filter((t) => t.destinationUserId === account).reduce((s, t) => s + receivedEur(t), 0);
  if (!within(inflow, DORMANCY_BURST.inflowEur.min, DORMANCY_BURST.inflowEur.max)) problems.push(`inflow ${inflow} EUR`);
  const outs = transactions.filter((t) => t.originUserId === account);
  if (outs.length < DORMANCY_BURST.outflows.min || outs.length > DORMANCY_BURST.outflows.max) problems.push(`${outs.length} payments out`);
  // ATM withdrawals are taken in 50s, so a little less than the documented share may leave.
  const share = outs.reduce((s, t) => s + eurOf(t), 0) / inflow;
  if (share < DORMANCY_BURST.outShare.min * 0.9 || share > DORMANCY_BURST.outShare.max + SLACK) problems.push(`out share ${share}`);
  return problems;
};

const roundAmounts: Check = ({ transactions }) => {
  const problems: string[] = [];
  if (transactions.length < ROUND_AMOUNTS.transactions.min || transactions.length > ROUND_AMOUNTS.transactions.max)
    problems.push(`${transactions.length} transactions`);
  if (spanOf(transactions) > (ROUND_AMOUNTS.spanDays.max + 1) * DAY) problems.push('span too long');
  for (const t of transactions) {
    // The account's side: what arrived for a deposit, what left for a transfer.
    const side = t.type === 'DEPOSIT' ? t.destinationAmountDetails : t.originAmountDetails;
    const unit = roundUnit(side?.transactionCurrency ?? '');
    const local = side?.transactionAmount ?? 0;
    if (local % (500 * unit) !== 0 || local < ROUND_AMOUNTS.amountUnits.min * unit || local > ROUND_AMOUNTS.amountUnits.max * unit)
      problems.push(`amount ${local}`);
  }
  return problems;
};

const highRiskCorridor: Check = ({ accounts, transactions }) => {
  const account = accounts[0];
  const highRisk = new Set<string>(HIGH_RISK_COUNTRIES);
  const problems: string[] = [];
  const corridor = transactions.filter((t) =>
    t.originUserId === account ? highRisk.has(t.destinationAmountDetails?.country ?? '') : highRisk.has(t.originAmountDetails?.country ?? ''),
  );
  if (corridor.length < HIGH_RISK_CORRIDOR.transfers.min) problems.push(`${corridor.length} high-risk transfers`);
  if (new Set(corridor.map((t) => (t.originUserId === account ? t.destinationAmountDetails?.country : t.originAmountDetails?.country))).size !== 1)
    problems.push('more than one country');
  if (spanOf(corridor) > (HIGH_RISK_CORRIDOR.spanDays.max + 1) * DAY) problems.push('span too long');
  for (const t of corridor) {
    const eur = t.originUserId === account ? eurOf(t) : receivedEur(t);
    if (!within(eur, HIGH_RISK_CORRIDOR.amountEur.min, HIGH_RISK_CORRIDOR.amountEur.max)) problems.push(`amount ${eur} EUR`);
  }
  return problems;
};

const cycle: Check = ({ accounts, transactions }) => {
  const problems: string[] = [];
  const hops = accounts.length;
  if (hops < CYCLE.hops.min || hops > CYCLE.hops.max) problems.push(`${hops} hops`);
  if (transactions.length % hops !== 0 || transactions.length === 0) return [...problems, `${transactions.length} transfers for ${hops} hops`];
  for (let start = 0; start < transactions.length; start += hops) {
    const path = transactions.slice(start, start + hops);
    path.forEach((t, i) => {
      if (t.originUserId !== accounts[i] || t.destinationUserId !== accounts[(i + 1) % hops])
        problems.push(`hop ${i} goes ${t.originUserId} → ${t.destinationUserId}`);
      const before = path[i - 1];
      if (before !== undefined && !within(amountOf(t) / amountOf(before), CYCLE.hopShare.min, CYCLE.hopShare.max))
        problems.push(`hop ratio ${amountOf(t) / amountOf(before)}`);
    });
    if (spanOf(path) > (hops - 1) * CYCLE.hopDelayHours.max * HOUR) problems.push('the cycle takes too long to close');
    if (!within(eurOf(path[0] as Transaction), CYCLE.amountEur.min, CYCLE.amountEur.max)) problems.push('first amount out of range');
  }
  return problems;
};

const CHECKS: Readonly<Record<Typology, Check>> = {
  structuring,
  fan_in: fanIn,
  fan_out: fanOut,
  pass_through: passThrough,
  dormancy_burst: dormancyBurst,
  round_amounts: roundAmounts,
  high_risk_corridor: highRiskCorridor,
  cycle,
};

/** Every scheme's problems, as "<scheme> <typology>: <problem>". */
function schemeProblems(run: CollectedRun): string[] {
  return run.data.schemes.flatMap((s) =>
    CHECKS[s.typology]({ accounts: s.userIds, transactions: run.bySchemeTransactions.get(s.scheme) ?? [], run }).map((p) => `${s.scheme} ${s.typology}: ${p}`),
  );
}

describe('the injected typologies', () => {
  const run = collectRun({ users: 1000, days: 30, seed: 42 });

  it.each(TYPOLOGIES.map((t) => [t]))('%s appears at least three times on 1,000 users over 30 days, every scheme with its documented shape', (typology) => {
    const schemes = run.data.schemes.filter((s) => s.typology === typology);
    expect(schemes.length).toBeGreaterThanOrEqual(3);
    const problems = schemes.flatMap((s) => CHECKS[typology]({ accounts: s.userIds, transactions: run.bySchemeTransactions.get(s.scheme) ?? [], run }));
    expect(problems).toEqual([]);
  });

  it('labels each transaction of a scheme with one of its accounts on one side', () => {
    for (const s of run.data.schemes) {
      for (const t of run.bySchemeTransactions.get(s.scheme) ?? []) {
        expect(s.userIds.includes(t.originUserId ?? '') || s.userIds.includes(t.destinationUserId ?? '')).toBe(true);
      }
    }
  });
});

describe('properties', () => {
  test.prop([fc.nat({ max: 2 ** 40 }), fc.integer({ min: 14, max: 45 })], { numRuns: 6 })(
    'for any seed and length, every scheme has its documented shape',
    (seed, days) => {
      expect(schemeProblems(collectRun({ users: 400, days, seed, minSchemes: 2 }))).toEqual([]);
    },
  );
});
