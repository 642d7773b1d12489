/**
 * Building the evidence of a hit (`RuleHit.evidence`, docs/evidence.md): one item per comparison
 * that held, with the window and the transactions that made a windowed value.
 *
 * The ids come from the rule's own read plan, never from a read after the hit: a windowed rule
 * plans, beside each aggregate it compares, a `lastEntries` need of the same window for the newest
 * {@link MAX_EVIDENCE_TRANSACTION_IDS} entries ({@link createIdsNeed}). A batch chunk rehearses
 * every record's reads before it decides anything (engine/services/chunk-reads.ts), so a read made
 * only on a hit would be one it did not foresee.
 */
import type { AggregateEntry, AggregateValue } from '../../aggregation/aggregate-store.js';
import { compareSeriesEntries } from '../../aggregation/checks.js';
import { scaledToDecimal } from '../../domain/money.js';
import { MAX_EVIDENCE_TRANSACTION_IDS, type EvidenceWindow, type RuleEvidence } from '../../domain/schemas/results.js';
import type { TimeWindow } from '../../domain/schemas/time-window.js';
import type { AggregateNeed } from '../types.js';
import type { SideRead } from './directions.js';
import { createNeed } from './need.js';

/** The name suffix of the ids need planned beside an aggregate need (see {@link idsName}). */
const IDS_SUFFIX = ':ids';

/** The name of the ids need of the aggregate need (or read) named `name`. */
export function idsName(name: string): string {
  return `${name}${IDS_SUFFIX}`;
}

const LIMIT = Object.freeze({ limit: MAX_EVIDENCE_TRANSACTION_IDS });

/**
 * The ids need of `need`: the newest {@link MAX_EVIDENCE_TRANSACTION_IDS} entries of the same
 * (series, key, window), leaving out and including the current transaction as `need` does, named
 * {@link idsName}(`need.name`). Its filters are not `need`'s: a rule whose value counts only some
 * entries (`countIn`) must not plan one.
 */
export function createIdsNeed(need: AggregateNeed): AggregateNeed {
  return createNeed(idsName(need.name), need.series, need.key, need.start, need.end, 'lastEntries', need.excludeId, need.includeCurrent, LIMIT);
}

/** Adds the ids need of every need of `needs` from `from` on (the needs just planned), in place. */
export function addIdsNeeds(needs: AggregateNeed[], from = 0): AggregateNeed[] {
  const end = needs.length;
  for (let i = from; i < end; i++) needs.push(createIdsNeed(needs[i] as AggregateNeed));
  return needs;
}

/**
 * The ids of the newest entries of the windows the ids needs of `names` answered, newest first
 * (by timestamp, then id, as `lastEntries` orders them), at most {@link MAX_EVIDENCE_TRANSACTION_IDS};
 * an id read through several needs is listed once.
 */
