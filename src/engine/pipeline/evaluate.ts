/**
 * Evaluating one planned transaction (pure and deterministic): every running instance's rule check
 * or custom logic, with its aggregates and list answers, into the executed and hit rules of the
 * interface's wire shape, the overall `status`, and each instance's outcome.
 */
import type { AggregateValue, SeriesEntry } from '../../aggregation/aggregate-store.js';
import { takeNotEvaluated } from '../../domain/not-evaluated.js';
import type {
  ExecutedRuleResult,
  HitRuleDetails,
  RiskLevel,
  RuleAction,
  RuleEvidence,
  RuleHitDirection,
  ResultWarning,
  RuleLabel,
  RuleNotEvaluated,
  Transaction,
  TriggersOnHit,
} from '../../domain/index.js';
import type { RuleInstance } from '../../domain/entities.js';
import { logicEvidence } from '../../rules/kits/evidence.js';
import type { AggregateNeed, LookupNeed, RuleCheckContext, RuleHit } from '../../rules/types.js';
import { describeHits } from './describe.js';
import { sameElements, type EvaluatorCache, type InstanceCache, type LevelSlot } from './evaluator-cache.js';
import { aggregateNeedKey, planOf, type AggregateSnapshot, type EvaluationInput, type EvaluationPlan, type InstancePlan } from './plan.js';
import { ACTION_SEVERITY } from './settings.js';

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
  /**
   * One `RULE_NOT_EVALUATED` warning per instance that could not be evaluated (its executed rule
   * carries `notEvaluated`), in the order of `executedRules`; a shared frozen empty list when none.
   */
  readonly warnings: readonly ResultWarning[];
}

/**
 * The current transaction's amount that could not be put into the base currency (no rate): why,
 * and its series entries left without an amount. A need that adds the current transaction to a
 * money aggregate (`sum`, `sumIn`, `amountCount`, `min`, `max`) over one of these entries is
 * incomplete, so its instance is marked not evaluated.
 */
export interface UnconvertedAmount {
  readonly note: RuleNotEvaluated;
  readonly entries: readonly SeriesEntry[];
}

const EMPTY_VALUE: Readonly<Record<string, AggregateValue>> = Object.freeze({
  count: 0,
  amountCount: 0,
  distinct: 0,
  countIn: 0,
  lastEntries: Object.freeze([]) as readonly never[],
});

/** A need's value in a map snapshot: under the distinct need answering it, its own object, or its key. */
function valueFor(need: AggregateNeed, asked: AggregateNeed, snapshot: ReadonlyMap<AggregateNeed | string, AggregateValue>): AggregateValue {
  const v = snapshot.get(asked) ?? snapshot.get(need) ?? snapshot.get(aggregateNeedKey(need));
  if (v !== undefined) return v;
  return emptyValue(need);
}

function emptyValue(need: AggregateNeed): AggregateValue {
  if (need.fn === 'sum') return 0n;
  return EMPTY_VALUE[need.fn] ?? null;
}

