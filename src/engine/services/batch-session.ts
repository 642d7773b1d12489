/**
 * A batch of transactions run through a {@link BatchSession}: chunk after chunk, each chunk's keys
 * (its users') taken before its reads and kept while a later chunk needs them, so
 * what the batch read of a user stays valid from chunk to chunk (chunk-reads.ts' `BatchReads`) and
 * a chunk's outcomes are written while the next chunk is evaluated.
 *
 * Keys are added without waiting (a try-lock): a batch never waits for a key while holding
 * another, so it cannot deadlock with units or other batches. When a key is held elsewhere, the
 * batch writes what it has, lets every key go, forgets what it read under them and waits for the
 * chunk's keys as a unit would. It also lets go of a key once no later chunk needs it, and of all
 * of them when it would hold more than {@link MAX_HELD_KEYS}.
 */
import { isTxmonError, type TxmonError } from '../../errors.js';
import type { Transaction } from '../../domain/index.js';
import { RULE_INSTANCES_KEY } from '../concurrency/store-units.js';
import type { BatchSession, Repositories, StoredTransaction, TransactionOutcome } from '../repositories.js';
import type { ResultAlert } from '../../domain/schemas/results.js';
import type { TransactionMonitoringResult } from '../types.js';
import { createChunkReads, emptyBatchReads, type BatchReads, type ChunkReads, type ChunkWriter } from './chunk-reads.js';
import type { TransactionEvaluator } from './evaluate-transaction.js';

/**
 * Most keys a batch session holds at once: a database keeps advisory locks in a table shared by
 * every connection (PostgreSQL's default holds about 6,400), which one batch must not fill.
 */
export const MAX_HELD_KEYS = 2_000;

/**
 * Chunks whose writes may be pending while the next one is evaluated: more than one lets the
 * writes of several chunks go as one while the database is slower than the evaluation (four: up
 * to {@link MAX_WRITE_RECORDS} records of chunks of 250, the outcomes of at most 1,250 records held).
 */
const WRITES_AHEAD = 4;

/** Most records one write of a session takes (its outcomes are one database transaction). */
export const MAX_WRITE_RECORDS = 1_000;

/** Records evaluated between two returns to the event loop. */
const YIELD_EVERY = 25;

/** What one record of a run came to: its response, or the error that refused it. */
export type SessionRecordOutcome =
  | { readonly result: TransactionMonitoringResult; readonly error?: undefined }
  | { readonly result?: undefined; readonly error: TxmonError };

/** What a session run needs of the transaction service. */
export interface SessionRunContext {
  readonly evaluate: TransactionEvaluator;
  /** Creates one checked transaction on `repos` (see the service's `createOnce`). */
  createOnce(repos: Repositories, request: Transaction, importOnly: boolean): Promise<TransactionMonitoringResult>;
  /** The response of a stored transaction. */
  responseOf(stored: StoredTransaction): TransactionMonitoringResult;
  /** Whether an error refuses one record rather than the whole run. */
  isRecordError(error: unknown): error is TxmonError;
  /**
   * The lock keys of a transaction's users. Not its own key: a creation's write fails whole on a
   * transaction another writer stored meanwhile (the run then ends as a lost race), so the session
   * holds users only, as many as the batch has.
   */
  userKeysOf(request: Transaction): string[];
  /** Throws when the caller gave up. */
  checkAlive(): void;
  /** Run once every record is evaluated, while the last writes are under way. */
  whileWriting?(): void;
}

/** `session.reads` with the rule-instance revision read once: held shared by the session, it cannot change. */
function readsOf(session: BatchSession): Repositories {
  const reads = session.reads;
  let revision: Promise<number> | null = null;
  return {
    ...reads,
    ruleInstances: {
      ...reads.ruleInstances,
      getRevision: () => {
        revision ??= reads.ruleInstances.getRevision();
        return revision;
      },
    },
  };
}

/**
 * Runs `chunks` (records in order) in `session`, which holds no key yet. Record errors are
 * reported in place; any other error fails the run (the chunks whose writes completed stay stored,
 * each whole: a retry of the batch finds them as replays).
 */
