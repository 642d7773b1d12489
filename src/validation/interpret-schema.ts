/**
 * Answers "does this schema accept this value?" by walking the schema, without compiling it. ajv's
 * compilation costs a few to over 100 ms per schema; {@link interpretSchema} costs microseconds,
 * so a check that runs once per schema at import (`defineRule`'s development check of a rule's
 * defaults) asks it first and compiles only when it cannot tell.
 *
 * It knows the keywords rule parameter schemas use and follows ajv's semantics for them as txmon
 * configures ajv (`strictNumbers`, Unicode patterns and lengths, txmon's formats). Anything else (a
 * `$ref`, a `discriminator`, an unknown format, a tuple, a deep `const`…) makes the answer
 * `unknown`: ajv decides then. It never answers `accepted` or `rejected` where ajv would not.
 */
import { FORMAT_CHECKS } from './ajv.js';

/** What {@link interpretSchema} can say: ajv would accept, ajv would reject, or it cannot tell. */
export type SchemaVerdict = 'accepted' | 'rejected' | 'unknown';

/** Options of {@link interpretSchema}. */
export interface InterpretSchemaOptions {
  /**
   * Ignore the top-level `required` (default `false`): the verdict is then that of the schema
   * without its own `required` list (nested ones still apply).
   */
  readonly ignoreTopLevelRequired?: boolean;
}

/** Keywords that only annotate: ajv validates nothing with them. */
const ANNOTATIONS: ReadonlySet<string> = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);

/** Keywords {@link interpretSchema} applies; any other (but annotations and `x-…`) makes the verdict `unknown`. */
const APPLIED: ReadonlySet<string> = new Set([
  'type',
  'const',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
]);

/** A verdict that is not yet `rejected` becomes `unknown` when anything is unknown. */
class Unknown extends Error {}

/**
 * Whether ajv (as txmon configures it, see `createAjv`) would accept `value` against `schema`:
 * `accepted` or `rejected` when the walk is sure, `unknown` when the schema uses something it does
 * not interpret. Never throws, never compiles, never mutates.
 *
 * @example
 * ```ts
 * interpretSchema(Type.Object({ limit: Type.Integer({ minimum: 0 }) }), { limit: 3 }); // 'accepted'
 * interpretSchema(Type.Ref('Limit'), 3); // 'unknown'
 * ```
 */
export function interpretSchema(schema: unknown, value: unknown, options: InterpretSchemaOptions = {}): SchemaVerdict {
  try {
    return accepts(schema, value, options.ignoreTopLevelRequired === true) ? 'accepted' : 'rejected';
  } catch (error) {
    if (error instanceof Unknown) return 'unknown';
    throw error;
  }
}

function unknown(): never {
  throw new Unknown();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** ajv's `type` check with `strictNumbers`: NaN and ±Infinity are no numbers. */
function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      return unknown();
  }
}

/** The regular expression ajv builds for a pattern (`unicodeRegExp`: flag `u`). */
function regExpOf(pattern: unknown): RegExp {
  if (typeof pattern !== 'string') return unknown();
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return unknown();
  }
}

function numberLimit(limit: unknown): number {
  return typeof limit === 'number' && Number.isFinite(limit) ? limit : unknown();
}

/** Equality for `const` and `enum` over primitive schema values; anything deeper is left to ajv. */
function equalsPrimitive(value: unknown, expected: unknown): boolean {
  if (!isPrimitive(expected)) return unknown();
  return value === expected;
}

