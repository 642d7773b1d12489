import { createAggregateStore, type SeriesEntry } from '../../aggregation/aggregate-store.js';
import { applyUserUpdate, decideAlertHit, seenUser, type AlertHit } from '../../domain/index.js';
import { TxmonError } from '../../errors.js';
import { measureJsonSize } from '../../validation/index.js';
import type {
  Alert,
  Case,
  Comment,
  CommentTarget,
  FileRecord,
  Repositories,
  RuleInstance,
  StoredEvent,
  StoredList,
  StoredRuleInstance,
  StoredTransaction,
  StoredUser,
  TransactionOutcome,
} from '../../engine/repositories.js';


/** Options of {@link createMemoryRepositories}. */
export interface MemoryRepositoriesOptions {
  /**
   * Most bytes the repositories may hold, as {@link storedBytesOf} counts them; a write past it
   * is refused with `LIMIT_EXCEEDED` (`maxStoredBytes`) and changes nothing. Default 256 MiB.
   * The heap holds a small multiple of this count (see docs/security.md).
   */
  readonly maxStoredBytes?: number;
}

/**
 * In-memory repositories: the default of `createEngine`, for tests, single-process services and
 * simulations. Every {@link TransactionOutcome} is applied in one synchronous step, so it is
 * atomic within the process. Not durable. Reads return the stored objects themselves (no copy,
 * for speed): treat them as read-only — the engine copies at its own API boundary.
 *
 * @example
 * ```ts
 * const engine = createEngine({ repositories: createMemoryRepositories() });
 * ```
 */
