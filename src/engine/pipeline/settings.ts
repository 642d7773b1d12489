/**
 * The settings that apply to one instance for one transaction
 * (docs/wire-format.md#risk-level-settings): the risk level that selects them, and the parameters,
 * action and triggers at that level.
 */
import type { RiskLevel, RuleAction, TriggersOnHit } from '../../domain/index.js';
import type { RuleInstance } from '../../domain/entities.js';
import type { RuleUser } from '../../rules/types.js';
import type { Transaction } from '../../domain/index.js';

/** Severity order of actions (docs/wire-format.md#status): BLOCK > SUSPEND > FLAG > ALLOW. */
export const ACTION_SEVERITY: Readonly<Record<RuleAction, number>> = Object.freeze({
  ALLOW: 0,
  FLAG: 1,
  SUSPEND: 2,
  BLOCK: 3,
});

/** The settings that apply to one instance for one transaction, chosen by risk level. */
export interface ResolvedSettings {
  readonly riskLevel: RiskLevel;
  readonly parameters: Record<string, unknown>;
  readonly action: RuleAction;
  readonly triggersOnHit: TriggersOnHit | undefined;
}

/**
 * The risk level that selects parameters and actions: the sender's (or the receiver's when there is
 * no sender) manual `riskLevel`, else derived CRA level, else `defaultRiskLevel`
 * (docs/wire-format.md#risk-level-settings).
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

/**
 * `riskLevelParameters[level] ?? parameters`, `riskLevelActions[level] ?? action`
 * (docs/wire-format.md#risk-level-settings).
 */
export function resolveSettings(instance: RuleInstance, riskLevel: RiskLevel): ResolvedSettings {
  return {
    riskLevel,
    parameters: instance.riskLevelParameters?.[riskLevel] ?? instance.parameters,
    action: instance.riskLevelActions?.[riskLevel] ?? instance.action,
    triggersOnHit: instance.riskLevelsTriggersOnHit?.[riskLevel] ?? instance.triggersOnHit,
  };
}