/**
 * Runs every given instance against the transaction and returns the executed and hit rules in
 * the wire shape (docs/wire-format.md#results) with the overall `status`: the most severe
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
  unconverted: UnconvertedAmount | null = null,
): EvaluationResult {
  const plan = planOf(inputOrPlan);
  const { transaction, originUser, destinationUser, money } = plan.input;
  const planned = plan.instances;
  const positions = plan.positions;
  // Every planned instance adds exactly one executed rule and one outcome: sized up front.
  const executedRules: ExecutedRuleResult[] = new Array<ExecutedRuleResult>(planned.length);
  const hitRules: HitRuleDetails[] = [];
  const outcomes: InstanceOutcome[] = new Array<InstanceOutcome>(planned.length);
  let status: RuleAction = 'ALLOW';
  const aligned = Array.isArray(aggregates) ? (aggregates as readonly AggregateValue[]) : null;
  // What custom logic reads: the same for every custom instance of this evaluation.
  let logicData: LogicData | undefined;
  let warnings: ResultWarning[] | null = null;
  // A note made outside a check (a filter's logic while planning) belongs to no rule here.
  takeNotEvaluated();
  for (let i = 0; i < planned.length; i++) {
    const { prepared, settings, decision, needs, offset, currentCounts, lookups, lookupOffset, cache, slot } = planned[i] as InstancePlan;
    const { instance, rule, logic } = prepared;
    let hits: readonly RuleHit[];
    let template: string;
    if (rule) {
      const values: Record<string, AggregateValue> = needs.length === 0 ? NO_VALUES : {};
      for (let j = 0; j < needs.length; j++) {
        const need = needs[j] as AggregateNeed;
        // An instance's need equal to an earlier one is answered by that one's position.
        const at = positions[offset + j] as number;
        values[need.name] = aligned
          ? (aligned[at] ?? emptyValue(need))
          : valueFor(need, plan.needs[at] as AggregateNeed, aggregates as ReadonlyMap<AggregateNeed | string, AggregateValue>);
      }
      let found: Record<string, boolean> | undefined;
      if (lookups.length > 0) {
        found = {};
        for (let j = 0; j < lookups.length; j++) found[(lookups[j] as LookupNeed).name] = lookupAnswers[lookupOffset + j] === true;
      }
      // Each check gets a context of its own, which the rule may keep (a host's spy or log does);
      // two literals rather than a spread, which costs several times more per check.
      const parameters = settings.parameters;
      const context: RuleCheckContext<unknown> =
        found === undefined
          ? { transaction, parameters, originUser, destinationUser, aggregates: values, money, currentCounts }
          : { transaction, parameters, originUser, destinationUser, aggregates: values, money, currentCounts, lookups: found };
      hits = rule.check(context);
      template = instance.ruleDescriptionAlias ?? rule.descriptionTemplate;
    } else if (logic) {
      logicData ??= { transaction, originUser: originUser?.profile ?? null, destinationUser: destinationUser?.profile ?? null, agg: {} };
      const hit = logic.evaluate(logicData);
      hits = hit ? logicHitsOf(transaction) : NO_HITS;
      template = instance.ruleDescriptionAlias ?? 'Custom rule logic matched the transaction.';
    } else {
      hits = NO_HITS;
      template = '';
    }
    if (hits.length > 0 && decision && (!decision.origin || !decision.destination)) {
      hits = hits.filter((h) => (h.direction === 'ORIGIN' ? decision.origin : decision.destination));
    }
    const isShadow = instance.mode === 'SHADOW';
    // One read when the check converted what it needed (the common case); see not-evaluated.ts.
    let note = takeNotEvaluated();
    if (unconverted !== null && note === null && readsUnconverted(plan, offset, needs.length, unconverted.entries)) note = unconverted.note;
    let notEvaluated: RuleNotEvaluated | null = null;
    if (note !== null) {
      notEvaluated = withAmountPath(note, transaction);
      if (warnings === null) warnings = [];
      warnings.push(warningOf(instance, notEvaluated, isShadow));
      if (hits.length === 0) {
        executedRules[i] = Object.freeze({ ...notHitResult(prepared, settings.action, plan.shared), notEvaluated });
        outcomes[i] = slot.notHitOutcome ??= notHitOutcome(cache, slot, plan.level);
        continue;
      }
    }
    if (hits.length === 0) {
      // Immutable and the same for every transaction at this level: built once, shared.
      executedRules[i] = slot.notHitExecuted ??= notHitResult(prepared, settings.action, plan.shared);
      outcomes[i] = slot.notHitOutcome ??= notHitOutcome(cache, slot, plan.level);
      continue;
    }
    // Without evidence, one of three frozen meta objects shared by every hit (a response
    // serialises it from cache); with evidence, a meta of this hit's own.
    const ruleHitMeta = hitMetaOf(hits);
    const directions = ruleHitMeta.hitDirections;
    const ruleDescription = describeHits(template, hits, plan.shared.templates);
    const labels = frozenLabels(instance, plan.shared);
    // Explicit literals with a fixed key order (never spreads): V8 gives them one shape.
    const executed = {
      ruleInstanceId: instance.id,
      ruleInstanceVersion: instance.version,
      ruleId: instance.ruleId,
      ruleName: ruleNameOf(prepared),
      ruleDescription,
      ruleAction: settings.action,
      ruleHit: true,
      ruleHitMeta,
      nature: instance.nature,
      labels,
      isShadow,
    } as ExecutedRuleResult;
    // A hit on one side with the other side not evaluated (e.g. its amount had no rate).
    if (notEvaluated !== null) executed.notEvaluated = notEvaluated;
    executedRules[i] = Object.freeze(executed);
    hitRules.push(
      Object.freeze({
        ruleInstanceId: instance.id,
        ruleInstanceVersion: instance.version,
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
    if (last !== null && sameElements(last, executedRules)) {
      executed = last;
    } else {
      executed = Object.freeze(executedRules);
      plan.shared.lastMissList = executed;
    }
  }
  return {
    executedRules: executed as ExecutedRuleResult[],
    // Most transactions hit nothing: one shared frozen empty list.
    hitRules: (hitRules.length === 0 ? NO_HIT_RULES : Object.freeze(hitRules)) as HitRuleDetails[],
    status,
    outcomes,
    warnings: warnings === null ? NO_WARNINGS : Object.freeze(warnings),
  };
}

/** The shared frozen empty list of warnings. */
export const NO_WARNINGS: readonly ResultWarning[] = Object.freeze([]);

