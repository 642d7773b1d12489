/**
 * What one evaluation writes besides the transaction: the instances' run and hit counters, the
 * alert hits (where they land is the case policy's decision, at write time), the user updates of
 * `triggersOnHit`, and the users seen for the first time. Pure given the id generator.
 */
import type { AlertHit } from '../../domain/case-policy.js';
import type { StoredUser } from '../../domain/entities.js';
import type { Transaction } from '../../domain/index.js';
import type { UserUpdate } from '../../domain/user-update.js';
import type { TransactionOutcome } from '../repositories.js';
import type { InstanceOutcome } from './evaluate.js';
import type { IdGenerator } from '../types.js';

/** The parts of a {@link TransactionOutcome} that rule outcomes decide. */
export interface RuleOutcomeWrites {
  readonly counters: TransactionOutcome['counters'];
  readonly alertHits: AlertHit[];
  /** `triggersOnHit` updates; risk scoring may add CRA observations. */
  readonly userUpdates: UserUpdate[];
  readonly seenUserIds: string[];
}

/** The alert hit of an instance outcome on one side's user. */
function alertHitOf(
  o: InstanceOutcome,
  userId: string,
  direction: 'ORIGIN' | 'DESTINATION',
  transaction: Transaction,
  ruleName: string,
  ids: IdGenerator,
): AlertHit {
  return {
    instanceId: o.instance.id,
    userId,
    direction,
    transactionId: transaction.transactionId,
    priority: o.instance.casePriority,
    ruleDetails: {
      id: o.instance.ruleId,
      name: ruleName,
      description: o.ruleDescription,
      instanceId: o.instance.id,
      action: o.action,
      nature: o.instance.nature,
    },
    newAlertId: ids.next('alert'),
    newCaseId: ids.next('case'),
  };
}

/** The `triggersOnHit` update of a hit user, or `null` when the instance sets nothing for that side. */
function triggeredUpdate(o: InstanceOutcome, userId: string, direction: 'ORIGIN' | 'DESTINATION'): UserUpdate | null {
  const t = o.triggersOnHit;
  const wanted = t?.usersToCheck ?? 'ALL';
  if (!t || !(t.userStateDetails || t.kycStatusDetails) || (wanted !== 'ALL' && wanted !== direction)) return null;
  const update: UserUpdate = { userId };
  if (t.userStateDetails) update.userStateDetails = { ...t.userStateDetails };
  if (t.kycStatusDetails) update.kycStatusDetails = { ...t.kycStatusDetails };
  return update;
}

/**
 * The writes of a transaction's rule outcomes: every outcome's counter; for each live (not shadow)
 * hit, per hit side with a user, an alert hit (when the instance creates alerts) and its
 * `triggersOnHit` update; and the parties not stored yet.
 *
 * @param ruleNameOf the display name of an instance's rule (its alias, the rule's name, or "Custom rule")
 */
export function ruleOutcomeWrites(
  transaction: Transaction,
  outcomes: readonly InstanceOutcome[],
  stored: { readonly origin: StoredUser | null | undefined; readonly destination: StoredUser | null | undefined },
  ruleNameOf: (o: InstanceOutcome) => string,
  ids: IdGenerator,
): RuleOutcomeWrites {
  const counters: TransactionOutcome['counters'] = new Array(outcomes.length);
  for (let i = 0; i < outcomes.length; i++) counters[i] = (outcomes[i] as InstanceOutcome).counter;
  const alertHits: AlertHit[] = [];
  const userUpdates: UserUpdate[] = [];
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i] as InstanceOutcome;
    if (!o.hit || o.isShadow) continue;
    for (const direction of o.hitDirections) {
      const userId = direction === 'ORIGIN' ? transaction.originUserId : transaction.destinationUserId;
      if (!userId) continue;
      if (o.instance.alertCreationOnHit) alertHits.push(alertHitOf(o, userId, direction, transaction, ruleNameOf(o), ids));
      const update = triggeredUpdate(o, userId, direction);
      if (update !== null) userUpdates.push(update);
    }
  }
  const seenUserIds: string[] = [];
  if (transaction.originUserId && !stored.origin) seenUserIds.push(transaction.originUserId);
  if (transaction.destinationUserId && !stored.destination && transaction.destinationUserId !== transaction.originUserId) {
    seenUserIds.push(transaction.destinationUserId);
  }
  return { counters, alertHits, userUpdates, seenUserIds };
}
