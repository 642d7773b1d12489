import { describe, expect, it } from 'vitest';
import {
  CUSTOM_RULE_ID,
  aggregateNeedKey,
  buildRuleInstance,
  collectAggregateNeeds,
  compileLogic,
  compileRuleFilters,
  createFixedRateProvider,
  createRuleRegistry,
  evaluateRuleInstances,
  mergeCurrentContribution,
  mostSevereAction,
  renderDescription,
  resolveSettings,
  selectRiskLevel,
  type AggregateNeed,
  type AggregateSnapshot,
  type EvaluationInput,
  type InstanceFilter,
  type PreparedInstance,
  type RiskLevel,
  type RuleAction,
  type RuleFilters,
  type RuleInstance,
  type RuleUser,
  type SeriesEntry,
  type Transaction,
} from '../../src/index.js';
import { HOUR, T0 } from '../helpers.js';

const registry = createRuleRegistry();
const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
let nextId = 0;

/** A prepared instance built the way the engine builds it (validated request → stored instance → compiled parts). */
function prepare(request: Record<string, unknown>): PreparedInstance {
  nextId += 1;
  const stored = buildRuleInstance(request, null, { registry, now: T0, id: `ri-${nextId}` });
  const instance = { ...stored.instance, runCount: 0, hitCount: 0 } as RuleInstance;
  const custom = instance.ruleId === CUSTOM_RULE_ID;
  const compiled = compileRuleFilters(instance.filters as RuleFilters);
  return {
    instance,
    rule: custom ? null : (registry.get(instance.ruleId) ?? null),
    logic: custom ? compileLogic(instance.logic, { basePath: '/logic', aggregationVariableKeys: [] }) : null,
    filter: compiled.active ? (compiled as unknown as InstanceFilter) : null,
  };
}

function transaction(overrides: Record<string, unknown> = {}): Transaction {
  return {
    type: 'TRANSFER',
    transactionId: 'tx-1',
    timestamp: T0,
    originUserId: 'alice',
    destinationUserId: 'bob',
    transactionState: 'CREATED',
    originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'FR' },
    ...overrides,
  } as Transaction;
}

function user(userId: string, riskLevel: RiskLevel | null): RuleUser {
  return { userId, type: 'CONSUMER', profile: { userId }, riskLevel, craScore: null };
}

function input(instances: PreparedInstance[], overrides: Partial<EvaluationInput> = {}): EvaluationInput {
  return { transaction: transaction(), instances, originUser: null, destinationUser: null, money, defaultRiskLevel: 'VERY_HIGH', ...overrides };
}

const EMPTY: AggregateSnapshot = new Map();

/** An R-14 instance that hits the sender (origin country DE) or misses (list without DE/FR). */
function r14(hit: boolean, action: RuleAction, mode: 'LIVE' | 'SHADOW' = 'LIVE'): PreparedInstance {
  return prepare({ ruleId: 'R-14', parameters: { highRiskCountries: hit ? ['DE'] : ['IR'] }, action, mode });
}

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
      expect(out.status).toBe(mostSevereAction(out.hitRules.filter((h) => !h.isShadow).map((h) => h.ruleAction)));
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

