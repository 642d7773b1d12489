import type { AggregateValue, SeriesEntry } from '../aggregation/aggregate-store.js';
import type {
  ExecutedRuleResult,
  HitRuleDetails,
  RiskLevel,
  RuleAction,
  RuleHitDirection,
  RuleLabel,
  Transaction,
  TriggersOnHit,
} from '../domain/index.js';
import type { CompiledLogic } from '../logic/index.js';
import { LIBRARY_RULES } from '../rules/registry.js';
import type { RuleInstance } from '../repositories/types.js';
import type { FilterDecision } from '../rules/filters.js';
import type { AggregateNeed, LookupNeed, MoneyContext, RuleCheckContext, RuleDefinition, RuleHit, RuleUser } from '../rules/types.js';

/** A compiled instance filter (see `compileRuleFilters`). */
export type InstanceFilter = (context: {
  transaction: Transaction;
  originUser: RuleUser | null;
  destinationUser: RuleUser | null;
}) => FilterDecision;

/** Severity order of actions (SPEC §3): BLOCK > SUSPEND > FLAG > ALLOW. */
export const ACTION_SEVERITY: Readonly<Record<RuleAction, number>> = Object.freeze({
  ALLOW: 0,
  FLAG: 1,
  SUSPEND: 2,
  BLOCK: 3,
});

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
   * the instance's aggregates only when it does (D-115).
   */
  readonly historical?: ((transaction: Transaction) => boolean) | null;
}

/** The settings that apply to one instance for one transaction, chosen by risk level. */
export interface ResolvedSettings {
  readonly riskLevel: RiskLevel;
  readonly parameters: Record<string, unknown>;
  readonly action: RuleAction;
  readonly triggersOnHit: TriggersOnHit | undefined;
}

/**
 * The risk level that selects parameters and actions: the sender's (or the receiver's when there
 * is no sender) manual `riskLevel`, else derived CRA level, else `defaultRiskLevel` (SPEC §3).
 */
export function selectRiskLevel(
  transaction: Transaction,
  originUser: RuleUser | null,
  destinationUser: RuleUser | null,
  defaultRiskLevel: RiskLevel,
): RiskLevel {
  const user = transaction.originUserId ? originUser : destinationUser;
  return user?.riskLevel ?? defaultRiskLevel;
}

/** `riskLevelParameters[level] ?? parameters`, `riskLevelActions[level] ?? action` (SPEC §3). */
export function resolveSettings(instance: RuleInstance, riskLevel: RiskLevel): ResolvedSettings {
  return {
    riskLevel,
    parameters: instance.riskLevelParameters?.[riskLevel] ?? instance.parameters,
    action: instance.riskLevelActions?.[riskLevel] ?? instance.action,
    triggersOnHit: instance.riskLevelsTriggersOnHit?.[riskLevel] ?? instance.triggersOnHit,
  };
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
  /** Risk level for users without one (SPEC §3 default `VERY_HIGH`). */
  readonly defaultRiskLevel: RiskLevel;
}

/** Per-instance plan for one evaluation: settings by risk level, filter decision and needs. */
export interface InstancePlan {
  readonly prepared: PreparedInstance;
  readonly settings: ResolvedSettings;
  /** `null` when the instance has no filters. */
  readonly decision: FilterDecision | null;
  readonly needs: readonly AggregateNeed[];
  /** Index of this instance's first need in {@link EvaluationPlan.needs}. */
  readonly offset: number;
  /** Whether the current transaction passes the instance's historical filters (true without any). */
  readonly currentCounts: boolean;
  /** The rule's list lookups for this transaction. */
  readonly lookups: readonly LookupNeed[];
  /** Index of this instance's first lookup in {@link EvaluationPlan.lookups}. */
  readonly lookupOffset: number;
  /** @internal The instance's cache (counters) and its slot for this level (shared results). */
  readonly cache: InstanceCache;
  /** @internal */
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
  /** Every need of every running instance, in instance order (what {@link collectAggregateNeeds} returns). */
  readonly needs: readonly AggregateNeed[];
  /** Every list lookup of every running instance, in instance order (answers go to {@link evaluateRuleInstances}). */
  readonly lookups: readonly LookupNeed[];
  /** @internal Shared by every plan of the same prepared instance list. */
  readonly shared: ListCache;
}

