/**
 * Parameters of any rule, drawn from its `parametersSchema`: the rule's defaults with some
 * parameters replaced by values the schema allows (small numbers, the testing currencies and
 * countries, every literal of a union), kept only when the rule accepts them. Covers the JSON
 * Schema the library's rules use (objects, records, arrays, unions of literals, integers, numbers,
 * strings with the txmon formats, booleans).
 */
import fc from 'fast-check';
import { TESTING_COUNTRIES, TESTING_CURRENCIES } from '../../src/testing/arbitraries.js';
import type { AnyRuleDefinition } from '../../src/rules/types.js';
import { collectSchemaErrors } from '../../src/validation/index.js';

type JsonSchema = {
  readonly type?: string;
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: string;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly patternProperties?: Readonly<Record<string, JsonSchema>>;
  readonly propertyNames?: JsonSchema;
  readonly minProperties?: number;
};

/** Values a schema allows, biased to small ones (so windows, limits and thresholds are reached). */
export function valueArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map(valueArbitrary));
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = schema.minimum ?? 0;
      return fc.integer({ min, max: Math.min(schema.maximum ?? min + 100, min + 10) });
    }
    case 'number': {
      const min = Math.ceil(schema.minimum ?? 0);
      const max = Math.min(schema.maximum ?? 1000, 1000);
      return fc.oneof(
        fc.integer({ min, max }),
        fc.integer({ min: min * 100, max: max * 100 }).map((cents) => cents / 100),
      );
    }
    case 'string':
      if (schema.format === 'currency-code') return fc.constantFrom(...TESTING_CURRENCIES, 'JPY');
      if (schema.format === 'country-code') return fc.constantFrom(...TESTING_COUNTRIES);
      return fc.oneof(
        fc.constantFrom('internal-blacklist', 'abc', 'Hello world'),
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 12, 12) }),
      );
    case 'array': {
      const items = valueArbitrary(schema.items ?? {});
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) };
      return schema.uniqueItems === true ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) }) : fc.array(items, constraints);
    }
    case 'object': {
      if (schema.patternProperties !== undefined) {
        const value = valueArbitrary(Object.values(schema.patternProperties)[0] ?? {});
        const key = schema.propertyNames?.format === 'currency-code' ? fc.constantFrom(...TESTING_CURRENCIES, 'JPY') : fc.constantFrom('k1', 'k2');
        return fc.dictionary(key, value, { minKeys: schema.minProperties ?? 0, maxKeys: 3 });
      }
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) shape[key] = valueArbitrary(property);
      return fc.record(shape, { requiredKeys: [...(schema.required ?? [])] });
    }
    default:
      return fc.constant(undefined);
  }
}

/**
 * Valid parameters of `rule`: its defaults with a random subset of its parameters drawn from the
 * schema, or a whole parameter set drawn from it; only sets the schema and `validateParameters`
 * accept.
 */
export function schemaParametersArbitrary(rule: AnyRuleDefinition): fc.Arbitrary<Record<string, unknown>> {
  const schema = JSON.parse(JSON.stringify(rule.parametersSchema)) as JsonSchema;
  const drawn = valueArbitrary(schema) as fc.Arbitrary<Record<string, unknown>>;
  const overDefaults = fc.tuple(drawn, fc.subarray(Object.keys(schema.properties ?? {}))).map(([values, keys]) => {
    const parameters: Record<string, unknown> = { ...(rule.defaultParameters as Record<string, unknown>) };
    for (const key of keys) if (values[key] !== undefined) parameters[key] = values[key];
    return parameters;
  });
  const valid = (parameters: Record<string, unknown>) =>
    collectSchemaErrors(rule.parametersSchema, parameters).length === 0 && (rule.validateParameters?.(parameters).length ?? 0) === 0;
  return fc.oneof({ arbitrary: overDefaults, weight: 3 }, { arbitrary: drawn, weight: 1 }).filter(valid);
}
