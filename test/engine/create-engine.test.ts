import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, errorOf, testEngine, tx, type CommentInput, type RiskLevel, type TransactionEventInput } from '../helpers.js';

describe('createEngine', () => {
  it('answers ALLOW with empty rule lists when no instance exists', async () => {
    const { engine } = testEngine();
    const t = tx();
    const r = await engine.createTransaction(t);
    expect(r).toEqual({ transactionId: t.transactionId, status: 'ALLOW', executedRules: [], hitRules: [] });
  });

  it('returns the stored transaction with state CREATED and its latest result', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    const got = await engine.getTransaction(t.transactionId as string);
    expect(got.transactionState).toBe('CREATED');
    expect(got.status).toBe('ALLOW');
    expect(got.originAmountDetails).toEqual(t.originAmountDetails);
  });

  it('keeps unknown extra fields of a transaction and round-trips them', async () => {
    const { engine } = testEngine();
    const t = tx({ customerSegmentX: { tier: 'gold' } });
    await engine.createTransaction(t);
    const got = (await engine.getTransaction(t.transactionId as string)) as unknown as Record<string, unknown>;
    expect(got.customerSegmentX).toEqual({ tier: 'gold' });
  });

  it('does not keep a reference to the caller input (later mutation changes nothing)', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    (t.originAmountDetails as Record<string, unknown>).transactionAmount = 999_999;
    const got = await engine.getTransaction(t.transactionId as string);
    expect(got.originAmountDetails?.transactionAmount).toBe(100);
  });
});

describe('createTransaction with R-2', () => {
  const rows = [
    { name: 'exactly at the threshold hits (≥)', amount: 10000, hit: true },
    { name: 'one minor unit below does not hit', amount: 9999.99, hit: false },
    { name: 'one minor unit above hits', amount: 10000.01, hit: true },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
      const r = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: row.amount, transactionCurrency: 'EUR' } }));
      expect(r.hitRules.length).toBe(row.hit ? 1 : 0);
      expect(r.status).toBe(row.hit ? 'SUSPEND' : 'ALLOW');
      expect(r.executedRules).toHaveLength(1);
      expect(r.executedRules[0]).toMatchObject({ ruleId: 'R-2', ruleHit: row.hit, ruleAction: 'SUSPEND', nature: 'AML', isShadow: false });
      if (row.hit) expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN', 'DESTINATION']);
    });
  }
});

describe('idempotency of createTransaction', () => {
  it('replays the stored result for the same payload without counting again', async () => {
    const { engine } = testEngine();
    const ri = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    const t = tx();
    const first = await engine.createTransaction(t);
    const again = await engine.createTransaction({ ...t });
    expect(again).toEqual(first);
    const inst = await engine.getRuleInstance(ri.id);
    expect(inst.runCount).toBe(1);
    expect(inst.hitCount).toBe(1);
  });

  it('rejects a different payload with 409 TRANSACTION_ID_CONFLICT and stores nothing', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    const e = await errorOf(() => engine.createTransaction({ ...t, reference: 'changed' }));
    expect(e.code).toBe('TRANSACTION_ID_CONFLICT');
    expect(e.status).toBe(409);
    const got = await engine.getTransaction(t.transactionId as string);
    expect(got.reference).toBeUndefined();
  });
});

