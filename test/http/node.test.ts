/**
 * The Node transport against real `node:http` servers, raw `node:net` sockets and stand-in request
 * and response objects: what each transport path reads of a request, the responses of one
 * event-loop turn sent together, bodies refused past their limit, and a server's own limits.
 */
import { randomBytes } from 'node:crypto';
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { fc, test } from '@fast-check/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createHttpHandler,
  createNodeServer,
  drainAndClose,
  HANDLER_CORE,
  toNodeListener,
  type CoreRequest,
  type CoreResponse,
  type HttpHandler,
  type HttpHandlerOptions,
  type NodeServerOptions,
} from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { T0, fixedClock, sequentialIds, testEngine, tx } from '../helpers.js';
import { httpTestEngine } from './fixtures.js';
import {
  exchange,
  exchangeRaw,
  headerOf,
  listenOn,
  pipelined,
  rawClient,
  rawRequestOf,
  sendRaw,
  sendWithoutReading,
  statusOf,
  txBody,
  until,
  type RawRequest,
  type RawResponse,
} from './raw-http.js';

const KEY = 'node-key-0123456789abcdef';

/** A raw request with {@link KEY} unless `options.key` says otherwise (`null`: none). */
function request(
  method: string,
  path: string,
  options: { key?: string | null; type?: string; body?: string | Buffer; close?: boolean; extra?: string } = {},
): RawRequest {
  return rawRequestOf(options.key === undefined ? KEY : options.key, method, path, options);
}

/** A server for a handler of the default engine and {@link KEY} (no per-address limit), with `options` over them. */
async function listen(
  options: Partial<HttpHandlerOptions> = {},
  serverOptions: Parameters<typeof createServer>[0] = {},
): Promise<{ server: Server; port: number; url: string }> {
  const handler = createHttpHandler({ engine: createEngine(), apiKeys: [KEY], unauthenticatedRateLimit: null, ...options } as HttpHandlerOptions);
  const server = createServer(serverOptions, toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return { server, port, url: `http://127.0.0.1:${port}` };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function listenServer(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

const json = (r: RawResponse) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

describe('toNodeListener', () => {
  let url = '';
  const server = createServer(toNodeListener(createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY] })));
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the API over node:http (201, 401, 413 with a streamed body)', async () => {
    const created = await fetch(`${url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify(tx({ timestamp: T0 })),
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { status: string }).status).toBe('ALLOW');
    const denied = await fetch(`${url}/rules`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('content-type')).toBe('application/problem+json');
    const big = await fetch(`${url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(big.status).toBe(413);
  });
});

describe('toNodeListener: request headers read the same values as headersDistinct', () => {
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
    port = await listenServer(server);
  });
  afterAll(async () => {
    await closeServer(server);
  });

  async function observe(headerLines: string[], maxHeadersCount: number | null = null): Promise<Seen> {
    seen = [];
    server.maxHeadersCount = maxHeadersCount as number;
    const out = await exchangeRaw(port, `GET / HTTP/1.1\r\nHost: x\r\n${headerLines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`);
    expect(out.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(seen).toHaveLength(1);
    return seen[0] as Seen;
  }

  const cases: [string, string[]][] = [
    ['plain', ['x-api-key: KEY', 'content-type: application/json']],
    ['upper and mixed case names', ['X-API-KEY: KEY', 'Content-TYPE: application/json']],
    [
      'repeated with case variants and an empty value',
      ['X-API-KEY: one', 'x-api-key:', 'X-Api-Key: two', 'content-type: application/json', 'Content-Type: text/plain'],
    ],
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

  it('a header past server.maxHeadersCount is not read, as Node drops it', async () => {
    // Node keeps `rawHeaders` in chunks of 32 and only cuts `headers`/`headersDistinct` at the
    // limit, so a scan of `rawHeaders` would see up to 31 headers that the server is configured to ignore.
    const s = await observe(['a: 1', 'b: 2', 'c: 3', 'x-api-key: KEY', 'content-type: text/plain'], 4);
    expect(s.distinctKey).toBe(null);
    expect(s.key).toBe(s.distinctKey);
  });

  it('with more than 1000 headers (the default limit) the 1001st+ header is not read', async () => {
    const fillers = Array.from({ length: 1005 }, (_, i) => `a${i}: b`);
    const s = await observe([...fillers, 'x-api-key: KEY']);
    expect(s.distinctKey).toBe(null);
    expect(s.key).toBe(s.distinctKey);
  });
});

