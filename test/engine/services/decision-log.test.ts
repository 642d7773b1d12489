/**
 * The decision log through the engine, on memory, PGlite and PostgreSQL: every stored transaction
 * and event result is one entry naming what was decided, in the order stored (a batch in its
 * records' time order); a replay or a refused write appends nothing; the log verifies, and an
 * anchor from an earlier verification still holds after more decisions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Repositories } from '../../../src/index.js';
import { ADAPTER_TARGETS, type AdapterDatabase } from '../../adapters.js';
import { T0, errorOf, fixedClock, sequentialIds, tx } from '../../helpers.js';

interface LoggedDecision {
  type: string;
  transactionId: string;
  eventId?: string;
  status: string;
  hitRules: { ruleInstanceId: string; ruleAction: string }[];
}

async function decisionsOf(repositories: Repositories): Promise<LoggedDecision[]> {
  const rows = await repositories.decisions.readDecisions(0, 1_000);
  return rows.map((r) => (JSON.parse(r.entry) as { decision: LoggedDecision }).decision);
}

describe.each(ADAPTER_TARGETS)('the decision log on $name', (target) => {
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
    return { engine, repositories, big };
  }

  it('one entry per stored result, naming the transaction, the event, the status and the instances that hit, in the order stored', async () => {
    const { engine, repositories, big } = await engineOn();
    const small = await engine.createTransaction(tx({ transactionId: 'd-1', originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' } }));
    const large = await engine.createTransaction(tx({ transactionId: 'd-2', originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' } }));
    const event = await engine.createTransactionEvent({ transactionId: 'd-1', eventId: 'ev-1', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    const batch = await engine.createTransactionBatch({
      batchId: 'b-1',
      data: [tx({ transactionId: 'd-4', timestamp: T0 + 20 }), tx({ transactionId: 'd-3', timestamp: T0 + 10 })],
    });
    expect(batch.successful).toBe(2);
    expect([small.status, large.status, event.status]).toEqual(['ALLOW', 'SUSPEND', 'ALLOW']);
    expect(await decisionsOf(repositories)).toMatchObject([
      { type: 'TRANSACTION', transactionId: 'd-1', status: 'ALLOW', hitRules: [] },
      { type: 'TRANSACTION', transactionId: 'd-2', status: 'SUSPEND', hitRules: [{ ruleInstanceId: big.id, ruleAction: 'SUSPEND' }] },
      { type: 'TRANSACTION_EVENT', transactionId: 'd-1', eventId: 'ev-1', status: 'ALLOW' },
      { type: 'TRANSACTION', transactionId: 'd-3' },
      { type: 'TRANSACTION', transactionId: 'd-4' },
    ]);
    const report = await engine.verifyDecisionLog();
    expect(report).toMatchObject({ ok: true, count: 5, head: { seq: 5 } });
    expect(report.head).toEqual(await repositories.decisions.decisionHead());
  });

  it('an alert or case status change is an entry with the move, the reasons and the actor; a refused move and a PATCH append nothing', async () => {
    const { engine, repositories } = await engineOn();
    await engine.createTransaction(tx({ transactionId: 's-1', originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' } }));
    const [alert] = await engine.listAlerts();
    const caseId = alert?.caseId as string;
    await engine.changeAlertStatus(alert?.alertId as string, { status: 'IN_PROGRESS' }, { actor: 'ana' });
    await errorOf(() => engine.changeCaseStatus(caseId, { status: 'REOPENED' }));
    await engine.updateCase(caseId, { priority: 'P1' });
    await engine.changeCaseStatus(caseId, { status: 'CLOSED', reason: ['FALSE_POSITIVE'] }, { actor: 'ana' });
    expect((await decisionsOf(repositories)).slice(1)).toEqual([
      { type: 'ALERT_STATUS', id: alert?.alertId, from: 'OPEN', status: 'IN_PROGRESS', actor: 'ana', timestamp: expect.any(Number) },
      {
        type: 'CASE_STATUS',
        id: caseId,
        from: 'OPEN',
        status: 'CLOSED',
        reason: ['FALSE_POSITIVE'],
        actor: 'ana',
        closesOpenAlerts: true,
        timestamp: expect.any(Number),
      },
    ]);
    expect(await engine.verifyDecisionLog()).toMatchObject({ ok: true, count: 3 });
  });

  it('a replay, a refused payload and a refused event append nothing', async () => {
    const { engine, repositories } = await engineOn();
    const first = tx({ transactionId: 'r-1' });
    await engine.createTransaction(first);
    await engine.createTransaction(structuredClone(first));
    expect((await errorOf(() => engine.createTransaction({ ...structuredClone(first), timestamp: T0 + 5 }))).code).toBe('TRANSACTION_ID_CONFLICT');
    expect((await errorOf(() => engine.createTransactionEvent({ transactionId: 'nope', timestamp: T0, transactionState: 'SUCCESSFUL' }))).code).toBe(
      'TRANSACTION_NOT_FOUND',
    );
    expect((await decisionsOf(repositories)).map((d) => d.transactionId)).toEqual(['r-1']);
    expect(await engine.verifyDecisionLog()).toMatchObject({ ok: true, count: 1 });
  });

  it('an anchor taken from a report still holds after more decisions; a malformed anchor is a 400 naming its field', async () => {
    const { engine } = await engineOn();
    await engine.createTransaction(tx({ transactionId: 'a-1' }));
    const earlier = await engine.verifyDecisionLog();
    await engine.createTransaction(tx({ transactionId: 'a-2' }));
    expect(await engine.verifyDecisionLog({ anchor: earlier.head })).toMatchObject({ ok: true, count: 2 });
    expect(await engine.verifyDecisionLog({ anchor: { seq: 1, hash: 'f'.repeat(64) } })).toMatchObject({
      ok: false,
      firstInvalid: { seq: 1, problem: 'EDITED' },
    });
    expect(await engine.verifyDecisionLog({ anchor: { seq: 9, hash: earlier.head.hash } })).toMatchObject({
      ok: false,
      firstInvalid: { seq: 3, problem: 'REMOVED' },
    });
    const bad = await errorOf(() => engine.verifyDecisionLog({ anchor: { seq: 1, hash: 'XYZ' } }));
    expect(bad.details?.[0]?.path).toBe('/anchor/hash');
  });
});
