/**
 * The archive of quiet transactions: the text store gives back exactly what was written (any
 * Unicode, texts too long to pack included), and an archived transaction comes back with its
 * request, its events in arrival order, which ids the client gave, its current state and its hit
 * flags — whether its request's text was kept on arrival or written when archived.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { applyTransactionEvent, initialTransaction } from '../../src/engine/pipeline/apply-event.js';
import { DEFAULT_TRANSITIONS } from '../../src/engine/pipeline/lifecycle.js';
import { createTextStore, createTransactionArchive, type ReplayedTransaction } from '../../src/simulation/archive.js';
import { T0, tx } from '../helpers.js';

describe('createTextStore', () => {
  test.prop([fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 50 })])('reads back each text as written, the empty one included', (texts) => {
    const store = createTextStore();
    const places = texts.map((text) => store.write(text));
    expect(places.map((place) => store.read(place))).toEqual(texts);
  });

  it('keeps a text too long to pack as a string, beside packed ones, and counts the bytes it packed', () => {
    const store = createTextStore();
    const long = `é${'x'.repeat(400_000)}€`;
    const short = store.write('ü');
    const place = store.write(long);
    expect(store.read(place)).toBe(long);
    expect(store.read(short)).toBe('ü');
    expect(store.bytes).toBe(2);
  });
});

/** A transaction that received two events (one id from the client, one filled in) and hit instances 1 and 4 of 5. */
function twoEvents(requestPlace: number | null): ReplayedTransaction {
  const request = tx({ transactionId: 'q1', timestamp: T0, reference: 'naïve ✓' });
  const first = { transactionId: 'q1', eventId: 'client-1', timestamp: T0 + 1, transactionState: 'PROCESSING' as const };
  const second = { transactionId: 'q1', eventId: 'event-7', timestamp: T0 + 2, transactionState: 'SUCCESSFUL' as const };
  const current = applyTransactionEvent(applyTransactionEvent(initialTransaction(request as never), first as never), second as never);
  const hits = new Uint8Array(5);
  hits[1] = 1;
  hits[4] = 1;
  return {
    request: request as never,
    requestPlace,
    current,
    events: [
      { event: first as never, arrival: 0 },
      { event: second as never, arrival: 1 },
    ],
    clientEventIds: new Set(['client-1']),
    lastEventTimestamp: T0 + 2,
    touchedAt: T0 + 2,
    hits,
    newParties: 2,
  };
}

describe('createTransactionArchive', () => {
  const options = { instanceCount: 5, transitions: DEFAULT_TRANSITIONS };

  it('brings back the request, the events in order, the client ids, the current state and the hits', () => {
    const archive = createTransactionArchive(options);
    const record = twoEvents(null);
    archive.archive(record);
    expect(archive.request('q1')).toEqual(record.request);
    const back = archive.restore('q1', T0 + 99);
    expect(back).toEqual({ ...record, requestPlace: expect.any(Number), touchedAt: T0 + 99 });
    // Restored, it is no longer in the archive.
    expect(archive.restore('q1', T0 + 99)).toBeUndefined();
    expect(archive.request('q1')).toBeUndefined();
  });

  it('archives a request from the text kept when it arrived, and a transaction with no event and no hit', () => {
    const archive = createTransactionArchive(options);
    const request = tx({ transactionId: 'q2', timestamp: T0 });
    const record: ReplayedTransaction = {
      request: request as never,
      requestPlace: archive.keepText(` ${JSON.stringify(request)}\t`),
      current: initialTransaction(request as never),
      events: [],
      clientEventIds: null,
      lastEventTimestamp: null,
      touchedAt: T0,
      hits: null,
      newParties: 0,
    };
    archive.archive(record);
    expect(archive.restore('q2', T0)).toEqual(record);
  });

  it('knows nothing of a transaction never archived', () => {
    const archive = createTransactionArchive(options);
    expect(archive.request('missing')).toBeUndefined();
    expect(archive.restore('missing', T0)).toBeUndefined();
  });
});
