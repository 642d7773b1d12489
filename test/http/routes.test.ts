import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import { actionOf, allowOf, createRoutes } from '../../src/http/routes.js';
import { createEngine } from '../../src/index.js';
import { fixedClock, sequentialIds, T0, tx } from '../helpers.js';
import { createCaller, httpTestEngine, json, ORIGIN } from './fixtures.js';
import { headerOf, listenOn, sendRaw, statusOf } from './raw-http.js';

const KEY_A = 'key-a-0123456789abcdef';
const call = createCaller(KEY_A);

describe('actionOf and allowOf', () => {
  const routes = createRoutes(
    () => ({}),
    async () => ({ status: 'ready', checks: [] }),
  );
  const route = (pattern: string) => routes.find((r) => r.pattern === pattern) ?? expect.fail(pattern);

  it('HEAD takes the GET action; a method the route lacks has none', () => {
    expect(actionOf(route('/rules'), 'HEAD')).toBe(actionOf(route('/rules'), 'GET'));
    expect(actionOf(route('/rules'), 'DELETE')).toBeUndefined();
    expect(actionOf(route('/transactions'), 'HEAD')).toBeUndefined();
  });

  it("Allow lists the route's methods, and HEAD where it has GET", () => {
    expect(allowOf(route('/rule-instances/{ruleInstanceId}'))).toBe('GET, POST, DELETE, HEAD');
    expect(allowOf(route('/transactions'))).toBe('POST');
  });

  it('only /healthz and /readyz are public and only the file routes are signed', () => {
    expect(routes.filter((r) => r.access === 'public').map((r) => r.pattern)).toEqual(['/healthz', '/readyz']);
    expect(routes.filter((r) => r.access === 'signed-url').map((r) => r.pattern)).toEqual(['/uploads/{key}', '/files/{key}']);
  });
});

