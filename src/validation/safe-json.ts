/**
 * The structural guard every client input passes before schema validation: plain JSON only, no
 * prototype-polluting keys, bounded depth and size. Iterative, so hostile nesting cannot overflow
 * the stack.
 */
import { isPlainObject } from '../domain/json.js';
import { TxmonError, type DetailCode, type ErrorDetail, type InvalidRequestCode } from '../errors.js';
import { appendPointer } from './pointer.js';

/** Keys rejected at any depth: they can reach `Object.prototype` through naive merges (CWE-1321). */
export const FORBIDDEN_KEYS: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

/** Defaults of {@link assertSafeJson}. */
export const SAFE_JSON_DEFAULTS = Object.freeze({
  /** Deepest accepted nesting of objects/arrays; the top-level object is depth 1. */
  maxDepth: 32,
  /** Most values (including nested containers) accepted in one input; bounds shared-reference blow-ups. */
  maxNodes: 1_000_000,
});

/**
 * Whether a string is text txmon stores: well-formed UTF-16 (no lone surrogate) and no NUL
 * character. A lone surrogate has no UTF-8 form: a value holding one could be stored but never sent
 * back intact, nor matched by an id in a URL. A NUL has no place in an identifier or a name, and
 * PostgreSQL cannot store it in text or JSON.
 */
export function isWellFormedText(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed() && !text.includes('\u0000');
}

/**
 * The size of a JSON value as txmon's limits count it: the characters (UTF-16 units) of every
 * string and object key, plus one per value (object, array, string, number, boolean, null) — close
 * to the length of its compact JSON text, and computed without building that text.
 */
export function measureJsonSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 1;
  if (typeof value !== 'object' || value === null) return 1;
  let size = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) size += measureJsonSize(value[i]);
    return size;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) size += key.length + measureJsonSize(item);
  }
  return size;
}

/** Options of {@link assertSafeJson}. */
export interface SafeJsonOptions {
  /** Deepest accepted nesting (default {@link SAFE_JSON_DEFAULTS.maxDepth}). */
  readonly maxDepth?: number;
  /** Most values accepted (default {@link SAFE_JSON_DEFAULTS.maxNodes}). */
  readonly maxNodes?: number;
  /** JSON Pointer prefixed to every detail path (default `''`). */
  readonly basePath?: string;
  /** Error code thrown (default `VALIDATION_FAILED`). */
  readonly code?: InvalidRequestCode;
  /** What the input is, for the error message (default `request`). */
  readonly what?: string;
}

type Container = Record<string, unknown> | unknown[];

class SafeJsonProblem {
  constructor(
    readonly code: DetailCode,
    readonly message: string,
    readonly depth: number,
    readonly includeCurrentKey: boolean,
  ) {}
}

const NOT_WELL_FORMED = 'must be well-formed Unicode text without NUL characters';

function describeLeaf(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return isWellFormedText(value) ? null : NOT_WELL_FORMED;
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : 'must be a finite number';
    case 'undefined':
      return 'must not be undefined';
    case 'bigint':
      return 'must be a JSON number, not a bigint';
    case 'function':
      return 'must be a JSON value, not a function';
    case 'symbol':
      return 'must be a JSON value, not a symbol';
    default:
      return 'must be a JSON value';
  }
}

/**
 * Checks that `value` is plain JSON data that is safe to merge and validate:
 * - no key `__proto__`, `constructor` or `prototype` at any depth (detail code `forbidden-key`);
 * - nesting at most `maxDepth` levels (`too-deep`) and at most `maxNodes` values (`too-large`);
 * - only strings, finite numbers, booleans, null, arrays without holes or `undefined` items, and
 *   plain objects (`not-json`: functions, symbols, bigints, NaN/±Infinity, Date, Map, class
 *   instances…); strings and keys well-formed (`not-json`: a lone surrogate). An object property whose value is `undefined` is tolerated, as `JSON.stringify`
 *   drops it; the schema then treats it like the value `undefined` (a typed property rejects it).
 *
 * Stops at the first problem. Iterative (explicit stack), linear in the size of the input, and
 * never mutates it.
 * @throws TxmonError `VALIDATION_FAILED` (or `options.code`), one detail whose path names the key or index.
 */
