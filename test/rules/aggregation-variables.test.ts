import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { toScaled } from '../../src/domain/money.js';
import { DAY, HOUR, T0, errorOf, testEngine, tx } from '../helpers.js';

type Engine = ReturnType<typeof testEngine>['engine'];

const LAST_DAY = { start: { units: 1, granularity: 'day', rollingBasis: true }, end: { units: 0, granularity: 'now' } };

function variable(overrides: Record<string, unknown> = {}) {
  return { key: 'n', aggregationFunc: 'COUNT', userDirection: 'SENDER', transactionDirection: 'SENDING', timeWindow: LAST_DAY, ...overrides };
}

/** A custom instance whose logic compares `agg.<key>` with `value` using `op`. */
function instance(op: string, value: number, variables: Record<string, unknown>[], key = 'n') {
  return { logic: { [op]: [{ var: `agg.${key}` }, value] }, logicAggregationVariables: variables };
}

async function directions(engine: Engine, overrides: Record<string, unknown>): Promise<string[]> {
  const result = await engine.createTransaction(tx(overrides));
  return result.hitRules.flatMap((r) => r.ruleHitMeta?.hitDirections ?? []);
}

const eur = (amount: number) => ({ transactionAmount: amount, transactionCurrency: 'EUR' });

describe('logicAggregationVariables: validation (400, path named, nothing stored)', () => {
  const rows: { name: string; request: Record<string, unknown>; code: string; path: string }[] = [
    { name: 'logic reads an undeclared variable', request: instance('>', 1, [variable()], 'nope'), code: 'INVALID_LOGIC', path: '/logic/>/0/var' },
    { name: 'duplicate keys', request: instance('>', 1, [variable(), variable()]), code: 'INVALID_LOGIC', path: '/logicAggregationVariables/1/key' },
    { name: 'a key with a dot', request: instance('>', 1, [variable({ key: 'a.b' })]), code: 'INVALID_LOGIC', path: '/logicAggregationVariables/0/key' },
    { name: 'unknown function', request: instance('>', 1, [variable({ aggregationFunc: 'MEDIAN' })]), code: 'INVALID_LOGIC', path: '/logicAggregationVariables/0/aggregationFunc' },
    { name: 'SUM without a field', request: instance('>', 1, [variable({ aggregationFunc: 'SUM' })]), code: 'INVALID_LOGIC', path: '/logicAggregationVariables/0/aggregationFieldKey' },
    {
      name: "SUM of the other side's amount",
      request: instance('>', 1, [variable({ aggregationFunc: 'SUM', aggregationFieldKey: 'destinationAmountDetails.transactionAmount' })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/aggregationFieldKey',
    },
    {
      name: 'UNIQUE_COUNT of a user id over both directions',
      request: instance('>', 1, [variable({ aggregationFunc: 'UNIQUE_COUNT', aggregationFieldKey: 'destinationUserId', transactionDirection: 'SENDING_RECEIVING' })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/aggregationFieldKey',
    },
    {
      name: 'a window whose start is not before its end',
      request: instance('>', 1, [variable({ timeWindow: { start: { units: 1, granularity: 'hour' }, end: { units: 2, granularity: 'hour' } } })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/timeWindow/start',
    },
    {
      name: 'filter logic with an operator outside the allowlist',
      request: instance('>', 1, [variable({ filtersLogic: { method: [{ var: 'transaction.type' }, 'toString'] } })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/filtersLogic',
    },
    {
      name: 'filter logic reading agg',
      request: instance('>', 1, [variable({ filtersLogic: { '>': [{ var: 'agg.n' }, 1] } })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/filtersLogic/>/0/var',
    },
    { name: 'an unknown property', request: instance('>', 1, [variable({ extra: 1 })]), code: 'INVALID_LOGIC', path: '/logicAggregationVariables/0/extra' },
    { name: 'variables on a library rule', request: { ruleId: 'R-2', logicAggregationVariables: [variable()] }, code: 'VALIDATION_FAILED', path: '/logicAggregationVariables' },
  ];
  it.each(rows)('$name', async ({ request, code, path }) => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createRuleInstance(request));
    expect(error.code).toBe(code);
    expect(error.status).toBe(400);
    expect(error.details.map((d) => d.path).some((p) => p === path || p.startsWith(`${path}/`))).toBe(true);
    expect(await engine.listRuleInstances()).toHaveLength(0);
  });

  it('an update that drops a variable the logic still reads is refused at /logic', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance(instance('>', 1, [variable()]));
    expect(created.logicAggregationVariables).toHaveLength(1);
    const error = await errorOf(() => engine.updateRuleInstance(created.id, { logicAggregationVariables: [] }));
    expect(error.code).toBe('INVALID_LOGIC');
    expect(error.details[0]?.path).toBe('/logic/>/0/var');
    // An update of something else keeps the variables.
    const updated = await engine.updateRuleInstance(created.id, { ruleNameAlias: 'Velocity' });
    expect(updated.logicAggregationVariables).toEqual(created.logicAggregationVariables);
  });
});

describe('logicAggregationVariables: values at their boundaries', () => {
  it('COUNT includes the current transaction by default: the 3rd in a day makes 3 (> 2 hits), the 2nd does not', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(instance('>', 2, [variable()]));
    expect(await directions(engine, { timestamp: T0 - 2 * HOUR })).toEqual([]);
    expect(await directions(engine, { timestamp: T0 - HOUR })).toEqual([]);
    expect(await directions(engine, { timestamp: T0 })).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('includeCurrentEntity false leaves the current transaction out', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(instance('>', 2, [variable({ includeCurrentEntity: false })]));
    for (const t of [T0 - 2 * HOUR, T0 - HOUR]) await engine.createTransaction(tx({ timestamp: t }));
    expect(await directions(engine, { timestamp: T0 })).toEqual([]);
    expect(await directions(engine, { timestamp: T0 + 1 })).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('window start is inclusive (exactly 1 day back counts), 1 ms earlier does not', async () => {
    const inside = testEngine().engine;
    await inside.createRuleInstance(instance('>=', 2, [variable()]));
    await inside.createTransaction(tx({ timestamp: T0 - DAY }));
    expect(await directions(inside, { timestamp: T0 })).toEqual(['ORIGIN', 'DESTINATION']);
    const outside = testEngine().engine;
    await outside.createRuleInstance(instance('>=', 2, [variable()]));
    await outside.createTransaction(tx({ timestamp: T0 - DAY - 1 }));
    expect(await directions(outside, { timestamp: T0 })).toEqual([]);
  });

  it('a window that ends in the past excludes its end point and the current transaction', async () => {
    const { engine } = testEngine();
    const window = { start: { units: 2, granularity: 'day', rollingBasis: true }, end: { units: 1, granularity: 'day', rollingBasis: true } };
    await engine.createRuleInstance(instance('>=', 1, [variable({ timeWindow: window })]));
    await engine.createTransaction(tx({ timestamp: T0 - DAY })); // exactly at the end point: out
    expect(await directions(engine, { timestamp: T0 })).toEqual([]);
    await engine.createTransaction(tx({ timestamp: T0 - DAY - 1 })); // 1 ms before the end: in
    expect(await directions(engine, { timestamp: T0 + 0 })).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('SUM is exact: 3 × 3333.33 + 0.01 reaches 10000.00; one cent less does not', async () => {
    const { engine } = testEngine({ baseCurrency: 'EUR' });
    await engine.createRuleInstance(instance('>=', 10000, [variable({ key: 's', aggregationFunc: 'SUM', aggregationFieldKey: 'amount' })], 's'));
    for (let i = 0; i < 3; i++) await engine.createTransaction(tx({ timestamp: T0 - 3 + i, originAmountDetails: eur(3333.33) }));
    expect(await directions(engine, { timestamp: T0, originAmountDetails: eur(0.01) })).toEqual(['ORIGIN', 'DESTINATION']);
    const short = testEngine({ baseCurrency: 'EUR' }).engine;
    await short.createRuleInstance(instance('>=', 10000, [variable({ key: 's', aggregationFunc: 'SUM', aggregationFieldKey: 'amount' })], 's'));
    for (let i = 0; i < 3; i++) await short.createTransaction(tx({ timestamp: T0 - 3 + i, originAmountDetails: eur(3333.33) }));
    expect(await directions(short, { timestamp: T0, originAmountDetails: eur(0.0) })).toEqual([]);
  });

  it('SUM in another currency converts with the engine rates (0.1 + 0.2 does not exceed 0.3)', async () => {
    const { engine } = testEngine({ baseCurrency: 'EUR' });
    await engine.createRuleInstance(instance('>', 0.3, [variable({ key: 's', aggregationFunc: 'SUM', aggregationFieldKey: 'originAmountDetails.transactionAmount' })], 's'));
    await engine.createTransaction(tx({ timestamp: T0 - 1, originAmountDetails: eur(0.1) }));
    expect(await directions(engine, { timestamp: T0, originAmountDetails: eur(0.2) })).toEqual([]);
  });

  const stats: { name: string; func: string; op: string; value: number; expected: string[] }[] = [
    { name: 'AVG of 100, 200, 600 is 300 (== 300)', func: 'AVG', op: '==', value: 300, expected: ['ORIGIN', 'DESTINATION'] },
    { name: 'AVG is not 300.01', func: 'AVG', op: '>=', value: 300.01, expected: [] },
    { name: 'MIN is 100', func: 'MIN', op: '==', value: 100, expected: ['ORIGIN', 'DESTINATION'] },
    { name: 'MAX is 600', func: 'MAX', op: '==', value: 600, expected: ['ORIGIN', 'DESTINATION'] },
  ];
  it.each(stats)('$name', async ({ func, op, value, expected }) => {
    const { engine } = testEngine({ baseCurrency: 'EUR' });
    await engine.createRuleInstance(instance(op, value, [variable({ key: 'v', aggregationFunc: func, aggregationFieldKey: 'amount' })], 'v'));
    await engine.createTransaction(tx({ timestamp: T0 - 2, originAmountDetails: eur(100) }));
    await engine.createTransaction(tx({ timestamp: T0 - 1, originAmountDetails: eur(200) }));
    expect(await directions(engine, { timestamp: T0, originAmountDetails: eur(600) })).toEqual(expected);
  });

  it('AVG and MIN of an empty window are null (comparisons with null do not hit)', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(instance('==', null as unknown as number, [variable({ key: 'v', aggregationFunc: 'AVG', aggregationFieldKey: 'amount', includeCurrentEntity: false })], 'v'));
    expect(await directions(engine, { timestamp: T0 })).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('UNIQUE_COUNT of receivers counts distinct counterparties, the current one included', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(
      instance('>=', 3, [variable({ key: 'u', aggregationFunc: 'UNIQUE_COUNT', aggregationFieldKey: 'destinationUserId' })], 'u'),
    );
    await engine.createTransaction(tx({ timestamp: T0 - 3, destinationUserId: 'b1' }));
    await engine.createTransaction(tx({ timestamp: T0 - 2, destinationUserId: 'b1' }));
    await engine.createTransaction(tx({ timestamp: T0 - 1, destinationUserId: 'b2' }));
    expect(await directions(engine, { timestamp: T0, destinationUserId: 'b2' })).toEqual([]);
    expect(await directions(engine, { timestamp: T0 + 1, destinationUserId: 'b3' })).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('filter logic counts only the past transactions it accepts, including history before the instance', async () => {
    const { engine } = testEngine();
    await engine.createTransaction(tx({ timestamp: T0 - 3, type: 'TRANSFER' }));
    await engine.createTransaction(tx({ timestamp: T0 - 2, type: 'DEPOSIT' }));
    await engine.createRuleInstance(instance('>=', 2, [variable({ filtersLogic: { '==': [{ var: 'transaction.type' }, 'TRANSFER'] } })]));
    // 1 past TRANSFER + this DEPOSIT (not accepted) = 1.
    expect(await directions(engine, { timestamp: T0, type: 'DEPOSIT' })).toEqual([]);
    // 1 past TRANSFER + this TRANSFER = 2.
    expect(await directions(engine, { timestamp: T0 + 1, type: 'TRANSFER' })).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('SENDER_OR_RECEIVER runs the logic per side: only the side whose user is over the limit hits', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(
      instance('>=', 3, [variable({ userDirection: 'SENDER_OR_RECEIVER', transactionDirection: 'SENDING_RECEIVING' })]),
    );
    // bob takes part in 2 earlier transactions, alice in none.
    await engine.createTransaction(tx({ timestamp: T0 - 2, originUserId: 'carol', destinationUserId: 'bob' }));
    await engine.createTransaction(tx({ timestamp: T0 - 1, originUserId: 'bob', destinationUserId: 'dave' }));
    expect(await directions(engine, { timestamp: T0, originUserId: 'alice', destinationUserId: 'bob' })).toEqual(['DESTINATION']);
  });
});

describe('properties', () => {
  const sent = fc.record({ user: fc.constantFrom('u1', 'u2'), offset: fc.integer({ min: 0, max: 3 * DAY }), cents: fc.integer({ min: 1, max: 1_000_000 }) });
  test.prop([fc.array(sent, { maxLength: 15 }), fc.constantFrom('u1', 'u2'), fc.integer({ min: 1, max: 3 * DAY })], { numRuns: 40 })(
    'COUNT and SUM equal a brute-force recomputation over the transactions sent, in any arrival order (hit exactly at the value, not one unit above)',
    async (history, user, now) => {
      const at = T0 + now;
      const windowStart = at - DAY;
      const own = history.filter((h) => h.user === user && T0 + h.offset >= windowStart && T0 + h.offset <= at);
      const count = own.length + 1;
      const sumCents = own.reduce((a, h) => a + h.cents, 0) + 100;
      const { engine } = testEngine({ baseCurrency: 'EUR' });
      const sum = variable({ key: 's', aggregationFunc: 'SUM', aggregationFieldKey: 'amount' });
      await engine.createRuleInstance({ logic: { '>=': [{ var: 'agg.n' }, count] }, logicAggregationVariables: [variable()], ruleNameAlias: 'count-at' });
      await engine.createRuleInstance({ logic: { '>=': [{ var: 'agg.n' }, count + 1] }, logicAggregationVariables: [variable()], ruleNameAlias: 'count-above' });
      await engine.createRuleInstance({ logic: { '>=': [{ var: 'agg.s' }, sumCents / 100] }, logicAggregationVariables: [sum], ruleNameAlias: 'sum-at' });
      await engine.createRuleInstance({ logic: { '>=': [{ var: 'agg.s' }, (sumCents + 1) / 100] }, logicAggregationVariables: [sum], ruleNameAlias: 'sum-above' });
      for (const h of history) {
        await engine.createTransaction(tx({ timestamp: T0 + h.offset, originUserId: h.user, originAmountDetails: eur(h.cents / 100) }));
      }
      const result = await engine.createTransaction(tx({ timestamp: at, originUserId: user, originAmountDetails: eur(1) }));
      const hit = new Set(result.hitRules.map((r) => r.ruleName));
      expect(hit).toEqual(new Set(['count-at', 'sum-at']));
      expect(toScaled(sumCents / 100)).toBe(BigInt(sumCents) * 1_000_000n);
    },
  );
});