describe('createRoutes: every route of docs/wire-format.md#endpoints answers through createHttpHandler', () => {
  const routesEngine = httpTestEngine();
  const handler = createHttpHandler({ engine: routesEngine, apiKeys: [KEY_A] });

  it('POST /transactions → 201 with the monitoring result; GET returns it', async () => {
    const t = tx({ timestamp: T0 });
    const created = await call(handler, 'POST', '/transactions', { body: t });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(await json(created)).toMatchObject({ transactionId: t.transactionId, status: 'ALLOW', executedRules: [], hitRules: [] });
    const got = await call(handler, 'GET', `/transactions/${encodeURIComponent(t.transactionId as string)}`);
    expect(got.status).toBe(200);
    expect(await json(got)).toMatchObject({ transactionId: t.transactionId, type: 'TRANSFER' });
  });

  it('POST /transactions on a strict engine with a rule not evaluated → 422 RULE_NOT_EVALUATED naming the amount, nothing stored; a batch record is refused alone', async () => {
    const strict = createEngine({ strict: true, clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(99) });
    await strict.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
    const strictHandler = createHttpHandler({ engine: strict, apiKeys: [KEY_A] });
    const btc = tx({ transactionId: 'h-btc', timestamp: T0, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'BTC' } });
    const refused = await call(strictHandler, 'POST', '/transactions', { body: btc });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(await json(refused)).toMatchObject({
      status: 422,
      code: 'RULE_NOT_EVALUATED',
      errors: [{ path: '/originAmountDetails/transactionAmount', code: 'not-evaluated' }],
      validationErrors: expect.stringContaining('/originAmountDetails/transactionAmount'),
    });
    expect((await call(strictHandler, 'GET', '/transactions/h-btc')).status).toBe(404);
    const batch = await call(strictHandler, 'POST', '/batch/transactions', {
      body: { batchId: 'hb-strict', data: [btc, tx({ transactionId: 'h-eur', timestamp: T0 })] },
    });
    expect(await json(batch)).toMatchObject({ successful: 1, failed: 1, failedRecords: [{ id: 'h-btc', reasonCode: 'RULE_NOT_EVALUATED' }] });
  });

  it('POST /transactions with a rule not evaluated (not strict) → 201, the executed rule marked and the result warned', async () => {
    const engine = httpTestEngine();
    const instance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
    const lenient = createHttpHandler({ engine, apiKeys: [KEY_A] });
    const btc = tx({ transactionId: 'h-btc', timestamp: T0, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'BTC' } });
    const created = await call(lenient, 'POST', '/transactions', { body: btc });
    expect(created.status).toBe(201);
    const notEvaluated = { reason: 'NO_RATE', currency: 'BTC', to: 'EUR', path: '/originAmountDetails/transactionAmount' };
    expect(await json(created)).toMatchObject({
      status: 'ALLOW',
      executedRules: [{ ruleInstanceId: instance.id, ruleHit: false, notEvaluated }],
      warnings: [{ code: 'RULE_NOT_EVALUATED', ruleInstanceId: instance.id, notEvaluated }],
    });
    expect(await json(await call(lenient, 'GET', '/transactions/h-btc'))).toMatchObject({ warnings: [{ code: 'RULE_NOT_EVALUATED' }] });
  });

  it('POST /batch/transactions → 201 with the BatchResponse; GET /batch/transactions/{batchId} pages the results (page, pageSize)', async () => {
    const data = [tx({ transactionId: 'hb-1', timestamp: T0 }), { transactionId: 'hb-bad' }, tx({ transactionId: 'hb-2', timestamp: T0 + 1 })];
    const created = await call(handler, 'POST', '/batch/transactions', { body: { batchId: 'hb', data } });
    expect(created.status).toBe(201);
    expect(await json(created)).toEqual({
      status: 'PARTIAL_FAILURE',
      batchId: 'hb',
      successful: 2,
      failed: 1,
      failedRecords: [{ id: 'hb-bad', reasonCode: 'VALIDATION_FAILED' }],
    });
    const page = await call(handler, 'GET', '/batch/transactions/hb?page=2&pageSize=1');
    expect(page.status).toBe(200);
    expect(await json(page)).toEqual({ transactions: [{ transactionId: 'hb-2', status: 'ALLOW', hitRules: [] }], totalCount: 2 });
  });

  it('batch errors: an unknown batch → 404 BATCH_NOT_FOUND, a bad page → 400 naming /page, another body under a batchId → 409, a bad mode → 400 naming /mode', async () => {
    const unknown = await call(handler, 'GET', '/batch/transactions/nope');
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: 'BATCH_NOT_FOUND' });
    await call(handler, 'POST', '/batch/transactions', { body: { batchId: 'he', data: [tx()] } });
    const page = await call(handler, 'GET', '/batch/transactions/he?page=x');
    expect(page.status).toBe(400);
    expect(await json(page)).toMatchObject({ errors: [{ path: '/page' }] });
    const conflict = await call(handler, 'POST', '/batch/transactions', { body: { batchId: 'he', data: [tx()] } });
    expect(conflict.status).toBe(409);
    expect(await json(conflict)).toMatchObject({ code: 'BATCH_ID_CONFLICT' });
    const mode = await call(handler, 'POST', '/batch/transactions?mode=fast', { body: { data: [tx()] } });
    expect(mode.status).toBe(400);
    expect(await json(mode)).toMatchObject({ errors: [{ path: '/mode' }] });
  });

  it('POST /batch/transactions?mode=IMPORT stores history without running rules', async () => {
    const imported = await call(handler, 'POST', '/batch/transactions?mode=IMPORT', { body: { data: [tx({ transactionId: 'hi-1' })] } });
    expect(imported.status).toBe(201);
    expect(await json(await call(handler, 'GET', '/transactions/hi-1'))).toMatchObject({ status: 'ALLOW', executedRules: [] });
  });

  it('a batch body may pass the 1 MiB body limit of single calls (batches have their own, 64 MiB by default)', async () => {
    const data = Array.from({ length: 2_000 }, (_, i) => tx({ transactionId: `big-${i}`, timestamp: T0 + i, reference: 'x'.repeat(400) }));
    expect(JSON.stringify(data).length).toBeGreaterThan(1024 * 1024);
    const created = await call(handler, 'POST', '/batch/transactions', { body: { data } });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ status: 'SUCCESS', successful: 2_000 });
    const small = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A], maxBatchBodyBytes: 1024 });
    expect((await call(small, 'POST', '/batch/transactions', { body: { data } })).status).toBe(413);
  });

  it('event, user and user-event batches: POST → 201, GET pages them', async () => {
    await call(handler, 'POST', '/transactions', { body: tx({ transactionId: 'hev', timestamp: T0 }) });
    const events = await call(handler, 'POST', '/batch/events/transaction', {
      body: { batchId: 'hev', data: [{ transactionId: 'hev', eventId: 'hev-1', timestamp: T0 + 1, transactionState: 'SENT' }] },
    });
    expect(events.status).toBe(201);
    expect(await json(await call(handler, 'GET', '/batch/events/transaction/hev'))).toMatchObject({
      transactionEvents: [{ eventId: 'hev-1', transactionState: 'SENT', status: 'ALLOW' }],
      totalCount: 1,
    });
    const users = await call(handler, 'POST', '/batch/business/users', {
      body: { batchId: 'hbu', data: [{ userId: 'hbu-1', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'Acme' } } }] },
    });
    expect(users.status).toBe(201);
    expect(await json(await call(handler, 'GET', '/batch/business/users/hbu'))).toMatchObject({ businessUsers: [{ userId: 'hbu-1' }], totalCount: 1 });
    const userEvents = await call(handler, 'POST', '/batch/events/business/user', {
      body: {
        batchId: 'hbe',
        data: [
          { userId: 'hbu-1', eventId: 'hbe-1', timestamp: T0 + 1, reason: 'review' },
          { userId: 'hbu-1', timestamp: T0 + 2 },
        ],
      },
    });
    expect(userEvents.status).toBe(201);
    expect(await json(userEvents)).toMatchObject({
      status: 'PARTIAL_FAILURE',
      successful: 1,
      failedRecords: [{ id: 'hbu-1', reasonCode: 'VALIDATION_FAILED' }],
    });
    expect(await json(await call(handler, 'GET', '/batch/events/business/user/hbe'))).toMatchObject({
      businessUserEvents: [{ eventId: 'hbe-1', userId: 'hbu-1', executedRules: [] }],
      totalCount: 1,
    });
    expect((await call(handler, 'GET', '/batch/events/consumer/user/hbe')).status).toBe(404);
  });

  it('POST /events/transaction → 201; GET /events/transaction/{eventId}', async () => {
    const t = tx({ timestamp: T0 });
    await call(handler, 'POST', '/transactions', { body: t });
    const ev = await call(handler, 'POST', '/events/transaction', {
      body: { transactionId: t.transactionId, eventId: 'ev-1', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' },
    });
    expect(ev.status).toBe(201);
    expect((await call(handler, 'GET', '/events/transaction/ev-1')).status).toBe(200);
  });

  it('users: POST /consumer/users and /business/users, GET each', async () => {
    const consumer = await call(handler, 'POST', '/consumer/users', { body: { userId: 'c-1', createdTimestamp: T0 } });
    expect(consumer.status).toBe(200);
    expect((await call(handler, 'GET', '/consumer/users/c-1')).status).toBe(200);
    const business = await call(handler, 'POST', '/business/users', {
      body: { userId: 'b-1', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'Acme GmbH' } } },
    });
    expect(business.status).toBe(200);
    expect((await call(handler, 'GET', '/business/users/b-1')).status).toBe(200);
  });

  it('POST /consumer/users?validateUserId=true on an existing user → 400 at /userId; the stored profile is kept', async () => {
    const body = { userId: 'c-v', createdTimestamp: T0, userDetails: { countryOfResidence: 'DE' }, kycStatusDetails: { status: 'SUCCESSFUL' } };
    expect((await call(handler, 'POST', '/consumer/users?validateUserId=true', { body })).status).toBe(200);
    const again = await call(handler, 'POST', '/consumer/users?validateUserId=true', { body: { userId: 'c-v', createdTimestamp: T0 } });
    expect(again.status).toBe(400);
    expect(await json(again)).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: '/userId', code: 'duplicate' }] });
    expect((await call(handler, 'POST', '/consumer/users?validateUserId=false', { body: { userId: 'c-v', createdTimestamp: T0 } })).status).toBe(200);
    expect(await json(await call(handler, 'GET', '/consumer/users/c-v'))).toMatchObject({
      userDetails: { countryOfResidence: 'DE' },
      kycStatusDetails: { status: 'SUCCESSFUL' },
    });
  });

  it('POST /transactions?validateOriginUserId=true with an unknown user → 400 at /originUserId', async () => {
    const t = tx({ timestamp: T0, originUserId: 'nobody-o' });
    const refused = await call(handler, 'POST', '/transactions?validateOriginUserId=true', { body: t });
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ errors: [{ path: '/originUserId', code: 'not-found' }] });
    const d = tx({ timestamp: T0, destinationUserId: 'nobody-d' });
    expect(await json(await call(handler, 'POST', '/transactions?validateDestinationUserId=true', { body: d }))).toMatchObject({
      errors: [{ path: '/destinationUserId' }],
    });
  });

  it.each([
    ['/transactions?validateUserId=true', 'validateUserId'],
    ['/transactions?validateOriginUserId=yes', 'validateOriginUserId'],
    ['/consumer/users?lockCraRiskLevel=true', 'lockCraRiskLevel'],
    ['/business/users?lockKycRiskLevel=true', 'lockKycRiskLevel'],
    ['/consumer/users?validateUserId=true&validateUserId=false', 'validateUserId'],
    ['/consumer/users?validateuserid=true', 'validateuserid'],
  ])('POST %s → 400 naming %s', async (path, name) => {
    const isUser = !path.startsWith('/transactions');
    const body = isUser ? { userId: `q-${name}`, createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'Q' } } } : tx({ timestamp: T0 });
    const response = await call(handler, 'POST', path, { body: path.startsWith('/consumer') ? { userId: `q-${name}`, createdTimestamp: T0 } : body });
    expect(response.status).toBe(400);
    expect(((await json(response)) as { message: string }).message).toContain(name);
  });

  it('user events: POST /events/consumer/user and /events/business/user → 201 with the user and its results; GET each; replay, 409, 404', async () => {
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'ue-c', createdTimestamp: T0, kycStatusDetails: { status: 'IN_PROGRESS' } } });
    await call(handler, 'POST', '/business/users', {
      body: { userId: 'ue-b', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'B' } } },
    });
    const body = { userId: 'ue-c', eventId: 'uev-c', timestamp: T0 + 1, updatedConsumerUserAttributes: { kycStatusDetails: { status: 'SUCCESSFUL' } } };
    const created = await call(handler, 'POST', '/events/consumer/user', { body });
    expect(created.status).toBe(201);
    const answer = await json(created);
    expect(answer).toMatchObject({ userId: 'ue-c', kycStatusDetails: { status: 'SUCCESSFUL' }, executedRules: [], hitRules: [] });
    expect(await json(await call(handler, 'POST', '/events/consumer/user', { body }))).toEqual(answer);
    const conflicting = await call(handler, 'POST', '/events/consumer/user', { body: { ...body, timestamp: T0 + 2 } });
    expect(conflicting.status).toBe(409);
    expect(await json(conflicting)).toMatchObject({ code: 'EVENT_ID_CONFLICT' });
    const got = await call(handler, 'GET', '/events/consumer/user/uev-c');
    expect(got.status).toBe(200);
    expect(await json(got)).toMatchObject({ ...body, executedRules: [], hitRules: [] });
    expect((await call(handler, 'GET', '/events/business/user/uev-c')).status).toBe(404);
    expect(await json(await call(handler, 'GET', '/consumer/users/ue-c'))).toMatchObject({ kycStatusDetails: { status: 'SUCCESSFUL' } });
    const business = await call(handler, 'POST', '/events/business/user', {
      body: { userId: 'ue-b', eventId: 'uev-b', timestamp: T0 + 1, updatedBusinessUserAttributes: { userStateDetails: { state: 'BLOCKED' } } },
    });
    expect(business.status).toBe(201);
    expect((await call(handler, 'GET', '/events/business/user/uev-b')).status).toBe(200);
    expect((await call(handler, 'POST', '/events/consumer/user', { body: { userId: 'nobody', timestamp: T0 } })).status).toBe(404);
    const flagged = await call(handler, 'POST', '/events/consumer/user?allowUserTypeConversion=true', { body: { userId: 'ue-c', timestamp: T0 } });
    expect(flagged.status).toBe(400);
    expect(((await json(flagged)) as { message: string }).message).toContain('allowUserTypeConversion');
    expect((await call(handler, 'POST', '/events/consumer/user?validateUserId=true', { body: { userId: 'ue-c', timestamp: T0 } })).status).toBe(400);
  });

  it('a query parameter that is no flag of the API is ignored, as on every route', async () => {
    expect((await call(handler, 'POST', '/transactions?c=1', { body: tx({ timestamp: T0 }) })).status).toBe(201);
  });

  it('rule instances: create (200), list, get, update (POST), delete (204), then 404', async () => {
    const created = await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } } });
    expect(created.status).toBe(200);
    const { id } = (await json(created)) as { id: string };
    expect(((await json(await call(handler, 'GET', '/rule-instances'))) as unknown as unknown[]).length).toBeGreaterThan(0);
    expect((await call(handler, 'GET', `/rule-instances/${id}`)).status).toBe(200);
    const updated = await call(handler, 'POST', `/rule-instances/${id}`, { body: { action: 'BLOCK' } });
    expect(await json(updated)).toMatchObject({ id, action: 'BLOCK' });
    expect((await call(handler, 'DELETE', `/rule-instances/${id}`)).status).toBe(204);
    expect((await call(handler, 'GET', `/rule-instances/${id}`)).status).toBe(404);
  });

  it('rules, one rule and the filters schema', async () => {
    expect(((await json(await call(handler, 'GET', '/rules'))) as unknown as unknown[]).length).toBeGreaterThan(30);
    expect(await json(await call(handler, 'GET', '/rules/R-2'))).toMatchObject({ id: 'R-2' });
    expect(await json(await call(handler, 'GET', '/rule-filters-schema'))).toMatchObject({ type: 'object' });
  });

  it('alerts and cases from a hit, comments on user, case and alert (201)', async () => {
    await call(handler, 'POST', '/rule-instances', {
      body: { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 } }, alertCreationOnHit: true },
    });
    const hit = await json(await call(handler, 'POST', '/transactions', { body: tx({ timestamp: T0, originUserId: 'hit-user' }) }));
    expect(hit.status).toBe('SUSPEND');
    // The API has no alert listing route: the ids come from the engine.
    const [alert] = await routesEngine.listAlerts();
    const alerts = { alertId: alert?.alertId as string, caseId: alert?.caseId as string };
    expect(alerts.alertId).toBeTruthy();
    expect((await call(handler, 'GET', `/alerts/${alerts.alertId}`)).status).toBe(200);
    expect((await call(handler, 'GET', `/cases/${alerts.caseId}`)).status).toBe(200);
    expect((await call(handler, 'POST', `/alerts/${alerts.alertId}/comments`, { body: { body: 'checked' } })).status).toBe(201);
    expect((await call(handler, 'POST', `/cases/${alerts.caseId}/comments`, { body: { body: 'checked' } })).status).toBe(201);
    expect((await call(handler, 'POST', '/users/hit-user/comments', { body: { body: 'called the customer' } })).status).toBe(201);
  });

  it('uploads: POST /pre-signed-url, PUT the signed url, attach to a comment, GET the download link', async () => {
    const slot = (await json(await call(handler, 'POST', '/pre-signed-url', { body: { filename: 'id.pdf', fileSize: 5 } }))) as { url: string; key: string };
    const put = await handler(new Request(`${ORIGIN}${slot.url}`, { method: 'PUT', body: 'hello', headers: { 'content-type': 'application/octet-stream' } }));
    expect(put.status).toBe(204);
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'u-up', createdTimestamp: T0 } });
    const comment = (await json(
      await call(handler, 'POST', '/users/u-up/comments', { body: { body: 'KYC doc', files: [{ s3Key: slot.key, filename: 'id.pdf', size: 5 }] } }),
    )) as {
      files: { downloadLink: string }[];
    };
    const link = comment.files[0]?.downloadLink as string;
    const download = await handler(new Request(`${ORIGIN}${link}`));
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello');
    const tampered = await handler(new Request(`${ORIGIN}${link.replace(/signature=[^&]+/, 'signature=00')}`));
    expect(tampered.status).toBe(401);
  });

  it('lists: PUT, GET, GET all, DELETE', async () => {
    expect((await call(handler, 'PUT', '/lists/bl-1', { body: { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] } })).status).toBe(200);
    expect(await json(await call(handler, 'GET', '/lists/bl-1'))).toMatchObject({ items: ['x'] });
    expect((await call(handler, 'GET', '/lists')).status).toBe(200);
    expect((await call(handler, 'DELETE', '/lists/bl-1')).status).toBe(204);
    expect((await call(handler, 'GET', '/lists/bl-1')).status).toBe(404);
  });
});

