import { describe, expect, test } from 'vitest';
import { test as propTest, fc } from '@fast-check/vitest';
import { TxmonError, isTxmonError } from '../../src/errors.js';
import {
  FORBIDDEN_KEYS,
  SAFE_JSON_DEFAULTS,
  assertSafeJson,
  copySafeJson,
  copySafeJsonSized,
  measureJsonSize,
  type SafeJsonOptions,
} from '../../src/validation/safe-json.js';

/** The single detail of the thrown error, or `null` when the value passed. */
function problemOf(value: unknown, options?: SafeJsonOptions): { path: string; code: string } | null {
  try {
    assertSafeJson(value, options);
    return null;
  } catch (error) {
    if (!(error instanceof TxmonError)) throw error;
    expect(error.details).toHaveLength(1);
    const [detail] = error.details;
    return { path: detail?.path ?? '', code: detail?.code ?? '' };
  }
}

function nestArrays(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

function nestObjects(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

class Money {
  constructor(readonly amount: number) {}
}

describe('assertSafeJson', () => {
  const sparse: unknown[] = [1];
  sparse[2] = 3;

  test.each([
    { name: 'a plain transaction-like object', input: { a: 1, b: 'x', c: [true, null, { d: -0.5 }] }, expected: null },
    { name: 'a primitive string', input: 'x', expected: null },
    { name: 'null', input: null, expected: null },
    { name: 'an empty array', input: [], expected: null },
    { name: 'an object without prototype', input: Object.assign(Object.create(null) as object, { a: 1 }), expected: null },
    { name: 'an object property holding undefined (JSON.stringify drops it)', input: { a: undefined }, expected: null },
    {
      name: '__proto__ key from JSON.parse',
      input: JSON.parse('{"a":{"__proto__":{"polluted":true}}}') as unknown,
      expected: { path: '/a/__proto__', code: 'forbidden-key' },
    },
    {
      name: 'constructor key inside an array item',
      input: { tags: [{ key: 'k' }, { constructor: { prototype: 1 } }] },
      expected: { path: '/tags/1/constructor', code: 'forbidden-key' },
    },
    { name: 'prototype key at the top', input: { prototype: 1 }, expected: { path: '/prototype', code: 'forbidden-key' } },
    {
      name: 'forbidden key deep in arrays of objects',
      input: [[{ ok: [{ __proto__x: 1, x: { prototype: 2 } }] }]],
      expected: { path: '/0/0/ok/0/x/prototype', code: 'forbidden-key' },
    },
    { name: 'NaN', input: { amount: Number.NaN }, expected: { path: '/amount', code: 'not-json' } },
    { name: 'Infinity', input: { amount: Number.POSITIVE_INFINITY }, expected: { path: '/amount', code: 'not-json' } },
    { name: '-Infinity at the top', input: Number.NEGATIVE_INFINITY, expected: { path: '', code: 'not-json' } },
    { name: 'a function', input: { f: () => 1 }, expected: { path: '/f', code: 'not-json' } },
    { name: 'a symbol', input: [Symbol('s')], expected: { path: '/0', code: 'not-json' } },
    { name: 'a bigint', input: { n: 10n }, expected: { path: '/n', code: 'not-json' } },
    { name: 'undefined inside an array', input: { list: [1, undefined] }, expected: { path: '/list/1', code: 'not-json' } },
    { name: 'a hole in a sparse array', input: { list: sparse }, expected: { path: '/list/1', code: 'not-json' } },
    { name: 'undefined at the top', input: undefined, expected: { path: '', code: 'not-json' } },
    { name: 'a Date', input: { at: new Date(0) }, expected: { path: '/at', code: 'not-json' } },
    { name: 'a Map', input: { m: new Map() }, expected: { path: '/m', code: 'not-json' } },
    { name: 'a class instance', input: { amount: new Money(1) }, expected: { path: '/amount', code: 'not-json' } },
    { name: 'a boxed string', input: [Object('x') as unknown], expected: { path: '/0', code: 'not-json' } },
    {
      name: 'a key with / and ~ is escaped in the path',
      input: { 'a/b~c': { prototype: 1 } },
      expected: { path: '/a~1b~0c/prototype', code: 'forbidden-key' },
    },
  ])('$name', ({ input, expected }) => {
    expect(problemOf(input)).toEqual(expected);
  });

  test('rejects each forbidden key', () => {
    for (const key of FORBIDDEN_KEYS) expect(problemOf(JSON.parse(`{"${key}":1}`))?.code).toBe('forbidden-key');
  });

  test.each([
    { name: 'arrays nested exactly maxDepth levels', input: nestArrays(SAFE_JSON_DEFAULTS.maxDepth), expected: null },
    { name: 'arrays nested maxDepth + 1 levels', input: nestArrays(SAFE_JSON_DEFAULTS.maxDepth + 1), expected: 'too-deep' },
    { name: 'objects nested exactly maxDepth levels', input: nestObjects(SAFE_JSON_DEFAULTS.maxDepth), expected: null },
    { name: 'objects nested maxDepth + 1 levels', input: nestObjects(SAFE_JSON_DEFAULTS.maxDepth + 1), expected: 'too-deep' },
    { name: '100 000 nested arrays without a stack overflow', input: nestArrays(100_000), expected: 'too-deep' },
    { name: '100 000 nested objects without a stack overflow', input: nestObjects(100_000), expected: 'too-deep' },
  ])('$name', ({ input, expected }) => {
    expect(problemOf(input)?.code ?? null).toBe(expected);
  });

  test('names the path of the first container that is too deep', () => {
    expect(problemOf(nestObjects(4), { maxDepth: 2 })).toEqual({ path: '/a/a', code: 'too-deep' });
    expect(problemOf({ x: [] }, { maxDepth: 1 })).toEqual({ path: '/x', code: 'too-deep' });
    expect(problemOf({}, { maxDepth: 0 })).toEqual({ path: '', code: 'too-deep' });
  });

  test('rejects a cyclic structure as too deep', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(problemOf(cyclic)?.code).toBe('too-deep');
  });

  test('bounds shared-reference blow-ups with maxNodes', () => {
    let shared: unknown = [1];
    for (let i = 0; i < 30; i += 1) shared = [shared, shared]; // 2^30 leaves if walked naively
    expect(problemOf(shared)?.code).toBe('too-large');
    expect(problemOf([1, 2, 3], { maxNodes: 3 })?.code).toBe('too-large');
    expect(problemOf([1, 2], { maxNodes: 3 })).toBeNull();
  });

  test('turns a throwing getter into not-json', () => {
    const hostile = {
      get amount(): number {
        throw new Error('boom');
      },
    };
    expect(problemOf({ nested: hostile })).toEqual({ path: '/nested/amount', code: 'not-json' });
  });

  test('prefixes basePath and uses the given code', () => {
    try {
      assertSafeJson({ x: Number.NaN }, { basePath: '/parameters', code: 'INVALID_PARAMETERS', what: 'parameters' });
      expect.unreachable();
    } catch (error) {
      expect(isTxmonError(error) && error.code).toBe('INVALID_PARAMETERS');
      expect(isTxmonError(error) && error.status).toBe(400);
      expect(isTxmonError(error) && error.details[0]?.path).toBe('/parameters/x');
    }
  });

  test('throws VALIDATION_FAILED with status 400 by default', () => {
    expect(() => assertSafeJson({ constructor: 1 })).toThrowError(expect.objectContaining({ code: 'VALIDATION_FAILED', status: 400 }) as Error);
  });
});

describe('properties', () => {
  propTest.prop([fc.jsonValue({ maxDepth: 10 })])('accepts every JSON value without forbidden keys', (value) => {
    const text = JSON.stringify(value);
    fc.pre(!/"(__proto__|constructor|prototype)":/.test(text));
    expect(() => assertSafeJson(value)).not.toThrow();
  });

  propTest.prop([fc.anything()])('either passes or throws a 400 TxmonError, and never mutates', (value) => {
    const before = fc.stringify(value);
    try {
      assertSafeJson(value);
    } catch (error) {
      expect(isTxmonError(error)).toBe(true);
      expect((error as TxmonError).status).toBe(400);
    }
    expect(fc.stringify(value)).toBe(before);
  });
});

describe('well-formed text', () => {
  const rows = [
    { name: 'a lone high surrogate in a value', value: { a: 'x\ud800' }, path: '/a' },
    { name: 'a lone low surrogate in an array item', value: { a: ['ok', '\udc00y'] }, path: '/a/1' },
    { name: 'a lone surrogate in a key', value: { 'k\ud800': 1 }, path: '/k\ud800' },
  ];
  test.each(rows)('refuses $name (not-json, at its path), in assertSafeJson and copySafeJson', ({ value, path }) => {
    expect(problemOf(value)).toEqual({ path, code: 'not-json' });
    expect(() => copySafeJson(value)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path, code: 'not-json' })] }),
    );
  });

  test('accepts surrogate pairs (astral characters)', () => {
    expect(problemOf({ a: '\u{1F600}\u{10FFFF}' })).toBeNull();
  });
});

