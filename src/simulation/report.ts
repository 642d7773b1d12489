/**
 * The counts a simulation gathers per transaction — settled when the transaction goes quiet, so a
 * transaction hit on creation and again after an event counts once, and taken back if a later
 * event wakes it — and the report built from them and from each rule set's own counts.
 */
import type { Transaction } from '../domain/index.js';
import { detectionScore, schemeScore, type LabelIndex } from './labels.js';
import type { RuleSetRun } from './rule-set-run.js';
import type { Detection, DetectionScore, DiffCount, InstanceReport, RejectedOperation, RuleSetReport, SimulationDiff, SimulationReport } from './types.js';

/** Ids listed per side of a difference, at most. */
const SAMPLE = 100;
/** Users listed among the top new ones, at most. */
const TOP_USERS = 20;

/** Distinct transactions hit, and those of them labelled, overall and per typology. */
interface TransactionHits {
  hits: number;
  truePositives: number;
  readonly byTypology: Map<string, number>;
}

function newHits(): TransactionHits {
  return { hits: 0, truePositives: 0, byTypology: new Map() };
}

/** What a settled transaction is counted by. */
export interface SettledTransaction {
  readonly request: Transaction;
  readonly hits: Uint8Array | null;
  /** Which of its parties (bit 0 the origin, bit 1 the destination) it counted as newly hit users. */
  newParties: number;
}

/** One side of a difference being counted. */
interface DiffTally {
  baselineOnly: number;
  candidateOnly: number;
  both: number;
  readonly baselineOnlySample: string[];
  readonly candidateOnlySample: string[];
}

function newDiff(): DiffTally {
  return { baselineOnly: 0, candidateOnly: 0, both: 0, baselineOnlySample: [], candidateOnlySample: [] };
}

/** What a simulation counts besides each set's own counts. */
export interface Tally {
  transactions: number;
  events: number;
  replays: number;
  rejected: number;
  readonly rejections: RejectedOperation[];
  /** Flags per transaction: the baseline's instances, then the candidate's. */
  readonly instanceCount: number;
  first: number | null;
  last: number | null;
  /** A transaction entered the history: its labels are counted as positives. */
  appeared(transaction: Transaction): void;
  /**
   * A transaction went quiet: its hits are counted (`sign` 1), or, when an event wakes it again, the
   * counts it was settled with are taken back (`sign` −1; `record.newParties` as settled).
   */
  settle(record: SettledTransaction, sign: 1 | -1): void;
  /** Per set: distinct transactions hit per instance, and by the set. */
  readonly sets: readonly { readonly instances: TransactionHits[]; readonly any: TransactionHits }[];
  readonly diff: DiffTally;
  readonly newInstance: number[];
  readonly lostInstance: number[];
  /** Candidate-only transactions per user among their parties. */
  readonly newByUser: Map<string, number>;
  /** Labelled transactions and users that appeared in the history, per typology (`*`: any). */
  readonly positives: { readonly transactions: Map<string, number>; readonly users: Map<string, Set<string>> };
}

