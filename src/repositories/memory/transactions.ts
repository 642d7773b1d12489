import type { AggregateStore } from '../../aggregation/aggregate-store.js';
import type { StoredEvent, StoredTransaction, TransactionOutcome, TransactionRepository } from '../../engine/repositories.js';
import { TxmonError } from '../../errors.js';
import type { AlertListing, MemoryAlertsAndCases } from './alerts-and-cases.js';
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

/** A stored transaction and the alerts that list it. */
interface TransactionEntry extends AlertListing {
  stored: StoredTransaction;
}

/** Transactions and events in memory; `saveOutcome` applies a whole outcome in one synchronous step. */
export function createMemoryTransactions(targets: OutcomeTargets): TransactionRepository {
  const transactions = new Map<string, TransactionEntry>();
  const eventsByTransaction = new Map<string, StoredEvent[]>();
  const events = new Map<string, StoredEvent>();
  /** Listings of transactions a hit names without their being stored (the port allows it). */
  const unstoredListings = new Map<string, AlertListing>();

  /** The listing of the transaction a hit names: the saved one's, else the stored or unstored one's. */
  function listingOf(transactionId: string, saved: TransactionEntry): AlertListing {
    if (transactionId === saved.stored.transaction.transactionId) return saved;
    const stored = transactions.get(transactionId);
    if (stored !== undefined) return stored;
    let listing = unstoredListings.get(transactionId);
    if (listing === undefined) {
      listing = { listedIn: null };
      unstoredListings.set(transactionId, listing);
    }
    return listing;
  }

  return {
    async getTransaction(id) {
      return transactions.get(id)?.stored ?? null;
    },
    async listEvents(id) {
      return [...(eventsByTransaction.get(id) ?? [])];
    },
    async getEvent(eventId) {
      return events.get(eventId) ?? null;
    },
    async *scanTransactions() {
      for (const entry of transactions.values()) yield entry.stored.transaction;
    },
    async saveOutcome(outcome: TransactionOutcome) {
      const id = outcome.transaction.transaction.transactionId;
      const existing = transactions.get(id);
      // Validate everything before the first change, so a conflict leaves no trace.
      if (outcome.expectedVersion === null ? existing !== undefined : existing?.stored.version !== outcome.expectedVersion) {
        throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
      }
      if (outcome.event && events.has(outcome.event.eventId)) {
        throw new TxmonError('CONCURRENT_UPDATE', 'The event id was stored concurrently');
      }
      targets.budget.reserve(storedBytesOf(outcome));
      // The aggregate store validates every entry before it changes anything, so applying it
      // first keeps the whole outcome all-or-nothing: nothing after this point can throw.
      targets.aggregates.apply(outcome.aggregates.remove, outcome.aggregates.add);
      let entry = existing;
      if (entry === undefined) {
        entry = { stored: outcome.transaction, listedIn: unstoredListings.get(id)?.listedIn ?? null };
        unstoredListings.delete(id);
        transactions.set(id, entry);
      } else {
        entry.stored = outcome.transaction;
      }
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
      for (const hit of outcome.alertHits) targets.alertsAndCases.applyAlertHit(hit, outcome.now, listingOf(hit.transactionId, entry));
      targets.users.applyOutcome(outcome);
    },
  };
}