describe('collectAggregateNeeds', () => {
  const r30 = (limit: number, units = 1) => ({
    ruleId: 'R-30',
    parameters: { transactionsLimit: limit, timeWindow: { units, granularity: 'hour' }, checkSender: 'sending', checkReceiver: 'receiving' },
  });

  it('returns nothing for stateless instances', () => {
    expect(collectAggregateNeeds(input([r14(true, 'FLAG'), prepare({ ruleId: 'R-2' })]))).toEqual([]);
  });

  it('lists the needs of every instance in instance order (equal needs are not merged)', () => {
    const needs = collectAggregateNeeds(input([prepare(r30(1)), prepare(r30(5))]));
    expect(needs.map((n) => [n.series, n.key, n.start, n.end])).toEqual([
      ['user-sending', 'alice', T0 - HOUR, T0],
      ['user-receiving', 'bob', T0 - HOUR, T0],
      ['user-sending', 'alice', T0 - HOUR, T0],
      ['user-receiving', 'bob', T0 - HOUR, T0],
    ]);
  });

  it('keeps needs of different windows apart', () => {
    expect(collectAggregateNeeds(input([prepare(r30(1, 1)), prepare(r30(1, 2))]))).toHaveLength(4);
  });

  it('skips an instance whose filters keep it from running', () => {
    const filtered = prepare({ ...r30(1), filters: { transactionTypes: ['DEPOSIT'] } });
    expect(collectAggregateNeeds(input([filtered]))).toEqual([]);
  });

  it('plans with the parameters of the selected risk level', () => {
    const p = prepare({
      ruleId: 'R-30',
      riskLevelParameters: Object.fromEntries(
        (['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const).map((l) => [
          l,
          { transactionsLimit: 1, timeWindow: { units: l === 'LOW' ? 3 : 1, granularity: 'hour' }, checkSender: 'sending', checkReceiver: 'none' },
        ]),
      ),
    });
    const needs = collectAggregateNeeds(input([p], { originUser: user('alice', 'LOW') }));
    expect(needs.map((n) => n.start)).toEqual([T0 - 3 * HOUR]);
  });

  it('gives a need without a user key for a missing side no entry', () => {
    const needs = collectAggregateNeeds(input([prepare(r30(1))], { transaction: transaction({ destinationUserId: undefined }) }));
    expect(needs.map((n) => n.series)).toEqual(['user-sending']);
  });
});

describe('mergeCurrentContribution', () => {
  const need = (overrides: Partial<AggregateNeed> = {}): AggregateNeed => ({
    name: 'n',
    series: 'user-sending',
    key: 'alice',
    start: T0 - HOUR,
    end: T0,
    fn: 'count',
    includeCurrent: true,
    ...overrides,
  });
  const entry = (overrides: Partial<SeriesEntry> = {}): SeriesEntry => ({
    series: 'user-sending',
    key: 'alice',
    id: 'tx-1',
    timestamp: T0,
    amount: 500n,
    ...overrides,
  });
  const rows: { name: string; need: AggregateNeed; others: bigint | number | null; current: SeriesEntry[]; expected: bigint | number | null }[] = [
    { name: 'count inside the window adds 1', need: need(), others: 3, current: [entry()], expected: 4 },
    { name: 'includeCurrent false adds nothing', need: need({ includeCurrent: false }), others: 3, current: [entry()], expected: 3 },
    { name: 'an entry exactly at the start is inside', need: need(), others: 0, current: [entry({ timestamp: T0 - HOUR })], expected: 1 },
    { name: 'an entry 1 ms before the start is outside', need: need(), others: 0, current: [entry({ timestamp: T0 - HOUR - 1 })], expected: 0 },
    { name: 'an entry 1 ms after the end is outside', need: need(), others: 0, current: [entry({ timestamp: T0 + 1 })], expected: 0 },
    { name: 'another key is ignored', need: need(), others: 0, current: [entry({ key: 'bob' })], expected: 0 },
    { name: 'another series is ignored', need: need(), others: 0, current: [entry({ series: 'user-receiving' })], expected: 0 },
    { name: 'sum adds the exact amount', need: need({ fn: 'sum' }), others: 10n, current: [entry()], expected: 510n },
    { name: 'sum ignores an entry without amount', need: need({ fn: 'sum' }), others: 10n, current: [entry({ amount: null })], expected: 10n },
    { name: 'amountCount ignores an entry without amount', need: need({ fn: 'amountCount' }), others: 2, current: [entry({ amount: null })], expected: 2 },
    { name: 'min takes a smaller current amount', need: need({ fn: 'min' }), others: 600n, current: [entry()], expected: 500n },
    { name: 'min of an empty window is the current amount', need: need({ fn: 'min' }), others: null, current: [entry()], expected: 500n },
    { name: 'max keeps a larger other amount', need: need({ fn: 'max' }), others: 600n, current: [entry()], expected: 600n },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(mergeCurrentContribution(row.need, row.others, row.current)).toBe(row.expected);
    });
  }
});

