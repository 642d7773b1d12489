import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startingCore } from '../../src/cli/starting.js';
import type { CoreRequest } from '../../src/http/types.js';

const request = (method: string, url: string): CoreRequest => ({
  method,
  url,
  header: () => null,
  readBody: async () => new Uint8Array(),
  streamBody: () => Readable.from([]) as AsyncIterable<Uint8Array>,
});

describe('startingCore', () => {
  const core = startingCore('/v1', () => 'migrating');

  it('answers liveness with 200', async () => {
    const response = await core(request('GET', '/v1/healthz'));
    expect(response.status).toBe(200);
  });

  it('answers readiness with 503, Retry-After and what opening is doing', async () => {
    const response = await core(request('GET', '/v1/readyz'));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(JSON.parse(response.body as string)).toEqual({ status: 'starting', checks: [{ check: 'store', status: 'starting', detail: 'migrating' }] });
  });

  it.each([
    ['POST', '/v1/transactions'],
    ['GET', '/v1/rules'],
    ['DELETE', '/nowhere'],
  ])('answers %s %s with 503 NOT_READY and Retry-After', async (method, url) => {
    const response = await core(request(method, url));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(JSON.parse(response.body as string)).toMatchObject({ code: 'NOT_READY' });
  });
});
