import { describe, expect, it, vi } from 'vitest';
import { createEngine } from '../../../src/index.js';
import { createFixedRateProvider } from '../../../src/domain/money.js';
import { evaluateRuleInstances } from '../../../src/engine/pipeline/evaluate.js';
import { ACTION_SEVERITY } from '../../../src/engine/pipeline/settings.js';
import { aggregateNeedKey, collectAggregateNeeds, planRuleInstances, type EvaluationInput, type PreparedInstance } from '../../../src/engine/pipeline/plan.js';
import type { AggregateNeed, RiskLevel, RuleAction } from '../../../src/index.js';
import { r2TransactionAmount } from '../../../src/rules/library/r-2-transaction-amount.js';
import type { RuleCheckContext, RuleHit } from '../../../src/rules/types.js';
import { T0, fixedClock, sequentialIds, tx } from '../../helpers.js';
import { reachesThreshold } from '../../../src/rules/parameters.js';
import { EMPTY, input, money, prepare, r14, transaction, user } from './fixtures.js';

/** The most severe of `actions` (ALLOW for none): what a result's status must be. */
const mostSevere = (actions: readonly RuleAction[]): RuleAction =>
  actions.reduce<RuleAction>((m, a) => (ACTION_SEVERITY[a] > ACTION_SEVERITY[m] ? a : m), 'ALLOW');

