/**
 * Transactions and their events (`POST /transactions`, `POST /events/transaction` and their
 * reads): idempotent replays, per-user serialisation, optimistic retries, late events re-folded
 * in timestamp order, and one atomic outcome per call.
 */
import { canonicalJson } from '../../domain/canonical-json.js';
import { withResultAlerts } from '../../domain/case-policy.js';
import { decisionOf } from '../../domain/decision-log.js';
import { transactionMessagesOf } from '../../domain/outbox.js';
import type { MonitoringResult } from '../../domain/entities.js';
import type { Transaction, TransactionEvent } from '../../domain/index.js';
import { cloneJson } from '../../domain/json.js';
import { conflict, invalidField, isTxmonError, notFound, TxmonError } from '../../errors.js';
import type { Repositories, StoredEvent, StoredTransaction, TransactionOutcome, UnitPrefetch } from '../repositories.js';
import { RULE_INSTANCES_KEY, inStoreUnit } from '../concurrency/store-units.js';
import { applyTransactionEvent, foldTransactionEvents, initialTransaction } from '../pipeline/apply-event.js';
import { assertEventCountWithin, assertUpdatedSizeWithin, checkEventInput, checkTransactionInput } from '../pipeline/intake.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import type { WriterGate } from '../concurrency/writer-gate.js';
import type { EngineSettings } from '../options.js';
import type { CallOptions, CreateTransactionOptions, Engine, TransactionEventMonitoringResult, TransactionMonitoringResult } from '../types.js';
import { assertId } from './assert-id.js';
import { createChunkReads, type ChunkWriter } from './chunk-reads.js';
import { isLostRace, runInSession } from './batch-session.js';
import type { Evaluation, TransactionEvaluator } from './evaluate-transaction.js';

/** How often a write that lost a race with another writer of the same transaction is tried again. */
const MAX_RETRIES = 5;

/** How many transactions' users an engine on a shared store remembers (see `partiesKnown`). */
const KNOWN_PARTIES = 100_000;

/**
 * The lock keys of work on a transaction: the transaction and each of its users, sorted. Per-user
 * keys make concurrent transactions of one user evaluate one after the other, so each sees the
 * others in its windows (a split payment cannot slip under a volume rule by arriving in parallel).
 */
export function lockKeysOf(transactionId: string, originUserId: string | undefined, destinationUserId: string | undefined): string[] {
  // 't' < 'u': the transaction key always sorts first, so only the user keys need ordering.
  const keys = [`t:${transactionId}`];
  const origin = originUserId ? `u:${originUserId}` : null;
  const destination = destinationUserId && destinationUserId !== originUserId ? `u:${destinationUserId}` : null;
  if (origin !== null && destination !== null) {
    if (origin < destination) keys.push(origin, destination);
    else keys.push(destination, origin);
  } else if (origin !== null) keys.push(origin);
  else if (destination !== null) keys.push(destination);
  return keys;
}

function clientGone(): TxmonError {
  return new TxmonError('CLIENT_GONE', 'The caller gave up before this call ran: nothing was written');
}

async function withRetries<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (isTxmonError(error) && error.code === 'CONCURRENT_UPDATE' && attempt < MAX_RETRIES) continue;
      throw error;
    }
  }
}

/** The result part of a response: the rule results are deeply frozen, so they are shared, not copied. */
function resultOf(result: MonitoringResult): MonitoringResult {
  const out: MonitoringResult = { executedRules: result.executedRules, hitRules: result.hitRules, status: result.status };
  if (result.riskScoreDetails) out.riskScoreDetails = { ...result.riskScoreDetails };
  if (result.warnings) out.warnings = result.warnings;
  if (result.alerts) out.alerts = cloneJson(result.alerts);
  return out;
}

/** The response of a create: the create result, naming the alerts its hits landed in. */
function createResponse(stored: StoredTransaction): TransactionMonitoringResult {
  return { transactionId: stored.transaction.transactionId, ...resultOf(stored.createResult) };
}

/** The response of an event: the event's result, naming the alerts its hits landed in. */
function eventResponse(stored: StoredEvent): TransactionEventMonitoringResult {
  return { eventId: stored.eventId, transaction: cloneJson(stored.transaction), ...resultOf(stored.result) };
}

