import { fc, test } from '@fast-check/vitest';
import jsonLogic from 'json-logic-js';
import { describe, expect } from 'vitest';
import { TxmonError, isTxmonError } from '../../src/errors.js';
import { LOGIC_LIMITS, LOGIC_OPERATORS, compileLogic } from '../../src/logic/index.js';
import { containsText } from '../../src/logic/runtime.js';
import type { CompileLogicOptions, LogicData } from '../../src/logic/index.js';

const AMOUNT = 'transaction.originAmountDetails.transactionAmount';
const options: CompileLogicOptions = { basePath: '/logic', aggregationVariableKeys: ['count24h', 'sum24h'] };

function problemsOf(run: () => unknown): { path: string; code: string }[] {
  try {
    run();
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    expect(error.code).toBe('INVALID_LOGIC');
    return error.details.map(({ path, code }) => ({ path, code }));
  }
  throw new Error('expected compileLogic to throw');
}

function nest(levels: number, leaf: unknown): unknown {
  let node = leaf;
  for (let i = 0; i < levels; i += 1) node = { '!': node };
  return node;
}

const tx = (fields: Record<string, unknown>): LogicData => ({ transaction: fields });
const amount = (value: unknown): LogicData => tx({ originAmountDetails: { transactionAmount: value } });
const EU = ['AT', 'BE', 'DE', 'ES', 'FR', 'IT', 'NL', 'PT', 'SE'];
const tags = [
  { key: 'channel', value: 'web' },
  { key: 'risk', value: 'high' },
];

