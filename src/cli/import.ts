/**
 * `txmon import`: streams an NDJSON file (gzipped when it ends in `.gz`) of transactions,
 * transaction events and users — the format `txmon generate` writes (docs/typologies.md) — into a
 * durable store through the engine's batch path, in file order, up to 10,000 records a batch.
 * Every line is processed on its own: lines that are not JSON, or that the engine refuses, are
 * reported with their line numbers and the import goes on. Running it again on the same file
 * completes an interrupted import (stored records are replays).
 */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createEngine } from '../default-engine.js';
import type { BatchResponse, Repositories } from '../engine/repositories.js';
import type { BatchMode, Engine } from '../engine/types.js';
import { ndjsonSource } from './history-source.js';
import { createProgress } from './progress.js';
import { DEFAULT_STORE_SETTINGS, StoreSpecError, describeStore, openStores, parseStore, type StoreSpec } from './stores.js';
import { UsageError } from './usage.js';

export { IMPORT_USAGE } from './usage.js';

/** Records per batch call. */
const BATCH_RECORDS = 10_000;
/** Rejected lines listed in the summary (the count covers them all). */
const LISTED_REJECTIONS = 100;

interface ImportArgs {
  readonly store: StoreSpec;
  readonly tenant: string | undefined;
  readonly mode: BatchMode;
  readonly file: string;
}

function parseImportArgs(argv: readonly string[]): ImportArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { store: { type: 'string' }, tenant: { type: 'string' }, mode: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  if (values.store === undefined) throw new UsageError('--store is required (pglite:<dir> or postgres://…)');
  let store: StoreSpec;
  try {
    store = parseStore(values.store);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (store.kind === 'memory') throw new UsageError('--store memory keeps nothing after the import: name a pglite:<dir> or postgres:// store');
  const mode = values.mode ?? 'import';
  if (mode !== 'import' && mode !== 'monitor') throw new UsageError('--mode must be import or monitor');
  if (positionals.length !== 1) throw new UsageError('name one file to import');
  const file = positionals[0] as string;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  return { store, tenant: values.tenant, mode: mode === 'import' ? 'IMPORT' : 'MONITOR', file };
}

/** What a line holds: a transaction (it has `type`), an event (a `transactionId` without `type`), or a user. */
type Kind = 'transaction' | 'event' | 'consumer' | 'business';

function kindOf(record: Record<string, unknown>): Kind {
  if ('type' in record && 'transactionId' in record) return 'transaction';
  if ('transactionId' in record) return 'event';
  return 'legalEntity' in record || record.type === 'BUSINESS' ? 'business' : 'consumer';
}

/** The id a batch names a refused record by (as the engine's batches do). */
function idOf(kind: Kind, record: Record<string, unknown>): string | undefined {
  const pick = (field: string) => (typeof record[field] === 'string' ? (record[field] as string) : undefined);
  if (kind === 'transaction') return pick('transactionId');
  if (kind === 'event') return pick('eventId') ?? pick('transactionId');
  return pick('userId');
}

/** A rejected line: its number and why. */
export interface RejectedLine {
  readonly line: number;
  readonly reasonCode: string;
  readonly id?: string;
}

/** What an import did. */
export interface ImportSummary {
  readonly transactions: number;
  readonly events: number;
  readonly users: number;
  readonly rejected: number;
  /** The first rejected lines (at most 100). */
  readonly rejectedLines: RejectedLine[];
  readonly seconds: number;
}

/** Sends one batch of one kind and reports its refused records by line number. */
async function sendBatch(
  engine: Engine,
  kind: Kind,
  lines: number[],
  records: Record<string, unknown>[],
  mode: BatchMode,
): Promise<{ ok: number; rejected: RejectedLine[] }> {
  let response: BatchResponse;
  if (kind === 'transaction') response = await engine.createTransactionBatch({ data: records }, { mode });
  else if (kind === 'event') response = await engine.createTransactionEventBatch({ data: records }, { mode });
  else response = await engine.createUserBatch({ data: records }, { type: kind === 'business' ? 'BUSINESS' : 'CONSUMER' });
  // Refused records come in batch order, named by the record's id: matched to the lines in order.
  const rejected: RejectedLine[] = [];
  let at = 0;
  for (const failure of response.failedRecords ?? []) {
    while (at < records.length && idOf(kind, records[at] as Record<string, unknown>) !== failure.id) at++;
    rejected.push({ line: lines[at] ?? 0, reasonCode: failure.reasonCode, ...(failure.id === undefined ? {} : { id: failure.id }) });
    at++;
  }
  return { ok: response.successful, rejected };
}

/**
 * Imports `file` into the engine on `repositories`; `onProgress` is told the records read so far.
 * Lines go in file order: a batch ends where the kind of line changes, so an event is applied after
 * the transactions before it in the file, as one by one.
 */
export async function importFile(
  engine: Engine,
  file: string,
  mode: BatchMode,
  onProgress: (items: number, share: number) => void = () => undefined,
): Promise<ImportSummary> {
  const started = Date.now();
  const source = ndjsonSource(file);
  const counts = { transaction: 0, event: 0, consumer: 0, business: 0 };
  const rejectedLines: RejectedLine[] = [];
  let rejected = 0;
  const reject = (r: RejectedLine) => {
    rejected += 1;
    if (rejectedLines.length < LISTED_REJECTIONS) rejectedLines.push(r);
  };
  let kind: Kind | null = null;
  let lines: number[] = [];
  let records: Record<string, unknown>[] = [];
  let lineNumber = 0;
  const flush = async () => {
    if (kind === null || records.length === 0) return;
    const { ok, rejected: refused } = await sendBatch(engine, kind, lines, records, mode);
    counts[kind] += ok;
    for (const r of refused) reject(r);
    lines = [];
    records = [];
  };
  for await (const item of source.items) {
    lineNumber += 1;
    const text = item as string;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      reject({ line: lineNumber, reasonCode: 'MALFORMED_JSON' });
      continue;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      reject({ line: lineNumber, reasonCode: 'VALIDATION_FAILED' });
      continue;
    }
    const next = kindOf(record as Record<string, unknown>);
    if (next !== kind || records.length >= BATCH_RECORDS) {
      await flush();
      kind = next;
      onProgress(lineNumber, source.progress());
    }
    lines.push(lineNumber);
    records.push(record as Record<string, unknown>);
  }
  await flush();
  onProgress(lineNumber, 1);
  return {
    transactions: counts.transaction,
    events: counts.event,
    users: counts.consumer + counts.business,
    rejected,
    rejectedLines,
    seconds: (Date.now() - started) / 1000,
  };
}

