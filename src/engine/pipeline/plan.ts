/**
 * Planning one evaluation (pure): the risk level, the instances whose filters let them run, their
 * settings at that level, and the aggregates and list lookups their rules need.
 */
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import type { RiskLevel, Transaction } from '../../domain/index.js';
import type { RuleInstance } from '../../domain/entities.js';
import type { CompiledLogic } from '../../logic/index.js';
import type { FilterDecision } from '../../rules/filters/index.js';
import type { AggregateNeed, LookupNeed, MoneyContext, RuleDefinition, RuleUser } from '../../rules/types.js';
import { cachesOf, createEvaluatorCache, newCache, sameElements, slotOf, type EvaluatorCache, type InstanceCache, type LevelSlot } from './evaluator-cache.js';
import { selectRiskLevel, type ResolvedSettings } from './settings.js';

/** A compiled instance filter (see `compileRuleFilters`). */
export type InstanceFilter = (context: { transaction: Transaction; originUser: RuleUser | null; destinationUser: RuleUser | null }) => FilterDecision;

/** A rule instance ready to run: the stored instance with its rule or its compiled custom logic. */
export interface PreparedInstance {
  readonly instance: RuleInstance;
  /** The rule (template); `null` for a custom json-logic instance. */
  readonly rule: RuleDefinition<unknown> | null;
  /** The compiled logic of a custom instance; `null` for a library rule. */
  readonly logic: CompiledLogic | null;
  /** The instance's compiled filters; `null` when it has none. */
  readonly filter: InstanceFilter | null;
  /**
   * With historical filters: base series → the derived (filtered) series the instance reads
   * instead. The planner renames the series of the rule's needs accordingly.
   */
  readonly seriesMap?: ReadonlyMap<string, string> | null;
  /**
   * With historical filters: whether a transaction passes them. The current transaction counts in
   * the instance's aggregates only when it does.
   */
  readonly historical?: ((transaction: Transaction) => boolean) | null;
}

/** The key under which an aggregate value is found in an {@link AggregateSnapshot}. */
export function aggregateNeedKey(need: AggregateNeed): string {
  return `${need.series}\u0000${need.key ?? ''}\u0000${need.start}\u0000${need.end}\u0000${need.fn}\u0000${need.field ?? ''}\u0000${need.includeCurrent ? 1 : 0}`;
}

/**
 * Aggregate values: an array aligned with {@link collectAggregateNeeds} / `plan.needs` (the fast
 * form the engine uses), or a map keyed by the need objects or by {@link aggregateNeedKey}.
 */
export type AggregateSnapshot = ReadonlyMap<AggregateNeed | string, AggregateValue> | readonly AggregateValue[];

/** Input shared by {@link collectAggregateNeeds} and {@link evaluateRuleInstances}. */
export interface EvaluationInput {
  readonly transaction: Transaction;
  readonly instances: readonly PreparedInstance[];
  readonly originUser: RuleUser | null;
  readonly destinationUser: RuleUser | null;
  readonly money: MoneyContext;
  /** Risk level for users without one (default `VERY_HIGH`, docs/wire-format.md#risk-level-settings). */
  readonly defaultRiskLevel: RiskLevel;
  /**
   * What is kept between evaluations of the same `instances` (see `EvaluatorCache`); without it,
   * this evaluation uses a fresh one.
   */
  readonly cache?: EvaluatorCache;
}

/** Per-instance plan for one evaluation: settings by risk level, filter decision and needs. */
export interface InstancePlan {
  readonly prepared: PreparedInstance;
  readonly settings: ResolvedSettings;
  /** `null` when the instance has no filters. */
  readonly decision: FilterDecision | null;
  readonly needs: readonly AggregateNeed[];
  /**
   * Index of this instance's first need in {@link EvaluationPlan.positions}: need `j` is answered by
   * `plan.needs[plan.positions[offset + j]]`.
   */
  readonly offset: number;
  /** Whether the current transaction passes the instance's historical filters (true without any). */
  readonly currentCounts: boolean;
  /** The rule's list lookups for this transaction. */
  readonly lookups: readonly LookupNeed[];
  /** Index of this instance's first lookup in {@link EvaluationPlan.lookups}. */
  readonly lookupOffset: number;
  /** The instance's cache (counters) and its slot for this level (shared results). */
  readonly cache: InstanceCache;
  readonly slot: LevelSlot;
}

