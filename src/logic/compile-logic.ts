/**
 * Validation and compilation of custom-rule logic (json-logic expressions).
 *
 * `compileLogic` checks an expression against the operator allowlist, the data roots and the
 * size limits, and turns it into a tree of closures that evaluates with json-logic-js 2.0.5
 * semantics. It does not call json-logic-js at run time (that library is the test oracle):
 *
 * - json-logic-js keeps its operations in one module-global table that any code in the host
 *   process can change with `add_operation` (even `==` or `var`); compiled closures cannot be changed.
 * - json-logic-js's `var` reads inherited properties (`transaction.toString` is a function,
 *   `transaction.tags.map` too); here `var` reads own properties only, with no copy of the data.
 * - json-logic-js has no work limit: `reduce` with `merge` of the accumulator doubles an array per
 *   element and aborts the process with an out-of-memory error that no `catch` can handle. Here
 *   every evaluation has a work budget.
 *
 * Error paths are JSON Pointers: `basePath` followed by the pointer into the expression, pointing at
 * the smallest offending JSON value — the operator object for `unknown-operator` / `invalid-node`,
 * the path string for `unknown-variable` / `forbidden-key`, the offending `var` argument for
 * `dynamic-var`, the first value past the limit for `too-complex`. Operator keys are escaped as
 * JSON Pointer tokens (`/` becomes `~1`), so `{"and":[…, {">":[{"var":"x"}, 1]}]}` has its `var` at
 * `/logic/and/1/>/0`.
 */
import { isPlainObject } from '../domain/json.js';
import { noteLogicFailure } from '../domain/not-evaluated.js';
import { invalidField, invalidRequest, TxmonError } from '../errors.js';
import type { DetailCode, ErrorDetail } from '../errors.js';
import { FORBIDDEN_PATH_SEGMENTS, LOGIC_LIMITS, LOGIC_OPERATORS, LOGIC_ROOTS } from './allowlist.js';
import type { LogicRoot } from './allowlist.js';
import { BINARY_OPERATORS, VALUE_OPERATORS, chargeArguments, chargePair, chargeSearch, isIn, isTruthy, readPath, spendWork, splitPath } from './runtime.js';
import type { EvalContext, Evaluator } from './runtime.js';

/** The data a custom rule's logic reads; `var` paths start with one of these keys. */
export interface LogicData {
  /** The transaction being evaluated. */
  transaction: unknown;
  /** The origin (sender) user, when known. */
  originUser?: unknown;
  /** The destination (receiver) user, when known. */
  destinationUser?: unknown;
  /** Values of the instance's aggregation variables, by `key`. */
  agg?: Record<string, unknown>;
}

/** A validated expression, ready to evaluate many times. */
export interface CompiledLogic {
  /** A deep-frozen copy of the expression as compiled. */
  readonly expression: unknown;
  /**
   * The distinct data paths read from the top level (`var`, `missing`, `missing_some`), in the order
   * first seen, e.g. `transaction.originAmountDetails.transactionAmount`, `agg.sum24h`. Paths inside
   * array-operation bodies are relative to the element and are not listed (their array's path is).
   */
  readonly varPaths: readonly string[];
  /**
   * Evaluates the expression and returns its json-logic truthiness. Never throws: an evaluation that
   * throws inside (e.g. `{"*": []}`, or an object that cannot be coerced to a primitive) or that
   * exceeds the work budget counts as `false`, and is noted (`noteLogicFailure`: the engine marks
   * the rule not evaluated). Never mutates `data`.
   */
  evaluate(data: LogicData): boolean;
}

/** Options of {@link compileLogic}. */
export interface CompileLogicOptions {
  /** JSON Pointer of the expression in the request, prefixed to every error path, e.g. `/logic`. */
  readonly basePath: string;
  /** Keys of the instance's aggregation variables; `agg.<key>` must name one of them. */
  readonly aggregationVariableKeys?: readonly string[];
  /** Roots the expression may read (default: all of {@link LOGIC_ROOTS}); e.g. only `transaction` for a filter. */
  readonly roots?: readonly LogicRoot[];
  /** Work budget of one evaluation (default {@link LOGIC_LIMITS}.maxWork). */
  readonly maxWork?: number;
}