/** The summary printed on standard output. */
function summaryOf(summary: ImportSummary, store: string): string {
  const imported = summary.transactions + summary.events + summary.users;
  const rate = Math.round(imported / Math.max(0.001, summary.seconds));
  const out = [
    `imported into ${store}: ${summary.transactions} transactions, ${summary.events} events, ${summary.users} users in ${summary.seconds.toFixed(1)} s (${rate} records/s)`,
    `rejected: ${summary.rejected} line${summary.rejected === 1 ? '' : 's'}`,
  ];
  for (const r of summary.rejectedLines) out.push(`  line ${r.line}: ${r.reasonCode}${r.id === undefined ? '' : ` (${r.id})`}`);
  if (summary.rejected > summary.rejectedLines.length) out.push(`  … and ${summary.rejected - summary.rejectedLines.length} more`);
  return `${out.join('\n')}\n`;
}

/**
 * Runs `txmon import`.
 * @throws UsageError for bad arguments; StoreStartError when the store cannot be opened
 */
export async function importCommand(argv: readonly string[], out: { write(text: string): void } = process.stdout): Promise<ImportSummary> {
  const args = parseImportArgs(argv);
  let stores: Awaited<ReturnType<typeof openStores>>;
  const tenant = args.tenant ?? 'default';
  try {
    stores = await openStores(args.store, [tenant], { single: args.tenant === undefined, maxStoredBytes: 1, settings: DEFAULT_STORE_SETTINGS });
  } catch (error) {
    throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
  }
  let share = 0;
  const progress = createProgress('import', () => share);
  let items = 0;
  try {
    const engine = createEngine({ repositories: stores.repositories.get(tenant) as Repositories });
    const summary = await importFile(engine, args.file, args.mode, (read, at) => {
      items = read;
      share = at;
      progress.update(read);
    });
    progress.stop(items);
    out.write(summaryOf(summary, describeStore(args.store)));
    return summary;
  } catch (error) {
    progress.stop(items);
    throw error;
  } finally {
    await stores.close();
  }
}
