/**
 * The decision log in memory: the chain's entries and hashes in position order (the previous hash
 * of a row is the row before it's), appended in the same synchronous step as the outcome.
 */
import { appendDecisionLog, EMPTY_DECISION_LOG, GENESIS_HASH, type DecisionLogHead, type DecisionLogRow } from '../../domain/decision-log.js';
import type { DecisionLogRepository } from '../../engine/repositories.js';

/** The memory decision log: {@link MemoryDecisions.append} for the outcome writes, the port for reads. */
export interface MemoryDecisions {
  /** Appends decision texts (synchronous: part of an outcome's one step). */
  append(decisionTexts: readonly string[]): void;
  readonly repository: DecisionLogRepository;
}

/** An empty decision log. */
export function createMemoryDecisions(): MemoryDecisions {
  const entries: string[] = [];
  const hashes: string[] = [];
  let head: DecisionLogHead = EMPTY_DECISION_LOG;
  return {
    append(decisionTexts) {
      const appended = appendDecisionLog(head, decisionTexts);
      for (const row of appended.rows) {
        entries.push(row.entry);
        hashes.push(row.hash);
      }
      head = appended.head;
    },
    repository: {
      async readDecisions(afterSeq, limit) {
        const rows: DecisionLogRow[] = [];
        const from = Math.max(0, Math.floor(afterSeq));
        for (let i = from; i < entries.length && rows.length < limit; i++) {
          rows.push({ seq: i + 1, prev: i === 0 ? GENESIS_HASH : (hashes[i - 1] as string), entry: entries[i] as string, hash: hashes[i] as string });
        }
        return rows;
      },
      async decisionHead() {
        return head;
      },
    },
  };
}
