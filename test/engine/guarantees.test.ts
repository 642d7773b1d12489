/**
 * Guarantees 1–7 of docs/guarantees.md (#pure-functions … #shadow-instances) as fast-check
 * properties, at the level of the pure functions and through the engine on every repository adapter
 * (memory, PGlite, PostgreSQL; `test/adapters.ts`). Set FC_SEED to replay a run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import {
  ACTION_SEVERITY,
  CUSTOM_RULE_ID,
  DEFAULT_TRANSITIONS,
  KYC_STATUSES,
  RULE_ACTIONS,
  SERIES_NAMES,
  aggregateNeedKey,
  applyTransactionEvent,
  buildRuleInstance,
  collectAggregateNeeds,
  compileLogic,
  compileRuleFilters,
  contributionsOf,
  createFixedRateProvider,
  createRuleRegistry,
  evaluateRuleInstances,
  foldTransactionEvents,
  initialTransaction,
  isTxmonError,
  type AggregateValue,
  type Engine,
  type EngineOptions,
  type EvaluationInput,
  type InstanceFilter,
  type PreparedInstance,
  type RiskLevel,
  type RuleAction,
  type RuleFilters,
  type RuleInstance,
  type RuleUser,
  type SequencedEvent,
  type Transaction,
  type TransactionEvent,
  type TransactionState,
} from '../../src/internals.js';
import { ADAPTER_TARGETS, scaledRuns, type AdapterDatabase } from '../adapters.js';
import { DAY, HOUR, T0, testEngine } from '../helpers.js';

/* ------------------------------------------------------------------------------------------------
 * Shared arbitraries and helpers
 * ---------------------------------------------------------------------------------------------- */

const USERS = ['u1', 'u2', 'u3', 'u4'] as const;
const COUNTRIES = ['DE', 'FR', 'IR', 'KP'] as const;
const HALF_HOUR = HOUR / 2;
/** 22:00 UTC: a run of a few hours crosses midnight, so calendar-day windows have edges to hit. */
const BASE = Date.UTC(2025, 0, 15, 22, 0, 0);
/** Event timestamps live far after every transaction timestamp and only grow (in-order events). */
const EVENT_BASE = BASE + 10 * DAY;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** What a call produced: its value, or the error code it threw. */
function outcome(fn: () => unknown): { ok: true; value: unknown } | { ok: false; code: string } {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (!isTxmonError(e)) throw e;
    return { ok: false, code: e.code };
  }
}

/** The transaction part of a getTransaction answer (without the latest monitoring result). */
function transactionPart(t: Record<string, unknown>): Record<string, unknown> {
  const { executedRules: _e, hitRules: _h, status: _s, riskScoreDetails: _r, alerts: _a, ...rest } = t;
  return rest;
}

const keyArb = fc.constantFrom('a', 'b', 'c', 'note', 'x1');
const leafArb = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean());
const smallObjectArb = fc.dictionary(keyArb, fc.oneof(leafArb, fc.dictionary(keyArb, leafArb, { maxKeys: 3 })), { maxKeys: 4 });
const patchObjectArb = fc.dictionary(
  keyArb,
  fc.oneof(leafArb, fc.constant(null), fc.dictionary(keyArb, fc.oneof(leafArb, fc.constant(null)), { maxKeys: 3 })),
  {
    maxKeys: 4,
  },
);
const tagsArb = fc.array(fc.record({ key: fc.constantFrom('k1', 'k2'), value: fc.string({ maxLength: 4 }) }), { maxLength: 3 });
const centsArb = fc.integer({ min: 0, max: 500_000 });
const amountDetailsArb = fc.record(
  { transactionAmount: centsArb.map((c) => c / 100), transactionCurrency: fc.constantFrom('USD', 'EUR', 'GBP'), country: fc.constantFrom(...COUNTRIES) },
  { requiredKeys: ['transactionAmount', 'transactionCurrency'] },
);

/** A rich transaction for the pure functions. */
const pureTransactionArb: fc.Arbitrary<Transaction> = fc
  .record(
    {
      type: fc.constantFrom('TRANSFER', 'DEPOSIT'),
      transactionId: fc.constant('tx-p'),
      timestamp: fc.integer({ min: T0 - DAY, max: T0 + DAY }),
      originUserId: fc.constantFrom(...USERS),
      destinationUserId: fc.constantFrom(...USERS),
      transactionState: fc.constantFrom<TransactionState>('CREATED', 'PROCESSING', 'SENT', 'SUSPENDED'),
      originAmountDetails: amountDetailsArb,
      destinationAmountDetails: amountDetailsArb,
      reference: fc.string({ maxLength: 10 }),
      tags: tagsArb,
      metadata: smallObjectArb,
    },
    { requiredKeys: ['type', 'transactionId', 'timestamp'] },
  )
  .map((t) => t as Transaction);

/** Any JSON Merge Patch the pure fold must handle: nulls, partial nested objects, unknown fields. */
const purePatchArb = fc.record(
  {
    reference: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
    tags: tagsArb,
    metadata: fc.option(patchObjectArb, { nil: null }),
    originAmountDetails: fc.record(
      { transactionAmount: centsArb.map((c) => c / 100), country: fc.option(fc.constantFrom(...COUNTRIES), { nil: null }) },
      { requiredKeys: [] },
    ),
    customX: fc.option(leafArb, { nil: null }),
  },
  { requiredKeys: [] },
);

/**
 * A merge patch as a client sends it: full or partial amount objects (a partial destination object
 * onto a transaction without one leaves it invalid and is rejected), nulls that remove members.
 */
const enginePatchArb = fc.record(
  {
    reference: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
    tags: tagsArb,
    metadata: fc.option(patchObjectArb, { nil: null }),
    originAmountDetails: fc.oneof(
      fc.record({ transactionAmount: centsArb.map((c) => c / 100), transactionCurrency: fc.constant('EUR'), country: fc.constantFrom(...COUNTRIES) }),
      fc.record({ transactionAmount: centsArb.map((c) => c / 100), country: fc.option(fc.constantFrom(...COUNTRIES), { nil: null }) }, { requiredKeys: [] }),
    ),
    destinationAmountDetails: fc.option(
      fc.record(
        { transactionAmount: centsArb.map((c) => c / 100), transactionCurrency: fc.constant('USD'), country: fc.constantFrom(...COUNTRIES) },
        { requiredKeys: ['transactionAmount'] },
      ),
      { nil: null },
    ),
    customX: fc.option(leafArb, { nil: null }),
  },
  { requiredKeys: [] },
);