type Scope = 'root' | 'element' | 'reduce';

/** A compiled JSON value. */
interface Compiled {
  readonly evaluate: Evaluator;
  /** Frozen copy of the source value. */
  readonly json: unknown;
  /** True when the value contains no operator (a primitive or an array of such, recursively). */
  readonly literal: boolean;
}

interface Argument {
  readonly value: unknown;
  readonly pointer: string;
  readonly depth: number;
}

interface Walk {
  readonly basePath: string;
  readonly details: ErrorDetail[];
  nodes: number;
  stopped: boolean;
  readonly varPaths: string[];
  readonly roots: ReadonlySet<string>;
  readonly aggKeys: ReadonlySet<string>;
}

const MAX_DETAILS = 50;
const OPERATORS = new Set(LOGIC_OPERATORS);
const FORBIDDEN = new Set(FORBIDDEN_PATH_SEGMENTS);
const REDUCE_ROOTS = new Set(['current', 'accumulator']);
const ARRAY_OPERATORS = new Set(['map', 'filter', 'reduce', 'all', 'none', 'some']);
const SET_THRESHOLD = 8;

const returnUndefined: Evaluator = () => undefined;
const UNUSED: Compiled = { evaluate: returnUndefined, json: null, literal: true };

/**
 * Validates a custom rule's json-logic expression and prepares it for repeated evaluation.
 *
 * Checks: every object is an operator node with exactly one key from {@link LOGIC_OPERATORS};
 * `var` / `missing` / `missing_some` paths are literals; top-level paths start with a root of
 * {@link LOGIC_ROOTS} (`agg.<key>` with a declared key); no path segment is `__proto__`,
 * `constructor` or `prototype`; the value is JSON; depth and size are within {@link LOGIC_LIMITS}.
 *
 * Paths: `var` takes `"a.b"`, `["a.b"]` or `["a.b", literalDefault]`; `missing` takes literal paths or
 * one literal array of them; `missing_some` takes `[minimum, [paths…]]`. Inside the body of
 * `map` / `filter` / `all` / `none` / `some` a path is relative to the element (`""` is the element);
 * inside the body of `reduce` it starts with `current` or `accumulator`. An aggregation key is one
 * path segment, so a key containing `.` cannot be read.
 *
 * @example
 * ```ts
 * const logic = compileLogic({ '>=': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 10000] }, { basePath: '/logic' });
 * logic.evaluate({ transaction }); // true or false
 * ```
 * @throws TxmonError `INVALID_LOGIC` with one detail per problem (`unknown-operator`, `invalid-node`,
 *   `dynamic-var`, `unknown-variable`, `forbidden-key`, `too-complex`), each with a JSON-Pointer path under `basePath`.
 * @throws TxmonError `VALIDATION_FAILED` when the options themselves are malformed (a host programming error).
 */
export function compileLogic(expression: unknown, options: CompileLogicOptions): CompiledLogic {
  const maxWork = options.maxWork ?? LOGIC_LIMITS.maxWork;
  if (typeof options.basePath !== 'string' || !(Number.isSafeInteger(maxWork) && maxWork > 0)) {
    throw invalidField('', 'type', 'basePath must be a string and maxWork a positive integer');
  }
  const walk: Walk = {
    basePath: options.basePath,
    details: [],
    nodes: 0,
    stopped: false,
    varPaths: [],
    roots: new Set(options.roots ?? LOGIC_ROOTS),
    aggKeys: new Set(options.aggregationVariableKeys ?? []),
  };
  const compiled = compileValue(expression, '', 0, 'root', walk);
  if (walk.details.length > 0) {
    throw invalidRequest(walk.details, 'logic', 'INVALID_LOGIC');
  }
  const root = compiled.evaluate;
  return Object.freeze({
    expression: compiled.json,
    varPaths: Object.freeze(walk.varPaths),
    evaluate(data: LogicData): boolean {
      const ctx: EvalContext = { work: 0, maxWork };
      try {
        return isTruthy(root(data, ctx));
      } catch {
        // A throw inside json-logic semantics, a host getter or the work budget: not a hit, and
        // noted, so that the rule is marked not evaluated rather than passing in silence.
        noteLogicFailure(ctx.work > ctx.maxWork ? 'LOGIC_WORK_BUDGET' : 'LOGIC_ERROR');
        return false;
      }
    },
  });
}