export function assertSafeJson(value: unknown, options: SafeJsonOptions = {}): void {
  const maxDepth = options.maxDepth ?? SAFE_JSON_DEFAULTS.maxDepth;
  const maxNodes = options.maxNodes ?? SAFE_JSON_DEFAULTS.maxNodes;

  if (typeof value !== 'object' || value === null) {
    const message = value === null ? null : describeLeaf(value);
    if (message !== null) throwProblem(options, '', 'not-json', message);
    return;
  }

  // Explicit DFS stack: the container, its keys (null for arrays) and the next index to visit.
  const containers: Container[] = [];
  const keyLists: (string[] | null)[] = [];
  const indices: number[] = [];
  let top = -1;
  let nodes = 1;

  const currentPath = (depth: number, includeCurrentKey: boolean): string => {
    let path = options.basePath ?? '';
    const last = includeCurrentKey ? depth : depth - 1;
    for (let frame = 0; frame <= last; frame += 1) {
      const keys = keyLists[frame];
      const index = (indices[frame] ?? 1) - 1;
      path = appendPointer(path, keys === null || keys === undefined ? String(index) : (keys[index] ?? ''));
    }
    return path;
  };

  const push = (container: object, depth: number): SafeJsonProblem | null => {
    if (depth > maxDepth) return new SafeJsonProblem('too-deep', `must not be nested deeper than ${maxDepth} levels`, top, true);
    if (Array.isArray(container)) {
      top += 1;
      containers[top] = container;
      keyLists[top] = null;
      indices[top] = 0;
      return null;
    }
    if (!isPlainObject(container)) return new SafeJsonProblem('not-json', 'must be a plain object or array', top, true);
    top += 1;
    containers[top] = container as Record<string, unknown>;
    keyLists[top] = Object.keys(container);
    indices[top] = 0;
    return null;
  };

  let problem: SafeJsonProblem | null;
  try {
    problem = push(value, 1);
    while (problem === null && top >= 0) {
      const container = containers[top] as Container;
      const keys = keyLists[top] ?? null;
      const index = indices[top] ?? 0;
      const length = keys === null ? (container as unknown[]).length : keys.length;
      if (index >= length) {
        top -= 1;
        continue;
      }
      indices[top] = index + 1;
      let child: unknown;
      if (keys === null) {
        child = (container as unknown[])[index];
      } else {
        const key = keys[index] as string;
        if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
          problem = new SafeJsonProblem('forbidden-key', 'is a forbidden key', top, true);
          break;
        }
        if (!isWellFormedText(key)) {
          problem = new SafeJsonProblem('not-json', NOT_WELL_FORMED, top, true);
          break;
        }
        child = (container as Record<string, unknown>)[key];
        if (child === undefined) continue;
      }
      nodes += 1;
      if (nodes > maxNodes) {
        problem = new SafeJsonProblem('too-large', `must not hold more than ${maxNodes} values`, top, false);
        break;
      }
      if (typeof child === 'object' && child !== null) {
        problem = push(child, top + 2);
      } else if (child !== null) {
        const message = describeLeaf(child);
        if (message !== null) problem = new SafeJsonProblem('not-json', message, top, true);
      }
    }
  } catch (cause) {
    // A throwing getter or proxy trap: not plain data.
    throwProblem(options, currentPath(top, true), 'not-json', 'must be plain JSON data', cause);
  }
  if (problem !== null) {
    throwProblem(options, currentPath(problem.depth, problem.includeCurrentKey), problem.code, problem.message);
  }
}

function throwProblem(options: SafeJsonOptions, path: string, code: DetailCode, message: string, cause?: unknown): never {
  const detail: ErrorDetail = { path, code, message };
  throw new TxmonError(
    options.code ?? 'VALIDATION_FAILED',
    `Invalid ${options.what ?? 'request'}: ${path === '' ? 'body' : path} ${message}`,
    [detail],
    cause === undefined ? undefined : { cause },
  );
}

