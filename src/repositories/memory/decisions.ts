/**
 * The decision log in memory: the decisions' texts in position order, appended in the same
 * synchronous step as the outcome. Entries and hashes are derived when the log is read, and kept
 * from then on: they are a function of the texts, and a log that lives in the process has no one
 * to hide an edit from, so the write path pays for one array push.
 */
import { chainHash, entryText, GENESIS_HASH, type DecisionLogRow } from '../../domain/decision-log.js';
import type { DecisionLogRepository } from '../../engine/repositories.js';

/** The memory decision log: {@link MemoryDecisions.append} for the outcome writes, the port for reads. */
export interface MemoryDecisions {
  /** Appends decision texts (synchronous: part of an outcome's one step). */
  append(decisionTexts: readonly string[]): void;
  readonly repository: DecisionLogRepository;
}

/** An empty decision log. */
export function createMemoryDecisions(): MemoryDecisions {
  const texts: string[] = [];
  /** The hashes of the first `hashes.length` entries. */
  const hashes: string[] = [];
  const hashedThrough = (count: number) => {
    for (let i = hashes.length; i < count; i++) {
      hashes.push(chainHash(i === 0 ? GENESIS_HASH : (hashes[i - 1] as string), entryText(i + 1, texts[i] as string)));
    }
  };
  return {
    append(decisionTexts) {
      for (const text of decisionTexts) texts.push(text);
    },
    repository: {
      async readDecisions(afterSeq, limit) {
        const from = Math.max(0, Math.floor(afterSeq));
        const to = Math.min(texts.length, from + Math.max(0, Math.floor(limit)));
        hashedThrough(to);
        const rows: DecisionLogRow[] = [];
        for (let i = from; i < to; i++) {
          rows.push({
            seq: i + 1,
            prev: i === 0 ? GENESIS_HASH : (hashes[i - 1] as string),
            entry: entryText(i + 1, texts[i] as string),
            hash: hashes[i] as string,
          });
        }
        return rows;
      },
      async decisionHead() {
        hashedThrough(texts.length);
        return { seq: texts.length, hash: texts.length === 0 ? GENESIS_HASH : (hashes[texts.length - 1] as string) };
      },
    },
  };
}
