/**
 * The library's rules declare which series each instance reads (`series`, `seriesFor`): the engine
 * keeps only those. Three engines get the same calls —
 *   kept       `maintainSeries: 'all'` (every built-in series always kept),
 *   onDemand   the default (only the series the active instances read),
 *   reference  the same rules registered again under `Z-…` ids WITHOUT `seriesFor` (every
 *              instance reads all three user series, also as derived series under historical
 *              filters), with `maintainSeries: 'all'`; its responses are compared after mapping
 *              `Z-` back to `R-`.
 * Every response of onDemand must deep-equal kept's and reference's.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Type } from '@sinclair/typebox';
import { createMemoryRepositories, createEngine, type Repositories } from '../../src/index.js';
import { defineRule } from '../../src/rules/define-rule.js';
import { r2TransactionAmount } from '../../src/rules/library/r-2-transaction-amount.js';
import { seriesReadBy } from '../../src/engine/instances/prepare-instance.js';
import { RISK_LEVELS } from '../../src/domain/enums.js';
import type { RuleInstance } from '../../src/engine/repositories.js';
import { createRuleRegistry, LIBRARY_RULES } from '../../src/rules/registry.js';
import type { AnyRuleDefinition, RuleDefinition } from '../../src/rules/types.js';
import { TESTING_EPOCH_MS, transactionArbitrary, transactionsArbitrary } from '../arbitraries/index.js';
import { DAY, HOUR, T0, errorOf, fixedClock, testEngine, tx, type RiskLevel, type TransactionEventInput } from '../helpers.js';

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

const hitsOf = (r: unknown) =>
  typeof r === 'object' && r !== null && Array.isArray((r as { hitRules?: unknown[] }).hitRules) ? (r as { hitRules: unknown[] }).hitRules.length : 0;

describe('the series an engine keeps for a stored instance', () => {
  const money = { rates: { rate: () => '1' }, baseCurrency: 'USD' };
  test.prop([specArbitrary, fc.array(transactionArbitrary({ userIds: ['u-1', 'u-2'] }), { minLength: 1, maxLength: 6 })], { numRuns: 150 })(
    'cover every need of the base and every risk-level parameter set, for random checks, initialTransactions and per-level checks',
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

describe('an engine keeping only the series its instances read answers as one keeping every series (targeted scenarios)', () => {
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
      const spec: InstanceSpec = {
        ruleId: 'R-30',
        checks: { checkSender: 'all', checkReceiver: 'none' },
        initial: undefined,
        variant: 0,
        perLevel: undefined,
        filter,
      };
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
    const a: InstanceSpec = {
      ruleId: 'R-30',
      checks: { checkSender: 'all', checkReceiver: 'none' },
      initial: undefined,
      variant: 0,
      perLevel: undefined,
      filter: 'none',
    };
    const b: InstanceSpec = {
      ruleId: 'R-69',
      checks: { checkSender: 'none', checkReceiver: 'all' },
      initial: 1,
      variant: 0,
      perLevel: undefined,
      filter: 'none',
    };
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
        updatedTransactionAttributes: {
          originAmountDetails: { transactionAmount: 9000, transactionCurrency: 'EUR' },
          destinationAmountDetails: { transactionAmount: 9000, transactionCurrency: 'EUR' },
        },
      }),
    );
    hits += hitsOf(
      await all((e) => e.createTransaction(tx({ transactionId: 'after', timestamp: T0 + 20 * HOUR, originUserId: 'u-3', destinationUserId: 'u-2' }))),
    );
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
            await all((e) =>
              e.createTransactionEvent({
                transactionId: t[0]!.transactionId as string,
                timestamp: T0 + 60 * DAY + n,
                transactionState: n % 2 ? 'REFUNDED' : 'SUCCESSFUL',
              }),
            );
            n += 1;
          }
        }
      }
      expect(hits).toBeGreaterThan(0);
    });
  }

  it('R-131 with initialTransactions and checks none/receiving reads user-all for the receiver only', async () => {
    const { all } = trio();
    const spec: InstanceSpec = {
      ruleId: 'R-131',
      checks: { checkSender: 'none', checkReceiver: 'receiving' },
      initial: 3,
      variant: 0,
      perLevel: undefined,
      filter: 'states',
    };
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
      return createEngine({
        repositories: repos,
        clock: fixedClock(),
        ids: { next: (k: string) => `${prefix}-${k}-${++n}` },
        urlSigningSecret: new Uint8Array(32).fill(7),
      });
    };
    const a = mk('a', repositories);
    const b = mk('b', repositories);
    const solo = mk('s', createMemoryRepositories());
    const spec: InstanceSpec = {
      ruleId: 'R-30',
      checks: { checkSender: 'sending', checkReceiver: 'none' },
      initial: undefined,
      variant: 0,
      perLevel: undefined,
      filter: 'none',
    };
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

describe('an engine keeping only the series its instances read answers as one keeping every series (random scenarios)', () => {
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
      const user = { userId: users[i] as string, createdTimestamp: TESTING_EPOCH_MS - DAY, ...(level ? { riskLevel: level } : {}) };
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
            const event = { transactionId: done[op.target % done.length], timestamp: eventTime, transactionState: op.state } as TransactionEventInput;
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
            await all((e) => e.createUser({ userId: users[op.user] as string, createdTimestamp: TESTING_EPOCH_MS - DAY, riskLevel: op.level }));
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

describe('in production, a host rule whose seriesFor names too few series answers differently (what the comparisons above would catch)', () => {
  // Development and test check a host rule's needs against its declared series and throw; in
  // production the wrong declaration is silent, as here.
  beforeEach(() => {
    vi.stubEnv('NODE_ENV', 'production');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const r30 = LIBRARY_RULES.find((r) => r.id === 'R-30') as AnyRuleDefinition;
  // R-30 as a host rule whose seriesFor never names user-all.
  const broken = { ...r30, id: 'M-30', seriesFor: () => ['user-sending', 'user-receiving'] } as unknown as AnyRuleDefinition;
  const differs = async (request: Record<string, unknown>, level: string | null) => {
    const kept = testEngine({ maintainSeries: 'all', rules: [broken] }).engine;
    const onDemand = testEngine({ rules: [broken] }).engine;
    for (const e of [kept, onDemand]) {
      if (level) await e.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, riskLevel: level as RiskLevel });
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

describe('LIBRARY_RULES', () => {
  it('declares seriesFor on every sender/receiver-aware rule', () => {
    expect(
      LIBRARY_RULES.filter((r) => r.seriesFor !== undefined)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['R-120', 'R-121', 'R-122', 'R-123', 'R-124', 'R-125', 'R-130', 'R-131', 'R-27', 'R-30', 'R-69', 'R-77', 'TXM-3'].sort());
  });

  it('declares readsEntryValues: false on the counting and summing rules of the benchmark workload, never on a rule reading distinct values', () => {
    const rules = LIBRARY_RULES.filter((r) => r.readsEntryValues === false);
    expect(rules.map((r) => r.id)).toEqual(expect.arrayContaining(['R-1', 'R-30', 'R-69']));
    expect(rules.map((r) => r.id)).not.toContain('R-10');
  });

  it('an instance reads the union of the series of its per-risk-level parameter sets', () => {
    const r30 = LIBRARY_RULES.find((r) => r.id === 'R-30') as AnyRuleDefinition;
    const instance = {
      ruleId: 'R-30',
      parameters: { ...(r30.defaultParameters as object), checkSender: 'sending', checkReceiver: 'none' },
      riskLevelParameters: { VERY_HIGH: { ...(r30.defaultParameters as object), checkSender: 'none', checkReceiver: 'all' } },
    } as unknown as RuleInstance;
    expect(seriesReadBy(r30, instance)).toEqual(['user-sending', 'user-all']);
    // Without parameters (never after validation), every series of the rule.
    expect(seriesReadBy(r30, { ruleId: 'R-30' } as RuleInstance)).toEqual(r30.series);
    // A rule without seriesFor: all of its series.
    const r1 = LIBRARY_RULES.find((r) => r.id === 'R-1') as AnyRuleDefinition;
    expect(seriesReadBy(r1, { ruleId: 'R-1', parameters: {} } as unknown as RuleInstance)).toEqual(r1.series);
  });
});

/** A host rule that counts a user's transactions: its needs read `user-sending`, or `user-all` with `checkSender: 'all'`. */
function hostVelocityRule(declared: Partial<RuleDefinition<{ limit: number; checkSender: 'sending' | 'all' }>> = {}) {
  return {
    id: 'ACME-1',
    name: 'Acme velocity',
    description: "A user's transactions of all time are more than a limit.",
    descriptionTemplate: 'More than {{limit}} transactions.',
    parametersSchema: Type.Object(
      { limit: Type.Integer({ minimum: 0 }), checkSender: Type.Union([Type.Literal('sending'), Type.Literal('all')]) },
      { additionalProperties: false },
    ),
    defaultParameters: { limit: 0, checkSender: 'sending' },
    defaultAction: 'FLAG',
    defaultNature: 'FRAUD',
    labels: [],
    defaultCasePriority: 'P2',
    checksFor: ['No. of transactions'],
    types: ['Velocity'],
    typologies: ['Money mules'],
    series: ['user-sending', 'user-all'],
    seriesFor: (p: { checkSender: string }) => (p.checkSender === 'all' ? ['user-all'] : ['user-sending']),
    readsEntryValues: false,
    aggregates: ({
      transaction,
      parameters,
    }: {
      transaction: { originUserId?: string; timestamp: number; transactionId: string };
      parameters: { checkSender: string };
    }) =>
      transaction.originUserId
        ? [
            {
              name: 'count',
              series: parameters.checkSender === 'all' ? 'user-all' : 'user-sending',
              key: transaction.originUserId,
              start: Number.NEGATIVE_INFINITY,
              end: transaction.timestamp,
              fn: 'count',
              excludeId: transaction.transactionId,
              includeCurrent: true,
            },
          ]
        : [],
    check: ({ parameters, aggregates }: { parameters: { limit: number }; aggregates: Record<string, unknown> }) =>
      typeof aggregates.count === 'number' && aggregates.count > parameters.limit ? [{ direction: 'ORIGIN' as const, vars: { limit: parameters.limit } }] : [],
    ...declared,
  } as unknown as AnyRuleDefinition;
}