describe('evaluateRuleInstances', () => {
  const statusRows: { name: string; instances: () => PreparedInstance[]; status: RuleAction; hits: number }[] = [
    { name: 'no instances → ALLOW', instances: () => [], status: 'ALLOW', hits: 0 },
    { name: 'only misses → ALLOW', instances: () => [r14(false, 'BLOCK'), r14(false, 'FLAG')], status: 'ALLOW', hits: 0 },
    { name: 'a FLAG hit beside a BLOCK miss → FLAG', instances: () => [r14(true, 'FLAG'), r14(false, 'BLOCK')], status: 'FLAG', hits: 1 },
    { name: 'SUSPEND and BLOCK hits → BLOCK', instances: () => [r14(true, 'SUSPEND'), r14(true, 'BLOCK')], status: 'BLOCK', hits: 2 },
    { name: 'BLOCK first, then FLAG → BLOCK (order does not matter)', instances: () => [r14(true, 'BLOCK'), r14(true, 'FLAG')], status: 'BLOCK', hits: 2 },
    { name: 'a shadow BLOCK hit beside a live FLAG hit → FLAG', instances: () => [r14(true, 'BLOCK', 'SHADOW'), r14(true, 'FLAG')], status: 'FLAG', hits: 2 },
    { name: 'only shadow hits → ALLOW', instances: () => [r14(true, 'BLOCK', 'SHADOW'), r14(true, 'SUSPEND', 'SHADOW')], status: 'ALLOW', hits: 2 },
    { name: 'a hit whose action is ALLOW → ALLOW, still listed as hit', instances: () => [r14(true, 'ALLOW')], status: 'ALLOW', hits: 1 },
  ];
  for (const row of statusRows) {
    it(`status: ${row.name}`, () => {
      const out = evaluateRuleInstances(input(row.instances()), EMPTY);
      expect(out.status).toBe(row.status);
      expect(out.hitRules).toHaveLength(row.hits);
      expect(out.status).toBe(mostSevere(out.hitRules.filter((h) => !h.isShadow).map((h) => h.ruleAction)));
    });
  }

  it('lists every run instance in executedRules, with the action even when not hit, and hits in hitRules', () => {
    const miss = r14(false, 'BLOCK');
    const hit = r14(true, 'SUSPEND');
    const out = evaluateRuleInstances(input([miss, hit]), EMPTY);
    expect(out.executedRules.map((e) => [e.ruleInstanceId, e.ruleHit, e.ruleAction])).toEqual([
      [miss.instance.id, false, 'BLOCK'],
      [hit.instance.id, true, 'SUSPEND'],
    ]);
    expect('ruleHitMeta' in (out.executedRules[0] as object)).toBe(false);
    expect(out.hitRules.map((h) => h.ruleInstanceId)).toEqual([hit.instance.id]);
    expect(out.hitRules[0]).toMatchObject({ ruleId: 'R-14', ruleName: 'High risk country', ruleHitMeta: { hitDirections: ['ORIGIN'] }, isShadow: false });
    expect(out.outcomes.map((o) => o.hit)).toEqual([false, true]);
  });

  it('leaves an instance whose transaction filters fail out of executedRules and outcomes', () => {
    const filtered = prepare({ ruleId: 'R-14', parameters: { highRiskCountries: ['DE'] }, filters: { transactionTypes: ['DEPOSIT'] } });
    const out = evaluateRuleInstances(input([filtered]), EMPTY);
    expect(out.executedRules).toEqual([]);
    expect(out.outcomes).toEqual([]);
    expect(out.status).toBe('ALLOW');
  });

  it('uses ruleNameAlias and ruleDescriptionAlias', () => {
    const p = prepare({ ruleId: 'R-14', parameters: { highRiskCountries: ['DE'] }, ruleNameAlias: 'Sanctioned', ruleDescriptionAlias: 'Hit on {{country}}' });
    const out = evaluateRuleInstances(input([p]), EMPTY);
    expect(out.hitRules[0]).toMatchObject({ ruleName: 'Sanctioned', ruleDescription: 'Hit on DE' });
  });

  const levelRows: { name: string; origin: RiskLevel | null; destination: RiskLevel | null; noSender?: boolean; action: RuleAction }[] = [
    { name: 'the sender level picks the action', origin: 'LOW', destination: 'HIGH', action: 'FLAG' },
    { name: 'an unknown sender gets the default level (VERY_HIGH), not the receiver level', origin: null, destination: 'LOW', action: 'BLOCK' },
    { name: 'without a sender the receiver level picks the action', origin: null, destination: 'LOW', noSender: true, action: 'FLAG' },
    { name: 'a sender level of MEDIUM picks MEDIUM', origin: 'MEDIUM', destination: null, action: 'SUSPEND' },
  ];
  for (const row of levelRows) {
    it(`risk level: ${row.name}`, () => {
      const p = prepare({
        ruleId: 'R-14',
        parameters: { highRiskCountries: ['DE', 'FR'] },
        riskLevelActions: { VERY_LOW: 'FLAG', LOW: 'FLAG', MEDIUM: 'SUSPEND', HIGH: 'BLOCK', VERY_HIGH: 'BLOCK' },
      });
      const tx = row.noSender ? transaction({ originUserId: undefined }) : transaction();
      const out = evaluateRuleInstances(
        input([p], {
          transaction: tx,
          originUser: row.origin ? user('alice', row.origin) : null,
          destinationUser: row.destination ? user('bob', row.destination) : null,
        }),
        EMPTY,
      );
      expect(out.executedRules[0]?.ruleAction).toBe(row.action);
      expect(out.status).toBe(row.action);
    });
  }

  it('reads missing aggregates as empty (count 0, sum 0)', () => {
    const p = prepare({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 0, timeWindow: { units: 1, granularity: 'hour' }, checkSender: 'sending', checkReceiver: 'receiving' },
    });
    const out = evaluateRuleInstances(input([p]), EMPTY);
    expect(out.executedRules[0]?.ruleHit).toBe(false);
  });

  it('reads the aggregate values it is given', () => {
    const p = prepare({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 1, timeWindow: { units: 1, granularity: 'hour' }, checkSender: 'sending', checkReceiver: 'none' },
    });
    const inp = input([p]);
    const [need] = collectAggregateNeeds(inp);
    const out = evaluateRuleInstances(inp, new Map([[aggregateNeedKey(need as AggregateNeed), 2]]));
    expect(out.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN']);
  });
});

