import { describe, expect, test } from 'vitest';
import type { ErrorObject } from 'ajv';
import { ajv } from '../../src/validation/ajv.js';
import { MAX_ERROR_DETAILS, PATTERN_MESSAGE_KEYWORD, mapAjvErrors } from '../../src/validation/ajv-errors.js';

function detailsFor(schema: object, value: unknown, basePath = '') {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return mapAjvErrors(validate.errors, basePath);
}

const pairs = (details: readonly { path: string; code: string }[]) => details.map(({ path, code }) => ({ path, code }));

describe('mapAjvErrors', () => {
  test('returns no details for no errors', () => {
    expect(mapAjvErrors(null)).toEqual([]);
    expect(mapAjvErrors(undefined)).toEqual([]);
    expect(mapAjvErrors([])).toEqual([]);
  });

  test('keeps only the deepest branch of a failed anyOf', () => {
    const schema = {
      anyOf: [{ type: 'string' }, { type: 'object', properties: { amount: { type: 'object', properties: { value: { type: 'number' } } } } }],
    };
    expect(pairs(detailsFor(schema, { amount: { value: 'x' } }))).toEqual([{ path: '/amount/value', code: 'type' }]);
  });

  test('prefers the branch with fewer errors when equally deep', () => {
    const schema = {
      oneOf: [
        { type: 'object', required: ['a', 'b', 'c'] },
        { type: 'object', required: ['d'] },
      ],
    };
    expect(pairs(detailsFor(schema, {}))).toEqual([{ path: '/d', code: 'required' }]);
  });

  test('merges single-property alternatives into one required detail', () => {
    const schema = { type: 'object', anyOf: [{ required: ['s3Key'] }, { required: ['key'] }] };
    expect(detailsFor(schema, {}, '/files/0')).toEqual([{ path: '/files/0/s3Key', code: 'required', message: 'is required (or one of: s3Key, key)' }]);
  });

  test('reports a oneOf matched by several branches as one oneOf detail', () => {
    const schema = { oneOf: [{ type: 'number' }, { minimum: 0 }, { type: 'string' }] };
    expect(pairs(detailsFor(schema, 5))).toEqual([{ path: '', code: 'oneOf' }]);
  });

  test('drops the if error and keeps the then errors', () => {
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema's if/then keyword, not a thenable
    const schema = { if: { properties: { kind: { const: 'card' } } }, then: { required: ['last4'] } };
    expect(pairs(detailsFor(schema, { kind: 'card' }))).toEqual([{ path: '/last4', code: 'required' }]);
  });

  test('lists the allowed tags of a discriminated union', () => {
    const schema = {
      type: 'object',
      discriminator: { propertyName: 'kind' },
      oneOf: [
        { properties: { kind: { const: 'a' } }, required: ['kind'] },
        { properties: { kind: { enum: ['b', 'c'] } }, required: ['kind'] },
      ],
    };
    expect(detailsFor(schema, { kind: 'z' })).toEqual([{ path: '/kind', code: 'enum', message: 'must be one of: a, b, c' }]);
  });

  test('shortens long enum lists', () => {
    const values = Array.from({ length: 30 }, (_, i) => `V${i}`);
    expect(detailsFor({ enum: values }, 'x')).toEqual([{ path: '', code: 'enum', message: 'must be one of the 30 allowed values' }]);
  });

  test('uses the readable pattern message when the schema has one', () => {
    expect(detailsFor({ type: 'string', pattern: '^[0-9]{4}$', [PATTERN_MESSAGE_KEYWORD]: 'must be exactly 4 digits' }, '12')).toEqual([
      { path: '', code: 'pattern', message: 'must be exactly 4 digits' },
    ]);
  });

  test.each([
    {
      name: 'maxLength',
      schema: { type: 'string', maxLength: 2 },
      value: 'abc',
      expected: { path: '', code: 'maxLength', message: 'must have at most 2 characters' },
    },
    { name: 'minItems', schema: { type: 'array', minItems: 1 }, value: [], expected: { path: '', code: 'minItems', message: 'must have at least 1 item' } },
    { name: 'exclusiveMaximum', schema: { exclusiveMaximum: 5 }, value: 5, expected: { path: '', code: 'exclusiveMaximum', message: 'must be < 5' } },
    { name: 'multipleOf', schema: { multipleOf: 0.5 }, value: 0.3, expected: { path: '', code: 'multipleOf', message: 'must be a multiple of 0.5' } },
    { name: 'const', schema: { const: 'CARD' }, value: 'X', expected: { path: '', code: 'const', message: 'must be "CARD"' } },
    {
      name: 'maxProperties',
      schema: { maxProperties: 1 },
      value: { a: 1, b: 2 },
      expected: { path: '', code: 'maxProperties', message: 'must have at most 1 property' },
    },
    { name: 'not', schema: { not: { type: 'string' } }, value: 'x', expected: { path: '', code: 'not', message: 'must not match the excluded shape' } },
    { name: 'false schema', schema: { properties: { x: false } }, value: { x: 1 }, expected: { path: '/x', code: 'false-schema', message: 'is not allowed' } },
    {
      name: 'dependencies',
      schema: { dependencies: { a: ['b'] } },
      value: { a: 1 },
      expected: { path: '/b', code: 'required', message: 'is required when a is present' },
    },
    {
      name: 'currency format',
      schema: { type: 'string', format: 'currency-code' },
      value: 'usd',
      expected: { path: '', code: 'format', message: 'must be an ISO 4217 currency code' },
    },
  ])('maps $name', ({ schema, value, expected }) => {
    expect(detailsFor(schema, value)).toEqual([expected]);
  });

  test('never copies the offending value into a message', () => {
    const secret = 'PII-4111111111111111';
    const schema = {
      type: 'object',
      properties: { a: { enum: ['x'] }, b: { type: 'string', maxLength: 3 }, c: { const: 'y' }, d: { type: 'number' } },
      propertyNames: { maxLength: 40 },
    };
    for (const detail of detailsFor(schema, { a: secret, b: secret, c: secret, d: secret })) {
      expect(detail.message).not.toContain(secret);
    }
  });

  test('removes duplicates of the same path and code', () => {
    const errors = [
      { keyword: 'required', instancePath: '', schemaPath: '#/required', params: { missingProperty: 'a' } },
      { keyword: 'required', instancePath: '', schemaPath: '#/allOf/0/required', params: { missingProperty: 'a' } },
    ] as ErrorObject[];
    expect(pairs(mapAjvErrors(errors))).toEqual([{ path: '/a', code: 'required' }]);
  });

  test('falls back to the keyword for unknown keywords', () => {
    const errors = [{ keyword: 'x-custom', instancePath: '/a', schemaPath: '#/x', params: {} }] as ErrorObject[];
    expect(mapAjvErrors(errors, '/base')).toEqual([{ path: '/base/a', code: 'x-custom', message: 'must satisfy the "x-custom" constraint' }]);
  });

  test(`keeps at most ${MAX_ERROR_DETAILS} details`, () => {
    const schema = { type: 'array', items: { type: 'string' } };
    expect(
      detailsFor(
        schema,
        Array.from({ length: 100 }, (_, i) => i),
      ),
    ).toHaveLength(MAX_ERROR_DETAILS);
  });
});
