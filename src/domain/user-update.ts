/**
 * What a transaction's outcome changes on a user: the CRA moved by its risk score, and the state
 * or KYC status set by an instance's `triggersOnHit`. Pure: a repository stores the user record
 * this returns, atomically with the rest of the outcome, so concurrent transactions of one user
 * never lose an update.
 */
import type { StoredUser } from './entities.js';
import type { RiskLevel } from './enums.js';
import type { BusinessUser, ConsumerUser } from './schemas/user.js';
import { DEFAULT_RISK_BANDS, nextCraScore, scoreToRiskLevel, type RiskBands } from './risk-score.js';

/** A change to a user's stored risk or state, from risk scoring or `triggersOnHit`. */
export interface UserUpdate {
  userId: string;
  /** A CRA score to set as it is (seeding, migrations). */
  craScore?: number;
  craRiskLevel?: RiskLevel;
  /**
   * A transaction risk score folded into the user's CRA: `craScore = nextCraScore(craScore,
   * craObservation)` (moving average) and `craRiskLevel = scoreToRiskLevel(craScore, craBands)`.
   */
  craObservation?: number;
  /** The score bands for `craObservation` (default: the bands of docs/wire-format.md#risk-scoring). */
  craBands?: RiskBands;
  userStateDetails?: { state: string; reason?: string; description?: string };
  kycStatusDetails?: { status: string; reason?: string; description?: string };
}

/** A user known only as a party of transactions: no profile, no risk yet. */
export function seenUser(userId: string, now: number): StoredUser {
  return { userId, type: null, profile: null, craScore: null, craRiskLevel: null, firstSeenAt: now, updatedAt: now };
}

/**
 * The user after `update` at `now` (a new record; `user` is not changed). A user without a stored
 * record (`null`) starts as {@link seenUser}. State and KYC changes apply to a user with a profile
 * only (a bare party has no profile to hold them).
 */
export function applyUserUpdate(user: StoredUser | null, update: UserUpdate, now: number): StoredUser {
  const next: StoredUser = { ...(user ?? seenUser(update.userId, now)), updatedAt: now };
  if (update.craScore !== undefined) next.craScore = update.craScore;
  if (update.craRiskLevel !== undefined) next.craRiskLevel = update.craRiskLevel;
  if (update.craObservation !== undefined) {
    next.craScore = nextCraScore(next.craScore, update.craObservation);
    next.craRiskLevel = scoreToRiskLevel(next.craScore, update.craBands ?? DEFAULT_RISK_BANDS);
  }
  if (next.profile && (update.userStateDetails || update.kycStatusDetails)) {
    next.profile = {
      ...next.profile,
      ...(update.userStateDetails ? { userStateDetails: update.userStateDetails } : {}),
      ...(update.kycStatusDetails ? { kycStatusDetails: update.kycStatusDetails } : {}),
    } as StoredUser['profile'];
  }
  return next;
}

/**
 * The users after one transaction outcome, in `users` (changed in place): each party seen for the
 * first time as a {@link seenUser}, then each update applied in order. What every repository
 * stores for an outcome, and what a batch's later records read before it is stored.
 */
export function applyOutcomeUsers(
  users: { get(userId: string): StoredUser | null | undefined; set(userId: string, user: StoredUser): unknown },
  seenUserIds: readonly string[],
  updates: readonly UserUpdate[],
  now: number,
): void {
  for (const userId of seenUserIds) if ((users.get(userId) ?? null) === null) users.set(userId, seenUser(userId, now));
  for (const update of updates) users.set(update.userId, applyUserUpdate(users.get(update.userId) ?? null, update, now));
}

/**
 * The profile of a user created again with the same `userId` (docs/decisions.md, "Users"): the
 * stored profile with every top-level field of `incoming` over it. A field the new payload omits
 * is kept, so re-sending a partial profile never erases what was stored; a field it carries
 * replaces the stored one whole (no deep merge: a new `userDetails` is the new details). To
 * remove a field, send a user event with it set to `null`.
 */
export function mergeRecreatedProfile<P extends ConsumerUser | BusinessUser>(stored: ConsumerUser | BusinessUser | null, incoming: P): P {
  if (stored === null) return incoming;
  return { ...stored, ...incoming } as P;
}
