/**
 * Backtesting: a history of transactions and events replayed through a baseline rule set and a
 * candidate, in one pass, through the engine's own pipeline — the intake checks, the event fold,
 * plan and evaluation, the outcome's writes, the case policy — on lean state: the windows are kept
 * only as far back as the longest window read (plus the late-arrival margin), a transaction only
 * while it may still receive an event, and no response is stored. Deterministic: the same input
 * gives the same report.
 */
import { createAggregateStore, type AggregateStore } from '../aggregation/aggregate-store.js';
import { canonicalJson } from '../domain/canonical-json.js';
import type { StoredUser } from '../domain/entities.js';
import { CASE_GROUPINGS, ListRequestSchema, type Transaction, type TransactionEvent } from '../domain/index.js';
import { DEFAULT_RISK_BANDS } from '../domain/risk-score.js';
import { seenUser } from '../domain/user-update.js';
import { conflict, isTxmonError, notFound, TxmonError } from '../errors.js';
import { createRuleSet, type RuleSet } from '../engine/instances/rule-set.js';
import { seriesReach } from '../engine/instances/lookback.js';
import { resolveEngineLimits, type EngineLimits } from '../engine/limits.js';
import { checkRiskFactorCurrencies, DEFAULT_LATE_ARRIVAL_MS, resolveMoneyContext } from '../engine/options.js';
import { applyTransactionEvent, foldTransactionEvents, initialTransaction } from '../engine/pipeline/apply-event.js';
import { assertEventCountWithin, assertUpdatedSizeWithin, checkEventInput, checkTransactionInput, checkUserInput } from '../engine/pipeline/intake.js';
import { DEFAULT_TRANSITIONS, type TransitionTable } from '../engine/pipeline/lifecycle.js';
import { validateRiskConfiguration } from '../engine/pipeline/risk.js';
import { createRuleRegistry } from '../rules/registry.js';
import { contributionRefsOf, contributionsOf, type DerivedSeries, type SeriesName } from '../rules/series.js';
import type { MoneyContext } from '../rules/types.js';
import { copySafeJson, createLazyValidator } from '../validation/index.js';
import { createTransactionArchive, type ReplayedTransaction } from './archive.js';
import { indexLabels, type LabelIndex } from './labels.js';
import { buildReport, createTally, type Tally } from './report.js';
import { createRuleSetRun, type RuleSetRun, type RunContext } from './rule-set-run.js';
import type { RejectedOperation, SimulationEngineOptions, SimulationList, SimulationOptions, SimulationReport } from './types.js';

const validateList = createLazyValidator(ListRequestSchema, { what: 'list', safeJson: false });

/** Rejected items listed in the report, at most (the count goes on). */
const MAX_LISTED_REJECTIONS = 10_000;
/** How often (in history time) quiet transactions are archived. */
const MAINTENANCE_EVERY_MS = 60 * 60 * 1000;
/**
 * How long (in history time) a transaction stays as objects after its last operation before it is
 * archived as text: most events come within a day or two; a later one restores it (a parse and a fold).
 */
const ARCHIVE_AFTER_MS = 2 * 24 * 60 * 60 * 1000;
/**
 * How often (in history time) the windows are pruned: pruning visits every key, and what it frees
 * is at most this much history beyond the longest window (queries read only within their window).
 */
const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;

/** The checked settings of a simulation. */
interface Settings {
  readonly limits: EngineLimits;
  readonly money: MoneyContext;
  readonly transitions: TransitionTable;
  readonly lateArrivalMs: number;
  readonly context: RunContext;
}

/** A configuration error of `simulate`'s options, its path under `root`. */
function underPath(error: unknown, root: string): unknown {
  if (!isTxmonError(error)) return error;
  const details = error.details.map((d) => ({ ...d, path: `${root}${d.path}` }));
  return new TxmonError(error.code, `${root}: ${error.message}`, details, { cause: error });
}

