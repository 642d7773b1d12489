/**
 * The one rule for alerts and cases (docs/wire-format.md#alerts-and-cases): every hit of an
 * instance with `alertCreationOnHit` on a user lands in the open alert of (instance, user), which
 * belongs to the user's open case; when there is no such alert a new one opens, in the user's open
 * case or in a new case. Pure: it decides what changes, and a repository stores exactly that,
 * atomically, with the rest of the transaction's outcome.
 */
import type { Alert, Case } from './entities.js';
import type { CaseStatus } from './enums.js';

/** Statuses in which an alert or a case is open: later hits still land in it. */
export const OPEN_STATUSES: ReadonlySet<CaseStatus> = new Set<CaseStatus>(['OPEN', 'REOPENED', 'IN_REVIEW', 'ESCALATED', 'IN_PROGRESS', 'ON_HOLD']);

/** One hit that should land in an alert: appended to the open alert of (instance, user) or a new one. */
export interface AlertHit {
  instanceId: string;
  userId: string;
  direction: 'ORIGIN' | 'DESTINATION';
  transactionId: string;
  priority: 'P1' | 'P2' | 'P3' | 'P4';
  ruleDetails: Alert['ruleDetails'];
  /** Ids to use if a new alert / case has to be created. */
  newAlertId: string;
  newCaseId: string;
}

/**
 * What one hit changes:
 * - `append`: the transaction id joins the open alert's `transactionIds` (once: a transaction that
 *   hits again, after an event, is not listed twice), and the alert's and its case's `updatedAt`
 *   become `at`;
 * - `open`: `alert` is created; it joins `case`, which is either a new case (`caseIsNew`) to store
 *   as given, or the user's open case, whose `alertIds` gains the alert, whose `updatedAt` becomes
 *   `at`, and whose priority becomes `casePriority`.
 */
export type AlertHitChange =
  | { readonly kind: 'append'; readonly alertId: string; readonly caseId: string; readonly transactionId: string; readonly at: number }
  | { readonly kind: 'open'; readonly alert: Alert; readonly caseIsNew: true; readonly case: Case }
  | {
      readonly kind: 'open';
      readonly alert: Alert;
      readonly caseIsNew: false;
      readonly caseId: string;
      readonly casePriority: Case['priority'];
      readonly at: number;
    };

/**
 * Decides where a hit lands. Constant time: nothing here grows with an alert's transactions or a
 * case's alerts.
 *
 * @param openAlert the alert last opened for (`hit.instanceId`, `hit.userId`), or `null`
 * @param userCase the case last opened for `hit.userId`, or `null`
 * @param now the time of the outcome (epoch ms)
 */
export function decideAlertHit(hit: AlertHit, openAlert: Alert | null, userCase: Case | null, now: number): AlertHitChange {
  if (openAlert !== null && OPEN_STATUSES.has(openAlert.alertStatus)) {
    return { kind: 'append', alertId: openAlert.alertId, caseId: openAlert.caseId, transactionId: hit.transactionId, at: now };
  }
  const caseIsOpen = userCase !== null && OPEN_STATUSES.has(userCase.caseStatus);
  const alert: Alert = {
    alertId: hit.newAlertId,
    caseId: caseIsOpen ? userCase.caseId : hit.newCaseId,
    createdTimestamp: now,
    updatedAt: now,
    alertStatus: 'OPEN',
    priority: hit.priority,
    userId: hit.userId,
    direction: hit.direction,
    entityDetails: { type: 'TRANSACTION', transactionIds: [hit.transactionId] },
    ruleDetails: { ...hit.ruleDetails },
  };
  if (!caseIsOpen) {
    const created: Case = {
      caseId: hit.newCaseId,
      createdTimestamp: now,
      updatedAt: now,
      caseStatus: 'OPEN',
      priority: hit.priority,
      alertIds: [hit.newAlertId],
      entityDetails: { type: 'USER', userId: hit.userId },
    };
    return { kind: 'open', alert, caseIsNew: true, case: created };
  }
  // A more urgent alert raises its case's priority (P1 is the most urgent).
  const casePriority = hit.priority < userCase.priority ? hit.priority : userCase.priority;
  return { kind: 'open', alert, caseIsNew: false, caseId: userCase.caseId, casePriority, at: now };
}