describe('compileLogic', () => {
  const valid: { name: string; expression: unknown; data: LogicData; expected: boolean }[] = [
    { name: 'threshold: exactly at 10000 hits', expression: { '>=': [{ var: AMOUNT }, 10000] }, data: amount(10000), expected: true },
    { name: 'threshold: one minor unit below misses', expression: { '>=': [{ var: AMOUNT }, 10000] }, data: amount(9999.99), expected: false },
    { name: 'threshold: one minor unit above hits', expression: { '>=': [{ var: AMOUNT }, 10000] }, data: amount(10000.01), expected: true },
    { name: 'threshold: missing amount misses (null >= 1)', expression: { '>=': [{ var: AMOUNT }, 1] }, data: tx({}), expected: false },
    { name: 'between (3-argument <=): inside', expression: { '<=': [100, { var: AMOUNT }, 200] }, data: amount(200), expected: true },
    { name: 'between (3-argument <): at the upper end misses', expression: { '<': [100, { var: AMOUNT }, 200] }, data: amount(200), expected: false },
    {
      name: 'in: country in a long literal list',
      expression: { in: [{ var: 'transaction.originAmountDetails.country' }, EU] },
      data: tx({ originAmountDetails: { country: 'DE' } }),
      expected: true,
    },
    {
      name: 'in: country not in a long literal list',
      expression: { in: [{ var: 'transaction.originAmountDetails.country' }, EU] },
      data: tx({ originAmountDetails: { country: 'US' } }),
      expected: false,
    },
    {
      name: 'in: country in a short literal list',
      expression: { in: [{ var: 'transaction.originAmountDetails.country' }, ['IR', 'KP']] },
      data: tx({ originAmountDetails: { country: 'KP' } }),
      expected: true,
    },
    {
      name: 'in: substring of a string',
      expression: { in: ['gift', { var: 'transaction.reference' }] },
      data: tx({ reference: 'a gift card' }),
      expected: true,
    },
    {
      name: 'and: amount above and country listed',
      expression: { and: [{ '>': [{ var: AMOUNT }, 500] }, { in: [{ var: 'transaction.originAmountDetails.country' }, EU] }] },
      data: tx({ originAmountDetails: { transactionAmount: 501, country: 'FR' } }),
      expected: true,
    },
    {
      name: 'and: one false operand misses',
      expression: { and: [{ '>': [{ var: AMOUNT }, 500] }, { in: [{ var: 'transaction.originAmountDetails.country' }, EU] }] },
      data: tx({ originAmountDetails: { transactionAmount: 501, country: 'US' } }),
      expected: false,
    },
    {
      name: 'or: one true operand hits',
      expression: { or: [{ '===': [{ var: 'transaction.type' }, 'WITHDRAWAL'] }, { '>': [{ var: AMOUNT }, 500] }] },
      data: tx({ type: 'WITHDRAWAL' }),
      expected: true,
    },
    { name: 'missing: all present', expression: { '!': { missing: ['transaction.a', 'transaction.b'] } }, data: tx({ a: 1, b: 0 }), expected: true },
    { name: "missing: one field ''", expression: { '!': { missing: ['transaction.a', 'transaction.b'] } }, data: tx({ a: 1, b: '' }), expected: false },
    { name: 'missing: one field absent', expression: { missing: [['transaction.a', 'transaction.b']] }, data: tx({ a: 1 }), expected: true },
    {
      name: 'missing_some: 1 of 2 present is enough',
      expression: { '!': { missing_some: [1, ['transaction.a', 'transaction.b']] } },
      data: tx({ b: 'x' }),
      expected: true,
    },
    { name: 'var default used when absent', expression: { '==': [{ var: ['transaction.nope', 5] }, 5] }, data: tx({}), expected: true },
    { name: 'var default not used for null', expression: { '===': [{ var: ['transaction.x', 5] }, null] }, data: tx({ x: null }), expected: true },
    {
      name: 'agg: declared aggregation variable',
      expression: { '>': [{ var: 'agg.count24h' }, 3] },
      data: { transaction: {}, agg: { count24h: 4 } },
      expected: true,
    },
    {
      name: 'originUser: reads the sender',
      expression: { '==': [{ var: 'originUser.type' }, 'BUSINESS'] },
      data: { transaction: {}, originUser: { type: 'BUSINESS' } },
      expected: true,
    },
    {
      name: 'some: a tag matches (element-relative var)',
      expression: { some: [{ var: 'transaction.tags' }, { '==': [{ var: 'key' }, 'risk'] }] },
      data: tx({ tags }),
      expected: true,
    },
    { name: 'all: of an empty array is false', expression: { all: [{ var: 'transaction.tags' }, true] }, data: tx({ tags: [] }), expected: false },
    {
      name: 'none: no tag matches',
      expression: { none: [{ var: 'transaction.tags' }, { '==': [{ var: 'value' }, 'low'] }] },
      data: tx({ tags }),
      expected: true,
    },
    {
      name: 'reduce: sum over items',
      expression: { '==': [{ reduce: [{ var: 'transaction.items' }, { '+': [{ var: 'current.n' }, { var: 'accumulator' }] }, 0] }, 6] },
      data: tx({ items: [{ n: 1 }, { n: 2 }, { n: 3 }] }),
      expected: true,
    },
    {
      name: 'filter + map + merge',
      expression: { in: [3, { merge: [{ map: [{ filter: [[1, 2, 3], { '>': [{ var: '' }, 1] }] }, { var: '' }] }] }] },
      data: tx({}),
      expected: true,
    },
    { name: 'if: else branch', expression: { if: [{ var: 'transaction.a' }, false, true] }, data: tx({ a: 0 }), expected: true },
    {
      name: 'cat and substr',
      expression: { '==': [{ substr: [{ cat: [{ var: 'transaction.a' }, '-', 'x'] }, -2] }, '-x'] },
      data: tx({ a: 'ab' }),
      expected: true,
    },
    { name: 'substr with a negative length cuts from the end', expression: { '==': [{ substr: ['abcdef', 1, -2] }, 'bcd'] }, data: tx({}), expected: true },
    {
      name: 'an own property holding undefined reads as absent',
      expression: { '==': [{ var: ['transaction.x', 7] }, 7] },
      data: tx({ x: undefined }),
      expected: true,
    },
    { name: 'empty array result is falsy', expression: { merge: [] }, data: tx({}), expected: false },
    {
      name: 'own length of a string is readable',
      expression: { '==': [{ var: 'transaction.type.length' }, 8] },
      data: tx({ type: 'TRANSFER' }),
      expected: true,
    },
    // Deviation from json-logic-js: inherited properties are not data.
    { name: 'inherited Object.prototype name reads as absent', expression: { '===': [{ var: 'transaction.toString' }, null] }, data: tx({}), expected: true },
    { name: 'inherited Array.prototype name reads as absent', expression: { '!': { var: 'transaction.tags.map' } }, data: tx({ tags }), expected: true },
    {
      name: 'own field named like a prototype method is read',
      expression: { '==': [{ var: 'transaction.meta.toString' }, 'x'] },
      data: tx({ meta: { toString: 'x' } }),
      expected: true,
    },
    // json-logic-js throws here; defined as false.
    { name: 'a throwing operation counts as false (* without arguments)', expression: { '!': { '*': [] } }, data: tx({}), expected: false },
    {
      name: 'a throwing operation counts as false (in on an object with indexOf)',
      expression: { '!': { in: ['a', { var: 'transaction.o' }] } },
      data: tx({ o: { indexOf: 1 } }),
      expected: false,
    },
    {
      name: 'an exponential reduce stops at the work budget and counts as false',
      expression: { '!!': { reduce: [{ var: 'transaction.tags' }, { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] } },
      data: tx({ tags: Array.from({ length: 64 }, (_, i) => i) }),
      expected: false,
    },
  ];
  test.each(valid)('evaluates $name', ({ expression, data, expected }) => {
    expect(compileLogic(expression, options).evaluate(data)).toBe(expected);
  });

  const deep = (levels: number): unknown => nest(levels, true);
  const wide = (args: number): unknown => ({ '+': Array.from({ length: args }, () => 1) });
  const invalid: { name: string; expression: unknown; options?: CompileLogicOptions; expected: { path: string; code: string }[] }[] = [
    {
      name: 'method operator',
      expression: { and: [true, { method: [{ var: 'transaction.type' }, 'toUpperCase'] }] },
      expected: [{ path: '/logic/and/1', code: 'unknown-operator' }],
    },
    { name: 'log operator', expression: { log: 1 }, expected: [{ path: '/logic', code: 'unknown-operator' }] },
    { name: 'unknown operator', expression: { or: [{ regex: ['a', 'b'] }] }, expected: [{ path: '/logic/or/0', code: 'unknown-operator' }] },
    { name: 'dotted operator (json-logic-js sub-operations)', expression: { 'Math.max': [1, 2] }, expected: [{ path: '/logic', code: 'unknown-operator' }] },
    { name: '__proto__ as an operator', expression: JSON.parse('{"__proto__": [1]}'), expected: [{ path: '/logic', code: 'unknown-operator' }] },
    { name: 'dynamic var path', expression: { var: { cat: ['trans', 'action.type'] } }, expected: [{ path: '/logic/var', code: 'dynamic-var' }] },
    {
      name: 'dynamic var default',
      expression: { var: ['transaction.a', { var: 'transaction.b' }] },
      expected: [{ path: '/logic/var/1', code: 'dynamic-var' }],
    },
    { name: 'var with three arguments', expression: { var: ['transaction.a', 1, 2] }, expected: [{ path: '/logic/var', code: 'dynamic-var' }] },
    { name: 'var path of the wrong type', expression: { var: true }, expected: [{ path: '/logic/var', code: 'dynamic-var' }] },
    { name: 'dynamic missing key', expression: { missing: { var: 'transaction.keys' } }, expected: [{ path: '/logic/missing', code: 'dynamic-var' }] },
    {
      name: 'dynamic missing_some paths',
      expression: { missing_some: [1, { merge: ['transaction.a'] }] },
      expected: [{ path: '/logic/missing_some/1', code: 'dynamic-var' }],
    },
    { name: 'missing_some without a path list', expression: { missing_some: 1 }, expected: [{ path: '/logic/missing_some', code: 'invalid-node' }] },
    { name: 'unknown root', expression: { '>': [{ var: 'user.age' }, 18] }, expected: [{ path: '/logic/>/0/var', code: 'unknown-variable' }] },
    { name: 'empty path at the top level', expression: { var: '' }, expected: [{ path: '/logic/var', code: 'unknown-variable' }] },
    { name: 'numeric path at the top level', expression: { var: 0 }, expected: [{ path: '/logic/var', code: 'unknown-variable' }] },
    { name: 'unknown agg key', expression: { '>': [{ var: 'agg.count7d' }, 1] }, expected: [{ path: '/logic/>/0/var', code: 'unknown-variable' }] },
    { name: 'bare agg', expression: { var: 'agg' }, expected: [{ path: '/logic/var', code: 'unknown-variable' }] },
    {
      name: 'agg without declared keys',
      expression: { var: 'agg.count24h' },
      options: { basePath: '/logic' },
      expected: [{ path: '/logic/var', code: 'unknown-variable' }],
    },
    {
      name: 'root not allowed by options.roots',
      expression: { var: 'originUser.type' },
      options: { basePath: '/f', roots: ['transaction'] },
      expected: [{ path: '/f/var', code: 'unknown-variable' }],
    },
    {
      name: 'reduce body path outside current/accumulator',
      expression: { reduce: [{ var: 'transaction.items' }, { var: 'n' }, 0] },
      expected: [{ path: '/logic/reduce/1/var', code: 'unknown-variable' }],
    },
    {
      name: 'missing path with an unknown root',
      expression: { missing: ['transaction.a', 'txn.b'] },
      expected: [{ path: '/logic/missing/1', code: 'unknown-variable' }],
    },
    { name: '__proto__ path segment', expression: { var: 'transaction.__proto__.polluted' }, expected: [{ path: '/logic/var', code: 'forbidden-key' }] },
    {
      name: 'constructor inside an array-op body',
      expression: { some: [{ var: 'transaction.tags' }, { var: 'constructor.name' }] },
      expected: [{ path: '/logic/some/1/var', code: 'forbidden-key' }],
    },
    {
      name: 'prototype in a missing argument',
      expression: { missing: ['transaction.prototype'] },
      expected: [{ path: '/logic/missing/0', code: 'forbidden-key' }],
    },
    {
      name: 'forbidden key in missing_some',
      expression: { missing_some: [1, ['transaction.a.__proto__']] },
      expected: [{ path: '/logic/missing_some/1/0', code: 'forbidden-key' }],
    },
    { name: 'empty object', expression: { and: [{}] }, expected: [{ path: '/logic/and/0', code: 'invalid-node' }] },
    { name: 'object with two keys', expression: { '==': [{ a: 1, b: 2 }, 1] }, expected: [{ path: '/logic/==/0', code: 'invalid-node' }] },
    { name: 'function value', expression: { '==': [() => 1, 1] }, expected: [{ path: '/logic/==/0', code: 'invalid-node' }] },
    { name: 'NaN', expression: { '==': [Number.NaN, 1] }, expected: [{ path: '/logic/==/0', code: 'invalid-node' }] },
    { name: 'undefined at the root', expression: undefined, expected: [{ path: '/logic', code: 'invalid-node' }] },
    { name: 'Date object', expression: { '==': [new Date(0), 1] }, expected: [{ path: '/logic/==/0', code: 'invalid-node' }] },
    // biome-ignore lint/suspicious/noSparseArray: the hole is the input under test
    { name: 'sparse array', expression: { '==': [[1, , 2], 1] }, expected: [{ path: '/logic/==/0/1', code: 'invalid-node' }] },
    {
      name: 'operator keys are escaped in pointers',
      expression: { '/': [{ var: 'x' }, 1] },
      expected: [{ path: '/logic/~1/0/var', code: 'unknown-variable' }],
    },
    { name: 'depth 33 is too deep', expression: deep(33), expected: [{ path: `/logic${'/!'.repeat(33)}`, code: 'too-complex' }] },
    { name: 'node 1001 is too many', expression: wide(999), expected: [{ path: '/logic/+/998', code: 'too-complex' }] },
    {
      name: 'a cyclic object stops at the depth limit',
      expression: (() => {
        const a: unknown[] = [];
        a.push({ '!': a });
        return a;
      })(),
      expected: [{ path: `/logic${'/0/!'.repeat(16)}/0`, code: 'too-complex' }],
    },
    {
      name: 'several problems are all reported',
      expression: { and: [{ method: [] }, { var: 'who' }, { var: 'transaction.constructor' }] },
      expected: [
        { path: '/logic/and/0', code: 'unknown-operator' },
        { path: '/logic/and/1/var', code: 'unknown-variable' },
        { path: '/logic/and/2/var', code: 'forbidden-key' },
      ],
    },
  ];
  test.each(invalid)('rejects $name', ({ expression, options: own, expected }) => {
    expect(problemsOf(() => compileLogic(expression, own ?? options))).toEqual(expected);
  });

  const limits: { name: string; expression: unknown; expected: boolean }[] = [
    { name: `depth ${LOGIC_LIMITS.maxDepth}`, expression: deep(LOGIC_LIMITS.maxDepth), expected: true },
    { name: `${LOGIC_LIMITS.maxNodes} nodes`, expression: wide(LOGIC_LIMITS.maxNodes - 2), expected: true },
  ];
  test.each(limits)('accepts exactly $name', ({ expression, expected }) => {
    expect(compileLogic(expression, options).evaluate(tx({}))).toBe(expected);
  });

  test('throws a 400 TxmonError whose message does not echo the input', () => {
    const secret = 'SECRET-IBAN-DE0012345678';
    try {
      compileLogic({ [secret]: [{ var: `transaction.${secret}.__proto__` }] }, options);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TxmonError);
      const e = error as TxmonError;
      expect(e.status).toBe(400);
      expect(JSON.stringify(e.toJSON())).not.toContain(secret);
    }
  });

  test('never allows method or log', () => {
    expect(LOGIC_OPERATORS).not.toContain('method');
    expect(LOGIC_OPERATORS).not.toContain('log');
  });

  test('lists top-level data paths once, in first-seen order, without element-relative paths', () => {
    const compiled = compileLogic(
      {
        and: [
          { '>': [{ var: AMOUNT }, { var: 'agg.sum24h' }] },
          { some: [{ var: 'transaction.tags' }, { '==': [{ var: 'key' }, 'risk'] }] },
          { '!': { missing: ['originUser.userId', AMOUNT] } },
        ],
      },
      options,
    );
    expect(compiled.varPaths).toEqual([AMOUNT, 'agg.sum24h', 'transaction.tags', 'originUser.userId']);
  });

  test('keeps a frozen copy of the expression, unaffected by later changes to the input', () => {
    const expression = { '>': [{ var: AMOUNT }, 100] };
    const compiled = compileLogic(expression, options);
    (expression['>'] as unknown[])[1] = 1_000_000;
    expect(compiled.expression).toEqual({ '>': [{ var: AMOUNT }, 100] });
    expect(Object.isFrozen((compiled.expression as { '>': unknown[] })['>'])).toBe(true);
    expect(compiled.evaluate(amount(101))).toBe(true);
  });

  test('counts an evaluation past maxWork as false', () => {
    const expression = { some: [{ var: 'transaction.tags' }, { '===': [{ var: '' }, 99] }] };
    const data = tx({ tags: Array.from({ length: 100 }, (_, i) => i) });
    expect(compileLogic(expression, options).evaluate(data)).toBe(true);
    expect(compileLogic(expression, { ...options, maxWork: 50 }).evaluate(data)).toBe(false);
  });

  test('ignores operations another library registers in json-logic-js', () => {
    const compiled = compileLogic({ '==': [{ var: 'transaction.type' }, 'A'] }, options);
    jsonLogic.add_operation('==', () => true);
    try {
      expect(jsonLogic.apply({ '==': [1, 2] })).toBe(true);
      expect(compiled.evaluate(tx({ type: 'B' }))).toBe(false);
    } finally {
      // biome-ignore lint/suspicious/noDoubleEquals: json-logic's loose equality, restored
      jsonLogic.add_operation('==', (a: unknown, b: unknown) => a == b);
    }
  });

  test('rejects malformed options with VALIDATION_FAILED', () => {
    expect(() => compileLogic(true, { basePath: '/logic', maxWork: 0 })).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});

// ------------------------------------------------------------------ arbitraries

type Scope = 'root' | 'element' | 'reduce';
const PATHS: Record<Scope, readonly string[]> = {
  root: [
    'transaction.type',
    AMOUNT,
    'transaction.originAmountDetails.country',
    'transaction.tags',
    'transaction.tags.0.value',
    'transaction.type.length',
    'transaction.nope',
    'originUser.userId',
    'agg.count24h',
  ],
  element: ['', 'key', 'value', 'value.length', '0', 'nope'],
  reduce: ['current', 'accumulator', 'current.value', 'accumulator.0'],
};
const ARRAY_SOURCES: Record<Scope, readonly string[]> = {
  root: ['transaction.tags', 'transaction.type'],
  element: ['', 'value'],
  reduce: ['current', 'accumulator'],
};
const VALUE_OPERATORS = [
  '==',
  '===',
  '!=',
  '!==',
  '>',
  '>=',
  '<',
  '<=',
  '%',
  '+',
  '-',
  '*',
  '/',
  'min',
  'max',
  'cat',
  'substr',
  'merge',
  'in',
  'and',
  'or',
  'if',
  '?:',
  '!',
  '!!',
];

const scalar = fc.oneof(
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom('US', 'DE', '', 'a', '10', 'TRANSFER', 'risk'),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 }),
);

