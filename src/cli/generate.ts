/**
 * `txmon generate`: writes a seeded, labelled synthetic payment history (src/simulation/generate,
 * docs/typologies.md) — the history as NDJSON (gzip when the name ends in `.gz`), the labels as CSV,
 * optionally the users as NDJSON — streaming, so memory stays bounded whatever the size. Prints one
 * JSON line of counts when done.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { parseCalendarDate } from '../domain/index.js';
import { GenerateOptionsError, TYPOLOGIES, createSyntheticData, type GenerateOptions, type Typology } from '../simulation/generate/index.js';
import { LABELS_HEADER, formatHistoryLine, formatJsonLine, formatLabelRow } from '../simulation/generate/output.js';
import { UsageError } from './usage.js';

export { GENERATE_USAGE } from './usage.js';

/** The parsed command line. */
export interface GenerateArgs {
  readonly options: GenerateOptions;
  readonly out: string;
  readonly labels: string;
  readonly usersOut: string | undefined;
}

/** The flag of each library option, to name it in a usage error. */
const FLAG_OF: Readonly<Record<keyof GenerateOptions, string>> = Object.freeze({
  users: '--users',
  days: '--days',
  seed: '--seed',
  start: '--start',
  typologyRate: '--typology-rate',
  minSchemes: '--min-schemes',
  typologies: '--typologies',
});

