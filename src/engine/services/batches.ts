/**
 * Batches (`POST /batch/transactions`, `/batch/events/transaction`, `/batch/consumer/users`,
 * `/batch/business/users`, `/batch/events/consumer/user`, `/batch/events/business/user` and their
 * `GET …/{batchId}`): many records in one call, each checked and
 * processed on its own (a refused record never fails the others), in timestamp order, idempotent
 * on the batch id and on each record's id. Transactions go through the store in chunks, each chunk
 * one atomic write (see `createTransactionChunks`).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../domain/canonical-json.js';
import { cloneJson } from '../../domain/json.js';
import { isIdText, SCHEMA_LIMITS, type Transaction, type TransactionEvent } from '../../domain/index.js';
import { conflict, invalidField, isTxmonError, limitExceeded, notFound } from '../../errors.js';
import { createKeyedLock } from '../concurrency/keyed-lock.js';
import { checkEventInput, checkTransactionInput } from '../pipeline/intake.js';
import type { EngineSettings } from '../options.js';
import type { BatchKind, BatchResponse, StoredBatch } from '../repositories.js';
import type {
  BatchMode,
  BatchOptions,
  BatchPageOptions,
  BatchTransactionEventMonitoringResults,
  BatchTransactionMonitoringResults,
  BatchUserEventResult,
  Engine,
  BatchUserResult,
} from '../types.js';
import { assertId } from './assert-id.js';
import { actorOf } from './audit.js';
import { isRecordError, type TransactionBatchPaths } from './transactions.js';

/** Most records in one batch; a larger `data` is refused whole (`LIMIT_EXCEEDED` at `/data`). */
export const MAX_BATCH_RECORDS = 10_000;

/**
 * Transactions per atomic write: each chunk commits whole, so a process killed mid-batch leaves
 * every record stored or absent. Run as one unit, a chunk holds at most three keys a record, well
 * within PostgreSQL's lock table; measured on PostgreSQL, 250 runs a batch faster than 125 or 500.
 */
export const BATCH_CHUNK_RECORDS = 250;

/** Default and largest `pageSize` of a batch's results. */
export const DEFAULT_BATCH_PAGE_SIZE = 100;
export const MAX_BATCH_PAGE_SIZE = 1_000;

type BatchMethods = Pick<
  Engine,
  | 'createTransactionBatch'
  | 'getTransactionBatch'
  | 'createTransactionEventBatch'
  | 'getTransactionEventBatch'
  | 'createUserBatch'
  | 'getUserBatch'
  | 'createUserEventBatch'
  | 'getUserEventBatch'
>;

/** The user and user-event methods a batch of users or user events goes through. */
type UserPaths = Pick<
  Engine,
  'createUser' | 'getUser' | 'createConsumerUserEvent' | 'createBusinessUserEvent' | 'getConsumerUserEvent' | 'getBusinessUserEvent'
>;

/** A batch body, checked: its records are still unchecked (each is checked on its own). */
interface BatchEnvelope {
  readonly batchId: string | undefined;
  readonly data: readonly unknown[];
}