describe('createTransactionEvent', () => {
  it('moves the state, merges attributes (RFC 7396) and returns the updated transaction', async () => {
    const { engine } = testEngine();
    const t = tx({ tags: [{ key: 'a', value: '1' }], reference: 'old' });
    await engine.createTransaction(t);
    const r = await engine.createTransactionEvent({
      transactionId: t.transactionId,
      timestamp: T0 + 1000,
      transactionState: 'SUCCESSFUL',
      eventId: 'e-1',
      updatedTransactionAttributes: { reference: null, tags: [{ key: 'b', value: '2' }], originAmountDetails: { country: 'AT' } },
    });
    expect(r.eventId).toBe('e-1');
    expect(r.transaction.transactionState).toBe('SUCCESSFUL');
    expect(r.transaction.reference).toBeUndefined();
    expect(r.transaction.tags).toEqual([{ key: 'b', value: '2' }]);
    expect(r.transaction.originAmountDetails).toEqual({ transactionAmount: 100, transactionCurrency: 'EUR', country: 'AT' });
    expect(r.status).toBe('ALLOW');
    const ev = await engine.getTransactionEvent('e-1');
    expect(ev).toMatchObject({ eventId: 'e-1', transactionState: 'SUCCESSFUL', status: 'ALLOW', executedRules: [], hitRules: [] });
  });

  it('gives an event without eventId a generated, retrievable id', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    const r = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'PROCESSING' });
    expect(r.eventId).toBe('event-1');
    expect((await engine.getTransactionEvent(r.eventId)).transactionState).toBe('PROCESSING');
  });

  it('answers 404 TRANSACTION_NOT_FOUND for an unknown transaction', async () => {
    const { engine } = testEngine();
    const e = await errorOf(() => engine.createTransactionEvent({ transactionId: 'nope', timestamp: T0, transactionState: 'SENT' }));
    expect(e.code).toBe('TRANSACTION_NOT_FOUND');
    expect(e.status).toBe(404);
  });

  it('rejects a disallowed state move with 409 and stores nothing', async () => {
    const { engine } = testEngine();
    const ri = await engine.createRuleInstance({ ruleId: 'R-14' });
    const t = tx();
    await engine.createTransaction(t);
    await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'DECLINED' });
    const e = await errorOf(() =>
      engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL', eventId: 'late' }),
    );
    expect(e.code).toBe('INVALID_STATE_TRANSITION');
    expect(e.status).toBe(409);
    expect((await engine.getTransaction(t.transactionId as string)).transactionState).toBe('DECLINED');
    await expect(engine.getTransactionEvent('late')).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
    expect((await engine.getRuleInstance(ri.id)).runCount).toBe(2);
  });

  it('rejects a change of an identity field with 400 naming the field', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    const e = await errorOf(() =>
      engine.createTransactionEvent({
        transactionId: t.transactionId,
        timestamp: T0 + 1,
        transactionState: 'SENT',
        updatedTransactionAttributes: { originUserId: 'mallory' },
      }),
    );
    expect(e.code).toBe('IMMUTABLE_FIELD');
    expect(e.status).toBe(400);
    expect(e.details[0]?.path).toBe('/updatedTransactionAttributes/originUserId');
  });

  it('inserts a late event by timestamp and re-folds the history', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 30, transactionState: 'SUCCESSFUL' });
    // PROCESSING happened before SUCCESSFUL: CREATED → PROCESSING → SUCCESSFUL is valid; state stays SUCCESSFUL.
    const r = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 10, transactionState: 'PROCESSING' });
    expect(r.transaction.transactionState).toBe('SUCCESSFUL');
  });

  it('rejects a late event that breaks the lifecycle with 409', async () => {
    const { engine } = testEngine();
    const t = tx();
    await engine.createTransaction(t);
    await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 30, transactionState: 'REFUNDED' });
    // DECLINED before REFUNDED makes CREATED → DECLINED → REFUNDED, and DECLINED is final.
    const e = await errorOf(() => engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 10, transactionState: 'DECLINED' }));
    expect(e.code).toBe('INVALID_STATE_TRANSITION');
    expect((await engine.getTransaction(t.transactionId as string)).transactionState).toBe('REFUNDED');
  });

  it('replays the same eventId and payload without re-counting; a different payload is 409', async () => {
    const { engine } = testEngine();
    const ri = await engine.createRuleInstance({ ruleId: 'R-14' });
    const t = tx();
    await engine.createTransaction(t);
    const ev: TransactionEventInput = { transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'SENT', eventId: 'e-9' };
    const first = await engine.createTransactionEvent(ev);
    const again = await engine.createTransactionEvent({ ...ev });
    expect(again).toEqual(first);
    expect((await engine.getRuleInstance(ri.id)).runCount).toBe(2);
    const e = await errorOf(() => engine.createTransactionEvent({ ...ev, reason: 'other' }));
    expect(e.code).toBe('EVENT_ID_CONFLICT');
    expect(e.status).toBe(409);
  });
});