function report(walk: Walk, pointer: string, code: DetailCode, message: string): void {
  if (walk.details.length < MAX_DETAILS) walk.details.push({ path: walk.basePath + pointer, code, message });
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Counts a node and checks the limits; false means "do not look inside". */
function enterNode(walk: Walk, pointer: string, depth: number): boolean {
  if (walk.stopped) return false;
  walk.nodes += 1;
  if (walk.nodes > LOGIC_LIMITS.maxNodes) {
    report(walk, pointer, 'too-complex', `the expression has more than ${LOGIC_LIMITS.maxNodes} nodes`);
    walk.stopped = true;
    return false;
  }
  if (depth > LOGIC_LIMITS.maxDepth) {
    report(walk, pointer, 'too-complex', `the expression is nested deeper than ${LOGIC_LIMITS.maxDepth} levels`);
    walk.stopped = true;
    return false;
  }
  return true;
}

function constant(value: unknown): Compiled {
  return { evaluate: () => value, json: value, literal: true };
}

/** Reads the JSON elements of an array, reporting holes and accessors; null when not JSON. */
function readArrayElements(value: readonly unknown[], pointer: string, walk: Walk): unknown[] | null {
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i += 1) {
    const descriptor = Object.getOwnPropertyDescriptor(value, i);
    if (descriptor === undefined || !('value' in descriptor)) {
      report(walk, `${pointer}/${i}`, 'invalid-node', 'array elements must be JSON values');
      return null;
    }
    out.push(descriptor.value);
  }
  return out;
}

/** Whether an object is a JSON object: a plain object with no symbol keys (JSON has none). */
function isJsonNode(value: object): boolean {
  return isPlainObject(value) && Object.getOwnPropertySymbols(value).length === 0;
}

function compileValue(value: unknown, pointer: string, depth: number, scope: Scope, walk: Walk): Compiled {
  if (!enterNode(walk, pointer, depth)) return UNUSED;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return constant(value);
    case 'number':
      if (Number.isFinite(value)) return constant(value);
      report(walk, pointer, 'invalid-node', 'numbers must be finite');
      return UNUSED;
    case 'object':
      if (value === null) return constant(null);
      if (Array.isArray(value)) return compileArray(value, pointer, depth, scope, walk);
      return compileOperator(value, pointer, depth, scope, walk);
    default:
      report(walk, pointer, 'invalid-node', 'the expression must be JSON');
      return UNUSED;
  }
}

/** An array literal: json-logic-js evaluates each element and builds a new array every time. */
function compileArray(value: readonly unknown[], pointer: string, depth: number, scope: Scope, walk: Walk): Compiled {
  const elements = readArrayElements(value, pointer, walk);
  if (elements === null) return UNUSED;
  const children: Compiled[] = [];
  for (let i = 0; i < elements.length && !walk.stopped; i += 1) {
    children.push(compileValue(elements[i], `${pointer}/${i}`, depth + 1, scope, walk));
  }
  const evaluators = children.map((child) => child.evaluate);
  const count = evaluators.length;
  return {
    evaluate: (data, ctx) => {
      const out = new Array<unknown>(count);
      for (let i = 0; i < count; i += 1) out[i] = (evaluators[i] as Evaluator)(data, ctx);
      return out;
    },
    json: Object.freeze(children.map((child) => child.json)),
    literal: children.every((child) => child.literal),
  };
}