/** The lists of the engine, checked, answering lookups. */
function listLookup(lists: readonly SimulationList[] | undefined): RunContext['lookup'] {
  const byId = new Map<string, { listType: string; subtype: string; items: ReadonlySet<string> }>();
  (lists ?? []).forEach((list, index) => {
    try {
      const { listId, ...body } = list;
      if (typeof listId !== 'string' || listId === '')
        throw new TxmonError('VALIDATION_FAILED', 'listId must be a non-empty string', [
          { path: '/listId', code: 'type', message: 'must be a non-empty string' },
        ]);
      const request = validateList(copySafeJson(body));
      byId.set(listId, { listType: request.listType, subtype: request.subtype, items: new Set(request.items) });
    } catch (error) {
      throw underPath(error, `/engine/lists/${index}`);
    }
  });
  return (lookup) => {
    const list = byId.get(lookup.listId);
    return list !== undefined && list.listType === lookup.listType && list.subtype === lookup.subtype && list.items.has(lookup.value);
  };
}

/** The users the host created, as stored. */
function initialUsers(users: readonly unknown[] | undefined): Map<string, StoredUser> {
  const byId = new Map<string, StoredUser>();
  (users ?? []).forEach((input, index) => {
    try {
      // `type` says which kind of user a body is; it is not part of the body itself.
      const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
      const { type: requested, ...body } = isObject ? (input as Record<string, unknown>) : { type: undefined };
      const { type, profile } = checkUserInput(isObject ? body : input, requested);
      byId.set(profile.userId, { userId: profile.userId, type, profile, craScore: null, craRiskLevel: null, firstSeenAt: 0, updatedAt: 0 });
    } catch (error) {
      throw underPath(error, `/engine/users/${index}`);
    }
  });
  return byId;
}

/** The settings of `engine`, checked. */
function settingsOf(engine: SimulationEngineOptions): Settings {
  const riskFactors = engine.riskFactors ?? [];
  const riskBands = engine.riskBands ?? DEFAULT_RISK_BANDS;
  validateRiskConfiguration(riskFactors, riskBands);
  const lateArrivalMs = engine.lateArrivalMs ?? DEFAULT_LATE_ARRIVAL_MS;
  if (!Number.isSafeInteger(lateArrivalMs) || lateArrivalMs < 0) {
    throw new TxmonError('INVALID_CONFIGURATION', 'simulate: engine.lateArrivalMs must be a non-negative integer');
  }
  const caseGrouping = engine.caseGrouping ?? 'USER';
  if (!CASE_GROUPINGS.includes(caseGrouping)) {
    throw new TxmonError('INVALID_CONFIGURATION', "simulate: engine.caseGrouping must be 'USER' or 'COUNTERPARTIES'");
  }
  const money: MoneyContext = resolveMoneyContext(engine, 'simulate', '/engine');
  checkRiskFactorCurrencies(riskFactors, money, 'simulate', '/engine');
  const registry = createRuleRegistry(engine.rules ?? []);
  return {
    limits: resolveEngineLimits(engine.limits),
    money,
    transitions: engine.transitions ?? DEFAULT_TRANSITIONS,
    lateArrivalMs,
    context: {
      money,
      defaultRiskLevel: engine.defaultRiskLevel ?? 'VERY_HIGH',
      riskFactors,
      riskBands,
      lookup: listLookup(engine.lists),
      users: initialUsers(engine.users),
      ruleName: (ruleId) => registry.get(ruleId)?.name,
      caseGrouping,
    },
  };
}

/** The rule set of `instances`, its errors under `root`. */
function ruleSetOf(instances: readonly unknown[], root: string, engine: SimulationEngineOptions): RuleSet {
  if (!Array.isArray(instances))
    throw new TxmonError('VALIDATION_FAILED', `${root} must be an array of rule instances`, [{ path: root, code: 'type', message: 'must be an array' }]);
  try {
    return createRuleSet(instances, engine.rules === undefined ? {} : { rules: engine.rules });
  } catch (error) {
    throw underPath(error, root);
  }
}

