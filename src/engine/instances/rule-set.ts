/**
 * A rule set: rule-instance requests checked and made ready to run, without an engine or a
 * repository — what a host evaluating transactions in its own stream processor, a property test
 * of a configuration, or a backtest builds once and evaluates many transactions against.
 */
import type { RuleInstance } from '../../domain/entities.js';
import { RuleInstanceRequestSchema } from '../../domain/index.js';
import { isTxmonError, TxmonError } from '../../errors.js';
import { whitelistListIds } from '../../rules/filters/index.js';
import { createRuleRegistry } from '../../rules/registry.js';
import type { DerivedSeries, SeriesName } from '../../rules/series.js';
import type { AnyRuleDefinition } from '../../rules/types.js';
import { DEFAULT_ENGINE_LIMITS } from '../limits.js';
import { createEvaluatorCache, type EvaluatorCache, type PreparedInstance } from '../pipeline/index.js';
import { buildRuleInstance } from './build-rule-instance.js';
import { prepareActiveInstances } from './prepare-instance.js';

/** Rule instances ready to evaluate transactions against (see {@link createRuleSet}). */
export interface RuleSet {
  /** Every instance as stored by an engine (defaults applied, ids given), in the order given. */
  readonly instances: readonly RuleInstance[];
  /**
   * The `ACTIVE` instances of transaction rules and custom logic, ready to run: what
   * `planRuleInstances` takes as `instances`. Instances of user rules (type `USER`) are in
   * {@link instances} but not here: they run on users, never on a transaction.
   */
  readonly prepared: readonly PreparedInstance[];
  /** The built-in aggregate series the active instances read. */
  readonly series: ReadonlySet<SeriesName>;
  /** The derived (filtered) series they read. */
  readonly derived: readonly DerivedSeries[];
  /** Whether some instance reads entry values (distinct counts, `countIn` …): entries then carry them. */
  readonly readsValues: boolean;
  /** What evaluations of this set keep between them (shared results, caches): pass it as `cache`. */
  readonly cache: EvaluatorCache;
  /** The whitelists (`WHITELIST` lists of user ids) the instances' filters name: a rule user carries those that hold it. */
  readonly whitelistIds: readonly string[];
}

/** Options of {@link createRuleSet}. */
export interface RuleSetOptions {
  /** Host rules (written with `defineRule`) besides the library's. */
  readonly rules?: readonly AnyRuleDefinition[];
  /** The `createdAt` / `updatedAt` of the instances. Default 0. */
  readonly now?: number;
  /** Work budget of one evaluation of a custom rule's logic. Default `DEFAULT_ENGINE_LIMITS.maxLogicWork`. */
  readonly maxLogicWork?: number;
}

/** The fields a rule-instance request may have. */
const REQUEST_FIELDS: ReadonlySet<string> = new Set(Object.keys(RuleInstanceRequestSchema.properties));

/**
 * The request in `input`, and its `id`. An instance read from an engine (it has `runCount`) goes
 * back in as the request it was made from: the fields the engine maintains or derives (`id`,
 * counters, dates, `type`, `checksFor` …) are left out.
 */
function requestOf(input: unknown, index: number): { request: unknown; id: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { request: input, id: `ri-${index + 1}` };
  const record = input as Record<string, unknown>;
  const given = record.id;
  const id = typeof given === 'string' && given !== '' ? given : `ri-${index + 1}`;
  if (!('runCount' in record)) {
    const { id: _id, ...request } = record;
    return { request, id };
  }
  return { request: Object.fromEntries(Object.entries(record).filter(([field]) => REQUEST_FIELDS.has(field))), id };
}

/** `error` with its details under `/<index>` (the instance's place in the set). */
function atIndex(error: unknown, index: number): unknown {
  if (!isTxmonError(error)) return error;
  const details = error.details.map((d) => ({ ...d, path: `/${index}${d.path}` }));
  return new TxmonError(error.code, `Rule instance ${index}: ${error.message}`, details, { cause: error });
}

/**
 * Checks and prepares rule instances — requests as `createRuleInstance` takes them, or instances
 * read from an engine (`listRuleInstances`; their counters and dates are dropped, their ids kept) —
 * into a {@link RuleSet}. Pure: the same input gives the same set. Ids are the given ones, else
 * `ri-1`, `ri-2` … by position.
 *
 * @throws TxmonError as `createRuleInstance` does (`VALIDATION_FAILED`, `UNKNOWN_RULE`,
 *   `INVALID_PARAMETERS`, `INVALID_FILTERS`, `INVALID_LOGIC`), each detail's path starting with the
 *   instance's index (`/1/parameters/transactionsLimit`)
 * @example
 * ```ts
 * const ruleSet = createRuleSet([
 *   { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } }, action: 'SUSPEND' },
 *   { ruleId: 'R-30', parameters: { transactionsLimit: 3, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } },
 * ]);
 * ```
 */
export function createRuleSet(inputs: readonly unknown[], options: RuleSetOptions = {}): RuleSet {
  const registry = createRuleRegistry(options.rules ?? []);
  const now = options.now ?? 0;
  const instances = inputs.map((input, index) => {
    const { request, id } = requestOf(input, index);
    try {
      const stored = buildRuleInstance(request, null, { registry, now, id });
      return { ...stored.instance, runCount: 0, hitCount: 0 } as RuleInstance;
    } catch (error) {
      throw atIndex(error, index);
    }
  });
  const { active, wanted } = prepareActiveInstances(instances, [], { registry, maxLogicWork: options.maxLogicWork ?? DEFAULT_ENGINE_LIMITS.maxLogicWork });
  return {
    instances,
    prepared: active,
    series: wanted.bases,
    derived: [...wanted.derived.values()],
    readsValues: wanted.values,
    cache: createEvaluatorCache(),
    whitelistIds: [...new Set(active.flatMap((p) => whitelistListIds(p.instance.filters)))],
  };
}