function compileOperator(value: object, pointer: string, depth: number, scope: Scope, walk: Walk): Compiled {
  if (!isJsonNode(value)) {
    report(walk, pointer, 'invalid-node', 'the expression must be JSON');
    return UNUSED;
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    report(walk, pointer, 'invalid-node', 'an object must be an operator node with exactly one key');
    return UNUSED;
  }
  const operator = keys[0] as string;
  if (!OPERATORS.has(operator)) {
    report(walk, pointer, 'unknown-operator', 'the operator is not in the allowlist');
    return UNUSED;
  }
  const descriptor = Object.getOwnPropertyDescriptor(value, operator);
  if (descriptor === undefined || !('value' in descriptor)) {
    report(walk, pointer, 'invalid-node', 'the expression must be JSON');
    return UNUSED;
  }
  const raw: unknown = descriptor.value;
  const argsPointer = `${pointer}/${escapeToken(operator)}`;
  // json-logic-js: a non-array operand is the single argument ({"var": "x"} = {"var": ["x"]}).
  let args: Argument[];
  if (Array.isArray(raw)) {
    if (!enterNode(walk, argsPointer, depth + 1)) return UNUSED;
    const elements = readArrayElements(raw, argsPointer, walk);
    if (elements === null) return UNUSED;
    args = elements.map((element, i) => ({ value: element, pointer: `${argsPointer}/${i}`, depth: depth + 2 }));
  } else {
    args = [{ value: raw, pointer: argsPointer, depth: depth + 1 }];
  }
  const wrap = (compiled: Compiled): Compiled =>
    compiled === UNUSED
      ? UNUSED
      : {
          evaluate: compiled.evaluate,
          json: Object.freeze({ [operator]: Array.isArray(raw) ? compiled.json : (compiled.json as unknown[])[0] }),
          literal: false,
        };
  switch (operator) {
    case 'var':
      return wrap(compileVar(args, Array.isArray(raw), argsPointer, scope, walk));
    case 'missing':
      return wrap(compileMissing(args, scope, walk));
    case 'missing_some':
      return wrap(compileMissingSome(args, Array.isArray(raw), argsPointer, scope, walk));
    default:
      break;
  }
  if (ARRAY_OPERATORS.has(operator)) {
    const bodyScope: Scope = operator === 'reduce' ? 'reduce' : 'element';
    const compiledArgs = args.map((arg, i) => compileValue(arg.value, arg.pointer, arg.depth, i === 1 ? bodyScope : scope, walk));
    return wrap({
      evaluate: buildArrayOperation(operator, compiledArgs),
      json: Object.freeze(compiledArgs.map((arg) => arg.json)),
      literal: false,
    });
  }
  const compiledArgs = args.map((arg) => compileValue(arg.value, arg.pointer, arg.depth, scope, walk));
  const json = Object.freeze(compiledArgs.map((arg) => arg.json));
  return wrap({ evaluate: buildOperation(operator, compiledArgs), json, literal: false });
}

// ---------------------------------------------------------------- data access

/** Validates one literal path and returns its segments (`null` = the current data). */
function checkPath(path: unknown, pointer: string, scope: Scope, walk: Walk): { ok: true; segments: readonly string[] | null } | { ok: false } {
  const isIndex = typeof path === 'number' && Number.isSafeInteger(path) && path >= 0;
  if (typeof path !== 'string' && !isIndex) {
    report(walk, pointer, 'dynamic-var', 'a data path must be a literal string');
    return { ok: false };
  }
  const segments = splitPath(path as string | number);
  if (segments?.some((segment) => FORBIDDEN.has(segment))) {
    report(walk, pointer, 'forbidden-key', 'a data path must not use __proto__, constructor or prototype');
    return { ok: false };
  }
  const first = segments?.[0];
  if (scope === 'root') {
    if (first === undefined || !walk.roots.has(first)) {
      report(walk, pointer, 'unknown-variable', `a data path must start with one of: ${[...walk.roots].join(', ')}`);
      return { ok: false };
    }
    if (first === 'agg' && !walk.aggKeys.has((segments as readonly string[])[1] ?? '')) {
      report(walk, pointer, 'unknown-variable', 'agg.<key> must name a declared aggregation variable');
      return { ok: false };
    }
    const text = String(path);
    if (!walk.varPaths.includes(text)) walk.varPaths.push(text);
  } else if (scope === 'reduce' && (first === undefined || !REDUCE_ROOTS.has(first))) {
    report(walk, pointer, 'unknown-variable', 'inside reduce a data path must start with current or accumulator');
    return { ok: false };
  }
  return { ok: true, segments };
}

