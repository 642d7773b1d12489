/**
 * Builders of the records the repository ports take (stored transactions, events, rule
 * instances, outcomes, aggregate entries), shaped like what the engine writes. Used by the
 * conformance suite and the model check; exported from `txmon/testing` for adapter authors who
 * want to write extra cases of their own.
 */
import type { SeriesEntry, SeriesEntryRef } from '../aggregation/aggregate-store.js';
import type { RiskLevel, Transaction, TransactionEvent } from '../domain/index.js';
import { decisionOf } from '../domain/decision-log.js';
import type { AlertHit, MonitoringResult, StoredEvent, StoredRuleInstance, StoredTransaction, TransactionOutcome } from '../engine/repositories.js';

const LEVELS: readonly RiskLevel[] = ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'];

/** A base instant for fixtures: 2025-01-15T12:00:00Z. */
export const FIXTURE_T0 = Date.UTC(2025, 0, 15, 12);

/** One scaled unit of money (10^-8) per cent is 10^6; amounts in fixtures are whole cents. */
const CENT = 1_000_000n;

/** A monitoring result that ran the given instances and hit those listed in `hits`. */
export function buildMonitoringResult(instanceIds: readonly string[] = [], hits: readonly string[] = []): MonitoringResult {
  const executedRules = instanceIds.map((id) => ({
    ruleInstanceId: id,
    ruleId: 'R-2',
    ruleName: 'Transaction amount too high',
    ruleDescription: 'Transaction amount is at or above a threshold.',
    ruleAction: 'FLAG' as const,
    ruleHit: hits.includes(id),
    nature: 'AML' as const,
    isShadow: false,
  }));
  const hitRules = executedRules
    .filter((r) => r.ruleHit)
    .map(({ ruleHit: _hit, ...rest }) => ({ ...rest, ruleHitMeta: { hitDirections: ['ORIGIN' as const] } }));
  return { executedRules, hitRules, status: hitRules.length > 0 ? 'FLAG' : 'ALLOW' };
}

/** A transfer of `amount` EUR from `origin` to `destination` at `timestamp`. */
export function buildTransaction(
  transactionId: string,
  options: { origin?: string; destination?: string; amount?: number; timestamp?: number; state?: Transaction['transactionState'] } = {},
): Transaction {
  const amount = options.amount ?? 100;
  const t: Transaction = {
    type: 'TRANSFER',
    transactionId,
    timestamp: options.timestamp ?? FIXTURE_T0,
    transactionState: options.state ?? 'CREATED',
    originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'FR' },
  };
  if (options.origin !== undefined) t.originUserId = options.origin;
  if (options.destination !== undefined) t.destinationUserId = options.destination;
  return t;
}

/** The stored form of a freshly created transaction (version 1, no events). */
export function buildStoredTransaction(transaction: Transaction, result: MonitoringResult = buildMonitoringResult()): StoredTransaction {
  const request = structuredClone(transaction);
  return {
    transaction,
    request,
    createResult: result,
    latestResult: result,
    eventCount: 0,
    lastEventTimestamp: null,
    version: 1,
  };
}

/**
 * The stored event moving `previous` to `state` (optionally with a new origin amount), and the
 * stored transaction after it (version and event count bumped).
 */
export function buildEventStep(
  previous: StoredTransaction,
  eventId: string,
  options: { state?: NonNullable<Transaction['transactionState']>; amount?: number; timestamp?: number; result?: MonitoringResult } = {},
): { event: StoredEvent; transaction: StoredTransaction } {
  const timestamp = options.timestamp ?? (previous.lastEventTimestamp ?? previous.transaction.timestamp) + 1000;
  const state = options.state ?? previous.transaction.transactionState ?? 'CREATED';
  const wire: TransactionEvent & { eventId: string } = {
    transactionId: previous.transaction.transactionId,
    eventId,
    timestamp,
    transactionState: state,
  };
  const next: Transaction = { ...structuredClone(previous.transaction), transactionState: state };
  if (options.amount !== undefined) {
    const patch = { transactionAmount: options.amount, transactionCurrency: 'EUR' };
    wire.updatedTransactionAttributes = { originAmountDetails: patch };
    next.originAmountDetails = { ...next.originAmountDetails, ...patch };
  }
  const result = options.result ?? buildMonitoringResult();
  const event: StoredEvent = {
    eventId,
    transactionId: previous.transaction.transactionId,
    event: wire,
    clientEventId: true,
    arrival: previous.eventCount,
    transaction: next,
    result,
  };
  const transaction: StoredTransaction = {
    ...previous,
    transaction: next,
    latestResult: result,
    eventCount: previous.eventCount + 1,
    lastEventTimestamp: Math.max(previous.lastEventTimestamp ?? Number.NEGATIVE_INFINITY, timestamp),
    version: previous.version + 1,
  };
  return { event, transaction };
}