const NO_NEEDS: readonly AggregateNeed[] = Object.freeze([]);
const NO_LOOKUPS: readonly LookupNeed[] = Object.freeze([]);

/**
 * What one instance keeps per risk level, shared by every transaction evaluated at that level:
 * the resolved settings, the frozen not-hit result and outcome, and — for an instance with no
 * filters, needs or lookups — its whole plan. Internal to the planner and the evaluator.
 */
interface LevelSlot {
  readonly settings: ResolvedSettings;
  /** The transaction-independent plan, or `null` when the plan depends on the transaction. */
  simple: InstancePlan | null;
  notHitExecuted: ExecutedRuleResult | null;
  notHitOutcome: InstanceOutcome | null;
}
/** Per prepared instance: its level slots and its two frozen counter increments. */
interface InstanceCache {
  readonly prepared: PreparedInstance;
  /** `prepared.instance` when the cache was made (a changed instance starts a fresh cache). */
  readonly instance: RuleInstance;
  readonly levels: Partial<Record<RiskLevel, LevelSlot>>;
  readonly counters: readonly [CounterIncrement, CounterIncrement];
  /**
   * Whether the rule is one of txmon's library rules, which read their check context during the
   * call only and so may share one per evaluation (D-136); a host's rule gets its own each call.
   */
  readonly sharesContext: boolean;
}
// One cache array per prepared instance list (the engine keeps one list per revision of the
// instances): found with one lookup per evaluation, then by position.
const instanceCaches = new WeakMap<readonly PreparedInstance[], InstanceCache[]>();

/**
 * Per prepared instance list: the last executed-rules list with no hit. Consecutive transactions
 * that hit nothing at the same level run the same instances and get the same not-hit results, so
 * they share one frozen list (less retained per stored result; a serialiser can cache its text).
 */
interface ListCache {
  lastMissList: readonly ExecutedRuleResult[] | null;
}
const listCaches = new WeakMap<InstanceCache[], ListCache>();

function listCacheOf(caches: InstanceCache[]): ListCache {
  let shared = listCaches.get(caches);
  if (shared === undefined) {
    shared = { lastMissList: null };
    listCaches.set(caches, shared);
  }
  return shared;
}

function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function newCache(prepared: PreparedInstance): InstanceCache {
  const id = prepared.instance.id;
  return {
    prepared,
    instance: prepared.instance,
    levels: {},
    counters: [Object.freeze({ instanceId: id, runs: 1, hits: 0 }), Object.freeze({ instanceId: id, runs: 1, hits: 1 })],
    sharesContext: prepared.rule !== null && LIBRARY_RULE_SET.has(prepared.rule),
  };
}
const LIBRARY_RULE_SET: ReadonlySet<unknown> = new Set<unknown>(LIBRARY_RULES);

function cachesOf(instances: readonly PreparedInstance[]): InstanceCache[] {
  let caches = instanceCaches.get(instances);
  if (caches === undefined || caches.length !== instances.length) {
    caches = [];
    for (let i = 0; i < instances.length; i++) caches.push(newCache(instances[i] as PreparedInstance));
    instanceCaches.set(instances, caches);
  }
  return caches;
}

