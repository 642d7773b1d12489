import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameKey } from '../../src/http/auth.js';
import { createHttpHandler, HANDLER_CORE, toNodeListener, type CoreRequest, type RequestLogEntry, type TxmonHttpHandler } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { T0, fixedClock, sequentialIds, tx } from '../helpers.js';
import { createCaller, httpTestEngine, json } from './fixtures.js';
import { listenOn, sendRaw, statusOf } from './raw-http.js';

const KEY_A = 'memo-key-a-0123456789';
const KEY_A2 = 'memo-key-a2-0123456789';
const KEY_B = 'memo-key-b-0123456789';
const call = createCaller(KEY_A);

describe('tenantsOf: the keys a handler accepts', () => {
  it('refuses a configuration without keys of at least 16 characters, or with a key twice', () => {
    expect(() => createHttpHandler({ engine: httpTestEngine(), apiKeys: ['short'] })).toThrow(/16 characters/);
    expect(() => createHttpHandler({ tenants: [] })).toThrow(/tenants/);
    expect(() =>
      createHttpHandler({
        tenants: [
          { id: 'a', apiKeys: [KEY_A], engine: httpTestEngine() },
          { id: 'b', apiKeys: [KEY_A], engine: httpTestEngine() },
        ],
      }),
    ).toThrow(/unique/);
  });

  it('refuses API keys that cannot travel in an HTTP header (non-Latin-1, surrounding spaces)', () => {
    for (const key of ['test-key-€-0123456789', ' test-key-0123456789abcdef ', 'test-key-0123\n456789abcdef']) {
      expect(() => createHttpHandler({ engine: httpTestEngine(), apiKeys: [key] }), JSON.stringify(key)).toThrow(/key/i);
    }
  });
});

describe('createHttpHandler: which routes need a key', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A], maxBodyBytes: 2048, rateLimit: null });

  it('/openapi.json needs the key and serves the generated document', async () => {
    expect((await call(handler, 'GET', '/openapi.json', { key: null })).status).toBe(401);
    expect(await json(await call(handler, 'GET', '/openapi.json'))).toMatchObject({ openapi: '3.1.0' });
  });

  it('/healthz needs no key', async () => {
    expect((await call(handler, 'GET', '/healthz', { key: null })).status).toBe(200);
  });
});