describe('createRuleRegistry', () => {
  it('holds the library rules as they are declared (the engine knows them by identity)', () => {
    const registry = createRuleRegistry();
    for (const rule of LIBRARY_RULES) expect(registry.get(rule.id)).toBe(rule);
    expect(registry.get('R-2')).toBe(r2TransactionAmount);
  });

  it('lists host rules after the library (R- then TXM- ids), by id', () => {
    const registry = createRuleRegistry([hostVelocityRule()]);
    expect(
      registry
        .list()
        .map((r) => r.id)
        .slice(-2),
    ).toEqual(['TXM-4', 'ACME-1']);
  });

  it('keeps a host rule declared with defineRule as it is', () => {
    const rule = defineRule(hostVelocityRule() as never);
    expect(createRuleRegistry([rule]).get('ACME-1')).toBe(rule);
  });

  const wrong: { name: string; declared: Record<string, unknown> }[] = [
    { name: 'an empty id', declared: { id: '' } },
    { name: 'no check', declared: { check: undefined } },
    { name: 'an unknown series', declared: { series: ['user-everything'] } },
    { name: 'an unknown default action', declared: { defaultAction: 'ALERT' } },
    { name: 'defaults the schema refuses', declared: { defaultParameters: { limit: -1, checkSender: 'sending' } } },
    { name: 'seriesFor of the defaults outside series', declared: { seriesFor: () => ['ip'] } },
  ];
  for (const row of wrong) {
    it(`refuses a host rule with ${row.name}: INVALID_CONFIGURATION from createEngine`, () => {
      expect(() => createRuleRegistry([hostVelocityRule(row.declared)])).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
      expect(() => createEngine({ rules: [hostVelocityRule(row.declared)] })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    });
  }

  it('refuses two rules with one id', () => {
    expect(() => createRuleRegistry([hostVelocityRule(), hostVelocityRule()])).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(() => createRuleRegistry([hostVelocityRule({ id: 'R-2' })])).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
  });

  it('runs a correctly declared host rule', async () => {
    const { engine } = testEngine({ rules: [hostVelocityRule()] });
    await engine.createRuleInstance({ ruleId: 'ACME-1', parameters: { limit: 1, checkSender: 'all' } });
    await engine.createTransaction(tx({ timestamp: T0 }));
    const r = await engine.createTransaction(tx({ timestamp: T0 + 1 }));
    expect(r.hitRules.map((h) => h.ruleId)).toEqual(['ACME-1']);
  });

  it('in development, a host rule whose needs read a series it does not declare for those parameters fails loudly instead of counting nothing', async () => {
    // seriesFor forgets user-all, which the needs read with checkSender 'all'.
    const { engine } = testEngine({ rules: [hostVelocityRule({ seriesFor: () => ['user-sending'] })] });
    await engine.createRuleInstance({ ruleId: 'ACME-1', parameters: { limit: 0, checkSender: 'sending' } });
    expect((await engine.createTransaction(tx({ timestamp: T0 }))).hitRules).toHaveLength(1);
    await engine.createRuleInstance({ ruleId: 'ACME-1', parameters: { limit: 0, checkSender: 'all' } });
    const e = await errorOf(() => engine.createTransaction(tx({ timestamp: T0 + 1 })));
    expect(e.code).toBe('INVALID_CONFIGURATION');
  });
});