describe('evaluateRuleInstances: the check context', () => {
  function instanceOf(id: string, extra: Record<string, unknown> = {}): PreparedInstance['instance'] {
    return {
      id,
      ruleId: `HOST-${id}`,
      parameters: { tag: id },
      action: 'FLAG',
      nature: 'AML',
      labels: [],
      mode: 'LIVE',
      status: 'ACTIVE',
      filters: {},
      ...extra,
    } as unknown as PreparedInstance['instance'];
  }

  interface Seen {
    readonly id: string;
    readonly parameters: unknown;
    readonly aggregateNames: string[];
    readonly currentCounts: unknown;
    readonly lookups: unknown;
    readonly hasLookupsKey: boolean;
  }

  /** A host rule recording what its check saw *during* the call (copies, not the context). */
  function hostRule(id: string, seen: Seen[], options: { needs?: string[]; lookups?: string[]; hit?: boolean } = {}) {
    return {
      id: `HOST-${id}`,
      name: `Host ${id}`,
      description: `Host rule ${id}`,
      descriptionTemplate: `Host ${id} hit.`,
      series: [],
      ...(options.needs
        ? {
            aggregates: ({ transaction }: { transaction: { timestamp: number; originUserId?: string } }) =>
              (options.needs as string[]).map((name) => ({
                name,
                series: 'user-sending',
                key: transaction.originUserId ?? 'x',
                start: 0,
                end: transaction.timestamp,
                fn: 'count',
                includeCurrent: false,
              })),
          }
        : {}),
      ...(options.lookups
        ? { lookups: () => (options.lookups as string[]).map((name) => ({ name, listId: 'l-1', listType: 'BLACKLIST', subtype: 'USER_ID', value: 'v' })) }
        : {}),
      check(ctx: RuleCheckContext<unknown>): readonly RuleHit[] {
        seen.push({
          id,
          parameters: ctx.parameters,
          aggregateNames: Object.keys(ctx.aggregates),
          currentCounts: ctx.currentCounts,
          lookups: ctx.lookups === undefined ? undefined : { ...ctx.lookups },
          hasLookupsKey: ctx.lookups !== undefined,
        });
        return options.hit ? [{ direction: 'ORIGIN' }] : [];
      },
    };
  }

  function inputOf(instances: PreparedInstance[], t = tx({ timestamp: T0 })): EvaluationInput {
    return {
      transaction: t,
      instances,
      originUser: null,
      destinationUser: null,
      money: { rates: createFixedRateProvider(), baseCurrency: 'EUR' },
      defaultRiskLevel: 'VERY_HIGH',
    } as unknown as EvaluationInput;
  }

  it('no rule sees another instance’s parameters, aggregates, currentCounts or lookups', () => {
    const seen: Seen[] = [];
    const a = hostRule('a', seen, { needs: ['na'], lookups: ['la'], hit: true });
    const b = hostRule('b', seen); // no needs, no lookups
    const c = hostRule('c', seen, { needs: ['nc'] });
    const d = hostRule('d', seen, { lookups: ['ld'] });
    const instances = [
      { instance: instanceOf('a'), rule: a, logic: null, filter: null, historical: () => false, seriesMap: null },
      { instance: instanceOf('b'), rule: b, logic: null, filter: null },
      { instance: instanceOf('c'), rule: c, logic: null, filter: null },
      { instance: instanceOf('d'), rule: d, logic: null, filter: null },
    ] as unknown as PreparedInstance[];
    const plan = planRuleInstances(inputOf(instances));
    const values = plan.needs.map(() => 3);
    const result = evaluateRuleInstances(plan, values, [true, false]);
    expect(seen.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(seen.map((s) => s.parameters)).toEqual([{ tag: 'a' }, { tag: 'b' }, { tag: 'c' }, { tag: 'd' }]);
    expect(seen.map((s) => s.aggregateNames)).toEqual([['na'], [], ['nc'], []]);
    expect(seen.map((s) => s.currentCounts)).toEqual([false, true, true, true]);
    expect(seen.map((s) => s.lookups)).toEqual([{ la: true }, undefined, undefined, { ld: false }]);
    expect(result.executedRules.map((r) => r.ruleHit)).toEqual([true, false, false, false]);
  });

  it('a host rule that keeps its context — e.g. a vi.fn() spy — sees its own instance’s values', async () => {
    // Each check gets a context object of its own: whatever a rule keeps from a call (a spy's
    // recorded call, a deferred log) shows that call's instance, not the last one evaluated.
    const check = vi.fn((_ctx: RuleCheckContext<unknown>): readonly RuleHit[] => []);
    const hostRule = { ...r2TransactionAmount, id: 'HOST-SPY', name: 'Host spy', check };
    const engine = createEngine({ rules: [hostRule as never], clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(5) });
    await engine.createRuleInstance({ ruleId: 'HOST-SPY', parameters: { transactionAmountThreshold: { EUR: 1 } } });
    await engine.createRuleInstance({ ruleId: 'HOST-SPY', parameters: { transactionAmountThreshold: { EUR: 2 } } });
    await engine.createTransaction(tx({ timestamp: T0 }));
    expect(check).toHaveBeenCalledTimes(2);
    expect(check.mock.calls.map((c) => (c[0].parameters as { transactionAmountThreshold: unknown }).transactionAmountThreshold)).toEqual([
      { EUR: 1 },
      { EUR: 2 },
    ]);
    expect(check.mock.calls[0]?.[0]).not.toBe(check.mock.calls[1]?.[0]);
  });

  it('a filtered-out instance leaves no hole: executed rules, outcomes and the JSON have no null', () => {
    const seen: Seen[] = [];
    const skip = () => ({ run: false, origin: true, destination: true });
    const onlyDestination = () => ({ run: true, origin: false, destination: true });
    const instances = [
      { instance: instanceOf('a'), rule: hostRule('a', seen, { hit: true }), logic: null, filter: null },
      { instance: instanceOf('b'), rule: hostRule('b', seen, { hit: true }), logic: null, filter: skip },
      // Hits ORIGIN only, but its filter keeps only the destination side: not a hit.
      { instance: instanceOf('c'), rule: hostRule('c', seen, { hit: true }), logic: null, filter: onlyDestination },
      { instance: instanceOf('d'), rule: hostRule('d', seen), logic: null, filter: skip },
    ] as unknown as PreparedInstance[];
    for (let round = 0; round < 3; round++) {
      const result = evaluateRuleInstances(inputOf(instances), []);
      expect(result.executedRules.map((r) => r.ruleInstanceId)).toEqual(['a', 'c']);
      expect(result.executedRules.map((r) => r.ruleHit)).toEqual([true, false]);
      expect(result.outcomes.map((o) => o.instance.id)).toEqual(['a', 'c']);
      expect(Object.keys(result.executedRules)).toEqual(['0', '1']);
      expect(Object.keys(result.outcomes)).toEqual(['0', '1']);
      expect(JSON.stringify(result)).not.toContain('null');
    }
  });
});

describe('evaluateRuleInstances: the ruleHitMeta shared between results', () => {
  let next: readonly RuleHit[] = [];
  const hostRule = { ...r2TransactionAmount, id: 'HOST-HITS', name: 'Host hits', descriptionTemplate: 'Hit {{n}} on {{side}}.', check: () => next };

  async function engineWithHostRule() {
    const engine = createEngine({ rules: [hostRule as never], clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(3) });
    await engine.createRuleInstance({ ruleId: 'HOST-HITS', parameters: { transactionAmountThreshold: { EUR: 1 } } });
    return engine;
  }

  it('shared ruleHitMeta is deeply frozen: a caller cannot change another transaction’s result through it', async () => {
    const engine = await engineWithHostRule();
    next = [{ direction: 'ORIGIN', vars: { n: 1, side: 'o' } }];
    const t1 = tx({ timestamp: T0 });
    const r1 = await engine.createTransaction(t1);
    const t2 = tx({ timestamp: T0 + 1 });
    const r2 = await engine.createTransaction(t2);
    const meta1 = r1.executedRules[0]?.ruleHitMeta as { hitDirections: string[] };
    const meta2 = r2.executedRules[0]?.ruleHitMeta as { hitDirections: string[] };
    expect(Object.isFrozen(meta1)).toBe(true);
    expect(Object.isFrozen(meta1.hitDirections)).toBe(true);
    expect(() => meta1.hitDirections.push('DESTINATION')).toThrow(TypeError);
    expect(() => {
      (meta1 as { hitDirections: string[] }).hitDirections = ['DESTINATION'];
    }).toThrow(TypeError);
    expect(() => {
      meta1.hitDirections[0] = 'DESTINATION';
    }).toThrow(TypeError);
    expect(meta2.hitDirections).toEqual(['ORIGIN']);
    const stored = await engine.getTransaction(t2.transactionId as string);
    expect(JSON.parse(JSON.stringify(stored.executedRules[0]?.ruleHitMeta))).toEqual({ hitDirections: ['ORIGIN'] });
    // A structured copy is independent and mutable; the originals stay as they were.
    const copy = structuredClone(r1.executedRules[0]) as { ruleHitMeta: { hitDirections: string[] } };
    copy.ruleHitMeta.hitDirections.push('DESTINATION');
    expect(meta1.hitDirections).toEqual(['ORIGIN']);
  });
});

describe('edge cases', () => {
  it('a prepared instance given a new instance object is evaluated afresh (no stale shared not-hit result)', () => {
    const base = {
      id: 'ri-1',
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 1_000_000 } },
      action: 'FLAG',
      nature: 'AML',
      labels: [],
      mode: 'LIVE',
      status: 'ACTIVE',
      filters: {},
    } as unknown as PreparedInstance['instance'];
    const prepared = { instance: base, rule: r2TransactionAmount, logic: null, filter: null } as unknown as {
      instance: PreparedInstance['instance'];
    } & PreparedInstance;
    const instances = [prepared];
    const inputAt = (t: ReturnType<typeof tx>) =>
      ({
        transaction: t,
        instances,
        originUser: null,
        destinationUser: null,
        money: { rates: { rate: () => '1' }, baseCurrency: 'EUR' },
        defaultRiskLevel: 'VERY_HIGH',
      }) as unknown as EvaluationInput;
    const first = evaluateRuleInstances(inputAt(tx({ transactionId: 'a', timestamp: T0 })), []);
    expect(first.executedRules[0]?.isShadow).toBe(false);
    (prepared as { instance: unknown }).instance = { ...base, mode: 'SHADOW' };
    const second = evaluateRuleInstances(inputAt(tx({ transactionId: 'b', timestamp: T0 + 1 })), []);
    expect(second.executedRules[0]?.isShadow).toBe(true);
  });
});

