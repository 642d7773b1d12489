/**
 * What a custom rule's json-logic may use: the operator allowlist, the data roots and the limits.
 *
 * The allowlist is json-logic-js 2.0.5's own operator set minus `log` (console side effect) and
 * minus `method` (older json-logic-js versions call arbitrary methods through it). Nothing is added.
 */

/**
 * Operators a custom rule may use, with json-logic-js 2.0.5 semantics.
 *
 * Logic and comparison, arithmetic, data access (`var`, `missing`, `missing_some`), strings and
 * arrays. `method` and `log` are deliberately absent, as is every host-registered operation.
 */
export const LOGIC_OPERATORS: readonly string[] = Object.freeze([
  // logic and comparison
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  'if',
  '?:',
  '>',
  '>=',
  '<',
  '<=',
  // arithmetic
  '+',
  '-',
  '*',
  '/',
  '%',
  'min',
  'max',
  // data access
  'var',
  'missing',
  'missing_some',
  // strings and membership
  'in',
  'cat',
  'substr',
  // arrays
  'map',
  'filter',
  'reduce',
  'all',
  'none',
  'some',
  'merge',
]);

/**
 * The first segment every top-level `var` / `missing` path must start with.
 * `agg.<key>` reads the value of the instance's aggregation variable `key`.
 */
export const LOGIC_ROOTS = Object.freeze(['transaction', 'originUser', 'destinationUser', 'agg'] as const);

/** One of {@link LOGIC_ROOTS}. */
export type LogicRoot = (typeof LOGIC_ROOTS)[number];

/** Path segments that are rejected anywhere in a `var` / `missing` path (prototype access). */
export const FORBIDDEN_PATH_SEGMENTS: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

/** Size limits of a custom rule's logic. */
export const LOGIC_LIMITS = Object.freeze({
  /** Longest JSON Pointer into the expression, in segments (the root is depth 0). */
  maxDepth: 32,
  /** JSON values in the expression, counting every object, array and primitive (operator argument lists included). */
  maxNodes: 1000,
  /**
   * Default work budget of one evaluation: one unit per operator evaluated and per array element
   * visited, plus the length of arrays built or scanned, the length of strings searched by `in`,
   * and 1/16 of the length of other strings built or scanned. Past it the evaluation stops and
   * counts as not hit. A unit costs at most a few nanoseconds whatever the data, so the default
   * bounds one evaluation to well under a millisecond.
   */
  maxWork: 50_000,
});
