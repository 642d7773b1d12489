/**
 * Review of 752fb80 (per-connection API-key memo, D-143; `header()` over `rawHeaders`) and 88a1f3b
 * (shared frozen ruleHitMeta, joined descriptions, describeHits fast paths, formatMoney in doubles,
 * D-144).
 * `BUG-n` tests failed on the reviewed code and pass since the fixes (BUG-1: `header()` reads
 * `headersDistinct` again, which honours `maxHeadersCount`; BUG-2: `renderDescription` uses a list
 * of its own per call); the others pin behaviour the review checked.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney, scaledToDecimal } from '../../src/domain/money.js';
import { HANDLER_CORE, sameKey, type CoreRequest, type HttpHandler, type RequestLogEntry, type TxmonHttpHandler } from '../../src/http/handler.js';
import { createHttpHandler, toNodeListener } from '../../src/http/index.js';
import { createEngine, renderDescription } from '../../src/index.js';
import { r2TransactionAmount } from '../../src/rules/library/r-2-transaction-amount.js';
import type { RuleHit } from '../../src/rules/types.js';
import { T0, fixedClock, sequentialIds, tx } from '../helpers.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const KEY_A = 'review-key-a-0123456789';
const KEY_A2 = 'review-key-a2-0123456789';
const KEY_B = 'review-key-b-0123456789';

/** Sends raw bytes on a fresh socket and resolves with everything the server wrote back. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(Buffer.from(text, 'latin1')));
    let out = '';
    socket.on('data', (chunk: Buffer) => (out += chunk.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}
function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

// ---------------------------------------------------------------------------------------------
// 1. Auth memo (D-143), through the handler core: deterministic, no sockets
// ---------------------------------------------------------------------------------------------

describe('review: per-connection API-key memo (core)', () => {
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

  fcTest.prop(
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
      expect(got.headers).toEqual(want.headers);
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

  fcTest.prop([fc.string({ unit: 'grapheme-composite' }), fc.string({ unit: 'grapheme-composite' })])('sameKey is string equality for non-ASCII keys of any lengths', (x, y) => {
    expect(sameKey(x, y)).toBe(x === y);
    expect(sameKey(x, '')).toBe(x === '');
    expect(sameKey('', y)).toBe(y === '');
    expect(sameKey(x + y, x)).toBe(y === '');
  });
});

// ---------------------------------------------------------------------------------------------
// 2. header(): rawHeaders scan versus headersDistinct, on a real node:http server
// ---------------------------------------------------------------------------------------------

describe('review: nodeRequest.header() reads the same values as headersDistinct', () => {
  interface Seen {
    key: string | null;
    distinctKey: string | null;
    type: string | null;
    distinctType: string | null;
  }
  let seen: Seen[] = [];
  let current: IncomingMessage | null = null;
  // A stand-in handler whose core records what header() returns next to what headersDistinct holds.
  const spyCore = async (request: CoreRequest) => {
    const req = current as IncomingMessage;
    seen.push({
      key: request.header('x-api-key'),
      distinctKey: req.headersDistinct['x-api-key']?.join(', ') ?? null,
      type: request.header('content-type'),
      distinctType: req.headersDistinct['content-type']?.join(', ') ?? null,
    });
    return { status: 204, headers: {}, body: null };
  };
  const spy = Object.assign(async () => new Response(null, { status: 204 }), { [HANDLER_CORE]: spyCore }) as unknown as HttpHandler;
  const listener = toNodeListener(spy);
  const server = createServer((req, res) => {
    current = req;
    listener(req, res);
  });
  let port = 0;
  beforeAll(async () => {
    port = await listen(server);
  });
  afterAll(async () => {
    await close(server);
  });

  async function observe(headerLines: string[], maxHeadersCount: number | null = null): Promise<Seen> {
    seen = [];
    server.maxHeadersCount = maxHeadersCount as number;
    const out = await rawExchange(port, `GET / HTTP/1.1\r\nHost: x\r\n${headerLines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`);
    expect(out.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(seen).toHaveLength(1);
    return seen[0] as Seen;
  }

  const cases: [string, string[]][] = [
    ['plain', ['x-api-key: KEY', 'content-type: application/json']],
    ['upper and mixed case names', ['X-API-KEY: KEY', 'Content-TYPE: application/json']],
    ['repeated with case variants and an empty value', ['X-API-KEY: one', 'x-api-key:', 'X-Api-Key: two', 'content-type: application/json', 'Content-Type: text/plain']],
    ['surrounding spaces and tabs', ['x-api-key: \t  KEY \t ', 'content-type:\tapplication/json ; charset=utf-8\t']],
    ['inner spaces and commas', ['x-api-key: a b, c', 'content-type: application/json, text/plain']],
    ['obs-text (Latin-1) bytes', ['x-api-key: K\u00e9Y\u00ff', 'content-type: application/\u00e9json']],
    ['absent', ['accept: */*']],
    ['similar names', ['x-api-keys: no', 'x-api-ke: no', 'content-type-x: no', 'xx-api-key: no']],
    ['fifty other headers before', [...Array.from({ length: 50 }, (_, i) => `h${i}: v`), 'x-api-key: KEY', 'content-type: application/json']],
  ];
  for (const [name, lines] of cases) {
    it(`same value: ${name}`, async () => {
      const s = await observe(lines);
      expect(s.key).toBe(s.distinctKey);
      expect(s.type).toBe(s.distinctType);
    });
  }

  it('BUG-1 a header past server.maxHeadersCount is read although Node (and the old code) drops it', async () => {
    // Node keeps `rawHeaders` in chunks of 32 and only cuts `headers`/`headersDistinct` at the
    // limit, so the scan sees up to 31 headers that the server is configured to ignore.
    const s = await observe(['a: 1', 'b: 2', 'c: 3', 'x-api-key: KEY', 'content-type: text/plain'], 4);
    expect(s.distinctKey).toBe(null);
    expect(s.key).toBe(s.distinctKey);
  });

  it('BUG-1 (default limit) with more than 1000 headers the 1001st+ header is read', async () => {
    const fillers = Array.from({ length: 1005 }, (_, i) => `a${i}: b`);
    const s = await observe([...fillers, 'x-api-key: KEY']);
    expect(s.distinctKey).toBe(null);
    expect(s.key).toBe(s.distinctKey);
  });
});

