/**
 * The evaluation primitives behind {@link compileLogic}: truthiness, prototype-free path reads,
 * the work budget and the value operators, each mirroring json-logic-js 2.0.5 (`logic.js`).
 *
 * Internal to `src/logic/`; not part of the public API.
 */

/** Mutable state of one evaluation. */
export interface EvalContext {
  /** Work spent so far. */
  work: number;
  /** Work allowed. */
  readonly maxWork: number;
}

/** A compiled node: computes the node's value for the current data (`this` in json-logic-js). */
export type Evaluator = (data: unknown, ctx: EvalContext) => unknown;

/** A value operator: receives its arguments already evaluated, left to right. */
export type OperatorFn = (args: unknown[]) => unknown;

/**
 * Adds `units` of work, throwing past the budget. The error never leaves `evaluate`, which turns
 * it (like any throw during evaluation) into `false`.
 */
export function spendWork(ctx: EvalContext, units: number): void {
  ctx.work += units;
  if (ctx.work > ctx.maxWork) throw new RangeError('json-logic work budget exceeded');
}

/**
 * json-logic truthiness (jsonlogic.com/truthy): JavaScript truthiness, except that an empty array is falsy.
 */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value) && value.length === 0) return false;
  return !!value;
}

/**
 * Splits a literal `var` path as json-logic-js does (`String(path).split('.')`); `null` means
 * "the current data itself" (json-logic-js returns the data for `''`, `null` and no path).
 */
export function splitPath(path: string | number): readonly string[] | null {
  if (path === '') return null;
  return Object.freeze(String(path).split('.'));
}

// eslint-disable-next-line @typescript-eslint/unbound-method
const ownProperty = Object.prototype.hasOwnProperty;

/**
 * Reads a path like json-logic-js's `var`, but through OWN properties only: an inherited name
 * (`toString`, `map` on an array, `big` on a string) is "not found" instead of a prototype function.
 * Own properties keep their meaning, so `length` and indices of arrays and strings still work.
 */
export function readPath(data: unknown, segments: readonly string[] | null, notFound: unknown): unknown {
  if (segments === null) return data;
  let current = data;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] as string;
    if (current === null || current === undefined) return notFound;
    // hasOwnProperty boxes primitives, so string indices and `length` count as own.
    if (!ownProperty.call(current, segment)) return notFound;
    current = (current as Record<string, unknown>)[segment];
    if (current === undefined) return notFound;
  }
  return current;
}

/** Work charged for arguments whose coercion or scan costs in proportion to their size. */
export function chargeArguments(ctx: EvalContext, args: readonly unknown[]): void {
  let units = 1;
  for (const value of args) {
    if (Array.isArray(value)) units += value.length;
    else if (typeof value === 'string') units += value.length >>> 4;
  }
  spendWork(ctx, units);
}

/**
 * Work charged for `in`: a string haystack is charged its whole length and the needle's (the
 * search reads every character), other operands as {@link chargePair}.
 */
export function chargeSearch(ctx: EvalContext, needle: unknown, haystack: unknown): void {
  if (typeof haystack !== 'string') {
    chargePair(ctx, needle, haystack);
    return;
  }
  spendWork(ctx, 1 + haystack.length + (typeof needle === 'string' ? needle.length : 0));
}

/** Work charged for the two arguments of a binary operator (see {@link chargeArguments}). */
export function chargePair(ctx: EvalContext, a: unknown, b: unknown): void {
  let units = 1;
  if (typeof a === 'string') units += a.length >>> 4;
  else if (Array.isArray(a)) units += a.length;
  if (typeof b === 'string') units += b.length >>> 4;
  else if (Array.isArray(b)) units += b.length;
  spendWork(ctx, units);
}

const arrayIndexOf = Array.prototype.indexOf;
const stringIndexOf = String.prototype.indexOf;

/**
 * Needles up to this length are searched with the built-in `indexOf`, whose worst case is
 * O(haystack × needle) — at most 32 comparisons per haystack character here. Longer ones go
 * through {@link containsText}'s linear search.
 */
const NATIVE_SEARCH_MAX = 32;

/**
 * Whether `haystack` contains `needle` (`haystack.indexOf(needle) !== -1`), in time linear in
 * their lengths whatever the text: a crafted needle such as `a…aba…a` makes the built-in search
 * quadratic on a run of `a`, so long needles use Knuth–Morris–Pratt.
 */
export function containsText(haystack: string, needle: string): boolean {
  const m = needle.length;
  if (m <= NATIVE_SEARCH_MAX) return stringIndexOf.call(haystack, needle) !== -1;
  const n = haystack.length;
  if (m > n) return false;
  // failure[i]: length of the longest proper border of needle[0..i].
  const failure = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i += 1) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = failure[k - 1] as number;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k += 1;
    failure[i] = k;
  }
  for (let i = 0, k = 0; i < n; i += 1) {
    while (k > 0 && haystack.charCodeAt(i) !== needle.charCodeAt(k)) k = failure[k - 1] as number;
    if (haystack.charCodeAt(i) === needle.charCodeAt(k)) k += 1;
    if (k === m) return true;
  }
  return false;
}