export function newestIds(aggregates: Readonly<Record<string, AggregateValue>>, names: readonly string[]): string[] {
  let entries: AggregateEntry[] = [];
  for (let i = 0; i < names.length; i++) {
    const v = aggregates[idsName(names[i] as string)];
    if (Array.isArray(v)) entries = entries.concat(v as AggregateEntry[]);
  }
  if (names.length > 1) entries.sort(compareSeriesEntries);
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = entries.length - 1; i >= 0 && out.length < MAX_EVIDENCE_TRANSACTION_IDS; i--) {
    const id = (entries[i] as AggregateEntry).id;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/** The names of a side's reads (for {@link newestIds}). */
export function readNames(reads: readonly SideRead[]): string[] {
  return reads.map((r) => r.name);
}

/** The evidence window [start, end] of a rule's `timeWindow`. */
export function evidenceWindow(start: number, end: number, timeWindow: TimeWindow): EvidenceWindow {
  const granularity = timeWindow.granularity;
  const rolling = timeWindow.rollingBasis === true || granularity === 'second' || granularity === 'minute' || granularity === 'hour';
  return { start, end, units: timeWindow.units, granularity, rolling };
}

/** An exact money value of evidence: the scaled amount as decimal text (`1050000000n` → `"10.5"`). */
export function evidenceMoney(scaled: bigint): string {
  return scaledToDecimal(scaled);
}

/** The window facts of a windowed evidence item: the window, its number of transactions and newest ids. */
export interface WindowFacts {
  readonly window: EvidenceWindow;
  readonly transactionCount: number;
  readonly transactionIds: readonly string[];
}

/**
 * A money comparison: `value` and `limit` in one `currency` (the threshold's, the amount converted
 * into it when it was in another; then `convertedFrom` names the amount as it was), with the
 * window's facts for a windowed value. Built field by field, never by spreading (an object spread
 * holding a timestamp takes V8's slow path, see need.ts).
 */
export function amountEvidence(
  direction: RuleEvidence['direction'],
  kind: string,
  resolved: { readonly amount: bigint; readonly threshold: bigint; readonly currency: string },
  comparison: RuleEvidence['comparison'],
  original?: { readonly amount: bigint; readonly currency: string },
  windowed?: WindowFacts,
): RuleEvidence {
  const item: Record<string, unknown> = {
    direction,
    kind,
    value: evidenceMoney(resolved.amount),
    comparison,
    limit: evidenceMoney(resolved.threshold),
    currency: resolved.currency,
  };
  if (original !== undefined && original.currency !== resolved.currency) {
    item.convertedFrom = { value: evidenceMoney(original.amount), currency: original.currency };
  }
  if (windowed !== undefined) {
    item.window = windowed.window;
    item.transactionCount = windowed.transactionCount;
    item.transactionIds = windowed.transactionIds;
  }
  return item as RuleEvidence;
}

/** A value found in a list parameter of the instance (`parameter`: its name, e.g. `highRiskCountries`). */
export function listedEvidence(direction: RuleEvidence['direction'], kind: string, value: string, parameter: string): RuleEvidence {
  return { direction, kind, value, comparison: 'in', limit: `/parameters/${parameter}` };
}

/**
 * How many of a side's earlier transactions carried `fieldValue` in the entry value `field`
 * (`counterpartyCountry`, `currency`, `ipCountry`): `{ kind: 'seen', field, fieldValue, value: seen,
 * comparison: '=', limit: 0 }` — a new value's evidence that it was never seen before.
 */
export function seenEvidence(direction: RuleEvidence['direction'], field: string, fieldValue: string, seen: number): RuleEvidence {
  return { direction, kind: 'seen', field, fieldValue, value: seen, comparison: '=', limit: 0 } as RuleEvidence;
}

/** A count of a window's transactions against a limit: `{ kind: 'count', value, comparison, limit, window, transactionCount, transactionIds }`. */
export function windowCountEvidence(
  direction: RuleEvidence['direction'],
  count: number,
  comparison: RuleEvidence['comparison'],
  limit: number,
  window: EvidenceWindow,
  transactionIds: readonly string[],
  kind = 'count',
): RuleEvidence {
  return { direction, kind, value: count, comparison, limit, window, transactionCount: count, transactionIds: transactionIds as string[] };
}

/**
 * The exact decimal text of `num / den` (`den > 0` with no prime factor other than 2 and 5, so the
 * quotient terminates), trailing zeros trimmed: `exactDecimal(15n, 4n)` → `"3.75"`. For limits a
 * rule computes by scaling (a percentage of an amount, a multiple of a median) without rounding.
 */
export function exactDecimal(num: bigint, den: bigint): string {
  let digits = 0;
  let scale = 1n;
  // den | 10^digits: at most max(twos, fives) steps.
  while ((scale * num) % den !== 0n) {
    digits += 1;
    scale *= 10n;
    if (digits > 200) throw new RangeError(`${num}/${den} does not terminate`);
  }
  const units = (scale * num) / den;
  const negative = units < 0n;
  const abs = negative ? -units : units;
  let text = abs.toString();
  if (digits > 0) {
    text = text.padStart(digits + 1, '0');
    const fraction = text.slice(-digits).replace(/0+$/, '');
    text = fraction ? `${text.slice(0, -digits)}.${fraction}` : text.slice(0, -digits);
  }
  return negative ? `-${text}` : text;
}

/**
 * The evidence of a custom json-logic instance's hit on `direction`: its expression held
 * (`{ kind: 'logic', value: true, comparison: '=', limit: true }`), with the values of its
 * aggregation variables on that side when it has any (`variables`, by key, as the logic read them).
 */
export function logicEvidence(direction: RuleEvidence['direction'], variables?: Readonly<Record<string, number | null>>): RuleEvidence {
  const item: Record<string, unknown> = { direction, kind: 'logic', value: true, comparison: '=', limit: true };
  if (variables !== undefined) item.variables = variables;
  return item as RuleEvidence;
}
