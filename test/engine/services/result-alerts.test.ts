/**
 * A transaction's or an event's result names the alerts its hits opened or were appended to
 * (`alerts`), on every store: in the response, in what the reads return, on a replay, and for a
 * batch's records (a record appending to the alert an earlier record of its chunk opened).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Alert, type Engine, type Repositories, type ResultAlert } from '../../../src/index.js';
import { ADAPTER_TARGETS, type AdapterDatabase } from '../../adapters.js';
import { fixedClock, sequentialIds, T0, tx } from '../../helpers.js';

/** An engine on `repositories` with R-2 (10 EUR) alerting on both sides of a transfer, and a shadow copy of it. */
async function alertingEngine(repositories: Repositories): Promise<{ engine: Engine; live: string; shadow: string }> {
  const engine = createEngine({ repositories, clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(7) });
  const parameters = { transactionAmountThreshold: { EUR: 10 } };
  const live = await engine.createRuleInstance({ ruleId: 'R-2', parameters });
  const shadow = await engine.createRuleInstance({ ruleId: 'R-2', mode: 'SHADOW', parameters });
  return { engine, live: live.id, shadow: shadow.id };
}

/** The alert of `userId`, as a result names it with `action`. */
function namedFor(alerts: readonly Alert[], userId: string, action: ResultAlert['action'], alertId?: string): ResultAlert {
  const alert = alerts.find((a) => a.userId === userId && (alertId === undefined || a.alertId === alertId)) as Alert;
  const named: ResultAlert = {
    alertId: alert.alertId,
    caseId: alert.caseId,
    ruleInstanceId: alert.ruleDetails.instanceId,
    userId,
    direction: alert.direction,
    action,
  };
  // The alert opened its case when it is the case's first (alerts are listed in creation order).
  const opensCase = action === 'OPENED' && alerts.find((a) => a.caseId === alert.caseId)?.alertId === alert.alertId;
  return opensCase ? { ...named, caseOpened: true } : named;
}

describe.each(ADAPTER_TARGETS)('results naming their alerts on $name', (target) => {
  let database: AdapterDatabase;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('a create names the alerts it opened, a later create those it appended to, and a replay the same; a shadow hit names none', async () => {
    const { engine, live, shadow } = await alertingEngine(await database.fresh());
    const first = tx({ timestamp: T0 });
    const opened = await engine.createTransaction(first);
    expect(opened.hitRules.map((h) => h.ruleInstanceId)).toEqual([live, shadow]);
    const alerts = await engine.listAlerts();
    expect(alerts).toHaveLength(2);
    const openedNamed = [namedFor(alerts, 'alice', 'OPENED'), namedFor(alerts, 'bob', 'OPENED')];
    expect(opened.alerts).toEqual(openedNamed);
    expect(openedNamed.map((a) => [a.ruleInstanceId, a.direction])).toEqual([
      [live, 'ORIGIN'],
      [live, 'DESTINATION'],
    ]);

    const second = await engine.createTransaction(tx({ timestamp: T0 + 1 }));
    expect(second.alerts).toEqual([namedFor(alerts, 'alice', 'APPENDED'), namedFor(alerts, 'bob', 'APPENDED')]);
    expect(await engine.listAlerts()).toHaveLength(2);

    expect(await engine.createTransaction(first)).toEqual(opened);
    expect((await engine.getTransaction(first.transactionId as string)).alerts).toEqual(openedNamed);

    const below = await engine.createTransaction(tx({ timestamp: T0 + 2, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR' } }));
    expect([below.hitRules, below]).toEqual([[], expect.not.objectContaining({ alerts: expect.anything() })]);
  });

  it('an event names the alerts it appended to, its read and its replay the same; the create result keeps its own', async () => {
    const { engine } = await alertingEngine(await database.fresh());
    const created = tx({ timestamp: T0 });
    const opened = await engine.createTransaction(created);
    const event = { transactionId: created.transactionId as string, eventId: 'ev-1', timestamp: T0 + 10, transactionState: 'SUCCESSFUL' as const };
    const result = await engine.createTransactionEvent(event);
    const alerts = await engine.listAlerts();
    const appended = [namedFor(alerts, 'alice', 'APPENDED'), namedFor(alerts, 'bob', 'APPENDED')];
    expect(result.alerts).toEqual(appended);
    expect((await engine.getTransactionEvent('ev-1')).alerts).toEqual(appended);
    expect(await engine.createTransactionEvent(event)).toEqual(result);
    expect((await engine.getTransaction(created.transactionId as string)).alerts).toEqual(appended);
    expect(await engine.createTransaction(created)).toEqual(opened);
  });

  it('after an alert is closed a hit names the new alert it opened in the open case', async () => {
    const { engine } = await alertingEngine(await database.fresh());
    await engine.createTransaction(tx({ timestamp: T0 }));
    const before = await engine.listAlerts();
    const alice = namedFor(before, 'alice', 'OPENED');
    await engine.changeAlertStatus(alice.alertId, { status: 'CLOSED', reason: ['FALSE_POSITIVE'] });
    const after = await engine.createTransaction(tx({ timestamp: T0 + 1 }));
    const alerts = await engine.listAlerts();
    const fresh = alerts.find((a) => a.userId === 'alice' && a.alertId !== alice.alertId) as Alert;
    expect(after.alerts).toEqual([namedFor(alerts, 'alice', 'OPENED', fresh.alertId), namedFor(alerts, 'bob', 'APPENDED')]);
    expect(fresh.caseId).toBe(alice.caseId);
  });

  it("a batch's records name their alerts as single calls would: a later record appends to the alert an earlier one opened", async () => {
    const { engine } = await alertingEngine(await database.fresh());
    const records = [
      tx({ timestamp: T0, originUserId: 'carol', destinationUserId: 'dave' }),
      tx({ timestamp: T0 + 1, originUserId: 'carol', destinationUserId: 'dave' }),
    ];
    expect(await engine.createTransactionBatch({ batchId: 'b-1', data: structuredClone(records) })).toMatchObject({ status: 'SUCCESS', successful: 2 });
    const alerts = await engine.listAlerts();
    expect(alerts).toHaveLength(2);
    const batched = [];
    for (const r of records) batched.push((await engine.getTransaction(r.transactionId as string)).alerts);
    expect(batched).toEqual([
      [namedFor(alerts, 'carol', 'OPENED'), namedFor(alerts, 'dave', 'OPENED')],
      [namedFor(alerts, 'carol', 'APPENDED'), namedFor(alerts, 'dave', 'APPENDED')],
    ]);
    expect((await engine.getTransactionBatch('b-1')).transactions.map((t) => t.alerts)).toEqual(batched);
    // The same records sent one by one to a fresh engine name the same ids.
    const { engine: single } = await alertingEngine(await database.fresh());
    const named = [];
    for (const r of records) named.push((await single.createTransaction(structuredClone(r))).alerts);
    expect(named).toEqual(batched);
  });

  it('an import-only batch opens no alert and its results name none', async () => {
    const { engine } = await alertingEngine(await database.fresh());
    const record = tx({ timestamp: T0 });
    expect(await engine.createTransactionBatch({ data: [structuredClone(record)] }, { mode: 'IMPORT' })).toMatchObject({ successful: 1 });
    expect(await engine.listAlerts()).toEqual([]);
    expect(await engine.getTransaction(record.transactionId as string)).not.toHaveProperty('alerts');
  });
});
