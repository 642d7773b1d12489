/**
 * The one rule for alerts and cases (docs/alerts-and-cases.md): every hit of an instance with
 * `alertCreationOnHit` on a user lands in the open alert of (instance, user), which belongs to the
 * user's open case; when there is no such alert a new one opens, in the user's open case, else —
 * when the hit names a user to group with (case grouping `COUNTERPARTIES`) — in that user's open
 * case, else in a new case. Pure: it decides what changes, and a repository stores exactly that,
 * atomically, with the rest of the transaction's outcome.
 */
import type { Alert, Case, MonitoringResult } from './entities.js';
import type { ResultAlert } from './schemas/results.js';
import type { CaseStatus } from './enums.js';

/** Statuses in which an alert or a case is open: later hits still land in it. */
export const OPEN_STATUSES: ReadonlySet<CaseStatus> = new Set<CaseStatus>(['OPEN', 'REOPENED', 'IN_REVIEW', 'ESCALATED', 'IN_PROGRESS', 'ON_HOLD']);

/**
 * How an engine groups alerts into cases: `USER` (the default), one case per user; `COUNTERPARTIES`,
 * a user without an open case joins the open case of the hit transaction's other side, so the
 * accounts of one scheme (a cycle, a fan-in) end up in one case.
 */
export type CaseGrouping = 'USER' | 'COUNTERPARTIES';

/** The case groupings, for validation. */
export const CASE_GROUPINGS: readonly CaseGrouping[] = ['USER', 'COUNTERPARTIES'];

/** One hit that should land in an alert: appended to the open alert of (instance, user) or a new one. */
export interface AlertHit {
  instanceId: string;
  userId: string;
  /**
   * The user whose open case a new alert joins when `userId` has no open case: the hit
   * transaction's other side under case grouping `COUNTERPARTIES`. Absent under `USER`, and when
   * the other side has no user or is `userId`.
   */
  groupWithUserId?: string;
  direction: 'ORIGIN' | 'DESTINATION';
  /** The hit transaction; `null` for a user rule's hit (on the user itself: its alert lists no transaction). */
  transactionId: string | null;
  priority: 'P1' | 'P2' | 'P3' | 'P4';
  ruleDetails: Alert['ruleDetails'];
  /** Ids to use if a new alert / case has to be created. */
  newAlertId: string;
  newCaseId: string;
}

/**
 * What one hit changes:
 * - `append`: the transaction id joins the open alert's `transactionIds` (once: a transaction that
 *   hits again, after an event, is not listed twice; a user rule's hit, `transactionId` `null`,
 *   lists none), and the alert's and its case's `updatedAt` become `at`;
 * - `open`: `alert` is created; it joins `case`, which is either a new case (`caseIsNew`) to store
 *   as given, or an open case, whose `alertIds` gains the alert, whose `updatedAt` becomes `at`,
 *   and whose priority becomes `casePriority`. That case is the user's own, or (`joinsUser`) the
 *   open case of `groupWithUserId`: the user then becomes one of the case's users, and the case is
 *   the user's case from now on (its later alerts join it while it is open).
 */
export type AlertHitChange =
  | { readonly kind: 'append'; readonly alertId: string; readonly caseId: string; readonly transactionId: string | null; readonly at: number }
  | { readonly kind: 'open'; readonly alert: Alert; readonly caseIsNew: true; readonly case: Case }
  | {
      readonly kind: 'open';
      readonly alert: Alert;
      readonly caseIsNew: false;
      readonly caseId: string;
      readonly casePriority: Case['priority'];
      readonly at: number;
      readonly joinsUser: boolean;
    };

/** `c` when it is an open case, else `null`. */
function openOrNull(c: Case | null): Case | null {
  return c !== null && OPEN_STATUSES.has(c.caseStatus) ? c : null;
}

/**
 * Decides where a hit lands. Constant time: nothing here grows with an alert's transactions or a
 * case's alerts (nor, for a joining user, with the case's users).
 *
 * @param openAlert the alert last opened for (`hit.instanceId`, `hit.userId`), or `null`
 * @param userCase the case `hit.userId` last opened or joined (its latest alert's), or `null`
 * @param now the time of the outcome (epoch ms)
 * @param groupCase the case `hit.groupWithUserId` last opened or joined, or `null` (always `null` without it)
 */
export function decideAlertHit(hit: AlertHit, openAlert: Alert | null, userCase: Case | null, now: number, groupCase: Case | null = null): AlertHitChange {
  if (openAlert !== null && OPEN_STATUSES.has(openAlert.alertStatus)) {
    return { kind: 'append', alertId: openAlert.alertId, caseId: openAlert.caseId, transactionId: hit.transactionId, at: now };
  }
  const own = openOrNull(userCase);
  const joined = own ?? (hit.groupWithUserId === undefined ? null : openOrNull(groupCase));
  const alert: Alert = {
    alertId: hit.newAlertId,
    caseId: joined !== null ? joined.caseId : hit.newCaseId,
    createdTimestamp: now,
    updatedAt: now,
    alertStatus: 'OPEN',
    priority: hit.priority,
    userId: hit.userId,
    direction: hit.direction,
    entityDetails: hit.transactionId === null ? { type: 'USER', transactionIds: [] } : { type: 'TRANSACTION', transactionIds: [hit.transactionId] },
    ruleDetails: { ...hit.ruleDetails },
  };
  if (joined === null) {
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
  const casePriority = hit.priority < joined.priority ? hit.priority : joined.priority;
  return { kind: 'open', alert, caseIsNew: false, caseId: joined.caseId, casePriority, at: now, joinsUser: own === null };
}

/**
 * The alert a hit's change names in its result: the alert it opened, or the open alert it was
 * appended to, with that alert's case.
 */
export function resultAlertOf(hit: AlertHit, change: AlertHitChange): ResultAlert {
  const opened = change.kind === 'open';
  return {
    alertId: opened ? change.alert.alertId : change.alertId,
    caseId: opened ? change.alert.caseId : change.caseId,
    ruleInstanceId: hit.instanceId,
    userId: hit.userId,
    direction: hit.direction,
    action: opened ? 'OPENED' : 'APPENDED',
    ...(opened && change.caseIsNew ? { caseOpened: true as const } : {}),
  };
}

/**
 * Adds the alert of one hit to the alerts a result names, in hit order, each alert once: a later
 * hit of the same outcome on an alert named already (a self-transfer hitting both sides, or a
 * hit appended to the alert an earlier hit opened) adds nothing — the first naming, `OPENED` when
 * the outcome opened it, stands.
 */
export function addResultAlert(alerts: ResultAlert[], alert: ResultAlert): void {
  for (const named of alerts) if (named.alertId === alert.alertId) return;
  alerts.push(alert);
}

/**
 * `result` naming `alerts` (see {@link MonitoringResult.alerts}): the same result when there are
 * none, else a copy with `alerts` set last (replacing any it had). Its rule lists are shared, not
 * copied (they are frozen).
 */
export function withResultAlerts(result: MonitoringResult, alerts: readonly ResultAlert[]): MonitoringResult {
  if (alerts.length === 0) return result;
  const { alerts: _previous, ...rest } = result;
  return { ...rest, alerts: alerts.map((a) => ({ ...a })) };
}