const depthIdentifier = fc.createDepthIdentifier();
const expressions = fc.letrec<Record<Scope, unknown>>((tie) => {
  const build = (scope: Scope): fc.Arbitrary<unknown> => {
    const self = tie(scope);
    const path = fc.constantFrom(...PATHS[scope]);
    const source = fc.oneof(
      fc.constantFrom(...ARRAY_SOURCES[scope]).map((p) => ({ var: p })),
      self,
    );
    return fc.oneof(
      { depthIdentifier, maxDepth: 4, depthSize: 'small' },
      scalar,
      path.map((p) => ({ var: p })),
      fc.tuple(path, fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }))).map(([p, d]) => ({ var: [p, d] })),
      fc.tuple(fc.constantFrom(...VALUE_OPERATORS), fc.array(self, { maxLength: 3 })).map(([op, args]) => ({ [op]: args })),
      fc.tuple(fc.constantFrom('!', '!!', '-', 'cat'), self).map(([op, arg]) => ({ [op]: arg })),
      fc.subarray([...PATHS[scope]]).map((keys) => ({ missing: keys })),
      fc.tuple(self, fc.subarray([...PATHS[scope]])).map(([need, keys]) => ({ missing_some: [need, keys] })),
      fc.tuple(self, fc.array(scalar, { maxLength: 10 })).map(([needle, list]) => ({ in: [needle, list] })),
      fc.tuple(fc.constantFrom('map', 'filter', 'all', 'none', 'some'), source, tie('element')).map(([op, src, body]) => ({ [op]: [src, body] })),
      fc
        .tuple(source, tie('reduce'), fc.option(self, { nil: undefined }))
        .map(([src, body, init]) => ({ reduce: init === undefined ? [src, body] : [src, body, init] })),
      fc.array(self, { maxLength: 3 }),
    );
  };
  return { root: build('root'), element: build('element'), reduce: build('reduce') };
}).root;

