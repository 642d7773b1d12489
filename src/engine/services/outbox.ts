/**
 * `engine.outbox`: the messages the engine's writes appended (domain/outbox.ts), read from a cursor,
 * and consumers that deliver them at least once, in commit order, each message until it succeeds or
 * is given up on (a dead letter) after retries with exponential back-off. The processes of one
 * store take turns on a consumer by lease, so each message is delivered once in the normal case; a
 * process that dies mid-delivery leaves its lease to run out and the message is delivered again,
 * with the same `seq`.
 */
import { randomUUID } from 'node:crypto';
import type { StoredOutboxMessage } from '../../domain/outbox.js';
import { invalidField, notFound, TxmonError } from '../../errors.js';
import type { EngineSettings } from '../options.js';
import type { OutboxConsumer } from '../repositories.js';
import type { Engine, OutboxApi, OutboxSubscribeOptions, OutboxSubscription } from '../types.js';
import { assertId } from './assert-id.js';

/** Default and largest number of messages one `read` returns. */
export const DEFAULT_OUTBOX_READ = 100;
export const MAX_OUTBOX_READ = 1_000;

/** The retry policy's defaults: 1 s doubling to 1 h, given up after 18 failures (about 7 hours). */
export const OUTBOX_RETRY_DEFAULTS = Object.freeze({ initialDelayMs: 1_000, maxDelayMs: 3_600_000, maxAttempts: 18 });

/** A subscription saves its position after at most this many deliveries, or this long (see `round`). */
export const ACK_EVERY = 50;
const ACK_WITHIN_MS = 200;

/** Default lease and poll interval of a subscription. */
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 250;

/** The delay before attempt `attempts + 1`, after `attempts` failures. */
export function retryDelayMs(attempts: number, policy: { initialDelayMs: number; maxDelayMs: number }): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempts - 1));
}

/** The text kept of a failure: its message, bounded (a receiver's error page is not stored whole). */
function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