function slotOf(cache: InstanceCache, level: RiskLevel): LevelSlot {
  let slot = cache.levels[level];
  if (slot === undefined) {
    slot = { settings: resolveSettings(cache.prepared.instance, level), simple: null, notHitExecuted: null, notHitOutcome: null };
    cache.levels[level] = slot;
  }
  return slot;
}

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
  const allLookups: LookupNeed[] = [];
  const caches = cachesOf(list);
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
    // DOMAIN.md §(d).4: an instance whose transaction or user filters fail does not run.
    if (decision && !decision.run) continue;
    const settings = slot.settings;
    const rule = prepared.rule;
    let needs = rule !== null && rule.aggregates !== undefined ? rule.aggregates({ transaction: input.transaction, parameters: settings.parameters }) : NO_NEEDS;
    const map = prepared.seriesMap;
    const currentCounts = prepared.historical ? prepared.historical(input.transaction) : true;
    if (map && needs.length > 0) needs = needs.map((need) => renamed(need, map, currentCounts));
    const lookups = rule !== null && rule.lookups !== undefined ? rule.lookups({ transaction: input.transaction, parameters: settings.parameters }) : NO_LOOKUPS;
    const plan: InstancePlan = { prepared, settings, decision, needs, offset: all.length, currentCounts, lookups, lookupOffset: allLookups.length, cache, slot };
    if (!prepared.filter && !prepared.historical && rule?.aggregates === undefined && rule?.lookups === undefined) {
      // Nothing in this plan depends on the transaction: kept for the next one at this level.
      slot.simple = Object.freeze(plan);
    }
    instances[planned++] = plan;
    for (let j = 0; j < needs.length; j++) all.push(needs[j] as AggregateNeed);
    for (let j = 0; j < lookups.length; j++) allLookups.push(lookups[j] as LookupNeed);
  }
  if (planned < instances.length) instances.length = planned;
  return { kind: 'plan', input, level, instances, needs: all, lookups: allLookups, shared: listCacheOf(caches) };
}

/**
 * The need reading the derived series its base series maps to (a copy; the need is not changed).
 * When the current transaction fails the historical filters, its own value is not counted either.
 */
function renamed(need: AggregateNeed, map: ReadonlyMap<string, string>, currentCounts: boolean): AggregateNeed {
  const series = map.get(need.series) ?? need.series;
  const copy = { ...need, series } as AggregateNeed & { includeValue?: string };
  if (!currentCounts) delete copy.includeValue;
  return copy;
}

function planOf(inputOrPlan: EvaluationInput | EvaluationPlan): EvaluationPlan {
  return (inputOrPlan as EvaluationPlan).kind === 'plan' ? (inputOrPlan as EvaluationPlan) : planRuleInstances(inputOrPlan as EvaluationInput);
}

/**
 * Every windowed aggregate the active instances need for this transaction, in instance order.
 * The caller computes them (over stored history, excluding this transaction's earlier
 * contribution) and passes them back to {@link evaluateRuleInstances}, keyed by these objects.
 * (Needs are not de-duplicated: building a key per need costs more than the rare duplicate query.)
 */
export function collectAggregateNeeds(input: EvaluationInput | EvaluationPlan): AggregateNeed[] {
  return [...planOf(input).needs];
}

/**
 * Adds the current transaction's own contribution to a value computed over the other
 * transactions, for needs with `includeCurrent`. Pure.
 */
export function mergeCurrentContribution(need: AggregateNeed, others: AggregateValue, current: readonly SeriesEntry[]): AggregateValue {
  if (!need.includeCurrent) return others;
  let value = others;
  for (const e of current) {
    if (e.series !== need.series || e.key !== need.key || e.timestamp < need.start || e.timestamp > need.end) continue;
    switch (need.fn) {
      case 'count':
        value = (value as number) + 1;
        break;
      case 'sum':
        if (e.amount !== null) value = (value as bigint) + e.amount;
        break;
      case 'amountCount':
        if (e.amount !== null) value = (value as number) + 1;
        break;
      case 'min':
        if (e.amount !== null && (value === null || e.amount < (value as bigint))) value = e.amount;
        break;
      case 'max':
        if (e.amount !== null && (value === null || e.amount > (value as bigint))) value = e.amount;
        break;
      case 'countIn': {
        const v = e.values?.[need.field ?? ''];
        if (typeof v === 'string' && v !== '' && need.values?.includes(v)) value = (value as number) + 1;
        break;
      }
      case 'sumIn': {
        const v = e.values?.[need.field ?? ''];
        if (e.amount !== null && typeof v === 'string' && v !== '' && need.values?.includes(v)) value = (value as bigint) + e.amount;
        break;
      }
      case 'distinct':
      case 'latest':
        // Not mergeable: a distinct need passes the current value as `includeValue`; `latest` never
        // includes the current transaction.
        break;
    }
  }
  return value;
}