/** A walk through the default lifecycle from CREATED: each step stays or takes an allowed move. */
function walkStates(choices: readonly number[]): TransactionState[] {
  let state: TransactionState = 'CREATED';
  const out: TransactionState[] = [];
  for (const c of choices) {
    const options: TransactionState[] = [state, ...DEFAULT_TRANSITIONS[state]];
    state = options[c % options.length] as TransactionState;
    out.push(state);
  }
  return out;
}

/** A valid in-order event sequence: states along the lifecycle, strictly increasing distinct timestamps, random patches. */
function eventSequenceArb<P>(patchArb: fc.Arbitrary<P>, maxLength: number) {
  return fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 1000 }), fc.option(patchArb, { nil: undefined })), { minLength: 1, maxLength }).map((steps) => {
    const states = walkStates(steps.map((s) => s[0]));
    let at = T0;
    return steps.map(([, gap, patch], i) => {
      at += gap;
      const e: Record<string, unknown> = { transactionId: 'tx-p', timestamp: at, transactionState: states[i], eventId: `ev-${i}` };
      if (patch !== undefined) e.updatedTransactionAttributes = patch;
      return e as unknown as TransactionEvent;
    });
  });
}

/** The same array in a random order (a permutation drawn from random sort keys). */
function permutationArb<T>(items: readonly T[]): fc.Arbitrary<T[]> {
  return fc.array(fc.nat(), { minLength: items.length, maxLength: items.length }).map((keys) =>
    items
      .map((item, i) => ({ item, k: keys[i] as number, i }))
      .sort((a, b) => a.k - b.k || a.i - b.i)
      .map((x) => x.item),
  );
}

/* ---- rule instance configurations ---- */

const windowArb = fc.oneof(
  fc.record({ kind: fc.constant('hour' as const), units: fc.integer({ min: 1, max: 2 }) }),
  fc.constant({ kind: 'calday' as const, units: 1 }),
);
type WindowSpec = { kind: 'hour' | 'calday'; units: number };
function timeWindowOf(w: WindowSpec): Record<string, unknown> {
  return w.kind === 'hour' ? { units: w.units, granularity: 'hour' } : { units: 1, granularity: 'day' };
}
/** Independent oracle of the window start (closed window [start, end]). */
function windowStartOf(w: WindowSpec, end: number): number {
  return w.kind === 'hour' ? end - w.units * HOUR : Math.floor(end / DAY) * DAY;
}

const checkSenderArb = fc.constantFrom('sending', 'all', 'none');
const checkReceiverArb = fc.constantFrom('receiving', 'all', 'none');

const r30Arb = fc.record({ limit: fc.integer({ min: 0, max: 3 }), window: windowArb, checkSender: checkSenderArb, checkReceiver: checkReceiverArb });
const r69Arb = fc.record({
  thresholdCents: fc.integer({ min: 0, max: 600_000 }),
  upperCents: fc.option(fc.integer({ min: 0, max: 1_200_000 }), { nil: undefined }),
  window: windowArb,
  checkSender: checkSenderArb,
  checkReceiver: checkReceiverArb,
});
type R30Spec = { limit: number; window: WindowSpec; checkSender: string; checkReceiver: string };
type R69Spec = { thresholdCents: number; upperCents: number | undefined; window: WindowSpec; checkSender: string; checkReceiver: string };

function r30Request(s: R30Spec) {
  return {
    ruleId: 'R-30',
    parameters: { transactionsLimit: s.limit, timeWindow: timeWindowOf(s.window), checkSender: s.checkSender, checkReceiver: s.checkReceiver },
  };
}
function r69Request(s: R69Spec) {
  return {
    ruleId: 'R-69',
    parameters: {
      transactionVolumeThreshold: { USD: s.thresholdCents / 100 },
      ...(s.upperCents !== undefined ? { transactionVolumeUpperThreshold: { USD: s.upperCents / 100 } } : {}),
      timeWindow: timeWindowOf(s.window),
      checkSender: s.checkSender,
      checkReceiver: s.checkReceiver,
    },
  };
}

const triggersArb = fc.oneof(
  fc.record({
    usersToCheck: fc.constantFrom('ALL', 'ORIGIN', 'DESTINATION'),
    userStateDetails: fc.record({ state: fc.constantFrom('BLOCKED', 'SUSPENDED'), reason: fc.constant('rule hit') }),
  }),
  fc.record({
    usersToCheck: fc.constantFrom('ALL', 'ORIGIN', 'DESTINATION'),
    kycStatusDetails: fc.record({ status: fc.constantFrom(...KYC_STATUSES), reason: fc.constant('rule hit') }),
  }),
);

/** Any rule-instance request of the shipped rules or a custom rule, with random action/mode/status/alerts/triggers. */
const ruleConfigArb = fc
  .tuple(
    fc.oneof(
      fc.record({ ruleId: fc.constant('R-1') }),
      fc.record({ ruleId: fc.constant('R-2'), parameters: fc.record({ transactionAmountThreshold: fc.record({ USD: fc.integer({ min: 0, max: 5000 }) }) }) }),
      fc.record({ ruleId: fc.constant('R-14'), parameters: fc.record({ highRiskCountries: fc.subarray([...COUNTRIES], { minLength: 1 }) }) }),
      r30Arb.map(r30Request),
      r69Arb.map(r69Request),
      fc.integer({ min: 0, max: 5000 }).map((n) => ({ logic: { '>=': [{ var: 'transaction.originAmountDetails.transactionAmount' }, n] } })),
    ),
    fc.record(
      {
        action: fc.constantFrom(...RULE_ACTIONS),
        mode: fc.constantFrom('LIVE', 'SHADOW'),
        status: fc.constantFrom('ACTIVE', 'ACTIVE', 'INACTIVE'),
        alertCreationOnHit: fc.boolean(),
        triggersOnHit: triggersArb,
      },
      { requiredKeys: ['action', 'mode', 'status', 'alertCreationOnHit'] },
    ),
  )
  .map(([rule, extra]) => ({ ...rule, ...extra }) as Record<string, unknown>);

