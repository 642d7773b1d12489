/**
 * What one evaluation writes besides the transaction: the instances' run and hit counters, the
 * alert hits (where they land is the case policy's decision, at write time), the user updates of
 * `triggersOnHit`, and the users seen for the first time. Pure given the id generator.
 */
import type { AlertHit, CaseGrouping } from '../../domain/case-policy.js';
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

/*
 * An alert hit makes the parts only an opening alert needs — the new alert's and case's ids, and the
 * rule's details the alert keeps — on first read. Most hits land in an alert that is open already,
 * and making these for each of them was most of a hit's cost (two random UUIDs and an object per
 * hit and side). What they are made from is kept on the hit under symbols (not enumerable by JSON).
 */
const OUTCOME = Symbol('outcome');
const NAME_OF = Symbol('ruleNameOf');
const IDS = Symbol('ids');
const ALERT_ID = Symbol('alertId');
const CASE_ID = Symbol('caseId');
const DETAILS = Symbol('details');

interface LazyHit {
  [OUTCOME]: InstanceOutcome;
  [NAME_OF]: (o: InstanceOutcome) => string;
  [IDS]: IdGenerator;
  [ALERT_ID]: string | undefined;
  [CASE_ID]: string | undefined;
  [DETAILS]: AlertHit['ruleDetails'] | undefined;
}

/** The getters every alert hit shares (on its prototype): each part made once, when first read. */
const LAZY_HIT_PARTS = Object.create(null, {
  newAlertId: {
    enumerable: true,
    get(this: LazyHit) {
      this[ALERT_ID] ??= this[IDS].next('alert');
      return this[ALERT_ID];
    },
  },
  newCaseId: {
    enumerable: true,
    get(this: LazyHit) {
      this[CASE_ID] ??= this[IDS].next('case');
      return this[CASE_ID];
    },
  },
  ruleDetails: {
    enumerable: true,
    get(this: LazyHit) {
      const o = this[OUTCOME];
      this[DETAILS] ??= {
        id: o.instance.ruleId,
        name: this[NAME_OF](o),
        description: o.ruleDescription,
        instanceId: o.instance.id,
        action: o.action,
        nature: o.instance.nature,
      };
      return this[DETAILS];
    },
  },
}) as object;

/** The alert hit of an instance outcome on one side's user; its opening parts are made only if read. */
function alertHitOf(
  o: InstanceOutcome,
  userId: string,
  direction: 'ORIGIN' | 'DESTINATION',
  transactionId: string | null,
  ruleNameOf: (o: InstanceOutcome) => string,
  ids: IdGenerator,
): AlertHit {
  const hit = Object.create(LAZY_HIT_PARTS) as AlertHit & LazyHit;
  hit.instanceId = o.instance.id;
  hit.userId = userId;
  hit.direction = direction;
  hit.transactionId = transactionId;
  hit.priority = o.instance.casePriority;
  hit[OUTCOME] = o;
  hit[NAME_OF] = ruleNameOf;
  hit[IDS] = ids;
  hit[ALERT_ID] = undefined;
  hit[CASE_ID] = undefined;
  hit[DETAILS] = undefined;
  return hit;
}

/** The other side's user of a hit on `userId`'s side (`undefined` without one, or for a self-transfer). */
function counterpartyOf(transaction: Transaction, direction: 'ORIGIN' | 'DESTINATION', userId: string): string | undefined {
  const other = direction === 'ORIGIN' ? transaction.destinationUserId : transaction.originUserId;
  return other && other !== userId ? other : undefined;
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
 * @param caseGrouping `COUNTERPARTIES`: each alert hit names the other side's user to group with
 */
export function ruleOutcomeWrites(
  transaction: Transaction,
  outcomes: readonly InstanceOutcome[],
  stored: { readonly origin: StoredUser | null | undefined; readonly destination: StoredUser | null | undefined },
  ruleNameOf: (o: InstanceOutcome) => string,
  ids: IdGenerator,
  caseGrouping: CaseGrouping = 'USER',
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
      if (o.instance.alertCreationOnHit) {
        const hit = alertHitOf(o, userId, direction, transaction.transactionId, ruleNameOf, ids);
        const other = caseGrouping === 'COUNTERPARTIES' ? counterpartyOf(transaction, direction, userId) : undefined;
        if (other !== undefined) hit.groupWithUserId = other;
        alertHits.push(hit);
      }
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

/** What a user evaluation writes besides the user: the instances' counters and the alert hits. */
export interface UserRuleOutcomeWrites {
  readonly counters: TransactionOutcome['counters'];
  readonly alertHits: AlertHit[];
}

/**
 * The writes of a user evaluation's rule outcomes: every outcome's counter, and for each live (not
 * shadow) hit of an instance that creates alerts, an alert hit on the user — with no transaction
 * (`transactionId` `null`), landing where the case policy puts it like any other hit.
 *
 * @param ruleNameOf the display name of an instance's rule (its alias, or the rule's name)
 */
export function userRuleOutcomeWrites(
  userId: string,
  outcomes: readonly InstanceOutcome[],
  ruleNameOf: (o: InstanceOutcome) => string,
  ids: IdGenerator,
): UserRuleOutcomeWrites {
  const counters: TransactionOutcome['counters'] = outcomes.map((o) => o.counter);
  const alertHits: AlertHit[] = [];
  for (const o of outcomes) {
    if (o.hit && !o.isShadow && o.instance.alertCreationOnHit) alertHits.push(alertHitOf(o, userId, 'ORIGIN', null, ruleNameOf, ids));
  }
  return { counters, alertHits };
}