function checkCount(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidField(path, 'range', `must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A subscription's settings, checked. */
function settingsOf(options: OutboxSubscribeOptions | undefined) {
  const retry = {
    initialDelayMs: checkCount(options?.retry?.initialDelayMs ?? OUTBOX_RETRY_DEFAULTS.initialDelayMs, '/retry/initialDelayMs', 1, 86_400_000),
    maxDelayMs: checkCount(options?.retry?.maxDelayMs ?? OUTBOX_RETRY_DEFAULTS.maxDelayMs, '/retry/maxDelayMs', 1, 86_400_000),
    maxAttempts: checkCount(options?.retry?.maxAttempts ?? OUTBOX_RETRY_DEFAULTS.maxAttempts, '/retry/maxAttempts', 1, 1_000),
  };
  return {
    retry,
    leaseMs: checkCount(options?.leaseMs ?? DEFAULT_LEASE_MS, '/leaseMs', 100, 3_600_000),
    pollMs: checkCount(options?.pollMs ?? DEFAULT_POLL_MS, '/pollMs', 1, 60_000),
    startAt: options?.startAt === 'end' ? 'end' : checkCount(options?.startAt ?? 0, '/startAt', 0, Number.MAX_SAFE_INTEGER),
  } as const;
}

/** A promise that resolves after `ms` or when `wake` is called, whichever is first. */
function sleeper() {
  let wake: () => void = () => undefined;
  return {
    sleep(ms: number): Promise<void> {
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    wake: () => wake(),
  };
}

/** The outbox API of one engine. */
export function createOutboxService(settings: EngineSettings): Pick<Engine, 'outbox'> {
  const repo = settings.repositories.outbox;
  // Leases and retries run on the wall clock, not the engine's (which may be fixed or simulated):
  // they pace real deliveries between real processes.
  const clock = { now: () => Date.now() };

  /** One consumer's delivery loop (see the module's description). */
  function subscribe(name: string, handler: (message: StoredOutboxMessage) => unknown, options?: OutboxSubscribeOptions): OutboxSubscription {
    assertId(name, 'consumer');
    if (typeof handler !== 'function') throw invalidField('/handler', 'type', 'must be a function');
    const s = settingsOf(options);
    const owner = options?.owner ?? randomUUID();
    const timer = sleeper();
    let stopped = false;

    /** Takes or renews the lease; the consumer when held. */
    const claim = async (): Promise<OutboxConsumer | null> => {
      const startAt = s.startAt === 'end' ? await repo.outboxHead() : s.startAt;
      return repo.claimConsumer(name, owner, clock.now(), s.leaseMs, startAt);
    };

    /**
     * Delivers what follows the consumer's position; how long to wait before the next round. The
     * position is saved after at most ACK_EVERY deliveries or ACK_WITHIN_MS, and before any wait:
     * one write per message would make each delivery wait for a commit, and a crash redelivers
     * at most that many (at least once either way).
     */
    const round = async (): Promise<number> => {
      let held = await claim();
      if (held === null) return s.pollMs;
      if (held.nextAttemptAt !== null && held.nextAttemptAt > clock.now()) return Math.min(held.nextAttemptAt - clock.now(), s.pollMs * 20);
      const messages = await repo.readOutbox(held.position, DEFAULT_OUTBOX_READ);
      let delivered = held.position;
      let savedAt = clock.now();
      const save = async (): Promise<boolean> => {
        if (delivered === held?.position) return true;
        const ok = await repo.advanceConsumer(name, owner, { position: delivered, attempts: 0, nextAttemptAt: null, lastError: null });
        if (ok && held !== null) held = { ...held, position: delivered, attempts: 0, nextAttemptAt: null };
        savedAt = clock.now();
        return ok;
      };
      for (const message of messages) {
        if (stopped) break;
        // Renewed before a message when half the lease is gone: a slow receiver keeps its turn.
        if (held.leaseUntil - clock.now() < s.leaseMs / 2) {
          if (!(await save())) return s.pollMs;
          held = await claim();
          if (held === null || held.position >= message.seq) return s.pollMs;
        }
        try {
          await handler(message);
        } catch (error) {
          if (!(await save())) return s.pollMs;
          const attempts = held.attempts + 1;
          const lastError = errorText(error);
          if (attempts >= s.retry.maxAttempts) {
            const deadLetter = { seq: message.seq, attempts, lastError, deadAt: clock.now() };
            await repo.advanceConsumer(name, owner, { position: message.seq, attempts: 0, nextAttemptAt: null, lastError, deadLetter });
            options?.onDeadLetter?.({ consumer: name, ...deadLetter });
            return 0;
          }
          const nextAttemptAt = clock.now() + retryDelayMs(attempts, s.retry);
          await repo.advanceConsumer(name, owner, { attempts, nextAttemptAt, lastError });
          options?.onRetry?.({ consumer: name, seq: message.seq, attempts, lastError, nextAttemptAt });
          return 0;
        }
        delivered = message.seq;
        if (delivered - held.position >= ACK_EVERY || clock.now() - savedAt >= ACK_WITHIN_MS) {
          if (!(await save())) return s.pollMs;
        }
      }
      if (!(await save())) return s.pollMs;
      return messages.length === DEFAULT_OUTBOX_READ && !stopped ? 0 : s.pollMs;
    };

    const loop = (async () => {
      while (!stopped) {
        let wait: number;
        try {
          wait = await round();
        } catch (error) {
          // The store unreachable: told, and tried again after a pause (nothing is lost: the
          // position moves only after a delivery).
          options?.onError?.(error);
          wait = s.pollMs * 4;
        }
        if (!stopped && wait > 0) await timer.sleep(wait);
      }
      await repo.releaseConsumer(name, owner).catch(() => undefined);
    })();

    return {
      name,
      owner,
      wake: timer.wake,
      async stop() {
        stopped = true;
        timer.wake();
        await loop;
      },
    };
  }

  const outbox: OutboxApi = {
    async read(options) {
      const after = checkCount(options?.after ?? 0, '/after', 0, Number.MAX_SAFE_INTEGER);
      const limit = checkCount(options?.limit ?? DEFAULT_OUTBOX_READ, '/limit', 1, MAX_OUTBOX_READ);
      const [messages, head] = await Promise.all([repo.readOutbox(after, limit), repo.outboxHead()]);
      return { messages, head };
    },
    async head() {
      return repo.outboxHead();
    },
    async listConsumers() {
      return repo.listConsumers();
    },
    async getConsumer(name) {
      assertId(name, 'consumer');
      const found = await repo.getConsumer(name);
      if (found === null) throw notFound('CONSUMER_NOT_FOUND', 'outbox consumer');
      return found;
    },
    async acknowledge(name, position, options) {
      assertId(name, 'consumer');
      checkCount(position, '/position', 0, Number.MAX_SAFE_INTEGER);
      const owner = options?.owner ?? `ack:${name}`;
      const held = await repo.claimConsumer(name, owner, clock.now(), DEFAULT_LEASE_MS, 0);
      if (held === null) throw new TxmonError('CONCURRENT_UPDATE', 'Another reader holds this outbox consumer');
      await repo.advanceConsumer(name, owner, { position, attempts: 0, nextAttemptAt: null, lastError: null });
      if (options?.owner === undefined) await repo.releaseConsumer(name, owner);
    },
    async listDeadLetters(name, options) {
      assertId(name, 'consumer');
      const after = checkCount(options?.after ?? 0, '/after', 0, Number.MAX_SAFE_INTEGER);
      const limit = checkCount(options?.limit ?? DEFAULT_OUTBOX_READ, '/limit', 1, MAX_OUTBOX_READ);
      return repo.listDeadLetters(name, after, limit);
    },
    subscribe,
  };
  return { outbox };
}