const tag = fc.oneof(
  fc.record({ key: scalar, value: fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })) }, { requiredKeys: [] }),
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.constant({ indexOf: 1 }),
  fc.constant({ toString: 'x' }),
);
const transactions = fc.record(
  {
    type: scalar,
    originAmountDetails: fc.oneof(fc.record({ transactionAmount: scalar, country: scalar }, { requiredKeys: [] }), scalar),
    tags: fc.oneof(fc.array(tag, { maxLength: 5 }), scalar),
  },
  { requiredKeys: [] },
);
const logicData = fc.record({
  transaction: fc.oneof(transactions, fc.jsonValue()),
  originUser: fc.oneof(fc.record({ userId: scalar }), fc.jsonValue()),
  agg: fc.record({ count24h: scalar }),
});

const operatorShaped = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    fc.jsonValue({ maxDepth: 2 }),
    fc
      .tuple(
        fc.constantFrom(...LOGIC_OPERATORS, 'method', 'log', 'a.b', '__proto__', 'constructor', 'toString'),
        fc.oneof(tie('node'), fc.array(tie('node'), { maxLength: 4 })),
      )
      .map(([op, args]) => Object.defineProperty({}, op, { value: args, enumerable: true, writable: true, configurable: true })),
    fc.constantFrom('transaction.a', 'agg.count24h', 'transaction.__proto__', 'x', '').map((p) => ({ var: p })),
  ),
})).node;

