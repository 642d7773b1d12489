import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../../../src/domain/entities.js';
import { DAY, HOUR, errorOf, testEngine, tx } from '../../helpers.js';

/** An engine whose R-2 instance (10 EUR) alerts on both sides of every transfer. */
async function alerting(options: Parameters<typeof testEngine>[0] = {}) {
  const { engine, clock } = testEngine(options);
  const r2 = await engine.createRuleInstance({ ruleId: 'R-2', casePriority: 'P2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
  return { engine, clock, r2 };
}

const aliceAlert = (alerts: Alert[]) => alerts.find((a) => a.userId === 'alice') as Alert;

describe('status changes', () => {
  it('closing a case closes its open alerts with the same reason in one write; a hit afterwards opens a new alert in a new case', async () => {
    const { engine, clock } = await alerting();
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    clock.advance(HOUR);
    const closed = await engine.changeCaseStatus(
      first.caseId,
      { status: 'CLOSED', reason: ['FALSE_POSITIVE'], comment: 'salary' },
      { actor: 'ana@bank.example' },
    );
    const change = { status: 'CLOSED', reason: ['FALSE_POSITIVE'], comment: 'salary', actor: 'ana@bank.example', timestamp: clock.now() };
    expect([closed.caseStatus, closed.lastStatusChange, closed.closingReason, closed.updatedAt]).toEqual(['CLOSED', change, change, clock.now()]);
    const alert = await engine.getAlert(first.alertId);
    expect([alert.alertStatus, alert.closingReason]).toEqual(['CLOSED', change]);
    expect((await engine.getCase(first.caseId)).comments.map((c) => c.body)).toEqual(['salary']);

    const later = tx();
    await engine.createTransaction(later);
    const alerts = (await engine.listAlerts()).filter((a) => a.userId === 'alice');
    expect(alerts.map((a) => [a.alertStatus, a.entityDetails.transactionIds])).toEqual([
      ['CLOSED', [first.entityDetails.transactionIds[0]]],
      ['OPEN', [later.transactionId]],
    ]);
    expect(alerts[1]?.caseId).not.toBe(first.caseId);
  });

  it('a hit after an alert is closed opens a new alert in the open case', async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    await engine.changeAlertStatus(first.alertId, { status: 'CLOSED', reason: ['OTHER'], otherReason: 'test payment' });
    await engine.createTransaction(tx());
    const alerts = (await engine.listAlerts()).filter((a) => a.userId === 'alice');
    expect(alerts.map((a) => [a.alertStatus, a.caseId])).toEqual([
      ['CLOSED', first.caseId],
      ['OPEN', first.caseId],
    ]);
    expect((await engine.getCase(first.caseId)).caseStatus).toBe('OPEN');
  });

  it('a refused move is a 400 naming it, and writes nothing', async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    const error = await errorOf(() => engine.changeAlertStatus(first.alertId, { status: 'REOPENED' }));
    expect([error.status, error.code, error.details]).toEqual([
      400,
      'INVALID_STATUS_MOVE',
      [{ path: '/status', code: 'transition', message: 'OPEN → REOPENED is not allowed' }],
    ]);
    expect((await engine.getAlert(first.alertId)).alertStatus).toBe('OPEN');
    expect((await errorOf(() => engine.changeCaseStatus(first.caseId, { status: 'CLOSED' }))).details[0]?.path).toBe('/reason');
    expect((await errorOf(() => engine.changeCaseStatus(first.caseId, { status: 'DONE' } as never))).details[0]?.path).toBe('/status');
    expect((await errorOf(() => engine.changeCaseStatus('nope', { status: 'ESCALATED' }))).code).toBe('CASE_NOT_FOUND');
    expect((await errorOf(() => engine.changeAlertStatus('nope', { status: 'ESCALATED' }))).code).toBe('ALERT_NOT_FOUND');
    expect((await errorOf(() => engine.changeAlertStatus(first.alertId, { status: 'ESCALATED' }, { actor: '' }))).code).toBe('VALIDATION_FAILED');
  });

  it('an alert of a closed case reopens only after its case', async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    await engine.changeCaseStatus(first.caseId, { status: 'CLOSED', reason: ['DUPLICATE'] });
    const error = await errorOf(() => engine.changeAlertStatus(first.alertId, { status: 'REOPENED' }));
    expect([error.code, error.details[0]?.message]).toEqual([
      'INVALID_STATUS_MOVE',
      "CLOSED → REOPENED is not allowed while the alert's case is CLOSED: reopen the case first",
    ]);
    await engine.changeCaseStatus(first.caseId, { status: 'REOPENED' });
    const reopened = await engine.changeAlertStatus(first.alertId, { status: 'REOPENED' });
    expect([reopened.alertStatus, reopened.closingReason?.reason]).toEqual(['REOPENED', ['DUPLICATE']]);
  });

  it('a status comment with files attaches uploaded files, and a file not uploaded refuses the whole change', async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    const slot = await engine.createUpload({ filename: 'sar.pdf', fileSize: 3 });
    const refused = await errorOf(() =>
      engine.changeAlertStatus(first.alertId, { status: 'ESCALATED', comment: 'x', files: [{ s3Key: slot.key, filename: 'sar.pdf', size: 3 }] }),
    );
    expect([refused.code, refused.details[0]?.path]).toEqual(['UNKNOWN_FILE_KEY', '/files/0/s3Key']);
    expect((await engine.getAlert(first.alertId)).alertStatus).toBe('OPEN');
    const url = new URL(slot.url, 'http://x');
    await engine.putUploadContent(
      { key: slot.key, expiresAt: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature') as string },
      new Uint8Array([1, 2, 3]),
    );
    await engine.changeAlertStatus(first.alertId, { status: 'ESCALATED', files: [{ s3Key: slot.key, filename: 'sar.pdf', size: 3 }] });
    const [comment] = await engine.listComments({ kind: 'alert', id: first.alertId });
    expect(comment?.body).toBe('Status changed: OPEN → ESCALATED');
    expect(comment?.files.map((f) => [f.filename, f.downloadLink.includes('signature=')])).toEqual([['sar.pdf', true]]);
  });
});

