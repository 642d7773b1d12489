/**
 * A stored rule instance made ready to run: its rule (or compiled custom logic), its compiled
 * filters, and the aggregate series it reads.
 */
import type { RuleInstance } from '../../domain/entities.js';
import { deepFreeze, cloneJson } from '../../domain/json.js';
import { compileLogic } from '../../logic/index.js';
import { compileAggregationVariables, createCustomLogicRule } from '../../rules/aggregation-variables.js';
import { compileHistoricalFilters, compileRuleFilters, compileUserFilters } from '../../rules/filters/index.js';
import type { RuleRegistry } from '../../rules/registry.js';
import { createDerivedSeries, type DerivedSeries, type SeriesName } from '../../rules/series.js';
import type { AnyRuleDefinition, RuleDefinition, UserRuleDefinition } from '../../rules/types.js';
import type { PreparedInstance, PreparedUserInstance } from '../pipeline/index.js';
import { CUSTOM_RULE_ID } from './build-rule-instance.js';

/** The series a set of prepared instances reads. */
export interface SeriesWanted {
  readonly bases: Set<SeriesName>;
  readonly derived: Map<string, DerivedSeries>;
  /** Whether some instance reading a series reads its entries' values (distinct counts, `countIn` …). */
  values: boolean;
}

/** What {@link prepareInstance} needs besides the instance. */
export interface PrepareContext {
  readonly registry: RuleRegistry;
  /** Work budget of one evaluation of custom logic. */
  readonly maxLogicWork: number;
}

/** An empty {@link SeriesWanted}, starting with the series kept whatever the instances read. */
export function wantSeries(maintained: readonly SeriesName[]): SeriesWanted {
  // Series kept for the host keep their values: the host may read them.
  return { bases: new Set(maintained), derived: new Map(), values: maintained.length > 0 };
}

/**
 * The instance as the engine runs it: a copy whose parameters are frozen copies, so rules may cache
 * what they derive from them (e.g. parsed thresholds) by identity. The repository's own objects are
 * left as they are (an adapter may reuse or change them).
 */
function withFrozenParameters(stored: RuleInstance): RuleInstance {
  const copy: RuleInstance = Object.assign({}, stored);
  copy.parameters = deepFreeze(cloneJson(stored.parameters));
  copy.riskLevelParameters = deepFreeze(cloneJson(stored.riskLevelParameters));
  return copy;
}

/**
 * The series `instance` reads: what its rule's `seriesFor` says for each of its parameter sets
 * (the base parameters and every per-risk-level set), or all of the rule's series when the rule
 * does not say. Never more than the rule declares.
 */
export function seriesReadBy(rule: AnyRuleDefinition | null, instance: RuleInstance): readonly SeriesName[] {
  if (rule === null) return [];
  const seriesFor = rule.seriesFor;
  if (seriesFor === undefined || instance.parameters === undefined) return rule.series;
  const read = new Set<SeriesName>(seriesFor.call(rule, instance.parameters));
  for (const parameters of Object.values(instance.riskLevelParameters ?? {})) {
    for (const series of seriesFor.call(rule, parameters)) read.add(series);
  }
  return rule.series.filter((series) => read.has(series));
}

/** The instance's compiled filters, or `null` when none has an effect. */
function filterOf(instance: RuleInstance): PreparedInstance['filter'] {
  const compiled = compileRuleFilters(instance.filters);
  return compiled.active ? compiled : null;
}

/** A custom json-logic instance, ready; its series join `wanted`. */
function prepareCustom(instance: RuleInstance, wanted: SeriesWanted, context: PrepareContext): PreparedInstance {
  const filter = filterOf(instance);
  const variables = compileAggregationVariables(instance.logicAggregationVariables, '/logicAggregationVariables');
  const logic = compileLogic(instance.logic, { basePath: '/logic', aggregationVariableKeys: variables.map((v) => v.key), maxWork: context.maxLogicWork });
  if (variables.length === 0) return { instance, rule: null, logic, filter, seriesMap: null };
  // With aggregation variables, the logic runs as a rule: its needs are planned and queried like a library rule's.
  const rule: RuleDefinition<Record<string, never>> = createCustomLogicRule(logic, variables, {
    description: instance.ruleDescriptionAlias ?? 'Custom json-logic rule.',
    descriptionTemplate: 'Custom rule logic matched the transaction.',
  });
  // Aggregation variables may count distinct values: they read entry values.
  wanted.values = true;
  for (const v of variables) {
    if (v.derived) {
      if (!wanted.derived.has(v.derived.name)) wanted.derived.set(v.derived.name, v.derived);
    } else {
      wanted.bases.add(v.series);
    }
  }
  return { instance, rule: rule as RuleDefinition<unknown>, logic: null, filter, seriesMap: null };
}

/**
 * Prepares a stored instance to run; the series it reads join `wanted` (a derived series per base
 * series when it has historical filters).
 */
export function prepareInstance(stored: RuleInstance, wanted: SeriesWanted, context: PrepareContext): PreparedInstance {
  const instance = withFrozenParameters(stored);
  if (instance.ruleId === CUSTOM_RULE_ID) return prepareCustom(instance, wanted, context);
  const filter = filterOf(instance);
  const rule = context.registry.get(instance.ruleId) ?? null;
  if (rule !== null && rule.series.length > 0 && rule.readsEntryValues !== false) wanted.values = true;
  const historical = rule && rule.series.length > 0 ? compileHistoricalFilters(instance.filters) : null;
  const reads = seriesReadBy(rule, instance);
  if (!historical) {
    for (const base of reads) wanted.bases.add(base);
    return { instance, rule, logic: null, filter, seriesMap: null };
  }
  const seriesMap = new Map<string, string>();
  for (const base of reads) {
    const derived = createDerivedSeries(base, historical.id, historical.accepts);
    seriesMap.set(base, derived.name);
    if (!wanted.derived.has(derived.name)) wanted.derived.set(derived.name, derived);
  }
  return { instance, rule, logic: null, filter, seriesMap, historical: historical.accepts };
}

/** A user rule's stored instance made ready to run: its rule and its compiled user filters. */
export function prepareUserInstance(stored: RuleInstance, rule: UserRuleDefinition<unknown>): PreparedUserInstance {
  const instance = withFrozenParameters(stored);
  return { instance, rule, filter: compileUserFilters(instance.filters) };
}

/**
 * Prepares the ACTIVE instances of `list` — those of transaction rules and custom logic into
 * `active`, those of user rules into `users` (they never run on a transaction) — and collects the
 * series the transaction instances read.
 */
export function prepareActiveInstances(
  list: readonly RuleInstance[],
  maintained: readonly SeriesName[],
  context: PrepareContext,
): { active: PreparedInstance[]; users: PreparedUserInstance[]; wanted: SeriesWanted } {
  const wanted = wantSeries(maintained);
  const active: PreparedInstance[] = [];
  const users: PreparedUserInstance[] = [];
  for (const stored of list) {
    if (stored.status !== 'ACTIVE') continue;
    const userRule = context.registry.getUserRule(stored.ruleId);
    if (userRule !== undefined) users.push(prepareUserInstance(stored, userRule));
    else active.push(prepareInstance(stored, wanted, context));
  }
  return { active, users, wanted };
}
