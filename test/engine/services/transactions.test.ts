import { describe, expect, it } from 'vitest';
import { T0, errorOf, testEngine, tx, type TransactionEventInput } from '../../helpers.js';

describe('createTransaction and createTransactionEvent under concurrency', () => {
  it('evaluates concurrent transactions of one user one after the other (a split payment cannot evade R-69 or R-1)', async () => {
    const run = async (parallel: boolean) => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { USD: 5000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
      });
      await engine.createRuleInstance({ ruleId: 'R-1' });
      const bodies = Array.from({ length: 10 }, (_, i) =>
        tx({ transactionId: `split-${i}`, timestamp: T0 + i, originAmountDetails: { transactionAmount: 1000, transactionCurrency: 'USD' } }),
      );
      const results = parallel
        ? await Promise.all(bodies.map((b) => engine.createTransaction(b)))
        : await (async () => {
            const out = [];
            for (const b of bodies) out.push(await engine.createTransaction(b));
            return out;
          })();
      const count = (ruleId: string) => results.filter((r) => r.hitRules.some((h) => h.ruleId === ruleId)).length;
      return { r69: count('R-69'), r1: count('R-1') };
    };
    const sequential = await run(false);
    expect(sequential).toEqual({ r69: 6, r1: 1 });
    expect(await run(true)).toEqual(sequential);
  });

  it('many operations in flight at once, contending for their users, decide as one after the other', async () => {
    // 150 transactions started together over 25 senders and 10 receivers, then 60 events: hundreds
    // of lock keys held at once, with waiters on most of them.
    const run = async (parallel: boolean) => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { USD: 2500 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
      });
      await engine.createRuleInstance({
        ruleId: 'R-30',
        parameters: { transactionsLimit: 4, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
      });
      await engine.createRuleInstance({ ruleId: 'R-1' });
      const bodies = Array.from({ length: 150 }, (_, i) =>
        tx({
          transactionId: `many-${i}`,
          timestamp: T0 + i,
          originUserId: `sender-${i % 25}`,
          destinationUserId: `receiver-${i % 10}`,
          originAmountDetails: { transactionAmount: 700 + i, transactionCurrency: 'USD' },
        }),
      );
      const events = Array.from(
        { length: 60 },
        (_, i): TransactionEventInput => ({
          transactionId: `many-${(i * 7) % 150}`,
          eventId: `many-event-${i}`,
          timestamp: T0 + 1000 + i,
          transactionState: 'SUCCESSFUL',
          updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 10 + i, transactionCurrency: 'USD' } },
        }),
      );
      const summary = (r: { hitRules: readonly { ruleInstanceId: string }[]; status: string }) =>
        `${r.status}:${r.hitRules.map((h) => h.ruleInstanceId).join(',')}`;
      let created: string[];
      let updated: string[];
      if (parallel) {
        created = (await Promise.all(bodies.map((b) => engine.createTransaction(b)))).map(summary);
        updated = (await Promise.all(events.map((e) => engine.createTransactionEvent(e)))).map(summary);
      } else {
        created = [];
        for (const b of bodies) created.push(summary(await engine.createTransaction(b)));
        updated = [];
        for (const e of events) updated.push(summary(await engine.createTransactionEvent(e)));
      }
      const counters = (await engine.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]);
      return { created, updated, counters };
    };
    const sequential = await run(false);
    expect(sequential.created.filter((s) => s !== 'ALLOW:').length).toBeGreaterThan(100);
    expect(await run(true)).toEqual(sequential);
  });

  it('reports CRA values that match what is stored when one user transacts concurrently', async () => {
    const factor = {
      id: 'c',
      parameter: 'originCountry' as const,
      weight: 1,
      mapping: [
        { values: ['IR'], riskLevel: 'VERY_HIGH' as const },
        { values: ['DE'], riskLevel: 'VERY_LOW' as const },
      ],
    };
    const { engine } = testEngine({ riskFactors: [factor] });
    const [a, b] = await Promise.all([
      engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'IR' } })),
      engine.createTransaction(tx({ timestamp: T0 + 1, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'DE' } })),
    ]);
    const stored = (await engine.repositories.users.getUser('alice'))?.craScore;
    expect([a.riskScoreDetails?.originUserCraRiskScore, b.riskScoreDetails?.originUserCraRiskScore]).toContain(stored);
    expect(stored).toBe(50);
  });
});