/** The outcome of one instance, for counters, alerts and triggers. */
export interface InstanceOutcome {
  readonly instance: RuleInstance;
  readonly hit: boolean;
  readonly hitDirections: readonly RuleHitDirection[];
  readonly action: RuleAction;
  readonly riskLevel: RiskLevel;
  readonly isShadow: boolean;
  readonly ruleDescription: string;
  readonly triggersOnHit: TriggersOnHit | undefined;
  /** The instance's counter increment for this run (`runs: 1`, `hits` 1 or 0); frozen and shared. */
  readonly counter: CounterIncrement;
}

/** One instance's run and hit counts to add (see `TransactionOutcome.counters`). */
export interface CounterIncrement {
  readonly instanceId: string;
  readonly runs: number;
  readonly hits: number;
}

/**
 * Result of {@link evaluateRuleInstances}, in the wire shape plus per-instance outcomes. The rule
 * result objects and both arrays are deeply frozen (shared safely between the stored result and
 * every response; a not-hit result object is even shared across transactions).
 */
export interface EvaluationResult {
  readonly executedRules: ExecutedRuleResult[];
  readonly hitRules: HitRuleDetails[];
  readonly status: RuleAction;
  readonly outcomes: InstanceOutcome[];
}

/** Renders `{{name}}` placeholders; unknown names render empty. */
export function renderDescription(template: string, vars: Readonly<Record<string, string | number>> | undefined): string {
  const parts = compiledTemplate(template);
  if (parts.length === 1 && typeof parts[0] === 'string') return parts[0];
  // Joined, not concatenated with `+=`: the description is kept with the stored result, and a
  // join gives one flat string where `+=` leaves a tree of one cons-string per part.
  // A list of its own per call: a var's conversion may render another description meanwhile.
  const pieces: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as TemplatePart;
    if (typeof part === 'string') {
      pieces.push(part);
    } else {
      // Own properties only: `{{toString}}` must not render Object.prototype's function.
      const v = vars !== undefined && Object.hasOwn(vars, part.name) ? vars[part.name] : undefined;
      if (v !== undefined) pieces.push(String(v));
    }
  }
  return pieces.join('');
}

type TemplatePart = string | { readonly name: string };
// Templates are few (one per rule or alias): each is split into literal text and placeholders once.
const templates = new Map<string, readonly TemplatePart[]>();

function compiledTemplate(template: string): readonly TemplatePart[] {
  let parts = templates.get(template);
  if (parts) return parts;
  const list: TemplatePart[] = [];
  const pattern = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
  let last = 0;
  for (let m = pattern.exec(template); m !== null; m = pattern.exec(template)) {
    if (m.index > last) list.push(template.slice(last, m.index));
    list.push({ name: m[1] as string });
    last = m.index + m[0].length;
  }
  if (last < template.length || list.length === 0) list.push(template.slice(last));
  parts = Object.freeze(list);
  if (templates.size > 10_000) templates.clear();
  templates.set(template, parts);
  return parts;
}

function describeHits(template: string, hits: readonly RuleHit[]): string {
  // One hit per side at most in practice: the common shapes without a Set or a list.
  if (hits.length === 1) return renderDescription(template, (hits[0] as RuleHit).vars);
  if (hits.length === 2) {
    const first = renderDescription(template, (hits[0] as RuleHit).vars);
    const second = renderDescription(template, (hits[1] as RuleHit).vars);
    return first === second ? first : `${first} ${second}`;
  }
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const h of hits) {
    const text = renderDescription(template, h.vars);
    if (!seen.has(text)) {
      seen.add(text);
      parts.push(text);
    }
  }
  return parts.join(' ');
}

const EMPTY_VALUE: Readonly<Record<string, AggregateValue>> = Object.freeze({
  count: 0,
  amountCount: 0,
  distinct: 0,
  countIn: 0,
});