/** What the transaction service runs on. */
export interface TransactionServiceContext {
  readonly settings: EngineSettings;
  readonly evaluate: TransactionEvaluator;
  readonly withLocks: KeyedLock;
  readonly gate: WriterGate;
}

type TransactionMethods = Pick<Engine, 'createTransaction' | 'getTransaction' | 'createTransactionEvent' | 'getTransactionEvent'>;

/** What one record of a chunk came to: its response, or the error that refused it (nothing of it stored). */
export type RecordOutcome<T> = { readonly result: T; readonly error?: undefined } | { readonly result?: undefined; readonly error: TxmonError };

/** Options of the batch paths of the transaction service. */
export interface BatchWriteOptions extends CallOptions {
  /** History import: series entries only, no rule run, nothing counted, alerted or scored (see `EvaluationOptions`). */
  readonly importOnly?: boolean;
  /**
   * Work of the caller's own to do once every record is evaluated while the last writes are under
   * way (the process would wait for them otherwise); not called when the run fails first.
   */
  readonly whileWriting?: () => void;
}

/** The transaction service's paths for batches (not part of the engine's API). */
export interface TransactionBatchPaths {
  /**
   * Creates checked transactions chunk after chunk, in the order given, each chunk one unit of
   * the store (see the service's `createTransactionChunk`); on a store that opens batch sessions, in one session (see
   * batch-session.ts: the chunks' keys kept between them, a chunk written while the next is
   * evaluated). The outcomes of every record, in order.
   * @throws TxmonError for a fault of the store or the wait: the chunks before the failure stay stored
   */
  createTransactionChunks(chunks: readonly (readonly Transaction[])[], options?: BatchWriteOptions): Promise<RecordOutcome<TransactionMonitoringResult>[]>;
  /** `createTransactionEvent` for a checked event, possibly as history import. */
  applyTransactionEvent(request: TransactionEvent, options?: BatchWriteOptions): Promise<TransactionEventMonitoringResult>;
}

/**
 * Whether `error` refuses one record of a batch (a 4xx about its content or what is stored) rather
 * than the whole call (a fault of the store, the caller gone, a conflict that survived retries).
 */
export function isRecordError(error: unknown): error is TxmonError {
  return isTxmonError(error) && error.status >= 400 && error.status < 500 && error.code !== 'CONCURRENT_UPDATE' && error.code !== 'CLIENT_GONE';
}