export function createMemoryRepositories(options: MemoryRepositoriesOptions = {}): Repositories {
  const maxStoredBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
  if (!(Number.isSafeInteger(maxStoredBytes) && maxStoredBytes > 0)) {
    throw new TxmonError('INVALID_CONFIGURATION', 'createMemoryRepositories: maxStoredBytes must be a positive integer');
  }
  let storedBytes = 0;
  /** Counts `bytes` more; refuses (before any change) past `maxStoredBytes`. */
  const reserve = (bytes: number): void => {
    if (storedBytes + bytes > maxStoredBytes) {
      const message = `the stored data would exceed the limit maxStoredBytes (${maxStoredBytes})`;
      throw new TxmonError('LIMIT_EXCEEDED', `Limit exceeded: ${message}`, [{ path: '', code: 'limit', message }]);
    }
    storedBytes += bytes;
  };
  const release = (bytes: number): void => {
    storedBytes = Math.max(0, storedBytes - bytes);
  };
  const transactions = new Map<string, StoredTransaction>();
  const eventsByTransaction = new Map<string, StoredEvent[]>();
  const events = new Map<string, StoredEvent>();
  const instances = new Map<string, StoredRuleInstance>();
  const counters = new Map<string, { runs: number; hits: number }>();
  let instanceRevision = 0;
  let instanceListCache: RuleInstance[] | null = null;
  const users = new Map<string, StoredUser>();
  const comments = new Map<string, Comment[]>();
  const alerts = new Map<string, Alert>();
  const openAlertByInstanceUser = new Map<string, string>();
  /** Per alert, the transaction ids it lists: an appended hit is checked in constant time. */
  const transactionsOfAlert = new Map<string, Set<string>>();
  const cases = new Map<string, Case>();
  const openCaseByUser = new Map<string, string>();
  const files = new Map<string, FileRecord>();
  const contents = new Map<string, Uint8Array>();
  /** Slots whose bytes are arriving right now: a second upload to one of them is refused. */
  const uploading = new Set<string>();
  const aggregates = createAggregateStore();
  const lists = new Map<string, { stored: StoredList; set: Set<string> }>();

  function withCounters(stored: StoredRuleInstance): RuleInstance {
    const c = counters.get(stored.instance.id);
    return { ...stored.instance, runCount: c?.runs ?? 0, hitCount: c?.hits ?? 0 } as RuleInstance;
  }

  /** Stores where a hit lands, as the domain's case policy decides. */
  function applyAlertHit(hit: AlertHit, now: number): void {
    const key = `${hit.instanceId}\u0000${hit.userId}`;
    const openAlert = alerts.get(openAlertByInstanceUser.get(key) ?? '') ?? null;
    const userCase = cases.get(openCaseByUser.get(hit.userId) ?? '') ?? null;
    const change = decideAlertHit(hit, openAlert, userCase, now);
    if (change.kind === 'append') {
      const alert = alerts.get(change.alertId) as Alert;
      const listed = transactionsOfAlert.get(change.alertId) as Set<string>;
      if (!listed.has(change.transactionId)) {
        listed.add(change.transactionId);
        alert.entityDetails.transactionIds.push(change.transactionId);
      }
      alert.updatedAt = change.at;
      const c = cases.get(change.caseId);
      if (c) c.updatedAt = change.at;
      return;
    }
    if (change.caseIsNew) {
      cases.set(change.case.caseId, change.case);
      openCaseByUser.set(hit.userId, change.case.caseId);
    } else {
      const c = cases.get(change.caseId) as Case;
      c.alertIds.push(change.alert.alertId);
      c.updatedAt = change.at;
      c.priority = change.casePriority;
    }
    alerts.set(change.alert.alertId, change.alert);
    transactionsOfAlert.set(change.alert.alertId, new Set(change.alert.entityDetails.transactionIds));
    openAlertByInstanceUser.set(key, change.alert.alertId);
  }

  function ensureUser(userId: string, now: number): void {
    if (!users.has(userId)) users.set(userId, seenUser(userId, now));
  }

  const repositories: Repositories = {
    flags: { durable: false, sharedAcrossProcesses: false },
    transactions: {
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
      async saveOutcome(outcome) {
        const id = outcome.transaction.transaction.transactionId;
        const existing = transactions.get(id);
        // Validate everything before the first change, so a conflict leaves no trace.
        if (outcome.expectedVersion === null ? existing !== undefined : existing?.version !== outcome.expectedVersion) {
          throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
        }
        if (outcome.event && events.has(outcome.event.eventId)) {
          throw new TxmonError('CONCURRENT_UPDATE', 'The event id was stored concurrently');
        }
        reserve(storedBytesOf(outcome));
        // The aggregate store validates every entry before it changes anything, so applying it
        // first keeps the whole outcome all-or-nothing: nothing after this point can throw.
        aggregates.apply(outcome.aggregates.remove, outcome.aggregates.add);
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
        for (const c of outcome.counters) {
          const cur = counters.get(c.instanceId);
          if (cur) {
            cur.runs += c.runs;
            cur.hits += c.hits;
          } else if (instances.has(c.instanceId)) {
            counters.set(c.instanceId, { runs: c.runs, hits: c.hits });
          }
        }
        if (outcome.counters.length > 0) instanceListCache = null;
        for (const hit of outcome.alertHits) applyAlertHit(hit, outcome.now);
        for (const userId of outcome.seenUserIds) ensureUser(userId, outcome.now);
        for (const update of outcome.userUpdates) users.set(update.userId, applyUserUpdate(users.get(update.userId) ?? null, update, outcome.now));
      },
    },
    ruleInstances: {
      async list() {
        if (!instanceListCache) instanceListCache = [...instances.values()].map(withCounters);
        return instanceListCache;
      },
      async get(id) {
        const s = instances.get(id);
        return s ? withCounters(s) : null;
      },
      async getStored(id) {
        return instances.get(id) ?? null;
      },
      async put(stored) {
        const previous = instances.get(stored.instance.id);
        reserve(RECORD_OVERHEAD + measureJsonSize(stored.instance));
        if (previous) release(RECORD_OVERHEAD + measureJsonSize(previous.instance));
        instances.set(stored.instance.id, stored);
        if (!counters.has(stored.instance.id)) counters.set(stored.instance.id, { runs: 0, hits: 0 });
        instanceRevision += 1;
        instanceListCache = null;
      },
      async delete(id) {
        const previous = instances.get(id);
        const existed = instances.delete(id);
        if (previous) release(RECORD_OVERHEAD + measureJsonSize(previous.instance));
        if (existed) {
          counters.delete(id);
          instanceRevision += 1;
          instanceListCache = null;
        }
        return existed;
      },
      async revision() {
        return instanceRevision;
      },
    },
    users: {
      async getUser(id) {
        return users.get(id) ?? null;
      },
      async getUsers(ids) {
        return ids.map((id) => users.get(id) ?? null);
      },
      async putUser(user) {
        users.set(user.userId, user);
      },
      async saveUserProfile({ userId, type, profile, now }) {
        const u = users.get(userId);
        reserve(measureJsonSize(profile));
        if (u) {
          if (u.profile) release(measureJsonSize(u.profile));
          u.type = type;
          u.profile = profile;
          u.updatedAt = now;
          return u;
        }
        const created: StoredUser = { userId, type, profile, craScore: null, craRiskLevel: null, firstSeenAt: now, updatedAt: now };
        users.set(userId, created);
        return created;
      },
    },
    comments: {
      async addComment(target, comment) {
        reserve(RECORD_OVERHEAD + measureJsonSize(comment));
        const k = commentKey(target);
        const list = comments.get(k);
        if (list) list.push(comment);
        else comments.set(k, [comment]);
      },
      async listComments(target) {
        return [...(comments.get(commentKey(target)) ?? [])];
      },
    },
    cases: {
      async getAlert(id) {
        return alerts.get(id) ?? null;
      },
      async listAlerts() {
        return [...alerts.values()];
      },
      async getCase(id) {
        return cases.get(id) ?? null;
      },
      async listCases() {
        return [...cases.values()];
      },
    },
    files: {
      async putFile(record) {
        if (!files.has(record.key)) reserve(RECORD_OVERHEAD);
        files.set(record.key, record);
      },
      async getFile(key) {
        return files.get(key) ?? null;
      },
      async putContent(key, content, maxBytes) {
        const slot = files.get(key);
        if (!slot) throw new TxmonError('FILE_NOT_FOUND', 'file not found');
        if (slot.uploaded || uploading.has(key)) throw new TxmonError('FILE_ALREADY_UPLOADED', 'The upload URL was used already');
        uploading.add(key);
        let reserved = 0;
        try {
          const chunks: Uint8Array[] = [];
          for await (const chunk of content) {
            if (reserved + chunk.byteLength > maxBytes) throw new TxmonError('PAYLOAD_TOO_LARGE', `The upload is larger than ${maxBytes} bytes`);
            reserve(chunk.byteLength);
            reserved += chunk.byteLength;
            chunks.push(chunk);
          }
          const bytes = new Uint8Array(reserved);
          let offset = 0;
          for (const chunk of chunks) {
            bytes.set(chunk, offset);
            offset += chunk.byteLength;
          }
          const stored: FileRecord = { ...slot, uploaded: true, size: reserved };
          contents.set(key, bytes);
          files.set(key, stored);
          reserved = 0;
          return stored;
        } finally {
          release(reserved);
          uploading.delete(key);
        }
      },
      async getContent(key) {
        return contents.get(key) ?? null;
      },
    },
    aggregates: {
      async query(queries) {
        return aggregates.queryMany(queries);
      },
      async entries(series, key) {
        return aggregates.entries(series, key);
      },
      async replaceSeries(series, entries) {
        // Check everything first: a rejected call changes nothing.
        for (let i = 0; i < entries.length; i++) {
          const entry = entries[i] as SeriesEntry;
          if (entry.series !== series) {
            const path = `/${i}/series`;
            throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${path} must name the replaced series`, [
              { path, code: 'const', message: 'must name the replaced series' },
            ]);
          }
          if (!Number.isFinite(entry.timestamp)) {
            const path = `/${i}/timestamp`;
            throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${path} must be a finite number`, [
              { path, code: 'type', message: 'must be a finite number' },
            ]);
          }
        }
        aggregates.dropSeries(series);
        aggregates.apply([], entries);
      },
      async prune(horizons) {
        let dropped = 0;
        for (const [series, horizon] of horizons) dropped += aggregates.pruneBefore(horizon, series);
        return dropped;
      },
      async retainedFrom() {
        return aggregates.retainedFrom();
      },
    },
    lists: {
      async getList(listId) {
        const list = lists.get(listId);
        return list ? { ...list.stored, items: [...list.stored.items] } : null;
      },
      async listLists() {
        return [...lists.values()].map(({ stored: { items, ...rest } }) => ({ ...rest, itemCount: items.length }));
      },
      async putList(list) {
        const items = [...new Set(list.items)];
        const previous = lists.get(list.listId);
        reserve(RECORD_OVERHEAD + measureJsonSize(items));
        if (previous) release(RECORD_OVERHEAD + measureJsonSize(previous.stored.items));
        lists.set(list.listId, { stored: { ...list, items }, set: new Set(items) });
      },
      async deleteList(listId) {
        const previous = lists.get(listId);
        if (previous) release(RECORD_OVERHEAD + measureJsonSize(previous.stored.items));
        return lists.delete(listId);
      },
      async lookup(listId, probes) {
        const list = lists.get(listId);
        if (!list) return probes.map(() => false);
        return probes.map((p) => p.listType === list.stored.listType && p.subtype === list.stored.subtype && list.set.has(p.value));
      },
    },
  };
  return repositories;
}