function integerFlag(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,16}$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer, not "${text}"`);
  return Number(text);
}

function typologiesFlag(text: string | undefined): readonly Typology[] | undefined {
  if (text === undefined || text === 'all') return undefined;
  if (text === 'none') return [];
  const names = text.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!(TYPOLOGIES as readonly string[]).includes(name))
      throw new UsageError(`--typologies has an unknown typology "${name}" (known: ${TYPOLOGIES.join(', ')}, or all, or none)`);
  }
  return names as Typology[];
}

/**
 * Parses and checks the arguments of `txmon generate`.
 * @throws UsageError naming the flag at fault (also for the library's option checks)
 */
export function parseGenerateArgs(argv: readonly string[]): GenerateArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      users: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      start: { type: 'string' },
      out: { type: 'string' },
      labels: { type: 'string' },
      'users-out': { type: 'string' },
      'typology-rate': { type: 'string' },
      'min-schemes': { type: 'string' },
      typologies: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.out === undefined || values.out === '') throw new UsageError('--out is required: the history file to write (.ndjson, or .ndjson.gz)');
  if (values.labels === undefined || values.labels === '') throw new UsageError('--labels is required: the labels file to write (.csv)');
  const paths = [values.out, values.labels, values['users-out']].filter((p): p is string => p !== undefined).map((p) => resolve(p));
  if (new Set(paths).size !== paths.length) throw new UsageError('--out, --labels and --users-out must be different files');
  let start: number | undefined;
  if (values.start !== undefined) {
    start = parseCalendarDate(values.start) ?? undefined;
    if (start === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(values.start)) throw new UsageError(`--start must be a date YYYY-MM-DD, not "${values.start}"`);
  }
  const rateText = values['typology-rate'];
  if (rateText !== undefined && !/^(0|[0-9]*\.[0-9]+|[0-9]+)$/.test(rateText))
    throw new UsageError(`--typology-rate must be a number from 0 to 0.25, not "${rateText}"`);
  const typologies = typologiesFlag(values.typologies);
  const options: GenerateOptions = {
    users: integerFlag('--users', values.users, 1000),
    days: integerFlag('--days', values.days, 30),
    seed: integerFlag('--seed', values.seed, 1),
    ...(start === undefined ? {} : { start }),
    ...(rateText === undefined ? {} : { typologyRate: Number(rateText) }),
    ...(values['min-schemes'] === undefined ? {} : { minSchemes: integerFlag('--min-schemes', values['min-schemes'], 0) }),
    ...(typologies === undefined ? {} : { typologies }),
  };
  return { options, out: values.out, labels: values.labels, usersOut: values['users-out'] };
}

/** A file being written: text is gathered into chunks, and a full stream is waited for. */
interface Sink {
  write(text: string): Promise<void> | undefined;
  close(): Promise<void>;
}

/** Chunks of about this many characters go to the stream at once (a write per line would be slow). */
const CHUNK_CHARS = 1 << 16;
/** Bytes a file or gzip stream buffers before generation waits for it. */
const STREAM_BUFFER_BYTES = 1 << 22;

async function openSink(path: string): Promise<Sink> {
  // Deep buffers let generation run on while the disk (or zlib, on the thread pool) catches up.
  const file = createWriteStream(path, { highWaterMark: STREAM_BUFFER_BYTES });
  // An unwritable path fails here, before any work is done.
  await once(file, 'open');
  const gzip = path.endsWith('.gz') ? createGzip() : null;
  const target: Writable = gzip ?? file;
  const done = gzip === null ? finished(file) : finished(gzip.pipe(file));
  // A write error is seen by the next wait or by close, not left unhandled.
  done.catch(() => undefined);
  let pending = '';
  const flush = async () => {
    const chunk = pending;
    pending = '';
    if (chunk.length > 0 && !target.write(chunk)) await Promise.race([once(target, 'drain'), done]);
  };
  return {
    write(text) {
      pending += text;
      return pending.length >= CHUNK_CHARS ? flush() : undefined;
    },
    async close() {
      await flush();
      target.end();
      await done;
    },
  };
}

/** Counts printed when the files are written. */
export interface GenerateSummary {
  readonly users: number;
  readonly days: number;
  readonly seed: number;
  readonly transactions: number;
  readonly events: number;
  readonly operations: number;
  readonly schemes: Readonly<Record<Typology, number>>;
  readonly labelledUsers: number;
  readonly labelledTransactions: number;
}

function usageErrorOf(error: unknown): unknown {
  return error instanceof GenerateOptionsError ? new UsageError(`${FLAG_OF[error.option]} ${error.detail}`) : error;
}

/**
 * Runs `txmon generate`: writes the files and prints the summary as one JSON line to `out`.
 * @throws UsageError for bad arguments; a file-system error when a file cannot be written
 */
export async function generate(argv: readonly string[], out: { write(line: string): void } = process.stdout): Promise<GenerateSummary> {
  const args = parseGenerateArgs(argv);
  let data: ReturnType<typeof createSyntheticData>;
  try {
    data = createSyntheticData(args.options);
  } catch (error) {
    throw usageErrorOf(error);
  }
  const history = await openSink(args.out);
  const labels = await openSink(args.labels);
  const users = args.usersOut === undefined ? null : await openSink(args.usersOut);
  let transactions = 0;
  let events = 0;
  let labelledTransactions = 0;
  // A sink returns a promise only when its stream is full: awaiting nothing on every line would cost a turn each.
  labels.write(LABELS_HEADER);
  for (const row of data.userLabels) {
    const full = labels.write(formatLabelRow(row));
    if (full !== undefined) await full;
  }
  for (const record of data.history()) {
    if (record.kind === 'transaction') {
      transactions += 1;
      if (record.label !== null) {
        labelledTransactions += 1;
        const full = labels.write(formatLabelRow({ level: 'transaction', id: record.transaction.transactionId, ...record.label }));
        if (full !== undefined) await full;
      }
    } else events += 1;
    const full = history.write(formatHistoryLine(record));
    if (full !== undefined) await full;
  }
  if (users !== null) {
    for (const user of data.users()) {
      const full = users.write(formatJsonLine(user));
      if (full !== undefined) await full;
    }
  }
  await Promise.all([history.close(), labels.close(), users?.close()]);
  const summary: GenerateSummary = {
    users: data.options.users,
    days: data.options.days,
    seed: data.options.seed,
    transactions,
    events,
    operations: transactions + events,
    schemes: data.schemeCounts,
    labelledUsers: data.userLabels.length,
    labelledTransactions,
  };
  out.write(formatJsonLine(summary));
  return summary;
}
