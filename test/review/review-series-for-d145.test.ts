/**
 * Review of D-145 (an instance keeps only the series its parameters read, `seriesFor`), D-146 (a
 * converted threshold test decided by a cached bound) — D-147 (bench isolation) is reviewed by
 * reading only.
 *
 * D-145 oracle: three engines get the same calls —
 *   kept       `maintainSeries: 'all'` (every built-in series always kept),
 *   onDemand   the default (only what `seriesReadBy` names),
 *   reference  the same rules registered again under `Z-…` ids WITHOUT `seriesFor` (every
 *              instance reads all three user series, also as derived series under historical
 *              filters), with `maintainSeries: 'all'`; its responses are compared after mapping
 *              `Z-` back to `R-`.
 * Every response of onDemand must deep-equal kept's and reference's.
 *
 * D-146 oracle: `resolveThreshold` on an unfrozen (never cached) map, i.e. convert → round →
 * compare, and an independent exact re-computation from the rate text.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryRepositories, createEngine, type Repositories } from '../../src/index.js';
import { seriesReadBy } from '../../src/engine/instances/prepare-instance.js';
import { currencyExponent } from '../../src/domain/codes.js';
import { RISK_LEVELS } from '../../src/domain/enums.js';
import { toScaled } from '../../src/domain/money.js';
import type { RuleInstance } from '../../src/repositories/types.js';
import { reachesThreshold, resolveThreshold } from '../../src/rules/parameters.js';
import { LIBRARY_RULES } from '../../src/rules/registry.js';
import { deepFreeze } from '../../src/domain/json.js';
import type { AnyRuleDefinition } from '../../src/rules/types.js';
import { TESTING_EPOCH_MS, transactionArbitrary, transactionsArbitrary } from '../arbitraries/index.js';
import { DAY, HOUR, T0, fixedClock, testEngine, tx } from '../helpers.js';

// ---------------------------------------------------------------------------------------------
// D-145 helpers
// ---------------------------------------------------------------------------------------------

const RULE_IDS = ['R-27', 'R-30', 'R-69', 'R-77', 'R-120', 'R-121', 'R-122', 'R-123', 'R-124', 'R-125', 'R-130', 'R-131'] as const;
type RuleId = (typeof RULE_IDS)[number];
const SENDER = ['sending', 'all', 'none'] as const;
const RECEIVER = ['receiving', 'all', 'none'] as const;
type Checks = { checkSender: (typeof SENDER)[number]; checkReceiver: (typeof RECEIVER)[number] };
const ALL_CHECKS: Checks[] = SENDER.flatMap((checkSender) => RECEIVER.map((checkReceiver) => ({ checkSender, checkReceiver })));

const W1 = { units: 1, granularity: 'day', rollingBasis: true };
const W30 = { units: 30, granularity: 'day', rollingBasis: true };

/** Permissive parameters (so that instances hit often) of each rule, without the side checks. */
function baseParameters(ruleId: RuleId, initial: number | undefined, variant: number): Record<string, unknown> {
  const withInitial = (p: Record<string, unknown>) => (initial === undefined ? p : { ...p, initialTransactions: initial });
  switch (ruleId) {
    case 'R-27':
      return { period1: W1, period2: W30, multiplierThreshold: { currency: 'USD', value: 50 }, excludePeriod1: variant % 2 === 0 };
    case 'R-120':
      return { period1: W1, period2: W30, multiplierThreshold: { currency: 'EUR', value: 50 }, transactionsNumberThreshold2: { min: 1 } };
    case 'R-121':
      return { period1: W1, period2: W30, multiplierThreshold: 50, transactionsNumberThreshold2: { min: 1 } };
    case 'R-122':
      return { period1: W1, period2: W30, multiplierThreshold: { currency: 'USD', value: 50 }, transactionsNumberThreshold2: { min: 1 } };
    case 'R-30':
      return { transactionsLimit: 1, timeWindow: W30 };
    case 'R-69':
      return withInitial({ transactionVolumeThreshold: variant % 2 === 0 ? { EUR: 2000 } : { JPY: 300000 }, timeWindow: W30 });
    case 'R-77':
      return withInitial({
        timeWindow: W30,
        transactionsLimit: 0,
        highRiskCountries: ['IR', 'KP', 'RU', 'SY', 'MM'],
        ...(variant % 2 === 1 ? { highRiskCountriesExclusive: true } : {}),
      });
    case 'R-123':
      return { transactionsLimit: 1, timeWindow: W30 };
    case 'R-124':
      return { timeWindow: W30, patternPercentageLimit: 10, initialTransactions: initial ?? 0 };
    case 'R-125':
      return { transactionStates: ['REFUNDED', 'DECLINED', 'SUCCESSFUL'], threshold: 20, minimumTransactions: 1, timeWindow: W30 };
    case 'R-130':
      return withInitial({ timeWindow: W30, transactionsLimit: 0 });
    case 'R-131':
      return withInitial({ multiplierThreshold: variant % 2, timeWindow1: W1, timeWindow2: W30 });
  }
}