/** Aggregate functions whose value the current transaction's amount enters (merged when a need includes it). */
const MONEY_FUNCTIONS: ReadonlySet<string> = new Set(['sum', 'sumIn', 'amountCount', 'min', 'max']);

/** Whether one of the instance's needs adds an entry without an amount (`entries`) to a money aggregate. */
function readsUnconverted(plan: EvaluationPlan, offset: number, count: number, entries: readonly SeriesEntry[]): boolean {
  for (let j = 0; j < count; j++) {
    const need = plan.needs[plan.positions[offset + j] as number] as AggregateNeed;
    if (!need.includeCurrent || !MONEY_FUNCTIONS.has(need.fn)) continue;
    for (const e of entries) {
      if (e.series === need.series && e.key === need.key && e.timestamp >= need.start && e.timestamp <= need.end) return true;
    }
  }
  return false;
}

/** The note with the JSON Pointer of the transaction's amount in the currency that had no rate, when there is one. */
function withAmountPath(note: RuleNotEvaluated, transaction: Transaction): RuleNotEvaluated {
  if (note.reason !== 'NO_RATE' || note.path !== undefined) return Object.freeze(note);
  let path: string | undefined;
  if (transaction.originAmountDetails?.transactionCurrency === note.currency) path = '/originAmountDetails/transactionAmount';
  else if (transaction.destinationAmountDetails?.transactionCurrency === note.currency) path = '/destinationAmountDetails/transactionAmount';
  return Object.freeze(path === undefined ? { ...note } : { ...note, path });
}

