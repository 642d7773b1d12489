import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../../src/http/index.js';
import { findRoute, matchSegments, normalizeBasePath, parseTarget, stripBasePath } from '../../src/http/match.js';
import { createRoutes } from '../../src/http/routes.js';
import { createEngine, type Engine } from '../../src/index.js';
import { fixedClock, sequentialIds } from '../helpers.js';
import { listenOn, sendRaw, statusOf } from './raw-http.js';

const KEY = 'match-key-0123456789abcdef';
const KEY_B = 'match-key-b-0123456789abcdef';

let secrets = 0;
function engine(): Engine {
  secrets += 1;
  return createEngine({ clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(secrets) });
}

describe('matchSegments', () => {
  const rows: { name: string; pattern: string[]; segments: string[]; expected: Record<string, string> | null }[] = [
    { name: 'literal segments match themselves', pattern: ['rules'], segments: ['rules'], expected: {} },
    { name: 'a literal segment does not match another', pattern: ['rules'], segments: ['rule'], expected: null },
    { name: 'a parameter takes one segment, percent-decoded', pattern: ['transactions', '{id}'], segments: ['transactions', 't%201'], expected: { id: 't 1' } },
    { name: '%2F decodes inside the one segment', pattern: ['transactions', '{id}'], segments: ['transactions', 'a%2Fb'], expected: { id: 'a/b' } },
    { name: 'a parameter never matches an empty segment', pattern: ['transactions', '{id}'], segments: ['transactions', ''], expected: null },
    { name: 'malformed percent-encoding does not match', pattern: ['transactions', '{id}'], segments: ['transactions', '%E0'], expected: null },
    { name: 'fewer segments do not match', pattern: ['users', '{id}', 'comments'], segments: ['users', 'u'], expected: null },
    { name: 'more segments do not match', pattern: ['rules'], segments: ['rules', 'x'], expected: null },
  ];
  it.each(rows)('$name', ({ pattern, segments, expected }) => {
    expect(matchSegments(pattern, segments)).toEqual(expected);
  });
});

describe('findRoute', () => {
  const routes = createRoutes(
    () => ({}),
    async () => ({ status: 'ready', checks: [] }),
  );
  it('finds the route of a path and its parameters; null for none', () => {
    expect(findRoute(routes, ['rule-instances', 'ri-1'])).toMatchObject({
      route: { pattern: '/rule-instances/{ruleInstanceId}' },
      params: { ruleInstanceId: 'ri-1' },
    });
    expect(findRoute(routes, ['users', 'u-1', 'comments'])?.route.pattern).toBe('/users/{userId}/comments');
    expect(findRoute(routes, ['nope'])).toBeNull();
  });
});

describe('parseTarget and stripBasePath', () => {
  it('reads a target starting with // as a path, never as an authority', () => {
    expect(parseTarget('//evil/rules')?.pathname).toBe('//evil/rules');
    expect(parseTarget('/rules?x=1')?.searchParams.get('x')).toBe('1');
    expect(parseTarget('http://x/rules')?.pathname).toBe('/rules');
  });

  const rows = [
    { name: 'no base path', path: '/rules', basePath: '', expected: '/rules' },
    { name: 'below the base path', path: '/v1/rules', basePath: '/v1', expected: '/rules' },
    { name: 'the base path itself', path: '/v1', basePath: '/v1', expected: '/' },
    { name: 'a path that only starts like the base path', path: '/v1x/rules', basePath: '/v1', expected: null },
    { name: 'outside the base path', path: '/rules', basePath: '/v1', expected: null },
  ];
  it.each(rows)('stripBasePath: $name', ({ path, basePath, expected }) => {
    expect(stripBasePath(path, basePath)).toBe(expected);
  });

  it('normalizeBasePath drops trailing slashes and refuses what is not a plain path', () => {
    expect(normalizeBasePath(undefined)).toBe('');
    expect(normalizeBasePath('/v1//')).toBe('/v1');
    expect(() => normalizeBasePath('v1')).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(() => normalizeBasePath('/v1?x')).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
  });
});

describe('createHttpHandler: base path', () => {
  it('mounts under a base path (and nothing outside it)', async () => {
    const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY], basePath: '/v1/' });
    const get = (path: string) => handler(new Request(`http://txmon.test${path}`, { headers: { 'x-api-key': KEY } }));
    expect((await get('/v1/rules')).status).toBe(200);
    expect((await get('/rules')).status).toBe(404);
    expect((await get('/v1x/rules')).status).toBe(404);
  });
});

