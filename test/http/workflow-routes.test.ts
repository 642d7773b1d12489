/** The alert and case workflow routes: pages, PATCH, statuses, comment lists — and their 400s and 404s. */
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import { tx } from '../helpers.js';
import { createCaller, httpTestEngine, json } from './fixtures.js';

const KEY = 'key-workflow-0123456789abcdef';
const call = createCaller(KEY);

/** A handler whose engine holds one alert on alice and one on bob (R-2 at 10 EUR, both sides). */
async function setup() {
  const engine = httpTestEngine();
  await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
  await engine.createTransaction(tx());
  const handler = createHttpHandler({ engine, apiKeys: [KEY] });
  const alerts = await engine.listAlerts();
  const alice = alerts.find((a) => a.userId === 'alice');
  if (alice === undefined) throw new Error('no alert on alice');
  return { engine, handler, alice };
}

/** The status, code and first error path of a problem response. */
async function problemOf(response: Response): Promise<[number, unknown, unknown]> {
  const body = await json(response);
  return [response.status, body['code'], (body['errors'] as { path: string }[] | undefined)?.[0]?.path];
}

describe('GET /alerts and GET /cases', () => {
  it('answer pages in Flagright shape, with filters and cursors', async () => {
    const { handler, alice } = await setup();
    const first = await json(await call(handler, 'GET', '/alerts?pageSize=1&sortBy=alertId&sortOrder=ascend'));
    expect([(first['items'] as unknown[]).length, first['hasNext'], first['hasPrev'], first['count'], first['pageSize']]).toEqual([1, true, false, 2, 1]);
    const second = await json(await call(handler, 'GET', `/alerts?pageSize=1&sortBy=alertId&sortOrder=ascend&start=${first['next'] as string}`));
    expect([second['hasNext'], second['hasPrev'], second['next']]).toEqual([false, true, '']);
    const mine = await json(await call(handler, 'GET', `/alerts?filterUserId=alice&filterRuleInstanceId=${alice.ruleDetails.instanceId}`));
    expect((mine['items'] as { alertId: string }[]).map((a) => a.alertId)).toEqual([alice.alertId]);
    const open = await json(await call(handler, 'GET', '/cases?filterCaseStatus[]=OPEN&filterCaseStatus[]=ESCALATED&filterPriority=P1&filterUserId=alice'));
    expect((open['items'] as { caseId: string }[]).map((c) => c.caseId)).toEqual([alice.caseId]);
    const closed = await json(await call(handler, 'GET', '/cases?filterCaseStatus=CLOSED'));
    expect(closed['items']).toEqual([]);
  });

  it('refuse an unknown or repeated parameter, a bad value and a garbled cursor with a 400 naming them', async () => {
    const { handler } = await setup();
    const unknown = await call(handler, 'GET', '/cases?filterAlertStatus=OPEN');
    expect((await json(unknown))['message']).toMatch(/query parameter filterAlertStatus is not taken by this route/);
    expect((await problemOf(await call(handler, 'GET', '/alerts?pageSize=1&pageSize=2')))[0]).toBe(400);
    expect(await problemOf(await call(handler, 'GET', '/alerts?pageSize=0'))).toEqual([400, 'VALIDATION_FAILED', '/pageSize']);
    expect(await problemOf(await call(handler, 'GET', '/alerts?pageSize=ten'))).toEqual([400, 'VALIDATION_FAILED', '/pageSize']);
    expect(await problemOf(await call(handler, 'GET', '/alerts?sortBy=caseId'))).toEqual([400, 'VALIDATION_FAILED', '/sortBy']);
    expect(await problemOf(await call(handler, 'GET', '/cases?filterCaseStatus=SHUT'))).toEqual([400, 'VALIDATION_FAILED', '/filterCaseStatus/0']);
    expect(await problemOf(await call(handler, 'GET', '/cases?filterAfterCreatedTimestamp=yesterday'))).toEqual([
      400,
      'VALIDATION_FAILED',
      '/filterAfterCreatedTimestamp',
    ]);
    expect(await problemOf(await call(handler, 'GET', '/cases?start=not-a-cursor'))).toEqual([400, 'VALIDATION_FAILED', '/start']);
  });
});