describe('createHttpHandler: the x-api-key header over node:http and fetch', () => {
  const KEY = KEY_A;
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY] });
  let server: Server;
  let port: number;
  beforeAll(async () => ({ server, port } = await listenOn(handler)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const get = (target: string, extra = '') => sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n${extra}Connection: close\r\n\r\n`);

  it('duplicate x-api-key headers (same value) are refused with 401 on both paths', async () => {
    expect(statusOf(await get('/rules', `x-api-key: ${KEY}\r\n`))).toBe(401);
    const viaFetch = await handler(
      new Request('http://x/rules', {
        headers: [
          ['x-api-key', KEY],
          ['x-api-key', KEY],
        ],
      }),
    );
    expect(viaFetch.status).toBe(401);
  });
});

describe('createAuthenticator: the per-connection memo answers as a handler without it', () => {
  type KeyChoice = string | null;
  const POOL: readonly KeyChoice[] = [
    KEY_A,
    KEY_A2,
    KEY_B,
    null,
    '',
    `${KEY_A.slice(0, -1)}X`, // same length, last character differs
    KEY_A.slice(0, -1), // prefix
    `${KEY_A}0`, // extension
    `${KEY_A}, ${KEY_A}`, // header sent twice
    KEY_A.toUpperCase(),
    `${KEY_A.slice(0, 5)}\u00e9${KEY_A.slice(6)}`, // Latin-1 character, same length
    `${KEY_A.slice(0, 5)}\ud800${KEY_A.slice(6)}`, // lone surrogate, same length
    'x',
  ];

  function makeHandler(clock: { now(): number }, log: RequestLogEntry[]) {
    const a = createEngine({ clock: fixedClock(), ids: sequentialIds() });
    const b = createEngine({ clock: fixedClock(), ids: sequentialIds() });
    return createHttpHandler({
      tenants: [
        { id: 'a', apiKeys: [KEY_A, KEY_A2], engine: a },
        { id: 'b', apiKeys: [KEY_B], engine: b },
      ],
      rateLimit: { requestsPerSecond: 2, burst: 3 },
      clock,
      onRequest: (e) => log.push(e),
    });
  }

  function coreRequest(key: KeyChoice, connection: unknown): CoreRequest {
    return {
      method: 'GET',
      url: '/rules',
      header: (name) => (name === 'x-api-key' ? key : null),
      readBody: async () => new Uint8Array(0),
      streamBody: async function* () {},
      ...(connection === undefined ? {} : { connection: connection as object }),
    };
  }

  test.prop(
    [
      fc.array(
        fc.record({
          key: fc.constantFrom(...POOL),
          conn: fc.constantFrom(0, 1, 2, -1),
          advance: fc.constantFrom(0, 0, 0, 100, 700, 2000),
        }),
        { minLength: 1, maxLength: 60 },
      ),
    ],
    { numRuns: 150 },
  )('any sequence of keys over shared connections answers exactly as a handler without the memo (status, tenant, rate limit)', async (steps) => {
    let now = T0;
    const clock = { now: () => now };
    const memoLog: RequestLogEntry[] = [];
    const refLog: RequestLogEntry[] = [];
    const memo = (makeHandler(clock, memoLog) as TxmonHttpHandler)[HANDLER_CORE];
    const ref = (makeHandler(clock, refLog) as TxmonHttpHandler)[HANDLER_CORE];
    // Connection 2 is one object shared like a proxy's pooled connection; -1 means none.
    const connections = [{}, {}, { pooled: true }];
    for (const step of steps) {
      now += step.advance;
      const conn = step.conn < 0 ? undefined : connections[step.conn];
      const got = await memo(coreRequest(step.key, conn));
      const want = await ref(coreRequest(step.key, undefined));
      expect(got.status).toBe(want.status);
      // Each handler numbers its own requests: the ids differ, every other header is the same.
      const { 'x-request-id': _got, ...gotHeaders } = got.headers;
      const { 'x-request-id': _want, ...wantHeaders } = want.headers;
      expect(gotHeaders).toEqual(wantHeaders);
    }
    expect(memoLog.map((e) => [e.status, e.tenant, e.code])).toEqual(refLog.map((e) => [e.status, e.tenant, e.code]));
  });

  it('a connection that is not an object (null, number, string, function, symbol) only disables the memo', async () => {
    const core = createHttpHandler({
      tenants: [
        { id: 'a', apiKeys: [KEY_A], engine: createEngine() },
        { id: 'b', apiKeys: [KEY_B], engine: createEngine() },
      ],
    })[HANDLER_CORE];
    for (const connection of [null, 42, 'socket', () => {}, Symbol('s'), undefined]) {
      expect((await core(coreRequest(KEY_A, connection))).status).toBe(200);
      expect((await core(coreRequest(`${KEY_A.slice(0, -1)}X`, connection))).status).toBe(401);
      expect((await core(coreRequest(KEY_B, connection))).status).toBe(200);
      expect((await core(coreRequest(null, connection))).status).toBe(401);
    }
  });

  it('one connection object shared by two handlers never carries a key from one to the other', async () => {
    const conn = {};
    const one = createHttpHandler({ engine: createEngine(), apiKeys: [KEY_A] })[HANDLER_CORE];
    const two = createHttpHandler({ engine: createEngine(), apiKeys: [KEY_B] })[HANDLER_CORE];
    expect((await one(coreRequest(KEY_A, conn))).status).toBe(200);
    expect((await two(coreRequest(KEY_A, conn))).status).toBe(401);
    expect((await two(coreRequest(KEY_B, conn))).status).toBe(200);
    expect((await one(coreRequest(KEY_B, conn))).status).toBe(401);
  });

  it('the fetch path (no connection) still authenticates every request', async () => {
    const handler = createHttpHandler({ engine: createEngine(), apiKeys: [KEY_A] });
    const get = (headers: Record<string, string>) => handler(new Request('http://localhost/rules', { headers })).then((r) => r.status);
    expect(await get({ 'x-api-key': KEY_A })).toBe(200);
    expect(await get({ 'X-API-KEY': KEY_A })).toBe(200);
    expect(await get({ 'x-api-key': `${KEY_A.slice(0, -1)}X` })).toBe(401);
    expect(await get({})).toBe(401);
    expect(await get({ 'x-api-key': KEY_A })).toBe(200);
  });
});

interface Answer {
  status: number;
  body: Record<string, unknown> | unknown[];
  socket: Socket;
  reused: boolean;
}

// Every request of these tests goes over ONE keep-alive socket (an agent with maxSockets 1): the
// memo never lets a request through with another key than the one it proves, never crosses
// tenants, and every request still authenticates as its own key would alone.
describe('createAuthenticator: the per-connection memo over one keep-alive connection', () => {
  const a = createEngine({ clock: fixedClock(), ids: sequentialIds() });
  const b = createEngine({ clock: fixedClock(), ids: sequentialIds() });
  const handler = createHttpHandler({
    tenants: [
      { id: 'a', apiKeys: [KEY_A, KEY_A2], engine: a },
      { id: 'b', apiKeys: [KEY_B], engine: b },
    ],
    rateLimit: { requestsPerSecond: 1000, burst: 3 },
  });
  const server = createServer(toNodeListener(handler));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function send(method: string, path: string, key: string | null, body?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      if (key !== null) headers['x-api-key'] = key;
      const text = body === undefined ? undefined : JSON.stringify(body);
      if (text !== undefined) headers['content-type'] = 'application/json';
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            socket: res.socket as Socket,
            reused: req.reusedSocket,
          }),
        );
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  it('a request with another key on the same connection is authenticated as that key, not the last one', async () => {
    const t = tx({ timestamp: T0 });
    const created = await send('POST', '/transactions', KEY_A, t);
    expect(created.status).toBe(201);
    // Same socket, tenant B's key: B's engine answers (404), not A's.
    const fromB = await send('GET', `/transactions/${t.transactionId}`, KEY_B);
    expect(fromB.reused).toBe(true);
    expect(fromB.socket).toBe(created.socket);
    expect(fromB.status).toBe(404);
    // Back to A on the same socket: A's data.
    const fromA = await send('GET', `/transactions/${t.transactionId}`, KEY_A);
    expect(fromA.socket).toBe(created.socket);
    expect(fromA.status).toBe(200);
    // A key that shares all but its last character with the remembered one is refused.
    const nearMiss = await send('GET', `/transactions/${t.transactionId}`, `${KEY_A.slice(0, -1)}X`);
    expect(nearMiss.socket).toBe(created.socket);
    expect(nearMiss.status).toBe(401);
    // So are a prefix and an extension of the remembered key, and a missing key.
    await send('GET', '/rules', KEY_A);
    expect((await send('GET', '/rules', KEY_A.slice(0, -1))).status).toBe(401);
    await send('GET', '/rules', KEY_A);
    expect((await send('GET', '/rules', `${KEY_A}0`)).status).toBe(401);
    await send('GET', '/rules', KEY_A);
    expect((await send('GET', '/rules', null)).status).toBe(401);
    // A second key of the same tenant reaches the same data.
    expect((await send('GET', `/transactions/${t.transactionId}`, KEY_A2)).status).toBe(200);
  });

  it('a refused key is never remembered: the valid key after it still works, the refused one stays refused', async () => {
    expect((await send('GET', '/rules', 'not-a-key-0123456789')).status).toBe(401);
    expect((await send('GET', '/rules', 'not-a-key-0123456789')).status).toBe(401);
    expect((await send('GET', '/rules', KEY_B)).status).toBe(200);
    expect((await send('GET', '/rules', 'not-a-key-0123456789')).status).toBe(401);
  });

  it('the rate limit still counts every request of a remembered key, per key', async () => {
    // A fresh handler with a burst of 2 and a near-zero refill: the third request of a key is limited.
    const limited = createHttpHandler({ engine: createEngine(), apiKeys: [KEY_A, KEY_B], rateLimit: { requestsPerSecond: 0.001, burst: 2 } });
    const listener = toNodeListener(limited);
    const own = createServer(listener);
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const ownPort = (own.address() as AddressInfo).port;
    const ownAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (key: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: ownPort, path: '/rules', headers: { 'x-api-key': key }, agent: ownAgent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect([await get(KEY_A), await get(KEY_A), await get(KEY_A)]).toEqual([200, 200, 429]);
      // Key B has its own bucket, on the same connection.
      expect([await get(KEY_B), await get(KEY_B), await get(KEY_B)]).toEqual([200, 200, 429]);
      expect(await get(KEY_A)).toBe(429);
    } finally {
      ownAgent.destroy();
      await new Promise<void>((resolve) => own.close(() => resolve()));
    }
  });
});

describe('sameKey', () => {
  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })])('is string equality', (x, y) => {
    expect(sameKey(x, y)).toBe(x === y);
    expect(sameKey(x, x)).toBe(true);
  });
  test.prop([fc.string({ minLength: 1 }), fc.nat(), fc.integer({ min: 1, max: 0xffff })])(
    'differs on any one changed code unit, at any position',
    (x, at, delta) => {
      const i = at % x.length;
      const changed = x.slice(0, i) + String.fromCharCode((x.charCodeAt(i) + delta) % 0x10000) + x.slice(i + 1);
      expect(sameKey(changed, x)).toBe(false);
      expect(sameKey(x, changed)).toBe(false);
    },
  );
  test.prop([fc.string({ unit: 'grapheme-composite' }), fc.string({ unit: 'grapheme-composite' })])(
    'is string equality for non-ASCII keys of any lengths',
    (x, y) => {
      expect(sameKey(x, y)).toBe(x === y);
      expect(sameKey(x, '')).toBe(x === '');
      expect(sameKey('', y)).toBe(y === '');
      expect(sameKey(x + y, x)).toBe(y === '');
    },
  );
});