/**
 * The aggregate entries a transaction contributes, like the engine's built-in series: one in
 * `user-sending` under the origin user and one in `user-receiving` under the destination user,
 * amounts in scaled units (10^-8) of the origin amount.
 */
export function buildContributions(transaction: Transaction): SeriesEntry[] {
  const amount = transaction.originAmountDetails ? BigInt(Math.round(transaction.originAmountDetails.transactionAmount * 100)) * CENT : null;
  const out: SeriesEntry[] = [];
  if (transaction.originUserId !== undefined) {
    const values: Record<string, string> = {};
    if (transaction.destinationUserId !== undefined) values.counterparty = transaction.destinationUserId;
    out.push({ series: 'user-sending', key: transaction.originUserId, id: transaction.transactionId, timestamp: transaction.timestamp, amount, values });
  }
  if (transaction.destinationUserId !== undefined) {
    const values: Record<string, string> = {};
    if (transaction.originUserId !== undefined) values.counterparty = transaction.originUserId;
    out.push({ series: 'user-receiving', key: transaction.destinationUserId, id: transaction.transactionId, timestamp: transaction.timestamp, amount, values });
  }
  return out;
}

/** The refs that remove `entries`. */
export function refsOf(entries: readonly SeriesEntry[]): SeriesEntryRef[] {
  return entries.map((e) => ({ series: e.series, key: e.key, id: e.id }));
}

/** An outcome with empty lists and `now` = {@link FIXTURE_T0} unless given. */
export function buildOutcome(
  transaction: StoredTransaction,
  expectedVersion: number | null,
  parts: Partial<Omit<TransactionOutcome, 'transaction' | 'expectedVersion'>> = {},
): TransactionOutcome {
  return {
    transaction,
    expectedVersion,
    event: parts.event ?? null,
    aggregates: parts.aggregates ?? { remove: [], add: [] },
    counters: parts.counters ?? [],
    alertHits: parts.alertHits ?? [],
    seenUserIds: parts.seenUserIds ?? [],
    userUpdates: parts.userUpdates ?? [],
    now: parts.now ?? FIXTURE_T0,
    decision:
      parts.decision ??
      decisionOf(transaction.transaction.transactionId, parts.event?.eventId ?? null, parts.event?.result ?? transaction.latestResult, parts.now ?? FIXTURE_T0),
    ...(parts.outbox === undefined ? {} : { outbox: parts.outbox }),
  };
}

/** An alert hit of `instanceId` on `userId` for `transactionId`, with the ids to use if new. */
export function buildAlertHit(
  instanceId: string,
  userId: string,
  /** `null`: a user rule's hit (on the user, no transaction). */
  transactionId: string | null,
  ids: { alertId: string; caseId: string; priority?: AlertHit['priority']; direction?: AlertHit['direction']; groupWithUserId?: string },
): AlertHit {
  return {
    instanceId,
    userId,
    ...(ids.groupWithUserId === undefined ? {} : { groupWithUserId: ids.groupWithUserId }),
    direction: ids.direction ?? 'ORIGIN',
    transactionId,
    priority: ids.priority ?? 'P2',
    ruleDetails: {
      id: 'R-2',
      name: 'Transaction amount too high',
      description: 'Transaction amount is at or above a threshold.',
      instanceId,
      action: 'FLAG',
      nature: 'AML',
    },
    newAlertId: ids.alertId,
    newCaseId: ids.caseId,
  };
}

/**
 * A stored R-2 instance with the given id; `threshold` changes its parameters (to tell versions
 * apart); `version` is its version (default 1).
 */
export function buildStoredRuleInstance(
  id: string,
  options: { threshold?: number; now?: number; mode?: 'LIVE' | 'SHADOW'; version?: number } = {},
): StoredRuleInstance {
  const parameters = { transactionAmountThreshold: { EUR: options.threshold ?? 10000 } };
  const now = options.now ?? FIXTURE_T0;
  const perLevel = <T>(value: T) => Object.fromEntries(LEVELS.map((l) => [l, structuredClone(value)])) as Record<RiskLevel, T>;
  return {
    instance: {
      id,
      type: 'TRANSACTION',
      ruleId: 'R-2',
      parameters,
      riskLevelParameters: perLevel(parameters),
      action: 'SUSPEND',
      riskLevelActions: perLevel('SUSPEND' as const),
      riskLevelsTriggersOnHit: perLevel({}),
      filters: {},
      alertCreationOnHit: true,
      status: 'ACTIVE',
      mode: options.mode ?? 'LIVE',
      casePriority: 'P1',
      nature: 'AML',
      labels: [],
      checksFor: ['Transaction amount'],
      createdAt: now,
      updatedAt: now,
      version: options.version ?? 1,
    },
    derived: { riskLevelParameters: true, riskLevelActions: true, riskLevelsTriggersOnHit: true },
  };
}