/** The series both sets read, which the one window store holds. */
function unionOf(sets: readonly RuleSet[]): { series: ReadonlySet<SeriesName>; derived: readonly DerivedSeries[]; values: boolean } {
  const series = new Set<SeriesName>();
  const derived = new Map<string, DerivedSeries>();
  for (const set of sets) {
    for (const name of set.series) series.add(name);
    for (const d of set.derived) if (!derived.has(d.name)) derived.set(d.name, d);
  }
  return { series, derived: [...derived.values()], values: sets.some((s) => s.readsValues) };
}

/** An item of the history as an operation (with its text when parsed here from text), or `null` for a blank line. */
function operationOf(item: unknown): { operation: Record<string, unknown>; text: string | null } | null {
  let value = item;
  const owned = typeof item === 'string';
  if (typeof item === 'string') {
    if (item.trim() === '') return null;
    try {
      value = JSON.parse(item);
    } catch {
      throw new TxmonError('MALFORMED_JSON', 'The line is not valid JSON', [{ path: '', code: 'malformed-json', message: 'is not valid JSON' }]);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TxmonError('VALIDATION_FAILED', 'An operation must be a JSON object', [{ path: '', code: 'type', message: 'must be an object' }]);
  }
  return { operation: value as Record<string, unknown>, text: owned ? (item as string) : null };
}

/**
 * Replays `options.history` through the baseline and the candidate rule sets and reports what
 * each would have done: per instance runs, hits, distinct transactions and users hit, alerts,
 * actions; the status mix; hits and alerts per day; the difference between the sets; and, with
 * labels, precision, recall and F1 per instance, per set and per typology. Items that are not
 * valid operations are rejected (listed with their position and error) and the replay goes on,
 * unless `strict`.
 *
 * @throws TxmonError `VALIDATION_FAILED`, `INVALID_PARAMETERS` … for a bad rule instance (its path
 *   `/baseline/<i>/…` or `/candidate/<i>/…`), list, user or label; `INVALID_CONFIGURATION` for bad
 *   engine settings; with `strict`, the first rejected item's error, its message starting with its position
 * @example
 * ```ts
 * const report = await simulate({
 *   history: transactions, // objects or NDJSON lines, in time order
 *   baseline: [{ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } }],
 *   candidate: [{ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 5000 } } }],
 * });
 * report.candidate?.instances[0]?.hits; // what the lower threshold would have flagged
 * ```
 */
export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const engine = options.engine ?? {};
  const settings = settingsOf(engine);
  const baseline = ruleSetOf(options.baseline, '/baseline', engine);
  const candidate = options.candidate === undefined ? null : ruleSetOf(options.candidate, '/candidate', engine);
  const labels: LabelIndex | null = options.labels === undefined ? null : indexLabels(options.labels);
  const runs: RuleSetRun[] = [createRuleSetRun(baseline, settings.context), ...(candidate === null ? [] : [createRuleSetRun(candidate, settings.context)])];
  const replay = createReplay(settings, runs, labels);
  const every = options.progressEvery ?? 10_000;
  let items = 0;
  for await (const item of options.history) {
    items++;
    replay.take(item, items, options.strict === true);
    if (options.onProgress !== undefined && items % every === 0) options.onProgress({ items, rejected: replay.tally.rejected, timestamp: replay.latest() });
  }
  options.onProgress?.({ items, rejected: replay.tally.rejected, timestamp: replay.latest() });
  replay.finish();
  return buildReport({ items, runs, tally: replay.tally, labels });
}