/** The transaction and event endpoints of one engine. */
export function createTransactionService(context: TransactionServiceContext): TransactionMethods & TransactionBatchPaths {
  const { settings, evaluate, withLocks, gate } = context;
  const { repositories: store, limits, transitions } = settings;

  /**
   * Runs `work` holding the transaction's and its users' keys: the in-process lock, then — on a
   * store shared across processes — one unit of the store (retried whole on a concurrent update),
   * told what `work` reads first (`prefetch`), which a database reads while taking the locks.
   */
  const locked = <T>(
    keys: readonly string[],
    work: (repos: Repositories) => Promise<T>,
    prefetch: UnitPrefetch,
    options: CallOptions | undefined,
  ): Promise<T> =>
    withLocks(keys, () => {
      // A caller that gave up while this call waited for its users' turn: nothing is run or written.
      if (options?.signal?.aborted === true) throw clientGone();
      return withRetries(() => inStoreUnit(store, keys, work, [RULE_INSTANCES_KEY], prefetch));
    });

  /** The users the evaluation of a transaction with these parties reads (see `evaluate`). */
  const partiesOf = (t: { originUserId?: string | undefined; destinationUserId?: string | undefined } | undefined) => [
    t?.originUserId ?? '',
    t?.destinationUserId ?? '',
  ];

  /**
   * On a store shared across processes (where a read is a round trip): the users of transactions
   * this engine created or updated, most recent last, so an event on one of them takes its locks
   * without reading the transaction first. A transaction's users never change.
   */
  const partiesKnown = store.flags.sharedAcrossProcesses
    ? new Map<string, { originUserId?: string | undefined; destinationUserId?: string | undefined }>()
    : null;
  const rememberParties = (t: Transaction) => {
    if (partiesKnown === null) return;
    partiesKnown.delete(t.transactionId);
    partiesKnown.set(t.transactionId, { originUserId: t.originUserId, destinationUserId: t.destinationUserId });
    if (partiesKnown.size > KNOWN_PARTIES) partiesKnown.delete(partiesKnown.keys().next().value as string);
  };

  /** The outcome a create or an event writes in one step. */
  const outcomeOf = (transaction: StoredTransaction, expectedVersion: number | null, event: StoredEvent | null, out: Evaluation): TransactionOutcome => {
    const now = settings.clock.now();
    return {
      transaction,
      expectedVersion,
      event,
      aggregates: out.aggregates,
      counters: out.counters,
      alertHits: out.alertHits,
      seenUserIds: out.seenUserIds,
      userUpdates: out.userUpdates,
      now,
      decision: decisionOf(transaction.transaction.transactionId, event === null ? null : event.eventId, out.result, now),
      outbox: transactionMessagesOf(transaction.transaction, event === null ? null : event.eventId, out.result, out.userUpdates, now),
    };
  };

  /**
   * `validateOriginUserId` / `validateDestinationUserId`: each party the flags name must be a
   * created user (a party only seen in transactions is not one). An absent party is not checked.
   */
  async function assertPartiesCreated(repos: Repositories, request: Transaction, options: CreateTransactionOptions | undefined): Promise<void> {
    const checks: [string, string | undefined][] = [];
    if (options?.validateOriginUserId === true) checks.push(['originUserId', request.originUserId]);
    if (options?.validateDestinationUserId === true) checks.push(['destinationUserId', request.destinationUserId]);
    for (const [field, userId] of checks) {
      if (userId === undefined) continue;
      const user = await repos.users.getUser(userId);
      if (user === null || user.type === null)
        throw invalidField(`/${field}`, 'not-found', `names no created user (validate${field[0]?.toUpperCase()}${field.slice(1)})`);
    }
  }

  /** Creates a transaction that is not stored yet, or answers a replay of the same payload again. */
  async function createOnce(
    repos: Repositories,
    request: Transaction,
    options?: CreateTransactionOptions,
    importOnly = false,
  ): Promise<TransactionMonitoringResult> {
    const existing = await repos.transactions.getTransaction(request.transactionId);
    if (existing) {
      if (canonicalJson(existing.request) === canonicalJson(request)) return createResponse(existing);
      throw conflict(
        'TRANSACTION_ID_CONFLICT',
        'A transaction with this transactionId exists with a different payload',
        '/transactionId',
        'exists with a different payload',
      );
    }
    await assertPartiesCreated(repos, request, options);
    const transaction = initialTransaction(request);
    const out = await evaluate(transaction, null, repos, { importOnly });
    const stored: StoredTransaction = {
      transaction,
      request,
      createResult: out.result,
      latestResult: out.result,
      eventCount: 0,
      lastEventTimestamp: null,
      version: 1,
    };
    // The store names the alerts the hits landed in (in a chunk on a database: none until its flush).
    const alerts = await repos.transactions.saveOutcome(outcomeOf(stored, null, null, out));
    return createResponse({ ...stored, createResult: withResultAlerts(stored.createResult, alerts) });
  }

  /** The transaction after `event`: applied on top, or — for a late event — the history re-folded in (timestamp, arrival) order. */
  async function transactionAfter(repos: Repositories, stored: StoredTransaction, event: TransactionEvent & { eventId: string }): Promise<Transaction> {
    if (stored.lastEventTimestamp === null || event.timestamp >= stored.lastEventTimestamp)
      return applyTransactionEvent(stored.transaction, event, { transitions });
    const history = await repos.transactions.listEvents(stored.transaction.transactionId);
    const sequence = history.map((e) => ({ event: e.event, arrival: e.arrival }));
    sequence.push({ event, arrival: stored.eventCount });
    return foldTransactionEvents(initialTransaction(stored.request), sequence, { transitions });
  }

  /**
   * Applies an event under the locks `keys`; returns the lock keys it needs instead when they
   * differ (the transaction was created, with its users, after the keys were chosen).
   */
  async function applyEventOnce(
    repos: Repositories,
    request: TransactionEvent,
    clientEventId: boolean,
    keys: readonly string[],
    importOnly = false,
  ): Promise<TransactionEventMonitoringResult | string[]> {
    if (request.eventId !== undefined) {
      const existing = await repos.transactions.getEvent(request.eventId);
      if (existing) {
        if (existing.clientEventId && canonicalJson(existing.event) === canonicalJson(request)) return eventResponse(existing);
        throw conflict('EVENT_ID_CONFLICT', 'An event with this eventId exists with a different payload', '/eventId', 'exists with a different payload');
      }
    }
    const stored = await repos.transactions.getTransaction(request.transactionId);
    if (!stored) throw notFound('TRANSACTION_NOT_FOUND', 'transaction', '/transactionId');
    const needed = lockKeysOf(request.transactionId, stored.transaction.originUserId, stored.transaction.destinationUserId);
    if (needed.length !== keys.length) return needed;
    assertEventCountWithin(stored.eventCount + 1, limits);
    // `request` is this call's own copy, so the generated id can be set on it.
    if (request.eventId === undefined) request.eventId = settings.ids.next('event');
    const event = request as typeof request & { eventId: string };
    const transaction = await transactionAfter(repos, stored, event);
    assertUpdatedSizeWithin(transaction, limits);
    const out = await evaluate(transaction, stored.transaction, repos, { importOnly });
    const storedEvent: StoredEvent = {
      eventId: event.eventId,
      transactionId: request.transactionId,
      event,
      clientEventId,
      arrival: stored.eventCount,
      transaction,
      result: out.result,
    };
    const next: StoredTransaction = {
      transaction,
      request: stored.request,
      createResult: stored.createResult,
      latestResult: out.result,
      eventCount: stored.eventCount + 1,
      lastEventTimestamp: Math.max(stored.lastEventTimestamp ?? Number.NEGATIVE_INFINITY, event.timestamp),
      version: stored.version + 1,
    };
    const alerts = await repos.transactions.saveOutcome(outcomeOf(next, stored.version, storedEvent, out));
    return eventResponse({ ...storedEvent, result: withResultAlerts(storedEvent.result, alerts) });
  }

  /** An event (checked, this call's own copy) applied under its transaction's and users' locks. */
  function applyEvent(request: TransactionEvent, options: BatchWriteOptions | undefined): Promise<TransactionEventMonitoringResult> {
    const clientEventId = request.eventId !== undefined;
    const importOnly = options?.importOnly === true;
    return gate.shared(async () => {
      // The users are known once the transaction is read: read it (unless this engine knows its
      // users already, see partiesKnown), lock the transaction and its users, and read again
      // inside (user ids never change; a transaction created in between makes one more round
      // with its users' keys).
      const parties = partiesKnown?.get(request.transactionId) ?? (await store.transactions.getTransaction(request.transactionId))?.transaction;
      let keys = lockKeysOf(request.transactionId, parties?.originUserId, parties?.destinationUserId);
      for (;;) {
        const held = keys;
        const prefetch: UnitPrefetch = {
          transactionId: request.transactionId,
          userIds: partiesOf(parties),
          ...(request.eventId === undefined ? {} : { eventId: request.eventId }),
        };
        const result = await locked(held, (repos) => applyEventOnce(repos, request, clientEventId, held, importOnly), prefetch, options);
        if (!Array.isArray(result)) {
          rememberParties(result.transaction);
          return result;
        }
        keys = result;
      }
    });
  }

  /**
   * Creates checked transactions in the order given, as ONE unit of the store holding every
   * record's transaction and user keys: on a database, the chunk commits whole or not at all; each
   * record sees the ones before it in its windows. A record refused by the engine (a conflicting
   * replay, a limit) is reported in its place and the others go on.
   * @throws TxmonError for a fault of the store or the wait (`STORE_UNAVAILABLE`, `OVERLOADED`,
   *   `CLIENT_GONE` …): then nothing of the chunk is written
   */
  async function createTransactionChunk(requests: readonly Transaction[], options?: BatchWriteOptions): Promise<RecordOutcome<TransactionMonitoringResult>[]> {
    const keySet = new Set<string>();
    const userIds = new Set<string>();
    for (const r of requests) {
      for (const key of lockKeysOf(r.transactionId, r.originUserId, r.destinationUserId)) keySet.add(key);
      for (const id of partiesOf(r)) if (id !== '') userIds.add(id);
    }
    // Sorted as a whole: 't:' keys before 'u:' keys, as every single call takes them, so a chunk
    // and a single call never wait for each other in a cycle.
    const keys = [...keySet].sort();
    const importOnly = options?.importOnly === true;
    const outcomes = await gate.shared(() =>
      locked(
        keys,
        async (unitRepos) => {
          // Built afresh on every attempt: a retried unit runs every record again. On a store
          // where a read is a round trip, the chunk's reads are taken at once and its outcomes
          // written together (chunk-reads.ts); in memory each record runs as a single call.
          const writer: ChunkWriter = { write: (outcomes) => unitRepos.transactions.saveOutcomes(outcomes), settle: async () => undefined };
          const chunk = store.flags.sharedAcrossProcesses ? await createChunkReads(unitRepos, requests, evaluate, importOnly, writer) : null;
          const repos = chunk?.repositories ?? unitRepos;
          const out: RecordOutcome<TransactionMonitoringResult>[] = [];
          for (const request of requests) {
            try {
              out.push({ result: await createOnce(repos, request, undefined, importOnly) });
            } catch (error) {
              if (!isRecordError(error)) throw error;
              out.push({ error });
            }
          }
          if (chunk === null) return out;
          await chunk.flush();
          // The alerts the records' hits landed in are known once written: each response is
          // made again from the transaction as the chunk saved it (or found it, for a replay).
          for (const [i, request] of requests.entries()) {
            if (out[i]?.error !== undefined) continue;
            const saved = await repos.transactions.getTransaction(request.transactionId);
            if (saved !== null) out[i] = { result: createResponse(saved) };
          }
          return out;
        },
        { userIds: [...userIds] },
        options,
      ),
    );
    for (const r of requests) rememberParties(r);
    return outcomes;
  }

  return {
    async createTransaction(input, options) {
      const request = checkTransactionInput(input, limits);
      const keys = lockKeysOf(request.transactionId, request.originUserId, request.destinationUserId);
      const result = await gate.shared(() =>
        locked(keys, (repos) => createOnce(repos, request, options), { transactionId: request.transactionId, userIds: partiesOf(request) }, options),
      );
      rememberParties(request);
      return result;
    },

    async getTransaction(transactionId) {
      assertId(transactionId, 'transactionId');
      const stored = await store.transactions.getTransaction(transactionId);
      if (!stored) throw notFound('TRANSACTION_NOT_FOUND', 'transaction');
      return { ...cloneJson(stored.transaction), ...resultOf(stored.latestResult) };
    },

    async createTransactionEvent(input, options) {
      return applyEvent(checkEventInput(input, limits), options);
    },

    applyTransactionEvent: (request, options) => applyEvent(cloneJson(request), options),

    async createTransactionChunks(chunks, options) {
      const session = (await store.openBatchSession?.()) ?? null;
      if (session !== null) {
        const importOnly = options?.importOnly === true;
        try {
          const outcomes = await gate.shared(() =>
            runInSession(session, chunks, importOnly, {
              evaluate,
              createOnce: (repos, request, only) => createOnce(repos, request, undefined, only),
              responseOf: createResponse,
              isRecordError,
              userKeysOf: (r) => lockKeysOf(r.transactionId, r.originUserId, r.destinationUserId).slice(1),
              checkAlive: () => {
                if (options?.signal?.aborted === true) throw clientGone();
              },
              ...(options?.whileWriting === undefined ? {} : { whileWriting: options.whileWriting }),
            }),
          );
          await session.close();
          for (const chunk of chunks) for (const r of chunk) rememberParties(r);
          return outcomes;
        } catch (error) {
          await session.close(true);
          // A lost race wrote nothing of the chunk it lost in: the chunks run again as units (the
          // ones already stored answer as replays).
          if (!isLostRace(error)) throw error;
        }
      }
      const out: RecordOutcome<TransactionMonitoringResult>[] = [];
      for (const chunk of chunks) out.push(...(await createTransactionChunk(chunk, options)));
      return out;
    },

    async getTransactionEvent(eventId) {
      assertId(eventId, 'eventId');
      const stored = await store.transactions.getEvent(eventId);
      if (!stored) throw notFound('EVENT_NOT_FOUND', 'transaction event');
      return { ...cloneJson(stored.event), ...resultOf(stored.result) };
    },
  };
}
