/**
 * The audit trail over HTTP: every mutating route of a rule instance, a list, a user or a comment
 * appends exactly one entry per change, naming the API key's tenant and label; a refused request
 * appends nothing; `GET /audit-log` takes its filters as query parameters and refuses others.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import { T0, tx } from '../helpers.js';
import { createCaller, httpTestEngine, json } from './fixtures.js';

const KEY = 'audit-key-0123456789abcdef';
const PLAIN_KEY = 'audit-plain-0123456789abcdef';
const call = createCaller(KEY);

function setup() {
  const engine = httpTestEngine();
  const handler = createHttpHandler({ tenants: [{ id: 'acme', apiKeys: [{ key: KEY, label: 'ops-console' }, PLAIN_KEY], engine }] });
  return { engine, handler };
}

describe('the audit trail over HTTP', () => {
  it('every mutating route appends exactly one entry per change, naming the key as <tenant>/<label>', async () => {
    const { engine, handler } = setup();
    const count = async () => (await engine.listAuditLog()).count;
    const expectOne = async (
      method: string,
      path: string,
      body: unknown,
      status: number,
      expected: { entityType: string; action: string; entityId?: string | undefined },
    ) => {
      const before = await count();
      const response = await call(handler, method, path, body === undefined ? {} : { body });
      expect([method, path, response.status]).toEqual([method, path, status]);
      const page = await engine.listAuditLog({ sortOrder: 'descend', pageSize: 1 });
      expect(page.count).toBe(before + 1);
      expect(page.items[0]).toMatchObject({ ...expected, actor: 'acme/ops-console' });
      return response;
    };
    const created = (await json(
      await expectOne('POST', '/rule-instances', { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } }, 200, {
        entityType: 'RULE_INSTANCE',
        action: 'CREATE',
      }),
    )) as { id: string };
    await expectOne('POST', `/rule-instances/${created.id}`, { ruleNameAlias: 'Large payment' }, 200, { entityType: 'RULE_INSTANCE', action: 'UPDATE' });
    await expectOne('PUT', '/lists/l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a'] }, 200, { entityType: 'LIST', action: 'CREATE' });
    await expectOne('PUT', '/lists/l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a', 'b'] }, 200, { entityType: 'LIST', action: 'UPDATE' });
    await expectOne('DELETE', '/lists/l-1', undefined, 204, { entityType: 'LIST', action: 'DELETE' });
    await expectOne('POST', '/consumer/users', { userId: 'u-1', createdTimestamp: T0 }, 200, { entityType: 'USER', action: 'CREATE' });
    await expectOne('POST', '/business/users', { userId: 'b-1', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'Acme' } } }, 200, {
      entityType: 'USER',
      action: 'CREATE',
    });
    await expectOne(
      'POST',
      '/events/consumer/user',
      { userId: 'u-1', timestamp: T0 + 1, updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'DE' } } },
      201,
      { entityType: 'USER', action: 'UPDATE' },
    );
    await expectOne(
      'POST',
      '/events/business/user',
      { userId: 'b-1', timestamp: T0 + 1, updatedBusinessUserAttributes: { legalEntity: { companyGeneralDetails: { legalName: 'Acme Ltd' } } } },
      201,
      { entityType: 'USER', action: 'UPDATE' },
    );
    await expectOne('POST', '/batch/consumer/users', { batchId: 'bu', data: [{ userId: 'u-2', createdTimestamp: T0 }] }, 201, {
      entityType: 'USER',
      action: 'CREATE',
    });
    await expectOne(
      'POST',
      '/batch/events/consumer/user',
      {
        batchId: 'be',
        data: [{ userId: 'u-2', eventId: 'be-1', timestamp: T0 + 1, updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'FR' } } }],
      },
      201,
      { entityType: 'USER', action: 'UPDATE' },
    );
    // A hit opens an alert in a case: both take comments.
    const result = (await json(
      await call(handler, 'POST', '/transactions', {
        body: tx({ timestamp: T0, originUserId: 'u-1', originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' } }),
      }),
    )) as { hitRules: unknown[] };
    expect(result.hitRules).toHaveLength(1);
    const [alert] = await engine.listAlerts();
    await expectOne('POST', '/users/u-1/comments', { body: 'Called the customer' }, 201, { entityType: 'COMMENT', action: 'CREATE' });
    await expectOne('POST', `/alerts/${alert?.alertId}/comments`, { body: 'Looks fine' }, 201, { entityType: 'COMMENT', action: 'CREATE' });
    await expectOne('POST', `/cases/${alert?.caseId}/comments`, { body: 'Closing soon' }, 201, { entityType: 'COMMENT', action: 'CREATE' });
    await expectOne('PATCH', `/alerts/${alert?.alertId}`, { priority: 'P1' }, 200, { entityType: 'ALERT', action: 'UPDATE', entityId: alert?.alertId });
    await expectOne('POST', `/alerts/${alert?.alertId}/statuses`, { status: 'IN_PROGRESS' }, 200, { entityType: 'ALERT', action: 'STATUS_CHANGE' });
    await expectOne('PATCH', `/cases/${alert?.caseId}`, { assignments: [{ assigneeEmail: 'ana@bank.example' }] }, 200, {
      entityType: 'CASE',
      action: 'UPDATE',
    });
    await expectOne('POST', `/cases/${alert?.caseId}/statuses`, { status: 'CLOSED', reason: ['FALSE_POSITIVE'] }, 200, {
      entityType: 'CASE',
      action: 'STATUS_CHANGE',
      entityId: alert?.caseId,
    });
    await expectOne('DELETE', `/rule-instances/${created.id}`, undefined, 204, { entityType: 'RULE_INSTANCE', action: 'DELETE' });
    // The transaction and its event appended nothing (decisions are not API changes to an entity).
    expect((await engine.listAuditLog({ pageSize: 100 })).items.every((e) => e.actor === 'acme/ops-console')).toBe(true);
  });

  it('a key without a label is named by the first 8 hex digits of its SHA-256', async () => {
    const { engine, handler } = setup();
    await call(handler, 'PUT', '/lists/l-1', { body: { listType: 'BLACKLIST', subtype: 'USER_ID', items: [] }, key: PLAIN_KEY });
    const digest = createHash('sha256').update(PLAIN_KEY).digest('hex').slice(0, 8);
    expect((await engine.listAuditLog()).items.map((e) => e.actor)).toEqual([`acme/key-${digest}`]);
  });

  it('a refused request appends nothing: a 400, a 404, a 401', async () => {
    const { engine, handler } = setup();
    expect((await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-404' } })).status).toBe(400);
    expect((await call(handler, 'PUT', '/lists/l-1', { body: { listType: 'NOPE' } })).status).toBe(400);
    expect((await call(handler, 'DELETE', '/lists/none')).status).toBe(404);
    expect((await call(handler, 'POST', '/users/nobody/comments', { body: { body: 'x' } })).status).toBe(404);
    expect(
      (await call(handler, 'PUT', '/lists/l-1', { body: { listType: 'BLACKLIST', subtype: 'USER_ID', items: [] }, key: 'wrong-key-0123456789abcdef' })).status,
    ).toBe(401);
    expect((await engine.listAuditLog()).count).toBe(0);
  });

  it('GET /audit-log takes the filters and the cursor as query parameters, and refuses unknown ones naming them', async () => {
    const { handler } = setup();
    for (const id of ['l-1', 'l-2', 'l-3']) await call(handler, 'PUT', `/lists/${id}`, { body: { listType: 'BLACKLIST', subtype: 'USER_ID', items: [] } });
    const first = await json(await call(handler, 'GET', '/audit-log?entityType=LIST&pageSize=2'));
    expect([(first.items as { entityId: string }[]).map((e) => e.entityId), first.hasNext, first.count, first.pageSize]).toEqual([['l-1', 'l-2'], true, 3, 2]);
    const second = await json(await call(handler, 'GET', `/audit-log?entityType=LIST&pageSize=2&start=${first.next as string}`));
    expect([(second.items as { entityId: string }[]).map((e) => e.entityId), second.hasNext]).toEqual([['l-3'], false]);
    const newest = await json(await call(handler, 'GET', `/audit-log?sortOrder=descend&actor=acme%2Fops-console&afterTimestamp=${T0}&beforeTimestamp=${T0}`));
    expect((newest.items as { entityId: string }[]).map((e) => e.entityId)).toEqual(['l-3', 'l-2', 'l-1']);
    const unknown = await call(handler, 'GET', '/audit-log?entityType=LIST&colour=red&size=2');
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).message).toMatch(/colour, size/);
    for (const query of ['start=garbage', 'pageSize=0', 'pageSize=abc', 'afterTimestamp=yesterday', 'entityType=TRANSACTION', 'pageSize=1&pageSize=2']) {
      expect([query, (await call(handler, 'GET', `/audit-log?${query}`)).status]).toEqual([query, 400]);
    }
  });
});