describe('toNodeListener: repeated and extra headers', () => {
  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY] });
  let server: Server;
  let port: number;
  beforeAll(async () => ({ server, port } = await listenOn(handler)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a header sent twice is read as both values joined, as the fetch API does', async () => {
    // Written by hand: Node's client will not send a header twice.
    const body = JSON.stringify(tx({ timestamp: T0 + 5 }));
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /transactions HTTP/1.1\r\nHost: t\r\nx-api-key: ${KEY}\r\nContent-Type: application/json\r\ncontent-type: text/plain\r\n` +
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

  it('two content-type headers get the same answer on the node path as on the fetch path', async () => {
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
    const viaNode = await sendRaw(
      port,
      `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    // fetch joins them ("application/json, text/plain" → 415); Node's `headers` keeps only the first (which would be parsed as JSON → 400).
    expect(statusOf(viaNode)).toBe(viaFetch.status);
  });

  it('an API key sent past server.maxHeadersCount does not authenticate (401), as Node drops the header', async () => {
    const handler = createHttpHandler({ engine: createEngine(), apiKeys: [KEY] });
    const server = createServer(toNodeListener(handler));
    server.maxHeadersCount = 4;
    const port = await listenServer(server);
    try {
      const out = await exchangeRaw(port, `GET /rules HTTP/1.1\r\nHost: x\r\na: 1\r\nb: 2\r\nc: 3\r\nx-api-key: ${KEY}\r\nConnection: close\r\n\r\n`);
      expect(out.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    } finally {
      await closeServer(server);
    }
  });
});

// These drive the listener with stand-in request and response objects, to see when each response is written.
interface Written {
  id: string;
  status: number | null;
  body: string | null;
  destroyed: boolean;
}

function fakeRequest(method: string, url: string, key: string | null): IncomingMessage {
  const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
  const rawHeaders = Object.entries(headers).flat();
  const headersDistinct = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  return Object.assign(Readable.from([]), { method, url, headers, rawHeaders, headersDistinct }) as unknown as IncomingMessage;
}

function fakeResponse(id: string, log: Written[], failing = false): ServerResponse {
  const record: Written = { id, status: null, body: null, destroyed: false };
  return {
    setHeader() {},
    writeHead(status: number) {
      if (failing) throw new Error('socket gone');
      record.status = status;
    },
    end(body?: string) {
      record.body = body ?? '';
      log.push(record);
    },
    destroy() {
      record.destroyed = true;
      log.push(record);
    },
  } as unknown as ServerResponse;
}

describe('toNodeListener: responses of one turn are written together', () => {
  it('writes nothing while the turn runs, then every response of the turn', async () => {
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY] }));
    const log: Written[] = [];
    let writtenBeforeFlush = -1;
    // Registered before the responses exist, so it runs in the same check phase, before the flush.
    setImmediate(() => {
      writtenBeforeFlush = log.length;
    });
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('health', log));
    listener(fakeRequest('GET', '/rules', KEY), fakeResponse('rules', log));
    listener(fakeRequest('GET', '/no-such-route', KEY), fakeResponse('missing', log));
    listener(fakeRequest('GET', '/rules', 'wrong-key-0123456789'), fakeResponse('unauthorized', log));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writtenBeforeFlush).toBe(0);
    // (The order is the order the handler finished them: a refused request finishes sooner.)
    expect(Object.fromEntries(log.map((w) => [w.id, w.status]))).toEqual({ health: 200, rules: 200, missing: 404, unauthorized: 401 });
    expect(JSON.parse(log.find((w) => w.id === 'rules')?.body as string)).toBeInstanceOf(Array);
  });

  it('a response that cannot be written is destroyed; the others of its batch are still written', async () => {
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY] }));
    const log: Written[] = [];
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('a', log));
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('b', log, true));
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('c', log));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Equal requests finish in arrival order, and are written in that order.
    expect(log.map((w) => [w.id, w.status, w.destroyed])).toEqual([
      ['a', 200, false],
      ['b', null, true],
      ['c', 200, false],
    ]);
  });

  it('responses of later turns go out in later batches (nothing is held back)', async () => {
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY] }));
    const log: Written[] = [];
    for (let turn = 0; turn < 3; turn++) {
      listener(fakeRequest('GET', '/healthz', null), fakeResponse(`t${turn}`, log));
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(log.map((w) => w.id)).toEqual(Array.from({ length: turn + 1 }, (_, i) => `t${i}`));
    }
  });

  it('afterResponses runs right after each batch is written; a hook that throws changes no response', async () => {
    const log: Written[] = [];
    const calls: number[] = [];
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY] }), {
      afterResponses: () => {
        calls.push(log.length);
        throw new Error('hook failed');
      },
    });
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('a', log));
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('b', log));
    await new Promise((resolve) => setTimeout(resolve, 20));
    listener(fakeRequest('GET', '/healthz', null), fakeResponse('c', log));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Once per batch, after its writes: two responses, then one.
    expect(calls).toEqual([2, 3]);
    expect(log.map((w) => [w.id, w.status])).toEqual([
      ['a', 200],
      ['b', 200],
      ['c', 200],
    ]);
  });
});

