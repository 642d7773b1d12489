import type { AggregateStore } from '../../aggregation/aggregate-store.js';
import type { StoredEvent, StoredTransaction, TransactionOutcome, TransactionRepository } from '../../engine/repositories.js';
import { TxmonError } from '../../errors.js';
import type { MemoryAlertsAndCases } from './alerts-and-cases.js';
import { storedBytesOf, type ByteBudget } from './budget.js';
import type { MemoryUsers } from './records.js';
import type { MemoryRuleInstances } from './rule-instances.js';

/** What a transaction outcome writes besides the transaction and its event. */
export interface OutcomeTargets {
  readonly budget: ByteBudget;
  readonly aggregates: AggregateStore;
  readonly ruleInstances: MemoryRuleInstances;
  readonly alertsAndCases: MemoryAlertsAndCases;
  readonly users: MemoryUsers;
}

/** Transactions and events in memory; `saveOutcome` applies a whole outcome in one synchronous step. */
export function createMemoryTransactions(targets: OutcomeTargets): TransactionRepository {
  const transactions = new Map<string, StoredTransaction>();
  const eventsByTransaction = new Map<string, StoredEvent[]>();
  const events = new Map<string, StoredEvent>();
  return {
    async getTransaction(id) {
      return transactions.get(id) ?? null;
    },
    async listEvents(id) {
      return [...(eventsByTransaction.get(id) ?? [])];
    },
    async getEvent(eventId) {
      return events.get(eventId) ?? null;
    },
    async *scanTransactions() {
      for (const stored of transactions.values()) yield stored.transaction;
    },
    async saveOutcome(outcome: TransactionOutcome) {
      const id = outcome.transaction.transaction.transactionId;
      const existing = transactions.get(id);
      // Validate everything before the first change, so a conflict leaves no trace.
      if (outcome.expectedVersion === null ? existing !== undefined : existing?.version !== outcome.expectedVersion) {
        throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
      }
      if (outcome.event && events.has(outcome.event.eventId)) {
        throw new TxmonError('CONCURRENT_UPDATE', 'The event id was stored concurrently');
      }
      targets.budget.reserve(storedBytesOf(outcome));
      // The aggregate store validates every entry before it changes anything, so applying it
      // first keeps the whole outcome all-or-nothing: nothing after this point can throw.
      targets.aggregates.apply(outcome.aggregates.remove, outcome.aggregates.add);
      transactions.set(id, outcome.transaction);
      if (outcome.event) {
        events.set(outcome.event.eventId, outcome.event);
        let list = eventsByTransaction.get(id);
        if (!list) {
          list = [];
          eventsByTransaction.set(id, list);
        }
        list.push(outcome.event);
      }
      targets.ruleInstances.addCounters(outcome.counters);
      for (const hit of outcome.alertHits) targets.alertsAndCases.applyAlertHit(hit, outcome.now);
      targets.users.applyOutcome(outcome);
    },
  };
}