function oracle(expression: unknown, data: LogicData): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(expression as never, data));
  } catch {
    return false;
  }
}

describe('properties', () => {
  test.prop([fc.oneof(fc.jsonValue(), operatorShaped, fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withMap: true }))])(
    'compileLogic either returns or throws INVALID_LOGIC with paths under basePath',
    (expression) => {
      try {
        compileLogic(expression, options);
      } catch (error) {
        expect(isTxmonError(error) && error.code === 'INVALID_LOGIC').toBe(true);
        for (const detail of (error as TxmonError).details) expect(detail.path.startsWith('/logic')).toBe(true);
      }
    },
  );

  test.prop([fc.oneof(expressions, operatorShaped), logicData])('evaluate returns a boolean, never throws and never mutates the data', (expression, data) => {
    let compiled: ReturnType<typeof compileLogic>;
    try {
      compiled = compileLogic(expression, options);
    } catch {
      return;
    }
    const before = JSON.stringify(data);
    expect(typeof compiled.evaluate(data)).toBe('boolean');
    expect(JSON.stringify(data)).toBe(before);
  });

  test.prop([expressions, logicData], { numRuns: 1000 })(
    'evaluate agrees with json-logic-js apply truthiness (a throw counting as false)',
    (expression, data) => {
      const compiled = compileLogic(expression, options);
      expect(compiled.evaluate(data)).toBe(oracle(expression, data));
    },
  );

  test.prop([expressions, logicData])('evaluate is deterministic', (expression, data) => {
    const compiled = compileLogic(expression, options);
    expect(compiled.evaluate(data)).toBe(compiled.evaluate(data));
  });
});