function valueFor(need: AggregateNeed, snapshot: ReadonlyMap<AggregateNeed | string, AggregateValue>): AggregateValue {
  const v = snapshot.get(need) ?? snapshot.get(aggregateNeedKey(need));
  if (v !== undefined) return v;
  return emptyValue(need);
}

function emptyValue(need: AggregateNeed): AggregateValue {
  if (need.fn === 'sum') return 0n;
  return EMPTY_VALUE[need.fn] ?? null;
}

/**
 * Runs every given instance against the transaction and returns the executed and hit rules in
 * the wire shape of the interface (DOMAIN.md §(a)) with the overall `status`: the most severe
 * action among live (non-shadow) hits, `ALLOW` when none hit. Pure and deterministic.
 *
 * @param aggregates values for {@link collectAggregateNeeds}, already including the current
 *   transaction where a need says so (see {@link mergeCurrentContribution}).
 * @example
 * ```ts
 * const needs = collectAggregateNeeds(input);
 * const snapshot = new Map(needs.map((n) => [n, computeFromHistory(n)]));
 * const { executedRules, hitRules, status } = evaluateRuleInstances(input, snapshot);
 * ```
 */
export function evaluateRuleInstances(
  inputOrPlan: EvaluationInput | EvaluationPlan,
  aggregates: AggregateSnapshot,
  lookupAnswers: readonly boolean[] = NO_ANSWERS,
): EvaluationResult {
  const plan = planOf(inputOrPlan);
  const { transaction, originUser, destinationUser, money } = plan.input;
  const planned = plan.instances;
  // Every planned instance adds exactly one executed rule and one outcome: sized up front.
  const executedRules: ExecutedRuleResult[] = new Array<ExecutedRuleResult>(planned.length);
  const hitRules: HitRuleDetails[] = [];
  const outcomes: InstanceOutcome[] = new Array<InstanceOutcome>(planned.length);
  let status: RuleAction = 'ALLOW';
  const aligned = Array.isArray(aggregates) ? (aggregates as readonly AggregateValue[]) : null;
  // What custom logic reads: the same for every custom instance of this evaluation.
  let logicData: LogicData | undefined;
  // One check context per evaluation for the library rules, its per-instance fields set before
  // each check (they read it during the call only): no context object per instance (D-136).
  let context: MutableCheckContext | undefined;
  for (let i = 0; i < planned.length; i++) {
    const { prepared, settings, decision, needs, offset, currentCounts, lookups, lookupOffset, cache, slot } = planned[i] as InstancePlan;
    const { instance, rule, logic } = prepared;
    let hits: readonly RuleHit[];
    let template: string;
    if (rule) {
      const values: Record<string, AggregateValue> = needs.length === 0 ? NO_VALUES : {};
      for (let j = 0; j < needs.length; j++) {
        const need = needs[j] as AggregateNeed;
        values[need.name] = aligned
          ? (aligned[offset + j] ?? emptyValue(need))
          : valueFor(need, aggregates as ReadonlyMap<AggregateNeed | string, AggregateValue>);
      }
      let found: Record<string, boolean> | undefined;
      if (lookups.length > 0) {
        found = {};
        for (let j = 0; j < lookups.length; j++) found[(lookups[j] as LookupNeed).name] = lookupAnswers[lookupOffset + j] === true;
      }
      let checkContext: MutableCheckContext;
      if (cache.sharesContext) {
        context ??= { transaction, parameters: undefined, originUser, destinationUser, aggregates: NO_VALUES, money, currentCounts: true, lookups: undefined };
        checkContext = context;
        checkContext.parameters = settings.parameters;
        checkContext.aggregates = values;
        checkContext.currentCounts = currentCounts;
        checkContext.lookups = found;
      } else {
        checkContext = { transaction, parameters: settings.parameters, originUser, destinationUser, aggregates: values, money, currentCounts, lookups: found };
      }
      hits = rule.check(checkContext as RuleCheckContext<unknown>);
      template = instance.ruleDescriptionAlias ?? rule.descriptionTemplate;
    } else if (logic) {
      logicData ??= { transaction, originUser: originUser?.profile ?? null, destinationUser: destinationUser?.profile ?? null, agg: {} };
      const hit = logic.evaluate(logicData);
      hits = hit ? sidesOf(transaction) : NO_HITS;
      template = instance.ruleDescriptionAlias ?? 'Custom rule logic matched the transaction.';
    } else {
      hits = NO_HITS;
      template = '';
    }
    if (hits.length > 0 && decision && (!decision.origin || !decision.destination)) {
      hits = hits.filter((h) => (h.direction === 'ORIGIN' ? decision.origin : decision.destination));
    }
    const isShadow = instance.mode === 'SHADOW';
    if (hits.length === 0) {
      // Immutable and the same for every transaction at this level: built once, shared.
      executedRules[i] = slot.notHitExecuted ??= notHitResult(prepared, settings.action);
      outcomes[i] = slot.notHitOutcome ??= notHitOutcome(cache, slot, plan.level);
      continue;
    }
    // One of three frozen meta objects, shared by every hit (a response serialises it from cache).
    const ruleHitMeta = hitMetaOf(hits);
    const directions = ruleHitMeta.hitDirections;
    const ruleDescription = describeHits(template, hits);
    const labels = frozenLabels(instance);
    // Explicit literals with a fixed key order (never spreads): V8 gives them one shape.
    executedRules[i] = Object.freeze({
        ruleInstanceId: instance.id,
        ruleId: instance.ruleId,
        ruleName: ruleNameOf(prepared),
        ruleDescription,
        ruleAction: settings.action,
        ruleHit: true,
        ruleHitMeta,
        nature: instance.nature,
        labels,
        isShadow,
      }) as ExecutedRuleResult;
    hitRules.push(
      Object.freeze({
        ruleInstanceId: instance.id,
        ruleId: instance.ruleId,
        ruleName: ruleNameOf(prepared),
        ruleDescription,
        ruleAction: settings.action,
        ruleHitMeta,
        nature: instance.nature,
        labels,
        isShadow,
      }) as HitRuleDetails,
    );
    if (!isShadow && ACTION_SEVERITY[settings.action] > ACTION_SEVERITY[status]) status = settings.action;
    outcomes[i] = {
      instance,
      hit: true,
      hitDirections: directions,
      action: settings.action,
      riskLevel: plan.level,
      isShadow,
      ruleDescription,
      triggersOnHit: settings.triggersOnHit,
      counter: cache.counters[1],
    };
  }
  let executed: readonly ExecutedRuleResult[];
  if (hitRules.length > 0) {
    executed = Object.freeze(executedRules);
  } else {
    // No hit: every entry is a shared not-hit result; reuse the last such list when equal.
    const last = plan.shared.lastMissList;
    executed = last !== null && sameElements(last, executedRules) ? last : (plan.shared.lastMissList = Object.freeze(executedRules));
  }
  return {
    executedRules: executed as ExecutedRuleResult[],
    // Most transactions hit nothing: one shared frozen empty list.
    hitRules: (hitRules.length === 0 ? NO_HIT_RULES : Object.freeze(hitRules)) as HitRuleDetails[],
    status,
    outcomes,
  };
}