describe('priority, assignments and SLA', () => {
  it('a PATCH replaces the priority and assignments given, and the due date follows the priority', async () => {
    const { engine, clock } = await alerting({ slaHours: { P1: 4 } });
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    expect(first.slaDueTimestamp).toBe(first.createdTimestamp + 72 * HOUR);
    clock.advance(DAY);
    const updated = await engine.updateAlert(first.alertId, {
      priority: 'P1',
      assignments: [{ assigneeEmail: 'ana@bank.example', assignedByEmail: 'lead@bank.example' }],
    });
    expect([updated.priority, updated.slaDueTimestamp, updated.assignments, updated.updatedAt]).toEqual([
      'P1',
      first.createdTimestamp + 4 * HOUR,
      [{ assigneeEmail: 'ana@bank.example', assignedByEmail: 'lead@bank.example', timestamp: clock.now() }],
      clock.now(),
    ]);
    const c = await engine.updateCase(first.caseId, { assignments: [] });
    expect([c.assignments, c.priority, c.slaDueTimestamp]).toEqual([[], 'P2', c.createdTimestamp + 72 * HOUR]);
    expect((await errorOf(() => engine.updateCase(first.caseId, {}))).details[0]?.code).toBe('minProperties');
    expect((await errorOf(() => engine.updateCase(first.caseId, { caseStatus: 'CLOSED' } as never))).details[0]?.path).toBe('/caseStatus');
    expect((await errorOf(() => engine.updateAlert(first.alertId, { assignments: [{ assigneeEmail: 'no' }] }))).details[0]?.path).toBe(
      '/assignments/0/assigneeEmail',
    );
  });

  it('refuses an SLA that is not hours above 0', () => {
    expect(() => testEngine({ slaHours: { P1: 0 } })).toThrow(/slaHours/);
    expect(() => testEngine({ slaHours: { P9: 1 } as never })).toThrow(/slaHours/);
  });
});

