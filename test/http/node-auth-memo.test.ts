import { request as httpRequest, Agent, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameKey } from '../../src/http/handler.js';
import { createHttpHandler, toNodeListener } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { T0, fixedClock, sequentialIds, tx } from '../helpers.js';

// The handler remembers the last API key verified on each connection (D-143). These tests send
// every request over ONE keep-alive socket (an agent with maxSockets 1) and check that the memo
// never lets a request through with another key than the one it proves, never crosses tenants,
// and that every request still authenticates as its own key would alone.

const KEY_A = 'memo-key-a-0123456789';
const KEY_A2 = 'memo-key-a2-0123456789';
const KEY_B = 'memo-key-b-0123456789';

interface Answer {
  status: number;
  body: Record<string, unknown> | unknown[];
  socket: Socket;
  reused: boolean;
}

describe('per-connection memo of the verified API key (D-143)', () => {
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
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), socket: res.socket as Socket, reused: req.reusedSocket }),
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

  it('a header sent twice is read as both values joined, as the fetch API does', async () => {
    // Written by hand: Node's client will not send a header twice.
    const body = JSON.stringify(tx({ timestamp: T0 + 5 }));
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /transactions HTTP/1.1\r\nHost: t\r\nx-api-key: ${KEY_A}\r\nContent-Type: application/json\r\ncontent-type: text/plain\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    // "application/json, text/plain" is not a JSON media type.
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 415 Unsupported Media Type');
  });
});

describe('sameKey (the memo\'s constant-time comparison)', () => {
  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })])('is string equality', (x, y) => {
    expect(sameKey(x, y)).toBe(x === y);
    expect(sameKey(x, x)).toBe(true);
  });
  test.prop([fc.string({ minLength: 1 }), fc.nat(), fc.integer({ min: 1, max: 0xffff })])('differs on any one changed code unit, at any position', (x, at, delta) => {
    const i = at % x.length;
    const changed = x.slice(0, i) + String.fromCharCode((x.charCodeAt(i) + delta) % 0x10000) + x.slice(i + 1);
    expect(sameKey(changed, x)).toBe(false);
    expect(sameKey(x, changed)).toBe(false);
  });
});