describe('toNodeListener: pipelined requests on one connection', () => {
  let server: Server;
  let port: number;
  let url: string;
  beforeAll(async () => {
    ({ server, port, url } = await listen());
    const seed = txBody('seed-1');
    const created = await fetch(`${url}/transactions`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: seed.body });
    expect(created.status).toBe(201);
  });
  afterAll(() => close(server));

  interface Case {
    req: RawRequest;
    check: (r: RawResponse) => void;
  }
  const problem = (status: number, code: string) => (r: RawResponse) => {
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toBe('application/problem+json');
    expect(json(r)).toMatchObject({ status, code });
  };
  const kinds: Record<string, () => Case> = {
    health: () => ({
      req: request('GET', '/healthz', { key: null }),
      check: (r) => {
        expect(r.status).toBe(200);
        expect(json(r)).toEqual({ status: 'ok' });
      },
    }),
    notFound: () => ({ req: request('GET', '/no-such-route'), check: problem(404, 'ROUTE_NOT_FOUND') }),
    badKey: () => ({ req: request('GET', '/rules', { key: 'wrong-key-0123456789abcdef' }), check: problem(401, 'UNAUTHORIZED') }),
    noKey: () => ({ req: request('GET', '/rules', { key: null }), check: problem(401, 'UNAUTHORIZED') }),
    wrongMethod: () => ({
      req: request('DELETE', '/rules'),
      check: (r) => {
        problem(405, 'METHOD_NOT_ALLOWED')(r);
        expect(r.headers.allow).toBe('GET, HEAD');
      },
    }),
    headRules: () => ({
      req: request('HEAD', '/rules'),
      check: (r) => {
        expect(r.status).toBe(200);
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.body.length).toBe(0);
      },
    }),
    headMissing: () => ({
      req: request('HEAD', '/no-such-route'),
      check: (r) => {
        expect(r.status).toBe(404);
        expect(r.body.length).toBe(0);
      },
    }),
    rules: () => ({
      req: request('GET', '/rules'),
      check: (r) => {
        expect(r.status).toBe(200);
        const list = JSON.parse(r.body.toString('utf8')) as unknown[];
        expect(list.length).toBeGreaterThan(10);
      },
    }),
    seed: () => ({
      req: request('GET', '/transactions/seed-1'),
      check: (r) => {
        expect(r.status).toBe(200);
        expect(json(r).transactionId).toBe('seed-1');
      },
    }),
    missingTx: () => ({ req: request('GET', '/transactions/never-created'), check: problem(404, 'TRANSACTION_NOT_FOUND') }),
    post: () => {
      const t = txBody();
      return {
        req: request('POST', '/transactions', { type: 'application/json', body: t.body }),
        check: (r) => {
          expect(r.status).toBe(201);
          expect(json(r).transactionId).toBe(t.id);
        },
      };
    },
    unsupported: () => ({ req: request('POST', '/transactions', { type: 'text/plain', body: 'a=b&c=d' }), check: problem(415, 'UNSUPPORTED_MEDIA_TYPE') }),
    malformed: () => ({ req: request('POST', '/transactions', { type: 'application/json', body: '{"type": ' }), check: problem(400, 'MALFORMED_JSON') }),
    invalid: () => ({ req: request('POST', '/transactions', { type: 'application/json', body: '{}' }), check: problem(400, 'VALIDATION_FAILED') }),
  };

  test.prop([fc.array(fc.constantFrom(...Object.keys(kinds)), { minLength: 1, maxLength: 14 })], { numRuns: 25 })(
    'any mix of fast refusals, HEADs, big bodies and POSTs comes back complete, in request order, once each',
    async (names) => {
      const cases = names.map((n) => (kinds[n] as () => Case)());
      const last = kinds.health?.() as Case;
      last.req = request('GET', '/healthz', { key: null, close: true });
      const all = [...cases, last];
      const result = await pipelined(
        port,
        all.map((c) => c.req),
      );
      expect(result.closed).toBe(true);
      expect(result.responses).toHaveLength(all.length);
      expect(result.rest.length).toBe(0);
      for (const [i, c] of all.entries()) c.check(result.responses[i] as RawResponse);
    },
  );

  it('a slow POST (body trickling in over several turns) is answered first, then the requests pipelined behind it', async () => {
    const t = txBody();
    const head = `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(t.body)}\r\n\r\n`;
    const tail = [
      request('GET', '/no-such-route'),
      request('GET', '/rules', { key: null }),
      request('HEAD', '/rules'),
      request('GET', '/healthz', { key: null, close: true }),
    ];
    const parts = [head, t.body.slice(0, 10), t.body.slice(10, 40), t.body.slice(40) + tail.map((r) => r.text).join('')];
    const result = await exchange(port, parts, ['POST', ...tail.map((r) => r.method)], { gapMs: 25 });
    expect(result.responses.map((r) => r.status)).toEqual([201, 404, 401, 200, 200]);
    expect(json(result.responses[0] as RawResponse).transactionId).toBe(t.id);
    expect(result.rest.length).toBe(0);
  });

  it('a connection waiting for its slow body does not hold back the responses of other connections', async () => {
    const t = txBody();
    const slow = exchange(
      port,
      [
        `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(t.body)}\r\nConnection: close\r\n\r\n${t.body.slice(0, 5)}`,
        t.body.slice(5),
      ],
      ['POST'],
      { gapMs: 400 },
    );
    await new Promise((r) => setTimeout(r, 50));
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    const fast = await pipelined(port, [request('GET', '/rules'), request('GET', '/healthz', { key: null, close: true })]);
    expect(fast.responses.map((r) => r.status)).toEqual([200, 200]);
    // Answered while the slow body is still on its way.
    expect(slowDone).toBe(false);
    const done = await slow;
    expect(done.responses.map((r) => r.status)).toEqual([201]);
  });

  it('many connections at once, each pipelining a POST, a read and a refusal: every response is its own', async () => {
    const conns = Array.from({ length: 120 }, () => txBody());
    const results = await Promise.all(
      conns.map((t) =>
        pipelined(port, [
          request('POST', '/transactions', { type: 'application/json', body: t.body }),
          request('GET', '/transactions/seed-1'),
          request('GET', `/no/${t.id}`, { close: true }),
        ]),
      ),
    );
    results.forEach((result, i) => {
      expect(result.responses.map((r) => r.status)).toEqual([201, 200, 404]);
      expect(json(result.responses[0] as RawResponse).transactionId).toBe(conns[i]?.id);
      expect(json(result.responses[1] as RawResponse).transactionId).toBe('seed-1');
      expect(result.rest.length).toBe(0);
    });
    // Each POST stored exactly once.
    const check = await pipelined(port, [
      ...conns.slice(0, 20).map((t) => request('GET', `/transactions/${t.id}`)),
      request('GET', '/healthz', { key: null, close: true }),
    ]);
    expect(check.responses.slice(0, 20).map((r) => json(r).transactionId)).toEqual(conns.slice(0, 20).map((t) => t.id));
  });

  it('a large binary download (Uint8Array body) pipelined with HEAD and small responses arrives byte for byte', async () => {
    const bytes = randomBytes(1_500_000);
    const slot = (await (
      await fetch(`${url}/pre-signed-url`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'big.bin', fileSize: bytes.length }),
      })
    ).json()) as { url: string; key: string };
    // The upload itself pipelined between small requests.
    const up = await pipelined(port, [
      request('GET', '/healthz', { key: null }),
      request('PUT', slot.url, { key: null, type: 'application/octet-stream', body: bytes }),
      request('GET', '/rules', { key: null, close: true }),
    ]);
    expect(up.responses.map((r) => r.status)).toEqual([200, 204, 401]);
    await fetch(`${url}/consumer/users`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'u-big', createdTimestamp: Date.UTC(2025, 0, 1) }),
    });
    const comment = (await (
      await fetch(`${url}/users/u-big/comments`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ body: 'doc', files: [{ s3Key: slot.key, filename: 'big.bin', size: bytes.length }] }),
      })
    ).json()) as { files: { downloadLink: string }[] };
    const link = comment.files[0]?.downloadLink as string;
    const down = await pipelined(port, [
      request('GET', link, { key: null }),
      request('HEAD', link, { key: null }),
      request('GET', '/no-such-route'),
      request('GET', link, { key: null, close: true }),
    ]);
    expect(down.responses.map((r) => r.status)).toEqual([200, 200, 404, 200]);
    expect(down.responses[0]?.headers['content-length']).toBe(String(bytes.length));
    expect(Buffer.compare(down.responses[0]?.body as Buffer, bytes)).toBe(0);
    expect(down.responses[1]?.body.length).toBe(0);
    expect(Buffer.compare(down.responses[3]?.body as Buffer, bytes)).toBe(0);
    expect(down.rest.length).toBe(0);
  });
});