/** The `RULE_NOT_EVALUATED` warning of an instance (frozen; `isShadow` only for a shadow instance). */
function warningOf(instance: RuleInstance, notEvaluated: RuleNotEvaluated, isShadow: boolean): ResultWarning {
  const why =
    notEvaluated.reason === 'NO_RATE'
      ? `no rate from ${notEvaluated.currency} to ${notEvaluated.to}`
      : notEvaluated.reason === 'LOGIC_WORK_BUDGET'
        ? 'its logic exceeded its work budget'
        : 'its logic failed';
  const warning: ResultWarning = {
    code: 'RULE_NOT_EVALUATED',
    ruleInstanceId: instance.id,
    notEvaluated,
    message: `Rule instance ${instance.id} could not be evaluated (${why}); it did not hit because it could not decide.`,
  };
  if (isShadow) warning.isShadow = true;
  return Object.freeze(warning);
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

/** What the result builders read of a prepared instance (of a transaction rule or a user rule). */
export interface RuleResultSource {
  readonly instance: RuleInstance;
  /** The rule (template); `null` for a custom json-logic instance. */
  readonly rule: { readonly name: string; readonly description: string } | null;
}

/** The `ruleName` of an instance's results: its alias, else its rule's name, else "Custom rule". */
export function ruleNameOf(prepared: RuleResultSource): string {
  return prepared.instance.ruleNameAlias ?? prepared.rule?.name ?? 'Custom rule';
}

/** The instance's labels, frozen once per cache and shared by every result of the instance. */
export function frozenLabels(instance: RuleInstance, cache: EvaluatorCache): readonly RuleLabel[] {
  let labels = cache.labels.get(instance);
  if (!labels) {
    labels = Object.freeze([...instance.labels]);
    cache.labels.set(instance, labels);
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

function notHitDescription(prepared: RuleResultSource): string {
  return prepared.rule?.description ?? prepared.instance.ruleDescriptionAlias ?? 'Custom json-logic rule.';
}

/** The frozen not-hit result of an instance with an action. */
export function notHitResult(prepared: RuleResultSource, action: RuleAction, cache: EvaluatorCache): ExecutedRuleResult {
  const { instance } = prepared;
  return Object.freeze({
    ruleInstanceId: instance.id,
    ruleInstanceVersion: instance.version,
    ruleId: instance.ruleId,
    ruleName: ruleNameOf(prepared),
    ruleDescription: notHitDescription(prepared),
    ruleAction: action,
    ruleHit: false,
    nature: instance.nature,
    labels: frozenLabels(instance, cache),
    isShadow: instance.mode === 'SHADOW',
  }) as ExecutedRuleResult;
}

const LOGIC_HIT_ORIGIN: RuleHit = Object.freeze({ direction: 'ORIGIN', evidence: Object.freeze([Object.freeze(logicEvidence('ORIGIN'))]) });
const LOGIC_HIT_DESTINATION: RuleHit = Object.freeze({
  direction: 'DESTINATION',
  evidence: Object.freeze([Object.freeze(logicEvidence('DESTINATION'))]),
});
const LOGIC_HITS_BOTH: readonly RuleHit[] = Object.freeze([LOGIC_HIT_ORIGIN, LOGIC_HIT_DESTINATION]);
const LOGIC_HITS_ORIGIN: readonly RuleHit[] = Object.freeze([LOGIC_HIT_ORIGIN]);
const LOGIC_HITS_DESTINATION: readonly RuleHit[] = Object.freeze([LOGIC_HIT_DESTINATION]);

/**
 * The hits of a custom logic without variables that held, each with its `logic` evidence (shared,
 * frozen): ORIGIN when the transaction has a sender or no receiver, DESTINATION when it has a receiver.
 */
function logicHitsOf(transaction: Transaction): readonly RuleHit[] {
  const origin = Boolean(transaction.originUserId) || !transaction.destinationUserId;
  if (!transaction.destinationUserId) return LOGIC_HITS_ORIGIN;
  return origin ? LOGIC_HITS_BOTH : LOGIC_HITS_DESTINATION;
}

const META_ORIGIN = Object.freeze({ hitDirections: Object.freeze(['ORIGIN'] as RuleHitDirection[]) });
const META_DESTINATION = Object.freeze({ hitDirections: Object.freeze(['DESTINATION'] as RuleHitDirection[]) });
const META_BOTH = Object.freeze({ hitDirections: Object.freeze(['ORIGIN', 'DESTINATION'] as RuleHitDirection[]) });

/** A frozen `ruleHitMeta`: its directions always present. */
interface FrozenHitMeta {
  readonly hitDirections: readonly RuleHitDirection[];
  readonly evidence?: readonly RuleEvidence[];
}

const META_LOGIC_ORIGIN: FrozenHitMeta = Object.freeze({
  hitDirections: META_ORIGIN.hitDirections,
  evidence: LOGIC_HIT_ORIGIN.evidence as readonly RuleEvidence[],
});
const META_LOGIC_DESTINATION: FrozenHitMeta = Object.freeze({
  hitDirections: META_DESTINATION.hitDirections,
  evidence: LOGIC_HIT_DESTINATION.evidence as readonly RuleEvidence[],
});
const META_LOGIC_BOTH: FrozenHitMeta = Object.freeze({
  hitDirections: META_BOTH.hitDirections,
  evidence: Object.freeze([...(LOGIC_HIT_ORIGIN.evidence as readonly RuleEvidence[]), ...(LOGIC_HIT_DESTINATION.evidence as readonly RuleEvidence[])]),
});

/** The frozen `ruleHitMeta` of a non-empty list of hits: its distinct directions, origin first, and their evidence. */
function hitMetaOf(hits: readonly RuleHit[]): FrozenHitMeta {
  // A custom logic's hits (without variables) are shared, and so is their meta.
  if (hits === LOGIC_HITS_BOTH) return META_LOGIC_BOTH;
  if (hits === LOGIC_HITS_ORIGIN) return META_LOGIC_ORIGIN;
  if (hits === LOGIC_HITS_DESTINATION) return META_LOGIC_DESTINATION;
  let origin = false;
  let destination = false;
  let evidence = false;
  for (let i = 0; i < hits.length; i++) {
    const hit = hits[i] as RuleHit;
    if (hit.direction === 'ORIGIN') origin = true;
    else destination = true;
    if (hit.evidence !== undefined && hit.evidence.length > 0) evidence = true;
  }
  const shared = origin ? (destination ? META_BOTH : META_ORIGIN) : META_DESTINATION;
  return evidence ? Object.freeze({ hitDirections: shared.hitDirections, evidence: evidenceOf(hits) }) : shared;
}

/**
 * The evidence items of the hits, origin side first (in the rule's order within a side), each
 * frozen in place with its window, ids and other nested values (a result is deeply frozen; a copy
 * would cost more than the item: see {@link RuleHit.evidence}).
 */
function evidenceOf(hits: readonly RuleHit[]): readonly RuleEvidence[] {
  const out: RuleEvidence[] = [];
  for (const direction of DIRECTION_ORDER) {
    for (let i = 0; i < hits.length; i++) {
      const hit = hits[i] as RuleHit;
      if (hit.direction !== direction || hit.evidence === undefined) continue;
      for (let j = 0; j < hit.evidence.length; j++) out.push(frozenEvidence(hit.evidence[j] as RuleEvidence));
    }
  }
  return Object.freeze(out);
}

const DIRECTION_ORDER: readonly RuleHitDirection[] = Object.freeze(['ORIGIN', 'DESTINATION'] as RuleHitDirection[]);

/** `item` frozen in place, with the objects and arrays it holds (one level down: a window, the ids). */
export function frozenEvidence(item: RuleEvidence): RuleEvidence {
  if (Object.isFrozen(item)) return item;
  const fields = item as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) Object.freeze(value);
  }
  return Object.freeze(item);
}