/** A rule check's context, mutable so that library rules can share one per evaluation. */
interface MutableCheckContext {
  readonly transaction: Transaction;
  parameters: unknown;
  readonly originUser: RuleUser | null;
  readonly destinationUser: RuleUser | null;
  aggregates: Readonly<Record<string, AggregateValue>>;
  readonly money: MoneyContext;
  currentCounts: boolean;
  lookups: Readonly<Record<string, boolean>> | undefined;
}

/** The data a custom instance's logic reads (`var` paths start at these names). */
interface LogicData {
  readonly transaction: Transaction;
  readonly originUser: Record<string, unknown> | null;
  readonly destinationUser: Record<string, unknown> | null;
  readonly agg: Record<string, unknown>;
}

const NO_HITS: readonly RuleHit[] = Object.freeze([]);
const NO_ANSWERS: readonly boolean[] = Object.freeze([]);
const NO_HIT_RULES: readonly HitRuleDetails[] = Object.freeze([]);
const NO_VALUES: Record<string, AggregateValue> = Object.freeze({}) as Record<string, AggregateValue>;
const NO_DIRECTIONS: readonly RuleHitDirection[] = Object.freeze([]);

function ruleNameOf(prepared: PreparedInstance): string {
  return prepared.instance.ruleNameAlias ?? prepared.rule?.name ?? 'Custom rule';
}

