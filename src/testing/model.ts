/**
 * Model-based check of a {@link Repositories} implementation: fast-check generates random
 * sequences of operations (transaction creates and events through `saveOutcome` with realistic
 * outcomes, stale versions and duplicate event ids, rule-instance puts and deletes, host-created
 * users), runs each against the repositories and against a tiny Map-based model, and compares
 * everything observable after every step.
 */
import fc from 'fast-check';
import type { Arbitrary, Parameters } from 'fast-check';
import { computeAggregate, type AggregateQuery, type SeriesEntry } from '../aggregation/aggregate-store.js';
import { compareSeriesEntries } from '../aggregation/checks.js';
import { addResultAlert, applyUserUpdate, decideAlertHit, resultAlertOf, seenUser, type ResultAlert, type RiskLevel } from '../domain/index.js';
import { isTxmonError } from '../errors.js';
import {
  outcomeNamingAlerts,
  type Alert,
  type AlertHit,
  type Case,
  type Repositories,
  type StoredEvent,
  type StoredRuleInstance,
  type StoredTransaction,
  type StoredUser,
  type TransactionOutcome,
  type UserUpdate,
} from '../engine/repositories.js';
import { assertEqual, assertTrue } from './assert.js';
import type { CreateRepositories } from './conformance.js';
import {
  FIXTURE_T0,
  buildAlertHit,
  buildContributions,
  buildEventStep,
  buildMonitoringResult,
  buildOutcome,
  buildStoredRuleInstance,
  buildStoredTransaction,
  buildTransaction,
  refsOf,
} from './fixtures.js';

/** Options of {@link checkRepositoriesAgainstModel}. */
export interface ModelCheckOptions {
  /** Sequences to try. Default 50. */
  readonly numRuns?: number;
  /** Longest operation sequence. Default 30. */
  readonly maxSteps?: number;
  /** Pins the run (fast-check `seed`); a failure report prints the seed and path to replay. */
  readonly seed?: number;
  /** Replays one failing case (fast-check `path`), together with `seed`. */
  readonly path?: string;
  /** Called after every sequence with the repositories it used. */
  readonly dispose?: (repositories: Repositories) => void | Promise<void>;
}

const TX_SLOTS = 5;
const USER_SLOTS = 4;
const INSTANCE_SLOTS = 3;
const SERIES = ['user-sending', 'user-receiving'] as const;
const PRIORITIES = ['P1', 'P2', 'P3'] as const;

type Op =
  | {
      kind: 'create';
      tx: number;
      origin: number;
      destination: number;
      cents: number;
      offset: number;
      hits: boolean[];
      cra: number | null;
      staleCounters: boolean;
    }
  | { kind: 'event'; tx: number; cents: number | null; skew: -1 | 0 | 1; reuseEventId: boolean; hits: boolean[]; cra: number | null }
  | { kind: 'putInstance'; instance: number; threshold: number }
  | { kind: 'deleteInstance'; instance: number }
  | { kind: 'putUser'; user: number; cra: number | null };

const hitsArbitrary = fc.array(fc.boolean(), { minLength: INSTANCE_SLOTS, maxLength: INSTANCE_SLOTS });
const craArbitrary = fc.option(fc.integer({ min: 0, max: 100 }), { nil: null });