const FILTERS: Record<string, Record<string, unknown>> = {
  none: {},
  types: { transactionTypesHistorical: ['TRANSFER', 'DEPOSIT'] },
  states: { transactionStatesHistorical: ['SUCCESSFUL', 'CREATED', 'REFUNDED', 'SENT'] },
  countries: { transactionCountriesHistorical: ['DE', 'IR', 'RU', 'FR'] },
};

interface InstanceSpec {
  ruleId: RuleId;
  checks: Checks;
  initial: number | undefined;
  variant: number;
  /** Per-risk-level checks (the other levels use `checks`); undefined: no riskLevelParameters. */
  perLevel: Partial<Record<(typeof RISK_LEVELS)[number], Checks>> | undefined;
  filter: keyof typeof FILTERS;
}

function requestOf(spec: InstanceSpec): Record<string, unknown> {
  const base = baseParameters(spec.ruleId, spec.initial, spec.variant);
  const request: Record<string, unknown> = { ruleId: spec.ruleId, parameters: { ...base, ...spec.checks } };
  if (spec.perLevel !== undefined) {
    const perLevel: Record<string, unknown> = {};
    for (const level of RISK_LEVELS) perLevel[level] = { ...base, ...(spec.perLevel[level] ?? spec.checks) };
    request.riskLevelParameters = perLevel;
  }
  if (spec.filter !== 'none') request.filters = FILTERS[spec.filter];
  return request;
}

const checksArbitrary: fc.Arbitrary<Checks> = fc.record({ checkSender: fc.constantFrom(...SENDER), checkReceiver: fc.constantFrom(...RECEIVER) });
const specArbitrary: fc.Arbitrary<InstanceSpec> = fc.record({
  ruleId: fc.constantFrom(...RULE_IDS),
  checks: checksArbitrary,
  initial: fc.option(fc.nat(3), { nil: undefined }),
  variant: fc.nat(3),
  perLevel: fc.option(fc.dictionary(fc.constantFrom(...RISK_LEVELS), checksArbitrary, { minKeys: 1, maxKeys: 2 }), { nil: undefined, freq: 2 }),
  filter: fc.constantFrom<keyof typeof FILTERS>('none', 'none', 'types', 'states', 'countries'),
});

/** The twelve rules again, as `Z-…`, without `seriesFor`: the engine keeps all their series. */
const WITHOUT_SERIES_FOR: AnyRuleDefinition[] = RULE_IDS.map((id) => {
  const rule = LIBRARY_RULES.find((r) => r.id === id) as AnyRuleDefinition;
  const copy = { ...rule, id: id.replace('R-', 'Z-') } as AnyRuleDefinition & { seriesFor?: unknown };
  delete copy.seriesFor;
  return copy;
});
const toReference = (request: Record<string, unknown>) => ({ ...request, ruleId: String(request.ruleId).replace('R-', 'Z-') });
const fromReference = (value: unknown) =>
  typeof value === 'string' || value === undefined ? value : JSON.parse(JSON.stringify(value).replaceAll('"Z-', '"R-'));

type Engine = ReturnType<typeof testEngine>['engine'];

/** Three engines (see the header) and a runner that applies one call to all three. */
function trio() {
  const kept = testEngine({ maintainSeries: 'all' }).engine;
  const onDemand = testEngine().engine;
  const reference = testEngine({ maintainSeries: 'all', rules: WITHOUT_SERIES_FOR }).engine;
  const run = async <T>(e: Engine, fn: (e: Engine) => Promise<T>): Promise<T | string> => {
    try {
      return await fn(e);
    } catch (error) {
      return String((error as { code?: string }).code ?? error);
    }
  };
  /** Applies `fn` (given `ref`: whether it is the reference engine) and checks the three answers agree; returns kept's. */
  const all = async <T>(fn: (e: Engine, ref: boolean) => Promise<T>): Promise<T | string> => {
    const a = await run(kept, (e) => fn(e, false));
    const b = await run(onDemand, (e) => fn(e, false));
    const c = fromReference(await run(reference, (e) => fn(e, true)));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    return a;
  };
  return { kept, onDemand, reference, all };
}

