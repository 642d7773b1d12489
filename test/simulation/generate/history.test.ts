import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import type { TransactionState } from '../../../src/domain/index.js';
import { DEFAULT_TRANSITIONS, isTransitionAllowed } from '../../../src/engine/pipeline/lifecycle.js';
import { createEngine } from '../../../src/index.js';
import { TYPOLOGIES, createSyntheticData, type HistoryRecord } from '../../../src/simulation/generate/index.js';
import { formatHistoryLine } from '../../../src/simulation/generate/output.js';
import { collectRun } from './run.js';

const SMALL = { users: 1000, days: 30, seed: 42 } as const;

const timestampOf = (r: HistoryRecord) => (r.kind === 'transaction' ? r.transaction.timestamp : r.event.timestamp);

/** Problems with the order, ids and lifecycles of a history; empty when all is well. */
function historyProblems(records: Iterable<HistoryRecord>, start: number, end: number): string[] {
  const problems: string[] = [];
  const states = new Map<string, { state: TransactionState; timestamp: number }>();
  let last = start;
  let transactions = 0;
  let events = 0;
  for (const r of records) {
    const t = timestampOf(r);
    if (t < last) problems.push(`out of order at ${t}`);
    if (t >= end) problems.push(`after the end: ${t}`);
    last = t;
    if (r.kind === 'transaction') {
      transactions += 1;
      const id = r.transaction.transactionId;
      if (id !== `t-${String(transactions).padStart(7, '0')}`) problems.push(`transaction id ${id}`);
      states.set(id, { state: r.transaction.transactionState ?? 'CREATED', timestamp: t });
      continue;
    }
    events += 1;
    if (r.event.eventId !== `e-${String(events).padStart(7, '0')}`) problems.push(`event id ${r.event.eventId}`);
    const current = states.get(r.event.transactionId);
    if (current === undefined) problems.push(`event ${r.event.eventId} before its transaction`);
    else if (current.timestamp >= t) problems.push(`event ${r.event.eventId} not after its transaction`);
    else if (!isTransitionAllowed(DEFAULT_TRANSITIONS, current.state, r.event.transactionState))
      problems.push(`${current.state} → ${r.event.transactionState}`);
    else states.set(r.event.transactionId, { state: r.event.transactionState, timestamp: t });
  }
  return problems;
}

describe('createSyntheticData().history()', () => {
  const run = collectRun(SMALL);
  const end = run.data.options.start + SMALL.days * 86_400_000;

  it('is the same, byte for byte, for the same options, and another for another seed', () => {
    const again = [...createSyntheticData(SMALL).history()].map(formatHistoryLine).join('');
    expect(again === run.text).toBe(true);
    const other = [...createSyntheticData({ ...SMALL, seed: 43 }).history()].map(formatHistoryLine).join('');
    expect(other === run.text).toBe(false);
    expect([...run.data.users()]).toEqual([...createSyntheticData(SMALL).users()]);
  });

  it('is in time order, inside the history, with ids given in that order and lifecycle-valid events after their transaction', () => {
    expect(historyProblems(run.records, run.data.options.start, end)).toEqual([]);
  });

  it('has the size the model promises: about 1.25 operations per customer and day, a quarter of them events', () => {
    const operations = run.records.length;
    expect(operations).toBeGreaterThan(0.8 * SMALL.users * SMALL.days);
    expect(operations).toBeLessThan(1.8 * SMALL.users * SMALL.days);
    expect(run.events.length / operations).toBeGreaterThan(0.15);
    expect(run.events.length / operations).toBeLessThan(0.4);
  });

  it('mixes currencies, countries, methods, types and states, with declines and amount corrections', () => {
    const distinct = (f: (t: (typeof run.transactions)[number]) => unknown) => new Set(run.transactions.map(f));
    expect(distinct((t) => t.originAmountDetails?.transactionCurrency).size).toBeGreaterThanOrEqual(6);
    expect(distinct((t) => t.destinationAmountDetails?.country).size).toBeGreaterThanOrEqual(15);
    expect(distinct((t) => t.type)).toEqual(new Set(['DEPOSIT', 'WITHDRAWAL', 'TRANSFER', 'EXTERNAL_PAYMENT']));
    expect(distinct((t) => t.originPaymentDetails?.method)).toEqual(new Set(['CARD', 'IBAN', 'ACH', 'CASH', 'SWIFT']));
    const eventStates = new Set(run.events.map((e) => e.transactionState));
    for (const state of ['SUCCESSFUL', 'DECLINED', 'PROCESSING', 'SENT', 'SUSPENDED', 'REFUNDED']) expect(eventStates).toContain(state);
    expect(run.events.some((e) => e.updatedTransactionAttributes?.originAmountDetails !== undefined)).toBe(true);
  });

  it('gives every customer and every transaction an id of one shape, whatever its part', () => {
    for (const user of run.data.users()) expect(user.userId).toMatch(/^u-\d{6}$/);
    for (const t of run.transactions) {
      expect(t.transactionId).toMatch(/^t-\d{7}$/);
      for (const id of [t.originUserId, t.destinationUserId]) if (id !== undefined) expect(id).toMatch(/^u-\d{6}$/);
    }
  });

  it('labels only existing users and transactions, every typology, and keeps labels out of the history text', () => {
    const userIds = new Set([...run.data.users()].map((u) => u.userId));
    const transactionIds = new Set(run.transactions.map((t) => t.transactionId));
    for (const label of run.labels) expect(label.level === 'user' ? userIds.has(label.id) : transactionIds.has(label.id)).toBe(true);
    expect(new Set(run.labels.map((l) => l.typology))).toEqual(new Set(TYPOLOGIES));
    for (const word of [...TYPOLOGIES, 'mule', 'smurf', 'launder', 'scheme', 'typology', '"label"', ...run.data.schemes.map((s) => `"${s.scheme}"`)]) {
      expect(run.text.includes(word), word).toBe(false);
    }
  });

  it('is accepted by the engine, line by line, after its users (a small run)', async () => {
    const small = createSyntheticData({ users: 150, days: 14, seed: 5 });
    const engine = createEngine();
    for (const user of small.users()) await engine.createUser(user);
    let written = 0;
    for (const record of small.history()) {
      if (record.kind === 'transaction') await engine.createTransaction(record.transaction);
      else await engine.createTransactionEvent(record.event);
      written += 1;
    }
    expect(written).toBeGreaterThan(1500);
  });
});

describe('properties', () => {
  test.prop([fc.nat({ max: 2 ** 40 }), fc.integer({ min: 14, max: 20 }), fc.integer({ min: 100, max: 160 })], { numRuns: 8 })(
    'for any seed and size, the history is time-ordered, inside its window and lifecycle-valid',
    (seed, days, users) => {
      const data = createSyntheticData({ users, days, seed });
      expect(historyProblems(data.history(), data.options.start, data.options.start + days * 86_400_000)).toEqual([]);
    },
  );
});