describe('windowed rules through the engine', () => {
  it('R-30 counts the sender transactions in the rolling window including the current one (> limit)', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 2, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } },
    });
    const statuses: string[] = [];
    for (const offset of [0, 10, 20, HOUR + 10]) {
      const r = await engine.createTransaction(tx({ timestamp: T0 + offset }));
      statuses.push(r.hitRules.length > 0 ? 'hit' : 'no');
    }
    // 1st: 1 tx, 2nd: 2, 3rd: 3 > 2 → hit; 4th at T0+1h+10ms: window [T0+10, …] holds 10, 20 and itself = 3 → hit.
    expect(statuses).toEqual(['no', 'no', 'hit', 'hit']);
  });

  it('R-69 sums exactly: 3 × 3333.33 + 0.01 reaches 10000.00', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-69',
      parameters: { transactionVolumeThreshold: { EUR: 10000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
    });
    const amounts = [3333.33, 3333.33, 3333.33, 0.01];
    const hits: boolean[] = [];
    for (const [i, a] of amounts.entries()) {
      const r = await engine.createTransaction(
        tx({ timestamp: T0 + i, originAmountDetails: { transactionAmount: a, transactionCurrency: 'EUR' }, destinationAmountDetails: undefined }),
      );
      hits.push(r.hitRules.length > 0);
    }
    expect(hits).toEqual([false, false, false, true]);
  });

  it('an event that changes the amount replaces the transaction contribution (never counted twice)', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-69',
      parameters: { transactionVolumeThreshold: { EUR: 1000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
    });
    const a = tx({ originAmountDetails: { transactionAmount: 600, transactionCurrency: 'EUR' } });
    await engine.createTransaction(a);
    // Re-running the same transaction through an event must see 600, not 1200.
    const r1 = await engine.createTransactionEvent({ transactionId: a.transactionId, timestamp: T0 + 1, transactionState: 'PROCESSING' });
    expect(r1.hitRules).toHaveLength(0);
    const r2 = await engine.createTransactionEvent({
      transactionId: a.transactionId,
      timestamp: T0 + 2,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 1000 } },
    });
    expect(r2.hitRules).toHaveLength(1);
    const entries = await engine.repositories.aggregates.listEntries('user-sending', 'alice');
    expect(entries).toHaveLength(1);
    // Kept in the base currency (USD): 1000 EUR at the fixed 2025-01-02 table rate.
    expect(entries[0]?.amount).toBe(103_540_033_754n);
  });

  it('R-1 hits only the first sending transaction of a user', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-1' });
    const first = await engine.createTransaction(tx({ timestamp: T0 }));
    const second = await engine.createTransaction(tx({ timestamp: T0 + DAY }));
    expect(first.hitRules.map((h) => h.ruleHitMeta?.hitDirections)).toEqual([['ORIGIN']]);
    expect(second.hitRules).toHaveLength(0);
  });
});