describe('measureJsonSize and copySafeJsonSized', () => {
  test.each([
    { name: 'a string counts its characters plus one', value: 'abc', size: 4 },
    { name: 'numbers, booleans and null count one', value: [1, true, null], size: 4 },
    { name: 'keys count their characters', value: { ab: 'c' }, size: 1 + 2 + 2 },
    { name: 'undefined properties are not counted', value: { a: undefined, b: 1 }, size: 1 + 1 + 1 },
  ])('$name', ({ value, size }) => {
    expect(measureJsonSize(value)).toBe(size);
  });

  const safeJsonValue = fc.jsonValue().filter((value) => problemOf(value) === null);
  propTest.prop([safeJsonValue])(
    'copySafeJsonSized counts, in its one pass, what measureJsonSize counts; and stays within a small factor of the JSON text',
    (value) => {
      const { copy, size } = copySafeJsonSized(value);
      expect(copy).toEqual(value);
      expect(size).toBe(measureJsonSize(value));
      expect(size).toBeLessThanOrEqual(JSON.stringify(value).length);
    },
  );
});

describe('copySafeJson', () => {
  test('with an enumerable Object.prototype property (pollution), the copy does not pick it up and keeps an own key of that name', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      const safe = copySafeJson({ a: 1, b: { c: 2 } }) as Record<string, unknown>;
      expect(Object.keys(safe)).toEqual(['a', 'b']);
      expect(Object.hasOwn(safe.b as object, 'polluted')).toBe(false);
      expect(copySafeJson(JSON.parse('{"polluted":5}'))).toEqual({ polluted: 5 });
    } finally {
      delete proto.polluted;
    }
  });

  test('refuses an own "__proto__" key from JSON.parse, at any depth, and keeps integer-key order', () => {
    expect(() => copySafeJson(JSON.parse('{"__proto__":{"admin":true}}'))).toThrow(/forbidden key/);
    expect(() => copySafeJson(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toThrow(/forbidden key/);
    expect(() => copySafeJson(JSON.parse('{"constructor":{"prototype":{}}}'))).toThrow(/forbidden key/);
    const copy = copySafeJson(JSON.parse('{"b":1,"2":2,"a":3,"1":4}')) as object;
    expect(Object.keys(copy)).toEqual(['1', '2', 'b', 'a']);
    const nullProto = Object.assign(Object.create(null) as object, { z: 1, y: 2 });
    expect(Object.keys(copySafeJson(nullProto) as object)).toEqual(['z', 'y']);
  });
});