describe('toNodeListener: a 413 closes the connection after the responses before it', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => ({ server, port } = await listen({ maxBodyBytes: 1000 })));
  afterAll(() => close(server));

  it('declared length over the limit: the earlier response, then 413 with connection: close, then nothing', async () => {
    const result = await pipelined(port, [
      request('GET', '/healthz', { key: null }),
      request('POST', '/transactions', { type: 'application/json', body: 'x'.repeat(5000) }),
      request('GET', '/healthz', { key: null }),
    ]);
    expect(result.closed).toBe(true);
    expect(result.responses.map((r) => r.status)).toEqual([200, 413]);
    expect(result.responses[1]?.headers.connection).toBe('close');
    expect(json(result.responses[1] as RawResponse).code).toBe('PAYLOAD_TOO_LARGE');
    expect(result.rest.length).toBe(0);
  });

  it('a 413 that finishes before the slower request ahead of it still goes out second', async () => {
    const t = txBody();
    const result = await pipelined(port, [
      request('POST', '/transactions', { type: 'application/json', body: t.body }),
      request('POST', '/transactions', { type: 'application/json', body: 'x'.repeat(3000) }),
    ]);
    expect(result.responses.map((r) => r.status)).toEqual([201, 413]);
    expect(json(result.responses[0] as RawResponse).transactionId).toBe(t.id);
    expect(result.rest.length).toBe(0);
  });

  it('a chunked body over the limit: 413, connection closed, no torn bytes', async () => {
    const chunk = 'y'.repeat(600);
    const body = `${`${(600).toString(16)}\r\n${chunk}\r\n`.repeat(4)}0\r\n\r\n`;
    const text = `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${body}`;
    const result = await exchange(
      port,
      [`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n${text}${request('GET', '/healthz', { key: null }).text}`],
      ['GET', 'POST', 'GET'],
    );
    expect(result.responses.map((r) => r.status)).toEqual([200, 413]);
    expect(result.responses[1]?.headers.connection).toBe('close');
    expect(result.rest.length).toBe(0);
  });

  const handler = createHttpHandler({ engine: httpTestEngine(), apiKeys: [KEY], maxBodyBytes: 100 });

  it('a chunked body over the limit is 413 problem+json', async () => {
    const { server, port } = await listenOn(handler);
    try {
      const chunk = `64\r\n${'x'.repeat(100)}\r\n`;
      const response = await sendRaw(
        port,
        `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nConnection: close\r\n\r\n${chunk.repeat(3)}0\r\n\r\n`,
      );
      expect(statusOf(response)).toBe(413);
      expect(headerOf(response, 'content-type')).toBe('application/problem+json');
    } finally {
      server.close();
    }
  });

  it('after a 413 for a declared oversize body the server closes the connection instead of draining it', async () => {
    const { server, port } = await listenOn(handler);
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

describe('toNodeListener: responses are written in the check phase after they finish, in the order they finished', () => {
  it('under 150 concurrent pipelined requests, none is written more than one check phase after it finished', async () => {
    let checks = 0;
    let ticking = true;
    const tick = () => {
      checks++;
      if (ticking) setImmediate(tick);
    };
    const finished: { tag: string; check: number }[] = [];
    const written: { tag: string; check: number }[] = [];
    const base = createHttpHandler({ engine: createEngine(), apiKeys: [KEY], unauthenticatedRateLimit: null });
    const core = base[HANDLER_CORE];
    // The same handler, its core wrapped to see when each response is finished.
    const wrapped = Object.assign((r: Request) => base(r), {
      [HANDLER_CORE]: async (r: CoreRequest): Promise<CoreResponse> => {
        const response = await core(r);
        finished.push({ tag: r.url, check: checks });
        return response;
      },
    });
    class Recording extends ServerResponse {
      override end(...args: unknown[]): this {
        written.push({ tag: (this.req as IncomingMessage).url as string, check: checks });
        return (super.end as (...a: unknown[]) => this)(...args);
      }
    }
    const server = createServer({ ServerResponse: Recording as typeof ServerResponse }, toNodeListener(wrapped));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    setImmediate(tick);
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, c) => {
          const t = txBody();
          return pipelined(port, [
            request('POST', `/transactions?c=${c}`, { type: 'application/json', body: t.body }),
            request('GET', `/healthz?c=${c}`, { key: null }),
            request('GET', `/nope?c=${c}`, { close: true }),
          ]);
        }),
      );
      for (const r of results) expect(r.responses.map((x) => x.status)).toEqual([201, 200, 404]);
    } finally {
      ticking = false;
      await close(server);
    }
    expect(finished).toHaveLength(150);
    expect(written).toHaveLength(150);
    // Written in exactly the order they finished …
    expect(written.map((w) => w.tag)).toEqual(finished.map((f) => f.tag));
    // … and at most one check phase later.
    const late = written.filter((w, i) => w.check - (finished[i] as { check: number }).check > 1);
    expect(late).toEqual([]);
  });
});