/** Adds `by` to `map`'s count of `key`; a count back at zero is removed (as if never counted). */
function bump(map: Map<string, number>, key: string, by = 1): void {
  const next = (map.get(key) ?? 0) + by;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

/** Counts one settled transaction's hits by one set. */
function countSet(
  hits: Uint8Array,
  offset: number,
  size: number,
  counts: { instances: TransactionHits[]; any: TransactionHits },
  typologies: readonly string[] | undefined,
  sign: 1 | -1,
): boolean {
  let any = false;
  const add = (target: TransactionHits) => {
    target.hits += sign;
    if (typologies === undefined) return;
    target.truePositives += sign;
    for (const typology of typologies) bump(target.byTypology, typology, sign);
  };
  for (let i = 0; i < size; i++) {
    if (hits[offset + i] !== 1) continue;
    any = true;
    add(counts.instances[i] as TransactionHits);
  }
  if (any) add(counts.any);
  return any;
}

/** The tally of a simulation of `runs` (the baseline, then the candidate if any). */
export function createTally(runs: readonly RuleSetRun[], labels: LabelIndex | null): Tally {
  const sizes = runs.map((r) => r.ruleSet.instances.length);
  const offsets = sizes.map((_, s) => sizes.slice(0, s).reduce((a, b) => a + b, 0));
  const candidate = runs[1];
  const tally: Tally = {
    transactions: 0,
    events: 0,
    replays: 0,
    rejected: 0,
    rejections: [],
    instanceCount: sizes.reduce((a, b) => a + b, 0),
    first: null,
    last: null,
    sets: sizes.map((size) => ({ instances: Array.from({ length: size }, newHits), any: newHits() })),
    diff: newDiff(),
    newInstance: new Array(sizes[1] ?? 0).fill(0),
    lostInstance: new Array(sizes[0] ?? 0).fill(0),
    newByUser: new Map(),
    positives: { transactions: new Map(), users: new Map() },
    appeared(transaction) {
      const t = transaction.timestamp;
      tally.first = tally.first === null ? t : Math.min(tally.first, t);
      tally.last = tally.last === null ? t : Math.max(tally.last, t);
      if (labels === null) return;
      const typologies = labels.transactions.get(transaction.transactionId);
      if (typologies !== undefined) {
        bump(tally.positives.transactions, '*');
        for (const typology of typologies) bump(tally.positives.transactions, typology);
      }
      for (const userId of [transaction.originUserId, transaction.destinationUserId]) {
        const userTypologies = userId ? labels.users.get(userId) : undefined;
        if (userId === undefined || userTypologies === undefined) continue;
        for (const typology of ['*', ...userTypologies]) {
          let seen = tally.positives.users.get(typology);
          if (seen === undefined) {
            seen = new Set();
            tally.positives.users.set(typology, seen);
          }
          seen.add(userId);
        }
      }
    },
    settle(record, sign) {
      if (record.hits === null) return;
      const id = record.request.transactionId;
      const typologies = labels?.transactions.get(id);
      const hitBy = sizes.map((size, s) => countSet(record.hits as Uint8Array, offsets[s] as number, size, tally.sets[s] as never, typologies, sign));
      if (candidate === undefined) return;
      const [baselineHit, candidateHit] = hitBy as [boolean, boolean];
      settleDiff(tally, record, { baselineHit, candidateHit, baselineSize: sizes[0] as number, candidate, sign });
    },
  };
  return tally;
}

/** Adds `id` to a sample of at most {@link SAMPLE} ids (`sign` 1), or takes it out (−1). */
function sampleOf(sample: string[], id: string, sign: 1 | -1): void {
  if (sign === 1) {
    if (sample.length < SAMPLE) sample.push(id);
    return;
  }
  const at = sample.indexOf(id);
  if (at >= 0) sample.splice(at, 1);
}

/** Counts one settled transaction in the difference between the sets (or takes it back). */
function settleDiff(
  tally: Tally,
  record: SettledTransaction,
  at: { baselineHit: boolean; candidateHit: boolean; baselineSize: number; candidate: RuleSetRun; sign: 1 | -1 },
): void {
  const { baselineHit, candidateHit, baselineSize, sign } = at;
  const hits = record.hits as Uint8Array;
  const id = record.request.transactionId;
  const diff = tally.diff;
  if (baselineHit && candidateHit) diff.both += sign;
  else if (baselineHit) {
    diff.baselineOnly += sign;
    sampleOf(diff.baselineOnlySample, id, sign);
  } else if (candidateHit) {
    diff.candidateOnly += sign;
    sampleOf(diff.candidateOnlySample, id, sign);
    const parties = [record.request.originUserId, record.request.destinationUserId];
    // The parties counted are those the candidate had hit by then: the same ones are taken back.
    if (sign === 1) record.newParties = parties.reduce((mask, u, bit) => (u && at.candidate.hitUsers.has(u) ? mask | (1 << bit) : mask), 0);
    parties.forEach((userId, bit) => {
      if (userId && (record.newParties & (1 << bit)) !== 0) bump(tally.newByUser, userId, sign);
    });
  }
  if (!baselineHit)
    for (let i = 0; i < tally.newInstance.length; i++) if (hits[baselineSize + i] === 1) tally.newInstance[i] = (tally.newInstance[i] ?? 0) + sign;
  if (!candidateHit) for (let i = 0; i < baselineSize; i++) if (hits[i] === 1) tally.lostInstance[i] = (tally.lostInstance[i] ?? 0) + sign;
}

/** Users hit, scored against the labelled users that appeared. */
function userScore(hitUsers: ReadonlySet<string>, labels: LabelIndex, positives: ReadonlyMap<string, Set<string>>, typology: string): DetectionScore {
  let truePositives = 0;
  for (const userId of hitUsers) {
    const typologies = labels.users.get(userId);
    if (typologies !== undefined && (typology === '*' || typologies.includes(typology))) truePositives++;
  }
  return detectionScore(truePositives, hitUsers.size, positives.get(typology)?.size ?? 0);
}

/** The detection of transactions `hits` and users `hitUsers` against the labels. */
function detectionOf(hits: TransactionHits, hitUsers: ReadonlySet<string>, labels: LabelIndex, tally: Tally): Detection {
  const typologies: Record<string, Detection['typologies'][string]> = {};
  for (const typology of labels.typologies) {
    typologies[typology] = {
      transactions: detectionScore(hits.byTypology.get(typology) ?? 0, hits.hits, tally.positives.transactions.get(typology) ?? 0),
      users: userScore(hitUsers, labels, tally.positives.users, typology),
      schemes: schemeScore(hitUsers, labels.schemes, typology),
    };
  }
  return {
    transactions: detectionScore(hits.truePositives, hits.hits, tally.positives.transactions.get('*') ?? 0),
    users: userScore(hitUsers, labels, tally.positives.users, '*'),
    typologies,
  };
}

/** The report of one set. */
function setReport(run: RuleSetRun, counts: Tally['sets'][number], labels: LabelIndex | null, tally: Tally): RuleSetReport {
  const instances: InstanceReport[] = run.ruleSet.instances.map((instance, i) => {
    const own = run.instances[i] as RuleSetRun['instances'][number];
    const hits = counts.instances[i] as TransactionHits;
    const report: InstanceReport = {
      id: instance.id,
      ruleId: instance.ruleId,
      name: run.nameOf(instance),
      mode: instance.mode,
      runs: own.runs,
      hits: own.hits,
      hitTransactions: hits.hits,
      hitUsers: own.hitUsers.size,
      alerts: own.alerts,
      actions: { ...own.actions },
    };
    return labels === null ? report : { ...report, detection: detectionOf(hits, own.hitUsers, labels, tally) };
  });
  const days = [...run.days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([day, c]) => ({ day, hits: c.hits, alerts: c.alerts }));
  const report: RuleSetReport = {
    instances,
    status: { ...run.status },
    hits: run.hits,
    hitTransactions: counts.any.hits,
    hitUsers: run.hitUsers.size,
    alerts: run.alerts,
    cases: run.cases,
    days,
  };
  return labels === null ? report : { ...report, detection: detectionOf(counts.any, run.hitUsers, labels, tally) };
}

/** The users hit by one set only, with the first ones of each side. */
function userDiff(baseline: ReadonlySet<string>, candidate: ReadonlySet<string>): DiffCount {
  const baselineOnly = [...baseline].filter((u) => !candidate.has(u));
  const candidateOnly = [...candidate].filter((u) => !baseline.has(u));
  return {
    baselineOnly: baselineOnly.length,
    candidateOnly: candidateOnly.length,
    both: baseline.size - baselineOnly.length,
    baselineOnlySample: baselineOnly.slice(0, SAMPLE),
    candidateOnlySample: candidateOnly.slice(0, SAMPLE),
  };
}

/** The difference between the baseline and the candidate. */
function diffReport(baseline: RuleSetRun, candidate: RuleSetRun, tally: Tally): SimulationDiff {
  const d = tally.diff;
  return {
    transactions: {
      baselineOnly: d.baselineOnly,
      candidateOnly: d.candidateOnly,
      both: d.both,
      baselineOnlySample: [...d.baselineOnlySample],
      candidateOnlySample: [...d.candidateOnlySample],
    },
    users: userDiff(baseline.hitUsers, candidate.hitUsers),
    candidateInstances: candidate.ruleSet.instances.map((instance, i) => ({
      id: instance.id,
      newTransactions: tally.newInstance[i] as number,
      newUsers: [...(candidate.instances[i]?.hitUsers ?? [])].filter((u) => !baseline.hitUsers.has(u)).length,
    })),
    baselineInstances: baseline.ruleSet.instances.map((instance, i) => ({
      id: instance.id,
      lostTransactions: tally.lostInstance[i] as number,
      lostUsers: [...(baseline.instances[i]?.hitUsers ?? [])].filter((u) => !candidate.hitUsers.has(u)).length,
    })),
    topNewUsers: [...tally.newByUser.entries()]
      .sort(([ua, a], [ub, b]) => b - a || (ua < ub ? -1 : ua > ub ? 1 : 0))
      .slice(0, TOP_USERS)
      .map(([userId, transactions]) => ({ userId, transactions })),
  };
}

/** The report of a finished simulation. */
export function buildReport(input: { items: number; runs: readonly RuleSetRun[]; tally: Tally; labels: LabelIndex | null }): SimulationReport {
  const { runs, tally, labels } = input;
  const [baseline, candidate] = runs as [RuleSetRun, RuleSetRun | undefined];
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  const report: { -readonly [K in keyof SimulationReport]: SimulationReport[K] } = {
    history: {
      items: input.items,
      transactions: tally.transactions,
      events: tally.events,
      replays: tally.replays,
      rejected: tally.rejected,
      from: iso(tally.first),
      to: iso(tally.last),
    },
    baseline: setReport(baseline, tally.sets[0] as Tally['sets'][number], labels, tally),
    rejected: tally.rejections,
  };
  if (candidate !== undefined) {
    report.candidate = setReport(candidate, tally.sets[1] as Tally['sets'][number], labels, tally);
    report.diff = diffReport(baseline, candidate, tally);
  }
  if (labels !== null) {
    const typologies: Record<string, { transactions: number; users: number }> = {};
    for (const typology of labels.typologies) {
      typologies[typology] = { transactions: tally.positives.transactions.get(typology) ?? 0, users: tally.positives.users.get(typology)?.size ?? 0 };
    }
    report.labels = { typologies };
  }
  // The key order of the report is fixed here: the rejected list last, after the summary.
  const { rejected, ...rest } = report;
  return { ...rest, rejected };
}
