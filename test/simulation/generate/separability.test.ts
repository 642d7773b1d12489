/**
 * The injected typologies can be told from normal behaviour by the kind of rule docs/typologies.md
 * describes for each ("What a rule keys on"): each detector below is such a rule, written directly
 * over the history, and finds ≥ 90 % of the schemes with ≥ 50 % of the accounts it flags being
 * injected ones — while normal behaviour still trips the naive form of each rule (precision is not
 * trivially 1).
 */
import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../../src/domain/index.js';
import { TYPOLOGIES, type Typology } from '../../../src/simulation/generate/index.js';
import { HIGH_RISK_COUNTRIES, REPORTING_THRESHOLD, roundUnit, unitsPerEur } from '../../../src/simulation/generate/geography.js';
import { DORMANCY_BURST } from '../../../src/simulation/generate/typologies/dormancy-burst.js';
import { collectRun, type CollectedRun } from './run.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HIGH_RISK = new Set<string>(HIGH_RISK_COUNTRIES);

/** The user's side of a transaction: sent or received, amount and currency on that side, counterparty country. */
function sideOf(userId: string, t: Transaction) {
  const sent = t.originUserId === userId;
  const own = sent ? t.originAmountDetails : t.destinationAmountDetails;
  const other = sent ? t.destinationAmountDetails : t.originAmountDetails;
  const amount = own?.transactionAmount ?? 0;
  const currency = own?.transactionCurrency ?? 'EUR';
  return { sent, amount, currency, eur: amount / unitsPerEur(currency), unit: roundUnit(currency), counterpartyCountry: other?.country ?? '' };
}

/** Whether, in some window of `span` ms, at least `need` of the matching transactions (or distinct keys) occur. */
function inSomeWindow(list: readonly Transaction[], span: number, need: number, key?: (t: Transaction) => string): boolean {
  for (let i = 0; i < list.length; i++) {
    const keys = new Set<string>();
    let count = 0;
    for (let j = i; j < list.length && (list[j] as Transaction).timestamp - (list[i] as Transaction).timestamp <= span; j++) {
      count += 1;
      if (key !== undefined) keys.add(key(list[j] as Transaction));
    }
    if ((key === undefined ? count : keys.size) >= need) return true;
  }
  return false;
}

type Detector = (userId: string, list: readonly Transaction[], run: CollectedRun) => boolean;

/** The rules of docs/typologies.md, one per typology. */
const DETECTORS: Readonly<Record<Exclude<Typology, 'cycle'>, Detector>> = {
  // R-7/R-8-like: 3 transactions just below the reporting threshold within 10 days.
  structuring: (_, list) =>
    inSomeWindow(
      list.filter((t) => {
        const threshold = REPORTING_THRESHOLD[t.originAmountDetails?.transactionCurrency ?? ''] ?? Number.POSITIVE_INFINITY;
        const amount = t.originAmountDetails?.transactionAmount ?? 0;
        return amount >= 0.9 * threshold && amount < threshold;
      }),
      10 * DAY,
      3,
    ),
  // R-9-like: 5 distinct customers paying the account at least 300 (round units) within 3 days.
  fan_in: (userId, list) =>
    inSomeWindow(
      list.filter((t) => t.destinationUserId === userId && t.originUserId !== undefined && sideOf(userId, t).amount >= 300 * sideOf(userId, t).unit),
      3 * DAY,
      5,
      (t) => t.originUserId as string,
    ),
  // R-10-like, consumers only: paying at least 300 to 5 distinct customers within 2 days.
  fan_out: (userId, list, run) =>
    !run.businesses.has(userId) &&
    inSomeWindow(
      list.filter((t) => t.originUserId === userId && t.destinationUserId !== undefined && sideOf(userId, t).amount >= 300 * sideOf(userId, t).unit),
      2 * DAY,
      5,
      (t) => t.destinationUserId as string,
    ),
  // Custom logic over R-41's aggregates, consumers only: twice within 14 days, a deposit of 500 EUR or
  // more followed within 24 hours by transfers out summing to 80–100 % of it.
  pass_through: (userId, list, run) => {
    if (run.businesses.has(userId)) return false;
    const rounds: number[] = [];
    list.forEach((t, i) => {
      if (t.destinationUserId !== userId || t.type !== 'DEPOSIT' || sideOf(userId, t).eur < 500) return;
      const received = sideOf(userId, t).amount;
      let out = 0;
      for (const next of list.slice(i + 1)) {
        if (next.timestamp > t.timestamp + 24 * HOUR) break;
        if (next.originUserId !== userId || next.type !== 'TRANSFER') continue;
        out += sideOf(userId, next).amount;
        if (out >= 0.8 * received && out <= received) {
          rounds.push(t.timestamp);
          break;
        }
      }
    });
    return rounds.some((a, i) => rounds.some((b, j) => j > i && b - a <= 14 * DAY));
  },
  // R-5 + R-69: a transaction after more than the dormancy without any, then 2,000 EUR or more moved within 3 days.
  dormancy_burst: (userId, list, run) => {
    const gap = DORMANCY_BURST.gapDays(run.data.options.days) * DAY;
    return list.some((t, i) => {
      const before = list[i - 1];
      if (before === undefined || t.timestamp - before.timestamp <= gap) return false;
      const moved = list.filter((u) => u.timestamp >= t.timestamp && u.timestamp <= t.timestamp + 3 * DAY).reduce((s, u) => s + sideOf(userId, u).eur, 0);
      return moved >= 2000;
    });
  },
  // R-124-like with an amount filter: 5 transactions of 1,000 or more (round units) in whole hundreds within 14 days.
  round_amounts: (userId, list) =>
    inSomeWindow(
      list.filter((t) => {
        const side = sideOf(userId, t);
        return side.amount >= 1000 * side.unit && side.amount % (100 * side.unit) === 0;
      }),
      14 * DAY,
      5,
    ),
  // R-77 with an amount filter: 2 transactions of 1,000 EUR or more with a high-risk counterparty country within 30 days.
  high_risk_corridor: (userId, list) =>
    inSomeWindow(
      list.filter((t) => HIGH_RISK.has(sideOf(userId, t).counterpartyCountry) && sideOf(userId, t).eur >= 1000),
      30 * DAY,
      2,
    ),
};