/* ---- engine streams: creates and in-order events, arriving in a random order ---- */

interface TxSpec {
  origin: string | undefined;
  destination: string | undefined;
  at: number;
  cents: number;
  currency: 'USD' | 'EUR';
  originCountry: string;
  destinationCountry: string;
}
interface UpdateSpec {
  target: number;
  cents: number | undefined;
  stateChoice: number;
  key: number;
  /** Event timestamp offset when events may arrive late. */
  at: number;
}

/** Offsets from BASE, often on half-hour marks and ±1 ms, so window edges are exercised. */
const offsetArb = fc.oneof(
  fc.integer({ min: 0, max: 4 * HOUR }),
  fc.tuple(fc.integer({ min: 0, max: 8 }), fc.constantFrom(-1, 0, 0, 1)).map(([k, d]) => Math.max(0, k * HALF_HOUR + d)),
);

function txSpecArb(currencies: readonly ('USD' | 'EUR')[]): fc.Arbitrary<TxSpec> {
  return fc
    .record({
      origin: fc.option(fc.constantFrom(...USERS), { nil: undefined, freq: 6 }),
      destination: fc.option(fc.constantFrom(...USERS), { nil: undefined, freq: 6 }),
      at: offsetArb,
      cents: centsArb,
      currency: fc.constantFrom(...currencies),
      originCountry: fc.constantFrom(...COUNTRIES),
      destinationCountry: fc.constantFrom(...COUNTRIES),
    })
    .map((t) => (t.origin !== undefined && t.origin === t.destination ? { ...t, destination: undefined } : t));
}

/**
 * Transactions and updates in a random arrival order. With `late`, event timestamps are random
 * (events arrive out of order, some break the lifecycle once ordered and must be rejected);
 * otherwise they grow with the arrival and every request is accepted.
 */
function scenarioArb(currencies: readonly ('USD' | 'EUR')[], late: boolean, maxTxs = 10, maxUpdates = 8) {
  return fc
    .record({
      txs: fc.array(txSpecArb(currencies), { minLength: 1, maxLength: maxTxs }),
      createKeys: fc.array(fc.nat({ max: 1000 }), { minLength: maxTxs, maxLength: maxTxs }),
      updates: fc.array(
        fc.record({
          target: fc.nat(),
          cents: fc.option(centsArb, { nil: undefined }),
          stateChoice: fc.nat(),
          key: fc.nat({ max: 1000 }),
          at: fc.integer({ min: 0, max: 40 }),
        }),
        { maxLength: maxUpdates },
      ),
    })
    .map((s) => ({ ...s, ops: planOps(s.txs, s.createKeys, s.updates, late) }));
}

type Op = { kind: 'create' | 'event'; index: number; body: Record<string, unknown> };

function amounts(cents: number, currency: string, originCountry: string, destinationCountry: string) {
  return {
    originAmountDetails: { transactionAmount: cents / 100, transactionCurrency: currency, country: originCountry },
    destinationAmountDetails: { transactionAmount: cents / 100, transactionCurrency: currency, country: destinationCountry },
  };
}

function txBody(i: number, t: TxSpec): Record<string, unknown> {
  return {
    type: 'TRANSFER',
    transactionId: `tx-${i}`,
    timestamp: BASE + t.at,
    ...(t.origin !== undefined ? { originUserId: t.origin } : {}),
    ...(t.destination !== undefined ? { destinationUserId: t.destination } : {}),
    ...amounts(t.cents, t.currency, t.originCountry, t.destinationCountry),
  };
}

/**
 * Orders creates and updates by their random keys (an update of a transaction not created yet is
 * dropped) and builds request bodies. States are chosen along the lifecycle in arrival order; with
 * in-order timestamps (`late` false) a sequential run therefore accepts every request.
 */
function planOps(txs: readonly TxSpec[], createKeys: readonly number[], updates: readonly UpdateSpec[], late: boolean): Op[] {
  const items = [
    ...txs.map((_, i) => ({ key: createKeys[i] ?? 0, order: i, create: i, update: null as UpdateSpec | null })),
    ...updates.map((u, j) => ({ key: u.key, order: txs.length + j, create: -1, update: u })),
  ].sort((a, b) => a.key - b.key || a.order - b.order);
  const created = new Set<number>();
  const states = new Map<number, TransactionState>();
  const ops: Op[] = [];
  let n = 0;
  for (const item of items) {
    if (item.update === null) {
      created.add(item.create);
      states.set(item.create, 'CREATED');
      ops.push({ kind: 'create', index: item.create, body: txBody(item.create, txs[item.create] as TxSpec) });
      continue;
    }
    const target = item.update.target % txs.length;
    if (!created.has(target)) continue;
    const spec = txs[target] as TxSpec;
    const current = states.get(target) as TransactionState;
    const options: TransactionState[] = [current, ...DEFAULT_TRANSITIONS[current]];
    const next = options[item.update.stateChoice % options.length] as TransactionState;
    states.set(target, next);
    const body: Record<string, unknown> = {
      transactionId: `tx-${target}`,
      eventId: `ev-${n}`,
      timestamp: EVENT_BASE + (late ? item.update.at : n),
      transactionState: next,
    };
    if (item.update.cents !== undefined) {
      body.updatedTransactionAttributes = amounts(item.update.cents, spec.currency, spec.originCountry, spec.destinationCountry);
    }
    n += 1;
    ops.push({ kind: 'event', index: target, body });
  }
  return ops;
}

type Response = {
  executedRules: { ruleInstanceId: string; ruleHit: boolean; isShadow?: boolean; ruleAction: RuleAction; ruleHitMeta?: { hitDirections?: string[] } }[];
  hitRules: { ruleInstanceId: string; isShadow?: boolean; ruleAction: RuleAction; ruleHitMeta?: { hitDirections?: string[] } }[];
  status: RuleAction;
};