describe('toNodeListener: a client gone before its batched response is written', () => {
  it('the destroyed connection gets nothing, the others of the same batch are fine, the server stays healthy', async () => {
    const { server, port, url } = await listen();
    const errors: unknown[] = [];
    server.on('clientError', (e) => errors.push(e));
    // Runs after toNodeListener's listener: the response is already being made, and will be
    // queued for the end of the turn; the socket is destroyed before that.
    server.on('request', (req: IncomingMessage) => {
      if (req.url?.includes('drop')) req.socket.destroy();
    });
    try {
      const results = await Promise.all([
        pipelined(port, [request('GET', '/rules'), request('GET', '/healthz?drop', { key: null }), request('GET', '/healthz', { key: null, close: true })]),
        pipelined(port, [request('GET', '/healthz?drop', { key: null, close: true })]),
        ...Array.from({ length: 10 }, () =>
          pipelined(port, [request('GET', '/rules'), request('HEAD', '/rules'), request('GET', '/healthz', { key: null, close: true })]),
        ),
      ]);
      expect(results[0]?.responses).toHaveLength(0);
      expect(results[0]?.rest.length).toBe(0);
      expect(results[1]?.responses).toHaveLength(0);
      for (const r of results.slice(2)) {
        expect(r.responses.map((x) => x.status)).toEqual([200, 200, 200]);
        expect(r.rest.length).toBe(0);
      }
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await close(server);
    }
  });

  it('clients resetting right after sending do not disturb concurrent clients', async () => {
    const { server, port, url } = await listen();
    try {
      const resets = Array.from(
        { length: 40 },
        () =>
          new Promise<void>((resolve) => {
            const s: Socket = connect(port, '127.0.0.1', () => {
              s.write(request('GET', '/rules').text);
              s.resetAndDestroy();
            });
            s.on('close', () => resolve());
            s.on('error', () => resolve());
          }),
      );
      const normal = Array.from({ length: 40 }, () =>
        fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } }).then(async (r) => [r.status, ((await r.json()) as unknown[]).length > 10]),
      );
      const [, statuses] = await Promise.all([Promise.all(resets), Promise.all(normal)]);
      expect(statuses.every(([s, ok]) => s === 200 && ok === true)).toBe(true);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await close(server);
    }
  });
});

