import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { declaredLength, hasDuplicateKey, isJsonContentType, parseJson, readLimited, streamLimited } from '../../src/http/body.js';
import { createHttpHandler } from '../../src/http/index.js';
import { T0, tx } from '../helpers.js';
import { createCaller, httpTestEngine, json } from './fixtures.js';

const KEY = 'body-key-0123456789abcdef';
const KEY_A = KEY;
const call = createCaller(KEY_A);
const bytes = (text: string) => new TextEncoder().encode(text);

describe('isJsonContentType', () => {
  const rows = [
    { name: 'application/json', value: 'application/json', expected: true },
    { name: 'parameters and upper case', value: 'Application/JSON; charset=utf-8', expected: true },
    { name: 'a +json type', value: 'application/problem+json', expected: true },
    { name: 'absent', value: null, expected: false },
    { name: 'text/plain', value: 'text/plain', expected: false },
    { name: 'two types joined (a header sent twice)', value: 'application/json, text/plain', expected: false },
    { name: 'a +json type outside application/', value: 'text/x+json', expected: false },
  ];
  it.each(rows)('$name → $expected', ({ value, expected }) => {
    expect(isJsonContentType(value)).toBe(expected);
  });
});

describe('declaredLength', () => {
  it('reads a plain decimal content-length, nothing else', () => {
    expect(declaredLength('42')).toBe(42);
    expect(declaredLength('0')).toBe(0);
    expect(declaredLength(null)).toBeUndefined();
    expect(declaredLength('-1')).toBeUndefined();
    expect(declaredLength('1e3')).toBeUndefined();
    expect(declaredLength('1'.repeat(16))).toBeUndefined();
  });
});

describe('parseJson', () => {
  const rows = [
    { name: 'invalid UTF-8', input: new Uint8Array([0x22, 0xff, 0x22]), detail: { path: '', code: 'malformed-json', message: 'is not valid UTF-8' } },
    { name: 'invalid JSON', input: bytes('{"type": '), detail: { path: '', code: 'malformed-json', message: 'is not valid JSON' } },
    { name: 'an empty body', input: bytes(''), detail: { path: '', code: 'malformed-json', message: 'is not valid JSON' } },
    { name: 'a duplicate key', input: bytes('{"a":1,"a":2}'), detail: { path: '', code: 'duplicate-key', message: 'has an object with a duplicate key' } },
  ];
  it.each(rows)('refuses $name with MALFORMED_JSON', ({ input, detail }) => {
    expect(() => parseJson(input)).toThrow(expect.objectContaining({ code: 'MALFORMED_JSON', details: [detail] }));
  });

  it('returns the parsed value', () => {
    expect(parseJson(bytes('{"a":[1,{"b":null}]}'))).toEqual({ a: [1, { b: null }] });
  });
});

describe('readLimited and streamLimited', () => {
  const request = (body: string, headers: Record<string, string> = {}) => new Request('http://x/', { method: 'POST', body, headers });
  const drain = async (chunks: AsyncIterable<Uint8Array>) => {
    let size = 0;
    for await (const chunk of chunks) size += chunk.byteLength;
    return size;
  };

  it('read a body up to the limit', async () => {
    expect(new TextDecoder().decode(await readLimited(request('hello'), 5))).toBe('hello');
    expect(await drain(streamLimited(request('hello'), 5))).toBe(5);
  });

  it('refuse a body past the limit with PAYLOAD_TOO_LARGE, announced or not', async () => {
    const tooLarge = expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' });
    await expect(readLimited(request('hello!'), 5)).rejects.toThrow(tooLarge);
    await expect(drain(streamLimited(request('hello!'), 5))).rejects.toThrow(tooLarge);
    await expect(readLimited(request('hi', { 'content-length': '6' }), 5)).rejects.toThrow(tooLarge);
  });
});

describe('createHttpHandler: JSON bodies', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY], maxBodyBytes: 100 });
  const post = (path: string, body: string, type: string | null = 'application/json') =>
    handler(new Request(`http://x${path}`, { method: 'POST', headers: { 'x-api-key': KEY, ...(type !== null ? { 'content-type': type } : {}) }, body }));

  const routes = ['/transactions', '/events/transaction', '/consumer/users', '/business/users', '/users/u/comments', '/rule-instances', '/rule-instances/ri', '/pre-signed-url'];
  const bodies = ['null', '[]', '1', '"x"', 'true', '{}', '{"__proto__":{"x":1}}'];
  it.each(routes)('non-object JSON bodies on POST %s are 4xx (400, or 404 for an unknown id), never 500', async (path) => {
    for (const body of bodies) expect([400, 404], body).toContain((await post(path, body)).status);
  });

  const types = [
    { name: 'params and upper case', type: 'Application/JSON; charset=utf-8', status: 400 },
    { name: 'a +json type', type: 'application/problem+json', status: 400 },
    { name: 'no content-type with a body', type: null, status: 415 },
    { name: 'text/plain', type: 'text/plain', status: 415 },
  ];
  it.each(types)('content-type $name → $status', async ({ type, status }) => {
    expect((await post('/transactions', 'null', type)).status).toBe(status);
  });

  it('an empty JSON body is 400 MALFORMED_JSON', async () => {
    const response = await post('/transactions', '');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('MALFORMED_JSON');
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
  it.each(rows)('$name', ({ text, expected }) => {
    expect(hasDuplicateKey(text)).toBe(expected);
  });

  test.prop([fc.jsonValue(), fc.string(), fc.nat(20)])('any serialised JSON value has none; a repeated key anywhere makes one', (value, key, depth) => {
    const text = JSON.stringify(value);
    expect(hasDuplicateKey(text)).toBe(false);
    const k = JSON.stringify(key);
    const nested = `${'{"x":'.repeat(depth)}{${k}:${text},${k}:0}${'}'.repeat(depth)}`;
    expect(hasDuplicateKey(`[${text},${nested}]`)).toBe(true);
    // The same key in two different objects is not a duplicate.
    expect(hasDuplicateKey(`[{${k}:${text}},{${k}:0}]`)).toBe(false);
  });

  it('the handler refuses a body with a duplicate key (400, nothing created)', async () => {
    const e = httpTestEngine();
    const handler = createHttpHandler({ engine: e, apiKeys: [KEY_A] });
    const t = tx({ timestamp: T0 });
    const raw = JSON.stringify(t).replace('{', '{"type":"DEPOSIT",');
    const r = await call(handler, 'POST', '/transactions', { raw });
    expect(r.status).toBe(400);
    expect((await json(r)).errors).toEqual([{ path: '', code: 'duplicate-key', message: 'has an object with a duplicate key' }]);
    expect((await call(handler, 'GET', `/transactions/${t.transactionId}`)).status).toBe(404);
  });
});