const hitsOf = (r: unknown) => (typeof r === 'object' && r !== null && Array.isArray((r as { hitRules?: unknown[] }).hitRules) ? (r as { hitRules: unknown[] }).hitRules.length : 0);

// ---------------------------------------------------------------------------------------------
// D-145: seriesFor against the needs, per stored instance (base and every risk level)
// ---------------------------------------------------------------------------------------------

describe('D-145 seriesReadBy covers every need of every parameter set of a stored instance', () => {
  const money = { rates: { rate: () => '1' }, baseCurrency: 'USD' };
  test.prop([specArbitrary, fc.array(transactionArbitrary({ userIds: ['u-1', 'u-2'] }), { minLength: 1, maxLength: 6 })], { numRuns: 150 })(
    'for random checks, initialTransactions and per-level checks',
    async (spec, transactions) => {
      const { engine } = testEngine();
      const created = (await engine.createRuleInstance(requestOf(spec))) as unknown as RuleInstance;
      const rule = LIBRARY_RULES.find((r) => r.id === spec.ruleId) as AnyRuleDefinition;
      const read = seriesReadBy(rule, created);
      const sets = [created.parameters, ...RISK_LEVELS.map((l) => created.riskLevelParameters?.[l])].filter((p) => p !== undefined);
      for (const parameters of sets) {
        for (const transaction of transactions) {
          for (const need of rule.aggregates?.({ transaction, parameters, money } as never) ?? []) expect(read).toContain(need.series);
        }
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------
// D-145: targeted differential examples
// ---------------------------------------------------------------------------------------------

describe('D-145 targeted scenarios (kept = onDemand = reference)', () => {
  const users = ['u-1', 'u-2', 'u-3'];
  const stream = (n: number, start = T0) =>
    Array.from({ length: n }, (_, i) =>
      tx({
        transactionId: `s-${start}-${i}`,
        timestamp: start + i * 7 * HOUR,
        transactionState: i % 3 === 1 ? 'SUCCESSFUL' : i % 5 === 2 ? 'REFUNDED' : 'CREATED',
        originUserId: users[i % 3],
        destinationUserId: users[(i + 1 + (i % 2)) % 3],
        originAmountDetails: { transactionAmount: i % 3 === 0 ? 1000 : 150 + i, transactionCurrency: 'EUR', country: i % 2 ? 'IR' : 'DE' },
        destinationAmountDetails: { transactionAmount: i % 3 === 0 ? 1000 : 150 + i, transactionCurrency: 'EUR', country: i % 4 ? 'RU' : 'FR' },
        type: i % 3 === 2 ? 'DEPOSIT' : 'TRANSFER',
      }),
    );

  for (const ruleId of RULE_IDS) {
    it(`${ruleId}: only HIGH risk users read with checkSender 'all' / checkReceiver 'all' (users with a riskLevel)`, async () => {
      const { all } = trio();
      await all((e) => e.createUser({ userId: 'u-1', createdTimestamp: T0 - DAY, riskLevel: 'HIGH' }));
      await all((e) => e.createUser({ userId: 'u-2', createdTimestamp: T0 - DAY, riskLevel: 'LOW' }));
      const spec: InstanceSpec = {
        ruleId,
        checks: { checkSender: 'sending', checkReceiver: 'receiving' },
        initial: 1,
        variant: 0,
        perLevel: { HIGH: { checkSender: 'all', checkReceiver: 'all' } },
        filter: 'none',
      };
      await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(spec)) : requestOf(spec)));
      let hits = 0;
      for (const t of stream(14)) hits += hitsOf(await all((e) => e.createTransaction(t)));
      expect(hits).toBeGreaterThan(0);
    });
  }

  for (const filter of ['types', 'states', 'countries'] as const) {
    it(`historical filter ${filter} with checkSender 'all', and changing the checks under it`, async () => {
      const { all } = trio();
      const spec: InstanceSpec = { ruleId: 'R-30', checks: { checkSender: 'all', checkReceiver: 'none' }, initial: undefined, variant: 0, perLevel: undefined, filter };
      const created = (await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(spec)) : requestOf(spec)))) as { id: string };
      let hits = 0;
      const s = stream(16);
      for (const t of s.slice(0, 8)) hits += hitsOf(await all((e) => e.createTransaction(t)));
      await all((e) => e.createTransactionEvent({ transactionId: s[3]!.transactionId as string, timestamp: T0 + 40 * DAY, transactionState: 'DECLINED' }));
      const next = { ...spec, checks: { checkSender: 'none', checkReceiver: 'all' } as Checks };
      await all((e, ref) => e.updateRuleInstance(created.id, ref ? toReference(requestOf(next)) : requestOf(next)));
      for (const t of s.slice(8)) hits += hitsOf(await all((e) => e.createTransaction(t)));
      await all((e) => e.createTransactionEvent({ transactionId: s[9]!.transactionId as string, timestamp: T0 + 41 * DAY, transactionState: 'SUCCESSFUL' }));
      expect(hits).toBeGreaterThan(0);
    });
  }

  it('deleting one of two instances that share a series keeps the series for the other', async () => {
    const { all } = trio();
    const a: InstanceSpec = { ruleId: 'R-30', checks: { checkSender: 'all', checkReceiver: 'none' }, initial: undefined, variant: 0, perLevel: undefined, filter: 'none' };
    const b: InstanceSpec = { ruleId: 'R-69', checks: { checkSender: 'none', checkReceiver: 'all' }, initial: 1, variant: 0, perLevel: undefined, filter: 'none' };
    const ia = (await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(a)) : requestOf(a)))) as { id: string };
    await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(b)) : requestOf(b)));
    const s = stream(12);
    let hits = 0;
    for (const t of s.slice(0, 6)) hits += hitsOf(await all((e) => e.createTransaction(t)));
    await all((e) => e.deleteRuleInstance(ia.id));
    for (const t of s.slice(6)) hits += hitsOf(await all((e) => e.createTransaction(t)));
    // An amount change of an old transaction after the instance set changed.
    await all((e) =>
      e.createTransactionEvent({
        transactionId: s[1]!.transactionId as string,
        timestamp: T0 + 40 * DAY,
        transactionState: 'SUCCESSFUL',
        updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 9000, transactionCurrency: 'EUR' }, destinationAmountDetails: { transactionAmount: 9000, transactionCurrency: 'EUR' } },
      }),
    );
    hits += hitsOf(await all((e) => e.createTransaction(tx({ transactionId: 'after', timestamp: T0 + 20 * HOUR, originUserId: 'u-3', destinationUserId: 'u-2' }))));
    expect(hits).toBeGreaterThan(0);
  });

  for (const ruleId of ['R-77', 'R-123', 'R-124', 'R-125', 'R-130', 'R-131'] as const) {
    it(`${ruleId}: every pair of checks updated to every pair (81), with events in between`, async () => {
      const { all } = trio();
      const base: InstanceSpec = { ruleId, checks: ALL_CHECKS[0]!, initial: 2, variant: 1, perLevel: undefined, filter: 'none' };
      const created = (await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(base)) : requestOf(base)))) as { id: string };
      let n = 0;
      let hits = 0;
      for (const from of ALL_CHECKS) {
        for (const to of ALL_CHECKS) {
          for (const checks of [from, to]) {
            const spec = { ...base, checks, initial: n % 3 === 0 ? undefined : 2 };
            await all((e, ref) => e.updateRuleInstance(created.id, ref ? toReference(requestOf(spec)) : requestOf(spec)));
            const t = stream(2, T0 + n * 2 * HOUR);
            for (const x of t) hits += hitsOf(await all((e) => e.createTransaction(x)));
            await all((e) => e.createTransactionEvent({ transactionId: t[0]!.transactionId as string, timestamp: T0 + 60 * DAY + n, transactionState: n % 2 ? 'REFUNDED' : 'SUCCESSFUL' }));
            n += 1;
          }
        }
      }
      expect(hits).toBeGreaterThan(0);
    });
  }

  it('R-131 with initialTransactions and checks none/receiving reads user-all for the receiver only', async () => {
    const { all } = trio();
    const spec: InstanceSpec = { ruleId: 'R-131', checks: { checkSender: 'none', checkReceiver: 'receiving' }, initial: 3, variant: 0, perLevel: undefined, filter: 'states' };
    await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(spec)) : requestOf(spec)));
    let hits = 0;
    for (const t of stream(20, T0 - 10 * DAY)) hits += hitsOf(await all((e) => e.createTransaction(t)));
    for (const t of stream(10)) hits += hitsOf(await all((e) => e.createTransaction(t)));
    expect(hits).toBeGreaterThan(0);
  });

  it('two engines on one repository: one changes the checks, the other decides with the newly read series', async () => {
    const repositories = createMemoryRepositories();
    const mk = (prefix: string, repos: Repositories) => {
      let n = 0;
      return createEngine({ repositories: repos, clock: fixedClock(), ids: { next: (k: string) => `${prefix}-${k}-${++n}` }, urlSigningSecret: new Uint8Array(32).fill(7) });
    };
    const a = mk('a', repositories);
    const b = mk('b', repositories);
    const solo = mk('s', createMemoryRepositories());
    const spec: InstanceSpec = { ruleId: 'R-30', checks: { checkSender: 'sending', checkReceiver: 'none' }, initial: undefined, variant: 0, perLevel: undefined, filter: 'none' };
    const created = await a.createRuleInstance(requestOf(spec));
    const soloCreated = await solo.createRuleInstance(requestOf(spec));
    const s = stream(12);
    const names = (r: { hitRules: { ruleId?: string; ruleHitMeta?: unknown }[] }) => r.hitRules.map((h) => [h.ruleId, h.ruleHitMeta]);
    for (const t of s.slice(0, 6)) expect(names(await a.createTransaction(t))).toEqual(names(await solo.createTransaction(t)));
    const next = { ...spec, checks: { checkSender: 'all', checkReceiver: 'all' } as Checks };
    await b.updateRuleInstance(created.id, requestOf(next));
    await solo.updateRuleInstance(soloCreated.id, requestOf(next));
    for (const [i, t] of s.slice(6).entries()) {
      const engine = i % 2 ? a : b;
      expect(names(await engine.createTransaction(t))).toEqual(names(await solo.createTransaction(t)));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// D-145: random scenarios
// ---------------------------------------------------------------------------------------------

type Control =
  | { kind: 'create'; at: number; spec: InstanceSpec }
  | { kind: 'update'; at: number; target: number; spec: InstanceSpec; sameRule: boolean }
  | { kind: 'delete'; at: number; target: number }
  | { kind: 'status'; at: number; target: number; active: boolean }
  | { kind: 'event'; at: number; target: number; state: string; amount: number | null }
  | { kind: 'user'; at: number; user: number; level: (typeof RISK_LEVELS)[number] };

const controlArbitrary: fc.Arbitrary<Control> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), at: fc.nat(20), spec: specArbitrary }),
  fc.record({ kind: fc.constant('update' as const), at: fc.nat(20), target: fc.nat(), spec: specArbitrary, sameRule: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(20), target: fc.nat() }),
  fc.record({ kind: fc.constant('status' as const), at: fc.nat(20), target: fc.nat(), active: fc.boolean() }),
  fc.record({
    kind: fc.constant('event' as const),
    at: fc.nat(20),
    target: fc.nat(),
    state: fc.constantFrom('SUCCESSFUL', 'DECLINED', 'REFUNDED', 'SENT'),
    amount: fc.option(fc.constantFrom(100, 1000, 5000, 123.45), { nil: null }),
  }),
  fc.record({ kind: fc.constant('user' as const), at: fc.nat(20), user: fc.nat(2), level: fc.constantFrom(...RISK_LEVELS) }),
);

