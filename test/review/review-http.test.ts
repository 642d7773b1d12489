/**
 * Adversarial review of the HTTP layer (handler.ts, node.ts, cli/serve.ts).
 * `BUG-n …` tests fail while the bug is present; the others pin tricky-but-correct behaviour.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/cli/serve.js';
import { createHttpHandler, toNodeListener, type HttpHandler } from '../../src/http/index.js';
import { createEngine, type Engine } from '../../src/index.js';
import { fixedClock, sequentialIds } from '../helpers.js';

const KEY = 'review-key-0123456789abcdef';
const KEY_B = 'review-key-b-0123456789abcdef';

let secrets = 0;
function engine(): Engine {
  secrets += 1;
  return createEngine({ clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(secrets) });
}

/** Sends raw bytes over a socket with `Connection: close`; resolves with the raw response text. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

function headerOf(raw: string, name: string): string | null {
  const head = raw.split('\r\n\r\n')[0] ?? '';
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line === undefined ? null : line.slice(name.length + 1).trim();
}

async function listen(handler: HttpHandler): Promise<{ server: Server; port: number }> {
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('toNodeListener: request targets a client can send', () => {
  const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY] });
  let server: Server;
  let port: number;
  beforeAll(async () => ({ server, port } = await listen(handler)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (target: string, extra = '') => rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n${extra}Connection: close\r\n\r\n`);

  const targets = [
    { name: 'an authority-like path with a bad host (//[)', target: '//[' },
    { name: 'an authority-like path with a bad port (//a:b/rules)', target: '//a:b/rules' },
    { name: 'an authority-like path with an out-of-range port', target: '//a:99999/rules' },
  ];
  it.each(targets)('BUG-1 $name is a 4xx, never a 500', async ({ target }) => {
    const response = await get(target);
    expect(statusOf(response)).toBeGreaterThanOrEqual(400);
    expect(statusOf(response)).toBeLessThan(500);
  });

  it('BUG-2 a request target //evil/rules is not routed as /rules (the fetch path gives 404)', async () => {
    const viaFetch = await handler(new Request('http://x//evil/rules', { headers: { 'x-api-key': KEY } }));
    expect(viaFetch.status).toBe(404);
    expect(statusOf(await get('//evil/rules'))).toBe(viaFetch.status);
  });

  it('BUG-3 HEAD on a GET route (/healthz, /rules) is served like GET without a body, not 405', async () => {
    const health = await rawRequest(port, 'HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(statusOf(health)).toBe(200);
    const viaFetch = await handler(new Request('http://x/rules', { method: 'HEAD', headers: { 'x-api-key': KEY } }));
    expect(viaFetch.status).toBe(200);
  });

  it('BUG-4 two content-type headers get the same answer on the node path as on the fetch path', async () => {
    const body = 'null';
    const viaFetch = await handler(
      new Request('http://x/transactions', {
        method: 'POST',
        headers: [
          ['x-api-key', KEY],
          ['content-type', 'application/json'],
          ['content-type', 'text/plain'],
        ],
        body,
      }),
    );
    const viaNode = await rawRequest(
      port,
      `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    // fetch joins them ("application/json, text/plain" → 415); node keeps the first (→ parsed as JSON → 400).
    expect(statusOf(viaNode)).toBe(viaFetch.status);
  });

  it('pins: duplicate x-api-key headers (same value) are refused with 401 on both paths', async () => {
    expect(statusOf(await get('/rules', `x-api-key: ${KEY}\r\n`))).toBe(401);
    const viaFetch = await handler(new Request('http://x/rules', { headers: [['x-api-key', KEY], ['x-api-key', KEY]] }));
    expect(viaFetch.status).toBe(401);
  });

  const params = [
    { name: '%00 in a path parameter', target: '/transactions/%00', status: 404, code: 'TRANSACTION_NOT_FOUND' },
    { name: '%2F in a path parameter (decoded, one segment)', target: '/transactions/a%2Fb', status: 404, code: 'TRANSACTION_NOT_FOUND' },
    { name: 'malformed %E0 in a path parameter', target: '/transactions/%E0', status: 404, code: 'ROUTE_NOT_FOUND' },
    { name: '__proto__ in the query', target: '/rules?__proto__=1&constructor=2', status: 200, code: null },
    { name: 'OPTIONS * (asterisk form) is a plain 404', target: '*', status: 404, code: 'ROUTE_NOT_FOUND' },
  ];
  it.each(params)('pins: $name → $status', async ({ target, status, code }) => {
    const response = target === '*' ? await rawRequest(port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n') : await get(target);
    expect(statusOf(response)).toBe(status);
    if (code !== null) expect(response).toContain(`"code":"${code}"`);
  });

  it('pins: OPTIONS on a route is 405 with Allow', async () => {
    const response = await rawRequest(port, `OPTIONS /rule-instances HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(response)).toBe(405);
    expect(headerOf(response, 'allow')).toBe('POST, GET, HEAD');
  });

  it('pins: a 204 has no content-type and no body on both paths', async () => {
    const putList = () =>
      handler(new Request('http://x/lists/none', { method: 'PUT', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'] }) }));
    expect((await putList()).status).toBe(200);
    const viaNode = await rawRequest(port, `DELETE /lists/none HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\nConnection: close\r\n\r\n`);
    expect(statusOf(viaNode)).toBe(204);
    expect(headerOf(viaNode, 'content-type')).toBeNull();
    expect(viaNode.split('\r\n\r\n')[1]).toBe('');
    expect((await putList()).status).toBe(200);
    const viaFetch = await handler(new Request('http://x/lists/none', { method: 'DELETE', headers: { 'x-api-key': KEY } }));
    expect(viaFetch.status).toBe(204);
    expect(viaFetch.headers.get('content-type')).toBeNull();
    expect(await viaFetch.text()).toBe('');
  });
});

describe('createHttpHandler: bodies', () => {
  const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY], maxBodyBytes: 100 });
  const post = (path: string, body: string, type: string | null = 'application/json') =>
    handler(new Request(`http://x${path}`, { method: 'POST', headers: { 'x-api-key': KEY, ...(type !== null ? { 'content-type': type } : {}) }, body }));

  const routes = ['/transactions', '/events/transaction', '/consumer/users', '/business/users', '/users/u/comments', '/rule-instances', '/rule-instances/ri', '/pre-signed-url'];
  const bodies = ['null', '[]', '1', '"x"', 'true', '{}', '{"__proto__":{"x":1}}'];
  it.each(routes)('pins: non-object JSON bodies on POST %s are 4xx (400, or 404 for an unknown id), never 500', async (path) => {
    for (const body of bodies) expect([400, 404], body).toContain((await post(path, body)).status);
  });

  const types = [
    { name: 'params and upper case', type: 'Application/JSON; charset=utf-8', status: 400 },
    { name: 'a +json type', type: 'application/problem+json', status: 400 },
    { name: 'no content-type with a body', type: null, status: 415 },
    { name: 'text/plain', type: 'text/plain', status: 415 },
  ];
  it.each(types)('pins: content-type $name → $status', async ({ type, status }) => {
    expect((await post('/transactions', 'null', type)).status).toBe(status);
  });

  it('pins: an empty JSON body is 400 MALFORMED_JSON', async () => {
    const response = await post('/transactions', '');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('MALFORMED_JSON');
  });

  it('pins: a chunked body over the limit on the node path is 413 problem+json', async () => {
    const { server, port } = await listen(handler);
    try {
      const chunk = `64\r\n${'x'.repeat(100)}\r\n`;
      const response = await rawRequest(
        port,
        `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nConnection: close\r\n\r\n${chunk.repeat(3)}0\r\n\r\n`,
      );
      expect(statusOf(response)).toBe(413);
      expect(headerOf(response, 'content-type')).toBe('application/problem+json');
    } finally {
      server.close();
    }
  });

  it('BUG-10 (low) after a 413 for a declared oversize body the server closes the connection instead of draining it', async () => {
    const { server, port } = await listen(handler);
    try {
      const response = await new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(`POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 50000000\r\n\r\n`),
        );
        let out = '';
        socket.on('data', (d: Buffer) => {
          out += d.toString('latin1');
          if (out.includes('\r\n\r\n')) {
            socket.destroy();
            resolve(out);
          }
        });
      });
      expect(statusOf(response)).toBe(413);
      expect(headerOf(response, 'connection')?.toLowerCase()).toBe('close');
    } finally {
      server.close();
    }
  });
});

describe('createHttpHandler: configuration that yields broken responses', () => {
  it('BUG-5 a rate limit of 0 (or NaN) requests/s is refused at creation, not answered with Retry-After: Infinity/NaN', async () => {
    for (const requestsPerSecond of [0, Number.NaN, -1]) {
      let handler: HttpHandler;
      try {
        handler = createHttpHandler({ engine: engine(), apiKeys: [KEY], rateLimit: { requestsPerSecond } });
      } catch (error) {
        expect((error as { code?: string }).code).toBe('INVALID_CONFIGURATION');
        continue;
      }
      const responses = [];
      for (let i = 0; i < 3; i++) responses.push(await handler(new Request('http://x/rules', { headers: { 'x-api-key': KEY } })));
      for (const r of responses) {
        const retry = r.headers.get('retry-after');
        if (retry !== null) expect(retry, `rate ${requestsPerSecond}`).toMatch(/^\d+$/);
      }
    }
  });

  it('BUG-6 (low) API keys that cannot travel in an HTTP header (non-Latin-1, surrounding spaces) are refused at creation', () => {
    for (const key of ['review-key-€-0123456789', ' review-key-0123456789abcdef ', 'review-key-0123\n456789abcdef']) {
      expect(() => createHttpHandler({ engine: engine(), apiKeys: [key] }), JSON.stringify(key)).toThrow(/key/i);
    }
  });

  it('pins: Retry-After is whole seconds ≥ 1 and a token comes back after that many seconds', async () => {
    const clock = fixedClock();
    const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY], rateLimit: { requestsPerSecond: 0.4 }, clock });
    const get = () => handler(new Request('http://x/rules', { headers: { 'x-api-key': KEY } }));
    expect((await get()).status).toBe(200); // burst = max(1, 0.8) = 1
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3'); // ceil(1 / 0.4)
    clock.advance(3000);
    expect((await get()).status).toBe(200);
  });

  it('pins: unknown keys are 401 and do not consume the known key’s bucket', async () => {
    const clock = fixedClock();
    const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY], rateLimit: { requestsPerSecond: 1, burst: 1 }, clock });
    for (let i = 0; i < 50; i++) expect((await handler(new Request('http://x/rules', { headers: { 'x-api-key': `other-key-${i}-0123456789` } }))).status).toBe(401);
    expect((await handler(new Request('http://x/rules', { headers: { 'x-api-key': KEY } }))).status).toBe(200);
  });
});

describe('createHttpHandler: tenants and the /t/<tenant> prefix', () => {
  const acme = engine();
  const globex = engine();
  const multi = createHttpHandler({
    tenants: [
      { id: 'acme', apiKeys: [KEY], engine: acme },
      { id: 'globex', apiKeys: [KEY_B], engine: globex },
    ],
  });
  const single = createHttpHandler({ engine: engine(), apiKeys: [KEY] });

  const rows = [
    { name: 'a keyed route under another tenant’s prefix', handler: multi, path: '/t/globex/rules', status: 404 },
    { name: 'a keyed route under the own tenant’s prefix', handler: multi, path: '/t/acme/rules', status: 404 },
    { name: 'an unknown tenant prefix', handler: multi, path: '/t/nobody/files/k?expires=1&signature=a', status: 404 },
    { name: 'a signed route without a prefix (multi-tenant)', handler: multi, path: '/files/k?expires=1&signature=a', status: 404 },
    { name: 'a signed route with a prefix (single tenant)', handler: single, path: '/t/default/files/k?expires=1&signature=a', status: 404 },
  ];
  it.each(rows)('pins: $name → $status', async ({ handler, path, status }) => {
    expect((await handler(new Request(`http://x${path}`, { headers: { 'x-api-key': KEY } }))).status).toBe(status);
  });

  it('pins: a signed upload URL issued for acme does not work under /t/globex', async () => {
    const slot = (await (
      await multi(new Request('http://x/pre-signed-url', { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ filename: 'a.txt', fileSize: 3 }) }))
    ).json()) as { url: string };
    // These engines have no publicBaseUrl, so the URL lacks the prefix; add it as `txmon serve` would.
    const path = new URL(slot.url, 'http://x').pathname + new URL(slot.url, 'http://x').search;
    const crossed = await multi(new Request(`http://x/t/globex${path}`, { method: 'PUT', body: 'abc' }));
    expect(crossed.status).toBeGreaterThanOrEqual(400);
    expect(crossed.status).toBeLessThan(500);
    expect((await multi(new Request(`http://x/t/acme${path}`, { method: 'PUT', body: 'abc' }))).status).toBe(204);
  });
});

describe('serve (CLI options)', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  });
  function tenantsFile(content: unknown): string {
    const file = join(mkdtempSync(join(tmpdir(), 'txmon-review-')), 'tenants.json');
    writeFileSync(file, JSON.stringify(content));
    return file;
  }

  it('BUG-7 with --tenants and --base-path ending in "/", the signed upload URL it hands out works', async () => {
    const file = tenantsFile({ tenants: [{ id: 'acme', apiKeys: [KEY] }] });
    const server = await serve(['--port', '0', '--tenants', file, '--base-path', '/v1/'], {}, { write: () => undefined });
    servers.push(server);
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const created = await fetch(`${origin}/v1/pre-signed-url`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.txt', fileSize: 3 }),
    });
    expect(created.status).toBe(200);
    const slot = (await created.json()) as { url: string };
    const upload = await fetch(slot.url, { method: 'PUT', body: 'abc' });
    expect(upload.status, slot.url).toBe(204);
  });

  it('BUG-8 (low) an empty --port is refused, not turned into port 0 (a random port)', async () => {
    const started = serve(['--port', '', '--api-key', KEY], {}, { write: () => undefined });
    const server = await started.catch(() => null);
    if (server !== null) servers.push(server);
    expect(server, `listening on ${server ? (server.address() as AddressInfo).port : ''}`).toBeNull();
  });

  const badFiles = [
    { name: 'a null tenant entry', content: { tenants: [null] } },
    { name: 'a JSON null file', content: null },
  ];
  it.each(badFiles)('BUG-9 (low) --tenants with $name is a usage error naming --tenants, not a TypeError', async ({ content }) => {
    await expect(serve(['--port', '0', '--tenants', tenantsFile(content)], {}, { write: () => undefined })).rejects.toThrow(/--tenants/);
  });
});