/** A value that contains no operator, for `var` defaults. */
function compileLiteral(value: unknown, pointer: string, depth: number, walk: Walk): Compiled {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (!enterNode(walk, pointer, depth)) return UNUSED;
    const oneKey = isJsonNode(value) && Object.keys(value).length === 1;
    report(
      walk,
      pointer,
      oneKey ? 'dynamic-var' : 'invalid-node',
      oneKey ? 'a var default must be a literal' : 'an object must be an operator node with exactly one key',
    );
    return UNUSED;
  }
  if (Array.isArray(value)) {
    if (!enterNode(walk, pointer, depth)) return UNUSED;
    const elements = readArrayElements(value, pointer, walk);
    if (elements === null) return UNUSED;
    const children = elements.map((element, i) => compileLiteral(element, `${pointer}/${i}`, depth + 1, walk));
    const evaluators = children.map((child) => child.evaluate);
    return {
      // json-logic-js evaluates the default like any array: a new array each time.
      evaluate: (data, ctx) => evaluators.map((evaluator) => evaluator(data, ctx)),
      json: Object.freeze(children.map((child) => child.json)),
      literal: true,
    };
  }
  return compileValue(value, pointer, depth, 'element', walk);
}

function compileVar(args: Argument[], isArray: boolean, argsPointer: string, scope: Scope, walk: Walk): Compiled {
  if (isArray && (args.length < 1 || args.length > 2)) {
    report(walk, argsPointer, 'dynamic-var', 'var takes a path or [path, default]');
    return UNUSED;
  }
  const [pathArg, defaultArg] = args as [Argument, Argument | undefined];
  if (!enterNode(walk, pathArg.pointer, pathArg.depth)) return UNUSED;
  const checked = checkPath(pathArg.value, pathArg.pointer, scope, walk);
  const fallback = defaultArg === undefined ? undefined : compileLiteral(defaultArg.value, defaultArg.pointer, defaultArg.depth, walk);
  if (!checked.ok) return UNUSED;
  const segments = checked.segments;
  const json = Object.freeze(fallback === undefined ? [pathArg.value] : [pathArg.value, fallback.json]);
  if (fallback === undefined) {
    return {
      evaluate: (data, ctx) => {
        spendWork(ctx, 1);
        return readPath(data, segments, null);
      },
      json,
      literal: false,
    };
  }
  const fallbackEvaluate = fallback.evaluate;
  return {
    evaluate: (data, ctx) => {
      spendWork(ctx, 1);
      const notFound = fallbackEvaluate(data, ctx);
      // json-logic-js: `not_found = b === undefined ? null : b`
      return readPath(data, segments, notFound === undefined ? null : notFound);
    },
    json,
    literal: false,
  };
}

interface MissingKey {
  readonly key: string | number;
  readonly segments: readonly string[] | null;
}

/** Validates literal `missing` keys; returns null when any is invalid. */
function checkMissingKeys(keys: readonly Argument[], scope: Scope, walk: Walk): MissingKey[] | null {
  const out: MissingKey[] = [];
  let ok = true;
  for (const key of keys) {
    if (!enterNode(walk, key.pointer, key.depth)) return null;
    const checked = checkPath(key.value, key.pointer, scope, walk);
    if (checked.ok) out.push({ key: key.value as string | number, segments: checked.segments });
    else ok = false;
  }
  return ok ? out : null;
}

/** json-logic-js `missing`: the keys whose value is `null`, absent or `''`. */
function listMissing(keys: readonly MissingKey[], data: unknown): unknown[] {
  const missing: unknown[] = [];
  for (const { key, segments } of keys) {
    const value = readPath(data, segments, null);
    if (value === null || value === '') missing.push(key);
  }
  return missing;
}

