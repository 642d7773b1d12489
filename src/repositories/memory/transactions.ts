import type { AggregateStore } from '../../aggregation/aggregate-store.js';
import { type MonitoringResult, type ResultAlert, SCHEMA_LIMITS, type Transaction } from '../../domain/index.js';
import {
  outcomeNamingAlerts,
  type HistoryOperation,
  type StoredEvent,
  type StoredTransaction,
  type TransactionOutcome,
  type TransactionRepository,
} from '../../engine/repositories.js';
import { TxmonError } from '../../errors.js';
import { assertSeriesEntries } from '../../aggregation/checks.js';
import { applyRuleOutcome, type AlertListing, type MemoryAlertsAndCases } from './alerts-and-cases.js';
import { RECORD_OVERHEAD, storedBytesOf, type ByteBudget } from './budget.js';
import { createResultPacker, requestDerivable, requestOf, unpackResult, type KeptResult } from './packed.js';
import type { MemoryDecisions } from './decisions.js';
import type { MemoryOutbox } from './outbox.js';
import type { MemoryUsers } from './records.js';
import type { MemoryRuleInstances } from './rule-instances.js';

/**
 * The most bytes the outbox messages of one alert hit take (a case opened and an alert opened, each
 * naming at most eight ids of 256 characters, up to 4 bytes each, and a few fixed fields).
 */
const ALERT_MESSAGES_BOUND = 2 * (RECORD_OVERHEAD + 8 * 4 * SCHEMA_LIMITS.ID_MAX_LENGTH + 256);

/** What a transaction outcome writes besides the transaction and its event. */
export interface OutcomeTargets {
  readonly budget: ByteBudget;
  readonly aggregates: AggregateStore;
  readonly ruleInstances: MemoryRuleInstances;
  readonly alertsAndCases: MemoryAlertsAndCases;
  readonly users: MemoryUsers;
  readonly decisions: MemoryDecisions;
  readonly outbox: MemoryOutbox;
}

/**
 * A stored transaction as kept: the fields of {@link StoredTransaction}, the request only when it
 * cannot be rebuilt from the transaction, the results packed (see ./packed.ts); and the alerts
 * that list it.
 */
interface TransactionEntry extends AlertListing {
  transaction: Transaction;
  /** `null`: the transaction without its `transactionState`. */
  request: Transaction | null;
  createResult: KeptResult;
  latestResult: KeptResult;
  eventCount: number;
  lastEventTimestamp: number | null;
  version: number;
}

/** A stored event as kept: its result packed. */
type EventEntry = Omit<StoredEvent, 'result'> & { readonly result: KeptResult };

/**
 * The latest packed create result a read expanded, and its expansion: an event's outcome carries
 * that expansion back, and is kept as the packed form again without packing it anew.
 */
interface ExpandedResult {
  kept: KeptResult | null;
  result: MonitoringResult | null;
}

function storedTransactionOf(entry: TransactionEntry, expanded: ExpandedResult): StoredTransaction {
  const createResult = unpackResult(entry.createResult);
  if (createResult !== entry.createResult) {
    expanded.kept = entry.createResult;
    expanded.result = createResult;
  }
  return {
    transaction: entry.transaction,
    request: entry.request ?? requestOf(entry.transaction),
    createResult,
    latestResult: entry.latestResult === entry.createResult ? createResult : unpackResult(entry.latestResult),
    eventCount: entry.eventCount,
    lastEventTimestamp: entry.lastEventTimestamp,
    version: entry.version,
  };
}

function storedEventOf(entry: EventEntry): StoredEvent {
  const e = entry;
  return {
    eventId: e.eventId,
    transactionId: e.transactionId,
    event: e.event,
    clientEventId: e.clientEventId,
    arrival: e.arrival,
    transaction: e.transaction,
    result: unpackResult(entry.result),
  };
}