const UNSAFE = Symbol('unsafe');

/**
 * {@link assertSafeJson} and a deep copy in ONE pass: returns a fresh copy of plain JSON data that
 * shares nothing with the input. On any problem it runs {@link assertSafeJson} for the precise
 * error (path and detail code), so the fast path stays a plain copy. Object properties whose value
 * is `undefined` are dropped, as `JSON.stringify` does.
 *
 * @throws TxmonError `VALIDATION_FAILED` (or `options.code`), as {@link assertSafeJson}.
 */
export function copySafeJson<T>(value: T, options: SafeJsonOptions = {}): T {
  return copySafeJsonSized(value, options).copy;
}

/**
 * {@link copySafeJson}, also returning the input's size as {@link measureJsonSize} counts it
 * (counted in the same pass), for size limits checked after the schema.
 */
export function copySafeJsonSized<T>(value: T, options: SafeJsonOptions = {}): { copy: T; size: number } {
  return checkSafeJsonSized(value, options, true);
}

/**
 * The checks of {@link copySafeJsonSized} without the copy, for a value the caller owns and nobody
 * else can change (fresh from `JSON.parse`): the value itself is returned, with its size.
 */
export function checkOwnedJsonSized<T>(value: T, options: SafeJsonOptions = {}): { copy: T; size: number } {
  return checkSafeJsonSized(value, options, false);
}

function checkSafeJsonSized<T>(value: T, options: SafeJsonOptions, copying: boolean): { copy: T; size: number } {
  const maxDepth = options.maxDepth ?? SAFE_JSON_DEFAULTS.maxDepth;
  const budget: Budget = { nodes: options.maxNodes ?? SAFE_JSON_DEFAULTS.maxNodes, size: 0 };
  try {
    const copy = copyChecked(value, 1, maxDepth, budget, copying) as T;
    return { copy, size: budget.size };
  } catch (error) {
    if (error !== UNSAFE) throw error;
    assertSafeJson(value, options);
    // assertSafeJson found nothing (e.g. a getter that changed its value between reads).
    throwProblem(options, '', 'not-json', 'must be plain JSON data');
  }
}

interface Budget {
  /** Values still allowed. */
  nodes: number;
  /** Size counted so far ({@link measureJsonSize}). */
  size: number;
}

/** Checks `value` (see {@link assertSafeJson}) and, when `copying`, returns a copy (else `value` itself). */
function copyChecked(value: unknown, depth: number, maxDepth: number, budget: Budget, copying: boolean): unknown {
  if (--budget.nodes < 0) throw UNSAFE;
  budget.size += 1;
  switch (typeof value) {
    case 'string':
      if (!isWellFormedText(value)) throw UNSAFE;
      budget.size += value.length;
      return value;
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw UNSAFE;
      return value;
    case 'object':
      if (value === null) return null;
      break;
    default:
      throw UNSAFE;
  }
  if (depth > maxDepth) throw UNSAFE;
  if (Array.isArray(value)) {
    const n = value.length;
    const out = copying ? new Array<unknown>(n) : value;
    for (let i = 0; i < n; i++) {
      const item: unknown = value[i];
      if (item === undefined) throw UNSAFE;
      const checked = copyChecked(item, depth + 1, maxDepth, budget, copying);
      if (copying) out[i] = checked;
    }
    return out;
  }
  if (!isPlainObject(value)) throw UNSAFE;
  const out: Record<string, unknown> = copying ? {} : (value as Record<string, unknown>);
  // for-in with an own-property check, not Object.keys: no key array per object (V8 serves
  // for-in from the map's enum cache).
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw UNSAFE;
    const item = (value as Record<string, unknown>)[key];
    // An owned value keeps an undefined property (JSON.parse makes none; the schema then judges it).
    if (item === undefined) continue;
    if (!isWellFormedText(key)) throw UNSAFE;
    budget.size += key.length;
    const checked = copyChecked(item, depth + 1, maxDepth, budget, copying);
    if (copying) out[key] = checked;
  }
  return out;
}