/** Checks the batch body's own fields: `data` an array of 1 to MAX_BATCH_RECORDS records, an optional `batchId`, nothing else. */
function checkEnvelope(input: unknown): BatchEnvelope {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidField('', 'type', 'must be an object');
  const body = input as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (key !== 'batchId' && key !== 'data')
      throw invalidField(`/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, 'additionalProperties', 'is not a batch field');
  }
  const { batchId, data } = body;
  if (batchId !== undefined && (typeof batchId !== 'string' || !isIdText(batchId))) {
    throw invalidField('/batchId', 'type', `must be 1 to ${SCHEMA_LIMITS.ID_MAX_LENGTH} characters of well-formed text without NUL`);
  }
  if (!Array.isArray(data)) throw invalidField('/data', data === undefined ? 'required' : 'type', 'must be an array of records');
  if (data.length === 0) throw invalidField('/data', 'minItems', 'must hold at least one record');
  if (data.length > MAX_BATCH_RECORDS) throw limitExceeded('maxBatchRecords', MAX_BATCH_RECORDS, 'the batch records', '/data');
  return { batchId: batchId as string | undefined, data };
}

function checkMode(mode: unknown): BatchMode {
  if (mode === undefined || mode === 'MONITOR') return 'MONITOR';
  if (mode === 'IMPORT') return 'IMPORT';
  throw invalidField('/mode', 'enum', 'must be MONITOR or IMPORT');
}

/** The 1-based page and its size, checked. */
function checkPage(options: BatchPageOptions | undefined): { page: number; pageSize: number } {
  const page = options?.page ?? 1;
  const pageSize = options?.pageSize ?? DEFAULT_BATCH_PAGE_SIZE;
  if (!Number.isSafeInteger(page) || page < 1) throw invalidField('/page', 'minimum', 'must be an integer of at least 1');
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_BATCH_PAGE_SIZE) {
    throw invalidField('/pageSize', 'maximum', `must be an integer from 1 to ${MAX_BATCH_PAGE_SIZE}`);
  }
  return { page, pageSize };
}

/** A record's id for `failedRecords`: its id field when it is a string. */
function idOf(record: unknown, field: string): string | undefined {
  const id = typeof record === 'object' && record !== null ? (record as Record<string, unknown>)[field] : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Canonical JSON of a record, or a marker for a value that is not JSON (an in-process caller's). */
function canonicalOf(record: unknown): string {
  try {
    return canonicalJson(record);
  } catch {
    return '!';
  }
}

/**
 * The SHA-256 of the batch's kind, mode and records' canonical texts, one per line, in hex. Hashed
 * record by record: a 10,000-record batch is never one string.
 */
function fingerprintOf(kind: BatchKind, mode: BatchMode, data: readonly unknown[]): string {
  const hash = createHash('sha256').update(`${kind}\n${mode}`);
  for (const record of data) hash.update('\n').update(canonicalOf(record));
  return hash.digest('hex');
}

/** What processing a batch's records came to, before it is stored. */
interface Processed {
  /** Refused records: batch position, id, error code. */
  readonly failed: { index: number; id?: string; reasonCode: string }[];
  /** Stored (or replayed) records: batch position and id. */
  readonly stored: { index: number; id: string }[];
}

function responseOf(batchId: string, processed: Processed): BatchResponse {
  const failed = [...processed.failed].sort((a, b) => a.index - b.index);
  const successful = processed.stored.length;
  const response: BatchResponse = {
    status: failed.length === 0 ? 'SUCCESS' : successful === 0 ? 'FAILURE' : 'PARTIAL_FAILURE',
    batchId,
    successful,
    failed: failed.length,
  };
  if (failed.length > 0) response.failedRecords = failed.map(({ id, reasonCode }) => (id === undefined ? { reasonCode } : { id, reasonCode }));
  return response;
}

/** The stored records' ids in batch order, each once (a record repeated in the batch is one record). */
function recordIdsOf(processed: Processed): string[] {
  return [...new Set([...processed.stored].sort((a, b) => a.index - b.index).map((s) => s.id))];
}

/** Sorts checked records by timestamp, ties in batch order. */
function inTimeOrder<T>(records: { index: number; request: T }[], timestampOf: (r: T) => number) {
  return records.sort((a, b) => timestampOf(a.request) - timestampOf(b.request) || a.index - b.index);
}

/** The batch endpoints of one engine, over its transaction paths and user method. */
export function createBatchService(settings: EngineSettings, paths: TransactionBatchPaths, users: UserPaths): BatchMethods {
  const { repositories: store, limits } = settings;
  // One batch id at a time per kind in this process (a replay waits for the first run's answer).
  const batchLock = createKeyedLock(Number.POSITIVE_INFINITY);

  /**
   * Runs a batch once per (kind, batch id): a stored batch with the same digest answers again, one
   * with another digest is a conflict; else `process` runs and its answer is stored.
   */
  async function runBatch(
    kind: BatchKind,
    input: unknown,
    mode: BatchMode,
    process: (data: readonly unknown[], whileWriting: () => void) => Promise<Processed>,
  ): Promise<BatchResponse> {
    const envelope = checkEnvelope(input);
    // Needed first only for a batch id stored already; else hashed while the last writes run.
    let fingerprint: string | null = null;
    const fingerprintNow = (): string => {
      fingerprint ??= fingerprintOf(kind, mode, envelope.data);
      return fingerprint;
    };
    const batchId = envelope.batchId ?? settings.ids.next('batch');
    const replay = (stored: StoredBatch): BatchResponse => {
      if (stored.fingerprint !== fingerprintNow()) {
        throw conflict('BATCH_ID_CONFLICT', 'A batch with this batchId exists with a different body', '/batchId', 'exists with a different body');
      }
      return structuredClone(stored.response);
    };
    return batchLock([`${kind}:${batchId}`], async () => {
      const existing = await store.batches.getBatch(kind, batchId);
      if (existing) return replay(existing);
      const processed = await process(envelope.data, fingerprintNow);
      const response = responseOf(batchId, processed);
      const batch: StoredBatch = { kind, batchId, fingerprint: fingerprintNow(), response, recordIds: recordIdsOf(processed), createdAt: settings.clock.now() };
      // Another process may have run the same batch meanwhile: the first stored answers.
      return replay(await store.batches.putBatch(batch));
    });
  }

  async function processTransactions(
    data: readonly unknown[],
    options: BatchOptions | undefined,
    mode: BatchMode,
    whileWriting: () => void,
  ): Promise<Processed> {
    const processed: Processed = { failed: [], stored: [] };
    const checked: { index: number; request: Transaction }[] = [];
    data.forEach((record, index) => {
      try {
        checked.push({ index, request: checkTransactionInput(record, limits) });
      } catch (error) {
        if (!isRecordError(error)) throw error;
        processed.failed.push({ index, ...withId(idOf(record, 'transactionId')), reasonCode: error.code });
      }
    });
    inTimeOrder(checked, (t) => t.timestamp);
    const writeOptions = { importOnly: mode === 'IMPORT', whileWriting, ...(options?.signal === undefined ? {} : { signal: options.signal }) };
    const chunks: Transaction[][] = [];
    for (let start = 0; start < checked.length; start += BATCH_CHUNK_RECORDS)
      chunks.push(checked.slice(start, start + BATCH_CHUNK_RECORDS).map((c) => c.request));
    const outcomes = await paths.createTransactionChunks(chunks, writeOptions);
    checked.forEach(({ index, request }, i) => {
      const outcome = outcomes[i];
      if (outcome?.error) processed.failed.push({ index, id: request.transactionId, reasonCode: outcome.error.code });
      else processed.stored.push({ index, id: request.transactionId });
    });
    return processed;
  }

  async function processEvents(data: readonly unknown[], options: BatchOptions | undefined, mode: BatchMode): Promise<Processed> {
    const processed: Processed = { failed: [], stored: [] };
    const checked: { index: number; request: TransactionEvent }[] = [];
    const refuse = (index: number, record: unknown, error: unknown) => {
      if (!isRecordError(error)) throw error;
      processed.failed.push({ index, ...withId(idOf(record, 'eventId') ?? idOf(record, 'transactionId')), reasonCode: error.code });
    };
    data.forEach((record, index) => {
      try {
        checked.push({ index, request: checkEventInput(record, limits) });
      } catch (error) {
        refuse(index, record, error);
      }
    });
    inTimeOrder(checked, (e) => e.timestamp);
    const writeOptions = { importOnly: mode === 'IMPORT', ...(options?.signal === undefined ? {} : { signal: options.signal }) };
    for (const { index, request } of checked) {
      try {
        const result = await paths.applyTransactionEvent(request, writeOptions);
        processed.stored.push({ index, id: result.eventId });
      } catch (error) {
        refuse(index, request, error);
      }
    }
    return processed;
  }

  async function processUsers(data: readonly unknown[], type: 'CONSUMER' | 'BUSINESS', actor: string): Promise<Processed> {
    const processed: Processed = { failed: [], stored: [] };
    for (const { index, record } of inFieldOrder(data, 'createdTimestamp')) {
      try {
        const result = await users.createUser(record as Parameters<Engine['createUser']>[0], { type, actor });
        processed.stored.push({ index, id: result.userId });
      } catch (error) {
        if (!isRecordError(error)) throw error;
        processed.failed.push({ index, ...withId(idOf(record, 'userId')), reasonCode: error.code });
      }
    }
    return processed;
  }

  async function processUserEvents(data: readonly unknown[], type: 'CONSUMER' | 'BUSINESS', actor: string): Promise<Processed> {
    const processed: Processed = { failed: [], stored: [] };
    const create = type === 'CONSUMER' ? users.createConsumerUserEvent : users.createBusinessUserEvent;
    for (const { index, record } of inFieldOrder(data, 'timestamp')) {
      const eventId = idOf(record, 'eventId');
      // A batched event names itself: a retried batch must find it again, not apply it twice.
      if (eventId === undefined) {
        processed.failed.push({ index, ...withId(idOf(record, 'userId')), reasonCode: 'VALIDATION_FAILED' });
        continue;
      }
      try {
        await create(record as Parameters<Engine['createConsumerUserEvent']>[0], { actor });
        processed.stored.push({ index, id: eventId });
      } catch (error) {
        if (!isRecordError(error)) throw error;
        processed.failed.push({ index, ...withId(idOf(record, 'eventId') ?? idOf(record, 'userId')), reasonCode: error.code });
      }
    }
    return processed;
  }

  /** The page of a stored batch's record ids. */
  async function pageOf(kind: BatchKind, batchId: string, options: BatchPageOptions | undefined): Promise<{ ids: string[]; totalCount: number }> {
    assertId(batchId, 'batchId');
    const { page, pageSize } = checkPage(options);
    const batch = await store.batches.getBatch(kind, batchId);
    if (!batch) throw notFound('BATCH_NOT_FOUND', 'batch');
    const from = (page - 1) * pageSize;
    return { ids: batch.recordIds.slice(from, from + pageSize), totalCount: batch.recordIds.length };
  }

  return {
    async createTransactionBatch(input, options) {
      const mode = checkMode(options?.mode);
      return runBatch('TRANSACTION', input, mode, (data, whileWriting) => processTransactions(data, options, mode, whileWriting));
    },

    async getTransactionBatch(batchId, options) {
      const { ids, totalCount } = await pageOf('TRANSACTION', batchId, options);
      const transactions: BatchTransactionMonitoringResults['transactions'] = [];
      for (const id of ids) {
        const stored = await store.transactions.getTransaction(id);
        if (!stored) continue;
        const r = stored.createResult;
        transactions.push({
          transactionId: id,
          status: r.status,
          hitRules: r.hitRules,
          ...(r.riskScoreDetails ? { riskScoreDetails: { ...r.riskScoreDetails } } : {}),
          ...(r.alerts ? { alerts: cloneJson(r.alerts) } : {}),
        });
      }
      return { transactions, totalCount };
    },

    async createTransactionEventBatch(input, options) {
      const mode = checkMode(options?.mode);
      return runBatch('TRANSACTION_EVENT', input, mode, (data) => processEvents(data, options, mode));
    },

    async getTransactionEventBatch(batchId, options) {
      const { ids, totalCount } = await pageOf('TRANSACTION_EVENT', batchId, options);
      const transactionEvents: BatchTransactionEventMonitoringResults['transactionEvents'] = [];
      for (const id of ids) {
        const stored = await store.transactions.getEvent(id);
        if (!stored) continue;
        const r = stored.result;
        // The SDK's BatchTransactionEventMonitoringResult: the event as sent, with its result.
        transactionEvents.push({
          ...cloneJson(stored.event),
          status: r.status,
          hitRules: r.hitRules,
          ...(r.riskScoreDetails ? { riskScoreDetails: { ...r.riskScoreDetails } } : {}),
          ...(r.alerts ? { alerts: cloneJson(r.alerts) } : {}),
        });
      }
      return { transactionEvents, totalCount };
    },

    async createUserBatch(input, options) {
      const type = options?.type ?? 'CONSUMER';
      if (options?.mode !== undefined && options.mode !== 'MONITOR') throw invalidField('/mode', 'enum', 'must be MONITOR for users');
      const actor = actorOf(options);
      return runBatch(type === 'CONSUMER' ? 'CONSUMER_USER' : 'BUSINESS_USER', input, 'MONITOR', (data) => processUsers(data, type, actor));
    },

    async getUserBatch(batchId, options) {
      const type = options?.type ?? 'CONSUMER';
      const { ids, totalCount } = await pageOf(type === 'CONSUMER' ? 'CONSUMER_USER' : 'BUSINESS_USER', batchId, options);
      const found: BatchUserResult[] = [];
      for (const id of ids) {
        try {
          // The SDK's batch entries carry the user rules' executedRules, not their hitRules.
          const { hitRules: _hitRules, ...user } = await users.getUser(id, { type });
          found.push(user);
        } catch (error) {
          // A user whose type changed since (another batch of the other kind) is left out.
          if (!(isTxmonError(error) && error.code === 'USER_NOT_FOUND')) throw error;
        }
      }
      // The SDK's BatchConsumerUsersWithRulesResult / BatchBusinessUsersWithRulesResults.
      return type === 'CONSUMER' ? { consumerUsers: found, totalCount } : { businessUsers: found, totalCount };
    },

    async createUserEventBatch(input, options) {
      const type = options?.type ?? 'CONSUMER';
      if (options?.mode !== undefined && options.mode !== 'MONITOR') throw invalidField('/mode', 'enum', 'must be MONITOR for user events');
      const actor = actorOf(options);
      return runBatch(type === 'CONSUMER' ? 'CONSUMER_USER_EVENT' : 'BUSINESS_USER_EVENT', input, 'MONITOR', (data) => processUserEvents(data, type, actor));
    },

    async getUserEventBatch(batchId, options) {
      const type = options?.type ?? 'CONSUMER';
      const { ids, totalCount } = await pageOf(type === 'CONSUMER' ? 'CONSUMER_USER_EVENT' : 'BUSINESS_USER_EVENT', batchId, options);
      const read = type === 'CONSUMER' ? users.getConsumerUserEvent : users.getBusinessUserEvent;
      const found: BatchUserEventResult[] = [];
      for (const id of ids) {
        // The SDK's BatchConsumerUserEventWithRulesResult: the event and its executed rules, no hit list.
        const { hitRules: _hits, ...event } = await read(id);
        found.push(event);
      }
      return type === 'CONSUMER' ? { consumerUserEvents: found, totalCount } : { businessUserEvents: found, totalCount };
    },
  };
}

/**
 * Unchecked records with their batch index, in the order of a numeric time field (`createdTimestamp`
 * of users, `timestamp` of user events), ties in batch order; records without a finite one keep their
 * place at the front (their own checks refuse them).
 */
function inFieldOrder(data: readonly unknown[], field: string): { index: number; record: unknown }[] {
  const timeOf = (record: unknown) => {
    const t = typeof record === 'object' && record !== null ? (record as Record<string, unknown>)[field] : undefined;
    return typeof t === 'number' && Number.isFinite(t) ? t : Number.NEGATIVE_INFINITY;
  };
  return data.map((record, index) => ({ index, record })).sort((a, b) => timeOf(a.record) - timeOf(b.record) || a.index - b.index);
}

function withId(id: string | undefined): { id?: string } {
  return id === undefined ? {} : { id };
}