function compileMissing(args: Argument[], scope: Scope, walk: Walk): Compiled {
  // json-logic-js: one array argument is the key list; otherwise the arguments are the keys.
  let keyArgs = args;
  let json: (arr: unknown[]) => unknown[] = (arr) => arr;
  const first = args[0];
  if (args.length === 1 && first !== undefined && Array.isArray(first.value)) {
    if (!enterNode(walk, first.pointer, first.depth)) return UNUSED;
    const elements = readArrayElements(first.value, first.pointer, walk);
    if (elements === null) return UNUSED;
    keyArgs = elements.map((value, i) => ({ value, pointer: `${first.pointer}/${i}`, depth: first.depth + 1 }));
    json = (arr) => [Object.freeze(arr)];
  }
  const keys = checkMissingKeys(keyArgs, scope, walk);
  if (keys === null) return UNUSED;
  return {
    evaluate: (data, ctx) => {
      spendWork(ctx, 1 + keys.length);
      return listMissing(keys, data);
    },
    json: Object.freeze(json(keys.map((key) => key.key))),
    literal: false,
  };
}

function compileMissingSome(args: Argument[], isArray: boolean, argsPointer: string, scope: Scope, walk: Walk): Compiled {
  const [needArg, optionsArg] = args;
  if (!isArray || args.length !== 2 || needArg === undefined || optionsArg === undefined) {
    report(walk, argsPointer, 'invalid-node', 'missing_some takes [minimum, [paths…]]');
    return UNUSED;
  }
  const need = compileValue(needArg.value, needArg.pointer, needArg.depth, scope, walk);
  if (!Array.isArray(optionsArg.value)) {
    report(walk, optionsArg.pointer, 'dynamic-var', 'missing_some paths must be a literal array');
    return UNUSED;
  }
  if (!enterNode(walk, optionsArg.pointer, optionsArg.depth)) return UNUSED;
  const elements = readArrayElements(optionsArg.value, optionsArg.pointer, walk);
  if (elements === null) return UNUSED;
  const keys = checkMissingKeys(
    elements.map((value, i) => ({ value, pointer: `${optionsArg.pointer}/${i}`, depth: optionsArg.depth + 1 })),
    scope,
    walk,
  );
  if (keys === null) return UNUSED;
  const needEvaluate = need.evaluate;
  const total = keys.length;
  return {
    evaluate: (data, ctx) => {
      spendWork(ctx, 1 + total);
      const minimum = needEvaluate(data, ctx);
      const missing = listMissing(keys, data);
      return total - missing.length >= (minimum as number) ? [] : missing;
    },
    json: Object.freeze([need.json, Object.freeze(keys.map((key) => key.key))]),
    literal: false,
  };
}

// ---------------------------------------------------------------- operations

function buildArrayOperation(operator: string, args: readonly Compiled[]): Evaluator {
  const source = args[0]?.evaluate ?? returnUndefined;
  const body = args[1]?.evaluate ?? returnUndefined;
  switch (operator) {
    case 'map':
      return (data, ctx) => {
        spendWork(ctx, 1);
        const items = source(data, ctx);
        if (!Array.isArray(items)) return [];
        return items.map((item: unknown) => {
          spendWork(ctx, 1);
          return body(item, ctx);
        });
      };
    case 'filter':
      return (data, ctx) => {
        spendWork(ctx, 1);
        const items = source(data, ctx);
        if (!Array.isArray(items)) return [];
        return items.filter((item: unknown) => {
          spendWork(ctx, 1);
          return isTruthy(body(item, ctx));
        });
      };
    case 'reduce': {
      const initial = args[2]?.evaluate;
      return (data, ctx) => {
        spendWork(ctx, 1);
        const items = source(data, ctx);
        const start = initial === undefined ? null : initial(data, ctx);
        if (!Array.isArray(items)) return start;
        return items.reduce((accumulator: unknown, current: unknown) => {
          spendWork(ctx, 1);
          return body({ current, accumulator }, ctx);
        }, start);
      };
    }
    case 'all':
      return (data, ctx) => {
        spendWork(ctx, 1);
        const items = source(data, ctx);
        if (!Array.isArray(items) || items.length === 0) return false;
        for (let i = 0; i < items.length; i += 1) {
          spendWork(ctx, 1);
          if (!isTruthy(body(items[i], ctx))) return false;
        }
        return true;
      };
    case 'none':
    case 'some': {
      const empty = operator === 'none';
      return (data, ctx) => {
        spendWork(ctx, 1);
        const items = source(data, ctx);
        if (!Array.isArray(items) || items.length === 0) return empty;
        for (let i = 0; i < items.length; i += 1) {
          spendWork(ctx, 1);
          if (isTruthy(body(items[i], ctx))) return !empty;
        }
        return empty;
      };
    }
    default:
      throw new TxmonError('INTERNAL', 'compileLogic: unhandled array operator');
  }
}