describe('toNodeListener: server.close() while responses are queued', () => {
  it('every request already received still gets its complete response, then the server closes', async () => {
    let server!: Server;
    let closedAt = 0;
    let closing = false;
    const ctx = await listen({
      onRequest: () => {
        // The first response is finished but not yet written when the server starts closing.
        if (closing) return;
        closing = true;
        server.close(() => (closedAt = Date.now()));
      },
    });
    server = ctx.server;
    const t = txBody();
    const result = await pipelined(ctx.port, [
      request('GET', '/no-such-route'),
      request('POST', '/transactions', { type: 'application/json', body: t.body }),
      request('GET', '/rules'),
      request('HEAD', '/rules'),
      request('GET', '/healthz', { key: null, close: true }),
    ]);
    expect(result.closed).toBe(true);
    expect(result.responses.map((r) => r.status)).toEqual([404, 201, 200, 200, 200]);
    expect(json(result.responses[1] as RawResponse).transactionId).toBe(t.id);
    expect(result.rest.length).toBe(0);
    // The server finishes closing once that connection is done (no keep-alive wait: the last request said close).
    for (let i = 0; i < 100 && closedAt === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closedAt).toBeGreaterThan(0);
    // No new connection is accepted.
    await expect(fetch(`${ctx.url}/healthz`)).rejects.toThrow();
  });
});

const servers: Server[] = [];
async function closeStartedServers(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

interface Started {
  server: Server;
  port: number;
  /** Requests the handler has started on. */
  seen(): number;
}

/** A server on a free port; with `slowMs`, each request takes that long (a plain fetch handler, to hold requests in flight). */
async function start(options: NodeServerOptions = {}, slowMs?: number): Promise<Started> {
  const { engine } = testEngine();
  const handler = createHttpHandler({ engine, apiKeys: [KEY], unauthenticatedRateLimit: null });
  let seen = 0;
  const slow = async (request: Request) => {
    seen += 1;
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    return handler(request);
  };
  const server = createNodeServer(slowMs === undefined ? handler : slow, options);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen: () => seen };
}

