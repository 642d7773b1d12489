import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TRANSITIONS,
  TRANSACTION_STATES,
  applyTransactionEvent,
  foldTransactionEvents,
  initialTransaction,
  isTransitionAllowed,
  orderEvents,
  type Transaction,
  type TransactionEvent,
  type TransactionState,
  type TransitionTable,
} from '../../../src/internals.js';
import { isInitialTransaction } from '../../../src/engine/pipeline/apply-event.js';
import { T0 } from '../../helpers.js';

function base(overrides: Partial<Transaction> & Record<string, unknown> = {}): Transaction {
  return {
    type: 'TRANSFER',
    transactionId: 'tx-1',
    timestamp: T0,
    originUserId: 'alice',
    destinationUserId: 'bob',
    transactionState: 'CREATED',
    originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    reference: 'old',
    tags: [{ key: 'a', value: '1' }],
    customS: 'scalar',
    ...overrides,
  } as Transaction;
}

function event(transactionState: TransactionState, patch?: Record<string, unknown>, at = T0 + 1): TransactionEvent {
  const e: Record<string, unknown> = { transactionId: 'tx-1', timestamp: at, transactionState };
  if (patch !== undefined) e.updatedTransactionAttributes = patch;
  return e as unknown as TransactionEvent;
}

async function codeOf(fn: () => unknown): Promise<{ code: string; path: string | undefined } | null> {
  try {
    fn();
    return null;
  } catch (e) {
    const err = e as { code: string; details?: { path: string }[] };
    return { code: err.code, path: err.details?.[0]?.path };
  }
}