describe('D-145 random scenarios (kept = onDemand = reference)', () => {
  const users = ['u-1', 'u-2', 'u-3'];
  let totalHits = 0;
  afterAll(() => {
    expect(totalHits).toBeGreaterThan(50);
  });
  test.prop(
    [
      fc.array(specArbitrary, { minLength: 1, maxLength: 3 }),
      fc.array(fc.option(fc.constantFrom(...RISK_LEVELS), { nil: null }), { minLength: 3, maxLength: 3 }),
      transactionsArbitrary({ maxLength: 24, userIds: users }),
      fc.array(controlArbitrary, { maxLength: 6 }),
    ],
    { numRuns: 800 },
  )('instances, updates, deletes, status changes, events and risk levels in any order', async (initial, levels, transactions, controls) => {
    const { all } = trio();
    for (const [i, level] of levels.entries()) {
      const user = { userId: users[i], createdTimestamp: TESTING_EPOCH_MS - DAY, ...(level ? { riskLevel: level } : {}) };
      await all((e) => e.createUser(user));
    }
    const ids: string[] = [];
    const create = async (spec: InstanceSpec) => {
      const r = await all((e, ref) => e.createRuleInstance(ref ? toReference(requestOf(spec)) : requestOf(spec)));
      if (typeof r !== 'string') ids.push((r as { id: string }).id);
    };
    for (const spec of initial) await create(spec);
    const done: string[] = [];
    let eventTime = TESTING_EPOCH_MS + 31 * DAY;
    const sorted = [...controls].sort((x, y) => x.at - y.at);
    let c = 0;
    const applyControls = async (position: number) => {
      while (c < sorted.length && (sorted[c] as Control).at <= position) {
        const op = sorted[c++] as Control;
        switch (op.kind) {
          case 'create':
            await create(op.spec);
            break;
          case 'update': {
            if (ids.length === 0) break;
            const id = ids[op.target % ids.length] as string;
            await all(async (e, ref) => {
              // Same rule: only the checks / levels / filters change; otherwise any rule.
              const current = op.sameRule ? String((await e.getRuleInstance(id)).ruleId).replace('Z-', 'R-') : op.spec.ruleId;
              const spec = { ...op.spec, ruleId: current as RuleId };
              return e.updateRuleInstance(id, ref ? toReference(requestOf(spec)) : requestOf(spec));
            });
            break;
          }
          case 'delete': {
            if (ids.length === 0) break;
            const [id] = ids.splice(op.target % ids.length, 1);
            await all((e) => e.deleteRuleInstance(id as string));
            break;
          }
          case 'status': {
            if (ids.length === 0) break;
            const id = ids[op.target % ids.length] as string;
            await all((e) => e.updateRuleInstance(id, { status: op.active ? 'ACTIVE' : 'INACTIVE' }));
            break;
          }
          case 'event': {
            if (done.length === 0) break;
            eventTime += HOUR;
            const event: Record<string, unknown> = { transactionId: done[op.target % done.length], timestamp: eventTime, transactionState: op.state };
            if (op.amount !== null) {
              event.updatedTransactionAttributes = {
                originAmountDetails: { transactionAmount: op.amount, transactionCurrency: 'EUR' },
                destinationAmountDetails: { transactionAmount: op.amount, transactionCurrency: 'EUR' },
              };
            }
            totalHits += hitsOf(await all((e) => e.createTransactionEvent(event)));
            break;
          }
          case 'user':
            await all((e) => e.createUser({ userId: users[op.user], createdTimestamp: TESTING_EPOCH_MS - DAY, riskLevel: op.level }));
            break;
        }
      }
    };
    for (const [i, t] of transactions.entries()) {
      await applyControls(i);
      totalHits += hitsOf(await all((e) => e.createTransaction(t)));
      done.push(t.transactionId);
    }
    await applyControls(Number.POSITIVE_INFINITY);
  });
});