describe('request targets a client can send over node:http', () => {
  const handler = createHttpHandler({ engine: engine(), apiKeys: [KEY] });
  let server: Server;
  let port: number;
  beforeAll(async () => ({ server, port } = await listenOn(handler)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (target: string, extra = '') => sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n${extra}Connection: close\r\n\r\n`);

  const targets = [
    { name: 'an authority-like path with a bad host (//[)', target: '//[' },
    { name: 'an authority-like path with a bad port (//a:b/rules)', target: '//a:b/rules' },
    { name: 'an authority-like path with an out-of-range port', target: '//a:99999/rules' },
  ];
  it.each(targets)('$name is a 4xx, never a 500', async ({ target }) => {
    const response = await get(target);
    expect(statusOf(response)).toBeGreaterThanOrEqual(400);
    expect(statusOf(response)).toBeLessThan(500);
  });

  it('a request target //evil/rules is not routed as /rules (404 on both paths)', async () => {
    const viaFetch = await handler(new Request('http://x//evil/rules', { headers: { 'x-api-key': KEY } }));
    expect(viaFetch.status).toBe(404);
    expect(statusOf(await get('//evil/rules'))).toBe(viaFetch.status);
  });

  const params = [
    { name: '%00 in a path parameter (no id holds NUL)', target: '/transactions/%00', status: 400, code: 'VALIDATION_FAILED' },
    { name: '%2F in a path parameter (decoded, one segment)', target: '/transactions/a%2Fb', status: 404, code: 'TRANSACTION_NOT_FOUND' },
    { name: 'malformed %E0 in a path parameter', target: '/transactions/%E0', status: 404, code: 'ROUTE_NOT_FOUND' },
    { name: '__proto__ in the query', target: '/rules?__proto__=1&constructor=2', status: 200, code: null },
    { name: 'OPTIONS * (asterisk form) is a plain 404', target: '*', status: 404, code: 'ROUTE_NOT_FOUND' },
  ];
  it.each(params)('$name → $status', async ({ target, status, code }) => {
    const response = target === '*' ? await sendRaw(port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n') : await get(target);
    expect(statusOf(response)).toBe(status);
    if (code !== null) expect(response).toContain(`"code":"${code}"`);
  });
});

describe('createHttpHandler: the /t/<tenant> prefix of signed file URLs', () => {
  const acme = engine();
  const globex = engine();
  const multi = createHttpHandler({
    tenants: [
      { id: 'acme', apiKeys: [KEY], engine: acme },
      { id: 'globex', apiKeys: [KEY_B], engine: globex },
    ],
  });
  const single = createHttpHandler({ engine: engine(), apiKeys: [KEY] });

  const rows: { name: string; handler: HttpHandler; path: string; status: number }[] = [
    { name: 'a keyed route under another tenant’s prefix', handler: multi, path: '/t/globex/rules', status: 404 },
    { name: 'a keyed route under the own tenant’s prefix', handler: multi, path: '/t/acme/rules', status: 404 },
    { name: 'an unknown tenant prefix', handler: multi, path: '/t/nobody/files/k?expires=1&signature=a', status: 404 },
    { name: 'a signed route without a prefix (multi-tenant)', handler: multi, path: '/files/k?expires=1&signature=a', status: 404 },
    { name: 'a signed route with a prefix (single tenant)', handler: single, path: '/t/default/files/k?expires=1&signature=a', status: 404 },
  ];
  it.each(rows)('$name → $status', async ({ handler, path, status }) => {
    expect((await handler(new Request(`http://x${path}`, { headers: { 'x-api-key': KEY } }))).status).toBe(status);
  });

  it('a signed upload URL issued for acme does not work under /t/globex', async () => {
    const slot = (await (
      await multi(
        new Request('http://x/pre-signed-url', {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ filename: 'a.txt', fileSize: 3 }),
        }),
      )
    ).json()) as { url: string };
    // These engines have no publicBaseUrl, so the URL lacks the prefix; add it as `txmon serve` would.
    const path = new URL(slot.url, 'http://x').pathname + new URL(slot.url, 'http://x').search;
    const crossed = await multi(new Request(`http://x/t/globex${path}`, { method: 'PUT', body: 'abc' }));
    expect(crossed.status).toBeGreaterThanOrEqual(400);
    expect(crossed.status).toBeLessThan(500);
    expect((await multi(new Request(`http://x/t/acme${path}`, { method: 'PUT', body: 'abc' }))).status).toBe(204);
  });
});