describe('applyTransactionEvent', () => {
  const mergeRows: { name: string; patch: Record<string, unknown>; expected: Record<string, unknown> }[] = [
    { name: 'a scalar replaces', patch: { reference: 'new' }, expected: { reference: 'new' } },
    { name: 'null removes a member', patch: { reference: null }, expected: { reference: undefined } },
    { name: 'null for an absent member is a no-op', patch: { productType: null }, expected: { productType: undefined } },
    {
      name: 'a nested object merges member by member',
      patch: { originAmountDetails: { country: 'AT' } },
      expected: { originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'AT' } },
    },
    {
      name: 'null inside a nested object removes only that member',
      patch: { originAmountDetails: { country: null } },
      expected: { originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' } },
    },
    { name: 'an array replaces, never merges', patch: { tags: [{ key: 'b', value: '2' }] }, expected: { tags: [{ key: 'b', value: '2' }] } },
    { name: 'an empty array replaces with empty', patch: { tags: [] }, expected: { tags: [] } },
    {
      name: 'an object onto an absent member creates it without null members',
      patch: { metadata: { a: 1, b: null, c: { d: null, e: 2 } } },
      expected: { metadata: { a: 1, c: { e: 2 } } },
    },
    { name: 'an object replaces a scalar (unknown field)', patch: { customS: { x: 1 } }, expected: { customS: { x: 1 } } },
    { name: 'an unknown extra field is added', patch: { customX: { y: [1, 2] } }, expected: { customX: { y: [1, 2] } } },
    { name: 'an empty patch changes only the state', patch: {}, expected: { reference: 'old' } },
    {
      name: 'an identity field with its current value is accepted',
      patch: { originUserId: 'alice', timestamp: T0 },
      expected: { originUserId: 'alice', timestamp: T0 },
    },
  ];
  for (const row of mergeRows) {
    it(`merges as RFC 7396: ${row.name}`, () => {
      const tx = base();
      const next = applyTransactionEvent(tx, event('PROCESSING', row.patch));
      expect(next.transactionState).toBe('PROCESSING');
      for (const [k, v] of Object.entries(row.expected)) {
        if (v === undefined) expect(k in next).toBe(false);
        else expect((next as Record<string, unknown>)[k]).toEqual(v);
      }
      expect(next.transactionId).toBe('tx-1');
    });
  }

  const immutableRows: { name: string; patch: Record<string, unknown>; path: string }[] = [
    { name: 'transactionId', patch: { transactionId: 'tx-2' }, path: '/updatedTransactionAttributes/transactionId' },
    { name: 'type', patch: { type: 'DEPOSIT' }, path: '/updatedTransactionAttributes/type' },
    { name: 'timestamp', patch: { timestamp: T0 + 1 }, path: '/updatedTransactionAttributes/timestamp' },
    { name: 'originUserId', patch: { originUserId: 'mallory' }, path: '/updatedTransactionAttributes/originUserId' },
    { name: 'destinationUserId', patch: { destinationUserId: 'mallory' }, path: '/updatedTransactionAttributes/destinationUserId' },
    { name: 'destinationUserId removed with null', patch: { destinationUserId: null }, path: '/updatedTransactionAttributes/destinationUserId' },
    { name: 'a contradicting transactionState', patch: { transactionState: 'SENT' }, path: '/updatedTransactionAttributes/transactionState' },
  ];
  for (const row of immutableRows) {
    it(`rejects a change of ${row.name} with IMMUTABLE_FIELD naming the field`, async () => {
      const tx = base();
      const copy = structuredClone(tx);
      expect(await codeOf(() => applyTransactionEvent(tx, event('PROCESSING', row.patch)))).toEqual({ code: 'IMMUTABLE_FIELD', path: row.path });
      expect(tx).toEqual(copy);
    });
  }

  const invalidMergeRows: { name: string; patch: Record<string, unknown>; path: string }[] = [
    { name: 'an object onto a string field', patch: { reference: { x: 1 } }, path: '/updatedTransactionAttributes/reference' },
    {
      name: 'null removing a required nested member',
      patch: { originAmountDetails: { transactionCurrency: null } },
      path: '/updatedTransactionAttributes/originAmountDetails/transactionCurrency',
    },
    {
      name: 'a partial amount object where there was none',
      patch: { destinationAmountDetails: { transactionAmount: 5 } },
      path: '/updatedTransactionAttributes/destinationAmountDetails/transactionCurrency',
    },
  ];
  for (const row of invalidMergeRows) {
    it(`rejects a merge that leaves an invalid transaction (${row.name}) with VALIDATION_FAILED naming the field`, async () => {
      const tx = base();
      const copy = structuredClone(tx);
      expect(await codeOf(() => applyTransactionEvent(tx, event('PROCESSING', row.patch)))).toEqual({ code: 'VALIDATION_FAILED', path: row.path });
      expect(tx).toEqual(copy);
    });
  }

  it('accepts a transactionState in the patch equal to the event state', () => {
    const next = applyTransactionEvent(base(), event('SENT', { transactionState: 'SENT' }));
    expect(next.transactionState).toBe('SENT');
  });

  // Every (from, to) pair of the default table.
  for (const from of TRANSACTION_STATES) {
    for (const to of TRANSACTION_STATES) {
      const allowed = from === to || DEFAULT_TRANSITIONS[from].includes(to);
      it(`${allowed ? 'allows' : 'rejects with 409'} ${from} → ${to}`, async () => {
        const tx = base({ transactionState: from });
        const result = await codeOf(() => applyTransactionEvent(tx, event(to)));
        if (allowed) expect(result).toBeNull();
        else expect(result).toEqual({ code: 'INVALID_STATE_TRANSITION', path: '/transactionState' });
        expect(isTransitionAllowed(DEFAULT_TRANSITIONS, from, to)).toBe(allowed);
      });
    }
  }

  it('treats a transaction without a state as CREATED', () => {
    const tx = base();
    delete (tx as { transactionState?: unknown }).transactionState;
    expect(applyTransactionEvent(tx, event('REFUNDED')).transactionState).toBe('REFUNDED');
  });

  it('uses a replacement transition table when given one', async () => {
    const strict: TransitionTable = { ...DEFAULT_TRANSITIONS, CREATED: ['PROCESSING'] };
    expect(await codeOf(() => applyTransactionEvent(base(), event('SUCCESSFUL'), { transitions: strict }))).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
    });
    expect(applyTransactionEvent(base(), event('PROCESSING'), { transitions: strict }).transactionState).toBe('PROCESSING');
  });

  it('does not mutate the transaction or the event, and shares no nested object it changed', () => {
    const tx = base();
    const ev = event('PROCESSING', { originAmountDetails: { country: 'AT' }, tags: [{ key: 'z', value: '9' }] });
    const [txCopy, evCopy] = [structuredClone(tx), structuredClone(ev)];
    const next = applyTransactionEvent(tx, ev);
    expect(tx).toEqual(txCopy);
    expect(ev).toEqual(evCopy);
    (next.originAmountDetails as Record<string, unknown>).country = 'XX';
    expect(tx.originAmountDetails?.country).toBe('DE');
  });

  it('works on a deep-frozen transaction and event', () => {
    const tx = deepFreeze(base());
    const ev = deepFreeze(event('PROCESSING', { originAmountDetails: { country: 'AT' }, reference: null }));
    const next = applyTransactionEvent(tx, ev);
    expect(next.originAmountDetails?.country).toBe('AT');
    expect('reference' in next).toBe(false);
  });
});

