import { describe, expect, test } from 'vitest';
import { test as propTest, fc } from '@fast-check/vitest';
import { Type, type TSchema } from '@sinclair/typebox';
import { LIBRARY_RULES } from '../../src/rules/registry.js';
import { ajv } from '../../src/validation/ajv.js';
import { interpretSchema, type SchemaVerdict } from '../../src/validation/interpret-schema.js';
import { valueArbitrary } from '../arbitraries/rule-parameters.js';

/** ajv's own answer, compiled once per schema object by ajv's cache. */
function ajvAccepts(schema: unknown, value: unknown): boolean {
  return ajv.validate(schema as object, value) as boolean;
}

/** The law: whenever the walk is sure, ajv agrees. */
function expectAgreesWithAjv(schema: unknown, value: unknown): SchemaVerdict {
  const verdict = interpretSchema(schema, value);
  if (verdict !== 'unknown') expect(verdict, JSON.stringify(value)).toBe(ajvAccepts(schema, value) ? 'accepted' : 'rejected');
  return verdict;
}

const Limit = Type.Object(
  {
    limit: Type.Integer({ minimum: 0, maximum: 10 }),
    ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
    currency: Type.Optional(Type.String({ format: 'currency-code' })),
    name: Type.Optional(Type.String({ minLength: 2, maxLength: 3, pattern: '^[a-z😀]+$' })),
    mode: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('none')])),
    tags: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 2, uniqueItems: true })),
    amounts: Type.Optional(
      Type.Record(Type.String(), Type.Number({ minimum: 0 }), { minProperties: 1, maxProperties: 2, propertyNames: { format: 'currency-code' } }),
    ),
  },
  { additionalProperties: false },
);

