import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, toNodeListener, type HttpHandler } from '../../src/http/index.js';
import { createEngine, type Engine } from '../../src/index.js';
import { T0, fixedClock, sequentialIds, tx } from '../helpers.js';

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
const ORIGIN = 'http://txmon.test';

let secrets = 0;
function engine(): Engine {
  secrets += 1;
  return createEngine({ clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(secrets) });
}

function call(handler: HttpHandler, method: string, path: string, options: { key?: string | null; body?: unknown; raw?: string; type?: string } = {}) {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? KEY_A : options.key;
  if (key !== null) headers['x-api-key'] = key;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.type ?? 'application/json';
  return handler(new Request(`${ORIGIN}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

describe('createHttpHandler: routes', () => {
  const routesEngine = engine();
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

  it('POST /events/transaction → 201; GET /events/transaction/{eventId}', async () => {
    const t = tx({ timestamp: T0 });
    await call(handler, 'POST', '/transactions', { body: t });
    const ev = await call(handler, 'POST', '/events/transaction', { body: { transactionId: t.transactionId, eventId: 'ev-1', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' } });
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
    await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 } }, alertCreationOnHit: true } });
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
    const comment = (await json(await call(handler, 'POST', '/users/u-up/comments', { body: { body: 'KYC doc', files: [{ s3Key: slot.key, filename: 'id.pdf', size: 5 }] } }))) as {
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

describe('createHttpHandler: errors are problem+json, never a stack or a value', () => {
  const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY_A], maxBodyBytes: 2048, rateLimit: null });
  const rows: { name: string; send: () => Promise<Response>; status: number; code: string }[] = [
    { name: 'missing key', send: () => call(handler, 'GET', '/rules', { key: null }), status: 401, code: 'UNAUTHORIZED' },
    { name: 'unknown key', send: () => call(handler, 'GET', '/rules', { key: 'nope-nope-nope-nope-nope' }), status: 401, code: 'UNAUTHORIZED' },
    { name: 'unknown route', send: () => call(handler, 'GET', '/nope'), status: 404, code: 'ROUTE_NOT_FOUND' },
    { name: 'wrong method', send: () => call(handler, 'DELETE', '/transactions'), status: 405, code: 'METHOD_NOT_ALLOWED' },
    { name: 'not JSON', send: () => call(handler, 'POST', '/transactions', { raw: 'a=b', type: 'text/plain' }), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'malformed JSON', send: () => call(handler, 'POST', '/transactions', { raw: '{"type": ' }), status: 400, code: 'MALFORMED_JSON' },
    { name: 'body over the limit', send: () => call(handler, 'POST', '/transactions', { raw: JSON.stringify({ x: 'y'.repeat(5000) }) }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { name: 'schema violation', send: () => call(handler, 'POST', '/transactions', { body: { ...tx(), timestamp: 'secret-value-123' } }), status: 400, code: 'VALIDATION_FAILED' },
    { name: 'unknown transaction', send: () => call(handler, 'GET', '/transactions/nope'), status: 404, code: 'TRANSACTION_NOT_FOUND' },
  ];
  it.each(rows)('$name → $status $code', async ({ send, status, code }) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = await json(response);
    expect(body).toMatchObject({ status, code });
    expect(typeof body.message).toBe('string');
    expect(typeof body.validationErrors).toBe('string');
    expect(Array.isArray(body.errors)).toBe(true);
    const text = JSON.stringify(body);
    expect(text).not.toContain('secret-value-123');
    expect(text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('405 names the allowed methods in Allow', async () => {
    expect((await call(handler, 'PUT', '/rule-instances/x')).headers.get('allow')).toBe('GET, POST, DELETE, HEAD');
  });

  it('400 names the field path in errors[] and validationErrors', async () => {
    const body = await json(await call(handler, 'POST', '/transactions', { body: { ...tx(), timestamp: 'x' } }));
    expect((body.errors as { path: string }[]).map((e) => e.path)).toContain('/timestamp');
    expect(body.validationErrors).toContain('/timestamp');
  });

  it('/openapi.json needs the key and serves the generated document', async () => {
    expect((await call(handler, 'GET', '/openapi.json', { key: null })).status).toBe(401);
    expect(await json(await call(handler, 'GET', '/openapi.json'))).toMatchObject({ openapi: '3.1.0' });
  });

  it('/healthz needs no key', async () => {
    expect((await call(handler, 'GET', '/healthz', { key: null })).status).toBe(200);
  });
});

describe('createHttpHandler: rate limit, base path, configuration', () => {
  it('429 with Retry-After once a key has spent its burst; tokens come back with time', async () => {
    const clock = fixedClock();
    const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY_A, KEY_B], rateLimit: { requestsPerSecond: 2, burst: 2 }, clock });
    expect((await call(handler, 'GET', '/rules')).status).toBe(200);
    expect((await call(handler, 'GET', '/rules')).status).toBe(200);
    const limited = await call(handler, 'GET', '/rules');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await json(limited)).code).toBe('RATE_LIMITED');
    // Another key has its own bucket.
    expect((await call(handler, 'GET', '/rules', { key: KEY_B })).status).toBe(200);
    clock.advance(500);
    expect((await call(handler, 'GET', '/rules')).status).toBe(200);
  });

  it('mounts under a base path (and nothing outside it)', async () => {
    const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY_A], basePath: '/v1/' });
    expect((await call(handler, 'GET', '/v1/rules')).status).toBe(200);
    expect((await call(handler, 'GET', '/rules')).status).toBe(404);
    expect((await call(handler, 'GET', '/v1x/rules')).status).toBe(404);
  });

  it('refuses a configuration without keys of at least 16 characters, or with a key twice', () => {
    expect(() => createHttpHandler({ engine: engine(), apiKeys: ['short'] })).toThrow(/16 characters/);
    expect(() => createHttpHandler({ tenants: [] })).toThrow(/tenants/);
    expect(() =>
      createHttpHandler({
        tenants: [
          { id: 'a', apiKeys: [KEY_A], engine: engine() },
          { id: 'b', apiKeys: [KEY_A], engine: engine() },
        ],
      }),
    ).toThrow(/unique/);
  });
});

describe('createHttpHandler: requests without valid credentials, per client address', () => {
  const clock = { t: T0, now() { return this.t; } };
  const limited = createHttpHandler({
    engine: engine(),
    apiKeys: [KEY_A],
    clock,
    unauthenticatedRateLimit: { requestsPerSecond: 1, burst: 3 },
    clientAddress: (request) => request.headers.get('x-test-address') ?? undefined,
  });
  const from = (address: string, key: string | null, path = '/rules') =>
    limited(new Request(`${ORIGIN}${path}`, { headers: { 'x-test-address': address, ...(key === null ? {} : { 'x-api-key': key }) } }));

  it('answers 429 with Retry-After once an address has spent its burst of bad keys, and lets valid keys through', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await from('10.0.0.1', 'bad-key-0123456789abcdef')).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const refused = await from('10.0.0.1', null);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await from('10.0.0.1', KEY_A)).status).toBe(200);
    // Another address has its own bucket; tokens come back with time.
    expect((await from('10.0.0.2', 'bad-key-0123456789abcdef')).status).toBe(401);
    clock.t += 1_000;
    expect((await from('10.0.0.1', 'bad-key-0123456789abcdef')).status).toBe(401);
  });

  it('counts open routes and bad file-URL signatures too', async () => {
    for (let i = 0; i < 3; i++) expect((await from('10.0.0.3', null, '/healthz')).status).toBe(200);
    expect((await from('10.0.0.3', null, '/healthz')).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await from('10.0.0.4', null, '/files/file-1?expires=1&signature=00')).status).toBe(401);
    expect((await from('10.0.0.4', null, '/files/file-1?expires=1&signature=00')).status).toBe(429);
  });

  it('keeps at most a bounded number of address buckets', async () => {
    const { createRateLimiter } = await import('../../src/http/rate-limit.js');
    const limiter = createRateLimiter({ requestsPerSecond: 1, burst: 1 }, () => T0, 2);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    limiter.take('b');
    limiter.take('c'); // forgets 'a', the least recently used
    expect(limiter.take('a')).toBe(0);
  });
});

describe('createHttpHandler: uploads', () => {
  const uploadEngine = engine();
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
    const comment = await call(handler, 'POST', '/users/u-evidence/comments', { body: { body: 'statement', files: [{ s3Key: slot.key, filename: 'evidence.pdf', size: 3 }] } });
    expect(comment.status).toBe(201);
    const again = await put(slot.url, new Uint8Array([9, 9, 9]));
    expect(again.status).toBe(409);
    expect((await json(again)).code).toBe('FILE_ALREADY_UPLOADED');
    expect([...((await uploadEngine.repositories.files.getContent(slot.key)) ?? [])]).toEqual([1, 2, 3]);
  });

  it("refuses a comment whose file entry does not match the stored file's size, or names a file not uploaded yet", async () => {
    const slot = await slotOf(3);
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'u-size', createdTimestamp: T0 } });
    const early = await call(handler, 'POST', '/users/u-size/comments', { body: { body: 'x', files: [{ s3Key: slot.key, filename: 'evidence.pdf', size: 3 }] } });
    expect(early.status).toBe(400);
    expect((await json(early)).errors).toEqual([expect.objectContaining({ path: '/files/0/s3Key', code: 'not-uploaded' })]);
    await put(slot.url, new Uint8Array([1, 2]));
    const wrong = await call(handler, 'POST', '/users/u-size/comments', { body: { body: 'x', files: [{ s3Key: slot.key, filename: 'evidence.pdf', size: 3 }] } });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).errors).toEqual([expect.objectContaining({ path: '/files/0/size', code: 'size-mismatch' })]);
  });
});

describe('createHttpHandler: ids', () => {
  const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY_A] });

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
    const response = await call(handler, 'POST', '/transactions', { raw: JSON.stringify(tx({ timestamp: T0 })).replace(/"transactionId":"[^"]*"/, '"transactionId":"t-\\ud800"') });
    expect(response.status).toBe(400);
    expect((await json(response)).errors).toEqual([expect.objectContaining({ path: '/transactionId', code: 'not-json' })]);
  });
});

describe('tenants never see each other (SPEC §5.8)', () => {
  const a = engine();
  const b = engine();
  const handler = createHttpHandler({
    tenants: [
      { id: 'a', apiKeys: [KEY_A], engine: a },
      { id: 'b', apiKeys: [KEY_B], engine: b },
    ],
  });

  it('every read route of tenant B misses what tenant A created; lists and instances are separate', async () => {
    const t = tx({ timestamp: T0 });
    await call(handler, 'POST', '/transactions', { body: t, key: KEY_A });
    await call(handler, 'POST', '/events/transaction', { body: { transactionId: t.transactionId, eventId: 'ev-a', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }, key: KEY_A });
    await call(handler, 'POST', '/consumer/users', { body: { userId: 'u-a', createdTimestamp: T0 }, key: KEY_A });
    const instance = (await json(await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-1' }, key: KEY_A }))) as { id: string };
    await call(handler, 'PUT', '/lists/l-a', { body: { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] }, key: KEY_A });
    await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 } }, alertCreationOnHit: true }, key: KEY_A });
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

describe('bad input never breaks the server (SPEC §5.9)', () => {
  const e = engine();
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
    fc.constantFrom('{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"x": 1}}}', '{"a": 1, "a": 2}', deep(5000), '{"type":"TRANSFER"', '"x'.repeat(10)),
    fc.record({ transactionId: fc.string(), type: fc.anything(), timestamp: fc.anything() }).map((v) => JSON.stringify(v)),
    fc.nat({ max: 70_000 }).map((n) => JSON.stringify({ s: 'x'.repeat(n) })),
  );
  /** What a client could observe of the state: instances, lists, alerts, cases. */
  const snapshot = async () => JSON.stringify([await e.listRuleInstances(), await e.listLists(), await e.listAlerts(), await e.listCases()]);
  test.prop([fc.constantFrom(...routes), payloadArb], { numRuns: 150 })('any body to any route: a 4xx problem, no pollution, state unchanged', async ([method, path], raw) => {
    const before = await snapshot();
    const r = await call(handler, method, path, { raw });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await snapshot()).toBe(before);
  });

  // Every route, with arbitrary path parameters, methods and query strings (no body).
  const patterns = ['/transactions/$', '/events/transaction/$', '/consumer/users/$', '/business/users/$', '/rule-instances/$', '/rules/$', '/alerts/$', '/cases/$', '/lists/$', '/uploads/$', '/files/$', '/$', '/$/comments'];
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

describe('toNodeListener', () => {
  let url = '';
  const server = createServer(toNodeListener(createHttpHandler({ engine: engine(), apiKeys: [KEY_A] })));
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the API over node:http (201, 401, 413 with a streamed body)', async () => {
    const created = await fetch(`${url}/transactions`, { method: 'POST', headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' }, body: JSON.stringify(tx({ timestamp: T0 })) });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { status: string }).status).toBe('ALLOW');
    const denied = await fetch(`${url}/rules`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('content-type')).toBe('application/problem+json');
    const big = await fetch(`${url}/transactions`, { method: 'POST', headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' }, body: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
  });
});

describe('hasDuplicateKey', () => {
  const rows: { name: string; text: string; expected: boolean }[] = [
    { name: 'no duplicates', text: '{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}', expected: false },
    { name: 'same key twice', text: '{"a":1,"a":2}', expected: true },
    { name: 'escaped spelling of the same key', text: '{"a":1,"\\u0061":2}', expected: true },
    { name: 'duplicate in a nested object', text: '{"x":{"k":1, "k" :2}}', expected: true },
    { name: 'equal string values are not keys', text: '{"a":"a","b":"a"}', expected: false },
    { name: 'a colon inside a string value', text: '{"a":"b:c","b":"x"}', expected: false },
    { name: 'escaped quote inside a key', text: '{"a\\"b":1,"a\\"b":2}', expected: true },
    { name: 'keys of sibling objects in an array', text: '[{"a":1},{"a":1}]', expected: false },
    { name: 'a "__proto__" key twice', text: '{"__proto__":1,"__proto__":2}', expected: true },
    { name: 'whitespace of every kind before the colon', text: '{"a" \t\r\n:1,"a"\n: 2}', expected: true },
    { name: 'arrays nested deeper than the call stack', text: `${'['.repeat(200_000)}${']'.repeat(200_000)}`, expected: false },
    { name: 'objects nested deeper than the call stack', text: `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, expected: false },
    { name: 'a duplicate at the bottom of a deep nest', text: `${'{"a":'.repeat(10_000)}{"k":1,"k":2}${'}'.repeat(10_000)}`, expected: true },
  ];
  it.each(rows)('$name', async ({ text, expected }) => {
    const { hasDuplicateKey } = await import('../../src/http/handler.js');
    expect(hasDuplicateKey(text)).toBe(expected);
  });

  test.prop([fc.jsonValue(), fc.string(), fc.nat(20)])('any serialised JSON value has none; a repeated key anywhere makes one', async (value, key, depth) => {
    const { hasDuplicateKey } = await import('../../src/http/handler.js');
    const text = JSON.stringify(value);
    expect(hasDuplicateKey(text)).toBe(false);
    const k = JSON.stringify(key);
    const nested = `${'{"x":'.repeat(depth)}{${k}:${text},${k}:0}${'}'.repeat(depth)}`;
    expect(hasDuplicateKey(`[${text},${nested}]`)).toBe(true);
    // The same key in two different objects is not a duplicate.
    expect(hasDuplicateKey(`[{${k}:${text}},{${k}:0}]`)).toBe(false);
  });

  it('the handler refuses a body with a duplicate key (400, nothing created)', async () => {
    const e = engine();
    const handler = createHttpHandler({ engine: e, apiKeys: [KEY_A] });
    const t = tx({ timestamp: T0 });
    const raw = JSON.stringify(t).replace('{', '{"type":"DEPOSIT",');
    const r = await call(handler, 'POST', '/transactions', { raw });
    expect(r.status).toBe(400);
    expect((await json(r)).errors).toEqual([{ path: '', code: 'duplicate-key', message: 'has an object with a duplicate key' }]);
    expect((await call(handler, 'GET', `/transactions/${t.transactionId}`)).status).toBe(404);
  });
});

