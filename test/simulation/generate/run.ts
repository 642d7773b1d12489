/**
 * A generated run collected in memory for the tests: its records, the history text, the labels,
 * and indexes by transaction, scheme and user. Runs are cached per options within a test file.
 */
import { createSyntheticData, type GenerateOptions, type HistoryRecord, type LabelRow, type SyntheticData } from '../../../src/simulation/generate/index.js';
import { formatHistoryLine } from '../../../src/simulation/generate/output.js';
import type { Transaction, TransactionEvent } from '../../../src/domain/index.js';

/** A run held in memory. */
export interface CollectedRun {
  readonly data: SyntheticData;
  readonly records: readonly HistoryRecord[];
  readonly text: string;
  readonly transactions: readonly Transaction[];
  readonly events: readonly TransactionEvent[];
  readonly labels: readonly LabelRow[];
  /** Labelled transactions by scheme id, in time order. */
  readonly bySchemeTransactions: ReadonlyMap<string, Transaction[]>;
  /** Every transaction of a user (sent or received), in time order. */
  readonly byUser: ReadonlyMap<string, Transaction[]>;
  /** Ids of the business users. */
  readonly businesses: ReadonlySet<string>;
}

const cache = new Map<string, CollectedRun>();

/** Generates a run (or takes it from the cache) and indexes it. */
export function collectRun(options: GenerateOptions): CollectedRun {
  const key = JSON.stringify(options);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const data = createSyntheticData(options);
  const records = [...data.history()];
  const transactions: Transaction[] = [];
  const events: TransactionEvent[] = [];
  const labels: LabelRow[] = [...data.userLabels];
  const bySchemeTransactions = new Map<string, Transaction[]>();
  const byUser = new Map<string, Transaction[]>();
  const addTo = (map: Map<string, Transaction[]>, key: string | undefined, t: Transaction) => {
    if (key === undefined) return;
    const list = map.get(key) ?? [];
    list.push(t);
    map.set(key, list);
  };
  for (const record of records) {
    if (record.kind === 'event') {
      events.push(record.event);
      continue;
    }
    const t = record.transaction;
    transactions.push(t);
    addTo(byUser, t.originUserId, t);
    if (t.destinationUserId !== t.originUserId) addTo(byUser, t.destinationUserId, t);
    if (record.label !== null) {
      labels.push({ level: 'transaction', id: t.transactionId, ...record.label });
      addTo(bySchemeTransactions, record.label.scheme, t);
    }
  }
  const businesses = new Set([...data.users()].filter((u) => 'legalEntity' in u).map((u) => u.userId));
  const run = { data, records, text: records.map(formatHistoryLine).join(''), transactions, events, labels, bySchemeTransactions, byUser, businesses };
  cache.set(key, run);
  return run;
}