const opArbitrary: Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      tx: fc.nat(TX_SLOTS - 1),
      origin: fc.nat(USER_SLOTS - 1),
      destination: fc.nat(USER_SLOTS - 1),
      cents: fc.integer({ min: 1, max: 2_000_000 }),
      offset: fc.nat(30),
      hits: hitsArbitrary,
      cra: craArbitrary,
      staleCounters: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      tx: fc.nat(TX_SLOTS - 1),
      cents: fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: null }),
      skew: fc.constantFrom(0 as const, 0 as const, 0 as const, -1 as const, 1 as const),
      reuseEventId: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      hits: hitsArbitrary,
      cra: craArbitrary,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('putInstance' as const), instance: fc.nat(INSTANCE_SLOTS - 1), threshold: fc.integer({ min: 1, max: 50_000 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteInstance' as const), instance: fc.nat(INSTANCE_SLOTS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('putUser' as const), user: fc.nat(USER_SLOTS - 1), cra: craArbitrary }) },
);

const txId = (slot: number) => `t-${slot}`;
const userId = (slot: number) => `user-${slot}`;
const instanceId = (slot: number) => `ri-${slot}`;
const ALL_USERS = Array.from({ length: USER_SLOTS }, (_, i) => userId(i));

function levelOf(score: number): RiskLevel {
  return score < 20 ? 'VERY_LOW' : score < 40 ? 'LOW' : score < 60 ? 'MEDIUM' : score < 80 ? 'HIGH' : 'VERY_HIGH';
}

/** The model: plain Maps with the semantics of the repository ports. */
function createModel() {
  const transactions = new Map<string, StoredTransaction>();
  const eventLists = new Map<string, StoredEvent[]>();
  const events = new Map<string, StoredEvent>();
  const instances = new Map<string, { stored: StoredRuleInstance; runs: number; hits: number }>();
  const users = new Map<string, StoredUser>();
  const alerts = new Map<string, Alert>();
  const openAlert = new Map<string, string>();
  const cases = new Map<string, Case>();
  const openCase = new Map<string, string>();
  const entries = new Map<string, Map<string, SeriesEntry>>();

  function ensureUser(id: string, now: number): void {
    if (!users.has(id)) users.set(id, seenUser(id, now));
  }

  /** The case policy, applied with plain data structures (linear scans are fine in a model). */
  function applyHit(hit: AlertHit, now: number): ResultAlert {
    const key = `${hit.instanceId}\u0000${hit.userId}`;
    const caseOf = (user: string | undefined) => (user === undefined ? null : (cases.get(openCase.get(user) ?? '') ?? null));
    const change = decideAlertHit(hit, alerts.get(openAlert.get(key) ?? '') ?? null, caseOf(hit.userId), now, caseOf(hit.groupWithUserId));
    if (change.kind === 'append') {
      const alert = alerts.get(change.alertId) as Alert;
      const id = change.transactionId;
      if (id !== null && !alert.entityDetails.transactionIds.includes(id)) alert.entityDetails.transactionIds.push(id);
      alert.updatedAt = change.at;
      const c = cases.get(change.caseId);
      if (c) c.updatedAt = change.at;
      return resultAlertOf(hit, change);
    }
    if (change.caseIsNew) {
      cases.set(change.case.caseId, structuredClone(change.case));
      openCase.set(hit.userId, change.case.caseId);
    } else {
      const c = cases.get(change.caseId) as Case;
      c.alertIds.push(change.alert.alertId);
      c.updatedAt = change.at;
      c.priority = change.casePriority;
      // The case's users are those of its alerts, in order of their first alert.
      const users = [...new Set(c.alertIds.map((id) => (id === change.alert.alertId ? hit.userId : (alerts.get(id) as Alert).userId)))];
      if (users.length > 1) c.userIds = users;
      openCase.set(hit.userId, change.caseId);
    }
    alerts.set(change.alert.alertId, structuredClone(change.alert));
    openAlert.set(key, change.alert.alertId);
    return resultAlertOf(hit, change);
  }

  return {
    transactions,
    eventLists,
    events,
    instances,
    users,
    alerts,
    cases,
    entries,
    /** Whether the repositories must reject `outcome` with CONCURRENT_UPDATE. */
    conflicts(outcome: TransactionOutcome): boolean {
      const existing = transactions.get(outcome.transaction.transaction.transactionId);
      if (outcome.expectedVersion === null ? existing !== undefined : existing?.version !== outcome.expectedVersion) return true;
      return outcome.event !== null && events.has(outcome.event.eventId);
    },
    /** Applies `input`; returns the alerts its hits landed in (its results, as stored, name them). */
    apply(input: TransactionOutcome): ResultAlert[] {
      const named: ResultAlert[] = [];
      for (const hit of input.alertHits) addResultAlert(named, applyHit(hit, input.now));
      const outcome = structuredClone(outcomeNamingAlerts(input, named));
      const id = outcome.transaction.transaction.transactionId;
      transactions.set(id, outcome.transaction);
      if (outcome.event) {
        events.set(outcome.event.eventId, outcome.event);
        eventLists.set(id, [...(eventLists.get(id) ?? []), outcome.event]);
      }
      for (const ref of outcome.aggregates.remove) entries.get(`${ref.series}\u0000${ref.key}`)?.delete(ref.id);
      for (const e of outcome.aggregates.add) {
        const k = `${e.series}\u0000${e.key}`;
        if (!entries.has(k)) entries.set(k, new Map());
        entries.get(k)?.set(e.id, e);
      }
      for (const c of outcome.counters) {
        const inst = instances.get(c.instanceId);
        if (inst) {
          inst.runs += c.runs;
          inst.hits += c.hits;
        }
      }
      for (const u of outcome.seenUserIds) ensureUser(u, outcome.now);
      for (const update of outcome.userUpdates) users.set(update.userId, applyUserUpdate(users.get(update.userId) ?? null, update, outcome.now));
      return named;
    },
    putInstance(stored: StoredRuleInstance): void {
      const current = instances.get(stored.instance.id);
      instances.set(stored.instance.id, { stored: structuredClone(stored), runs: current?.runs ?? 0, hits: current?.hits ?? 0 });
    },
  };
}

type Model = ReturnType<typeof createModel>;

function sortEntries(list: readonly SeriesEntry[]): SeriesEntry[] {
  return [...list].sort(compareSeriesEntries);
}

function sortById<T>(list: readonly T[], id: (x: T) => string): T[] {
  return [...list].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

/** Builds the outcome of one create/event op from the model's view (what the engine would write). */
function outcomeOf(model: Model, op: Extract<Op, { kind: 'create' | 'event' }>, step: number): TransactionOutcome {
  const now = FIXTURE_T0 + step * 1000;
  const id = txId(op.tx);
  const instanceSlots = Array.from({ length: INSTANCE_SLOTS }, (_, i) => i);
  const present = instanceSlots.filter((i) => model.instances.has(instanceId(i)) || (op.kind === 'create' && op.staleCounters));
  const hitSlots = present.filter((i) => op.hits[i] === true);
  const result = buildMonitoringResult(present.map(instanceId), hitSlots.map(instanceId));
  const counters = present.map((i) => ({ instanceId: instanceId(i), runs: 1, hits: op.hits[i] === true ? 1 : 0 }));

  let stored: StoredTransaction;
  let expectedVersion: number | null;
  let event: StoredEvent | null = null;
  let remove: ReturnType<typeof refsOf> = [];
  if (op.kind === 'create') {
    const origin = userId(op.origin);
    const destination = userId(op.destination);
    stored = buildStoredTransaction(
      buildTransaction(id, { origin, destination, amount: op.cents / 100, timestamp: FIXTURE_T0 + op.offset * 3_600_000 }),
      result,
    );
    expectedVersion = null;
  } else {
    const previous = model.transactions.get(id) ?? buildStoredTransaction(buildTransaction(id, { origin: userId(0), destination: userId(1) }));
    // Reusing the id of the transaction's own latest event: a replay racing past the engine's idempotency check.
    const latest = model.eventLists.get(id)?.at(-1)?.eventId;
    const eventId = op.reuseEventId && latest !== undefined ? latest : `e-${step}`;
    const next = buildEventStep(previous, eventId, { ...(op.cents !== null ? { amount: op.cents / 100 } : {}), result });
    stored = next.transaction;
    event = next.event;
    expectedVersion = previous.version + op.skew;
    remove = refsOf(buildContributions(previous.transaction));
  }
  const t = stored.transaction;
  const parties = [t.originUserId, t.destinationUserId].filter((u): u is string => u !== undefined);
  // Slots 1 and 2 group with the other party (case grouping COUNTERPARTIES), slot 0 does not.
  const alertHits = hitSlots.map((i) => {
    const user = parties[i % parties.length] as string;
    const other = parties.find((p) => p !== user);
    return buildAlertHit(instanceId(i), user, id, {
      alertId: `A-${step}-${i}`,
      caseId: `C-${step}-${i}`,
      priority: PRIORITIES[i] ?? 'P2',
      direction: i % parties.length === 0 ? 'ORIGIN' : 'DESTINATION',
      ...(i > 0 && other !== undefined ? { groupWithUserId: other } : {}),
    });
  });
  const userUpdates: UserUpdate[] = [];
  if (op.cra !== null && t.originUserId !== undefined) {
    const update: UserUpdate = { userId: t.originUserId, craScore: op.cra, craRiskLevel: levelOf(op.cra) };
    if (hitSlots.length > 0) update.userStateDetails = { state: 'SUSPENDED', reason: 'Rule hit' };
    userUpdates.push(update);
  }
  return buildOutcome(stored, expectedVersion, {
    event,
    aggregates: { remove, add: buildContributions(t) },
    counters,
    alertHits,
    // The engine lists the parties it did not find; a concurrent create can make any of them known.
    seenUserIds: parties,
    userUpdates,
    now,
  });
}

async function compare(repos: Repositories, model: Model, label: string): Promise<void> {
  for (let slot = 0; slot < TX_SLOTS; slot++) {
    const id = txId(slot);
    assertEqual(await repos.transactions.getTransaction(id), model.transactions.get(id) ?? null, `${label}: getTransaction(${id})`);
    assertEqual(await repos.transactions.listEvents(id), model.eventLists.get(id) ?? [], `${label}: listEvents(${id})`);
  }
  for (const [eventId, event] of model.events) {
    assertEqual(await repos.transactions.getEvent(eventId), event, `${label}: getEvent(${eventId})`);
  }
  const expectedInstances = [...model.instances.values()].map((i) => ({ ...i.stored.instance, runCount: i.runs, hitCount: i.hits }));
  assertEqual(await repos.ruleInstances.listRuleInstances(), expectedInstances, `${label}: ruleInstances.list()`);
  assertEqual(
    await repos.users.getUsers(ALL_USERS),
    ALL_USERS.map((u) => model.users.get(u) ?? null),
    `${label}: getUsers`,
  );
  assertEqual(
    sortById(await repos.cases.listAlerts(), (a) => a.alertId),
    sortById([...model.alerts.values()], (a) => a.alertId),
    `${label}: listAlerts`,
  );
  assertEqual(
    sortById(await repos.cases.listCases(), (c) => c.caseId),
    sortById([...model.cases.values()], (c) => c.caseId),
    `${label}: listCases`,
  );
  for (const series of SERIES) {
    for (const user of ALL_USERS) {
      const expected = sortEntries([...(model.entries.get(`${series}\u0000${user}`)?.values() ?? [])]);
      assertEqual(sortEntries(await repos.aggregates.listEntries(series, user)), expected, `${label}: aggregates.listEntries(${series}, ${user})`);
      const window = { series, key: user, start: FIXTURE_T0, end: FIXTURE_T0 + 31 * 3_600_000 };
      const sum = expected.reduce((acc, e) => acc + (e.amount ?? 0n), 0n);
      const last = { ...window, fn: 'lastEntries', limit: 3 } as const;
      assertEqual(
        await repos.aggregates.queryAggregates([{ ...window, fn: 'count' }, { ...window, fn: 'sum' }, last]),
        [expected.length, sum, computeAggregate(expected, last)],
        `${label}: aggregates.queryAggregates count/sum/lastEntries (${series}, ${user})`,
      );
    }
  }
}

/**
 * The graph functions from every user over the model's whole history (every key of a series
 * read): a path back to the first user, and a source shared by counterparties. In one batch.
 */
async function compareGraphAggregates(repos: Repositories, model: Model, label: string): Promise<void> {
  const all = [...model.entries.values()].flatMap((byId) => [...byId.values()]);
  const queries: AggregateQuery[] = [];
  for (const series of SERIES) {
    for (const user of ALL_USERS) {
      const window = { series, key: user, start: FIXTURE_T0, end: FIXTURE_T0 + 31 * 3_600_000, field: 'counterparty' };
      queries.push(
        { ...window, fn: 'hopsTo', values: [ALL_USERS[0] as string], limit: 3, fanOut: 2 },
        { ...window, fn: 'sharedSource', includeValue: ALL_USERS[1] as string, fanOut: 3 },
      );
    }
  }
  assertEqual(
    await repos.aggregates.queryAggregates(queries),
    queries.map((q) => computeAggregate(all, q)),
    `${label}: aggregates.queryAggregates hopsTo/sharedSource`,
  );
}

async function runOps(repos: Repositories, ops: readonly Op[]): Promise<void> {
  const model = createModel();
  let revision = await repos.ruleInstances.getRevision();
  for (let step = 0; step < ops.length; step++) {
    const op = ops[step] as Op;
    const label = `step ${step} (${op.kind})`;
    switch (op.kind) {
      case 'create':
      case 'event': {
        const outcome = outcomeOf(model, op, step);
        const conflict = model.conflicts(outcome);
        let error: unknown = null;
        let named: ResultAlert[] | null = null;
        try {
          named = await repos.transactions.saveOutcome(structuredClone(outcome));
        } catch (e) {
          error = e;
        }
        if (conflict) {
          assertTrue(
            isTxmonError(error) && error.code === 'CONCURRENT_UPDATE',
            `${label}: saveOutcome must throw CONCURRENT_UPDATE (expectedVersion ${outcome.expectedVersion}), got ${error === null ? 'success' : String(error)}`,
          );
        } else {
          if (error !== null) throw new Error(`${label}: saveOutcome threw unexpectedly`, { cause: error });
          assertEqual(named, model.apply(outcome), `${label}: the alerts saveOutcome names`);
        }
        break;
      }
      case 'putInstance': {
        const stored = buildStoredRuleInstance(instanceId(op.instance), { threshold: op.threshold, now: FIXTURE_T0 + step });
        await repos.ruleInstances.putRuleInstance(structuredClone(stored));
        model.putInstance(stored);
        const next = await repos.ruleInstances.getRevision();
        assertTrue(next !== revision, `${label}: ruleInstances.getRevision() must change after put`);
        revision = next;
        break;
      }
      case 'deleteInstance': {
        const id = instanceId(op.instance);
        const existed = model.instances.delete(id);
        assertEqual(await repos.ruleInstances.deleteRuleInstance(id), existed, `${label}: ruleInstances.delete(${id})`);
        const next = await repos.ruleInstances.getRevision();
        if (existed) assertTrue(next !== revision, `${label}: ruleInstances.getRevision() must change after a delete`);
        revision = next;
        break;
      }
      case 'putUser': {
        const id = userId(op.user);
        const previous = model.users.get(id);
        const user: StoredUser = {
          userId: id,
          type: 'CONSUMER',
          profile: { userId: id, createdTimestamp: FIXTURE_T0 - 86_400_000 },
          craScore: op.cra ?? previous?.craScore ?? null,
          craRiskLevel: op.cra === null ? (previous?.craRiskLevel ?? null) : levelOf(op.cra),
          firstSeenAt: previous?.firstSeenAt ?? FIXTURE_T0 + step,
          updatedAt: FIXTURE_T0 + step,
        };
        await repos.users.putUser(structuredClone(user));
        model.users.set(id, user);
        break;
      }
    }
    await compare(repos, model, label);
  }
  // Once per sequence, not per step: a graph query reads several keys (several statements in SQL).
  if (ops.length > 0) await compareGraphAggregates(repos, model, 'after the last step');
}

/**
 * Runs random operation sequences against the repositories from `createRepositories` (a fresh
 * instance per sequence) and against a Map-based model of the port semantics, comparing
 * transactions, events, rule instances and counters, users, alerts, cases and aggregate entries
 * after every step. Resolves when every sequence agrees; rejects with fast-check's report
 * (counterexample, seed and path) otherwise. Honours `fc.configureGlobal` (e.g. a seed from the
 * environment).
 *
 * @example
 * ```ts
 * import { it } from 'vitest';
 * import { checkRepositoriesAgainstModel } from 'txmon/testing';
 * it('my repositories behave like the model', () => checkRepositoriesAgainstModel(() => createMyRepositories(), { numRuns: 100 }));
 * ```
 */
export async function checkRepositoriesAgainstModel(createRepositories: CreateRepositories, options: ModelCheckOptions = {}): Promise<void> {
  const parameters: Parameters<[Op[]]> = { numRuns: options.numRuns ?? 50 };
  if (options.seed !== undefined) parameters.seed = options.seed;
  if (options.path !== undefined) parameters.path = options.path;
  const property = fc.asyncProperty(fc.array(opArbitrary, { maxLength: options.maxSteps ?? 30, size: 'max' }), async (ops) => {
    const repos = await createRepositories();
    try {
      await runOps(repos, ops);
    } finally {
      await options.dispose?.(repos);
    }
  });
  try {
    await fc.assert(property, parameters);
  } catch (error) {
    // fast-check keeps the failed check in `cause`; put it in the message so every runner shows it.
    const cause = error instanceof Error ? error.cause : undefined;
    if (error instanceof Error && cause instanceof Error && !error.message.includes(cause.message)) {
      throw new Error(`${error.message}\n\nFailed check: ${cause.message}`, { cause });
    }
    throw error;
  }
}