// ---------------------------------------------------------------------------------------------
// D-146: the cached bound against convert → round → compare
// ---------------------------------------------------------------------------------------------

/** A provider whose rate is whatever `current.rate` says at the time of the call. */
function switchableProvider() {
  const current = { rate: '1' as string | null, calls: 0 };
  return { current, money: { rates: { rate: () => (current.calls++, current.rate) }, baseCurrency: 'USD' } };
}

/** The uncached answer: an unfrozen map is never cached. */
function direct(threshold: number, target: string, amount: bigint, currency: string, money: { rates: { rate: (f: string, t: string, at: number) => string | null }; baseCurrency: string }): boolean {
  const resolved = resolveThreshold({ [target]: threshold }, amount, currency, money, 0);
  return resolved !== null && resolved.amount >= resolved.threshold;
}

/** An independent exact computation from the rate text: rate rounded half-even to 18 decimals, product rounded half-even to 10^-8, then to the minor unit. */
function exact(threshold: number, target: string, amount: bigint, rate: string): boolean {
  const halfEven = (n: bigint, d: bigint) => {
    const neg = n < 0n;
    const a = neg ? -n : n;
    let q = a / d;
    const r = a % d;
    if (2n * r > d || (2n * r === d && q % 2n === 1n)) q += 1n;
    return neg ? -q : q;
  };
  // rate text → numerator / 10^k exactly
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(rate);
  if (!m) throw new Error(`unparsable rate ${rate}`);
  const digits = `${m[2] ?? ''}${m[3] ?? ''}` || '0';
  let scale = (m[3] ?? '').length - Number(m[4] ?? 0);
  let num = BigInt(digits) * (m[1] === '-' ? -1n : 1n);
  if (scale < 0) {
    num *= 10n ** BigInt(-scale);
    scale = 0;
  }
  const rate18 = scale <= 18 ? num * 10n ** BigInt(18 - scale) : halfEven(num, 10n ** BigInt(scale - 18));
  const converted = halfEven(amount * rate18, 10n ** 18n);
  const exp = currencyExponent(target);
  const unit = exp >= 8 ? 1n : 10n ** BigInt(8 - exp);
  const rounded = halfEven(converted, unit) * unit;
  return rounded >= toScaled(threshold);
}

