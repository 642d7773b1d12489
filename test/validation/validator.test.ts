import { afterEach, describe, expect, test, vi } from 'vitest';
import { test as propTest, fc } from '@fast-check/vitest';
import { Type } from '@sinclair/typebox';
import { PAYMENT_METHODS, SCHEMA_LIMITS, TRANSACTION_STATES, TransactionSchema } from '../../src/domain/index.js';
import { isTxmonError, type ErrorDetail, type TxmonError } from '../../src/errors.js';
import { ajv } from '../../src/validation/ajv.js';
import { collectSchemaErrors, createValidator, validateAgainstSchema } from '../../src/validation/validator.js';

const tx = { type: 'TRANSFER', transactionId: 'tx-1', timestamp: 1_700_000_000_000 };

function errorOf(run: () => unknown): TxmonError {
  try {
    run();
  } catch (error) {
    if (isTxmonError(error)) return error;
    throw error;
  }
  throw new Error('expected a TxmonError');
}

/** Resolves a JSON Pointer in `value`; `undefined` when a token does not exist. */
function resolvePointer(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let current: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'));

describe('createValidator', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  test('returns the same object, typed, when valid', () => {
    const validate = createValidator(TransactionSchema);
    const input = { ...tx, extra: { nested: true } };
    expect(validate(input)).toBe(input);
  });

  test.each([
    { name: 'NaN timestamp (ajv strictNumbers, guard off)', input: { ...tx, timestamp: Number.NaN }, expected: { path: '/timestamp', code: 'type' } },
    {
      name: 'Infinity amount (ajv strictNumbers, guard off)',
      input: { ...tx, originAmountDetails: { transactionAmount: Number.POSITIVE_INFINITY, transactionCurrency: 'EUR' } },
      expected: { path: '/originAmountDetails/transactionAmount', code: 'type' },
    },
    {
      name: '-Infinity amount (ajv strictNumbers, guard off)',
      input: { ...tx, originAmountDetails: { transactionAmount: Number.NEGATIVE_INFINITY, transactionCurrency: 'EUR' } },
      expected: { path: '/originAmountDetails/transactionAmount', code: 'type' },
    },
  ])('ajv itself rejects $name', ({ input, expected }) => {
    const validate = createValidator(TransactionSchema, { safeJson: false });
    const { details } = errorOf(() => validate(input));
    expect(details.map(({ path, code }) => ({ path, code }))).toEqual([expected]);
  });

  test.each([
    { name: 'NaN timestamp', input: { ...tx, timestamp: Number.NaN }, expected: { path: '/timestamp', code: 'not-json' } },
    {
      name: 'Infinity amount',
      input: { ...tx, originAmountDetails: { transactionAmount: Number.POSITIVE_INFINITY, transactionCurrency: 'EUR' } },
      expected: { path: '/originAmountDetails/transactionAmount', code: 'not-json' },
    },
    {
      name: 'forbidden key inside metadata',
      input: { ...tx, metadata: { list: [{ __proto__: null, constructor: 1 }] } },
      expected: { path: '/metadata/list/0/constructor', code: 'forbidden-key' },
    },
  ])('the JSON guard runs first: $name', ({ input, expected }) => {
    const { details, code } = errorOf(() => createValidator(TransactionSchema)(input));
    expect(code).toBe('VALIDATION_FAILED');
    expect(details.map(({ path, code: c }) => ({ path, code: c }))).toEqual([expected]);
  });

  test('uses the given code, basePath and what', () => {
    const validate = createValidator(Type.Object({ limit: Type.Integer({ minimum: 1 }) }), {
      code: 'INVALID_FILTERS',
      basePath: '/filters',
      what: 'filters',
    });
    const error = errorOf(() => validate({ limit: 0 }));
    expect(error.code).toBe('INVALID_FILTERS');
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ path: '/filters/limit', code: 'minimum', message: 'must be >= 1' }]);
    expect(error.message).toContain('filters');
  });

  test('escapes "/" and "~" of property names in detail paths', () => {
    const validate = createValidator(Type.Object({ 'a/b': Type.String(), 'c~d': Type.String() }, { additionalProperties: false }));
    const { details } = errorOf(() => validate({ 'c~d': 1, 'e/f': 'x' }));
    expect(details.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: '/a~1b', code: 'required' },
      { path: '/e~1f', code: 'additionalProperties' },
      { path: '/c~0d', code: 'type' },
    ]);
  });

  test('caps the details at 20, in a stable order', () => {
    const validate = createValidator(TransactionSchema);
    const input = { ...tx, tags: Array.from({ length: 50 }, () => ({ key: '', value: 1 })) };
    const first = errorOf(() => validate(input)).details;
    const second = errorOf(() => validate(input)).details;
    expect(first).toHaveLength(20);
    expect(second).toEqual(first);
    expect(first[0]).toEqual({ path: '/tags/0/key', code: 'minLength', message: 'must have at least 1 character' });
  });

  test('summarises the first problem and the count in the message', () => {
    const error = errorOf(() => createValidator(TransactionSchema, { what: 'transaction' })({}));
    expect(error.message).toBe('Invalid transaction: /type is required (and 2 more)');
  });

  test('throws INTERNAL at creation for an invalid schema', () => {
    const error = errorOf(() => createValidator(Type.Unsafe({ type: 'no-such-type' })));
    expect(error.code).toBe('INTERNAL');
    expect(error.status).toBe(500);
  });
});