describe('selectRiskLevel', () => {
  const rows: { name: string; tx: Transaction; origin: RuleUser | null; destination: RuleUser | null; expected: RiskLevel }[] = [
    { name: 'sender level', tx: transaction(), origin: user('alice', 'LOW'), destination: user('bob', 'HIGH'), expected: 'LOW' },
    { name: 'sender without a level → default', tx: transaction(), origin: user('alice', null), destination: user('bob', 'HIGH'), expected: 'MEDIUM' },
    { name: 'no sender → receiver level', tx: transaction({ originUserId: undefined }), origin: null, destination: user('bob', 'HIGH'), expected: 'HIGH' },
    { name: 'no users → default', tx: transaction({ originUserId: undefined, destinationUserId: undefined }), origin: null, destination: null, expected: 'MEDIUM' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(selectRiskLevel(row.tx, row.origin, row.destination, 'MEDIUM')).toBe(row.expected);
    });
  }
});

describe('resolveSettings', () => {
  it('takes the per-level parameters and action of the level', () => {
    const p = prepare({
      ruleId: 'R-14',
      riskLevelParameters: {
        VERY_LOW: { highRiskCountries: ['IR'] },
        LOW: { highRiskCountries: ['KP'] },
        MEDIUM: { highRiskCountries: ['IR'] },
        HIGH: { highRiskCountries: ['IR'] },
        VERY_HIGH: { highRiskCountries: ['IR'] },
      },
      riskLevelActions: { VERY_LOW: 'FLAG', LOW: 'BLOCK', MEDIUM: 'FLAG', HIGH: 'FLAG', VERY_HIGH: 'FLAG' },
    });
    expect(resolveSettings(p.instance, 'LOW')).toMatchObject({ riskLevel: 'LOW', parameters: { highRiskCountries: ['KP'] }, action: 'BLOCK' });
    expect(resolveSettings(p.instance, 'HIGH')).toMatchObject({ parameters: { highRiskCountries: ['IR'] }, action: 'FLAG' });
  });
});

describe('mostSevereAction', () => {
  const rows: { name: string; input: RuleAction[]; expected: RuleAction }[] = [
    { name: 'none → ALLOW', input: [], expected: 'ALLOW' },
    { name: 'FLAG < SUSPEND', input: ['FLAG', 'SUSPEND'], expected: 'SUSPEND' },
    { name: 'SUSPEND < BLOCK', input: ['BLOCK', 'SUSPEND'], expected: 'BLOCK' },
    { name: 'ALLOW < FLAG', input: ['ALLOW', 'FLAG', 'ALLOW'], expected: 'FLAG' },
  ];
  for (const row of rows) it(row.name, () => expect(mostSevereAction(row.input)).toBe(row.expected));
});

describe('renderDescription', () => {
  const rows: { name: string; template: string; vars: Record<string, string | number> | undefined; expected: string }[] = [
    { name: 'text without placeholders is returned as is', template: 'plain {text}', vars: undefined, expected: 'plain {text}' },
    { name: 'placeholders are replaced', template: '{{a}} and {{ b }}', vars: { a: 'x', b: 2 }, expected: 'x and 2' },
    { name: 'unknown names render empty', template: '[{{missing}}]', vars: {}, expected: '[]' },
    { name: 'a value is not re-rendered as a template', template: '{{a}}', vars: { a: '{{b}}', b: 'no' }, expected: '{{b}}' },
    { name: 'inherited property names render empty', template: '[{{constructor}}][{{toString}}]', vars: {}, expected: '[][]' },
  ];
  for (const row of rows) it(row.name, () => expect(renderDescription(row.template, row.vars)).toBe(row.expected));
});
