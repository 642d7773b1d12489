/**
 * Turns ajv errors into txmon error details: JSON-Pointer paths, the ajv keyword as code, and a
 * message that names the constraint but never the offending value.
 */
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../errors.js';
import { CALENDAR_DATE_FORMAT, COUNTRY_CODE_FORMAT, CURRENCY_CODE_FORMAT } from './ajv.js';
import { appendPointer } from './pointer.js';

/**
 * Schema annotation holding a readable message for a `pattern` failure (instead of the regex),
 * e.g. `Type.String({ pattern: '^[0-9]{4}$', [PATTERN_MESSAGE_KEYWORD]: 'must be exactly 4 digits' })`.
 */
export const PATTERN_MESSAGE_KEYWORD = 'x-pattern-message';

/** Most details kept in one error. */
export const MAX_ERROR_DETAILS = 20;

/** Most allowed values listed in an `enum` message before it is shortened. */
const MAX_LISTED_VALUES = 20;

const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  [COUNTRY_CODE_FORMAT]: 'must be an ISO 3166-1 alpha-2 country code',
  [CURRENCY_CODE_FORMAT]: 'must be an ISO 4217 currency code',
  [CALENDAR_DATE_FORMAT]: 'must be a calendar date YYYY-MM-DD',
};

type Params = Record<string, unknown>;

function depthOf(pointer: string): number {
  let depth = 0;
  for (let i = 0; i < pointer.length; i += 1) if (pointer.charCodeAt(i) === 47 /* / */) depth += 1;
  return depth;
}

function listValues(values: readonly unknown[]): string {
  if (values.length > MAX_LISTED_VALUES) return `one of the ${values.length} allowed values`;
  return `one of: ${values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ')}`;
}

/** Allowed tag values of a discriminated `oneOf` (from the error's parent schema). */
function discriminatorValues(error: ErrorObject, tag: string): unknown[] {
  const parent = error.parentSchema as { oneOf?: unknown } | undefined;
  const values: unknown[] = [];
  if (parent === undefined || !Array.isArray(parent.oneOf)) return values;
  for (const branch of parent.oneOf as unknown[]) {
    const property = (branch as { properties?: Record<string, { const?: unknown; enum?: unknown }> } | null)?.properties?.[tag];
    if (property === undefined) continue;
    if (property.const !== undefined) values.push(property.const);
    else if (Array.isArray(property.enum)) values.push(...(property.enum as unknown[]));
  }
  return values;
}

function limitMessage(params: Params, unit: string, atLeast: boolean): string {
  const limit = Number(params['limit']);
  return `must have at ${atLeast ? 'least' : 'most'} ${limit} ${unit}${limit === 1 ? '' : 's'}`;
}

/** Maps one ajv error (after union collapsing) to a detail, with `basePath` prefixed. */
function toDetail(error: ErrorObject, basePath: string): ErrorDetail {
  const params = error.params as Params;
  const path = basePath + error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path: appendPointer(path, String(params['missingProperty'])), code: 'required', message: 'is required' };
    case 'dependentRequired':
    case 'dependencies':
      return {
        path: appendPointer(path, String(params['missingProperty'])),
        code: 'required',
        message: `is required when ${String(params['property'])} is present`,
      };
    case 'additionalProperties':
      return {
        path: appendPointer(path, String(params['additionalProperty'])),
        code: 'additionalProperties',
        message: 'is not an allowed property',
      };
    case 'discriminator': {
      const tag = String(params['tag']);
      const tagPath = appendPointer(path, tag);
      if (params['error'] === 'mapping') {
        return { path: tagPath, code: 'enum', message: `must be ${listValues(discriminatorValues(error, tag))}` };
      }
      if (params['tagValue'] === undefined) return { path: tagPath, code: 'required', message: 'is required' };
      return { path: tagPath, code: 'type', message: 'must be a string' };
    }
    case 'type': {
      const type = params['type'];
      return { path, code: 'type', message: `must be of type ${Array.isArray(type) ? type.join(' or ') : String(type)}` };
    }
    case 'enum':
      return { path, code: 'enum', message: `must be ${listValues((params['allowedValues'] as unknown[] | undefined) ?? [])}` };
    case 'const':
      return { path, code: 'const', message: `must be ${JSON.stringify(params['allowedValue'])}` };
    case 'format': {
      const format = String(params['format']);
      return { path, code: 'format', message: FORMAT_MESSAGES[format] ?? `must match format "${format}"` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path, code: error.keyword, message: `must be ${String(params['comparison'])} ${String(params['limit'])}` };
    case 'multipleOf':
      return { path, code: 'multipleOf', message: `must be a multiple of ${String(params['multipleOf'])}` };
    case 'minLength':
      return { path, code: 'minLength', message: limitMessage(params, 'character', true) };
    case 'maxLength':
      return { path, code: 'maxLength', message: limitMessage(params, 'character', false) };
    case 'minItems':
      return { path, code: 'minItems', message: limitMessage(params, 'item', true) };
    case 'maxItems':
      return { path, code: 'maxItems', message: limitMessage(params, 'item', false) };
    case 'minProperties':
      return { path, code: 'minProperties', message: limitMessage(params, 'property', true).replace('propertys', 'properties') };
    case 'maxProperties':
      return { path, code: 'maxProperties', message: limitMessage(params, 'property', false).replace('propertys', 'properties') };
    case 'uniqueItems':
      return {
        path,
        code: 'uniqueItems',
        message: `must not contain duplicate items (items ${String(params['j'])} and ${String(params['i'])} are equal)`,
      };
    case 'pattern': {
      const custom = (error.parentSchema as Record<string, unknown> | undefined)?.[PATTERN_MESSAGE_KEYWORD];
      return { path, code: 'pattern', message: typeof custom === 'string' ? custom : `must match pattern ${String(params['pattern'])}` };
    }
    case 'propertyNames':
      return { path: appendPointer(path, String(params['propertyName'])), code: 'propertyNames', message: 'is not an allowed property name' };
    case 'oneOf':
      return { path, code: 'oneOf', message: 'must match exactly one of the allowed shapes' };
    case 'anyOf':
      return { path, code: 'anyOf', message: 'must match at least one of the allowed shapes' };
    case 'not':
      return { path, code: 'not', message: 'must not match the excluded shape' };
    case 'false schema':
      return { path, code: 'false-schema', message: 'is not allowed' };
    default:
      return { path, code: error.keyword, message: `must satisfy the "${error.keyword}" constraint` };
  }
}