describe('interpretSchema', () => {
  const rows: { name: string; value: unknown; expected: SchemaVerdict }[] = [
    { name: 'an integer exactly at the minimum', value: { limit: 0 }, expected: 'accepted' },
    { name: 'an integer one below the minimum', value: { limit: -1 }, expected: 'rejected' },
    { name: 'an integer exactly at the maximum', value: { limit: 10 }, expected: 'accepted' },
    { name: 'an integer one above the maximum', value: { limit: 11 }, expected: 'rejected' },
    { name: 'a non-integer for an integer', value: { limit: 1.5 }, expected: 'rejected' },
    { name: 'a number at an exclusive minimum', value: { limit: 1, ratio: 0 }, expected: 'rejected' },
    { name: 'a number just above an exclusive minimum', value: { limit: 1, ratio: 0.001 }, expected: 'accepted' },
    { name: 'a number at an exclusive maximum', value: { limit: 1, ratio: 1 }, expected: 'rejected' },
    { name: 'a known currency', value: { limit: 1, currency: 'EUR' }, expected: 'accepted' },
    { name: 'an unknown currency', value: { limit: 1, currency: 'EUX' }, expected: 'rejected' },
    { name: 'a string of the shortest length', value: { limit: 1, name: 'ab' }, expected: 'accepted' },
    { name: 'a string one character too short', value: { limit: 1, name: 'a' }, expected: 'rejected' },
    { name: 'three code points in four UTF-16 units', value: { limit: 1, name: 'a😀b' }, expected: 'accepted' },
    { name: 'a string the pattern refuses', value: { limit: 1, name: 'AB' }, expected: 'rejected' },
    { name: 'a literal of the union', value: { limit: 1, mode: 'none' }, expected: 'accepted' },
    { name: 'a string outside the union', value: { limit: 1, mode: 'some' }, expected: 'rejected' },
    { name: 'an array at its most items', value: { limit: 1, tags: ['a', 'b'] }, expected: 'accepted' },
    { name: 'an array one item over', value: { limit: 1, tags: ['a', 'b', 'c'] }, expected: 'rejected' },
    { name: 'an empty array under minItems', value: { limit: 1, tags: [] }, expected: 'rejected' },
    { name: 'duplicate items', value: { limit: 1, tags: ['a', 'a'] }, expected: 'rejected' },
    { name: 'a record with a known currency key', value: { limit: 1, amounts: { EUR: 5 } }, expected: 'accepted' },
    { name: 'a record with an unknown currency key', value: { limit: 1, amounts: { EURO: 5 } }, expected: 'rejected' },
    { name: 'an empty record under minProperties', value: { limit: 1, amounts: {} }, expected: 'rejected' },
    { name: 'a record over maxProperties', value: { limit: 1, amounts: { EUR: 1, USD: 2, GBP: 3 } }, expected: 'rejected' },
    { name: 'a missing required property', value: {}, expected: 'rejected' },
    { name: 'an optional property given as undefined', value: { limit: 1, ratio: undefined }, expected: 'accepted' },
    { name: 'an additional property', value: { limit: 1, extra: true }, expected: 'rejected' },
    { name: 'an array for the object', value: [], expected: 'rejected' },
    { name: 'null for the object', value: null, expected: 'rejected' },
  ];
  for (const row of rows) {
    test(`${row.expected === 'accepted' ? 'accepts' : 'rejects'} ${row.name}, as ajv does`, () => {
      expect(expectAgreesWithAjv(Limit, row.value)).toBe(row.expected);
    });
  }

  test('ignores only the top-level required list when asked', () => {
    expect(interpretSchema(Limit, {}, { ignoreTopLevelRequired: true })).toBe('accepted');
    const nested = Type.Object({ inner: Type.Object({ a: Type.Number() }) });
    expect(interpretSchema(nested, { inner: {} }, { ignoreTopLevelRequired: true })).toBe('rejected');
  });

  const unknowns: { name: string; schema: unknown; value: unknown }[] = [
    { name: 'a reference', schema: Type.Ref('Limit'), value: 1 },
    {
      name: 'a discriminator',
      schema: { type: 'object', oneOf: [Type.Object({ kind: Type.Literal('a') })], discriminator: { propertyName: 'kind' } },
      value: { kind: 'a' },
    },
    { name: 'a format txmon does not define', schema: Type.String({ format: 'email' }), value: 'a@b.c' },
    { name: 'a tuple', schema: Type.Tuple([Type.Number()]), value: [1] },
    { name: 'a const object', schema: { const: { a: 1 } }, value: { a: 1 } },
    { name: 'unique object items', schema: Type.Array(Type.Object({}), { uniqueItems: true }), value: [{}, {}] },
    { name: 'multipleOf', schema: Type.Number({ multipleOf: 0.1 }), value: 0.3 },
    { name: 'a keyword ajv knows and the walk does not', schema: { type: 'object', dependentRequired: { a: ['b'] } }, value: { a: 1 } },
    { name: 'a schema that is not an object', schema: 'number', value: 1 },
    { name: 'a non-finite number', schema: Type.Number(), value: Number.NaN },
  ];
  for (const row of unknowns) {
    test(`leaves ${row.name} to ajv`, () => {
      expect(interpretSchema(row.schema, row.value)).toBe('unknown');
    });
  }

  test('decides every library rule’s defaults (required parameters left out) without compiling', () => {
    const undecided = LIBRARY_RULES.filter(
      (rule) => interpretSchema(rule.parametersSchema, rule.defaultParameters, { ignoreTopLevelRequired: true }) !== 'accepted',
    );
    expect(undecided.map((rule) => rule.id)).toEqual([]);
  });

  describe('properties', () => {
    /** A value of `schema`, sometimes with one property (at any depth) replaced by any JSON. */
    function nearValue(schema: TSchema): fc.Arbitrary<unknown> {
      const plain = JSON.parse(JSON.stringify(schema)) as Parameters<typeof valueArbitrary>[0];
      const replace = (value: unknown, path: readonly string[], replacement: unknown): unknown => {
        if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
        const [head, ...rest] = path as [string, ...string[]];
        const copy: Record<string, unknown> = Array.isArray(value)
          ? ([...value] as unknown as Record<string, unknown>)
          : { ...(value as Record<string, unknown>) };
        copy[head] = replace(copy[head], rest, replacement);
        return copy;
      };
      const keysOf = (value: unknown): string[][] =>
        typeof value !== 'object' || value === null
          ? []
          : Object.keys(value).flatMap((key) => [[key], ...keysOf((value as Record<string, unknown>)[key]).map((rest) => [key, ...rest])]);
      return valueArbitrary(plain).chain((value) => {
        const paths = keysOf(value);
        return fc.oneof(
          fc.constant(value),
          paths.length === 0
            ? fc.jsonValue()
            : fc.tuple(fc.constantFrom(...paths), fc.jsonValue({ maxDepth: 2 })).map(([path, json]) => replace(value, path, json)),
        );
      });
    }

    const rules = fc.constantFrom(...LIBRARY_RULES);
    propTest.prop([rules.chain((rule) => fc.tuple(fc.constant(rule), nearValue(rule.parametersSchema)))], { numRuns: 300 })(
      'whenever it is sure, ajv agrees: for the parameters of every library rule, valid or not',
      ([rule, value]) => {
        expectAgreesWithAjv(rule.parametersSchema, value);
      },
    );

    propTest.prop([fc.jsonValue({ maxDepth: 3 })])('whenever it is sure, ajv agrees: for any JSON against a schema of every kind of keyword', (value) => {
      expectAgreesWithAjv(Limit, value);
      expectAgreesWithAjv(Type.Union([Type.Number({ minimum: 0 }), Type.String({ minLength: 1 }), Type.Null()]), value);
      expectAgreesWithAjv(Type.Array(Type.Union([Type.String(), Type.Integer()]), { uniqueItems: true }), value);
    });
  });
});