async function send(engine: Engine, op: Op): Promise<Response> {
  return (op.kind === 'create' ? engine.createTransaction(op.body as never) : engine.createTransactionEvent(op.body as never)) as unknown as Promise<Response>;
}

/** Sends and returns the response, or the code of the TxmonError (any other error fails the test). */
async function trySend(engine: Engine, op: Op): Promise<{ ok: true; value: Response } | { ok: false; code: string }> {
  try {
    return { ok: true, value: await send(engine, op) };
  } catch (e) {
    if (!isTxmonError(e)) throw e;
    return { ok: false, code: e.code };
  }
}

/* ------------------------------------------------------------------------------------------------
 * Pure-function fixtures
 * ---------------------------------------------------------------------------------------------- */

const registry = createRuleRegistry();
const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };

function prepare(request: Record<string, unknown>, id: string): PreparedInstance {
  const stored = buildRuleInstance(request, null, { registry, now: T0, id });
  const instance = deepFreeze({ ...stored.instance, runCount: 0, hitCount: 0 } as RuleInstance);
  const custom = instance.ruleId === CUSTOM_RULE_ID;
  const compiled = compileRuleFilters(instance.filters as RuleFilters);
  return {
    instance,
    rule: custom ? null : (registry.get(instance.ruleId) ?? null),
    logic: custom ? compileLogic(instance.logic, { basePath: '/logic', aggregationVariableKeys: [] }) : null,
    filter: compiled.active ? (compiled as unknown as InstanceFilter) : null,
  };
}

const ruleUserArb = (userId: string): fc.Arbitrary<RuleUser | null> =>
  fc.option(
    fc.record({
      userId: fc.constant(userId),
      type: fc.constantFrom('CONSUMER' as const, null),
      profile: fc.constant({ userId }),
      riskLevel: fc.constantFrom<RiskLevel | null>('LOW', 'HIGH', 'VERY_HIGH', null),
      craScore: fc.constant(null),
    }),
  );

/* ------------------------------------------------------------------------------------------------
 * The properties
 * ---------------------------------------------------------------------------------------------- */

/** Whether a stored transaction belongs to a user's key of a built-in series. */
function inSeries(series: string, t: { originUserId?: string; destinationUserId?: string }, user: string): boolean {
  if (series === 'user-sending') return t.originUserId === user;
  if (series === 'user-receiving') return t.destinationUserId === user;
  // user-pair keys are (sender, receiver) pairs; payment and ip keys are identifiers: never a plain user id.
  if (series === 'user-pair' || series.startsWith('payment-') || series === 'ip') return false;
  return t.originUserId === user || t.destinationUserId === user;
}

describe('properties', () => {
  /* ---- Guarantee 1: purity and determinism ---- */

  test.prop([pureTransactionArb, eventSequenceArb(purePatchArb, 4)], { numRuns: 150 })(
    'G1: applyTransactionEvent and foldTransactionEvents never mutate their inputs and are deterministic',
    (transaction, events) => {
      const before = structuredClone({ transaction, events });
      deepFreeze(transaction);
      deepFreeze(events);
      const event = events[0] as TransactionEvent;
      const a = outcome(() => applyTransactionEvent(transaction, event));
      const b = outcome(() => applyTransactionEvent(transaction, event));
      expect(a).toEqual(b);
      const sequenced = events.map((e, i) => deepFreeze({ event: e, arrival: i }));
      const f1 = outcome(() => foldTransactionEvents(transaction, sequenced));
      const f2 = outcome(() => foldTransactionEvents(transaction, sequenced));
      expect(f1).toEqual(f2);
      expect({ transaction, events }).toEqual(before);
    },
  );

  test.prop(
    [
      pureTransactionArb,
      fc.array(ruleConfigArb, { maxLength: 5 }),
      ruleUserArb('u1'),
      ruleUserArb('u2'),
      fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 8, maxLength: 8 }),
    ],
    { numRuns: 100 },
  )(
    'G1: collectAggregateNeeds, evaluateRuleInstances and contributionsOf never mutate their inputs and are deterministic',
    (transaction, configs, originUser, destinationUser, counts) => {
      const instances = configs.map((c, i) => prepare(c, `ri-${i}`));
      const input: EvaluationInput = deepFreeze({
        transaction: deepFreeze(transaction),
        instances,
        originUser: deepFreeze(originUser),
        destinationUser: deepFreeze(destinationUser),
        money,
        defaultRiskLevel: 'VERY_HIGH' as RiskLevel,
      });
      const inputCopy = structuredClone({ transaction, originUser, destinationUser, instances: instances.map((p) => p.instance) });

      const needs = collectAggregateNeeds(input);
      expect(collectAggregateNeeds(input)).toEqual(needs);
      const snapshot = new Map<string, AggregateValue>(
        needs.map((n, i) => [aggregateNeedKey(n), n.fn === 'sum' ? BigInt(counts[i % counts.length] ?? 0) * 100_000_000n : (counts[i % counts.length] ?? 0)]),
      );
      const snapshotCopy = new Map(snapshot);
      const r1 = evaluateRuleInstances(input, snapshot);
      const r2 = evaluateRuleInstances(input, snapshot);
      expect(r2).toEqual(r1);
      expect(snapshot).toEqual(snapshotCopy);

      const series = deepFreeze(new Set(SERIES_NAMES));
      const c1 = contributionsOf(transaction, series, money);
      expect(contributionsOf(transaction, series, money)).toEqual(c1);

      expect({ transaction, originUser, destinationUser, instances: instances.map((p) => p.instance) }).toEqual(inputCopy);
    },
  );

  /* ---- Guarantee 2: arrival order does not change the final transaction ---- */

  test.prop([pureTransactionArb, eventSequenceArb(purePatchArb, 6).chain((events) => fc.tuple(fc.constant(events), permutationArb(events)))], {
    numRuns: 200,
  })('G2 (pure): folding any arrival order of events with distinct timestamps gives the in-order result', (created, [inOrder, arrived]) => {
    const base = initialTransaction({ ...created, transactionState: undefined } as unknown as Transaction);
    delete (base as { transactionState?: unknown }).transactionState;
    const start = initialTransaction(base);
    const expected = outcome(() =>
      foldTransactionEvents(
        start,
        inOrder.map((event, i) => ({ event, arrival: i })),
      ),
    );
    const actual = outcome(() =>
      foldTransactionEvents(
        start,
        arrived.map((event, i) => ({ event, arrival: i })),
      ),
    );
    expect(actual).toEqual(expected);
  });
});

