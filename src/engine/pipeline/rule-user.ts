/**
 * A stored user as the rules read it: its type and profile, and the risk level that picks an
 * instance's parameters (the profile's manual `riskLevel`, else the CRA level).
 */
import type { StoredUser } from '../../domain/entities.js';
import type { RiskLevel } from '../../domain/index.js';
import type { RuleUser } from '../../rules/types.js';

/** `user` as rules read it (with the whitelists that hold it, when the filters ask); `null` for none. Pure. */
export function ruleUserOf(user: StoredUser | null | undefined, whitelists?: ReadonlySet<string>): RuleUser | null {
  if (!user) return null;
  const manual = (user.profile as { riskLevel?: RiskLevel } | null)?.riskLevel;
  const view: RuleUser = {
    userId: user.userId,
    type: user.type,
    profile: user.profile as Record<string, unknown> | null,
    riskLevel: manual ?? user.craRiskLevel ?? null,
    craScore: user.craScore,
  };
  return whitelists === undefined ? view : { ...view, whitelists };
}