export async function runInSession(
  session: BatchSession,
  chunks: readonly (readonly Transaction[])[],
  importOnly: boolean,
  context: SessionRunContext,
): Promise<SessionRecordOutcome[]> {
  const reads = readsOf(session);
  const chunkKeys = chunks.map((chunk) => [...new Set(chunk.flatMap(context.userKeysOf))].sort());
  const lastUse = new Map<string, number>();
  chunkKeys.forEach((keys, k) => {
    for (const key of keys) lastUse.set(key, k);
  });
  const held = new Set<string>();
  let batch: BatchReads = emptyBatchReads();
  const writer = coalescingWriter(session);
  const unlocks: Promise<void>[] = [];
  const stored = new Map<string, StoredTransaction | null>();
  const out: SessionRecordOutcome[] = [];
  await session.lock([], [RULE_INSTANCES_KEY]);
  // Each chunk's write, and what follows it (its responses' alerts, its keys let go).
  const flushes: Promise<void>[] = [];
  const allFlushed = async () => {
    await Promise.all(flushes);
    await Promise.all(unlocks);
  };
  /**
   * Takes chunk `k`'s keys it does not hold yet (without waiting) and its reads: what runs while
   * the chunk before is evaluated. `null` when a key is held elsewhere (or would be one too many).
   */
  const prepare = async (k: number) => {
    const keys = chunkKeys[k] as string[];
    const fresh = keys.filter((key) => !held.has(key));
    if (held.size + fresh.length > MAX_HELD_KEYS || !(await session.tryLock(fresh))) return null;
    for (const key of fresh) held.add(key);
    return createChunkReads(reads, chunks[k] as readonly Transaction[], context.evaluate, importOnly, writer, batch);
  };
  let next: Promise<ChunkReads | null> | null = chunks.length > 0 ? prepare(0) : null;
  try {
    for (const [k, chunk] of chunks.entries()) {
      context.checkAlive();
      const keys = chunkKeys[k] as string[];
      let chunkReads = await (next as Promise<ChunkReads | null>);
      if (chunkReads === null) {
        // Write what the batch has, let every key go and forget what was read under them; then wait
        // for this chunk's keys as a unit would (holding only the shared rule-instance key).
        await allFlushed();
        await session.unlock([...held]);
        held.clear();
        batch = emptyBatchReads();
        await session.lock(keys);
        for (const key of keys) held.add(key);
        chunkReads = await createChunkReads(reads, chunk, context.evaluate, importOnly, writer, batch);
      }
      const chunkBatch = batch;
      // The next chunk's keys and reads are taken while this one is evaluated.
      next = k + 1 < chunks.length ? prepare(k + 1) : null;
      next?.catch(() => undefined);
      // The writes of the chunks before run beside this chunk's evaluation, at most WRITES_AHEAD of them.
      await flushes[k - 1 - WRITES_AHEAD];
      const repositories = chunkReads.repositories;
      for (const [i, request] of chunk.entries()) {
        // Back to the event loop now and then: the next chunk's reads (and the process's other
        // callers) move on while this chunk is evaluated.
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
        try {
          out.push({ result: await context.createOnce(repositories, request, importOnly) });
        } catch (error) {
          if (!context.isRecordError(error)) throw error;
          out.push({ error });
        }
      }
      const release = keys.filter((key) => lastUse.get(key) === k);
      const flushed = chunkReads.flush().then(() => {
        for (const request of chunk) stored.set(request.transactionId, chunkBatch.transactions.get(request.transactionId) ?? null);
        for (const key of release) held.delete(key);
        const unlocked = session.unlock(release);
        unlocked.catch(() => undefined);
        unlocks.push(unlocked);
      });
      // Its failure surfaces where the flushes are awaited.
      flushed.catch(() => undefined);
      flushes.push(flushed);
    }
  } catch (error) {
    // The writes asked for before the failure end (each whole, or not at all) before the caller
    // closes the session or runs the batch again as units.
    await writer.settle();
    await Promise.allSettled([...flushes, ...unlocks]);
    throw error;
  }
  context.whileWriting?.();
  await allFlushed();
  const all = chunks.flat();
  return out.map((outcome, i) => {
    if (outcome.error !== undefined) return outcome;
    const saved = stored.get((all[i] as Transaction).transactionId);
    return saved ? { result: context.responseOf(saved) } : outcome;
  });
}

/**
 * The session's writer: writes run one after the other, each in one database transaction, and the
 * chunks that wait while one runs go together in the next (up to {@link MAX_WRITE_RECORDS}
 * records), as if written one after the other. After a failed write every later one fails with
 * its error (nothing after a gap is written).
 */
export function coalescingWriter(session: BatchSession): ChunkWriter {
  type Waiting = { outcomes: readonly TransactionOutcome[]; resolve: (alerts: ResultAlert[][]) => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];
  let running: Promise<void> | null = null;
  let failure: { error: unknown } | null = null;
  const next = (): void => {
    if (running !== null || waiting.length === 0) return;
    if (failure !== null) {
      // Nothing after a failed write is written: every write asked since fails with its error.
      const refused = waiting;
      waiting = [];
      for (const w of refused) w.reject(failure.error);
      return;
    }
    let count = 0;
    let taken = 0;
    while (taken < waiting.length && (taken === 0 || count + (waiting[taken] as Waiting).outcomes.length <= MAX_WRITE_RECORDS)) {
      count += (waiting[taken] as Waiting).outcomes.length;
      taken += 1;
    }
    const group = waiting.slice(0, taken);
    waiting = waiting.slice(taken);
    const run = (async () => {
      try {
        const alerts = await session.write((repos) => repos.transactions.saveOutcomes(group.flatMap((w) => w.outcomes)));
        let at = 0;
        for (const w of group) {
          w.resolve(alerts.slice(at, at + w.outcomes.length));
          at += w.outcomes.length;
        }
      } catch (error) {
        failure ??= { error };
        for (const w of group) w.reject(error);
      }
    })();
    running = run;
    // Cleared once this write settled (never before it is recorded as running), then the next one starts.
    void run.finally(() => {
      if (running === run) running = null;
      next();
    });
  };
  const idle = async (): Promise<void> => {
    while (running !== null) await running;
  };
  return {
    write(outcomes) {
      const written = new Promise<ResultAlert[][]>((resolve, reject) => waiting.push({ outcomes, resolve, reject }));
      next();
      return written;
    },
    settle: idle,
  };
}

/** Whether a failed session run may be run again as units (it lost a race; nothing half-written). */
export function isLostRace(error: unknown): boolean {
  return isTxmonError(error) && error.code === 'CONCURRENT_UPDATE';
}