/** The replay's state and its one step per history item. */
function createReplay(settings: Settings, runs: readonly RuleSetRun[], labels: LabelIndex | null) {
  const union = unionOf(runs.map((r) => r.ruleSet));
  const reach = seriesReach(runs.flatMap((r) => r.ruleSet.prepared));
  const store: AggregateStore = createAggregateStore();
  // Recently active transactions as objects, in the order of their last operation; quiet ones as text.
  const live = new Map<string, ReplayedTransaction>();
  const tally: Tally = createTally(runs, labels);
  const archive = createTransactionArchive({ instanceCount: tally.instanceCount, transitions: settings.transitions });
  const users = settings.context.users;
  let latest: number | null = null;
  let maintainedAt = Number.NEGATIVE_INFINITY;
  let prunedAt = Number.NEGATIVE_INFINITY;
  let eventIds = 0;

  const touch = (id: string, record: ReplayedTransaction, at: number) => {
    record.touchedAt = at;
    live.delete(id);
    live.set(id, record);
  };
  /** Archives transactions quiet for {@link ARCHIVE_AFTER_MS} (their hits counted), and now and then prunes the windows. */
  const maintain = (now: number) => {
    if (now - maintainedAt < MAINTENANCE_EVERY_MS) return;
    maintainedAt = now;
    const quietBefore = now - ARCHIVE_AFTER_MS;
    for (const [id, record] of live) {
      if (record.touchedAt >= quietBefore) break;
      live.delete(id);
      tally.settle(record, 1);
      archive.archive(record);
    }
    if (now - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now;
    for (const [series, span] of reach) if (Number.isFinite(span)) store.pruneBefore(now - settings.lateArrivalMs - span, series);
  };
  /** Evaluates one state of a transaction with every set, then writes its window entries. */
  const evaluate = (transaction: Transaction, previous: Transaction | null, record: ReplayedTransaction, now: number) => {
    const current = contributionsOf(transaction, union.series, settings.money, union.derived, union.values);
    let offset = 0;
    for (const run of runs) {
      const hit = run.evaluate(transaction, current, store, now, previous === null);
      if (hit.length > 0) {
        record.hits ??= new Uint8Array(tally.instanceCount);
        for (const position of hit) record.hits[offset + position] = 1;
      }
      offset += run.ruleSet.instances.length;
    }
    store.apply(previous === null ? [] : contributionRefsOf(previous, union.series, union.derived), current);
    for (const userId of [transaction.originUserId, transaction.destinationUserId]) {
      if (userId && !users.has(userId)) users.set(userId, seenUser(userId, now));
    }
  };
  /** An archived transaction back among the live ones, its settled counts taken back (they are settled again when it goes quiet). */
  const restore = (id: string, now: number): ReplayedTransaction | undefined => {
    const record = archive.restore(id, now);
    if (record === undefined) return undefined;
    tally.settle(record, -1);
    live.set(id, record);
    return record;
  };
  /** Takes a transaction (`text`: the JSON it was parsed from here; then it is owned, not copied). */
  const takeTransaction = (input: unknown, text: string | null) => {
    const request = checkTransactionInput(input, settings.limits, text !== null);
    const existing = live.get(request.transactionId)?.request ?? archive.request(request.transactionId);
    if (existing !== undefined) {
      if (canonicalJson(existing) === canonicalJson(request)) return void tally.replays++;
      throw conflict(
        'TRANSACTION_ID_CONFLICT',
        'A transaction with this transactionId exists with a different payload',
        '/transactionId',
        'exists with a different payload',
      );
    }
    const transaction = initialTransaction(request);
    const now = transaction.timestamp;
    maintain(now);
    latest = latest === null ? now : Math.max(latest, now);
    const record: ReplayedTransaction = {
      request,
      requestPlace: text === null ? null : archive.keepText(text),
      current: transaction,
      events: [],
      clientEventIds: null,
      lastEventTimestamp: null,
      touchedAt: now,
      hits: null,
      newParties: 0,
    };
    tally.appeared(transaction);
    evaluate(transaction, null, record, now);
    live.set(request.transactionId, record);
    tally.transactions++;
  };
  const takeEvent = (input: unknown, owned: boolean) => {
    const request = checkEventInput(input, settings.limits, owned) as TransactionEvent & { eventId?: string };
    const record = live.get(request.transactionId) ?? restore(request.transactionId, request.timestamp);
    if (record === undefined) throw notFound('TRANSACTION_NOT_FOUND', 'transaction', '/transactionId');
    if (request.eventId !== undefined && record.clientEventIds?.has(request.eventId) === true) {
      const kept = record.events.find((e) => e.event.eventId === request.eventId)?.event;
      if (kept !== undefined && canonicalJson(kept) === canonicalJson(request)) return void tally.replays++;
      throw conflict('EVENT_ID_CONFLICT', 'An event with this eventId exists with a different payload', '/eventId', 'exists with a different payload');
    }
    assertEventCountWithin(record.events.length + 1, settings.limits);
    const clientEventId = request.eventId !== undefined;
    // The stored event is the request as received (so a replay compares alike), its id filled in when absent.
    const event = request.eventId === undefined ? { ...request, eventId: `event-${++eventIds}` } : (request as TransactionEvent & { eventId: string });
    const late = record.lastEventTimestamp !== null && event.timestamp < record.lastEventTimestamp;
    const next = late
      ? foldTransactionEvents(initialTransaction(record.request), [...record.events, { event, arrival: record.events.length }], {
          transitions: settings.transitions,
        })
      : applyTransactionEvent(record.current, event, { transitions: settings.transitions });
    assertUpdatedSizeWithin(next, settings.limits);
    const now = event.timestamp;
    maintain(now);
    latest = latest === null ? now : Math.max(latest, now);
    evaluate(next, record.current, record, now);
    record.events.push({ event, arrival: record.events.length });
    if (clientEventId) {
      record.clientEventIds ??= new Set();
      record.clientEventIds.add(event.eventId);
    }
    record.lastEventTimestamp = Math.max(record.lastEventTimestamp ?? Number.NEGATIVE_INFINITY, event.timestamp);
    record.current = next;
    touch(request.transactionId, record, Math.max(record.touchedAt, now));
    tally.events++;
  };
  const reject = (position: number, error: TxmonError, operation: Record<string, unknown> | null) => {
    tally.rejected++;
    if (tally.rejections.length >= MAX_LISTED_REJECTIONS) return;
    const first = error.details[0];
    const entry: { -readonly [K in keyof RejectedOperation]: RejectedOperation[K] } = { position, code: error.code, message: error.message };
    if (first !== undefined) entry.path = first.path;
    if (typeof operation?.transactionId === 'string') entry.transactionId = operation.transactionId.slice(0, 256);
    if (typeof operation?.eventId === 'string') entry.eventId = operation.eventId.slice(0, 256);
    tally.rejections.push(entry);
  };
  return {
    tally,
    latest: () => latest,
    take(item: unknown, position: number, strict: boolean) {
      let operation: Record<string, unknown> | null = null;
      try {
        const taken = operationOf(item);
        if (taken === null) return;
        operation = taken.operation;
        if ('type' in operation) takeTransaction(operation, taken.text);
        else if ('transactionState' in operation) takeEvent(operation, taken.text !== null);
        else {
          throw new TxmonError('VALIDATION_FAILED', 'An operation is a transaction (it has type) or an event (it has transactionState)', [
            { path: '/type', code: 'required', message: 'is required for a transaction (an event has transactionState instead)' },
          ]);
        }
      } catch (error) {
        if (!isTxmonError(error)) throw error;
        if (strict) throw new TxmonError(error.code, `History item ${position}: ${error.message}`, error.details, { cause: error });
        reject(position, error, operation);
      }
    },
    finish() {
      for (const record of live.values()) tally.settle(record, 1);
      live.clear();
    },
  };
}