describe('rule instances', () => {
  it('creates with defaults and read-only metadata', async () => {
    const { engine, clock } = testEngine();
    const ri = await engine.createRuleInstance({ ruleId: 'R-14' });
    expect(ri).toMatchObject({
      id: 'ruleInstance-1',
      ruleId: 'R-14',
      type: 'TRANSACTION',
      status: 'ACTIVE',
      mode: 'LIVE',
      action: 'FLAG',
      runCount: 0,
      hitCount: 0,
      createdAt: clock.now(),
      updatedAt: clock.now(),
      parameters: { highRiskCountries: ['RU', 'SY', 'RO', 'UA'] },
      alertCreationOnHit: true,
      filters: {},
    });
    expect(Object.keys(ri.riskLevelParameters).sort()).toEqual(['HIGH', 'LOW', 'MEDIUM', 'VERY_HIGH', 'VERY_LOW']);
    expect(ri.riskLevelActions.LOW).toBe('FLAG');
  });

  const bad = [
    { name: 'read-only id', input: { ruleId: 'R-14', id: 'x' }, code: 'READ_ONLY_FIELD', path: '/id' },
    { name: 'read-only runCount', input: { ruleId: 'R-14', runCount: 5 }, code: 'READ_ONLY_FIELD', path: '/runCount' },
    { name: 'unknown ruleId', input: { ruleId: 'R-9999' }, code: 'UNKNOWN_RULE', path: '/ruleId' },
    { name: 'missing ruleId and logic', input: { action: 'FLAG' }, code: 'VALIDATION_FAILED', path: '/ruleId' },
    {
      name: 'bad parameter type',
      input: { ruleId: 'R-30', parameters: { transactionsLimit: 'ten' } },
      code: 'INVALID_PARAMETERS',
      path: '/parameters/transactionsLimit',
    },
    {
      name: 'bad country in parameters',
      input: { ruleId: 'R-14', parameters: { highRiskCountries: ['XX1'] } },
      code: 'INVALID_PARAMETERS',
      path: '/parameters/highRiskCountries/0',
    },
    { name: 'unknown action', input: { ruleId: 'R-14', action: 'DENY' }, code: 'VALIDATION_FAILED', path: '/action' },
    {
      name: 'incomplete riskLevelActions',
      input: { ruleId: 'R-14', riskLevelActions: { HIGH: 'BLOCK' } },
      code: 'VALIDATION_FAILED',
      path: '/riskLevelActions/VERY_LOW',
    },
    { name: 'method operator in logic', input: { logic: { method: ['x', 'toString'] } }, code: 'INVALID_LOGIC', path: '/logic' },
    { name: '__proto__ key', input: JSON.parse('{"ruleId":"R-14","__proto__":{"x":1}}'), code: 'VALIDATION_FAILED', path: '/__proto__' },
  ];
  for (const row of bad) {
    it(`rejects ${row.name} with ${row.code} at ${row.path} and stores nothing`, async () => {
      const { engine } = testEngine();
      const e = await errorOf(() => engine.createRuleInstance(row.input));
      expect(e.code).toBe(row.code);
      expect(e.status).toBe(400);
      expect(e.details.map((d) => d.path)).toContain(row.path);
      expect(await engine.listRuleInstances()).toEqual([]);
    });
  }

  it('updates, lists and deletes; unknown ids are 404', async () => {
    const { engine, clock } = testEngine();
    const ri = await engine.createRuleInstance({ ruleId: 'R-30' });
    clock.advance(1000);
    const up = await engine.updateRuleInstance(ri.id, { parameters: { transactionsLimit: 5 }, action: 'BLOCK' });
    expect(up.parameters.transactionsLimit).toBe(5);
    expect(up.riskLevelParameters.HIGH?.transactionsLimit).toBe(5);
    expect(up.riskLevelActions.HIGH).toBe('BLOCK');
    expect(up.updatedAt).toBe(ri.createdAt + 1000);
    expect(up.createdAt).toBe(ri.createdAt);
    expect(await engine.listRuleInstances()).toHaveLength(1);
    await engine.deleteRuleInstance(ri.id);
    expect(await engine.listRuleInstances()).toHaveLength(0);
    expect((await errorOf(() => engine.getRuleInstance(ri.id))).code).toBe('RULE_INSTANCE_NOT_FOUND');
    expect((await errorOf(() => engine.deleteRuleInstance(ri.id))).code).toBe('RULE_INSTANCE_NOT_FOUND');
    expect((await errorOf(() => engine.updateRuleInstance('nope', {}))).code).toBe('RULE_INSTANCE_NOT_FOUND');
  });

  it('uses per-risk-level parameters and actions chosen by the sender risk level', async () => {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, riskLevel: 'LOW' });
    const levels = { VERY_LOW: 50000, LOW: 50000, MEDIUM: 10000, HIGH: 1000, VERY_HIGH: 1000 };
    await engine.createRuleInstance({
      ruleId: 'R-2',
      riskLevelParameters: Object.fromEntries(Object.entries(levels).map(([k, v]) => [k, { transactionAmountThreshold: { EUR: v } }])) as Record<
        RiskLevel,
        { transactionAmountThreshold: { EUR: number } }
      >,
      riskLevelActions: { VERY_LOW: 'FLAG', LOW: 'FLAG', MEDIUM: 'FLAG', HIGH: 'BLOCK', VERY_HIGH: 'BLOCK' },
    });
    const low = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 20000, transactionCurrency: 'EUR' } }));
    expect(low.status).toBe('ALLOW');
    // An unknown sender gets the default VERY_HIGH level: threshold 1000, action BLOCK.
    const unknown = await engine.createTransaction(tx({ originUserId: 'carol', originAmountDetails: { transactionAmount: 2000, transactionCurrency: 'EUR' } }));
    expect(unknown.status).toBe('BLOCK');
  });

  it('evaluates custom json-logic over the transaction', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      logic: { and: [{ '==': [{ var: 'transaction.type' }, 'WITHDRAWAL'] }, { '>': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 500] }] },
      action: 'SUSPEND',
      ruleNameAlias: 'Large withdrawal',
    });
    const r1 = await engine.createTransaction(tx({ type: 'WITHDRAWAL', originAmountDetails: { transactionAmount: 501, transactionCurrency: 'EUR' } }));
    const r2 = await engine.createTransaction(tx({ type: 'WITHDRAWAL', originAmountDetails: { transactionAmount: 500, transactionCurrency: 'EUR' } }));
    expect(r1.status).toBe('SUSPEND');
    expect(r1.hitRules[0]).toMatchObject({ ruleId: 'CUSTOM', ruleName: 'Large withdrawal' });
    expect(r2.status).toBe('ALLOW');
  });
});