describe('createNodeServer', () => {
  afterEach(closeStartedServers);

  it('closes a connection that stalls in its request head after headersTimeoutMs', async () => {
    const { port } = await start({ headersTimeoutMs: 300 });
    const client = rawClient(port);
    await client.connected;
    client.socket.write('POST /transactions HTTP/1.1\r\nhost: x\r\n'); // never finishes the head
    await client.closed;
    expect(client.state.data).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection that stalls in the middle of a body after idleTimeoutMs', async () => {
    const { port } = await start({ idleTimeoutMs: 300 });
    const client = rawClient(port);
    await client.connected;
    client.socket.write(
      `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"type":`,
    );
    await client.closed;
    expect(client.state.closed).toBe(true);
  });

  it('answers a connection past maxConnectionsPerAddress with 503 TOO_MANY_CONNECTIONS and Connection: close, closes one past twice the cap, and serves again when they are gone', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 3 });
    const clients = Array.from({ length: 3 }, () => rawClient(port));
    await Promise.all(clients.map((c) => c.connected));
    const surplus = rawClient(port);
    await surplus.connected;
    surplus.socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await surplus.closed;
    expect(surplus.state.data).toMatch(/^HTTP\/1\.1 503 /);
    expect(surplus.state.data.toLowerCase()).toContain('connection: close');
    expect(surplus.state.data.toLowerCase()).toContain('retry-after: 1');
    expect(surplus.state.data).toContain('"code":"TOO_MANY_CONNECTIONS"');
    // Past twice the cap (3 surplus waiting for their first request), a connection is closed at once.
    const waiting = Array.from({ length: 3 }, () => rawClient(port));
    await Promise.all(waiting.map((c) => c.connected));
    const flood = rawClient(port);
    await flood.closed;
    expect(flood.state.data).toBe('');
    for (const c of [...clients, ...waiting]) c.socket.destroy();
    await Promise.all([...clients, ...waiting].map((c) => c.closed));
    const again = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(again.status).toBe(200);
  });

  it('does not cap the connections of a trusted proxy per address, and takes the client address from its X-Forwarded-For', async () => {
    const { engine } = testEngine();
    const handler = createHttpHandler({ engine, apiKeys: [KEY], unauthenticatedRateLimit: { requestsPerSecond: 1, burst: 1 } });
    const server = createNodeServer(handler, { maxConnectionsPerAddress: 2, trustedProxies: ['127.0.0.1'] });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sockets = Array.from({ length: 5 }, () => rawClient(port));
    await Promise.all(sockets.map((c) => c.connected));
    const ask = async (client: ReturnType<typeof rawClient>, forwardedFor: string) => {
      client.state.data = '';
      client.socket.write(`GET /healthz HTTP/1.1\r\nhost: x\r\nx-forwarded-for: ${forwardedFor}\r\n\r\n`);
      await until(() => client.state.data.includes('\r\n\r\n'));
      return client.state.data.slice(9, 12);
    };
    // Five connections from the proxy, each with its own client: each client has its own budget.
    for (const [i, client] of sockets.entries()) expect(await ask(client, `203.0.113.${i}`)).toBe('200');
    // The same client again, through another connection of the proxy: its budget is spent.
    expect(await ask(sockets[0] as ReturnType<typeof rawClient>, '198.51.100.7, 203.0.113.1')).toBe('429');
    for (const c of sockets) c.socket.destroy();
  });

  it('sets the timeouts and the connection cap it is given, with safe defaults', async () => {
    const { server } = await start();
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(120_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.timeout).toBe(30_000);
    // Node itself closes connections past twice the cap; between the two they are answered 503.
    expect(server.maxConnections).toBe(2_048);
  });

  it('answers CONNECT with 405 and closes', async () => {
    const { port } = await start();
    const client = rawClient(port);
    await client.connected;
    client.socket.write('CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n');
    await client.closed;
    expect(client.state.data).toMatch(/^HTTP\/1\.1 405 /);
    expect(client.state.data).toContain('"code":"METHOD_NOT_ALLOWED"');
  });

  it('sends no 100 Continue for a body it refuses (unauthenticated, or announced past the limit), and 100 Continue for one it reads', async () => {
    const { port } = await start();
    const ask = async (key: string, length: number) => {
      const client = rawClient(port);
      await client.connected;
      client.socket.write(
        `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nexpect: 100-continue\r\n\r\n`,
      );
      await until(() => client.state.data.includes('\r\n\r\n'));
      const first = client.state.data.slice(0, 12);
      client.socket.destroy();
      return first;
    };
    expect(await ask('wrong-key-0123456789', 10)).toBe('HTTP/1.1 401');
    expect(await ask(KEY, 50_000_000)).toBe('HTTP/1.1 413');
    expect(await ask(KEY, 10)).toBe('HTTP/1.1 100');
  });

  it('a client that reads only after sending a body past the limit still reads the 413 (lingering close), every time', async () => {
    const { port } = await start();
    for (let i = 0; i < 5; i++) {
      const client = rawClient(port);
      await client.connected;
      const size = 20_000_000;
      await sendWithoutReading(
        client.socket,
        `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
        size,
      );
      await client.closed;
      expect(client.state.data.slice(0, 12)).toBe('HTTP/1.1 413');
      expect(client.state.data.toLowerCase()).toContain('connection: close');
    }
  });

  it('the same for a chunked body that passes the limit while it streams, and for an unauthenticated body', async () => {
    const { port } = await start();
    const chunked = rawClient(port);
    await chunked.connected;
    const chunk = `10000\r\n${' '.repeat(0x10000)}\r\n`;
    chunked.socket.pause();
    chunked.socket.write(`POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
    for (let i = 0; i < 300; i++) chunked.socket.write(chunk);
    chunked.socket.end('0\r\n\r\n');
    chunked.socket.resume();
    await chunked.closed;
    expect(chunked.state.data.slice(0, 12)).toBe('HTTP/1.1 413');

    const forged = rawClient(port);
    await forged.connected;
    await sendWithoutReading(
      forged.socket,
      `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: wrong-key-0123456789\r\ncontent-type: application/json\r\ncontent-length: 20000000\r\n\r\n`,
      20_000_000,
    );
    await forged.closed;
    expect(forged.state.data.slice(0, 12)).toBe('HTTP/1.1 401');
  });

  it('refuses a forged upload before reading its body, without holding it', async () => {
    const { port } = await start();
    const client = rawClient(port);
    await client.connected;
    // The head only: the 401 must come without the 100 MB announced.
    client.socket.write(`PUT /uploads/file-1?expires=${T0 + 60_000}&signature=00 HTTP/1.1\r\nhost: x\r\ncontent-length: 100000000\r\n\r\n`);
    await until(() => client.state.data.includes('\r\n\r\n'));
    expect(client.state.data.slice(0, 12)).toBe('HTTP/1.1 401');
    client.socket.destroy();
  });
});