function accepts(schema: unknown, value: unknown, ignoreRequired: boolean): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  if (!isObject(schema)) return unknown();
  // Not JSON: left to ajv.
  if (typeof value === 'number' && !Number.isFinite(value)) return unknown();
  // Every keyword must be known before any verdict: an unknown one could reject what the rest accepts.
  for (const keyword of Object.keys(schema)) {
    if (!APPLIED.has(keyword) && !ANNOTATIONS.has(keyword) && !keyword.startsWith('x-')) return unknown();
  }
  let ok = true;
  const fail = () => {
    ok = false;
  };

  const type = schema['type'];
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.some((t) => hasType(value, t))) fail();
  }
  if ('const' in schema && !equalsPrimitive(value, schema['const'])) fail();
  if ('enum' in schema) {
    const values = schema['enum'];
    if (!Array.isArray(values)) return unknown();
    if (!values.some((v) => equalsPrimitive(value, v))) fail();
  }

  if (typeof value === 'number') {
    if (schema['minimum'] !== undefined && value < numberLimit(schema['minimum'])) fail();
    if (schema['maximum'] !== undefined && value > numberLimit(schema['maximum'])) fail();
    if (schema['exclusiveMinimum'] !== undefined && value <= numberLimit(schema['exclusiveMinimum'])) fail();
    if (schema['exclusiveMaximum'] !== undefined && value >= numberLimit(schema['exclusiveMaximum'])) fail();
  }

  if (typeof value === 'string') {
    // ajv counts code points (`unicode`), as the spread does.
    const needsLength = schema['minLength'] !== undefined || schema['maxLength'] !== undefined;
    const length = needsLength ? [...value].length : 0;
    if (schema['minLength'] !== undefined && length < numberLimit(schema['minLength'])) fail();
    if (schema['maxLength'] !== undefined && length > numberLimit(schema['maxLength'])) fail();
    if (schema['pattern'] !== undefined && !regExpOf(schema['pattern']).test(value)) fail();
    const format = schema['format'];
    if (format !== undefined) {
      const check = typeof format === 'string' && Object.hasOwn(FORMAT_CHECKS, format) ? FORMAT_CHECKS[format] : undefined;
      if (check === undefined) return unknown();
      if (!check(value)) fail();
    }
  } else if (schema['format'] !== undefined && !(typeof schema['format'] === 'string' && Object.hasOwn(FORMAT_CHECKS, schema['format']))) {
    return unknown();
  }

  if (isObject(value) && !acceptsObject(schema, value, ignoreRequired)) fail();
  if (Array.isArray(value) && !acceptsArray(schema, value)) fail();

  const anyOf = schema['anyOf'];
  if (anyOf !== undefined) {
    if (!Array.isArray(anyOf) || anyOf.length === 0) return unknown();
    if (!anyOf.some((branch) => accepts(branch, value, false))) fail();
  }
  const oneOf = schema['oneOf'];
  if (oneOf !== undefined) {
    if (!Array.isArray(oneOf) || oneOf.length === 0) return unknown();
    if (oneOf.filter((branch) => accepts(branch, value, false)).length !== 1) fail();
  }
  const allOf = schema['allOf'];
  if (allOf !== undefined) {
    if (!Array.isArray(allOf) || allOf.length === 0) return unknown();
    if (!allOf.every((branch) => accepts(branch, value, false))) fail();
  }
  if (schema['not'] !== undefined && accepts(schema['not'], value, false)) fail();
  return ok;
}

function acceptsObject(schema: Record<string, unknown>, value: Record<string, unknown>, ignoreRequired: boolean): boolean {
  let ok = true;
  const required = schema['required'];
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) return unknown();
    // ajv (`ownProperties: false`): a property is missing when reading it gives undefined.
    if (!ignoreRequired && !required.every((name: string) => value[name] !== undefined)) ok = false;
  }
  const properties = schema['properties'];
  if (properties !== undefined && !isObject(properties)) return unknown();
  const patternProperties = schema['patternProperties'];
  if (patternProperties !== undefined && !isObject(patternProperties)) return unknown();
  const patterns = Object.entries(patternProperties ?? {}).map(([pattern, sub]) => [regExpOf(pattern), sub] as const);
  const additional = schema['additionalProperties'];
  const propertyNames = schema['propertyNames'];

  for (const [name, sub] of Object.entries(properties ?? {})) {
    // ajv skips a property whose value is undefined.
    if (value[name] !== undefined && !accepts(sub, value[name], false)) ok = false;
  }
  // for…in, as ajv iterates the data's keys.
  for (const key in value) {
    const item = value[key];
    let matched = properties !== undefined && Object.hasOwn(properties, key);
    for (const [pattern, sub] of patterns) {
      if (!pattern.test(key)) continue;
      matched = true;
      if (!accepts(sub, item, false)) ok = false;
    }
    if (!matched && additional !== undefined && !accepts(additional, item, false)) ok = false;
    if (propertyNames !== undefined && !accepts(propertyNames, key, false)) ok = false;
  }
  if (schema['minProperties'] !== undefined && Object.keys(value).length < numberLimit(schema['minProperties'])) ok = false;
  if (schema['maxProperties'] !== undefined && Object.keys(value).length > numberLimit(schema['maxProperties'])) ok = false;
  return ok;
}

function acceptsArray(schema: Record<string, unknown>, value: readonly unknown[]): boolean {
  let ok = true;
  const items = schema['items'];
  if (items !== undefined) {
    if (Array.isArray(items)) return unknown();
    for (const item of value) if (!accepts(items, item, false)) ok = false;
  }
  if (schema['minItems'] !== undefined && value.length < numberLimit(schema['minItems'])) ok = false;
  if (schema['maxItems'] !== undefined && value.length > numberLimit(schema['maxItems'])) ok = false;
  if (schema['uniqueItems'] === true) {
    if (!value.every(isPrimitive)) return unknown();
    if (new Set(value).size !== value.length) ok = false;
  } else if (schema['uniqueItems'] !== undefined && schema['uniqueItems'] !== false) {
    return unknown();
  }
  return ok;
}