/**
 * What {@link planRuleInstances} decided for one transaction: the risk level, and for every
 * instance that runs (filters passed) its settings and aggregate needs.
 */
export interface EvaluationPlan {
  readonly kind: 'plan';
  readonly input: EvaluationInput;
  readonly level: RiskLevel;
  readonly instances: readonly InstancePlan[];
  /**
   * The distinct needs of the running instances, in order of first appearance (what
   * {@link collectAggregateNeeds} returns): a need equal to an earlier one (same series, key,
   * window, function, field, exclusion, current-transaction handling, values, limit and fan-out; the name
   * aside) is asked once and answers both.
   */
  readonly needs: readonly AggregateNeed[];
  /** Per need of every running instance, in instance order: its position in {@link EvaluationPlan.needs}. */
  readonly positions: readonly number[];
  /** Every list lookup of every running instance, in instance order (answers go to {@link evaluateRuleInstances}). */
  readonly lookups: readonly LookupNeed[];
  /** What is kept between evaluations of the same instances. */
  readonly shared: EvaluatorCache;
}

const NO_NEEDS: readonly AggregateNeed[] = Object.freeze([]);
const NO_LOOKUPS: readonly LookupNeed[] = Object.freeze([]);

/**
 * Plans one evaluation: picks the risk level, runs the instance filters, resolves parameters and
 * actions, and asks each rule which aggregates it needs. Pure. {@link collectAggregateNeeds} and
 * {@link evaluateRuleInstances} accept the plan (or the input, and plan it themselves).
 */
export function planRuleInstances(input: EvaluationInput): EvaluationPlan {
  const level = selectRiskLevel(input.transaction, input.originUser, input.destinationUser, input.defaultRiskLevel);
  const list = input.instances;
  // At most one plan per instance: sized up front, trimmed at the end (filtered-out instances).
  const instances: InstancePlan[] = new Array<InstancePlan>(list.length);
  let planned = 0;
  const all: AggregateNeed[] = [];
  const positions: number[] = [];
  const allLookups: LookupNeed[] = [];
  const shared = input.cache ?? createEvaluatorCache();
  const caches = cachesOf(shared, list);
  // Indexed loops on the hot path: no iterator objects.
  for (let i = 0; i < list.length; i++) {
    const prepared = list[i] as PreparedInstance;
    let cache = caches[i] as InstanceCache;
    if (cache.prepared !== prepared || cache.instance !== prepared.instance) {
      // The list was changed in place (a caller's own array): start this position afresh.
      cache = newCache(prepared);
      caches[i] = cache;
    }
    const slot = slotOf(cache, level);
    if (slot.simple !== null) {
      instances[planned++] = slot.simple;
      continue;
    }
    const decision = prepared.filter ? prepared.filter(input) : null;
    // An instance whose transaction or user filters fail does not run
    // (docs/wire-format.md#filters).
    if (decision && !decision.run) continue;
    const settings = slot.settings;
    const rule = prepared.rule;
    let needs =
      rule !== null && rule.aggregates !== undefined ? rule.aggregates({ transaction: input.transaction, parameters: settings.parameters }) : NO_NEEDS;
    const map = prepared.seriesMap;
    const currentCounts = prepared.historical ? prepared.historical(input.transaction) : true;
    if (map && needs.length > 0) needs = needs.map((need) => renamed(need, map, currentCounts));
    const lookups =
      rule !== null && rule.lookups !== undefined ? rule.lookups({ transaction: input.transaction, parameters: settings.parameters }) : NO_LOOKUPS;
    const plan: InstancePlan = {
      prepared,
      settings,
      decision,
      needs,
      offset: positions.length,
      currentCounts,
      lookups,
      lookupOffset: allLookups.length,
      cache,
      slot,
    };
    if (!prepared.filter && !prepared.historical && rule?.aggregates === undefined && rule?.lookups === undefined) {
      // Nothing in this plan depends on the transaction: kept for the next one at this level.
      slot.simple = Object.freeze(plan);
    }
    instances[planned++] = plan;
    if (needs.length > 0) placeNeeds(needs, cache, all, positions);
    for (let j = 0; j < lookups.length; j++) allLookups.push(lookups[j] as LookupNeed);
  }
  if (planned < instances.length) instances.length = planned;
  return { kind: 'plan', input, level, instances, needs: all, positions, lookups: allLookups, shared };
}

