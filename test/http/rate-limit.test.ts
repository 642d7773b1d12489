import { describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../../src/http/index.js';
import { createRateLimiter, createRequestLimits, isValidRateLimit } from '../../src/http/rate-limit.js';
import { T0, fixedClock } from '../helpers.js';
import { createCaller, httpTestEngine, json, ORIGIN } from './fixtures.js';

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
const KEY = KEY_A;
const call = createCaller(KEY_A);

describe('isValidRateLimit', () => {
  const rows = [
    { name: 'a positive rate', limit: { requestsPerSecond: 0.5 }, expected: true },
    { name: 'a burst of 1', limit: { requestsPerSecond: 1, burst: 1 }, expected: true },
    { name: 'a rate of 0', limit: { requestsPerSecond: 0 }, expected: false },
    { name: 'a NaN rate', limit: { requestsPerSecond: Number.NaN }, expected: false },
    { name: 'an infinite rate', limit: { requestsPerSecond: Number.POSITIVE_INFINITY }, expected: false },
    { name: 'a burst below 1', limit: { requestsPerSecond: 1, burst: 0.5 }, expected: false },
  ];
  it.each(rows)('$name → $expected', ({ limit, expected }) => {
    expect(isValidRateLimit(limit)).toBe(expected);
  });
});

describe('createRateLimiter', () => {
  it('lets a burst through, then answers the whole seconds to wait; tokens come back with time', () => {
    let now = T0;
    const limiter = createRateLimiter({ requestsPerSecond: 2, burst: 2 }, () => now);
    expect([limiter.take('k'), limiter.take('k'), limiter.take('k')]).toEqual([0, 0, 1]);
    expect(limiter.take('other')).toBe(0);
    now += 500;
    expect(limiter.take('k')).toBe(0);
  });
});

describe('createRequestLimits', () => {
  it('refuses with RATE_LIMITED and a Retry-After header; no limit per key unless configured', () => {
    const limits = createRequestLimits({ unauthenticatedRateLimit: { requestsPerSecond: 1, burst: 1 } }, () => T0);
    expect(limits.perKey).toBe(false);
    for (let i = 0; i < 5; i++) limits.forKey('k');
    limits.forAddress('10.0.0.1');
    expect(() => limits.forAddress('10.0.0.1')).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    expect(() => createRequestLimits({ rateLimit: { requestsPerSecond: -1 } }, () => T0)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
  });
});

describe('createHttpHandler: per API key', () => {
  it('429 with Retry-After once a key has spent its burst; tokens come back with time', async () => {
    const clock = fixedClock();
    const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A, KEY_B], rateLimit: { requestsPerSecond: 2, burst: 2 }, clock });
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

  it('a rate limit of 0 (or NaN) requests/s is refused at creation, not answered with Retry-After: Infinity/NaN', async () => {
    for (const requestsPerSecond of [0, Number.NaN, -1]) {
      let handler: HttpHandler;
      try {
        handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY], rateLimit: { requestsPerSecond } });
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

  it('Retry-After is whole seconds ≥ 1 and a token comes back after that many seconds', async () => {
    const clock = fixedClock();
    const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY], rateLimit: { requestsPerSecond: 0.4 }, clock });
    const get = () => handler(new Request('http://x/rules', { headers: { 'x-api-key': KEY } }));
    expect((await get()).status).toBe(200); // burst = max(1, 0.8) = 1
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3'); // ceil(1 / 0.4)
    clock.advance(3000);
    expect((await get()).status).toBe(200);
  });

  it('unknown keys are 401 and do not consume the known key’s bucket', async () => {
    const clock = fixedClock();
    const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY], rateLimit: { requestsPerSecond: 1, burst: 1 }, clock });
    for (let i = 0; i < 50; i++)
      expect((await handler(new Request('http://x/rules', { headers: { 'x-api-key': `other-key-${i}-0123456789` } }))).status).toBe(401);
    expect((await handler(new Request('http://x/rules', { headers: { 'x-api-key': KEY } }))).status).toBe(200);
  });
});

describe('createHttpHandler: requests without valid credentials, per client address', () => {
  const clock = {
    t: T0,
    now() {
      return this.t;
    },
  };
  const limited = createHttpHandler({
    engine: httpTestEngine(),
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

  it('keeps at most a bounded number of address buckets', () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1, burst: 1 }, () => T0, 2);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    limiter.take('b');
    limiter.take('c'); // forgets 'a', the least recently used
    expect(limiter.take('a')).toBe(0);
  });
});