describe('orderEvents', () => {
  it('orders by timestamp, then by arrival, and returns a new array', () => {
    const input = [
      { event: event('SENT', undefined, T0 + 5), arrival: 0 },
      { event: event('PROCESSING', undefined, T0 + 1), arrival: 2 },
      { event: event('SUSPENDED', undefined, T0 + 1), arrival: 1 },
    ];
    const out = orderEvents(input);
    expect(out.map((e) => e.arrival)).toEqual([1, 2, 0]);
    expect(input.map((e) => e.arrival)).toEqual([0, 2, 1]);
  });

  it('orders fractional timestamps numerically', () => {
    const out = orderEvents([
      { event: event('SENT', undefined, T0 + 0.75), arrival: 0 },
      { event: event('SENT', undefined, T0 + 0.25), arrival: 1 },
    ]);
    expect(out.map((e) => e.arrival)).toEqual([1, 0]);
  });
});

describe('foldTransactionEvents', () => {
  it('folds events in timestamp order whatever the array order', () => {
    const events = [
      { event: event('SUCCESSFUL', { reference: 'third' }, T0 + 30), arrival: 0 },
      { event: event('PROCESSING', { reference: 'first' }, T0 + 10), arrival: 1 },
      { event: event('SENT', { reference: 'second', tags: [] }, T0 + 20), arrival: 2 },
    ];
    const out = foldTransactionEvents(base(), events);
    expect(out.transactionState).toBe('SUCCESSFUL');
    expect(out.reference).toBe('third');
    expect(out.tags).toEqual([]);
  });

  it('breaks a timestamp tie by arrival', () => {
    const events = [
      { event: event('PROCESSING', { reference: 'later arrival' }, T0 + 10), arrival: 1 },
      { event: event('PROCESSING', { reference: 'earlier arrival' }, T0 + 10), arrival: 0 },
    ];
    expect(foldTransactionEvents(base(), events).reference).toBe('later arrival');
  });

  it('returns the base itself for no events', () => {
    const b = base();
    expect(foldTransactionEvents(b, [])).toBe(b);
  });

  it('rejects a sequence that breaks the lifecycle once ordered, though the arrival order was fine', async () => {
    // Arrival: REFUNDED (t=30) then DECLINED (t=10); ordered: CREATED → DECLINED → REFUNDED (DECLINED is final).
    const events = [
      { event: event('REFUNDED', undefined, T0 + 30), arrival: 0 },
      { event: event('DECLINED', undefined, T0 + 10), arrival: 1 },
    ];
    expect(await codeOf(() => foldTransactionEvents(base(), events))).toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
  });

  it('starts from the base state named at creation', async () => {
    const events = [{ event: event('PROCESSING', undefined, T0 + 1), arrival: 0 }];
    expect(await codeOf(() => foldTransactionEvents(base({ transactionState: 'DECLINED' }), events))).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
    });
  });
});

describe('initialTransaction', () => {
  it('defaults the state to CREATED without touching the request', () => {
    const request = base();
    delete (request as { transactionState?: unknown }).transactionState;
    const out = initialTransaction(request);
    expect(out.transactionState).toBe('CREATED');
    expect('transactionState' in request).toBe(false);
  });

  it('keeps a state named in the request', () => {
    expect(initialTransaction(base({ transactionState: 'SENT' })).transactionState).toBe('SENT');
  });
});

describe('isInitialTransaction', () => {
  const request = (): Transaction => {
    const r = base();
    delete (r as { transactionState?: unknown }).transactionState;
    return r;
  };

  it('holds for what initialTransaction gives: the request with CREATED added last, or a request naming its state', () => {
    const r = request();
    expect(isInitialTransaction(initialTransaction(r), r)).toBe(true);
    const stated = base({ transactionState: 'SENT' });
    expect(isInitialTransaction(stated, stated)).toBe(true);
  });

  it('fails for another state, another member, another order, a copy of a request naming its state, or a request naming none as its own body', () => {
    const r = request();
    expect(isInitialTransaction({ ...r, transactionState: 'SENT' }, r)).toBe(false);
    expect(isInitialTransaction({ ...initialTransaction(r), reference: 'x' }, r)).toBe(false);
    expect(isInitialTransaction({ ...initialTransaction(r), type: 'DEPOSIT' }, r)).toBe(false);
    expect(isInitialTransaction({ transactionState: 'CREATED', ...r } as Transaction, r)).toBe(false);
    const stated = base({ transactionState: 'CREATED' });
    expect(isInitialTransaction({ ...stated }, stated)).toBe(false);
    expect(isInitialTransaction(r, r)).toBe(false);
  });
});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