const rateTextArbitrary = fc.oneof(
  fc.constantFrom('0', '0.0', '1', '0.5', '1.5', '2.5', '0.000000000000000001', '0.0000000000000000005', '0.0000000000000000015', '1e-20', '1e-18', '5e-19', '1E-3', '1.23e5', '1e20', '123456789012345678901234567890', '0.00000001', '157.220', '0.799540'),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^[0-9]{0,30}$/)).map(([w, f]) => (f.length > 0 ? `${w}.${f}` : `${w}`)),
  fc.tuple(fc.nat(40), fc.stringMatching(/^[1-9][0-9]{0,20}$/)).map(([zeros, d]) => `0.${'0'.repeat(zeros)}${d}`),
  fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: -25, max: 25 })).map(([d, e]) => `${d}e${e}`),
);
const thresholdArbitrary = fc.oneof(
  fc.constant(0),
  fc.constant(1e15),
  fc.integer({ min: 0, max: 100_000_000 }).map((n) => n / 100),
  fc.integer({ min: 0, max: 1_000_000_000 }).map((n) => n / 1000),
  fc.integer({ min: 0, max: 1_000_000_000_000 }),
);
const CAP = 1n << 80n;
const amountArbitrary = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 12n }),
  fc.bigInt({ min: 0n, max: 1n << 82n }),
  fc.integer({ min: -5, max: 5 }).map((d) => CAP + BigInt(d)),
  fc.bigInt({ min: -(10n ** 20n), max: -1n }),
  fc.constantFrom(0n, 1n, 999_999n, 1_000_000n, 1_000_001n, 100_000_000n, 50_000_000n, 150_000_000n),
);
const TARGETS = ['JPY', 'EUR', 'KWD', 'BHD', 'CLF', 'XYZ'];