describe('containsText', () => {
  // Periodic needles and haystacks (runs of one letter with one odd letter) are the inputs that
  // make a naive or Boyer-Moore-Horspool search quadratic.
  const periodic = fc
    .tuple(
      fc.constantFrom('a', 'ab', 'aab', '\u0101', '\u{1F600}'),
      fc.integer({ min: 0, max: 80 }),
      fc.constantFrom('', 'b', 'c', 'a'),
      fc.integer({ min: 0, max: 80 }),
    )
    .map(([unit, before, odd, after]) => unit.repeat(before) + odd + unit.repeat(after));
  const text = fc.oneof(periodic, fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }));

  test.prop([text, text])('answers as String#indexOf does, for short and long needles', (haystack, needle) => {
    expect(containsText(haystack, needle)).toBe(haystack.indexOf(needle) !== -1);
    expect(containsText(haystack + needle + haystack, needle)).toBe(true);
  });
});

describe('in over strings', () => {
  test.prop([fc.integer({ min: 1, max: 4_000 }), fc.integer({ min: 33, max: 2_000 })])(
    'is charged the length of the haystack it reads: a budget below it stops the evaluation, one above lets it through',
    (length, needleLength) => {
      // A needle past the built-in search's length and a haystack of the needle's period: the
      // input a quadratic search spends the most time on.
      const haystack = 'a'.repeat(length);
      const needle = `${'a'.repeat(needleLength - 1)}b`;
      const logic = { in: [needle, { var: 'transaction.reference' }] };
      const within = compileLogic({ '!': logic }, { basePath: '/logic', maxWork: length + needleLength + 10 });
      expect(within.evaluate(tx({ reference: haystack }))).toBe(true);
      const below = compileLogic({ '!': logic }, { basePath: '/logic', maxWork: length });
      expect(below.evaluate(tx({ reference: haystack }))).toBe(false);
    },
  );
});