describe('shadow mode', () => {
  it('runs and counts shadow instances, marks them, and never changes status or alerts', async () => {
    const { engine } = testEngine();
    const ri = await engine.createRuleInstance({ ruleId: 'R-2', mode: 'SHADOW', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    const r = await engine.createTransaction(tx());
    expect(r.status).toBe('ALLOW');
    expect(r.hitRules[0]?.isShadow).toBe(true);
    expect(r.executedRules[0]?.isShadow).toBe(true);
    expect(await engine.listAlerts()).toEqual([]);
    const inst = await engine.getRuleInstance(ri.id);
    expect([inst.runCount, inst.hitCount]).toEqual([1, 1]);
  });
});

describe('alerts and cases', () => {
  it('opens one alert per (instance, user), appends later transactions, groups alerts in the user case', async () => {
    const { engine } = testEngine();
    const r2 = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    const r14 = await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: ['DE'] } });
    const a = tx();
    const b = tx();
    await engine.createTransaction(a);
    await engine.createTransaction(b);
    const alerts = await engine.listAlerts();
    // R-2 hits both sides (alice and bob); R-14 hits the origin side (alice, country DE).
    expect(alerts).toHaveLength(3);
    const aliceR2 = alerts.find((x) => x.userId === 'alice' && x.ruleDetails.instanceId === r2.id);
    expect(aliceR2?.entityDetails.transactionIds).toEqual([a.transactionId, b.transactionId]);
    const aliceR14 = alerts.find((x) => x.userId === 'alice' && x.ruleDetails.instanceId === r14.id);
    expect(aliceR14?.caseId).toBe(aliceR2?.caseId);
    const theCase = await engine.getCase(aliceR2!.caseId);
    expect(theCase.alertIds.sort()).toEqual([aliceR2!.alertId, aliceR14!.alertId].sort());
    expect(theCase.entityDetails).toEqual({ type: 'USER', userId: 'alice' });
    expect((await engine.getAlert(aliceR2!.alertId)).ruleDetails.action).toBe('SUSPEND');
  });

  /** A cycle alice → bob → carol → alice, every transfer hitting both sides (R-2 at 10 EUR). */
  async function runCycle(options: Parameters<typeof testEngine>[0]) {
    const { engine } = testEngine(options);
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    await engine.createTransaction(tx({ originUserId: 'alice', destinationUserId: 'bob' }));
    await engine.createTransaction(tx({ originUserId: 'bob', destinationUserId: 'carol' }));
    await engine.createTransaction(tx({ originUserId: 'carol', destinationUserId: 'alice' }));
    return engine;
  }

  it("caseGrouping COUNTERPARTIES: a cycle's accounts share one case, opened for the first and listing all three", async () => {
    const engine = await runCycle({ caseGrouping: 'COUNTERPARTIES' });
    const cases = await engine.listCases();
    expect(cases.map((c) => [c.entityDetails.userId, c.userIds, c.alertIds.length])).toEqual([['alice', ['alice', 'bob', 'carol'], 3]]);
    const alerts = await engine.listAlerts();
    expect(alerts.every((a) => a.caseId === cases[0]?.caseId)).toBe(true);
  });

  it('caseGrouping USER (the default): the same cycle opens one case per user, none listing userIds', async () => {
    for (const options of [{}, { caseGrouping: 'USER' as const }]) {
      const engine = await runCycle(options);
      const cases = await engine.listCases();
      expect(cases.map((c) => [c.entityDetails.userId, c.userIds])).toEqual([
        ['alice', undefined],
        ['bob', undefined],
        ['carol', undefined],
      ]);
    }
  });

  it('caseGrouping COUNTERPARTIES: a user with its own open case keeps it; a self-transfer names no counterparty', async () => {
    const { engine } = testEngine({ caseGrouping: 'COUNTERPARTIES' });
    // R-14 hits only the sender (origin country DE): alice and bob each open a case of their own.
    await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: ['DE'] } });
    await engine.createTransaction(tx({ originUserId: 'alice', destinationUserId: 'dave' }));
    await engine.createTransaction(tx({ originUserId: 'bob', destinationUserId: 'dave' }));
    await engine.createTransaction(tx({ originUserId: 'erin', destinationUserId: 'erin' }));
    // bob → alice under a new instance hitting both sides: each new alert joins its user's own case.
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    await engine.createTransaction(tx({ originUserId: 'bob', destinationUserId: 'alice' }));
    const cases = await engine.listCases();
    expect(cases.map((c) => [c.entityDetails.userId, c.userIds, c.alertIds.length])).toEqual([
      ['alice', undefined, 2],
      ['bob', undefined, 2],
      ['erin', undefined, 1],
    ]);
  });

  it('rejects an unknown caseGrouping with INVALID_CONFIGURATION', async () => {
    const e = await errorOf(async () => testEngine({ caseGrouping: 'SCHEME' as 'USER' }));
    expect(e.code).toBe('INVALID_CONFIGURATION');
  });

  it('creates no alert when alertCreationOnHit is false', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-2', alertCreationOnHit: false, parameters: { transactionAmountThreshold: { EUR: 10 } } });
    await engine.createTransaction(tx());
    expect(await engine.listAlerts()).toEqual([]);
    expect(await engine.listCases()).toEqual([]);
  });
});