/**
 * The engine-level guarantees hold on every repository adapter: each property runs on memory,
 * PGlite and PostgreSQL (a database per target, emptied before every engine is built).
 */
for (const target of ADAPTER_TARGETS) {
  describe(`properties on the ${target.name} repositories`, () => {
    let db: AdapterDatabase;
    /** A second store, for properties that run two engines side by side (G7). */
    let other: AdapterDatabase;
    // Starting PGlite (a WebAssembly PostgreSQL) and migrating takes seconds on a busy machine.
    beforeAll(async () => {
      [db, other] = await Promise.all([target.open(), target.open()]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([db?.close(), other?.close()]);
    }, 60_000);
    /** A test engine (fixed clock, sequential ids) on fresh repositories of this target. */
    const engineOn = async (options: EngineOptions = {}, store: () => AdapterDatabase = () => db) =>
      testEngine({ repositories: await store().fresh(), ...options });
    const runs = (numRuns: number) => scaledRuns(numRuns, target);

    test.prop([eventSequenceArb(enginePatchArb, 5).chain((events) => fc.tuple(fc.constant(events), permutationArb(events)))], { numRuns: runs(60) })(
      'G2 (engine): in any arrival order each event is accepted exactly when the timestamp-ordered fold allows it, and the same accepted events give the same final transaction',
      async ([inOrder, arrived]) => {
        const created = {
          type: 'TRANSFER',
          transactionId: 'tx-p',
          timestamp: T0,
          originUserId: 'u1',
          destinationUserId: 'u2',
          originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'DE' },
          reference: 'r0',
        };
        const start = initialTransaction(structuredClone(created) as Transaction);
        const runs: { accepted: SequencedEvent[]; final: Record<string, unknown> }[] = [];
        for (const order of [inOrder, arrived]) {
          const { engine } = await engineOn();
          await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: ['IR'] } });
          await engine.createTransaction(created);
          const accepted: SequencedEvent[] = [];
          for (const e of order) {
            const before = transactionPart((await engine.getTransaction('tx-p')) as unknown as Record<string, unknown>);
            const candidate = [...accepted, { event: e, arrival: accepted.length }];
            const expected = outcome(() => foldTransactionEvents(start, candidate));
            const res = await trySend(engine, { kind: 'event', index: 0, body: e as unknown as Record<string, unknown> });
            if (!expected.ok) {
              // Rejected exactly as the ordered fold rejects it, and nothing changes.
              expect(res).toEqual({ ok: false, code: expected.code });
              expect(transactionPart((await engine.getTransaction('tx-p')) as unknown as Record<string, unknown>)).toEqual(before);
              continue;
            }
            expect(res.ok).toBe(true);
            accepted.push(candidate[candidate.length - 1] as SequencedEvent);
            // The response carries the fold of every accepted event so far, in timestamp order.
            expect((res as unknown as { value: { transaction: unknown } }).value.transaction).toEqual(expected.value);
          }
          const final = transactionPart((await engine.getTransaction('tx-p')) as unknown as Record<string, unknown>);
          expect(final).toEqual(foldTransactionEvents(start, accepted));
          runs.push({ accepted, final });
        }
        const [first, second] = runs as [(typeof runs)[number], (typeof runs)[number]];
        const ids = (r: (typeof runs)[number]) => r.accepted.map((x) => x.event.eventId).sort();
        if (JSON.stringify(ids(first)) === JSON.stringify(ids(second))) expect(second.final).toEqual(first.final);
      },
    );

    /* ---- Guarantee 3: hitRules ⊆ executedRules; status = max severity over live hits ---- */

    test.prop([fc.array(ruleConfigArb, { minLength: 1, maxLength: 6 }), scenarioArb(['USD', 'EUR'], true)], { numRuns: runs(40) })(
      'G3: hitRules ⊆ executedRules (by ruleInstanceId), they agree, and status is the most severe live hit action',
      async (configs, scenario) => {
        const { engine } = await engineOn();
        const instances = [];
        for (const c of configs) instances.push(await engine.createRuleInstance(c));
        const active = new Set(instances.filter((i) => i.status === 'ACTIVE').map((i) => i.id));
        for (const op of scenario.ops) {
          const res = await trySend(engine, op);
          if (!res.ok) {
            expect(res.code).toBe('INVALID_STATE_TRANSITION');
            continue;
          }
          const r = res.value;
          const executed = new Map(r.executedRules.map((e) => [e.ruleInstanceId, e]));
          expect(executed.size).toBe(r.executedRules.length);
          for (const id of executed.keys()) expect(active.has(id)).toBe(true);
          for (const h of r.hitRules) {
            const e = executed.get(h.ruleInstanceId);
            expect(e).toBeDefined();
            expect(e?.ruleHit).toBe(true);
            expect([e?.ruleAction, e?.isShadow, e?.ruleHitMeta?.hitDirections]).toEqual([h.ruleAction, h.isShadow, h.ruleHitMeta?.hitDirections]);
            expect(h.ruleHitMeta?.hitDirections?.length).toBeGreaterThan(0);
          }
          expect(r.executedRules.filter((e) => e.ruleHit).map((e) => e.ruleInstanceId)).toEqual(r.hitRules.map((h) => h.ruleInstanceId));
          const live = r.hitRules.filter((h) => !h.isShadow).map((h) => ACTION_SEVERITY[h.ruleAction]);
          expect(ACTION_SEVERITY[r.status]).toBe(Math.max(0, ...live));
        }
      },
    );

    /* ---- Guarantee 4: run/hit counters equal the evaluations and hits in the responses, under concurrency too ---- */

    test.prop(
      [
        fc.array(ruleConfigArb, { minLength: 1, maxLength: 5 }),
        scenarioArb(['USD', 'EUR'], false),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(
          fc.record({
            target: fc.nat(),
            state: fc.constantFrom<TransactionState>('PROCESSING', 'SENT', 'SUCCESSFUL', 'DECLINED', 'REFUNDED'),
            at: fc.integer({ min: -5, max: 5 }),
          }),
          {
            maxLength: 8,
          },
        ),
      ],
      { numRuns: runs(40) },
    )('G4: runCount and hitCount equal the evaluations and hits observed, with requests fired concurrently', async (configs, scenario, duplicates, racing) => {
      const { engine } = await engineOn({ maintainSeries: 'all' });
      const ids: string[] = [];
      for (const c of configs) ids.push((await engine.createRuleInstance(c)).id);
      const creates = scenario.ops.filter((o) => o.kind === 'create');
      // Creates, with some exact duplicates (idempotent replays), all at once.
      const createBatch = [...creates, ...duplicates.map((d) => creates[d % creates.length] as Op)];
      const createResults = await Promise.allSettled(createBatch.map((op) => send(engine, op)));
      // Events on random transactions, some conflicting with each other, some late, some duplicated by eventId, all at once.
      const events = racing.map((r, i) => ({
        kind: 'event' as const,
        index: r.target % creates.length,
        body: {
          transactionId: `tx-${(creates[r.target % creates.length] as Op).index}`,
          eventId: `race-${i}`,
          timestamp: EVENT_BASE + r.at,
          transactionState: r.state,
        },
      }));
      const eventBatch = [...events, ...events.slice(0, 2)];
      const eventResults = await Promise.allSettled(eventBatch.map((op) => send(engine, op)));

      const seen = new Map<string, Response>();
      const tally = new Map<string, { runs: number; hits: number }>(ids.map((id) => [id, { runs: 0, hits: 0 }]));
      const all = [
        ...createResults.map((r, i) => ({ r, key: `c:${(createBatch[i] as Op).body.transactionId}` })),
        ...eventResults.map((r, i) => ({ r, key: `e:${(eventBatch[i] as Op).body.eventId}` })),
      ];
      for (const { r, key } of all) {
        if (r.status === 'rejected') {
          // The only legitimate failure here is a lifecycle conflict between racing events.
          expect(isTxmonError(r.reason) && r.reason.code).toBe('INVALID_STATE_TRANSITION');
          continue;
        }
        const earlier = seen.get(key);
        if (earlier) {
          expect(r.value).toEqual(earlier);
          continue;
        }
        seen.set(key, r.value);
        for (const e of r.value.executedRules) {
          const t = tally.get(e.ruleInstanceId) as { runs: number; hits: number };
          t.runs += 1;
          if (e.ruleHit) t.hits += 1;
        }
      }
      for (const id of ids) {
        const inst = await engine.getRuleInstance(id);
        expect({ id, runs: inst.runCount, hits: inst.hitCount }).toEqual({ id, ...tally.get(id) });
      }
      // After the concurrent writes, every stored transaction is in the aggregates exactly once per side.
      const stored = await Promise.all(creates.map((o) => engine.getTransaction(o.body.transactionId as string)));
      for (const user of USERS) {
        for (const series of SERIES_NAMES) {
          const entries = await engine.repositories.aggregates.listEntries(series, user);
          const expected = stored.filter((t) => inSeries(series, t, user)).map((t) => t.transactionId);
          expect(entries.map((e) => e.id).sort()).toEqual(expected.sort());
        }
      }
    });

    /* ---- Guarantee 5: windowed aggregates equal a brute-force recomputation ---- */

    test.prop(
      [
        scenarioArb(['USD'], true, 10, 8),
        fc.array(r30Arb, { minLength: 1, maxLength: 2 }),
        fc.array(r69Arb, { minLength: 1, maxLength: 2 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(-1, 0, 1)), { minLength: 1, maxLength: 6 }),
      ],
      { numRuns: runs(60) },
    )(
      'G5: R-1/R-30/R-69 decisions and stored aggregates equal a brute-force recomputation, for any arrival order and updates',
      async (scenario, r30s, r69s, windows) => {
        const { engine } = await engineOn({ maintainSeries: 'all' });
        const r1Id = (await engine.createRuleInstance({ ruleId: 'R-1' })).id;
        const r30Ids: { id: string; spec: R30Spec }[] = [];
        const r69Ids: { id: string; spec: R69Spec }[] = [];
        for (const s of r30s) r30Ids.push({ id: (await engine.createRuleInstance(r30Request(s))).id, spec: s });
        for (const s of r69s) r69Ids.push({ id: (await engine.createRuleInstance(r69Request(s))).id, spec: s });

        // The model: each transaction's parties, timestamp, current amount (in cents, USD), and the
        // events accepted so far (whose fold, by the separately tested pure function, decides acceptance).
        type ModelTx = {
          origin: string | undefined;
          destination: string | undefined;
          at: number;
          cents: number;
          initial: Transaction;
          accepted: SequencedEvent[];
        };
        const model = new Map<string, ModelTx>();
        const sideEntries = (user: string, series: 'user-sending' | 'user-receiving', start: number, end: number) =>
          [...model.values()].filter((t) => (series === 'user-sending' ? t.origin : t.destination) === user && t.at >= start && t.at <= end);
        const sideList = (user: string, own: 'user-sending' | 'user-receiving', all: boolean, start: number, end: number) => {
          const other = own === 'user-sending' ? 'user-receiving' : 'user-sending';
          // A self-transfer is one of the user's transactions, counted once (the user-all series).
          return [...new Set([...sideEntries(user, own, start, end), ...(all ? sideEntries(user, other, start, end) : [])])];
        };

        for (const op of scenario.ops) {
          const id = op.body.transactionId as string;
          let r: Response;
          if (op.kind === 'create') {
            const spec = scenario.txs[op.index] as TxSpec;
            const initial = initialTransaction(structuredClone(op.body) as unknown as Transaction);
            model.set(id, { origin: spec.origin, destination: spec.destination, at: BASE + spec.at, cents: spec.cents, initial, accepted: [] });
            r = await send(engine, op);
          } else {
            const m = model.get(id) as ModelTx;
            const candidate = [...m.accepted, { event: structuredClone(op.body) as unknown as TransactionEvent, arrival: m.accepted.length }];
            const folded = outcome(() => foldTransactionEvents(m.initial, candidate));
            const res = await trySend(engine, op);
            if (!folded.ok) {
              // A late event that breaks the lifecycle once ordered: rejected, nothing changes.
              expect(res).toEqual({ ok: false, code: folded.code });
              continue;
            }
            expect(res.ok).toBe(true);
            r = (res as { value: Response }).value;
            m.accepted = candidate;
            m.cents = Math.round(((folded.value as Transaction).originAmountDetails?.transactionAmount ?? 0) * 100);
          }
          const tx = model.get(id) as ModelTx;

          {
            // no other sending transaction of the sender up to and including this timestamp.
            const expected =
              tx.origin !== undefined && ![...model.entries()].some(([other, t]) => other !== id && t.origin === tx.origin && t.at <= tx.at) ? ['ORIGIN'] : [];
            const e = r.executedRules.find((x) => x.ruleInstanceId === r1Id);
            expect({ rule: 'R-1', op: op.body, directions: e?.ruleHitMeta?.hitDirections ?? [] }).toEqual({ rule: 'R-1', op: op.body, directions: expected });
          }

          for (const { id: instanceId, spec } of r30Ids) {
            const start = windowStartOf(spec.window, tx.at);
            const expected: string[] = [];
            if (tx.origin !== undefined && spec.checkSender !== 'none') {
              const n = sideList(tx.origin, 'user-sending', spec.checkSender === 'all', start, tx.at).length;
              if (n > spec.limit && n >= 2) expected.push('ORIGIN');
            }
            if (tx.destination !== undefined && spec.checkReceiver !== 'none') {
              const n = sideList(tx.destination, 'user-receiving', spec.checkReceiver === 'all', start, tx.at).length;
              if (n > spec.limit && n >= 2) expected.push('DESTINATION');
            }
            const e = r.executedRules.find((x) => x.ruleInstanceId === instanceId);
            expect({ rule: 'R-30', op: op.body, directions: e?.ruleHitMeta?.hitDirections ?? [] }).toEqual({ rule: 'R-30', op: op.body, directions: expected });
          }
          for (const { id: instanceId, spec } of r69Ids) {
            const start = windowStartOf(spec.window, tx.at);
            const hits = (total: number) => total >= spec.thresholdCents && (spec.upperCents === undefined || total <= spec.upperCents);
            const expected: string[] = [];
            const sum = (list: { cents: number }[]) => list.reduce((s, t) => s + t.cents, 0);
            if (
              tx.origin !== undefined &&
              spec.checkSender !== 'none' &&
              hits(sum(sideList(tx.origin, 'user-sending', spec.checkSender === 'all', start, tx.at)))
            ) {
              expected.push('ORIGIN');
            }
            if (
              tx.destination !== undefined &&
              spec.checkReceiver !== 'none' &&
              hits(sum(sideList(tx.destination, 'user-receiving', spec.checkReceiver === 'all', start, tx.at)))
            ) {
              expected.push('DESTINATION');
            }
            const e = r.executedRules.find((x) => x.ruleInstanceId === instanceId);
            expect({ rule: 'R-69', op: op.body, directions: e?.ruleHitMeta?.hitDirections ?? [] }).toEqual({ rule: 'R-69', op: op.body, directions: expected });
          }
        }

        // The stored transactions are the model, and the aggregates are a brute-force scan of them.
        const stored = await Promise.all([...model.keys()].map((id) => engine.getTransaction(id)));
        for (const t of stored) {
          const m = model.get(t.transactionId);
          expect([t.originUserId, t.destinationUserId, t.timestamp, Math.round((t.originAmountDetails?.transactionAmount ?? -1) * 100)]).toEqual([
            m?.origin,
            m?.destination,
            m?.at,
            m?.cents,
          ]);
        }
        const stamps = [...model.values()].map((t) => t.at).sort((x, y) => x - y);
        for (const [i, j, d] of windows) {
          const a = (stamps[i % stamps.length] as number) + d;
          const b = (stamps[j % stamps.length] as number) + d;
          const [start, end] = a <= b ? [a, b] : [b, a];
          for (const user of USERS) {
            for (const series of SERIES_NAMES) {
              const inside = stored.filter((t) => inSeries(series, t, user) && t.timestamp >= start && t.timestamp <= end);
              const scaled = inside.map((t) => BigInt(Math.round((t.originAmountDetails?.transactionAmount ?? 0) * 100)) * 1_000_000n);
              const expected = [
                inside.length,
                scaled.reduce((s, x) => s + x, 0n),
                scaled.length === 0 ? null : scaled.reduce((m, x) => (x < m ? x : m)),
                scaled.length === 0 ? null : scaled.reduce((m, x) => (x > m ? x : m)),
              ];
              const q = { series, key: user, start, end };
              const actual = await engine.repositories.aggregates.queryAggregates([
                { ...q, fn: 'count' },
                { ...q, fn: 'sum' },
                { ...q, fn: 'min' },
                { ...q, fn: 'max' },
              ]);
              expect({ user, series, start, end, actual }).toEqual({ user, series, start, end, actual: expected });
            }
          }
        }
        // Every stored transaction has exactly one entry per series it belongs to.
        for (const user of USERS) {
          for (const series of SERIES_NAMES) {
            const entries = await engine.repositories.aggregates.listEntries(series, user);
            const expectedIds = stored.filter((t) => inSeries(series, t, user)).map((t) => t.transactionId);
            expect(entries.map((e) => e.id).sort()).toEqual(expectedIds.sort());
          }
        }
      },
    );

    /* ---- Guarantee 6: replaying an eventId (or transactionId) with the same payload changes nothing ---- */

    test.prop(
      [
        fc.array(ruleConfigArb, { minLength: 1, maxLength: 4 }),
        scenarioArb(['USD', 'EUR'], true),
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 6 }),
      ],
      {
        numRuns: runs(40),
      },
    )(
      'G6: a replay returns the stored response and leaves counters, alerts, cases, transactions and aggregates unchanged',
      async (configs, scenario, replays) => {
        const { engine, clock } = await engineOn();
        for (const c of configs) await engine.createRuleInstance(c);
        const responses: Awaited<ReturnType<typeof trySend>>[] = [];
        for (const op of scenario.ops) responses.push(await trySend(engine, op));
        const txIds = scenario.ops.filter((o) => o.kind === 'create').map((o) => o.body.transactionId as string);
        const state = async () => ({
          instances: await engine.listRuleInstances(),
          alerts: await engine.listAlerts(),
          cases: await engine.listCases(),
          transactions: await Promise.all(txIds.map((id) => engine.getTransaction(id))),
          events: await Promise.all(txIds.map((id) => engine.repositories.transactions.listEvents(id))),
          aggregates: await Promise.all(USERS.flatMap((u) => SERIES_NAMES.map((s) => engine.repositories.aggregates.listEntries(s, u)))),
        });
        const before = await state();
        clock.advance(60_000);
        for (const [k, reorder] of replays) {
          const i = k % scenario.ops.length;
          const op = scenario.ops[i] as Op;
          // Only accepted requests are stored, so only they can be replayed.
          if (!responses[i]?.ok) continue;
          // The same payload, optionally with its keys in another order (canonical JSON makes them equal).
          const body = reorder ? Object.fromEntries(Object.entries(structuredClone(op.body)).reverse()) : structuredClone(op.body);
          expect(await trySend(engine, { ...op, body })).toEqual(responses[i]);
        }
        expect(await state()).toEqual(before);
      },
    );

    /* ---- Guarantee 7: shadow instances never change status, alerts, cases or user state ---- */

    test.prop(
      [
        fc.array(
          ruleConfigArb.map((c) => ({ ...c, mode: 'LIVE' as const, status: 'ACTIVE' as const })),
          { maxLength: 3 },
        ),
        fc.array(
          ruleConfigArb.map((c) => ({ ...c, mode: 'SHADOW' as const, status: 'ACTIVE' as const })),
          { minLength: 1, maxLength: 4 },
        ),
        scenarioArb(['USD', 'EUR'], true),
      ],
      { numRuns: runs(40) },
    )('G7: adding shadow instances never changes status, live results, alerts, cases or users', async (live, shadow, scenario) => {
      const plain = (await engineOn()).engine;
      const withShadow = (await engineOn({}, () => other)).engine;
      for (const e of [plain, withShadow]) {
        for (const u of USERS) await e.createUser({ userId: u, createdTimestamp: BASE - DAY, userStateDetails: { state: 'ACTIVE' } });
        for (const c of live) await e.createRuleInstance(c);
      }
      for (const c of shadow) await withShadow.createRuleInstance(c);
      const liveOnly = (r: Response) => ({
        status: r.status,
        riskScoreDetails: (r as { riskScoreDetails?: unknown }).riskScoreDetails,
        executedRules: r.executedRules.filter((x) => !x.isShadow),
        hitRules: r.hitRules.filter((x) => !x.isShadow),
      });
      for (const op of scenario.ops) {
        const a = await trySend(plain, op);
        const b = await trySend(withShadow, op);
        expect(b.ok ? { ok: true, value: liveOnly(b.value) } : b).toEqual(a.ok ? { ok: true, value: liveOnly(a.value) } : a);
      }
      expect(await withShadow.listAlerts()).toEqual(await plain.listAlerts());
      expect(await withShadow.listCases()).toEqual(await plain.listCases());
      for (const u of USERS) expect(await withShadow.getUser(u)).toEqual(await plain.getUser(u));
      for (const op of scenario.ops.filter((o) => o.kind === 'create')) {
        const id = op.body.transactionId as string;
        const a = (await plain.getTransaction(id)) as unknown as Response & Record<string, unknown>;
        const b = (await withShadow.getTransaction(id)) as unknown as Response & Record<string, unknown>;
        expect({ ...transactionPart(b), ...liveOnly(b) }).toEqual({ ...transactionPart(a), ...liveOnly(a) });
      }
    });

    describe('createTransactionEvent under concurrency', () => {
      it('the same eventId sent concurrently for two transactions is stored once; the other call is a 409 conflict', async () => {
        const { engine } = await engineOn();
        for (const id of ['tx-a', 'tx-b']) {
          await engine.createTransaction({ type: 'TRANSFER', transactionId: id, timestamp: T0, originUserId: 'u1' });
        }
        const results = await Promise.allSettled(
          ['tx-a', 'tx-b'].map((id) => engine.createTransactionEvent({ transactionId: id, eventId: 'shared', timestamp: T0 + 1, transactionState: 'SENT' })),
        );
        const codes = results.map((r) => (r.status === 'fulfilled' ? 'ok' : isTxmonError(r.reason) ? r.reason.code : String(r.reason))).sort();
        expect(codes).toEqual(['EVENT_ID_CONFLICT', 'ok']);
        const states = [(await engine.getTransaction('tx-a')).transactionState, (await engine.getTransaction('tx-b')).transactionState].sort();
        expect(states).toEqual(['CREATED', 'SENT']);
      });

      it('the same new transaction sent concurrently is created once; every caller gets the same response', async () => {
        const { engine } = await engineOn();
        const ri = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 1 } } });
        const body = {
          type: 'TRANSFER',
          transactionId: 'tx-same',
          timestamp: T0,
          originUserId: 'u1',
          originAmountDetails: { transactionAmount: 5, transactionCurrency: 'USD' },
        };
        const results = await Promise.all(Array.from({ length: 5 }, () => engine.createTransaction(structuredClone(body))));
        for (const r of results) expect(r).toEqual(results[0]);
        const inst = await engine.getRuleInstance(ri.id);
        expect([inst.runCount, inst.hitCount]).toEqual([1, 1]);
        expect((await engine.listAlerts()).map((a) => a.entityDetails.transactionIds)).toEqual([['tx-same']]);
      });
    });
  });
}