describe('createHttpHandler: methods', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A], maxBodyBytes: 2048, rateLimit: null });

  it('405 names the allowed methods in Allow', async () => {
    expect((await call(handler, 'PUT', '/rule-instances/x')).headers.get('allow')).toBe('GET, POST, DELETE, HEAD');
  });
});

describe('methods over node:http and fetch', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A] });
  let server: Server;
  let port: number;
  beforeAll(async () => ({ server, port } = await listenOn(handler)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('HEAD on a GET route (/healthz, /rules) is served like GET without a body, not 405', async () => {
    const health = await sendRaw(port, 'HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(statusOf(health)).toBe(200);
    const viaFetch = await handler(new Request('http://x/rules', { method: 'HEAD', headers: { 'x-api-key': KEY_A } }));
    expect(viaFetch.status).toBe(200);
  });

  it('OPTIONS on a route is 405 with Allow', async () => {
    const response = await sendRaw(port, `OPTIONS /rule-instances HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(response)).toBe(405);
    expect(headerOf(response, 'allow')).toBe('POST, GET, HEAD');
  });

  it('a 204 has no content-type and no body on both paths', async () => {
    const putList = () =>
      handler(
        new Request('http://x/lists/none', {
          method: 'PUT',
          headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
          body: JSON.stringify({ listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] }),
        }),
      );
    expect((await putList()).status).toBe(200);
    const viaNode = await sendRaw(port, `DELETE /lists/none HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY_A}\r\nConnection: close\r\n\r\n`);
    expect(statusOf(viaNode)).toBe(204);
    expect(headerOf(viaNode, 'content-type')).toBeNull();
    expect(viaNode.split('\r\n\r\n')[1]).toBe('');
    expect((await putList()).status).toBe(200);
    const viaFetch = await handler(new Request('http://x/lists/none', { method: 'DELETE', headers: { 'x-api-key': KEY_A } }));
    expect(viaFetch.status).toBe(204);
    expect(viaFetch.headers.get('content-type')).toBeNull();
    expect(await viaFetch.text()).toBe('');
  });
});

describe('createRoutes: the signed upload route', () => {
  const uploadEngine = httpTestEngine();
  const handler = createHttpHandler({ engine: uploadEngine, apiKeys: [KEY_A] });
  const slotOf = async (fileSize: number) =>
    (await json(await call(handler, 'POST', '/pre-signed-url', { body: { filename: 'evidence.pdf', fileSize } }))) as { url: string; key: string };
  /** A body that records whether anything pulled from it. */
  const watchedBody = (bytes: Uint8Array) => {
    const watch = { pulled: false };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          watch.pulled = true;
          controller.enqueue(bytes);
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, watch };
  };
  const put = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
    handler(new Request(`${ORIGIN}${url}`, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit));

  it('checks the signature before reading a byte of the body', async () => {
    const slot = await slotOf(5);
    const { stream, watch } = watchedBody(new Uint8Array(5));
    const forged = await put(slot.url.replace(/signature=[^&]+/, 'signature=00'), stream);
    expect(forged.status).toBe(401);
    expect(watch.pulled).toBe(false);
  });

  it('refuses an announced length above the slot before reading, and more bytes than the slot while reading', async () => {
    const slot = await slotOf(5);
    const { stream, watch } = watchedBody(new Uint8Array(6));
    expect((await put(slot.url, stream, { 'content-length': '6' })).status).toBe(413);
    expect(watch.pulled).toBe(false);
    expect((await put(slot.url, new Uint8Array(6))).status).toBe(413);
    expect((await put(slot.url, new Uint8Array([1, 2, 3]))).status).toBe(204);
  });

  it('stores a slot once: the same URL cannot replace the bytes of a file attached as evidence (409)', async () => {
    const slot = await slotOf(3);
    expect((await put(slot.url, new Uint8Array([1, 2, 3]))).status).toBe(204);
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'u-evidence', createdTimestamp: T0 } });
    const comment = await call(handler, 'POST', '/users/u-evidence/comments', {
      body: { body: 'statement', files: [{ s3Key: slot.key, filename: 'evidence.pdf', size: 3 }] },
    });
    expect(comment.status).toBe(201);
    const again = await put(slot.url, new Uint8Array([9, 9, 9]));
    expect(again.status).toBe(409);
    expect((await json(again)).code).toBe('FILE_ALREADY_UPLOADED');
    expect([...((await uploadEngine.repositories.files.getFileContent(slot.key)) ?? [])]).toEqual([1, 2, 3]);
  });

  it("refuses a comment whose file entry does not match the stored file's size, or names a file not uploaded yet", async () => {
    const slot = await slotOf(3);
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'u-size', createdTimestamp: T0 } });
    const early = await call(handler, 'POST', '/users/u-size/comments', {
      body: { body: 'x', files: [{ s3Key: slot.key, filename: 'evidence.pdf', size: 3 }] },
    });
    expect(early.status).toBe(400);
    expect((await json(early)).errors).toEqual([expect.objectContaining({ path: '/files/0/s3Key', code: 'not-uploaded' })]);
    await put(slot.url, new Uint8Array([1, 2]));
    const wrong = await call(handler, 'POST', '/users/u-size/comments', {
      body: { body: 'x', files: [{ s3Key: slot.key, filename: 'evidence.pdf', size: 3 }] },
    });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).errors).toEqual([expect.objectContaining({ path: '/files/0/size', code: 'size-mismatch' })]);
  });
});