/** Transactions and events in memory; `saveOutcome` applies a whole outcome in one synchronous step. */
export function createMemoryTransactions(targets: OutcomeTargets): TransactionRepository {
  const transactions = new Map<string, TransactionEntry>();
  const eventsByTransaction = new Map<string, EventEntry[]>();
  const events = new Map<string, EventEntry>();
  /** Listings of transactions a hit names without their being stored (the port allows it). */
  const unstoredListings = new Map<string, AlertListing>();
  const packer = createResultPacker();
  const expanded: ExpandedResult = { kept: null, result: null };
  /** The latest transaction read and the record built for it; forgotten when that transaction is saved. */
  const lastRead: { entry: TransactionEntry | null; stored: StoredTransaction | null } = { entry: null, stored: null };

  /** The listing of the transaction a hit names: the saved one's, else the stored or unstored one's. */
  function listingOf(transactionId: string, saved: TransactionEntry): AlertListing {
    if (transactionId === saved.transaction.transactionId) return saved;
    const stored = transactions.get(transactionId);
    if (stored !== undefined) return stored;
    let listing = unstoredListings.get(transactionId);
    if (listing === undefined) {
      listing = { listedIn: null };
      unstoredListings.set(transactionId, listing);
    }
    return listing;
  }

  /**
   * Applies a checked outcome whose bytes are reserved: one synchronous step that cannot fail part
   * way. The alert hits land first, so the results are kept naming the alerts they landed in.
   */
  /**
   * What an outcome reserves before it is written: its bytes, its outbox messages', and the most
   * the messages of the alerts its hits land in can take (known only as it is written).
   */
  function reservedBytesOf(outcome: TransactionOutcome): number {
    return storedBytesOf(outcome) + targets.outbox.sizeOf(outcome.outbox) + outcome.alertHits.length * ALERT_MESSAGES_BOUND;
  }

  function writeOutcome(checked: TransactionOutcome): ResultAlert[] {
    const id = checked.transaction.transaction.transactionId;
    const existing = transactions.get(id);
    // The aggregate store validates every entry before it changes anything, so applying it
    // first keeps the whole outcome all-or-nothing: nothing after this point can throw.
    targets.aggregates.apply(checked.aggregates.remove, checked.aggregates.add);
    let entry = existing;
    if (entry === undefined) {
      // Its other fields are set below; the listing of alerts it already has is kept.
      entry = { transaction: checked.transaction.transaction, listedIn: unstoredListings.get(id)?.listedIn ?? null } as TransactionEntry;
      unstoredListings.delete(id);
      transactions.set(id, entry);
    } else if (lastRead.entry === entry) {
      lastRead.entry = null;
      lastRead.stored = null;
    }
    const listed = entry;
    const alerts = applyRuleOutcome(targets, checked.counters, checked.alertHits, checked.now, (transactionId) => listingOf(transactionId, listed));
    const outcome = outcomeNamingAlerts(checked, alerts);
    const saved = outcome.transaction;
    const createResult = saved.createResult === expanded.result ? (expanded.kept as KeptResult) : packer.pack(saved.createResult);
    const latestResult = saved.latestResult === saved.createResult ? createResult : packer.pack(saved.latestResult);
    entry.transaction = saved.transaction;
    entry.request = requestDerivable(saved.transaction, saved.request) ? null : saved.request;
    entry.createResult = createResult;
    entry.latestResult = latestResult;
    entry.eventCount = saved.eventCount;
    entry.lastEventTimestamp = saved.lastEventTimestamp;
    entry.version = saved.version;
    if (outcome.event) {
      const e = outcome.event;
      const eventEntry: EventEntry = {
        eventId: e.eventId,
        transactionId: e.transactionId,
        event: e.event,
        clientEventId: e.clientEventId,
        arrival: e.arrival,
        transaction: e.transaction,
        result: e.result === saved.latestResult ? latestResult : packer.pack(e.result),
      };
      events.set(outcome.event.eventId, eventEntry);
      let list = eventsByTransaction.get(id);
      if (!list) {
        list = [];
        eventsByTransaction.set(id, list);
      }
      list.push(eventEntry);
    }
    targets.users.applyOutcome(outcome);
    targets.decisions.append([outcome.decision]);
    // The alerts' messages were reserved at their bound (see reservedBytesOf): the rest is given back.
    targets.budget.release(Math.max(0, reservedBytesOf(checked) - storedBytesOf(checked) - targets.outbox.sizeOf(outcome.outbox)));
    targets.outbox.appendReserved(outcome.outbox);
    return alerts;
  }

  return {
    async getTransaction(id) {
      const entry = transactions.get(id);
      if (entry === undefined) return null;
      // An event reads its transaction twice (for its users, then under their locks): the second
      // read of an unchanged transaction returns the record the first one built.
      if (lastRead.entry === entry && lastRead.stored !== null) return lastRead.stored;
      const stored = storedTransactionOf(entry, expanded);
      lastRead.entry = entry;
      lastRead.stored = stored;
      return stored;
    },
    async getTransactions(ids) {
      const out: (StoredTransaction | null)[] = [];
      for (const id of ids) out.push(await this.getTransaction(id));
      return out;
    },
    async listEvents(id) {
      return (eventsByTransaction.get(id) ?? []).map(storedEventOf);
    },
    async getEvent(eventId) {
      const entry = events.get(eventId);
      return entry === undefined ? null : storedEventOf(entry);
    },
    async *scanTransactions() {
      for (const entry of transactions.values()) yield entry.transaction;
    },
    async *scanHistory(range) {
      const from = range?.from ?? Number.NEGATIVE_INFINITY;
      const to = range?.to ?? Number.POSITIVE_INFINITY;
      const within = (timestamp: number) => timestamp >= from && timestamp <= to;
      const history: { timestamp: number; kind: 0 | 1; id: string; arrival: number; operation: HistoryOperation }[] = [];
      for (const entry of transactions.values()) {
        const request = entry.request ?? requestOf(entry.transaction);
        if (within(request.timestamp))
          history.push({
            timestamp: request.timestamp,
            kind: 0,
            id: request.transactionId,
            arrival: 0,
            operation: { kind: 'transaction', operation: request },
          });
      }
      for (const entry of events.values()) {
        if (within(entry.event.timestamp)) {
          history.push({
            timestamp: entry.event.timestamp,
            kind: 1,
            id: entry.transactionId,
            arrival: entry.arrival,
            operation: { kind: 'event', operation: entry.event },
          });
        }
      }
      history.sort((a, b) => a.timestamp - b.timestamp || a.kind - b.kind || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) || a.arrival - b.arrival);
      for (const item of history) yield item.operation;
    },
    async saveOutcomes(outcomes) {
      // Checked before the first change, so a conflict leaves no trace (each save below is then
      // one synchronous step that cannot conflict).
      const created = new Set<string>();
      const versions = new Map<string, number>();
      const eventIds = new Set<string>();
      for (const outcome of outcomes) {
        const id = outcome.transaction.transaction.transactionId;
        const current = versions.has(id) ? versions.get(id) : transactions.get(id)?.version;
        if (outcome.expectedVersion === null ? current !== undefined || created.has(id) : current !== outcome.expectedVersion)
          throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
        if (outcome.event && (events.has(outcome.event.eventId) || eventIds.has(outcome.event.eventId)))
          throw new TxmonError('CONCURRENT_UPDATE', 'The event id was stored concurrently');
        created.add(id);
        versions.set(id, outcome.transaction.version);
        if (outcome.event) eventIds.add(outcome.event.eventId);
      }
      // The entries checked and the bytes reserved for all of them first, so nothing can fail part way.
      for (const outcome of outcomes) assertSeriesEntries(outcome.aggregates.add, '/add');
      targets.budget.reserve(outcomes.reduce((sum, outcome) => sum + reservedBytesOf(outcome), 0));
      return outcomes.map(writeOutcome);
    },
    async saveOutcome(outcome: TransactionOutcome) {
      const saved = outcome.transaction;
      const id = saved.transaction.transactionId;
      const existing = transactions.get(id);
      // Validate everything before the first change, so a conflict leaves no trace.
      if (outcome.expectedVersion === null ? existing !== undefined : existing?.version !== outcome.expectedVersion) {
        throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
      }
      if (outcome.event && events.has(outcome.event.eventId)) {
        throw new TxmonError('CONCURRENT_UPDATE', 'The event id was stored concurrently');
      }
      targets.budget.reserve(reservedBytesOf(outcome));
      return writeOutcome(outcome);
    },
  };
}
