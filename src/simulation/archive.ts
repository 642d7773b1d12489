/**
 * Transactions that went quiet, kept as text off the JavaScript heap: a later event (a refund or a
 * chargeback weeks on) still finds its transaction, as it would in a live engine's store, while the
 * heap keeps one map entry per quiet transaction instead of its objects.
 */
import type { Transaction, TransactionEvent } from '../domain/index.js';
import { foldTransactionEvents, initialTransaction, type SequencedEvent } from '../engine/pipeline/apply-event.js';
import type { TransitionTable } from '../engine/pipeline/lifecycle.js';

/** A transaction of the replay, with what a later event or replay of it needs. */
export interface ReplayedTransaction {
  readonly request: Transaction;
  /** Where the request's JSON text is kept ({@link TransactionArchive.keepText}), or `null` until it is archived. */
  requestPlace: number | null;
  current: Transaction;
  readonly events: SequencedEvent[];
  /** The event ids it received from the client (a replay of one is answered as before). */
  clientEventIds: Set<string> | null;
  lastEventTimestamp: number | null;
  touchedAt: number;
  /** One flag per instance of the baseline, then of the candidate: whether it ever hit this transaction. */
  hits: Uint8Array | null;
  /** Which of its parties it was counted for as newly hit users when it went quiet (see the tally). */
  newParties: number;
}

/** Bytes of one arena. */
const ARENA_BYTES = 64 * 2 ** 20;
/** A place packs (arena, offset, length) into one number: 26 bits of offset, 20 of length. */
const OFFSET_SPAN = 2 ** 26;
const LENGTH_SPAN = 2 ** 20;

/** Texts written once and read back by their place. */
export interface TextStore {
  /** Keeps `text`; the number that reads it back. */
  write(text: string): number;
  read(place: number): string;
  /** Bytes written (as UTF-8; texts too long to pack are kept as strings and not counted). */
  readonly bytes: number;
}

/**
 * A {@link TextStore} over 64 MiB `Uint8Array` arenas, each text encoded as UTF-8: the collector
 * never walks the bytes, and an arena's memory is committed as it is written. A text longer than a
 * place can address (1 MiB as UTF-8) is kept as a string under a negative place.
 */
export function createTextStore(): TextStore {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const arenas: Uint8Array[] = [];
  const long: string[] = [];
  let used = 0;
  let written = 0;
  return {
    write(text) {
      // UTF-8 takes at most 3 bytes per UTF-16 unit.
      const most = text.length * 3;
      if (most >= LENGTH_SPAN) return -long.push(text);
      if (arenas.length === 0 || used + most > ARENA_BYTES) {
        arenas.push(new Uint8Array(ARENA_BYTES));
        used = 0;
      }
      const { written: length } = encoder.encodeInto(text, (arenas[arenas.length - 1] as Uint8Array).subarray(used));
      const place = ((arenas.length - 1) * OFFSET_SPAN + used) * LENGTH_SPAN + length;
      used += length;
      written += length;
      return place;
    },
    read(place) {
      if (place < 0) return long[-place - 1] as string;
      const length = place % LENGTH_SPAN;
      const at = (place - length) / LENGTH_SPAN;
      const offset = at % OFFSET_SPAN;
      return decoder.decode((arenas[(at - offset) / OFFSET_SPAN] as Uint8Array).subarray(offset, offset + length));
    },
    get bytes() {
      return written;
    },
  };
}

/** Quiet transactions by id. */
export interface TransactionArchive {
  /**
   * Keeps the JSON text a request was parsed from, as soon as it is accepted: it is archived with
   * its transaction later without being written again, and no line stays on the heap meanwhile.
   */
  keepText(text: string): number;
  /** Archives `record` under its id (its current state is not kept: folding its events gives it back). */
  archive(record: ReplayedTransaction): void;
  /** The request of an archived transaction (for a replay of its creation), without restoring it. */
  request(transactionId: string): Transaction | undefined;
  /** An archived transaction out of the archive, as it was when it went quiet, touched at `now`. */
  restore(transactionId: string, now: number): ReplayedTransaction | undefined;
}

/** The archived form besides the request: the events in arrival order, the ids filled in, the hit positions. */
interface ArchivedRest {
  readonly e: TransactionEvent[];
  /** Per event whose id was filled in (not the client's): its position in `e`, then that id. */
  readonly f: readonly (number | string)[];
  /** Positions of the instances that hit it. */
  readonly h: readonly number[];
  readonly p: number;
}