/**
 * json-logic-js `in`: `b.indexOf(a) !== -1` for strings and arrays, `false` for falsy `b` or a `b`
 * without `indexOf`. Where json-logic-js would call a non-built-in `indexOf` (an object with an own
 * `indexOf` key) it throws — so does this, without ever calling data. A string `b` is searched in
 * linear time ({@link containsText}), with `a` coerced to a string as `indexOf` does.
 */
export function isIn(a: unknown, b: unknown): boolean {
  if (!b) return false;
  if (typeof b === 'string') return containsText(b, String(a));
  if (Array.isArray(b)) return arrayIndexOf.call(b, a) !== -1;
  if ((b as { indexOf?: unknown }).indexOf === undefined) return false;
  throw new TypeError('in: the second argument is neither an array nor a string');
}

// Casts below only satisfy the type checker: JavaScript's own coercions are the semantics,
// exactly as in json-logic-js's `operations` table.
type Num = number;

/**
 * Two-argument forms of the operators used most, called without building an argument array;
 * each equals its {@link VALUE_OPERATORS} entry applied to exactly two arguments.
 */
export const BINARY_OPERATORS: Readonly<Record<string, (a: unknown, b: unknown) => unknown>> = Object.freeze({
  // biome-ignore lint/suspicious/noDoubleEquals: json-logic's == is JavaScript's loose equality
  '==': (a, b) => a == b,
  '===': (a, b) => a === b,
  // biome-ignore lint/suspicious/noDoubleEquals: json-logic's != is JavaScript's loose inequality
  '!=': (a, b) => a != b,
  '!==': (a, b) => a !== b,
  '>': (a, b) => (a as Num) > (b as Num),
  '>=': (a, b) => (a as Num) >= (b as Num),
  '<': (a, b) => (a as Num) < (b as Num),
  '<=': (a, b) => (a as Num) <= (b as Num),
  '%': (a, b) => (a as Num) % (b as Num),
  '/': (a, b) => (a as Num) / (b as Num),
  '-': (a, b) => (b === undefined ? -(a as Num) : (a as Num) - (b as Num)),
  in: (a, b) => isIn(a, b),
});

/** The operators evaluated depth-first with all their arguments (json-logic-js's "everyone else"). */
export const VALUE_OPERATORS: Readonly<Record<string, OperatorFn>> = Object.freeze({
  // biome-ignore lint/suspicious/noDoubleEquals: json-logic's == is JavaScript's loose equality
  '==': (args) => args[0] == args[1],
  '===': (args) => args[0] === args[1],
  // biome-ignore lint/suspicious/noDoubleEquals: json-logic's != is JavaScript's loose inequality
  '!=': (args) => args[0] != args[1],
  '!==': (args) => args[0] !== args[1],
  '>': (args) => (args[0] as Num) > (args[1] as Num),
  '>=': (args) => (args[0] as Num) >= (args[1] as Num),
  '<': (args) => (args[2] === undefined ? (args[0] as Num) < (args[1] as Num) : (args[0] as Num) < (args[1] as Num) && (args[1] as Num) < (args[2] as Num)),
  '<=': (args) => (args[2] === undefined ? (args[0] as Num) <= (args[1] as Num) : (args[0] as Num) <= (args[1] as Num) && (args[1] as Num) <= (args[2] as Num)),
  '!!': (args) => isTruthy(args[0]),
  '!': (args) => !isTruthy(args[0]),
  '%': (args) => (args[0] as Num) % (args[1] as Num),
  in: (args) => isIn(args[0], args[1]),
  cat: (args) => args.join(''),
  substr: (args) => {
    const [source, start, end] = args as [unknown, Num, Num];
    if (end < 0) {
      // json-logic-js emulates PHP's negative length
      const rest = String(source).substr(start);
      return rest.substr(0, rest.length + end);
    }
    return String(source).substr(start, end);
  },
  '+': (args) => args.reduce<Num>((a, b) => parseFloat(a as unknown as string) + parseFloat(b as string), 0),
  // Without an initial value on purpose: one argument is returned as is, none throws (as json-logic-js).
  '*': (args) => args.reduce((a, b) => parseFloat(a as string) * parseFloat(b as string)),
  '-': (args) => (args[1] === undefined ? -(args[0] as Num) : (args[0] as Num) - (args[1] as Num)),
  '/': (args) => (args[0] as Num) / (args[1] as Num),
  min: (args) => Math.min(...(args as Num[])),
  max: (args) => Math.max(...(args as Num[])),
  merge: (args) => args.reduce<unknown[]>((a, b) => a.concat(b), []),
});