describe('evaluateRuleInstances: rules not evaluated', () => {
  const r2 = () => prepare({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
  const btc = transaction({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'BTC', country: 'DE' } });

  it('marks only the instance whose check found no rate, and warns once for it, in the order of executedRules', () => {
    const converting = r2();
    const other = r14(false, 'FLAG');
    const out = evaluateRuleInstances(input([other, converting], { transaction: btc }), EMPTY);
    expect(out.executedRules[0]).not.toHaveProperty('notEvaluated');
    expect(out.executedRules[1]?.notEvaluated).toEqual({ reason: 'NO_RATE', currency: 'BTC', to: 'EUR', path: '/originAmountDetails/transactionAmount' });
    expect(out.warnings.map((w) => w.ruleInstanceId)).toEqual([converting.instance.id]);
    expect(Object.isFrozen(out.executedRules[1])).toBe(true);
  });

  it('drops a note made before the run (outside any check): no instance takes it', () => {
    // A conversion outside a check (a stray kit call) leaves a note behind.
    expect(reachesThreshold({ EUR: 1 }, 1n, 'BTC', money, T0)).toBe(false);
    const out = evaluateRuleInstances(input([r14(false, 'FLAG')]), EMPTY);
    expect(out.executedRules[0]).not.toHaveProperty('notEvaluated');
    expect(out.warnings).toEqual([]);
  });

  it('marks a volume rule whose money need adds an entry left without an amount (unconverted), not one whose needs do not', () => {
    const volume = prepare({
      ruleId: 'R-69',
      parameters: {
        transactionVolumeThreshold: { USD: 10000 },
        timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
        checkSender: 'sending',
        checkReceiver: 'none',
      },
    });
    const plan = planRuleInstances(input([volume, r14(false, 'FLAG')], { transaction: btc }));
    const note = { reason: 'NO_RATE' as const, currency: 'BTC', to: 'USD', path: '/originAmountDetails/transactionAmount' };
    const entry = { id: 'tx-1', series: 'user-sending', key: 'alice', timestamp: T0, amount: null };
    const marked = evaluateRuleInstances(plan, new Map(), undefined, { note, entries: [entry] });
    expect(marked.executedRules.map((r) => r.notEvaluated)).toEqual([note, undefined]);
    const otherKey = evaluateRuleInstances(plan, new Map(), undefined, { note, entries: [{ ...entry, key: 'bob' }] });
    expect(otherKey.warnings).toEqual([]);
  });
});
