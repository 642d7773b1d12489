/**
 * The user rules of one user creation or user event: the active user-rule instances run against the
 * user after the change and before it, into the results the response and the stored event carry,
 * and the counters and alert hits the user's save writes in the same atomic step.
 */
import type { StoredUser, UserRuleResults, UserType } from '../../domain/entities.js';
import type { BusinessUser, ConsumerUser, ExecutedRuleResult, HitRuleDetails } from '../../domain/index.js';
import type { ActiveInstances } from '../instances/instance-set.js';
import type { EngineSettings } from '../options.js';
import { evaluateUserRuleInstances, ruleUserOf, type InstanceOutcome } from '../pipeline/index.js';
import { userRuleOutcomeWrites, type UserRuleOutcomeWrites } from '../pipeline/outcome.js';

/** The results of a user's rules and what they write. */
export interface UserRuleRun {
  readonly executedRules: ExecutedRuleResult[];
  readonly hitRules: HitRuleDetails[];
  /** What the user's save writes with it: counters, alert hits, and the results kept on the user. */
  readonly writes: UserRuleOutcomeWrites & { readonly ruleResults: UserRuleResults };
}

/** The change a user's rules run on. */
export interface UserChange {
  /** The stored user before the change; `null` when none was stored. */
  readonly before: StoredUser | null;
  readonly userId: string;
  readonly type: UserType;
  /** The profile after the change. */
  readonly profile: ConsumerUser | BusinessUser;
  /** What age filters measure to: the event's timestamp, or the creation time. */
  readonly at: number;
}

/**
 * Runs the active user-rule instances on a change: the user after it keeps the stored risk state
 * (CRA score and level), so the risk level that picks each instance's settings is the profile's
 * manual `riskLevel`, else the CRA level, else the engine's default.
 */
export function runUserRules(settings: EngineSettings, state: ActiveInstances, change: UserChange): UserRuleRun {
  const { before } = change;
  const after: StoredUser = {
    userId: change.userId,
    type: change.type,
    profile: change.profile,
    craScore: before?.craScore ?? null,
    craRiskLevel: before?.craRiskLevel ?? null,
    firstSeenAt: before?.firstSeenAt ?? change.at,
    updatedAt: change.at,
  };
  const user = ruleUserOf(after) as Parameters<typeof evaluateUserRuleInstances>[0]['user'];
  const evaluation = evaluateUserRuleInstances({
    user,
    previousUser: ruleUserOf(before),
    instances: state.users,
    at: change.at,
    defaultRiskLevel: settings.defaultRiskLevel,
    cache: state.cache,
  });
  const ruleNameOf = (o: InstanceOutcome) => o.instance.ruleNameAlias ?? settings.registry.find(o.instance.ruleId)?.name ?? o.instance.ruleId;
  const { counters, alertHits } = userRuleOutcomeWrites(change.userId, evaluation.outcomes, ruleNameOf, settings.ids);
  return {
    executedRules: evaluation.executedRules,
    hitRules: evaluation.hitRules,
    writes: { counters, alertHits, ruleResults: { executedRules: evaluation.executedRules, hitRules: evaluation.hitRules } },
  };
}
