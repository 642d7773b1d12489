/**
 * How far back the active instances read each aggregate series, and what that allows a retention
 * prune to drop (pure). Rules declare the aggregates they need for one transaction, not a window
 * length, so each rule is asked for its needs on probe transactions at many instants of two years
 * (a leap year and a common one) and the longest reach seen is taken, plus a day for the varying
 * length of calendar periods and time zones. A series a rule declares but never read on the probes, or reads
 * from the beginning of time (R-1's "first transaction"), reaches back forever: it is never pruned.
 */
import type { Transaction } from '../../domain/index.js';
import { DAY_MS } from '../../domain/time.js';
import type { KeptSeries } from './series-catalog.js';
import type { PreparedInstance } from '../pipeline/index.js';
import type { SeriesName } from '../../rules/series.js';

/** The probe instants: the last millisecond of every day (UTC) of 2024 and 2025. */
const PROBE_STEP_MS = DAY_MS;
const PROBE_FROM = Date.UTC(2024, 0, 1);
const PROBE_TO = Date.UTC(2026, 0, 1);
/**
 * Added to the longest reach seen: calendar periods vary in length between the probes, and a
 * period in another time zone than UTC ends up to a day away from a probe.
 */
const REACH_MARGIN_MS = DAY_MS;

/** A transaction with every field a rule may key a read on. */
function probeTransaction(timestamp: number): Transaction {
  return {
    type: 'TRANSFER',
    transactionId: 'retention-probe',
    timestamp,
    transactionState: 'SUCCESSFUL',
    originUserId: 'probe-sender',
    destinationUserId: 'probe-receiver',
    originAmountDetails: { transactionAmount: 1000, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: 1000, transactionCurrency: 'EUR', country: 'FR' },
    originPaymentDetails: { method: 'CARD', cardFingerprint: 'probe-card', cardIssuedCountry: 'DE', nameOnCard: { firstName: 'Probe', lastName: 'Sender' } },
    destinationPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000', name: 'Probe Receiver' },
    originDeviceData: { ipAddress: '192.0.2.1' },
    reference: 'probe',
  } as Transaction;
}

// The probes are the same for every call: built once, on first use, never changed.
let probes: readonly Transaction[] | null = null;
function probeTransactions(): readonly Transaction[] {
  if (probes === null) {
    const list: Transaction[] = [];
    for (let t = PROBE_FROM + PROBE_STEP_MS - 1; t < PROBE_TO; t += PROBE_STEP_MS) list.push(probeTransaction(t));
    probes = list;
  }
  return probes;
}

/** One instance's reach per series it reads (derived names for its filtered series), in ms. */
function reachOf(prepared: PreparedInstance): Map<string, number> {
  const reach = new Map<string, number>();
  const rule = prepared.rule;
  if (rule === null || rule.aggregates === undefined) return reach;
  const { instance } = prepared;
  const parameterSets = [instance.parameters, ...Object.values(instance.riskLevelParameters ?? {})];
  for (const parameters of parameterSets) {
    const seen = new Map<string, number>();
    let declared: readonly SeriesName[];
    try {
      declared = rule.seriesFor?.(parameters) ?? rule.series;
      for (const transaction of probeTransactions()) {
        for (const need of rule.aggregates({ transaction, parameters })) {
          const span = transaction.timestamp - need.start;
          if (span > (seen.get(need.series) ?? -1)) seen.set(need.series, span);
        }
      }
    } catch {
      // A rule that cannot plan the probes reaches back forever on everything it may read.
      declared = rule.series;
      seen.clear();
    }
    for (const series of declared) {
      const span = seen.get(series);
      const name = prepared.seriesMap?.get(series) ?? series;
      const value = span === undefined || !Number.isFinite(span) ? Number.POSITIVE_INFINITY : span + REACH_MARGIN_MS;
      reach.set(name, Math.max(reach.get(name) ?? 0, value));
    }
  }
  return reach;
}

/**
 * For each series the `active` instances read, how far back from a transaction's timestamp they
 * read it, in ms (`Infinity`: from the beginning). Series they do not read are absent.
 */
export function seriesReach(active: readonly PreparedInstance[]): Map<string, number> {
  const reach = new Map<string, number>();
  for (const prepared of active) {
    for (const [series, span] of reachOf(prepared)) reach.set(series, Math.max(reach.get(series) ?? 0, span));
  }
  return reach;
}

/** What a retention prune may drop. */
export interface RetentionInput {
  /** {@link seriesReach} of the active instances. */
  readonly reach: ReadonlyMap<string, number>;
  /** The series held. */
  readonly held: KeptSeries;
  /** Series the host keeps whatever the instances read: never pruned (the host may read any window). */
  readonly maintained: readonly SeriesName[];
  readonly now: number;
  /** How much older than `now` a transaction may be and still see exact windows. */
  readonly lateArrivalMs: number;
}

/**
 * The prune horizon of each held series: `now − lateArrivalMs − reach` for a series the instances
 * read, `now − lateArrivalMs` for one they do not read (an instance that starts reading it refills
 * it from the stored transactions); series read from the beginning, and maintained ones, are absent.
 */
export function retentionHorizons(input: RetentionInput): Map<string, number> {
  const horizons = new Map<string, number>();
  const base = input.now - input.lateArrivalMs;
  const names = [...input.held.bases, ...input.held.derived.map((d) => d.name)];
  for (const series of names) {
    if ((input.maintained as readonly string[]).includes(series)) continue;
    const reach = input.reach.get(series) ?? 0;
    if (Number.isFinite(reach)) horizons.set(series, base - reach);
  }
  return horizons;
}

/**
 * The series the instances read further back than what a prune left of them (`retainedFrom`):
 * they must be refilled from the stored transactions before those instances run.
 */
export function seriesToRefill(reach: ReadonlyMap<string, number>, retainedFrom: ReadonlyMap<string, number>, now: number, lateArrivalMs: number): string[] {
  const stale: string[] = [];
  for (const [series, horizon] of retainedFrom) {
    const span = reach.get(series);
    if (span !== undefined && now - lateArrivalMs - span < horizon) stale.push(series);
  }
  return stale;
}