/**
 * Cycles: a path of 3 or 4 transfers of 1,000 EUR or more between customers back to its first
 * sender, each hop within 48 hours of the one before and passing on 90–100 % of it. Returns the
 * origins of such paths.
 */
function cycleOrigins(run: CollectedRun): Set<string> {
  const transfers = run.transactions.filter((t) => t.type === 'TRANSFER' && t.originUserId !== undefined && t.destinationUserId !== undefined);
  const large = transfers.filter(
    (t) => (t.originAmountDetails?.transactionAmount ?? 0) / unitsPerEur(t.originAmountDetails?.transactionCurrency ?? '') >= 1000,
  );
  const bySender = new Map<string, Transaction[]>();
  for (const t of large) bySender.set(t.originUserId as string, [...(bySender.get(t.originUserId as string) ?? []), t]);
  const next = (t: Transaction) =>
    (bySender.get(t.destinationUserId as string) ?? []).filter((n) => {
      const received = t.destinationAmountDetails?.transactionAmount ?? 0;
      const passed = n.originAmountDetails?.transactionAmount ?? 0;
      return n.timestamp > t.timestamp && n.timestamp <= t.timestamp + 48 * HOUR && passed >= 0.9 * received && passed <= received;
    });
  const origins = new Set<string>();
  const walk = (first: Transaction, last: Transaction, hops: number) => {
    for (const n of next(last)) {
      if (n.destinationUserId === first.originUserId && hops + 1 >= 3) origins.add(first.originUserId as string);
      else if (hops + 1 < 4) walk(first, n, hops + 1);
    }
  };
  for (const t of large) walk(t, t, 1);
  return origins;
}

interface Score {
  readonly recall: number;
  readonly precision: number;
  readonly flagged: number;
}

function score(run: CollectedRun, typology: Typology, flagged: ReadonlySet<string>): Score {
  const schemes = run.data.schemes.filter((s) => s.typology === typology);
  const found = schemes.filter((s) => s.userIds.some((id) => flagged.has(id))).length;
  const injected = new Set(run.data.userLabels.filter((l) => l.typology === typology).map((l) => l.id));
  const correct = [...flagged].filter((id) => injected.has(id)).length;
  return { recall: found / schemes.length, precision: flagged.size === 0 ? 0 : correct / flagged.size, flagged: flagged.size };
}

function flaggedBy(run: CollectedRun, typology: Typology): Set<string> {
  if (typology === 'cycle') return cycleOrigins(run);
  const detector = DETECTORS[typology];
  return new Set([...run.byUser].filter(([id, list]) => detector(id, list, run)).map(([id]) => id));
}

describe('separability of the typologies from normal behaviour', () => {
  // Five schemes of each typology (a little denser than the default rate gives on 3,000 customers).
  const run = collectRun({ users: 3000, days: 60, seed: 2026, minSchemes: 5 });

  it.each(TYPOLOGIES.map((t) => [t]))(
    '%s: its documented rule finds at least 90 percent of the schemes at an account precision of at least 50 percent',
    (typology) => {
      const result = score(run, typology, flaggedBy(run, typology));
      expect(result.recall).toBeGreaterThanOrEqual(0.9);
      expect(result.precision).toBeGreaterThanOrEqual(0.5);
    },
  );

  it('normal behaviour trips the naive rules: any high-risk country, any dormancy, any amount in the band, many senders of any amount', () => {
    const labelled = new Set(run.data.userLabels.map((l) => l.id));
    const honest = (detector: (id: string, list: readonly Transaction[]) => boolean) =>
      [...run.byUser].filter(([id, list]) => !labelled.has(id) && detector(id, list)).length;
    const gap = DORMANCY_BURST.gapDays(run.data.options.days) * DAY;
    expect(honest((id, list) => list.some((t) => HIGH_RISK.has(sideOf(id, t).counterpartyCountry)))).toBeGreaterThan(3);
    expect(honest((_, list) => list.some((t, i) => i > 0 && t.timestamp - (list[i - 1] as Transaction).timestamp > gap))).toBeGreaterThan(3);
    expect(
      honest((id, list) =>
        list.some(
          (t) =>
            sideOf(id, t).amount >= 0.9 * (REPORTING_THRESHOLD[sideOf(id, t).currency] ?? 1e12) &&
            sideOf(id, t).amount < (REPORTING_THRESHOLD[sideOf(id, t).currency] ?? 0),
        ),
      ),
    ).toBeGreaterThan(3);
    expect(
      honest((id, list) =>
        inSomeWindow(
          list.filter((t) => t.destinationUserId === id && t.originUserId !== undefined),
          3 * DAY,
          5,
          (t) => t.originUserId as string,
        ),
      ),
    ).toBeGreaterThan(3);
  });
});