describe('pages', () => {
  it('walks every alert once with next, back with prev, and reaches the last page', async () => {
    const { engine, clock } = await alerting();
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await engine.createTransaction(tx({ originUserId: `u${i}`, destinationUserId: undefined }));
    }
    const query = { pageSize: 2, sortOrder: 'asc' as const };
    const first = await engine.listAlerts(query);
    expect([first.items.length, first.hasNext, first.hasPrev, first.prev, first.count, first.pageSize]).toEqual([2, true, false, '', 5, 2]);
    const second = await engine.listAlerts({ ...query, start: first.next });
    const third = await engine.listAlerts({ ...query, start: second.next });
    expect([third.items.length, third.hasNext, third.next]).toEqual([1, false, '']);
    expect([...first.items, ...second.items, ...third.items].map((a) => a.userId)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
    const back = await engine.listAlerts({ ...query, start: third.prev });
    expect([back.items.map((a) => a.userId), back.hasPrev, back.hasNext]).toEqual([['u2', 'u3'], true, true]);
    const last = await engine.listAlerts({ ...query, start: first.last });
    expect([last.items.map((a) => a.userId), last.hasNext, last.hasPrev]).toEqual([['u3', 'u4'], false, true]);
  });

  it('a garbled cursor, or one of another sort, is a 400 at /start; a bad pageSize at /pageSize', async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx());
    await engine.createTransaction(tx());
    const page = await engine.listCases({ pageSize: 1 });
    for (const start of ['%%%', 'eyJ4IjoxfQ', btoa('["n","id","desc",1,"x"]')]) {
      expect((await errorOf(() => engine.listCases({ start }))).details[0]?.path).toBe('/start');
    }
    const other = await errorOf(() => engine.listCases({ start: page.next, sortOrder: 'asc' }));
    expect(other.details[0]?.message).toMatch(/another sortBy or sortOrder/);
    expect((await errorOf(() => engine.listAlerts({ pageSize: 101 }))).details[0]?.path).toBe('/pageSize');
    expect((await errorOf(() => engine.listAlerts({ filterAlertStatus: ['DONE'] } as never))).details[0]?.path).toBe('/filterAlertStatus/0');
  });

  it('pages read while alerts are inserted between the reads never skip or repeat an alert present before the first page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 6 }),
        fc.constantFrom('createdTimestamp', 'priority', 'alertId'),
        fc.constantFrom('asc', 'desc'),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.integer({ min: -5_000, max: 5_000 }), { minLength: 10, maxLength: 10 }),
        async (before, insertsPerPage, sortBy, sortOrder, pageSize, offsets) => {
          const { engine, clock } = testEngine();
          const priorities = ['P1', 'P2', 'P3', 'P4'] as const;
          for (const p of priorities)
            await engine.createRuleInstance({ ruleId: 'R-2', casePriority: p, parameters: { transactionAmountThreshold: { EUR: 10 } } });
          let n = 0;
          // Each transaction of a new user opens four alerts (one per priority), at a clock that may go back.
          const insert = async () => {
            clock.set(1_700_000_000_000 + (offsets[n % offsets.length] ?? 0));
            n += 1;
            await engine.createTransaction(tx({ originUserId: `u${n}`, destinationUserId: undefined }));
          };
          for (let i = 0; i < before; i++) await insert();
          const present = new Set((await engine.listAlerts()).map((a) => a.alertId));
          const seen: string[] = [];
          let start: string | undefined;
          for (let pageNo = 0; pageNo < 200; pageNo++) {
            const page = await engine.listAlerts({ sortBy, sortOrder, pageSize, ...(start === undefined ? {} : { start }) });
            seen.push(...page.items.map((a) => a.alertId));
            for (let i = 0; i < (insertsPerPage[pageNo] ?? 0); i++) await insert();
            if (!page.hasNext) break;
            start = page.next;
          }
          const seenPresent = seen.filter((id) => present.has(id));
          expect(new Set(seen).size).toBe(seen.length);
          expect(new Set(seenPresent)).toEqual(present);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('comments', () => {
  it('lists the comments of a user, a case and an alert, and 404s an unknown target', async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx());
    const first = aliceAlert(await engine.listAlerts());
    await engine.createUserComment('alice', { body: 'kyc ok' });
    await engine.createCaseComment(first.caseId, { body: 'case note' });
    await engine.createAlertComment(first.alertId, { body: 'alert note' });
    expect((await engine.listComments({ kind: 'user', id: 'alice' })).map((c) => c.body)).toEqual(['kyc ok']);
    expect((await engine.listComments({ kind: 'case', id: first.caseId })).map((c) => c.body)).toEqual(['case note']);
    expect((await engine.getAlert(first.alertId)).comments.map((c) => c.body)).toEqual(['alert note']);
    expect((await errorOf(() => engine.listComments({ kind: 'user', id: 'nobody' }))).code).toBe('USER_NOT_FOUND');
    expect((await errorOf(() => engine.listComments({ kind: 'file', id: 'x' } as never))).status).toBe(400);
  });
});

describe('the evidence of an alert', () => {
  it("lists its hits newest first with the evidence on the alert's side, and how many it holds", async () => {
    const { engine } = await alerting();
    await engine.createTransaction(tx({ transactionId: 'ev-1', originAmountDetails: { transactionAmount: 20, transactionCurrency: 'EUR' } }));
    await engine.createTransaction(tx({ transactionId: 'ev-2', originAmountDetails: { transactionAmount: 30, transactionCurrency: 'EUR' } }));
    const alert = await engine.getAlert(aliceAlert(await engine.listAlerts()).alertId);
    expect(alert.hitCount).toBe(2);
    expect(alert.hits.map((h) => h.transactionId)).toEqual(['ev-2', 'ev-1']);
    expect(alert.hits[0]?.evidence).toEqual([
      expect.objectContaining({ direction: alert.direction, kind: 'amount', value: '30', limit: '10', currency: 'EUR' }),
    ]);
    // The transaction's own result holds the same evidence.
    const stored = await engine.getTransaction('ev-2');
    const hit = stored.hitRules.find((h) => h.ruleInstanceId === alert.ruleDetails.instanceId);
    expect(hit?.ruleHitMeta?.evidence?.filter((e) => e.direction === alert.direction)).toEqual(alert.hits[0]?.evidence);
  });
});