describe('createTransactionEvent after a list change', () => {
  it('an event after a list change re-evaluates with the new list; replays (create and event) return what was stored', async () => {
    const { engine } = testEngine();
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['carol'] });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' } });
    const t = tx();
    const created = await engine.createTransaction(t);
    expect(created.status).toBe('ALLOW');
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    const ev: TransactionEventInput = { transactionId: t.transactionId, eventId: 'e-1', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' };
    const after = await engine.createTransactionEvent(ev);
    expect(after.status).toBe('BLOCK');
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: [] });
    expect((await engine.createTransaction(t)).status).toBe('ALLOW');
    expect((await engine.createTransactionEvent(ev)).status).toBe('BLOCK');
    expect((await engine.getTransaction(t.transactionId as string)).status).toBe('BLOCK');
  });
});

describe('reserved result fields in requests', () => {
  const fields = ['status', 'executedRules', 'hitRules', 'riskScoreDetails', 'alerts'];
  for (const field of fields) {
    it(`rejects a transaction carrying "${field}" with 400 at /${field}, and an event patch carrying it`, async () => {
      const { engine } = testEngine();
      const e = await errorOf(() => engine.createTransaction(tx({ transactionId: 'r-1', [field]: { spoofed: true } })));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details[0]).toMatchObject({ path: `/${field}`, code: 'reserved' });
      await expect(engine.getTransaction('r-1')).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
      await engine.createTransaction(tx({ transactionId: 'r-2' }));
      const e2 = await errorOf(() =>
        engine.createTransactionEvent({ transactionId: 'r-2', timestamp: T0 + 1, transactionState: 'SENT', updatedTransactionAttributes: { [field]: 1 } }),
      );
      expect(e2.details[0]).toMatchObject({ path: `/updatedTransactionAttributes/${field}`, code: 'reserved' });
      expect((await engine.getTransaction('r-2')).transactionState).toBe('CREATED');
    });
  }
});

describe('createTransaction validateOriginUserId / validateDestinationUserId', () => {
  it.each([
    ['validateOriginUserId', 'originUserId'],
    ['validateDestinationUserId', 'destinationUserId'],
  ] as const)('%s: an unknown user is refused with 400 at /%s and nothing is stored', async (flag, field) => {
    const { engine } = testEngine();
    const t = tx();
    const error = await errorOf(() => engine.createTransaction(t, { [flag]: true }));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(error.details[0]).toMatchObject({ path: `/${field}`, code: 'not-found' });
    await expect(engine.getTransaction(t.transactionId as string)).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
  });

  it('a party only seen in an earlier transaction is not a created user; a created one passes', async () => {
    const { engine } = testEngine();
    await engine.createTransaction(tx());
    await expect(engine.createTransaction(tx(), { validateOriginUserId: true })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 });
    await engine.createUser({ userId: 'bob', createdTimestamp: T0 });
    await expect(engine.createTransaction(tx(), { validateOriginUserId: true, validateDestinationUserId: true })).resolves.toMatchObject({ status: 'ALLOW' });
  });

  it('an absent party and a false flag are not checked', async () => {
    const { engine } = testEngine();
    await expect(engine.createTransaction(tx({ destinationUserId: undefined }), { validateDestinationUserId: true })).resolves.toMatchObject({
      status: 'ALLOW',
    });
    await expect(engine.createTransaction(tx(), { validateOriginUserId: false })).resolves.toMatchObject({ status: 'ALLOW' });
  });
});
