/**
 * What the pipeline keeps between evaluations of one list of prepared instances: per instance and
 * risk level the resolved settings, the frozen not-hit result and outcome, and the whole plan of an
 * instance whose plan does not depend on the transaction; the last all-miss result list; frozen
 * labels; compiled description templates. Most instances hit nothing on most transactions, so most
 * results are shared objects and allocate nothing.
 *
 * The cache is an explicit object: the engine keeps one per revision of its instances and passes
 * it in each `EvaluationInput`; a caller that passes none gets a fresh one per evaluation. The
 * pipeline's functions keep no state of their own.
 */
import type { ExecutedRuleResult, RiskLevel, RuleLabel } from '../../domain/index.js';
import type { RuleInstance } from '../../domain/entities.js';
import type { CounterIncrement, InstanceOutcome } from './evaluate.js';
import type { InstancePlan, PreparedInstance } from './plan.js';
import { resolveSettings, type ResolvedSettings } from './settings.js';
import type { TemplatePart } from './describe.js';

/** See the module comment. Create one with {@link createEvaluatorCache}. */
export interface EvaluatorCache {
  /** The list the per-instance caches are aligned with. */
  list: readonly PreparedInstance[] | null;
  caches: InstanceCache[];
  /**
   * The last executed-rules list with no hit: consecutive transactions that hit nothing at the
   * same level run the same instances and get the same not-hit results, so they share one frozen
   * list (less retained per stored result; a serialiser can cache its text).
   */
  lastMissList: readonly ExecutedRuleResult[] | null;
  /** Frozen labels per instance, shared by every result of that instance. */
  readonly labels: WeakMap<RuleInstance, readonly RuleLabel[]>;
  /** Description templates split into text and placeholders, once each. */
  readonly templates: Map<string, readonly TemplatePart[]>;
}

/** An empty cache. */
export function createEvaluatorCache(): EvaluatorCache {
  return { list: null, caches: [], lastMissList: null, labels: new WeakMap(), templates: new Map() };
}

/**
 * What one instance keeps per risk level, shared by every transaction evaluated at that level:
 * the resolved settings, the frozen not-hit result and outcome, and — for an instance with no
 * filters, needs or lookups — its whole plan. Internal to the planner and the evaluator.
 */
export interface LevelSlot {
  readonly settings: ResolvedSettings;
  /** The transaction-independent plan, or `null` when the plan depends on the transaction. */
  simple: InstancePlan | null;
  notHitExecuted: ExecutedRuleResult | null;
  notHitOutcome: InstanceOutcome | null;
}
/** Per prepared instance: its level slots and its two frozen counter increments. */
export interface InstanceCache {
  readonly prepared: PreparedInstance;
  /** `prepared.instance` when the cache was made (a changed instance starts a fresh cache). */
  readonly instance: RuleInstance;
  readonly levels: Partial<Record<RiskLevel, LevelSlot>>;
  readonly counters: readonly [CounterIncrement, CounterIncrement];
  /** By number of needs planned, where the planner last found their equals (see {@link NeedMatches}). */
  readonly needMatches: (NeedMatches | undefined)[];
}

/** For an instance's plans with one number of needs: where each need's equal was last found. */
export interface NeedMatches {
  /** Per need, the position in the plan's distinct needs of the earlier equal need (−1 when none). */
  readonly positions: number[];
  /** Plans left before the planner searches for equal needs afresh. */
  plansUntilSearch: number;
}

export function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function newCache(prepared: PreparedInstance): InstanceCache {
  const id = prepared.instance.id;
  return {
    prepared,
    instance: prepared.instance,
    levels: {},
    counters: [Object.freeze({ instanceId: id, runs: 1, hits: 0 }), Object.freeze({ instanceId: id, runs: 1, hits: 1 })],
    needMatches: [],
  };
}

/** The per-instance caches of `instances`, aligned with it (made afresh when the list is another). */
export function cachesOf(cache: EvaluatorCache, instances: readonly PreparedInstance[]): InstanceCache[] {
  if (cache.list !== instances || cache.caches.length !== instances.length) {
    cache.list = instances;
    cache.caches = [];
    cache.lastMissList = null;
    for (let i = 0; i < instances.length; i++) cache.caches.push(newCache(instances[i] as PreparedInstance));
  }
  return cache.caches;
}

export function slotOf(cache: InstanceCache, level: RiskLevel): LevelSlot {
  let slot = cache.levels[level];
  if (slot === undefined) {
    slot = { settings: resolveSettings(cache.prepared.instance, level), simple: null, notHitExecuted: null, notHitOutcome: null };
    cache.levels[level] = slot;
  }
  return slot;
}
