/**
 * The outbox through the engine, on memory, PGlite and PostgreSQL: what each change reports, in
 * the order written, and subscriptions that deliver every message once in order, retry a failing
 * one with back-off, give up on it as a dead letter, and take turns by lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type StoredOutboxMessage } from '../../../src/index.js';
import { ADAPTER_TARGETS, type AdapterDatabase } from '../../adapters.js';
import { T0, errorOf, fixedClock, sequentialIds, tx } from '../../helpers.js';

/** Resolves once `check` holds, looking every few milliseconds (at most `tries` times). */
async function until(check: () => boolean | Promise<boolean>, tries = 2_000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the condition never held');
}

const FAST = { pollMs: 5, retry: { initialDelayMs: 1, maxDelayMs: 4, maxAttempts: 3 } } as const;

describe.each(ADAPTER_TARGETS)('the outbox on $name', (target) => {
  let db: AdapterDatabase;
  beforeAll(async () => {
    db = await target.open();
  });
  afterAll(async () => {
    await db?.close();
  });

  async function engineOn() {
    const repositories = await db.fresh();
    const engine = createEngine({ repositories, clock: fixedClock(), ids: sequentialIds() });
    const big = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 500 } }, action: 'SUSPEND' });
    return { engine, big };
  }

  const large = (id: string, n = 0) =>
    tx({ transactionId: id, timestamp: T0 + n, originUserId: 'alice', originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' } });

  it('reports a result other than ALLOW, the case and alert it opened, alert and case status changes and rule instance changes, in the order written; an ALLOW result reports nothing', async () => {
    const { engine, big } = await engineOn();
    await engine.createTransaction(tx({ transactionId: 'small', originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' } }));
    await engine.createTransaction(large('t-1', 1));
    const [alert] = await engine.listAlerts();
    await engine.changeAlertStatus(alert?.alertId as string, { status: 'IN_PROGRESS' });
    await engine.changeCaseStatus(alert?.caseId as string, { status: 'CLOSED', reason: ['FALSE_POSITIVE'] });
    await engine.updateRuleInstance(big.id, { action: 'BLOCK' });
    await engine.deleteRuleInstance(big.id);
    const { messages, head } = await engine.outbox.read();
    expect(head).toBe(10);
    expect(messages.map((m) => [m.seq, m.type, m.entityId])).toEqual([
      [1, 'RULE_INSTANCE_CHANGED', big.id],
      [2, 'TRANSACTION_DECISION', 't-1'],
      [3, 'CASE_OPENED', alert?.caseId],
      [4, 'ALERT_OPENED', alert?.alertId],
      // The receiver's side hit too: its own case and alert.
      [5, 'CASE_OPENED', expect.any(String)],
      [6, 'ALERT_OPENED', expect.any(String)],
      [7, 'ALERT_STATUS_CHANGED', alert?.alertId],
      [8, 'CASE_STATUS_CHANGED', alert?.caseId],
      [9, 'RULE_INSTANCE_CHANGED', big.id],
      [10, 'RULE_INSTANCE_CHANGED', big.id],
    ]);
    expect(messages[1]?.data).toMatchObject({
      transactionId: 't-1',
      originUserId: 'alice',
      status: 'SUSPEND',
      hitRules: [{ ruleInstanceId: big.id, ruleAction: 'SUSPEND' }],
    });
    expect(messages[2]?.data).toEqual({ caseId: alert?.caseId, userId: 'alice', alertId: alert?.alertId, transactionId: 't-1' });
    expect(messages[3]?.data).toEqual({
      alertId: alert?.alertId,
      caseId: alert?.caseId,
      ruleInstanceId: big.id,
      userId: 'alice',
      direction: 'ORIGIN',
      transactionId: 't-1',
    });
    expect(messages[5]?.data).toMatchObject({ userId: 'bob', direction: 'DESTINATION' });
    expect(messages[6]?.data).toMatchObject({ alertId: alert?.alertId, from: 'OPEN', status: 'IN_PROGRESS' });
    expect(messages[7]?.data).toMatchObject({ caseId: alert?.caseId, status: 'CLOSED', reason: ['FALSE_POSITIVE'], closesOpenAlerts: true });
    expect(messages.slice(8).map((m) => m.data.action)).toEqual(['UPDATED', 'DELETED']);
    expect((await engine.outbox.read({ after: 8, limit: 1 })).messages.map((m) => m.seq)).toEqual([9]);
  });

  it('a subscription delivers every message once, in order, retrying a failing one until it succeeds', async () => {
    const { engine } = await engineOn();
    for (let i = 1; i <= 5; i++) await engine.createTransaction(large(`t-${i}`, i));
    const head = await engine.outbox.head();
    const seen: number[] = [];
    let failures = 0;
    const retries: { seq: number; attempts: number; lastError: string }[] = [];
    const sub = engine.outbox.subscribe(
      'host',
      (m: StoredOutboxMessage) => {
        if (m.seq === 3 && failures < 2) {
          failures += 1;
          throw new Error('receiver down');
        }
        seen.push(m.seq);
      },
      { ...FAST, onRetry: ({ seq, attempts, lastError }) => retries.push({ seq, attempts, lastError }) },
    );
    try {
      await until(() => seen.length === head);
    } finally {
      await sub.stop();
    }
    expect(seen).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    expect(failures).toBe(2);
    expect(retries).toEqual([
      { seq: 3, attempts: 1, lastError: 'Error: receiver down' },
      { seq: 3, attempts: 2, lastError: 'Error: receiver down' },
    ]);
    expect(await engine.outbox.getConsumer('host')).toMatchObject({ position: head, attempts: 0, lastError: null, deadLetters: 0 });
  });

  it('a message that keeps failing becomes a dead letter after maxAttempts, and delivery goes on', async () => {
    const { engine } = await engineOn();
    for (let i = 1; i <= 2; i++) await engine.createTransaction(large(`t-${i}`, i));
    const head = await engine.outbox.head();
    const seen: number[] = [];
    const sub = engine.outbox.subscribe(
      'host',
      (m: StoredOutboxMessage) => {
        if (m.seq === 2) throw new Error('HTTP 500');
        seen.push(m.seq);
      },
      FAST,
    );
    try {
      await until(() => seen.length === head - 1);
    } finally {
      await sub.stop();
    }
    expect(seen).toEqual(Array.from({ length: head }, (_, i) => i + 1).filter((seq) => seq !== 2));
    expect(await engine.outbox.listDeadLetters('host')).toMatchObject([{ consumer: 'host', seq: 2, attempts: 3, lastError: 'Error: HTTP 500' }]);
    expect(await engine.outbox.getConsumer('host')).toMatchObject({ position: head, deadLetters: 1 });
  });

  it('two subscriptions of one consumer take turns: each message is delivered once', async () => {
    const { engine } = await engineOn();
    const seen: number[] = [];
    const handler = (m: StoredOutboxMessage) => {
      seen.push(m.seq);
    };
    const a = engine.outbox.subscribe('shared', handler, { ...FAST, leaseMs: 60_000 });
    const b = engine.outbox.subscribe('shared', handler, { ...FAST, leaseMs: 60_000 });
    try {
      for (let i = 1; i <= 6; i++) await engine.createTransaction(large(`t-${i}`, i));
      const head = await engine.outbox.head();
      await until(() => seen.length >= head);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('acknowledge moves a reader’s position, never back; a subscription’s consumer refuses another reader', async () => {
    const { engine } = await engineOn();
    await engine.outbox.acknowledge('reader', 4);
    await engine.outbox.acknowledge('reader', 2);
    expect((await engine.outbox.getConsumer('reader')).position).toBe(4);
    expect(await errorOf(() => engine.outbox.getConsumer('nobody'))).toMatchObject({ code: 'CONSUMER_NOT_FOUND' });
    const sub = engine.outbox.subscribe('busy', () => undefined, { ...FAST, leaseMs: 60_000 });
    try {
      await until(async () => (await engine.outbox.listConsumers()).some((c) => c.name === 'busy'));
      expect(await errorOf(() => engine.outbox.acknowledge('busy', 1))).toMatchObject({ code: 'CONCURRENT_UPDATE' });
    } finally {
      await sub.stop();
    }
    expect(await errorOf(() => engine.outbox.read({ limit: 0 }))).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/limit' }] });
  });
});
