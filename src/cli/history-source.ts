/**
 * Where `txmon simulate` reads its history from: an NDJSON file (one operation per line, gzipped
 * when the name ends in `.gz`), a CSV file (one operation per row, columns named by the wire
 * format's dot paths or mapped to them), or a store's own history (`--store`, read in time order
 * from a read-only snapshot). Each yields the items `simulate` takes, positioned so that an item's
 * position is its line number in the file, and says how far through the source it is.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import type { HistoryRange, Repositories } from '../engine/repositories.js';
import { UsageError } from './usage.js';

/** A history to replay and how far through it the replay is (0–1). */
export interface HistorySource {
  readonly items: AsyncIterable<unknown>;
  /** The share read so far: bytes of a file, or the history time of a store. */
  progress(): number;
}

/** A file's bytes, decompressed when gzipped, counting the bytes read from disk. */
function openFile(file: string): { stream: Readable; read: () => number; size: number } {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new UsageError(`--history: cannot read ${file}`);
  }
  const raw = createReadStream(file);
  let read = 0;
  raw.on('data', (chunk: Buffer | string) => {
    read += chunk.length;
  });
  const stream = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (error) => stream.destroy(error));
  return { stream, read: () => read, size };
}

/** An NDJSON file: every line an item (blank lines too, so that positions are line numbers). */
export function ndjsonSource(file: string): HistorySource {
  const { stream, read, size } = openFile(file);
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  return { items: lines, progress: () => (size === 0 ? 1 : read() / size) };
}

/** Wire fields whose values are numbers (a CSV cell is text). */
const NUMERIC_FIELDS = new Set(['timestamp', 'transactionAmount', 'amountValue', 'deviceLatitude', 'deviceLongitude', 'batteryLevel', 'deviceYear']);
/** Wire fields whose values are booleans. */
const BOOLEAN_FIELDS = new Set(['promotionCodeUsed', 'vpnUsed', '3dsDone', 'cardPresent', 'cardAuthenticated', 'cardTokenized', 'isInstant']);

/** Sets `value` at the dot `path` of `target`, creating the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}

/** A cell's value for the wire field at `path`: a number or a boolean where the field is one, else the text. */
function cellValue(path: string, text: string): unknown {
  const leaf = path.slice(path.lastIndexOf('.') + 1);
  if (NUMERIC_FIELDS.has(leaf) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text.trim())) return Number(text);
  if (BOOLEAN_FIELDS.has(leaf) && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * A CSV file with a header row: each row an operation whose fields are the non-empty cells, each
 * put at the dot path its column names (`originAmountDetails.transactionAmount`), or the path
 * `mapping` gives for the column. The header is yielded as a blank item, so positions are line
 * numbers (for rows without line breaks inside cells).
 */
export function csvSource(file: string, mapping: Readonly<Record<string, string>>): HistorySource {
  const { stream, read, size } = openFile(file);
  const rows = stream.pipe(parse({ columns: true, skip_empty_lines: false, relax_column_count: true, bom: true, trim: true }));
  async function* items(): AsyncIterable<unknown> {
    yield '';
    for await (const row of rows as AsyncIterable<Record<string, string>>) {
      const operation: Record<string, unknown> = {};
      for (const [column, text] of Object.entries(row)) {
        if (text === '' || text === undefined) continue;
        setPath(operation, mapping[column] ?? column, cellValue(mapping[column] ?? column, text));
      }
      yield operation;
    }
  }
  return { items: items(), progress: () => (size === 0 ? 1 : read() / size) };
}

/** A store's own history, in time order, within `range`; progress is the history time reached. */
export function storeSource(repositories: Repositories, range: HistoryRange): HistorySource {
  let at: number | null = null;
  let first: number | null = null;
  const to = range.to ?? Date.now();
  async function* items(): AsyncIterable<unknown> {
    for await (const item of repositories.transactions.scanHistory(range)) {
      at = item.operation.timestamp;
      first ??= at;
      yield item.operation;
    }
  }
  return {
    items: items(),
    progress: () => (at === null || first === null || to <= first ? 0 : Math.min(1, (at - first) / (to - first))),
  };
}
