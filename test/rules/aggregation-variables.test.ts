import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toScaled } from '../../src/domain/money.js';
import { compileAggregationVariables } from '../../src/rules/aggregation-variables.js';
import { ajv } from '../../src/validation/ajv.js';
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
    {
      name: 'unknown function',
      request: instance('>', 1, [variable({ aggregationFunc: 'MEDIAN' })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/aggregationFunc',
    },
    {
      name: 'SUM without a field',
      request: instance('>', 1, [variable({ aggregationFunc: 'SUM' })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/aggregationFieldKey',
    },
    {
      name: "SUM of the other side's amount",
      request: instance('>', 1, [variable({ aggregationFunc: 'SUM', aggregationFieldKey: 'destinationAmountDetails.transactionAmount' })]),
      code: 'INVALID_LOGIC',
      path: '/logicAggregationVariables/0/aggregationFieldKey',
    },
    {
      name: 'UNIQUE_COUNT of a user id over both directions',
      request: instance('>', 1, [
        variable({ aggregationFunc: 'UNIQUE_COUNT', aggregationFieldKey: 'destinationUserId', transactionDirection: 'SENDING_RECEIVING' }),
      ]),
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
    {
      name: 'variables on a library rule',
      request: { ruleId: 'R-2', logicAggregationVariables: [variable()] },
      code: 'VALIDATION_FAILED',
      path: '/logicAggregationVariables',
    },
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
    await engine.createRuleInstance(
      instance('>', 0.3, [variable({ key: 's', aggregationFunc: 'SUM', aggregationFieldKey: 'originAmountDetails.transactionAmount' })], 's'),
    );
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
    await engine.createRuleInstance(
      instance(
        '==',
        null as unknown as number,
        [variable({ key: 'v', aggregationFunc: 'AVG', aggregationFieldKey: 'amount', includeCurrentEntity: false })],
        'v',
      ),
    );
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
    await engine.createRuleInstance(instance('>=', 3, [variable({ userDirection: 'SENDER_OR_RECEIVER', transactionDirection: 'SENDING_RECEIVING' })]));
    // bob takes part in 2 earlier transactions, alice in none.
    await engine.createTransaction(tx({ timestamp: T0 - 2, originUserId: 'carol', destinationUserId: 'bob' }));
    await engine.createTransaction(tx({ timestamp: T0 - 1, originUserId: 'bob', destinationUserId: 'dave' }));
    expect(await directions(engine, { timestamp: T0, originUserId: 'alice', destinationUserId: 'bob' })).toEqual(['DESTINATION']);
  });
});

describe('logicAggregationVariables: evidence', () => {
  const rows: { name: string; variables: Record<string, unknown>[]; logic: Record<string, unknown>; expected: unknown[] }[] = [
    {
      name: 'one run: both sides name the values the logic read (money as the number it compared)',
      variables: [variable(), variable({ key: 'total', aggregationFunc: 'SUM', aggregationFieldKey: 'originAmountDetails.transactionAmount' })],
      logic: { and: [{ '>': [{ var: 'agg.n' }, 1] }, { '>': [{ var: 'agg.total' }, 100] }] },
      expected: ['ORIGIN', 'DESTINATION'].map((direction) => ({
        direction,
        kind: 'logic',
        value: true,
        comparison: '=',
        limit: true,
        variables: { n: 2, total: 200.5 },
      })),
    },
    {
      name: 'per side (SENDER_OR_RECEIVER): each side that hit names its own values',
      variables: [variable({ userDirection: 'SENDER_OR_RECEIVER', transactionDirection: 'SENDING_RECEIVING' })],
      logic: { '>=': [{ var: 'agg.n' }, 2] },
      expected: [{ direction: 'ORIGIN', kind: 'logic', value: true, comparison: '=', limit: true, variables: { n: 2 } }],
    },
  ];
  it.each(rows)('$name', async ({ variables, logic, expected }) => {
    const { engine } = testEngine({ baseCurrency: 'EUR' });
    const created = await engine.createRuleInstance({ logic, logicAggregationVariables: variables } as never);
    await engine.createTransaction(tx({ timestamp: T0 - HOUR, originUserId: 'alice', destinationUserId: 'bob', originAmountDetails: eur(100.25) }));
    const result = await engine.createTransaction(tx({ timestamp: T0, originUserId: 'alice', destinationUserId: 'carol', originAmountDetails: eur(100.25) }));
    expect(result.hitRules.find((h) => h.ruleInstanceId === created.id)?.ruleHitMeta?.evidence).toEqual(expected);
  });
});

describe('UNIQUE_COUNT: the current transaction counts only for a user whose transactions the variable reads', () => {
  // One transaction alice → bob and no history: a side's distinct count is 1 exactly when the
  // current transaction is one of that side's transactions of the direction (and is included).
  const rows: { name: string; userDirection: string; transactionDirection: string; field: string; include: boolean; receiver?: string; expected: string[] }[] =
    [
      {
        name: 'per side, SENDING: the sender sent it, the receiver did not',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING',
        field: 'destinationUserId',
        include: true,
        expected: ['ORIGIN'],
      },
      {
        name: 'per side, SENDING, own country: the sender only',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING',
        field: 'originAmountDetails.country',
        include: true,
        expected: ['ORIGIN'],
      },
      {
        name: 'per side, SENDING, counterparty country: the sender only',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING',
        field: 'destinationAmountDetails.country',
        include: true,
        expected: ['ORIGIN'],
      },
      {
        name: 'per side, SENDING, includeCurrentEntity false: neither',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING',
        field: 'destinationUserId',
        include: false,
        expected: [],
      },
      {
        name: 'per side, RECEIVING: the receiver received it, the sender did not',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'RECEIVING',
        field: 'originUserId',
        include: true,
        expected: ['DESTINATION'],
      },
      {
        name: 'per side, RECEIVING, own currency: the receiver only',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'RECEIVING',
        field: 'destinationAmountDetails.transactionCurrency',
        include: true,
        expected: ['DESTINATION'],
      },
      {
        name: 'per side, RECEIVING, includeCurrentEntity false: neither',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'RECEIVING',
        field: 'originUserId',
        include: false,
        expected: [],
      },
      {
        name: 'per side, SENDING_RECEIVING: both took part in it',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING_RECEIVING',
        field: 'type',
        include: true,
        expected: ['ORIGIN', 'DESTINATION'],
      },
      {
        name: 'per side, SENDING_RECEIVING, includeCurrentEntity false: neither',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING_RECEIVING',
        field: 'transactionState',
        include: false,
        expected: [],
      },
      {
        name: "SENDER, RECEIVING: the sender's received transactions do not include it",
        userDirection: 'SENDER',
        transactionDirection: 'RECEIVING',
        field: 'originUserId',
        include: true,
        expected: [],
      },
      {
        name: "SENDER, SENDING: the sender's sent transactions include it",
        userDirection: 'SENDER',
        transactionDirection: 'SENDING',
        field: 'destinationUserId',
        include: true,
        expected: ['ORIGIN', 'DESTINATION'],
      },
      {
        name: "RECEIVER, SENDING: the receiver's sent transactions do not include it",
        userDirection: 'RECEIVER',
        transactionDirection: 'SENDING',
        field: 'destinationUserId',
        include: true,
        expected: [],
      },
      {
        name: "RECEIVER, RECEIVING: the receiver's received transactions include it",
        userDirection: 'RECEIVER',
        transactionDirection: 'RECEIVING',
        field: 'originUserId',
        include: true,
        expected: ['ORIGIN', 'DESTINATION'],
      },
      {
        name: 'per side, SENDING, a self-transfer: its one user sent it',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING',
        field: 'destinationUserId',
        include: true,
        receiver: 'alice',
        expected: ['ORIGIN', 'DESTINATION'],
      },
      {
        name: "RECEIVER, SENDING, a self-transfer: the receiver's sent transactions include it",
        userDirection: 'RECEIVER',
        transactionDirection: 'SENDING',
        field: 'destinationUserId',
        include: true,
        receiver: 'alice',
        expected: ['ORIGIN', 'DESTINATION'],
      },
    ];
  it.each(rows)('$name', async ({ userDirection, transactionDirection, field, include, receiver, expected }) => {
    const { engine } = testEngine();
    const u = variable({
      key: 'u',
      aggregationFunc: 'UNIQUE_COUNT',
      aggregationFieldKey: field,
      userDirection,
      transactionDirection,
      includeCurrentEntity: include,
    });
    await engine.createRuleInstance(instance('>=', 1, [u], 'u'));
    expect(await directions(engine, { timestamp: T0, originUserId: 'alice', destinationUserId: receiver ?? 'bob' })).toEqual(expected);
  });

  // A transaction without originAmountDetails is filed with the destination amount details as the
  // sender's own (series.ts); as the current transaction it must count the same value.
  const fallback: { name: string; order: 'past' | 'current'; expected: string[] }[] = [
    { name: 'a sender without originAmountDetails counts the destination country as a past transaction', order: 'past', expected: ['ORIGIN', 'DESTINATION'] },
    {
      name: 'a sender without originAmountDetails counts the destination country as the current transaction',
      order: 'current',
      expected: ['ORIGIN', 'DESTINATION'],
    },
  ];
  it.each(fallback)('$name', async ({ order, expected }) => {
    const { engine } = testEngine();
    const u = variable({ key: 'u', aggregationFunc: 'UNIQUE_COUNT', aggregationFieldKey: 'originAmountDetails.country' });
    await engine.createRuleInstance(instance('>=', 2, [u], 'u'));
    const withOrigin = (timestamp: number) => tx({ timestamp, originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR', country: 'DE' } });
    const withoutOrigin = (timestamp: number) => {
      const t = tx({ timestamp, destinationAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR', country: 'FR' } });
      delete t.originAmountDetails;
      return t;
    };
    await engine.createTransaction(order === 'past' ? withoutOrigin(T0 - 1) : withOrigin(T0 - 1));
    const result = await engine.createTransaction(order === 'past' ? withOrigin(T0) : withoutOrigin(T0));
    expect(result.hitRules.flatMap((r) => r.ruleHitMeta?.hitDirections ?? [])).toEqual(expected);
  });
});

describe('timeWindow: rolling unless rollingBasis is false', () => {
  const NOW = { units: 0, granularity: 'now' };
  const startOfDay = Math.floor(T0 / DAY) * DAY; // T0 is 12:00 UTC
  const rows: { name: string; window: Record<string, unknown>; inside: number; outside: number }[] = [
    {
      name: 'default, start 30 days: exactly 30 × 24 h back counts, 1 ms earlier does not',
      window: { start: { units: 30, granularity: 'day' }, end: NOW },
      inside: T0 - 30 * DAY,
      outside: T0 - 30 * DAY - 1,
    },
    {
      name: 'default, start 1 month: the same time one calendar month back counts, 1 ms earlier does not',
      window: { start: { units: 1, granularity: 'month' }, end: NOW },
      inside: Date.UTC(2024, 11, 15, 12),
      outside: Date.UTC(2024, 11, 15, 12) - 1,
    },
    {
      name: 'rollingBasis false, start 30 days: 00:00 UTC 29 days before today counts, 1 ms earlier does not',
      window: { start: { units: 30, granularity: 'day', rollingBasis: false }, end: NOW },
      inside: startOfDay - 29 * DAY,
      outside: startOfDay - 29 * DAY - 1,
    },
    {
      name: 'default, end 1 day: 1 ms before 24 h back counts, exactly 24 h back does not (end exclusive)',
      window: { start: { units: 2, granularity: 'day' }, end: { units: 1, granularity: 'day' } },
      inside: T0 - DAY - 1,
      outside: T0 - DAY,
    },
    {
      name: 'rollingBasis false, end 1 day: 1 ms before 00:00 UTC today counts, 00:00 today does not (end exclusive)',
      window: { start: { units: 2, granularity: 'day', rollingBasis: false }, end: { units: 1, granularity: 'day', rollingBasis: false } },
      inside: startOfDay - 1,
      outside: startOfDay,
    },
  ];

  /** Whether a past transaction at `at` is in the window of a transaction at T0. */
  async function counts(window: Record<string, unknown>, at: number): Promise<boolean> {
    const { engine } = testEngine();
    await engine.createRuleInstance(instance('>=', 1, [variable({ timeWindow: window, includeCurrentEntity: false })]));
    await engine.createTransaction(tx({ timestamp: at }));
    return (await directions(engine, { timestamp: T0 })).length > 0;
  }

  it.each(rows)('$name', async ({ window, inside, outside }) => {
    expect(await counts(window, inside)).toBe(true);
    expect(await counts(window, outside)).toBe(false);
  });
});

describe('compileAggregationVariables', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('compiles its schema once: validating variables again compiles no schema, valid or not', () => {
    compileAggregationVariables([variable()], '/logicAggregationVariables');
    const compile = vi.spyOn(ajv, 'compile');
    compileAggregationVariables([variable(), variable({ key: 'm' })], '/logicAggregationVariables');
    expect(() => compileAggregationVariables([variable({ aggregationFunc: 'MEDIAN' })], '/logicAggregationVariables')).toThrow();
    expect(compile).not.toHaveBeenCalled();
  });

  it('creating rule instances while custom instances exist compiles no schema', async () => {
    const { engine } = testEngine();
    for (let i = 0; i < 3; i++) await engine.createRuleInstance(instance('>', i, [variable()]));
    await engine.createRuleInstance({ ruleId: 'R-2' });
    const compile = vi.spyOn(ajv, 'compile');
    await engine.createRuleInstance({ ruleId: 'R-2' });
    await engine.createRuleInstance(instance('>', 5, [variable()]));
    expect(compile).not.toHaveBeenCalled();
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
      await engine.createRuleInstance({
        logic: { '>=': [{ var: 'agg.n' }, count + 1] },
        logicAggregationVariables: [variable()],
        ruleNameAlias: 'count-above',
      });
      await engine.createRuleInstance({ logic: { '>=': [{ var: 'agg.s' }, sumCents / 100] }, logicAggregationVariables: [sum], ruleNameAlias: 'sum-at' });
      await engine.createRuleInstance({
        logic: { '>=': [{ var: 'agg.s' }, (sumCents + 1) / 100] },
        logicAggregationVariables: [sum],
        ruleNameAlias: 'sum-above',
      });
      for (const h of history) {
        await engine.createTransaction(tx({ timestamp: T0 + h.offset, originUserId: h.user, originAmountDetails: eur(h.cents / 100) }));
      }
      const result = await engine.createTransaction(tx({ timestamp: at, originUserId: user, originAmountDetails: eur(1) }));
      const hit = new Set(result.hitRules.map((r) => r.ruleName));
      expect(hit).toEqual(new Set(['count-at', 'sum-at']));
      expect(toScaled(sumCents / 100)).toBe(BigInt(sumCents) * 1_000_000n);
    },
  );

  /** UNIQUE_COUNT fields, by transaction direction, with how the oracle reads them off a generated transaction. */
  const DISTINCT_FIELDS = [
    { transactionDirection: 'SENDING', field: 'destinationUserId', read: (t: Generated) => t.destination },
    { transactionDirection: 'SENDING', field: 'originAmountDetails.country', read: (t: Generated) => t.originCountry },
    { transactionDirection: 'SENDING', field: 'destinationAmountDetails.country', read: (t: Generated) => t.destinationCountry },
    { transactionDirection: 'RECEIVING', field: 'originUserId', read: (t: Generated) => t.origin },
    { transactionDirection: 'RECEIVING', field: 'destinationAmountDetails.country', read: (t: Generated) => t.destinationCountry },
    { transactionDirection: 'SENDING_RECEIVING', field: 'type', read: (t: Generated) => t.type },
  ] as const;
  const USERS = ['u1', 'u2', 'u3'] as const;
  const generated = fc.record({
    origin: fc.constantFrom(...USERS),
    destination: fc.constantFrom(...USERS),
    offset: fc.integer({ min: 0, max: 2 * DAY }),
    type: fc.constantFrom('TRANSFER', 'DEPOSIT', 'WITHDRAWAL'),
    originCountry: fc.constantFrom('DE', 'FR', 'IT'),
    destinationCountry: fc.constantFrom('DE', 'FR', 'IT'),
  });
  type Generated = typeof generated extends fc.Arbitrary<infer T> ? T : never;
  const request = (t: Generated) =>
    tx({
      timestamp: T0 + t.offset,
      type: t.type,
      originUserId: t.origin,
      destinationUserId: t.destination,
      originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: t.originCountry },
      destinationAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: t.destinationCountry },
    });

  test.prop(
    [
      fc.array(generated, { maxLength: 12 }),
      generated,
      fc.constantFrom('SENDER', 'RECEIVER', 'SENDER_OR_RECEIVER'),
      fc.constantFrom(...DISTINCT_FIELDS),
      fc.boolean(),
    ],
    { numRuns: 60 },
  )(
    "UNIQUE_COUNT equals a brute-force count of distinct values over each side user's stored transactions of the direction, for every user and transaction direction",
    async (history, current, userDirection, { transactionDirection, field, read }, includeCurrentEntity) => {
      const at = T0 + current.offset;
      /** The brute-force value for `user`: distinct field values of their transactions of the direction in [at − 1 day, at]. */
      const expectedFor = (user: string) => {
        const own = (t: Generated) =>
          transactionDirection === 'SENDING'
            ? t.origin === user
            : transactionDirection === 'RECEIVING'
              ? t.destination === user
              : t.origin === user || t.destination === user;
        const counted = [...history.filter((h) => T0 + h.offset >= at - DAY && T0 + h.offset <= at), ...(includeCurrentEntity ? [current] : [])];
        return new Set(counted.filter(own).map(read)).size;
      };
      const originCount = expectedFor(current.origin);
      const destinationCount = expectedFor(current.destination);
      const { engine } = testEngine();
      const u = variable({ key: 'u', aggregationFunc: 'UNIQUE_COUNT', aggregationFieldKey: field, userDirection, transactionDirection, includeCurrentEntity });
      const values = [0, 1, 2, 3];
      for (const k of values) await engine.createRuleInstance({ ...instance('==', k, [u], 'u'), ruleNameAlias: `eq-${k}` });
      for (const h of history) await engine.createTransaction(request(h));
      const result = await engine.createTransaction(request(current));
      const hits = result.hitRules.flatMap((r) => (r.ruleHitMeta?.hitDirections ?? []).map((d) => `${r.ruleName}:${d}`)).sort();
      const expected =
        userDirection === 'SENDER_OR_RECEIVER'
          ? [`eq-${originCount}:ORIGIN`, `eq-${destinationCount}:DESTINATION`]
          : [userDirection === 'SENDER' ? originCount : destinationCount].flatMap((n) => [`eq-${n}:ORIGIN`, `eq-${n}:DESTINATION`]);
      expect(hits).toEqual(expected.sort());
    },
  );
});
