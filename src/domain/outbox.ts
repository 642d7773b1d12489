/**
 * The outbox: what a host may act on, written in the same atomic write as the change it reports,
 * and read back in commit order (docs/webhooks.md). A message is `{ type, entityId, timestamp,
 * data }`; the store gives it its place (`seq`, from 1, in the order the writes commit), which is
 * also its id for deduplication: a message delivered twice carries the same `seq`.
 *
 * Which changes are reported is policy, decided here: a transaction's or an event's result whose
 * status is not `ALLOW`, a user's state or KYC status set by a rule's trigger, an alert opened (and
 * the case it opened) or appended to by a hit, an alert's or a case's status change, a rule
 * instance created, updated or deleted.
 */
import type { MonitoringResult } from './entities.js';
import type { ResultAlert } from './schemas/results.js';
import type { UserUpdate } from './user-update.js';

/** What a message reports. */
export type OutboxMessageType =
  | 'TRANSACTION_DECISION'
  | 'TRANSACTION_EVENT_DECISION'
  | 'USER_STATE_UPDATED'
  | 'USER_KYC_STATUS_UPDATED'
  | 'ALERT_OPENED'
  | 'ALERT_APPENDED'
  | 'CASE_OPENED'
  | 'ALERT_STATUS_CHANGED'
  | 'CASE_STATUS_CHANGED'
  | 'RULE_INSTANCE_CHANGED';

/** Every {@link OutboxMessageType}, in documentation order. */
export const OUTBOX_MESSAGE_TYPES: readonly OutboxMessageType[] = Object.freeze([
  'TRANSACTION_DECISION',
  'TRANSACTION_EVENT_DECISION',
  'USER_STATE_UPDATED',
  'USER_KYC_STATUS_UPDATED',
  'ALERT_OPENED',
  'ALERT_APPENDED',
  'CASE_OPENED',
  'ALERT_STATUS_CHANGED',
  'CASE_STATUS_CHANGED',
  'RULE_INSTANCE_CHANGED',
]);

/** JSON data of a message. */
export type OutboxData = { readonly [key: string]: unknown };

/** A message as a write hands it to the store. */
export interface OutboxMessage {
  readonly type: OutboxMessageType;
  /** The transaction, user, alert, case or rule instance the message is about. */
  readonly entityId: string;
  /** When the change was made (epoch ms, the engine's clock). */
  readonly timestamp: number;
  readonly data: OutboxData;
}

/** A message with its place in the outbox. */
export interface StoredOutboxMessage extends OutboxMessage {
  /** Position in the outbox, from 1, in commit order; the message's id. */
  readonly seq: number;
}

/** The hits of a result as a message lists them. */
function hitsOf(result: MonitoringResult): { ruleInstanceId: string; ruleAction: string; isShadow?: true }[] {
  return result.hitRules.map((h) =>
    h.isShadow === true
      ? { ruleInstanceId: h.ruleInstanceId, ruleAction: h.ruleAction, isShadow: true }
      : { ruleInstanceId: h.ruleInstanceId, ruleAction: h.ruleAction },
  );
}

/** What a transaction's creation or event reports (see the module's description). */
export function transactionMessagesOf(
  parties: { readonly transactionId: string; readonly originUserId?: string | undefined; readonly destinationUserId?: string | undefined },
  eventId: string | null,
  result: MonitoringResult,
  userUpdates: readonly UserUpdate[],
  timestamp: number,
): OutboxMessage[] {
  const out: OutboxMessage[] = [];
  if (result.status !== 'ALLOW') {
    const data: Record<string, unknown> = { transactionId: parties.transactionId };
    if (eventId !== null) data.eventId = eventId;
    if (parties.originUserId !== undefined) data.originUserId = parties.originUserId;
    if (parties.destinationUserId !== undefined) data.destinationUserId = parties.destinationUserId;
    data.status = result.status;
    data.hitRules = hitsOf(result);
    if (result.riskScoreDetails !== undefined) data.riskScoreDetails = { ...result.riskScoreDetails };
    out.push({ type: eventId === null ? 'TRANSACTION_DECISION' : 'TRANSACTION_EVENT_DECISION', entityId: parties.transactionId, timestamp, data });
  }
  for (const update of userUpdates) out.push(...userMessagesOf(update, { transactionId: parties.transactionId }, timestamp));
  return out;
}