describe('drainAndClose', () => {
  afterEach(closeStartedServers);

  it('lets in-flight keep-alive requests finish with connection: close, closes idle connections, then calls back', async () => {
    const { server, port, seen } = await start({}, 200);
    const busy = Array.from({ length: 3 }, () => rawClient(port));
    const idle = rawClient(port);
    await Promise.all([...busy, idle].map((c) => c.connected));
    for (const c of busy) c.socket.write(`GET /rules HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\nconnection: keep-alive\r\n\r\n`);
    await until(() => seen() === 3);
    let done = false;
    drainAndClose(server, () => {
      done = true;
    });
    await idle.closed;
    expect(idle.state.data).toBe('');
    await Promise.all(busy.map((c) => c.closed));
    for (const c of busy) {
      expect(c.state.data.slice(0, 12)).toBe('HTTP/1.1 200');
      expect(c.state.data.toLowerCase()).toContain('connection: close');
      expect(c.state.error).toBeNull();
    }
    await until(() => done);
  });
});

/**
 * One keep-alive connection: each request is sent after the previous response was read in full,
 * framed by its content-length in bytes. A wrong length shows as a timeout (too long) or as
 * garbage before the next status line (too short).
 */
function keepAlive(port: number) {
  const socket = connect(port, '127.0.0.1');
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | null = null;
  socket.on('data', (d: Buffer) => {
    buffered = Buffer.concat([buffered, d]);
    waiting?.();
  });
  const frame = (): { status: number; body: string } | null => {
    const headEnd = buffered.indexOf('\r\n\r\n', 0, 'latin1');
    if (headEnd < 0) return null;
    const head = buffered.subarray(0, headEnd).toString('latin1');
    if (!head.startsWith('HTTP/1.1 ')) throw new Error(`bad framing: ${JSON.stringify(buffered.subarray(0, 60).toString('utf8'))}`);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < headEnd + 4 + length) return null;
    const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    buffered = buffered.subarray(headEnd + 4 + length);
    return { status: Number(head.slice(9, 12)), body };
  };
  return {
    send(request: string): Promise<{ status: number; body: string }> {
      socket.write(request);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no complete response; have ${JSON.stringify(buffered.toString('utf8').slice(0, 200))}`)), 2_000);
        waiting = () => {
          try {
            const f = frame();
            if (f === null) return;
            clearTimeout(timer);
            waiting = null;
            resolve(f);
          } catch (error) {
            clearTimeout(timer);
            reject(error as Error);
          }
        };
        waiting();
      });
    },
    close: () => socket.destroy(),
  };
}

describe('toNodeListener: multi-byte response bodies and content-length', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  it('responses with multi-byte text (aliases, descriptions, ids) keep keep-alive framing intact', async () => {
    const engine = createEngine({ clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(3) });
    await engine.createRuleInstance({
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 1 } },
      ruleNameAlias: 'Überweisung zu groß 🚀 — 大額',
      ruleDescriptionAlias: 'Betrag {{amount}} ≥ {{threshold}} ✓ 😀',
    } as never);
    const server = createServer(toNodeListener(createHttpHandler({ engine, apiKeys: [KEY], unauthenticatedRateLimit: null })));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    const post = (id: string) => {
      const body = JSON.stringify(tx({ transactionId: id, timestamp: T0, reference: 'ü€😀' }));
      return `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n\r\n`;
    const connection = keepAlive(port);
    try {
      const responses = [];
      for (const request of [
        post('tx-é-1'),
        get('/transactions/tx-%C3%A9-1'),
        post('tx-😀-2'),
        get('/rule-instances'),
        get('/nope-%C3%BC'),
        get('/transactions/tx-%F0%9F%98%80-2'),
      ]) {
        responses.push(await connection.send(request));
      }
      expect(responses.map((r) => r.status)).toEqual([201, 200, 201, 200, 404, 200]);
      for (const r of responses) expect(() => JSON.parse(r.body)).not.toThrow();
      expect(responses[0]?.body).toContain('Überweisung zu groß 🚀 — 大額');
      expect(responses[0]?.body).toContain('✓ 😀');
    } finally {
      connection.close();
    }
  });
});
