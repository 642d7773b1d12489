/**
 * The audit log in memory: entries in the order they were appended (their `seq` is their position
 * + 1). A write that audits reserves its entries' bytes together with its own ({@link MemoryAuditLog.sizeOf})
 * and appends them after its change ({@link MemoryAuditLog.appendReserved}), in the same synchronous
 * step: nothing between the two can fail.
 */
import { type AuditEntry, MAX_AUDIT_COUNT } from '../../domain/index.js';
import type { AuditEntryQuery, AuditRepository, AuditWrites, StoredAuditEntry } from '../../engine/repositories.js';
import { measureJsonSize } from '../../validation/index.js';
import { RECORD_OVERHEAD } from './budget.js';
import type { MemoryOutbox } from './outbox.js';

/** The audit log of one memory store, and how its writes append to it. */
export interface MemoryAuditLog {
  readonly repository: AuditRepository;
  /** The bytes a write's audit entries and outbox messages count against the budget: reserve them with the write's own. */
  sizeOf(writes: AuditWrites | undefined): number;
  /** Appends a write's audit entries, then its outbox messages, whose bytes the caller reserved. Never throws. */
  appendReserved(writes: AuditWrites | undefined): void;
}

/** An empty audit log; the outbox messages of the writes that audit go to `outbox`. */
export function createMemoryAuditLog(outbox: MemoryOutbox): MemoryAuditLog {
  const log: AuditEntry[] = [];
  const matches = (entry: AuditEntry, q: AuditEntryQuery): boolean =>
    (q.entityType === undefined || entry.entityType === q.entityType) &&
    (q.entityId === undefined || entry.entityId === q.entityId) &&
    (q.action === undefined || entry.action === q.action) &&
    (q.actor === undefined || entry.actor === q.actor) &&
    (q.fromTimestamp === undefined || entry.timestamp >= q.fromTimestamp) &&
    (q.toTimestamp === undefined || entry.timestamp <= q.toTimestamp);
  return {
    repository: {
      async listAuditEntries(query) {
        const entries: StoredAuditEntry[] = [];
        let total = 0;
        const ascending = query.order === 'ASC';
        // Positions are seq − 1: the scan starts just past the cursor.
        const first = ascending ? Math.max(0, query.position ?? 0) : Math.min(log.length, (query.position ?? log.length + 1) - 1) - 1;
        for (let i = 0; i < log.length && total < MAX_AUDIT_COUNT; i++) {
          const entry = log[i] as AuditEntry;
          if (matches(entry, query)) total += 1;
        }
        for (let i = first; ascending ? i < log.length : i >= 0; i += ascending ? 1 : -1) {
          const entry = log[i] as AuditEntry;
          if (!matches(entry, query)) continue;
          if (entries.length === query.limit) break;
          entries.push({ seq: i + 1, entry });
        }
        return { entries, total };
      },
    },
    sizeOf(writes) {
      let bytes = outbox.sizeOf(writes?.outbox);
      for (const entry of writes?.audit ?? []) bytes += RECORD_OVERHEAD + measureJsonSize(entry);
      return bytes;
    },
    appendReserved(writes) {
      for (const entry of writes?.audit ?? []) log.push(entry);
      outbox.appendReserved(writes?.outbox);
    },
  };
}