/** What a rule trigger's update of a user reports: its state and KYC status when set, with their cause. */
export function userMessagesOf(update: UserUpdate, cause: OutboxData, timestamp: number): OutboxMessage[] {
  const out: OutboxMessage[] = [];
  if (update.userStateDetails !== undefined) {
    out.push({
      type: 'USER_STATE_UPDATED',
      entityId: update.userId,
      timestamp,
      data: { userId: update.userId, userStateDetails: { ...update.userStateDetails }, ...cause },
    });
  }
  if (update.kycStatusDetails !== undefined) {
    out.push({
      type: 'USER_KYC_STATUS_UPDATED',
      entityId: update.userId,
      timestamp,
      data: { userId: update.userId, kycStatusDetails: { ...update.kycStatusDetails }, ...cause },
    });
  }
  return out;
}

/** What an alert's or a case's status change reports (a case closed with its open alerts: `closesOpenAlerts`). */
export function statusChangeMessageOf(
  kind: 'ALERT' | 'CASE',
  id: string,
  from: string,
  change: { readonly status: string; readonly reason?: readonly string[]; readonly otherReason?: string; readonly actor?: string; readonly timestamp: number },
  closesOpenAlerts: boolean,
): OutboxMessage {
  const data: Record<string, unknown> = { [kind === 'ALERT' ? 'alertId' : 'caseId']: id, from, status: change.status };
  if (change.reason !== undefined) data.reason = [...change.reason];
  if (change.otherReason !== undefined) data.otherReason = change.otherReason;
  if (change.actor !== undefined) data.actor = change.actor;
  if (closesOpenAlerts) data.closesOpenAlerts = true;
  return { type: kind === 'ALERT' ? 'ALERT_STATUS_CHANGED' : 'CASE_STATUS_CHANGED', entityId: id, timestamp: change.timestamp, data };
}

/** What a rule instance's creation, update or deletion reports. */
export function ruleInstanceMessageOf(
  action: 'CREATED' | 'UPDATED' | 'DELETED',
  ruleInstanceId: string,
  details: { readonly ruleId?: string | undefined; readonly version?: number | undefined; readonly status?: string | undefined; readonly actor: string },
  timestamp: number,
): OutboxMessage {
  const data: Record<string, unknown> = { ruleInstanceId, action };
  if (details.ruleId !== undefined) data.ruleId = details.ruleId;
  if (details.version !== undefined) data.version = details.version;
  if (details.status !== undefined) data.status = details.status;
  data.actor = details.actor;
  return { type: 'RULE_INSTANCE_CHANGED', entityId: ruleInstanceId, timestamp, data };
}

/**
 * What the alerts a transaction's or event's hits landed in report (the result's `alerts`, decided
 * by the store as it writes): each alert opened, with the case it opened first when it opened one,
 * and each alert appended to.
 */
export function alertMessagesOf(transactionId: string, eventId: string | null, alerts: readonly ResultAlert[], timestamp: number): OutboxMessage[] {
  const out: OutboxMessage[] = [];
  for (const a of alerts) {
    const data: Record<string, unknown> = {
      alertId: a.alertId,
      caseId: a.caseId,
      ruleInstanceId: a.ruleInstanceId,
      userId: a.userId,
      direction: a.direction,
      transactionId,
    };
    if (eventId !== null) data.eventId = eventId;
    if (a.caseOpened === true)
      out.push({ type: 'CASE_OPENED', entityId: a.caseId, timestamp, data: { caseId: a.caseId, userId: a.userId, alertId: a.alertId, transactionId } });
    out.push({ type: a.action === 'OPENED' ? 'ALERT_OPENED' : 'ALERT_APPENDED', entityId: a.alertId, timestamp, data });
  }
  return out;
}
