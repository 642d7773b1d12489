import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { T0, tx } from '../helpers.js';
import { createCaller, httpTestEngine, json, ORIGIN } from './fixtures.js';

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
const call = createCaller(KEY_A);

describe('createHttpHandler: ids', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A] });

  it('an id of 256 astral characters (512 UTF-16 units) is stored and read back through its path', async () => {
    const id = '\u{1F600}'.repeat(256);
    const t = tx({ transactionId: id, timestamp: T0 });
    expect((await call(handler, 'POST', '/transactions', { body: t })).status).toBe(201);
    const got = await call(handler, 'GET', `/transactions/${encodeURIComponent(id)}`);
    expect(got.status).toBe(200);
    expect((await json(got)).transactionId).toBe(id);
    const longer = await call(handler, 'POST', '/transactions', { body: tx({ transactionId: `${id}x`, timestamp: T0 }) });
    expect(longer.status).toBe(400);
  });

  it('refuses an id with a lone surrogate at write, naming its path', async () => {
    const response = await call(handler, 'POST', '/transactions', {
      raw: JSON.stringify(tx({ timestamp: T0 })).replace(/"transactionId":"[^"]*"/, '"transactionId":"t-\\ud800"'),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).errors).toEqual([expect.objectContaining({ path: '/transactionId', code: 'not-json' })]);
  });
});

describe('tenants never see each other (docs/guarantees.md#tenant-isolation)', () => {
  const a = httpTestEngine();
  const b = httpTestEngine();
  const handler = createHttpHandler({
    tenants: [
      { id: 'a', apiKeys: [KEY_A], engine: a },
      { id: 'b', apiKeys: [KEY_B], engine: b },
    ],
  });

  it('every read route of tenant B misses what tenant A created; lists and instances are separate', async () => {
    const t = tx({ timestamp: T0 });
    await call(handler, 'POST', '/transactions', { body: t, key: KEY_A });
    await call(handler, 'POST', '/events/transaction', {
      body: { transactionId: t.transactionId, eventId: 'ev-a', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' },
      key: KEY_A,
    });
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'u-a', createdTimestamp: T0 }, key: KEY_A });
    const instance = (await json(await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-1' }, key: KEY_A }))) as { id: string };
    await call(handler, 'PUT', '/lists/l-a', { body: { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] }, key: KEY_A });
    await call(handler, 'POST', '/rule-instances', {
      body: { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 } }, alertCreationOnHit: true },
      key: KEY_A,
    });
    await call(handler, 'POST', '/transactions', { body: tx({ timestamp: T0 + 1, originUserId: 'u-a' }), key: KEY_A });
    const [alert] = await a.listAlerts();
    expect(alert).toBeDefined();
    const misses: [string, string][] = [
      ['GET', `/alerts/${alert?.alertId}`],
      ['GET', `/cases/${alert?.caseId}`],
      ['POST', `/alerts/${alert?.alertId}/comments`],
      ['POST', `/cases/${alert?.caseId}/comments`],
      ['POST', '/users/u-a/comments'],
      ['GET', `/transactions/${t.transactionId}`],
      ['GET', '/events/transaction/ev-a'],
      ['GET', '/consumer/users/u-a'],
      ['GET', `/rule-instances/${instance.id}`],
      ['POST', `/rule-instances/${instance.id}`],
      ['DELETE', `/rule-instances/${instance.id}`],
      ['GET', '/lists/l-a'],
      ['DELETE', '/lists/l-a'],
    ];
    for (const [method, path] of misses) {
      const body = path.endsWith('/comments') ? { body: 'from the other tenant' } : { action: 'BLOCK' };
      const r = await call(handler, method, path, { key: KEY_B, ...(method === 'POST' ? { body } : {}) });
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 });
    }
    expect(await json(await call(handler, 'GET', '/rule-instances', { key: KEY_B }))).toEqual([]);
    expect(await json(await call(handler, 'GET', '/lists', { key: KEY_B }))).toEqual([]);
    // The same event id is free in tenant B; A still has everything.
    expect((await call(handler, 'GET', `/transactions/${t.transactionId}`, { key: KEY_A })).status).toBe(200);
    expect((await a.listRuleInstances()).length).toBe(2);
    expect((await b.listRuleInstances()).length).toBe(0);
  });

  it("a tenant's signed file URL only works under its own /t/<id> prefix", async () => {
    const slot = (await json(await call(handler, 'POST', '/pre-signed-url', { body: { filename: 'a.txt', fileSize: 2 }, key: KEY_A }))) as { url: string };
    const other = await handler(new Request(`${ORIGIN}/t/b${slot.url}`, { method: 'PUT', body: 'hi' }));
    expect(other.status).toBe(401);
    const own = await handler(new Request(`${ORIGIN}/t/a${slot.url}`, { method: 'PUT', body: 'hi' }));
    expect(own.status).toBe(204);
    expect((await handler(new Request(`${ORIGIN}${slot.url}`, { method: 'PUT', body: 'hi' }))).status).toBe(404);
  });
});