describe('validateAgainstSchema', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const parametersSchema = {
    type: 'object',
    properties: { threshold: { type: 'number', minimum: 0 }, currency: { type: 'string', format: 'currency-code' } },
    required: ['threshold'],
    additionalProperties: false,
  };

  test.each([
    { name: 'valid parameters', input: { threshold: 10, currency: 'EUR' }, expected: [] },
    { name: 'missing threshold', input: {}, expected: [{ path: '/parameters/threshold', code: 'required' }] },
    {
      name: 'negative threshold and bad currency',
      input: { threshold: -1, currency: 'EURO' },
      expected: [
        { path: '/parameters/threshold', code: 'minimum' },
        { path: '/parameters/currency', code: 'format' },
      ],
    },
    { name: 'unknown parameter', input: { threshold: 1, window: 3 }, expected: [{ path: '/parameters/window', code: 'additionalProperties' }] },
  ])('$name', ({ input, expected }) => {
    const run = () => validateAgainstSchema(parametersSchema, input, { basePath: '/parameters', code: 'INVALID_PARAMETERS', what: 'parameters' });
    if (expected.length === 0) {
      expect(run).not.toThrow();
      return;
    }
    const error = errorOf(run);
    expect(error.code).toBe('INVALID_PARAMETERS');
    expect(error.details.map(({ path, code }) => ({ path, code }))).toEqual(expected);
  });

  test('compiles each schema object once', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    const compile = vi.spyOn(ajv, 'compile');
    for (let i = 0; i < 5; i += 1) validateAgainstSchema(schema, { n: i }, { basePath: '', code: 'INVALID_PARAMETERS', what: 'parameters' });
    expect(compile).toHaveBeenCalledTimes(1);
  });

  test('throws INTERNAL for an invalid dynamic schema', () => {
    const error = errorOf(() => validateAgainstSchema({ type: 42 }, {}, { basePath: '', code: 'INVALID_PARAMETERS', what: 'parameters' }));
    expect(error.code).toBe('INTERNAL');
  });
});

describe('collectSchemaErrors', () => {
  test('returns an empty list when valid and details otherwise', () => {
    const schema = { type: 'array', items: { type: 'string' }, maxItems: 2 };
    expect(collectSchemaErrors(schema, ['a'])).toEqual([]);
    expect(collectSchemaErrors(schema, ['a', 1, 'c'], '/list')).toEqual([
      { path: '/list', code: 'maxItems', message: 'must have at most 2 items' },
      { path: '/list/1', code: 'type', message: 'must be of type string' },
    ]);
  });
});

describe('properties', () => {
  const validateTransaction = createValidator(TransactionSchema, { what: 'transaction' });

  /** Either returns the input itself or throws a 400 TxmonError; never mutates. */
  function checkContract(value: unknown, snapshot: string): readonly ErrorDetail[] {
    let details: readonly ErrorDetail[] = [];
    try {
      expect(validateTransaction(value)).toBe(value);
    } catch (error) {
      expect(isTxmonError(error)).toBe(true);
      expect((error as TxmonError).status).toBe(400);
      details = (error as TxmonError).details;
      expect(details.length).toBeGreaterThan(0);
      expect(details.length).toBeLessThanOrEqual(20);
    }
    expect(fc.stringify(value)).toBe(snapshot);
    return details;
  }

  propTest.prop([fc.jsonValue()])('any JSON value: returns or throws a 400, never mutates', (value) => {
    checkContract(value, fc.stringify(value));
  });

  propTest.prop([fc.anything()])('any JS value: returns or throws a 400, never mutates', (value) => {
    checkContract(value, fc.stringify(value));
  });

  const nearlyValidTransaction = fc.record(
    {
      type: fc.oneof(fc.constantFrom('TRANSFER', 'DEPOSIT'), fc.string({ maxLength: 70 })),
      transactionId: fc.oneof(fc.constant('tx-1'), fc.string({ maxLength: 300 })),
      timestamp: fc.oneof(
        fc.constantFrom(SCHEMA_LIMITS.MIN_TIMESTAMP_MS, SCHEMA_LIMITS.MAX_TIMESTAMP_MS, SCHEMA_LIMITS.MIN_TIMESTAMP_MS - 0.5),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      ),
      transactionState: fc.constantFrom(...TRANSACTION_STATES, 'DONE'),
      originAmountDetails: fc.record({
        transactionAmount: fc.double({ noNaN: true, noDefaultInfinity: true }),
        transactionCurrency: fc.constantFrom('EUR', 'BTC', 'eur', 'XXX'),
        country: fc.constantFrom('DE', 'XK', 'EU'),
      }),
      originPaymentDetails: fc.oneof(
        fc.record({ method: fc.constantFrom(...PAYMENT_METHODS, 'PAYPAL', 7) }, { requiredKeys: [] }),
        fc.record({ method: fc.constant('UPI'), upiID: fc.string({ maxLength: 3 }) }, { requiredKeys: ['method'] }),
        fc.record({ method: fc.constant('CARD'), cardLast4Digits: fc.string({ maxLength: 5 }), '3dsDone': fc.jsonValue() }),
      ),
      tags: fc.array(fc.record({ key: fc.string({ maxLength: 3 }), value: fc.jsonValue() }, { requiredKeys: [] }), { maxLength: 3 }),
      'odd/key~': fc.jsonValue(),
    },
    { requiredKeys: [] },
  );

  propTest.prop([nearlyValidTransaction])('every detail path is a JSON Pointer into the input', (value) => {
    const details = checkContract(value, fc.stringify(value));
    for (const detail of details) {
      expect(detail.path === '' || detail.path.startsWith('/')).toBe(true);
      const missingHere = detail.code === 'required';
      // A required detail names a missing property of an existing object; any other names an existing value.
      expect(resolvePointer(value, missingHere ? parentOf(detail.path) : detail.path)).not.toBeUndefined();
      if (missingHere) expect(resolvePointer(value, detail.path)).toBeUndefined();
    }
  });
});