describe('status changes, PATCH and comments', () => {
  it('POST /cases/{caseId}/statuses closes the case and its alerts; the case view holds the comment', async () => {
    const { handler, alice } = await setup();
    const response = await call(handler, 'POST', `/cases/${alice.caseId}/statuses`, {
      body: { status: 'CLOSED', reason: ['CONFIRMED_SUSPICIOUS_REPORTED'], comment: 'SAR filed' },
    });
    expect(response.status).toBe(200);
    expect((await json(response))['caseStatus']).toBe('CLOSED');
    const alert = await json(await call(handler, 'GET', `/alerts/${alice.alertId}`));
    expect([alert['alertStatus'], (alert['closingReason'] as { reason: string[] }).reason, alert['comments']]).toEqual([
      'CLOSED',
      ['CONFIRMED_SUSPICIOUS_REPORTED'],
      [],
    ]);
    const view = await json(await call(handler, 'GET', `/cases/${alice.caseId}`));
    expect((view['comments'] as { body: string }[]).map((c) => c.body)).toEqual(['SAR filed']);
    expect(await json(await call(handler, 'GET', `/cases/${alice.caseId}/comments`))).toEqual(view['comments']);
  });

  it('a refused move is a 400 naming it; a close without a reason a 400 at /reason; an unknown id a 404', async () => {
    const { handler, alice } = await setup();
    const refused = await call(handler, 'POST', `/alerts/${alice.alertId}/statuses`, { body: { status: 'OPEN' } });
    const body = await json(refused);
    expect([refused.status, body['code'], body['errors']]).toEqual([
      400,
      'INVALID_STATUS_MOVE',
      [{ path: '/status', code: 'transition', message: 'OPEN → OPEN is not allowed' }],
    ]);
    expect(await problemOf(await call(handler, 'POST', `/cases/${alice.caseId}/statuses`, { body: { status: 'CLOSED' } }))).toEqual([
      400,
      'VALIDATION_FAILED',
      '/reason',
    ]);
    expect(await problemOf(await call(handler, 'POST', `/cases/${alice.caseId}/statuses`, { body: { status: 'CLOSED', reason: ['OTHER'] } }))).toEqual([
      400,
      'VALIDATION_FAILED',
      '/otherReason',
    ]);
    expect((await problemOf(await call(handler, 'POST', '/cases/nope/statuses', { body: { status: 'ESCALATED' } })))[0]).toBe(404);
    expect((await problemOf(await call(handler, 'POST', '/alerts/nope/statuses', { body: { status: 'ESCALATED' } })))[0]).toBe(404);
    expect((await problemOf(await call(handler, 'PATCH', '/alerts/nope', { body: { priority: 'P1' } })))[0]).toBe(404);
    expect((await problemOf(await call(handler, 'GET', '/alerts/nope/comments')))[0]).toBe(404);
    expect((await problemOf(await call(handler, 'GET', '/users/nobody/comments')))[0]).toBe(404);
  });

  it('PATCH sets priority and assignments, refuses other fields, and moves the due date', async () => {
    const { handler, alice } = await setup();
    const patched = await json(
      await call(handler, 'PATCH', `/cases/${alice.caseId}`, { body: { priority: 'P4', assignments: [{ assigneeEmail: 'ana@bank.example' }] } }),
    );
    expect([patched['priority'], (patched['assignments'] as { assigneeEmail: string }[])[0]?.assigneeEmail]).toEqual(['P4', 'ana@bank.example']);
    expect(patched['slaDueTimestamp']).toBe((patched['createdTimestamp'] as number) + 336 * 3_600_000);
    expect(await problemOf(await call(handler, 'PATCH', `/cases/${alice.caseId}`, { body: { caseStatus: 'CLOSED' } }))).toEqual([
      400,
      'VALIDATION_FAILED',
      '/caseStatus',
    ]);
    expect(await problemOf(await call(handler, 'PATCH', `/alerts/${alice.alertId}`, { body: { priority: 'P9' } }))).toEqual([
      400,
      'VALIDATION_FAILED',
      '/priority',
    ]);
  });

  it('GET /users/{userId}/comments lists the comments of a user', async () => {
    const { handler } = await setup();
    await call(handler, 'POST', '/users/alice/comments', { body: { body: 'called the customer' } });
    expect((await json(await call(handler, 'GET', '/users/alice/comments'))) as unknown).toMatchObject([{ body: 'called the customer', files: [] }]);
  });
});