describe('bad input never breaks the server (docs/guarantees.md#no-500)', () => {
  const e = httpTestEngine();
  const handler = createHttpHandler({ engine: e, apiKeys: [KEY_A], maxBodyBytes: 64 * 1024 });
  const routes: [string, string][] = [
    ['POST', '/transactions'],
    ['POST', '/events/transaction'],
    ['POST', '/consumer/users'],
    ['POST', '/business/users'],
    ['POST', '/users/u-1/comments'],
    ['POST', '/cases/c-1/comments'],
    ['POST', '/alerts/a-1/comments'],
    ['POST', '/rule-instances'],
    ['POST', '/rule-instances/ri-1'],
    ['POST', '/pre-signed-url'],
    ['PUT', '/lists/l-1'],
  ];
  const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  const payloadArb = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
    fc.constantFrom(
      '{"__proto__": {"polluted": true}}',
      '{"constructor": {"prototype": {"x": 1}}}',
      '{"a": 1, "a": 2}',
      deep(5000),
      '{"type":"TRANSFER"',
      '"x'.repeat(10),
    ),
    fc.record({ transactionId: fc.string(), type: fc.anything(), timestamp: fc.anything() }).map((v) => JSON.stringify(v)),
    fc.nat({ max: 70_000 }).map((n) => JSON.stringify({ s: 'x'.repeat(n) })),
  );
  /** What a client could observe of the state: instances, lists, alerts, cases. */
  const snapshot = async () => JSON.stringify([await e.listRuleInstances(), await e.listLists(), await e.listAlerts(), await e.listCases()]);
  test.prop([fc.constantFrom(...routes), payloadArb], { numRuns: 150 })(
    'any body to any route: a 4xx problem, no pollution, state unchanged',
    async ([method, path], raw) => {
      const before = await snapshot();
      const r = await call(handler, method, path, { raw });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await snapshot()).toBe(before);
    },
  );

  // Every route, with arbitrary path parameters, methods and query strings (no body).
  const patterns = [
    '/transactions/$',
    '/events/transaction/$',
    '/consumer/users/$',
    '/business/users/$',
    '/rule-instances/$',
    '/rules/$',
    '/alerts/$',
    '/cases/$',
    '/lists/$',
    '/uploads/$',
    '/files/$',
    '/$',
    '/$/comments',
  ];
  test.prop(
    [
      fc.constantFrom(...patterns),
      fc.string({ maxLength: 300 }),
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      fc.string({ maxLength: 50 }),
    ],
    { numRuns: 200 },
  )('any path parameter, method and query on every route: a 4xx, never a 500, state unchanged', async (pattern, param, method, query) => {
    const before = await snapshot();
    const path = pattern.replace('$', encodeURIComponent(param)) + (query === '' ? '' : `?${encodeURIComponent(query)}`);
    const r = await call(handler, method, path, method === 'POST' || method === 'PUT' ? { raw: '{}' } : {});
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(await snapshot()).toBe(before);
  });

  it('the server still answers after the storm', async () => {
    expect((await call(handler, 'POST', '/transactions', { body: tx({ timestamp: T0 }) })).status).toBe(201);
  });
});

describe('createHttpHandler: a failing onRequest hook', () => {
  it('is called once, and the response stands (a stored transaction is not reported as a 500)', async () => {
    let calls = 0;
    const handler = createHttpHandler({
      engine: createEngine(),
      apiKeys: [KEY_A],
      onRequest: () => {
        calls += 1;
        throw new Error('log sink down');
      },
    });
    const response = await handler(new Request('http://localhost/healthz'));
    expect(response.status).toBe(200);
    expect(calls).toBe(1);
  });
});