/** How many plans of an instance use its remembered matches before they are searched for afresh. */
const MATCH_SEARCH_PERIOD = 64;

/**
 * Adds an instance's needs to the distinct needs `all`, and their positions there to `positions`.
 * Which earlier need equals each of an instance's needs is searched for among all of them (a
 * quadratic scan) only on the instance's first plan with that many needs and every
 * {@link MATCH_SEARCH_PERIOD} such plans; in between, each need is compared with the position its
 * equal had last time only (the same instances give the same needs transaction after transaction;
 * an instance whose number of needs varies, e.g. with the sides a transaction has, keeps the
 * matches of each number apart). A need whose equal is not found is asked twice: never a wrong
 * answer, only a lost saving.
 */
function placeNeeds(needs: readonly AggregateNeed[], cache: InstanceCache, all: AggregateNeed[], positions: number[]): void {
  const n = needs.length;
  let known = cache.needMatches[n];
  if (known === undefined) {
    known = { positions: new Array<number>(n).fill(-1), plansUntilSearch: 0 };
    cache.needMatches[n] = known;
  }
  const search = --known.plansUntilSearch < 0;
  if (search) known.plansUntilSearch = MATCH_SEARCH_PERIOD - 1;
  const matches = known.positions;
  for (let j = 0; j < n; j++) {
    const need = needs[j] as AggregateNeed;
    let at = -1;
    if (search) {
      for (let k = 0; k < all.length; k++) {
        if (sameNeed(all[k] as AggregateNeed, need)) {
          at = k;
          break;
        }
      }
      matches[j] = at;
    } else {
      const hint = matches[j] as number;
      if (hint >= 0 && hint < all.length && sameNeed(all[hint] as AggregateNeed, need)) at = hint;
    }
    if (at < 0) {
      at = all.length;
      all.push(need);
    }
    positions.push(at);
  }
}

/** Whether two needs ask the same query (their names aside): one answer serves both. */
function sameNeed(a: AggregateNeed, b: AggregateNeed): boolean {
  return (
    a.start === b.start &&
    a.end === b.end &&
    a.fn === b.fn &&
    a.key === b.key &&
    a.series === b.series &&
    a.excludeId === b.excludeId &&
    a.includeCurrent === b.includeCurrent &&
    a.field === b.field &&
    a.includeValue === b.includeValue &&
    a.limit === b.limit &&
    a.fanOut === b.fanOut &&
    (a.values === b.values || (a.values !== undefined && b.values !== undefined && sameElements(a.values, b.values)))
  );
}

/**
 * The need reading the derived series its base series maps to (a copy; the need is not changed).
 * When the current transaction fails the historical filters, its own value is not counted either.
 */
function renamed(need: AggregateNeed, map: ReadonlyMap<string, string>, currentCounts: boolean): AggregateNeed {
  // Field by field in the order of `createNeed` (rules/kits/need.ts), never a spread: see there.
  return {
    name: need.name,
    series: (map.get(need.series) ?? need.series) as AggregateNeed['series'],
    key: need.key,
    start: need.start,
    end: need.end,
    fn: need.fn,
    field: need.field,
    excludeId: need.excludeId,
    includeCurrent: need.includeCurrent,
    includeValue: currentCounts ? need.includeValue : undefined,
    values: need.values,
    limit: need.limit,
    fanOut: need.fanOut,
  };
}

export function planOf(inputOrPlan: EvaluationInput | EvaluationPlan): EvaluationPlan {
  return (inputOrPlan as EvaluationPlan).kind === 'plan' ? (inputOrPlan as EvaluationPlan) : planRuleInstances(inputOrPlan as EvaluationInput);
}

/**
 * Every distinct windowed aggregate the active instances need for this transaction, in order of
 * first appearance (equal needs of several instances are listed once; see {@link EvaluationPlan.needs}).
 * The caller computes them (over stored history, excluding this transaction's earlier
 * contribution) and passes them back to {@link evaluateRuleInstances}, keyed by these objects or
 * as an array aligned with them.
 */
export function collectAggregateNeeds(input: EvaluationInput | EvaluationPlan): AggregateNeed[] {
  return [...planOf(input).needs];
}