/**
 * Collapses the noise of unions: for each failed `anyOf`/`oneOf`, keeps the errors of the single
 * most promising branch (the one that got deepest into the data, then the one with the fewest
 * errors) and drops the union's own error. When every branch failed only for one missing property
 * at the same place (e.g. "`s3Key` or `key`"), they become one `required` detail naming all options.
 * Drops `if` errors (the `then`/`else` errors say what is wrong).
 */
function collapseUnions(errors: readonly ErrorObject[], basePath: string): (ErrorObject | ErrorDetail)[] {
  const removed = new Set<number>();
  const replacements = new Map<number, ErrorDetail>();
  const unions = errors
    .map((error, index) => ({ error, index }))
    .filter(({ error }) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .sort((a, b) => a.error.schemaPath.length - b.error.schemaPath.length || a.index - b.index);

  for (const { error: union, index: unionIndex } of unions) {
    if (removed.has(unionIndex)) continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, number[]>();
    errors.forEach((error, index) => {
      if (index === unionIndex || removed.has(index)) return;
      if (!error.schemaPath.startsWith(prefix) || !error.instancePath.startsWith(union.instancePath)) return;
      const branch = error.schemaPath.slice(prefix.length).split('/', 1)[0] ?? '';
      const members = branches.get(branch);
      if (members === undefined) branches.set(branch, [index]);
      else members.push(index);
    });
    if (branches.size === 0) continue;
    if (union.keyword === 'oneOf' && (union.params as Params)['passingSchemas'] != null) {
      // Several branches matched: the failing branches are irrelevant, the union error says it all.
      for (const members of branches.values()) for (const index of members) removed.add(index);
      continue;
    }

    const groups = [...branches.values()];
    const alternatives = groups.map((members) => (members.length === 1 ? errors[members[0] as number] : undefined));
    const allSingleRequired = alternatives.every((error) => error !== undefined && error.keyword === 'required' && error.instancePath === union.instancePath);
    if (allSingleRequired) {
      const names = alternatives.map((error) => String((error?.params as Params | undefined)?.['missingProperty']));
      for (const members of groups) for (const index of members) removed.add(index);
      replacements.set(unionIndex, {
        path: appendPointer(basePath + union.instancePath, names[0] ?? ''),
        code: 'required',
        message: `is required (or one of: ${names.join(', ')})`,
      });
      continue;
    }

    let best: number[] | undefined;
    let bestDepth = -1;
    for (const members of groups) {
      const depth = Math.max(...members.map((index) => depthOf((errors[index] as ErrorObject).instancePath)));
      if (best === undefined || depth > bestDepth || (depth === bestDepth && members.length < best.length)) {
        best = members;
        bestDepth = depth;
      }
    }
    for (const members of groups) if (members !== best) for (const index of members) removed.add(index);
    removed.add(unionIndex);
  }

  const result: (ErrorObject | ErrorDetail)[] = [];
  errors.forEach((error, index) => {
    const replacement = replacements.get(index);
    if (replacement !== undefined) result.push(replacement);
    else if (!removed.has(index) && error.keyword !== 'if') result.push(error);
  });
  return result;
}

/**
 * Maps ajv's errors to txmon details: paths are JSON Pointers prefixed with `basePath` (for
 * `required` the missing property is appended; for `additionalProperties` the extra key), codes are
 * ajv keywords, messages never contain input values. Union noise is collapsed, duplicates removed,
 * the order is ajv's (schema order, deterministic) and at most {@link MAX_ERROR_DETAILS} are kept.
 */
export function mapAjvErrors(errors: readonly ErrorObject[] | null | undefined, basePath = ''): ErrorDetail[] {
  if (errors === null || errors === undefined || errors.length === 0) return [];
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const item of collapseUnions(errors, basePath)) {
    const detail = 'keyword' in item ? toDetail(item, basePath) : item;
    const key = `${detail.path}\u0000${detail.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
    if (details.length === MAX_ERROR_DETAILS) break;
  }
  return details;
}
