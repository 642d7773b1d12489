/**
 * The alert and case workflow (docs/alerts-and-cases.md#working-an-alert-or-a-case): which status
 * moves are allowed, which closing reasons exist, what a status change, a priority change or an
 * assignment does to an alert or a case, and the due date a priority gives. Pure: the engine reads
 * the alert or case, asks here what changes, and a repository stores exactly that.
 */
import { invalidField, TxmonError } from '../errors.js';
import type { Alert, Case } from './entities.js';
import type { CasePriority, CaseStatus } from './enums.js';
import { CLOSING_REASONS, type StatusChange, type StatusChangeRequest } from './schemas/workflow.js';

/** The statuses an open alert or case may move to (any open one but `OPEN` and `REOPENED`, or `CLOSED`). */
const FROM_OPEN: readonly CaseStatus[] = ['IN_PROGRESS', 'IN_REVIEW', 'ON_HOLD', 'ESCALATED', 'CLOSED'];

/**
 * The allowed status moves, from → to. `OPEN` is only a creation status (nothing moves to it);
 * `REOPENED` is entered only from `CLOSED` and behaves as `OPEN`; `CLOSED` moves only to
 * `REOPENED`; no status moves to itself. Every open status moves to every other working status
 * (`IN_PROGRESS`, `IN_REVIEW`, `ON_HOLD`, `ESCALATED`) and to `CLOSED`.
 */
export const STATUS_MOVES: Readonly<Record<CaseStatus, readonly CaseStatus[]>> = Object.freeze({
  OPEN: FROM_OPEN,
  REOPENED: FROM_OPEN,
  IN_PROGRESS: FROM_OPEN.filter((s) => s !== 'IN_PROGRESS'),
  IN_REVIEW: FROM_OPEN.filter((s) => s !== 'IN_REVIEW'),
  ON_HOLD: FROM_OPEN.filter((s) => s !== 'ON_HOLD'),
  ESCALATED: FROM_OPEN.filter((s) => s !== 'ESCALATED'),
  CLOSED: ['REOPENED'],
});

/** Whether an alert or a case in status `from` may move to `to`. */
export function isAllowedMove(from: CaseStatus, to: CaseStatus): boolean {
  return STATUS_MOVES[from].includes(to);
}

/** The status, priority and assignment fields a workflow write may set on an alert (the others never change). */
export type AlertWorkflowPatch = Partial<Pick<Alert, 'alertStatus' | 'priority' | 'assignments' | 'lastStatusChange' | 'closingReason'>> & {
  updatedAt: number;
};
/** The same for a case. */
export type CaseWorkflowPatch = Partial<Pick<Case, 'caseStatus' | 'priority' | 'assignments' | 'lastStatusChange' | 'closingReason'>> & {
  updatedAt: number;
};

/**
 * The status change `request` makes to something in status `from`, at `now`, by `actor`.
 *
 * @throws TxmonError `INVALID_STATUS_MOVE` (400, path `/status`) for a move outside
 *   {@link STATUS_MOVES}; `VALIDATION_FAILED` at `/reason` for a close without a reason, or a reason
 *   given with another status; at `/otherReason` for `OTHER` without text, or text without `OTHER`.
 */
export function decideStatusChange(
  from: CaseStatus,
  request: Pick<StatusChangeRequest, 'status' | 'reason' | 'otherReason' | 'comment'>,
  now: number,
  actor: string | undefined,
): StatusChange {
  const to = request.status;
  if (!isAllowedMove(from, to)) {
    const message = `${from} → ${to} is not allowed`;
    throw new TxmonError('INVALID_STATUS_MOVE', `Invalid status move: ${message}`, [{ path: '/status', code: 'transition', message }]);
  }
  const reasons = request.reason ?? [];
  if (to !== 'CLOSED' && reasons.length > 0) throw invalidField('/reason', 'not-allowed', 'is taken only when closing (status CLOSED)');
  if (to === 'CLOSED' && reasons.length === 0)
    throw invalidField('/reason', 'required', `must name at least one closing reason (${CLOSING_REASONS.join(', ')})`);
  const other = reasons.includes('OTHER');
  const otherText = request.otherReason?.trim() ?? '';
  if (other && otherText === '') throw invalidField('/otherReason', 'required', 'must say why when the reason is OTHER');
  if (!other && request.otherReason !== undefined) throw invalidField('/otherReason', 'not-allowed', 'is taken only with reason OTHER');
  const change: StatusChange = { status: to, timestamp: now };
  if (reasons.length > 0) change.reason = [...reasons];
  if (other) change.otherReason = request.otherReason as string;
  if (request.comment !== undefined) change.comment = request.comment;
  if (actor !== undefined) change.actor = actor;
  return change;
}

/** What a status change writes on the alert or case it moves (the closing reason is kept after a reopen). */
export function statusPatchOf(change: StatusChange): { lastStatusChange: StatusChange; closingReason?: StatusChange } {
  return change.status === 'CLOSED' ? { lastStatusChange: change, closingReason: change } : { lastStatusChange: change };
}

/**
 * What a case's status change does to its alerts: a close closes each alert not closed yet, with the
 * case's reason (its `lastStatusChange` and `closingReason` are the case's change), and leaves a
 * closed one as it is; other moves leave the alerts alone (`null`).
 */
export function openAlertsPatchOnCaseChange(change: StatusChange): AlertWorkflowPatch | null {
  if (change.status !== 'CLOSED') return null;
  return { alertStatus: 'CLOSED', ...statusPatchOf(change), updatedAt: change.timestamp };
}

/** Hours from creation to the due date, per priority. */
export type SlaHours = Readonly<Record<CasePriority, number>>;

/** The default SLA: P1 one day, P2 three days, P3 one week, P4 two weeks. */
/**
 * Most items a page of alerts or cases counts: `count` stops there (meaning that many or more), so a
 * page's work stays bounded however many alerts match.
 */
export const MAX_PAGE_COUNT = 10_000;

export const DEFAULT_SLA_HOURS: SlaHours = Object.freeze({ P1: 24, P2: 72, P3: 168, P4: 336 });

/**
 * The due date of an alert or a case: its creation time plus the SLA of its current priority
 * (so a priority change moves it).
 */
export function slaDueTimestampOf(item: { createdTimestamp: number; priority: CasePriority }, sla: SlaHours): number {
  return item.createdTimestamp + sla[item.priority] * 3_600_000;
}