describe('comments and uploads', () => {
  it('comments on a user seen in a transaction, with an uploaded file and a download link', async () => {
    const { engine, clock } = testEngine();
    await engine.createTransaction(tx());
    const slot = await engine.createUpload({ filename: 'kyc.pdf', fileSize: 3 });
    expect(slot).toMatchObject({ key: 'file-1', method: 'PUT', fields: { key: 'file-1' } });
    const url = new URL(slot.url, 'http://x');
    await engine.putUploadContent(
      { key: slot.key, expiresAt: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature')! },
      new Uint8Array([1, 2, 3]),
    );
    const c = await engine.createUserComment('alice', { body: 'Checked ID', files: [{ s3Key: slot.key, filename: 'kyc.pdf', size: 3 }] });
    expect(c).toMatchObject({ commentId: 'comment-1', body: 'Checked ID', createdTimestamp: clock.now(), updatedTimestamp: clock.now() });
    expect(c.files[0]).toMatchObject({ s3Key: 'file-1', filename: 'kyc.pdf', size: 3 });
    const link = new URL(c.files[0]!.downloadLink, 'http://x');
    const file = await engine.getFileContent({
      key: decodeURIComponent(link.pathname.split('/').pop()!),
      expiresAt: Number(link.searchParams.get('expires')),
      signature: link.searchParams.get('signature')!,
    });
    expect([...file.bytes]).toEqual([1, 2, 3]);
  });

  it('accepts key as an alias of s3Key and always returns files', async () => {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'u1', createdTimestamp: T0 });
    const slot = await engine.createUpload({ filename: 'a.txt', fileSize: 1 });
    const url = new URL(slot.url, 'http://x');
    await engine.putUploadContent(
      { key: slot.key, expiresAt: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature')! },
      new Uint8Array([7]),
    );
    const c = await engine.createUserComment('u1', { body: 'x', files: [{ key: slot.key, filename: 'a.txt', size: 1 }] });
    expect(c.files[0]?.s3Key).toBe(slot.key);
    const plain = await engine.createUserComment('u1', { body: 'y', createdTimestamp: T0 - 5 });
    expect(plain.files).toEqual([]);
    expect(plain.createdTimestamp).toBe(T0 - 5);
  });

  const badComments = [
    { name: 'unknown user', call: 'user', id: 'ghost', body: { body: 'x' }, code: 'USER_NOT_FOUND' },
    { name: 'unknown case', call: 'case', id: 'C-1', body: { body: 'x' }, code: 'CASE_NOT_FOUND' },
    { name: 'unknown alert', call: 'alert', id: 'A-1', body: { body: 'x' }, code: 'ALERT_NOT_FOUND' },
    { name: 'empty body', call: 'user', id: 'alice', body: { body: '' }, code: 'VALIDATION_FAILED' },
    {
      name: 'unissued file key',
      call: 'user',
      id: 'alice',
      body: { body: 'x', files: [{ s3Key: 'forged', filename: 'f', size: 1 }] },
      code: 'UNKNOWN_FILE_KEY',
    },
  ] as const;
  for (const row of badComments) {
    it(`rejects a comment on ${row.name} with ${row.code}`, async () => {
      const { engine } = testEngine();
      await engine.createTransaction(tx());
      const call = row.call === 'user' ? engine.createUserComment : row.call === 'case' ? engine.createCaseComment : engine.createAlertComment;
      const e = await errorOf(() => call(row.id, row.body as CommentInput));
      expect(e.code).toBe(row.code);
    });
  }

  it('rejects an upload over the size limit and a tampered upload signature', async () => {
    const { engine } = testEngine({ maxUploadBytes: 10 });
    const e = await errorOf(() => engine.createUpload({ filename: 'big.bin', fileSize: 11 }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details[0]?.path).toBe('/fileSize');
    const slot = await engine.createUpload({ filename: 'ok.bin', fileSize: 10 });
    const e2 = await errorOf(() => engine.putUploadContent({ key: slot.key, expiresAt: slot.expiresAt, signature: '00' }, new Uint8Array(1)));
    expect(e2.code).toBe('UNAUTHORIZED');
  });
});

describe('rules and users', () => {
  it('lists the rules with their parameter schemas and returns 404 for an unknown rule', async () => {
    const { engine } = testEngine();
    const rules = await engine.listRules();
    expect(rules.map((r) => r.id)).toEqual(expect.arrayContaining(['R-1', 'R-2', 'R-14', 'R-30', 'R-69']));
    const r30 = await engine.getRule('R-30');
    expect(r30.parametersSchema).toMatchObject({ type: 'object' });
    expect(r30.stateful).toBe(true);
    expect((await errorOf(() => engine.getRule('R-0'))).code).toBe('RULE_NOT_FOUND');
  });

  it('creates consumer and business users; getUser is 404 for a user only seen in transactions', async () => {
    const { engine } = testEngine();
    const r = await engine.createUser({ userId: 'c1', createdTimestamp: T0 });
    expect(r).toEqual({ userId: 'c1', executedRules: [], hitRules: [] });
    await engine.createUser({ userId: 'b1', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'ACME' } } });
    expect((await engine.getUser('b1')).type).toBe('BUSINESS');
    expect((await engine.getUser('c1', { type: 'CONSUMER' })).type).toBe('CONSUMER');
    expect((await errorOf(() => engine.getUser('b1', { type: 'CONSUMER' }))).code).toBe('USER_NOT_FOUND');
    await engine.createTransaction(tx({ originUserId: 'seen' }));
    expect((await errorOf(() => engine.getUser('seen'))).code).toBe('USER_NOT_FOUND');
  });

  it('returns the JSON Schema of filters', async () => {
    const { engine } = testEngine();
    const schema = await engine.getRuleFiltersSchema();
    expect(schema).toMatchObject({ type: 'object' });
  });
});