describe('review: maxHeadersCount end to end', () => {
  it('BUG-1 an API key sent past server.maxHeadersCount authenticates (before: 401, as Node drops the header)', async () => {
    const handler = createHttpHandler({ engine: createEngine(), apiKeys: [KEY_A] });
    const server = createServer(toNodeListener(handler));
    server.maxHeadersCount = 4;
    const port = await listen(server);
    try {
      const out = await rawExchange(port, `GET /rules HTTP/1.1\r\nHost: x\r\na: 1\r\nb: 2\r\nc: 3\r\nx-api-key: ${KEY_A}\r\nConnection: close\r\n\r\n`);
      expect(out.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    } finally {
      await close(server);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 3. renderDescription / describeHits
// ---------------------------------------------------------------------------------------------

/** The implementation before 88a1f3b (`+=`, own properties only), with its own template parser. */
function referenceRender(template: string, vars: Readonly<Record<string, unknown>> | undefined): string {
  const pattern = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
  let out = '';
  let last = 0;
  for (let m = pattern.exec(template); m !== null; m = pattern.exec(template)) {
    out += template.slice(last, m.index);
    const name = m[1] as string;
    const v = vars !== undefined && Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (v !== undefined) out += String(v);
    last = m.index + m[0].length;
  }
  return out + template.slice(last);
}

function referenceDescribe(template: string, hits: readonly RuleHit[]): string {
  const seenText = new Set<string>();
  const parts: string[] = [];
  for (const h of hits) {
    const text = referenceRender(template, h.vars);
    if (!seenText.has(text)) {
      seenText.add(text);
      parts.push(text);
    }
  }
  return parts.join(' ');
}

const NAMES = ['a', 'b', 'toString', '__proto__', 'constructor', 'hasOwnProperty', 'x_1', 'valueOf'] as const;
const templateArb = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(...NAMES).map((n) => `{{${n}}}`),
      fc.constantFrom(...NAMES).map((n) => `{{ ${n}\t}}`),
      fc.constantFrom('{{', '}}', '{a}', '{{}}', '{{a b}}', '{{-}}', '{{{a}}}'),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));
const valueArb = fc.oneof(fc.string({ maxLength: 5 }), fc.double(), fc.integer(), fc.constantFrom(-0, NaN, 1e21, Infinity, ''));
const varsArb = fc.option(
  fc.tuple(fc.array(fc.tuple(fc.constantFrom(...NAMES), valueArb), { maxLength: 6 }), fc.boolean()).map(([entries, nullProto]) => {
    const o = Object.fromEntries(entries) as Record<string, string | number>;
    return nullProto ? Object.assign(Object.create(null) as Record<string, string | number>, o) : o;
  }),
  { nil: undefined },
);

describe('review: renderDescription', () => {
  fcTest.prop([templateArb, varsArb], { numRuns: 500 })('renders exactly as the old += implementation (own vars only, missing vars empty)', (template, vars) => {
    const want = referenceRender(template, vars);
    expect(renderDescription(template, vars)).toBe(want);
    expect(renderDescription(template, vars)).toBe(want);
  });

  it('a var whose conversion throws leaves no trace in the next rendering', () => {
    const bad = { toString: () => { throw new Error('boom'); } } as unknown as string;
    expect(() => renderDescription('A {{x}} B {{y}}', { x: 'left', y: bad })).toThrow('boom');
    expect(renderDescription('C {{x}} D', { x: 'ok' })).toBe('C ok D');
    expect(renderDescription('plain {{x}}', undefined)).toBe('plain ');
  });

  it('BUG-2 a var computed by a getter that itself renders a template (re-entrant call) keeps the outer text', () => {
    // Type-correct input: the getter returns a string. The inner call empties the shared scratch
    // array, so the outer description loses everything rendered before the var.
    const vars = {
      amount: '10.00 EUR',
      get detail(): string {
        return renderDescription('{{n}} of {{m}}', { n: 1, m: 2 });
      },
    };
    const template = 'Paid {{amount}} ({{detail}}) today.';
    expect(renderDescription(template, vars)).toBe(referenceRender(template, vars));
    expect(renderDescription(template, vars)).toBe('Paid 10.00 EUR (1 of 2) today.');
  });
});

describe('review: rule hits through the engine (describeHits, shared ruleHitMeta)', () => {
  let next: readonly RuleHit[] = [];
  const TEMPLATE = 'Hit {{n}} on {{side}}.';
  const hostRule = { ...r2TransactionAmount, id: 'HOST-HITS', name: 'Host hits', descriptionTemplate: TEMPLATE, check: () => next };

  async function engineWithHostRule() {
    const engine = createEngine({ rules: [hostRule as never], clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(3) });
    await engine.createRuleInstance({ ruleId: 'HOST-HITS', parameters: { transactionAmountThreshold: { EUR: 1 } } });
    return engine;
  }

  const hitArb = fc.record({
    direction: fc.constantFrom('ORIGIN', 'DESTINATION') as fc.Arbitrary<RuleHit['direction']>,
    vars: fc.option(fc.record({ n: fc.constantFrom(1, 2, '1', 'x'), side: fc.constantFrom('o', 'd') }, { requiredKeys: [] }), { nil: undefined }),
  });

  fcTest.prop([fc.array(fc.array(hitArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 })], { numRuns: 60 })(
    'description and hitDirections equal the old Set-based dedupe for 1, 2 and 3+ hits',
    async (runs) => {
      const engine = await engineWithHostRule();
      for (const hits of runs) {
        next = hits.map((h) => (h.vars === undefined ? { direction: h.direction } : { direction: h.direction, vars: h.vars }));
        const result = await engine.createTransaction(tx({ timestamp: T0 }));
        const rule = result.executedRules[0] as { ruleDescription: string; ruleHitMeta: { hitDirections: string[] } };
        expect(rule.ruleDescription).toBe(referenceDescribe(TEMPLATE, next));
        const dirs = new Set(next.map((h) => h.direction));
        expect(rule.ruleHitMeta.hitDirections).toEqual((['ORIGIN', 'DESTINATION'] as const).filter((d) => dirs.has(d)));
        expect(result.hitRules[0]?.ruleDescription).toBe(rule.ruleDescription);
      }
    },
  );

  it('BUG-2 (engine) a host rule var computed by a getter that renders a template keeps the stored description intact', async () => {
    const engine = await engineWithHostRule();
    const vars = {
      get n(): string {
        return renderDescription('#{{k}}', { k: 7 });
      },
      side: 'origin',
    };
    next = [{ direction: 'ORIGIN', vars }];
    const t = tx({ timestamp: T0 });
    const result = await engine.createTransaction(t);
    expect(result.executedRules[0]?.ruleDescription).toBe('Hit #7 on origin.');
  });

  it('shared ruleHitMeta is deeply frozen: a caller cannot change another transaction’s result through it', async () => {
    const engine = await engineWithHostRule();
    next = [{ direction: 'ORIGIN', vars: { n: 1, side: 'o' } }];
    const t1 = tx({ timestamp: T0 });
    const r1 = await engine.createTransaction(t1);
    const t2 = tx({ timestamp: T0 + 1 });
    const r2 = await engine.createTransaction(t2);
    const meta1 = r1.executedRules[0]?.ruleHitMeta as { hitDirections: string[] };
    const meta2 = r2.executedRules[0]?.ruleHitMeta as { hitDirections: string[] };
    expect(Object.isFrozen(meta1)).toBe(true);
    expect(Object.isFrozen(meta1.hitDirections)).toBe(true);
    expect(() => meta1.hitDirections.push('DESTINATION')).toThrow(TypeError);
    expect(() => {
      (meta1 as { hitDirections: string[] }).hitDirections = ['DESTINATION'];
    }).toThrow(TypeError);
    expect(() => {
      meta1.hitDirections[0] = 'DESTINATION';
    }).toThrow(TypeError);
    expect(meta2.hitDirections).toEqual(['ORIGIN']);
    const stored = await engine.getTransaction(t2.transactionId as string);
    expect(JSON.parse(JSON.stringify(stored.executedRules[0]?.ruleHitMeta))).toEqual({ hitDirections: ['ORIGIN'] });
    // A structured copy is independent and mutable; the originals stay as they were.
    const copy = structuredClone(r1.executedRules[0]) as { ruleHitMeta: { hitDirections: string[] } };
    copy.ruleHitMeta.hitDirections.push('DESTINATION');
    expect(meta1.hitDirections).toEqual(['ORIGIN']);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. formatMoney in doubles
// ---------------------------------------------------------------------------------------------

describe('review: formatMoney fast path', () => {
  const reference = (value: bigint, currency: string): string => {
    const [whole, fraction = ''] = scaledToDecimal(value).split('.');
    return `${whole}.${fraction.padEnd(Math.max(2, fraction.length), '0')} ${currency}`;
  };
  const LIMIT = BigInt(Number.MAX_SAFE_INTEGER);
  const UNIT = 100_000_000n;

  fcTest.prop([fc.bigInt({ min: 0n, max: LIMIT / UNIT + 1n }), fc.integer({ min: -3, max: 3 }), fc.boolean()], { numRuns: 2000 })(
    'k·1e8 + d (d in −3..3), both signs, up to and past 2^53',
    (k, d, negative) => {
      const v = k * UNIT + BigInt(d);
      const value = negative ? -v : v;
      expect(formatMoney(value, 'EUR')).toBe(reference(value, 'EUR'));
    },
  );

  it('boundaries', () => {
    for (const value of [0n, -0n, 1n, -1n, UNIT - 1n, UNIT, UNIT + 1n, -UNIT, LIMIT, -LIMIT, LIMIT - 1n, LIMIT + 1n, -LIMIT - 1n, 2n ** 53n, -(2n ** 53n), 2n ** 64n, (LIMIT / UNIT) * UNIT, (LIMIT / UNIT) * UNIT - 1n]) {
      expect(formatMoney(value, 'JPY')).toBe(reference(value, 'JPY'));
    }
    expect(formatMoney(-0n, 'EUR')).toBe('0.00 EUR');
    expect(formatMoney(-1_000_000n, 'EUR')).toBe('-0.01 EUR');
  });
});
