/**
 * The outbox in memory: messages in the order they were appended (their `seq` is their position
 * + 1), appended in the same synchronous step as the write that carries them; consumers' positions,
 * leases and dead letters beside them. Each write reserves its messages' bytes with its own
 * ({@link MemoryOutbox.sizeOf}); delivered messages stay (the store keeps what it was given, within
 * its byte budget).
 */
import type { OutboxMessage, StoredOutboxMessage } from '../../domain/outbox.js';
import type { OutboxConsumer, OutboxDeadLetter, OutboxRepository } from '../../engine/repositories.js';
import { measureJsonSize } from '../../validation/index.js';
import { RECORD_OVERHEAD } from './budget.js';

/** The outbox of one memory store, and how its writes append to it. */
export interface MemoryOutbox {
  readonly repository: OutboxRepository;
  /** The bytes `messages` count against the budget: reserve them with the write's own. */
  sizeOf(messages: readonly OutboxMessage[] | undefined): number;
  /** Appends `messages`, whose bytes the caller reserved. Never throws. */
  appendReserved(messages: readonly OutboxMessage[] | undefined): void;
}

type MutableConsumer = { -readonly [K in keyof OutboxConsumer]: OutboxConsumer[K] };

export function createMemoryOutbox(): MemoryOutbox {
  const messages: StoredOutboxMessage[] = [];
  const consumers = new Map<string, MutableConsumer>();
  const dead = new Map<string, OutboxDeadLetter[]>();
  const copy = (c: MutableConsumer): OutboxConsumer => ({ ...c });
  return {
    repository: {
      async readOutbox(afterSeq, limit) {
        const from = Math.max(0, Math.floor(afterSeq));
        return messages.slice(from, from + Math.max(0, Math.floor(limit)));
      },
      async outboxHead() {
        return messages.length;
      },
      async listConsumers() {
        return [...consumers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(copy);
      },
      async getConsumer(name) {
        const c = consumers.get(name);
        return c === undefined ? null : copy(c);
      },
      async claimConsumer(name, owner, now, leaseMs, startAt) {
        let c = consumers.get(name);
        if (c === undefined) {
          c = { name, position: startAt, attempts: 0, nextAttemptAt: null, lastError: null, owner: null, leaseUntil: 0, deadLetters: 0 };
          consumers.set(name, c);
        }
        if (c.owner !== null && c.owner !== owner && c.leaseUntil >= now) return null;
        c.owner = owner;
        c.leaseUntil = now + leaseMs;
        return copy(c);
      },
      async advanceConsumer(name, owner, advance) {
        const c = consumers.get(name);
        if (c === undefined || c.owner !== owner) return false;
        if (advance.position !== undefined) c.position = Math.max(c.position, advance.position);
        if (advance.attempts !== undefined) c.attempts = advance.attempts;
        if (advance.nextAttemptAt !== undefined) c.nextAttemptAt = advance.nextAttemptAt;
        if (advance.lastError !== undefined) c.lastError = advance.lastError;
        if (advance.deadLetter !== undefined) {
          let list = dead.get(name);
          if (list === undefined) {
            list = [];
            dead.set(name, list);
          }
          if (!list.some((d) => d.seq === advance.deadLetter?.seq)) {
            list.push({ consumer: name, ...advance.deadLetter });
            c.deadLetters += 1;
          }
        }
        return true;
      },
      async releaseConsumer(name, owner) {
        const c = consumers.get(name);
        if (c !== undefined && c.owner === owner) c.leaseUntil = 0;
      },
      async listDeadLetters(name, afterSeq, limit) {
        return (dead.get(name) ?? []).filter((d) => d.seq > afterSeq).slice(0, Math.max(0, Math.floor(limit)));
      },
    },
    sizeOf(list) {
      let bytes = 0;
      for (const m of list ?? []) bytes += RECORD_OVERHEAD + measureJsonSize(m);
      return bytes;
    },
    appendReserved(list) {
      for (const m of list ?? []) messages.push({ seq: messages.length + 1, type: m.type, entityId: m.entityId, timestamp: m.timestamp, data: m.data });
    },
  };
}