// Frozen per-instance values shared by every result of that instance: the labels and the
// not-hit result per action. Most instances do not hit most transactions, so most results
// allocate nothing. Keyed by the instance object, which the engine keeps per revision.
const labelCache = new WeakMap<RuleInstance, readonly RuleLabel[]>();

function frozenLabels(instance: RuleInstance): readonly RuleLabel[] {
  let labels = labelCache.get(instance);
  if (!labels) {
    labels = Object.freeze([...instance.labels]);
    labelCache.set(instance, labels);
  }
  return labels;
}

/** The frozen not-hit outcome of an instance at a level. */
function notHitOutcome(cache: InstanceCache, slot: LevelSlot, level: RiskLevel): InstanceOutcome {
  const { instance } = cache.prepared;
  return Object.freeze({
    instance,
    hit: false,
    hitDirections: NO_DIRECTIONS,
    action: slot.settings.action,
    riskLevel: level,
    isShadow: instance.mode === 'SHADOW',
    ruleDescription: notHitDescription(cache.prepared),
    triggersOnHit: slot.settings.triggersOnHit,
    counter: cache.counters[0],
  });
}

function notHitDescription(prepared: PreparedInstance): string {
  return prepared.rule?.description ?? prepared.instance.ruleDescriptionAlias ?? 'Custom json-logic rule.';
}

/** The frozen not-hit result of an instance with an action. */
function notHitResult(prepared: PreparedInstance, action: RuleAction): ExecutedRuleResult {
  const { instance } = prepared;
  return Object.freeze({
    ruleInstanceId: instance.id,
    ruleId: instance.ruleId,
    ruleName: ruleNameOf(prepared),
    ruleDescription: notHitDescription(prepared),
    ruleAction: action,
    ruleHit: false,
    nature: instance.nature,
    labels: frozenLabels(instance),
    isShadow: instance.mode === 'SHADOW',
  }) as ExecutedRuleResult;
}

function sidesOf(transaction: Transaction): RuleHit[] {
  const hits: RuleHit[] = [];
  if (transaction.originUserId || !transaction.destinationUserId) hits.push({ direction: 'ORIGIN' });
  if (transaction.destinationUserId) hits.push({ direction: 'DESTINATION' });
  return hits;
}

const META_ORIGIN = Object.freeze({ hitDirections: Object.freeze(['ORIGIN'] as RuleHitDirection[]) });
const META_DESTINATION = Object.freeze({ hitDirections: Object.freeze(['DESTINATION'] as RuleHitDirection[]) });
const META_BOTH = Object.freeze({ hitDirections: Object.freeze(['ORIGIN', 'DESTINATION'] as RuleHitDirection[]) });

/** The frozen `ruleHitMeta` of a non-empty list of hits: its distinct directions, origin first. */
function hitMetaOf(hits: readonly RuleHit[]): { readonly hitDirections: readonly RuleHitDirection[] } {
  let origin = false;
  let destination = false;
  for (let i = 0; i < hits.length; i++) {
    if ((hits[i] as RuleHit).direction === 'ORIGIN') origin = true;
    else destination = true;
  }
  return origin ? (destination ? META_BOTH : META_ORIGIN) : META_DESTINATION;
}

/** The most severe of the given actions; `ALLOW` for none. */
export function mostSevereAction(actions: Iterable<RuleAction>): RuleAction {
  let status: RuleAction = 'ALLOW';
  for (const a of actions) if (ACTION_SEVERITY[a] > ACTION_SEVERITY[status]) status = a;
  return status;
}