/** The text of what `record` keeps besides its request. */
function restOf(record: ReplayedTransaction): string {
  const filled: (number | string)[] = [];
  record.events.forEach(({ event }, position) => {
    const id = event.eventId as string;
    if (record.clientEventIds?.has(id) !== true) filled.push(position, id);
  });
  const hits: number[] = [];
  if (record.hits !== null) for (let position = 0; position < record.hits.length; position++) if (record.hits[position] === 1) hits.push(position);
  return `{"e":${JSON.stringify(record.events.map((e) => e.event))},"f":${JSON.stringify(filled)},"h":[${hits.join(',')}],"p":${record.newParties}}`;
}

/** The rest of a transaction with no event and no hit. */
const BARE_REST: ArchivedRest = Object.freeze({ e: [], f: [], h: [], p: 0 });

/**
 * A {@link TransactionArchive} over a {@link TextStore}. Per transaction one number: for one with
 * events or hits, the place of one text (the place of its request's text, a space, the rest as
 * JSON); for one with neither — most of them — its request's place itself, negated (−1 − place), so
 * nothing more is written. A restored transaction's bytes stay behind until the end (one restored
 * and archived again is written again).
 */
export function createTransactionArchive(options: { readonly instanceCount: number; readonly transitions: TransitionTable }): TransactionArchive {
  const texts = createTextStore();
  const places = new Map<string, number>();
  /** The request's place and the rest's text (`null`: bare) of an archived transaction's number. */
  const partsOf = (entry: number): { requestPlace: number; rest: string | null } => {
    if (entry < 0) return { requestPlace: -1 - entry, rest: null };
    const text = texts.read(entry);
    const space = text.indexOf(' ');
    return { requestPlace: Number(text.slice(0, space)), rest: text.slice(space + 1) };
  };
  return {
    keepText: (text) => texts.write(text),
    archive(record) {
      const requestPlace = record.requestPlace ?? texts.write(JSON.stringify(record.request));
      const bare = record.events.length === 0 && record.hits === null && record.newParties === 0 && requestPlace >= 0;
      places.set(record.request.transactionId, bare ? -1 - requestPlace : texts.write(`${requestPlace} ${restOf(record)}`));
    },
    request(transactionId) {
      const entry = places.get(transactionId);
      return entry === undefined ? undefined : (JSON.parse(texts.read(partsOf(entry).requestPlace)) as Transaction);
    },
    restore(transactionId, now) {
      const entry = places.get(transactionId);
      if (entry === undefined) return undefined;
      places.delete(transactionId);
      const { requestPlace, rest } = partsOf(entry);
      const request = JSON.parse(texts.read(requestPlace)) as Transaction;
      return restored(request, requestPlace, rest === null ? BARE_REST : (JSON.parse(rest) as ArchivedRest), options.instanceCount, options.transitions, now);
    },
  };
}

function restored(
  request: Transaction,
  requestPlace: number,
  rest: ArchivedRest,
  instanceCount: number,
  transitions: TransitionTable,
  now: number,
): ReplayedTransaction {
  const filled = new Set<number>();
  for (let i = 0; i < rest.f.length; i += 2) filled.add(rest.f[i] as number);
  const events: SequencedEvent[] = rest.e.map((event, arrival) => ({ event, arrival }));
  const base = initialTransaction(request);
  let lastEventTimestamp: number | null = null;
  for (const { event } of events) lastEventTimestamp = Math.max(lastEventTimestamp ?? Number.NEGATIVE_INFINITY, event.timestamp);
  let hits: Uint8Array | null = null;
  if (rest.h.length > 0) {
    hits = new Uint8Array(instanceCount);
    for (const position of rest.h) hits[position] = 1;
  }
  const clientIds = rest.e.flatMap((event, position) => (filled.has(position) ? [] : [event.eventId as string]));
  return {
    request,
    requestPlace,
    // The events were accepted in this order, so their fold is the state they left.
    current: events.length === 0 ? base : foldTransactionEvents(base, events, { transitions }),
    events,
    clientEventIds: clientIds.length === 0 ? null : new Set(clientIds),
    lastEventTimestamp,
    touchedAt: now,
    hits,
    newParties: rest.p,
  };
}