/** Default of {@link MemoryRepositoriesOptions.maxStoredBytes}: 256 MiB. */
export const DEFAULT_MAX_STORED_BYTES = 256 * 1024 * 1024;
/** Counted per stored record besides its JSON size: indexes, results, counters. */
const RECORD_OVERHEAD = 256;
/** Counted per stored transaction besides its JSON size: its rule results, aggregate entries, index entries. */
const TRANSACTION_OVERHEAD = 1024;

/**
 * What one outcome adds to the memory repositories, in the units of `maxStoredBytes`: a new
 * transaction counts its request twice (the request and the transaction kept beside it) plus
 * {@link TRANSACTION_OVERHEAD}; an event counts itself twice (the event and the changes to the
 * transaction it makes) plus {@link RECORD_OVERHEAD}; each alert hit {@link RECORD_OVERHEAD}.
 */
export function storedBytesOf(outcome: TransactionOutcome): number {
  const alerts = outcome.alertHits.length * RECORD_OVERHEAD;
  if (outcome.event) return 2 * measureJsonSize(outcome.event.event) + RECORD_OVERHEAD + alerts;
  return 2 * measureJsonSize(outcome.transaction.request) + TRANSACTION_OVERHEAD + alerts;
}

function commentKey(target: CommentTarget): string {
  return `${target.kind}\u0000${target.id}`;
}