function buildOperation(operator: string, args: readonly Compiled[]): Evaluator {
  const evaluators = args.map((arg) => arg.evaluate);
  const count = evaluators.length;
  switch (operator) {
    case 'if':
    case '?:':
      return (data, ctx) => {
        spendWork(ctx, 1);
        let i = 0;
        for (; i < count - 1; i += 2) {
          if (isTruthy((evaluators[i] as Evaluator)(data, ctx))) return (evaluators[i + 1] as Evaluator)(data, ctx);
        }
        return i === count - 1 ? (evaluators[i] as Evaluator)(data, ctx) : null;
      };
    case 'and':
    case 'or': {
      // `and` returns the first falsy value, `or` the first truthy one, else the last (undefined if none).
      const stopOn = operator === 'or';
      return (data, ctx) => {
        spendWork(ctx, 1);
        let current: unknown;
        for (let i = 0; i < count; i += 1) {
          current = (evaluators[i] as Evaluator)(data, ctx);
          if (isTruthy(current) === stopOn) return current;
        }
        return current;
      };
    }
    case 'in': {
      const list = args[1];
      if (count === 2 && list !== undefined && list.literal && Array.isArray(list.json)) {
        // A literal list (e.g. countries) is built once; a Set answers like indexOf here
        // because JSON literals hold no NaN.
        const values = list.json as readonly unknown[];
        const needle = evaluators[0] as Evaluator;
        if (values.length >= SET_THRESHOLD && values.every((v) => v === null || typeof v !== 'object')) {
          const set = new Set(values);
          return (data, ctx) => {
            spendWork(ctx, 1);
            return set.has(needle(data, ctx));
          };
        }
        return (data, ctx) => {
          spendWork(ctx, 1 + (values.length >>> 4));
          return isIn(needle(data, ctx), values);
        };
      }
      break;
    }
    default:
      break;
  }
  const binary = BINARY_OPERATORS[operator];
  if (binary !== undefined && count === 2) {
    const [first, second] = evaluators as [Evaluator, Evaluator];
    const charge = operator === 'in' ? chargeSearch : chargePair;
    return (data, ctx) => {
      const a = first(data, ctx);
      const b = second(data, ctx);
      charge(ctx, a, b);
      return binary(a, b);
    };
  }
  const operation = VALUE_OPERATORS[operator];
  if (operation === undefined) throw new TxmonError('INTERNAL', 'compileLogic: unhandled operator');
  const charge = operator === 'merge' || operator === 'cat';
  const search = operator === 'in';
  return (data, ctx) => {
    const values = new Array<unknown>(count);
    for (let i = 0; i < count; i += 1) values[i] = (evaluators[i] as Evaluator)(data, ctx);
    if (search) chargeSearch(ctx, values[0], values[1]);
    chargeArguments(ctx, values);
    const result = operation(values);
    // Only merge and cat can grow a value beyond its inputs; charging their output bounds memory.
    if (charge) spendWork(ctx, Array.isArray(result) ? result.length : (result as string).length >>> 4);
    return result;
  };
}
