import { describe, expect, it } from 'vitest';
import { TxmonError } from '../../src/errors.js';
import { createHttpHandler, problemOf, renderProblem } from '../../src/http/index.js';
import { errorResponse, withResponseHeaders } from '../../src/http/problem.js';
import { tx } from '../helpers.js';
import { createCaller, httpTestEngine, json } from './fixtures.js';

const KEY_A = 'key-a-0123456789abcdef';
const call = createCaller(KEY_A);

describe('problemOf', () => {
  const detail = { path: '/timestamp', code: 'type', message: 'must be integer' };
  const rows: { name: string; error: unknown; expected: Record<string, unknown> }[] = [
    {
      name: 'a 4xx txmon error carries its message and details',
      error: new TxmonError('VALIDATION_FAILED', 'Invalid transaction: /timestamp must be integer', [detail]),
      expected: {
        type: 'https://txmon.dev/problems/validation-failed',
        title: 'Bad Request',
        status: 400,
        code: 'VALIDATION_FAILED',
        message: 'Invalid transaction: /timestamp must be integer',
        validationErrors: '/timestamp must be integer',
        errors: [detail],
      },
    },
    {
      name: 'a detail at the root is written / in validationErrors',
      error: new TxmonError('MALFORMED_JSON', 'Invalid request: body is not valid JSON', [{ path: '', code: 'malformed-json', message: 'is not valid JSON' }]),
      expected: { status: 400, validationErrors: '/ is not valid JSON', errors: [{ path: '', code: 'malformed-json', message: 'is not valid JSON' }] },
    },
    {
      name: 'a 5xx txmon error hides its message and details',
      error: new TxmonError('INVALID_CONFIGURATION', 'createEngine: secret', [detail]),
      expected: { status: 500, title: 'Internal Server Error', code: 'INVALID_CONFIGURATION', message: 'Internal error', validationErrors: '', errors: [] },
    },
    {
      name: 'any other error is a generic 500',
      error: new Error('at /srv/app.ts:12 secret-value'),
      expected: { type: 'https://txmon.dev/problems/internal', status: 500, code: 'INTERNAL', message: 'Internal error', validationErrors: '', errors: [] },
    },
    { name: 'a thrown non-error is a generic 500', error: 'boom', expected: { status: 500, code: 'INTERNAL', errors: [] } },
  ];
  it.each(rows)('$name', ({ error, expected }) => {
    const problem = problemOf(error);
    expect(problem.status).toBe(expected.status);
    expect(problem.headers).toEqual({ 'content-type': 'application/problem+json' });
    expect(JSON.parse(problem.body as string)).toMatchObject(expected);
  });

  it('adds the extra headers after the content type', () => {
    expect(problemOf(new TxmonError('RATE_LIMITED', 'slow down'), { 'retry-after': '2' }).headers).toEqual({
      'content-type': 'application/problem+json',
      'retry-after': '2',
    });
  });
});

describe('renderProblem', () => {
  it('is the Response of problemOf', async () => {
    const error = new TxmonError('ROUTE_NOT_FOUND', 'route not found');
    const response = renderProblem(error, { 'x-extra': '1' });
    const problem = problemOf(error, { 'x-extra': '1' });
    expect(response.status).toBe(404);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    expect(headers).toEqual(problem.headers);
    expect(await response.text()).toBe(problem.body);
  });
});

describe('errorResponse', () => {
  it('carries the headers the error was marked with, and no body for HEAD', () => {
    const error = withResponseHeaders(new TxmonError('METHOD_NOT_ALLOWED', 'no'), { allow: 'GET, HEAD' });
    expect(errorResponse(error, 'DELETE').headers).toEqual({ 'content-type': 'application/problem+json', allow: 'GET, HEAD' });
    expect(errorResponse(error, 'head')).toMatchObject({ status: 405, body: null });
  });

  it('closes the connection after a 413 (the rest of the body is not read)', () => {
    expect(errorResponse(new TxmonError('PAYLOAD_TOO_LARGE', 'too large'), 'POST').headers).toEqual({
      'content-type': 'application/problem+json',
      connection: 'close',
    });
  });
});

describe('createHttpHandler: every error is problem+json, never a stack or a value', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY_A], maxBodyBytes: 2048, rateLimit: null });
  const rows: { name: string; send: () => Promise<Response>; status: number; code: string }[] = [
    { name: 'missing key', send: () => call(handler, 'GET', '/rules', { key: null }), status: 401, code: 'UNAUTHORIZED' },
    { name: 'unknown key', send: () => call(handler, 'GET', '/rules', { key: 'nope-nope-nope-nope-nope' }), status: 401, code: 'UNAUTHORIZED' },
    { name: 'unknown route', send: () => call(handler, 'GET', '/nope'), status: 404, code: 'ROUTE_NOT_FOUND' },
    { name: 'wrong method', send: () => call(handler, 'DELETE', '/transactions'), status: 405, code: 'METHOD_NOT_ALLOWED' },
    { name: 'not JSON', send: () => call(handler, 'POST', '/transactions', { raw: 'a=b', type: 'text/plain' }), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'malformed JSON', send: () => call(handler, 'POST', '/transactions', { raw: '{"type": ' }), status: 400, code: 'MALFORMED_JSON' },
    {
      name: 'body over the limit',
      send: () => call(handler, 'POST', '/transactions', { raw: JSON.stringify({ x: 'y'.repeat(5000) }) }),
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    },
    {
      name: 'schema violation',
      send: () => call(handler, 'POST', '/transactions', { body: { ...tx(), timestamp: 'secret-value-123' } }),
      status: 400,
      code: 'VALIDATION_FAILED',
    },
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

  it('400 names the field path in errors[] and validationErrors', async () => {
    const body = await json(await call(handler, 'POST', '/transactions', { body: { ...tx(), timestamp: 'x' } }));
    expect((body.errors as { path: string }[]).map((e) => e.path)).toContain('/timestamp');
    expect(body.validationErrors).toContain('/timestamp');
  });
});
