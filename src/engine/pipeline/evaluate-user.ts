/**
 * Evaluating the user rules (pure and deterministic): every active user-rule instance whose user
 * filters pass is run against the user after a creation or an event and the user before it, into
 * executed and hit rules of the same wire shape as a transaction's, and each instance's outcome
 * (for counters and alerts). A user evaluation never runs a transaction rule, and a transaction's
 * never runs a user rule: the instance set keeps them apart.
 */
import type { ExecutedRuleResult, HitRuleDetails, RiskLevel, RuleAction, RuleEvidence, RuleHitDirection } from '../../domain/index.js';
import type { RuleInstance } from '../../domain/entities.js';
import type { RuleUser, UserRuleCheckContext, UserRuleDefinition, UserRuleHit } from '../../rules/types.js';
import { describeHits } from './describe.js';
import { frozenEvidence, frozenLabels, notHitResult, ruleNameOf, type EvaluationResult, type InstanceOutcome } from './evaluate.js';
import { createEvaluatorCache, type EvaluatorCache } from './evaluator-cache.js';
import { ACTION_SEVERITY, resolveSettings } from './settings.js';

/** A user-rule instance ready to run: the stored instance, its rule and its compiled user filters. */
export interface PreparedUserInstance {
  readonly instance: RuleInstance;
  readonly rule: UserRuleDefinition<unknown>;
  /** The instance's user filters, checked at a time; `null` when it has none. */
  readonly filter: ((user: RuleUser | null, at: number) => boolean) | null;
}

/** Input of {@link evaluateUserRuleInstances}. */
export interface UserEvaluationInput {
  /** The user after the change, with its profile. */
  readonly user: RuleUser & { readonly profile: Readonly<Record<string, unknown>> };
  /** The user as stored before the change; `null` on its first creation. */
  readonly previousUser: RuleUser | null;
  readonly instances: readonly PreparedUserInstance[];
  /** The time the user filters measure ages to (epoch ms): the event's timestamp, or the creation time. */
  readonly at: number;
  /** Risk level for a user without one (the engine's `defaultRiskLevel`). */
  readonly defaultRiskLevel: RiskLevel;
  /** What is kept between evaluations of the same instances (frozen labels, parsed templates). */
  readonly cache?: EvaluatorCache;
}

/** A user rule's hit is on the user itself: reported, and alerted, as the ORIGIN side (as Flagright does). */
const USER_HIT_DIRECTIONS: readonly RuleHitDirection[] = Object.freeze(['ORIGIN'] as RuleHitDirection[]);
const USER_HIT_META = Object.freeze({ hitDirections: USER_HIT_DIRECTIONS });
const NO_DIRECTIONS: readonly RuleHitDirection[] = Object.freeze([]);

/** The shared meta of a hit without evidence; with evidence, a frozen meta of the hit's own. */
function hitMetaOf(
  hit: UserRuleHit,
): typeof USER_HIT_META | { readonly hitDirections: readonly RuleHitDirection[]; readonly evidence: readonly RuleEvidence[] } {
  if (hit.evidence === undefined || hit.evidence.length === 0) return USER_HIT_META;
  return Object.freeze({ hitDirections: USER_HIT_DIRECTIONS, evidence: Object.freeze(hit.evidence.map(frozenEvidence)) });
}

/**
 * Runs the user-rule instances whose user filters pass on `input.user` at `input.at`. The risk
 * level that selects each instance's parameters and action is the user's (manual `riskLevel`, else
 * CRA level), else `defaultRiskLevel`. Results are frozen; `status` is the most severe live hit's
 * action (`ALLOW` when none hit). Pure.
 */
export function evaluateUserRuleInstances(input: UserEvaluationInput): EvaluationResult {
  const level = input.user.riskLevel ?? input.defaultRiskLevel;
  const cache = input.cache ?? createEvaluatorCache();
  const executedRules: ExecutedRuleResult[] = [];
  const hitRules: HitRuleDetails[] = [];
  const outcomes: InstanceOutcome[] = [];
  let status: RuleAction = 'ALLOW';
  for (const prepared of input.instances) {
    if (prepared.filter !== null && !prepared.filter(input.user, input.at)) continue;
    const { instance, rule } = prepared;
    const settings = resolveSettings(instance, level);
    const context: UserRuleCheckContext<unknown> = { user: input.user, previousUser: input.previousUser, parameters: settings.parameters };
    const hit = rule.check(context);
    const isShadow = instance.mode === 'SHADOW';
    if (hit === null) {
      const result = notHitResult(prepared, settings.action, cache);
      executedRules.push(result);
      outcomes.push({
        instance,
        hit: false,
        hitDirections: NO_DIRECTIONS,
        action: settings.action,
        riskLevel: level,
        isShadow,
        ruleDescription: result.ruleDescription,
        triggersOnHit: settings.triggersOnHit,
        counter: { instanceId: instance.id, runs: 1, hits: 0 },
      });
      continue;
    }
    const template = instance.ruleDescriptionAlias ?? rule.descriptionTemplate;
    const ruleDescription = describeHits(
      template,
      [hit.vars === undefined ? { direction: 'ORIGIN' } : { direction: 'ORIGIN', vars: hit.vars }],
      cache.templates,
    );
    const labels = frozenLabels(instance, cache);
    const ruleName = ruleNameOf(prepared);
    const ruleHitMeta = hitMetaOf(hit);
    // The same key order as a transaction's results (src/engine/pipeline/evaluate.ts).
    executedRules.push(
      Object.freeze({
        ruleInstanceId: instance.id,
        ruleInstanceVersion: instance.version,
        ruleId: instance.ruleId,
        ruleName,
        ruleDescription,
        ruleAction: settings.action,
        ruleHit: true,
        ruleHitMeta,
        nature: instance.nature,
        labels,
        isShadow,
      }) as ExecutedRuleResult,
    );
    hitRules.push(
      Object.freeze({
        ruleInstanceId: instance.id,
        ruleInstanceVersion: instance.version,
        ruleId: instance.ruleId,
        ruleName,
        ruleDescription,
        ruleAction: settings.action,
        ruleHitMeta,
        nature: instance.nature,
        labels,
        isShadow,
      }) as HitRuleDetails,
    );
    if (!isShadow && ACTION_SEVERITY[settings.action] > ACTION_SEVERITY[status]) status = settings.action;
    outcomes.push({
      instance,
      hit: true,
      hitDirections: USER_HIT_DIRECTIONS,
      action: settings.action,
      riskLevel: level,
      isShadow,
      ruleDescription,
      triggersOnHit: settings.triggersOnHit,
      counter: { instanceId: instance.id, runs: 1, hits: 1 },
    });
  }
  return { executedRules: Object.freeze(executedRules) as ExecutedRuleResult[], hitRules: Object.freeze(hitRules) as HitRuleDetails[], status, outcomes };
}