describe('D-146 reachesThreshold with the cached bound', () => {
  test.prop(
    [
      fc.array(rateTextArbitrary, { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...TARGETS),
      thresholdArbitrary,
      fc.array(fc.tuple(fc.nat(5), amountArbitrary, fc.constantFrom('GBP', 'USD', 'CHF')), { minLength: 1, maxLength: 40 }),
    ],
    { numRuns: 1000 },
  )('any sequence of (alternating or repeated) rates, amounts and source currencies: as converted', (rates, target, threshold, calls) => {
    const { current, money } = switchableProvider();
    const frozen = deepFreeze({ [target]: threshold });
    for (const [pick, amount, currency] of calls) {
      // Mostly the same rate several times in a row (the bound is used), sometimes another.
      current.rate = rates[pick % 2 === 0 ? 0 : pick % rates.length] as string;
      const expected = direct(threshold, target, amount, currency, money);
      expect(reachesThreshold(frozen, amount, currency, money, 0)).toBe(expected);
      expect(reachesThreshold(frozen, amount, currency, money, 0)).toBe(expected);
    }
  });

  test.prop([rateTextArbitrary, fc.constantFrom(...TARGETS), thresholdArbitrary], { numRuns: 1000 })(
    'at the exact boundary, one unit either side, and at 2^80 ± 1: as converted and as the exact computation',
    (rate, target, threshold) => {
      const { current, money } = switchableProvider();
      current.rate = rate;
      const frozen = deepFreeze({ [target]: threshold });
      reachesThreshold(frozen, 0n, 'GBP', money, 0);
      reachesThreshold(frozen, 0n, 'GBP', money, 0);
      let lo = -1n;
      let hi = 1n << 90n;
      if (!direct(threshold, target, hi, 'GBP', money)) hi = -1n;
      else {
        while (hi - lo > 1n) {
          const mid = (lo + hi) / 2n;
          if (direct(threshold, target, mid < 0n ? 0n : mid, 'GBP', money)) hi = mid;
          else lo = mid;
        }
      }
      const probes = [0n, 1n, CAP - 1n, CAP, CAP + 1n];
      if (hi >= 0n) probes.push(hi, hi - 1n, hi + 1n, hi * 2n, hi / 2n);
      for (const amount of probes) {
        if (amount < 0n) continue;
        const expected = direct(threshold, target, amount, 'GBP', money);
        expect(reachesThreshold(frozen, amount, 'GBP', money, 0)).toBe(expected);
        expect(exact(threshold, target, amount, rate)).toBe(expected);
      }
    },
  );

  it('more than 64 source currencies on one map (the bounds map is cleared) and interleaved currencies', () => {
    const rates = new Map<string, string>();
    const money = { rates: { rate: (from: string) => rates.get(from) ?? null }, baseCurrency: 'USD' };
    const codes = Array.from({ length: 80 }, (_, i) => `Q${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`);
    codes.forEach((c, i) => rates.set(c, `${i + 1}.${String(i * 7919).padStart(5, '0')}`));
    const frozen = deepFreeze({ KWD: 1234.567 });
    for (let round = 0; round < 3; round++) {
      for (const [i, c] of codes.entries()) {
        for (const amount of [0n, 10n ** 10n, 123_456_789_012n / BigInt(i + 1), 10n ** 12n / BigInt(i + 1)]) {
          expect(reachesThreshold(frozen, amount, c, money, 0)).toBe(direct(1234.567, 'KWD', amount, c, money));
        }
      }
    }
    // A rate that changes under a remembered bound.
    rates.set('QAA', '0.001');
    for (const amount of [0n, 10n ** 14n, 123_456_700_000_000n, 123_456_750_000_000n, 10n ** 16n]) {
      expect(reachesThreshold(frozen, amount, 'QAA', money, 0)).toBe(direct(1234.567, 'KWD', amount, 'QAA', money));
      expect(reachesThreshold(frozen, amount, 'QAA', money, 0)).toBe(direct(1234.567, 'KWD', amount, 'QAA', money));
    }
  });

  it('rate "0": only a zero threshold is reached, by every amount (also beyond 2^80)', () => {
    const { current, money } = switchableProvider();
    current.rate = '0';
    const zero = deepFreeze({ EUR: 0 });
    const one = deepFreeze({ JPY: 1 });
    for (let i = 0; i < 3; i++) {
      for (const amount of [0n, 1n, CAP, CAP + 1n, 10n ** 30n]) {
        expect(reachesThreshold(zero, amount, 'GBP', money, 0)).toBe(true);
        expect(reachesThreshold(one, amount, 'GBP', money, 0)).toBe(false);
      }
    }
  });
});

describe('oracle sensitivity (the comparisons above would catch a seriesFor naming too few series)', () => {
  const r30 = LIBRARY_RULES.find((r) => r.id === 'R-30') as AnyRuleDefinition;
  // R-30 as a host rule whose seriesFor never names user-all.
  const broken = { ...r30, id: 'M-30', seriesFor: () => ['user-sending', 'user-receiving'] } as unknown as AnyRuleDefinition;
  const differs = async (request: Record<string, unknown>, level: string | null) => {
    const kept = testEngine({ maintainSeries: 'all', rules: [broken] }).engine;
    const onDemand = testEngine({ rules: [broken] }).engine;
    for (const e of [kept, onDemand]) {
      if (level) await e.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, riskLevel: level });
      await e.createRuleInstance(request);
    }
    let differ = false;
    for (let i = 0; i < 6; i++) {
      const t = tx({ transactionId: `m-${i}`, timestamp: T0 + i * HOUR, ...(i % 2 ? { originUserId: 'bob', destinationUserId: 'alice' } : {}) });
      if (JSON.stringify(await kept.createTransaction(t)) !== JSON.stringify(await onDemand.createTransaction(t))) differ = true;
    }
    return differ;
  };
  const base = { transactionsLimit: 1, timeWindow: W30 };

  it("an instance with checks 'all' on a rule whose seriesFor omits user-all answers differently", async () => {
    expect(await differs({ ruleId: 'M-30', parameters: { ...base, checkSender: 'all', checkReceiver: 'all' } }, null)).toBe(true);
  });

  it("only the HIGH level reads 'all': the difference shows once the sender is a HIGH-risk user, not otherwise", async () => {
    const perLevel = Object.fromEntries(RISK_LEVELS.map((l) => [l, { ...base, checkSender: 'sending', checkReceiver: 'receiving' }]));
    perLevel.HIGH = { ...base, checkSender: 'all', checkReceiver: 'all' };
    const request = { ruleId: 'M-30', parameters: { ...base, checkSender: 'sending', checkReceiver: 'receiving' }, riskLevelParameters: perLevel };
    expect(await differs(request, 'HIGH')).toBe(true);
    expect(await differs(request, 'LOW')).toBe(false);
  });
});
