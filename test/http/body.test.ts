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

  const routes = [
    '/transactions',
    '/events/transaction',
    '/consumer/users',
    '/business/users',
    '/users/u/comments',
    '/rule-instances',
    '/rule-instances/ri',
    '/pre-signed-url',
  ];
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

/** A reference check: the keys of each open object in a Set. */
function setBasedHasDuplicateKey(text: string): boolean {
  const stack: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) stack.push(new Set());
    else if (c === 0x5b) stack.push(null);
    else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i += 1; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i += 1;
        } else if (d === 0x22) {
          break;
        }
      }
      const keys = stack[stack.length - 1];
      if (!keys) continue;
      let j = i + 1;
      while (j < text.length && (text[j] === ' ' || text[j] === '\n' || text[j] === '\r' || text[j] === '\t')) j++;
      if (text[j] !== ':') continue;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      if (keys.has(key)) return true;
      keys.add(key);
    }
  }
  return false;
}

/** JSON text of a string with some characters written as \uXXXX or short escapes. */
function spelled(s: string, mask: number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const hex = c.toString(16).padStart(4, '0');
    if ((mask >> (i % 30)) & 1) out += `\\u${(mask >> 30) & 1 ? hex.toUpperCase() : hex}`;
    else out += JSON.stringify(s[i]).slice(1, -1);
  }
  return `${out}"`;
}

const wsArb = fc.constantFrom('', ' ', '\n', '\t\r ', '  \n');
const keyArb = fc.oneof(
  fc.constantFrom('', 'a', '__proto__', 'constructor', '":', '\\', '"', 'é', '😀', '0', '00', '1', '4294967295', 'length', 'toString'),
  fc.string({ maxLength: 4 }),
);
/** Random JSON text with objects whose keys are spelled variously, sometimes the same key twice. */
const textArb: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('1', 'null', '"x\\":y"', '"{\\"a\\":1}"', '":"', '[]', '{}'),
    tie('object'),
    tie('array'),
  ),
  array: fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${(items as string[]).join(',')}]`),
  object: fc
    .array(fc.tuple(keyArb, fc.nat(), wsArb, wsArb, tie('value')), { maxLength: 4 })
    .map(
      (entries) =>
        `{${(entries as [string, number, string, string, string][]).map(([k, mask, w1, w2, v]) => `${w1}${spelled(k, mask)}${w2}:${w1}${v}${w2}`).join(',')}}`,
    ),
})).value as fc.Arbitrary<string>;

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

  test.prop([textArb], { numRuns: 3000 })('agrees with the set-based check on any valid JSON text', (text) => {
    JSON.parse(text); // valid
    expect(hasDuplicateKey(text)).toBe(setBasedHasDuplicateKey(text));
  });

  const spellings: { text: string; expected: boolean }[] = [
    { text: '{"__proto__":1,"a":2}', expected: false },
    { text: '{"__proto__":{"x":1},"\\u005f_proto__":{"x":1}}', expected: true },
    { text: '{"":1,"\\u0000":2}', expected: false },
    { text: '{"":1,"":2}', expected: true },
    { text: '{"\\"":1,"\\u0022":2}', expected: true },
    { text: '{"\\/":1,"/":2}', expected: true },
    { text: '{"\\ud83d\\ude00":1,"😀":2}', expected: true },
    { text: '{"\\ud800":1,"\\udc00":2}', expected: false },
    { text: '{"a":"\\\\","b":"\\\\\\":"}', expected: false },
    { text: '{"1":1,"01":2,"1.0":3}', expected: false },
    { text: '{"a":{"a":{"a":1}},"b":[{"a":1,"b":2}]}', expected: false },
    { text: '{"x":{"a":1,"a":1},"x":{"a":1}}', expected: true },
    { text: '"\\"a\\":1"', expected: false },
  ];
  it.each(spellings)('$text → $expected', ({ text, expected }) => {
    expect(hasDuplicateKey(text)).toBe(expected);
    expect(setBasedHasDuplicateKey(text)).toBe(expected);
  });

  it('with Object.prototype polluted (enumerable), counts only own keys', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      expect(hasDuplicateKey('{"a":1,"b":{"c":[{"d":1}]}}')).toBe(false);
      expect(hasDuplicateKey('{"polluted":1}')).toBe(false);
      expect(hasDuplicateKey('{"a":1,"a":2}')).toBe(true);
    } finally {
      delete proto.polluted;
    }
  });
});
