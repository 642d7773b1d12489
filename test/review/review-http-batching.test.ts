/**
 * Adversarial review of D-141 (request log gathered per turn, `src/cli/request-log.ts` + `src/cli/serve.ts`)
 * and D-142 (`toNodeListener` sends one turn's responses together, `src/http/node.ts`), against real
 * `node:http` servers, raw `node:net` sockets and the built command.
 * Tests for the four bugs this review found (now fixed) say "Found by this review".
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fc, test } from '@fast-check/vitest';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBatchedWriter, createFdSink, formatRequestLine } from '../../src/cli/request-log.js';
import { createHttpHandler, HANDLER_CORE, toNodeListener, type CoreRequest, type CoreResponse, type HttpHandlerOptions, type RequestLogEntry } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';

if (process.env.FC_SEED !== undefined) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

const KEY = 'review-batching-key-0123456789';
const CLI = join(import.meta.dirname, '../../dist/cli.js');

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: writes bytes, reads until the server closes, parses the responses.
// ---------------------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Exchange {
  responses: RawResponse[];
  /** Bytes after the last complete response (must be empty: nothing torn, nothing extra). */
  rest: Buffer;
  /** The server ended or closed the connection before the timeout. */
  closed: boolean;
  /** ms from the first byte sent to the end of the connection. */
  ms: number;
}

/** Parses consecutive responses; `methods[i]` is the method of the i-th request (HEAD has no body). */
function parseResponses(data: Buffer, methods: readonly string[]): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) break;
    const lines = data.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0] ?? '')?.[1] ?? Number.NaN);
    if (!Number.isInteger(status)) throw new Error(`not a status line: ${JSON.stringify(lines[0])}`);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      headers[name] = headers[name] === undefined ? line.slice(colon + 1).trim() : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
    }
    if (headers['transfer-encoding'] !== undefined) throw new Error('unexpected transfer-encoding');
    const noBody = methods[responses.length] === 'HEAD' || status === 204 || status === 304;
    const length = noBody ? 0 : Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error(`a ${status} response without content-length`);
    if (data.length < end + 4 + length) break;
    responses.push({ status, headers, body: data.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return { responses, rest: data.subarray(at) };
}

/**
 * Opens a connection, writes `parts` (an array element is written after `gapMs`), and reads until
 * the server closes the connection (or `timeoutMs`).
 */
function exchange(port: number, parts: (string | Buffer)[], methods: readonly string[], { gapMs = 0, timeoutMs = 5000 } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const started = Date.now();
    let done = false;
    const socket = connect(port, '127.0.0.1');
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve({ ...parseResponses(Buffer.concat(chunks), methods), closed, ms: Date.now() - started });
      } catch (error) {
        reject(error as Error);
      }
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('connect', async () => {
      for (let i = 0; i < parts.length; i++) {
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (!socket.destroyed) socket.write(parts[i] as string | Buffer);
      }
    });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

interface RawRequest {
  method: string;
  text: string;
}

function request(method: string, path: string, options: { key?: string | null; type?: string; body?: string | Buffer; close?: boolean; extra?: string } = {}): RawRequest {
  const key = options.key === undefined ? KEY : options.key;
  let head = `${method} ${path} HTTP/1.1\r\nHost: x\r\n`;
  if (key !== null) head += `x-api-key: ${key}\r\n`;
  if (options.type !== undefined) head += `content-type: ${options.type}\r\n`;
  if (options.body !== undefined) head += `content-length: ${Buffer.byteLength(options.body)}\r\n`;
  if (options.extra !== undefined) head += options.extra;
  if (options.close) head += 'Connection: close\r\n';
  head += '\r\n';
  return { method, text: options.body === undefined ? head : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(options.body)]).toString('latin1') };
}

/** All requests in one write (pipelined), the last one with `Connection: close`. */
function pipelined(port: number, requests: RawRequest[]): Promise<Exchange> {
  return exchange(port, [Buffer.from(requests.map((r) => r.text).join(''), 'latin1')], requests.map((r) => r.method));
}

let txSeq = 0;
function txBody(id = `rb-${++txSeq}`): { id: string; body: string } {
  return {
    id,
    body: JSON.stringify({
      type: 'TRANSFER',
      transactionId: id,
      timestamp: Date.UTC(2025, 0, 15, 12),
      originUserId: 'alice',
      destinationUserId: 'bob',
      originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    }),
  };
}

async function listen(options: Partial<HttpHandlerOptions> = {}, serverOptions: Parameters<typeof createServer>[0] = {}): Promise<{ server: Server; port: number; url: string }> {
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

const json = (r: RawResponse) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Pipelining: every response complete, in request order, once.
// ---------------------------------------------------------------------------------------------

describe('D-142 on a real server: pipelined requests on one connection', () => {
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
    health: () => ({ req: request('GET', '/healthz', { key: null }), check: (r) => (expect(r.status).toBe(200), expect(json(r)).toEqual({ status: 'ok' })) }),
    notFound: () => ({ req: request('GET', '/no-such-route'), check: problem(404, 'ROUTE_NOT_FOUND') }),
    badKey: () => ({ req: request('GET', '/rules', { key: 'wrong-key-0123456789abcdef' }), check: problem(401, 'UNAUTHORIZED') }),
    noKey: () => ({ req: request('GET', '/rules', { key: null }), check: problem(401, 'UNAUTHORIZED') }),
    wrongMethod: () => ({
      req: request('DELETE', '/rules'),
      check: (r) => (problem(405, 'METHOD_NOT_ALLOWED')(r), expect(r.headers.allow).toBe('GET, HEAD')),
    }),
    headRules: () => ({
      req: request('HEAD', '/rules'),
      check: (r) => (expect(r.status).toBe(200), expect(r.headers['content-type']).toBe('application/json'), expect(r.body.length).toBe(0)),
    }),
    headMissing: () => ({ req: request('HEAD', '/no-such-route'), check: (r) => (expect(r.status).toBe(404), expect(r.body.length).toBe(0)) }),
    rules: () => ({
      req: request('GET', '/rules'),
      check: (r) => {
        expect(r.status).toBe(200);
        const list = JSON.parse(r.body.toString('utf8')) as unknown[];
        expect(list.length).toBeGreaterThan(10);
      },
    }),
    seed: () => ({ req: request('GET', '/transactions/seed-1'), check: (r) => (expect(r.status).toBe(200), expect(json(r).transactionId).toBe('seed-1')) }),
    missingTx: () => ({ req: request('GET', '/transactions/never-created'), check: problem(404, 'TRANSACTION_NOT_FOUND') }),
    post: () => {
      const t = txBody();
      return {
        req: request('POST', '/transactions', { type: 'application/json', body: t.body }),
        check: (r) => (expect(r.status).toBe(201), expect(json(r).transactionId).toBe(t.id)),
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
      const result = await pipelined(port, all.map((c) => c.req));
      expect(result.closed).toBe(true);
      expect(result.responses).toHaveLength(all.length);
      expect(result.rest.length).toBe(0);
      all.forEach((c, i) => c.check(result.responses[i] as RawResponse));
    },
  );

  it('a slow POST (body trickling in over several turns) is answered first, then the requests pipelined behind it', async () => {
    const t = txBody();
    const head = `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(t.body)}\r\n\r\n`;
    const tail = [request('GET', '/no-such-route'), request('GET', '/rules', { key: null }), request('HEAD', '/rules'), request('GET', '/healthz', { key: null, close: true })];
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
      [`POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(t.body)}\r\nConnection: close\r\n\r\n${t.body.slice(0, 5)}`, t.body.slice(5)],
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
        pipelined(port, [request('POST', '/transactions', { type: 'application/json', body: t.body }), request('GET', '/transactions/seed-1'), request('GET', `/no/${t.id}`, { close: true })]),
      ),
    );
    results.forEach((result, i) => {
      expect(result.responses.map((r) => r.status)).toEqual([201, 200, 404]);
      expect(json(result.responses[0] as RawResponse).transactionId).toBe(conns[i]?.id);
      expect(json(result.responses[1] as RawResponse).transactionId).toBe('seed-1');
      expect(result.rest.length).toBe(0);
    });
    // Each POST stored exactly once.
    const check = await pipelined(port, [...conns.slice(0, 20).map((t) => request('GET', `/transactions/${t.id}`)), request('GET', '/healthz', { key: null, close: true })]);
    expect(check.responses.slice(0, 20).map((r) => json(r).transactionId)).toEqual(conns.slice(0, 20).map((t) => t.id));
  });

  it('a large binary download (Uint8Array body) pipelined with HEAD and small responses arrives byte for byte', async () => {
    const bytes = randomBytes(1_500_000);
    const slot = (await (
      await fetch(`${url}/pre-signed-url`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ filename: 'big.bin', fileSize: bytes.length }) })
    ).json()) as { url: string; key: string };
    // The upload itself pipelined between small requests.
    const up = await pipelined(port, [request('GET', '/healthz', { key: null }), request('PUT', slot.url, { key: null, type: 'application/octet-stream', body: bytes }), request('GET', '/rules', { key: null, close: true })]);
    expect(up.responses.map((r) => r.status)).toEqual([200, 204, 401]);
    await fetch(`${url}/consumer/users`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'u-big', createdTimestamp: Date.UTC(2025, 0, 1) }) });
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

// ---------------------------------------------------------------------------------------------
// Refusals that close the connection.
// ---------------------------------------------------------------------------------------------

describe('D-142: 413 closes the connection after the responses before it', () => {
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
    const body = `${(600).toString(16)}\r\n${chunk}\r\n`.repeat(4) + '0\r\n\r\n';
    const text = `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${body}`;
    const result = await exchange(port, [`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n${text}${request('GET', '/healthz', { key: null }).text}`], ['GET', 'POST', 'GET']);
    expect(result.responses.map((r) => r.status)).toEqual([200, 413]);
    expect(result.responses[1]?.headers.connection).toBe('close');
    expect(result.rest.length).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// When responses are written: order, and never more than one turn late.
// ---------------------------------------------------------------------------------------------

describe('D-142: responses are written in the check phase after they finish, in the order they finished', () => {
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

// ---------------------------------------------------------------------------------------------
// Clients that go away; server.close() with responses queued.
// ---------------------------------------------------------------------------------------------

describe('D-142: a client gone before its batched response is written', () => {
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
        ...Array.from({ length: 10 }, () => pipelined(port, [request('GET', '/rules'), request('HEAD', '/rules'), request('GET', '/healthz', { key: null, close: true })])),
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
      const normal = Array.from({ length: 40 }, () => fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } }).then(async (r) => [r.status, ((await r.json()) as unknown[]).length > 10]));
      const [, statuses] = await Promise.all([Promise.all(resets), Promise.all(normal)]);
      expect(statuses.every(([s, ok]) => s === 200 && ok === true)).toBe(true);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await close(server);
    }
  });
});

describe('D-142: server.close() while responses are queued', () => {
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

// ---------------------------------------------------------------------------------------------
// The request log: formatRequestLine and createBatchedWriter.
// ---------------------------------------------------------------------------------------------

/** No lone surrogate (String#isWellFormed, ES2024). */
const wellFormed = (s: string) => !/\p{Cs}/u.test(s);

function pinoLine(entry: RequestLogEntry, time: string): string {
  const lines: string[] = [];
  pino({ base: null, timestamp: () => time }, { write: (line: string) => void lines.push(line) }).info(entry, 'request');
  return lines[0] as string;
}

describe('D-141: formatRequestLine', () => {
  // The existing property draws short strings; pino switches to JSON.stringify past 100 characters.
  const longText = fc.oneof(fc.string({ minLength: 95, maxLength: 260 }), fc.string({ unit: 'binary', minLength: 95, maxLength: 260 }), fc.string({ unit: 'grapheme-composite', minLength: 30, maxLength: 120 }));
  const noLoneSurrogate = wellFormed;

  test.prop([longText.filter(noLoneSurrogate), longText.filter(noLoneSurrogate), fc.option(longText.filter(noLoneSurrogate), { nil: null }), fc.option(longText.filter(noLoneSurrogate), { nil: undefined })], { numRuns: 200 })(
    'long strings with escapes: the same line as pino',
    (method, route, tenant, code) => {
      const entry: RequestLogEntry = { method, route, status: 200, tenant, durationMs: 1.5, ...(code === undefined ? {} : { code }) };
      const time = ',"time":"2026-11-22T09:00:00.000Z"';
      expect(formatRequestLine(entry, time)).toBe(pinoLine(entry, time));
    },
  );

  test.prop(
    [
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: null }),
      fc.oneof(fc.double(), fc.integer()),
      fc.oneof(fc.double(), fc.integer()),
      fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
    ],
    { numRuns: 300 },
  )('any entry (lone surrogates included) makes one well-formed JSON line that reads back as the entry', (route, tenant, status, durationMs, code) => {
    const entry: RequestLogEntry = { method: 'GET', route, status, tenant, durationMs, ...(code === undefined ? {} : { code }) };
    const line = formatRequestLine(entry, ',"time":"2026-11-22T09:00:00.000Z"');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(wellFormed(line)).toBe(true);
    const num = (n: number) => (Number.isFinite(n) ? (Object.is(n, -0) ? 0 : n) : null);
    expect(JSON.parse(line)).toEqual({ level: 30, time: '2026-11-22T09:00:00.000Z', method: 'GET', route, status: num(status), tenant, durationMs: num(durationMs), ...(code === undefined ? {} : { code }), msg: 'request' });
    // Where pino's line is well-formed, it is the same line.
    const p = pinoLine(entry, ',"time":"2026-11-22T09:00:00.000Z"');
    if (wellFormed(p)) expect(line).toBe(p);
  });
});

type Op = { kind: 'write'; n: number } | { kind: 'flush' } | { kind: 'micro' } | { kind: 'immediate' } | { kind: 'timeout' };

describe('D-141: createBatchedWriter with its real schedule', () => {
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => ({ kind: 'write' as const, n })) },
    fc.constant({ kind: 'flush' as const }),
    fc.constant({ kind: 'micro' as const }),
    fc.constant({ kind: 'immediate' as const }),
    fc.constant({ kind: 'timeout' as const }),
  );

  test.prop([fc.array(opArb, { maxLength: 25 }), fc.array(fc.boolean(), { maxLength: 8 })], { numRuns: 60 })(
    'across turns, flushes and failing writes: every line attempted once, in order; only failed writes lost; nothing pending once the fallback timer ran',
    async (ops, failures) => {
      const attempts: { text: string; failed: boolean }[] = [];
      const errors: unknown[] = [];
      const sink = {
        write(text: string) {
          const failed = failures[attempts.length] === true;
          attempts.push({ text, failed });
          if (failed) throw new Error('EIO');
        },
      };
      const writer = createBatchedWriter(sink, (e) => errors.push(e));
      let seq = 0;
      const lines: string[] = [];
      for (const op of ops) {
        if (op.kind === 'write') {
          for (let i = 0; i < op.n; i++) {
            const line = `line-${seq++}\n`;
            lines.push(line);
            writer.write(line);
          }
        } else if (op.kind === 'flush') writer.flush();
        else if (op.kind === 'micro') await Promise.resolve();
        else if (op.kind === 'immediate') await new Promise((r) => setImmediate(r));
        else await new Promise((r) => setTimeout(r, 0));
      }
      // After the batch timer (25 ms), nothing is pending.
      await new Promise((r) => setTimeout(r, 40));
      expect(attempts.every((a) => a.text !== '')).toBe(true);
      expect(attempts.map((a) => a.text).join('')).toBe(lines.join(''));
      expect(errors).toHaveLength(attempts.filter((a) => a.failed).length);
      // Nothing more is written later.
      const before = attempts.length;
      await new Promise((r) => setTimeout(r, 2));
      expect(attempts).toHaveLength(before);
    },
  );

  it('a line written by the sink itself (re-entrantly) or by onError is not lost', async () => {
    const out: string[] = [];
    let writer!: ReturnType<typeof createBatchedWriter>;
    let first = true;
    writer = createBatchedWriter(
      {
        write(text: string) {
          if (first) {
            first = false;
            writer.write('from-sink\n');
            throw new Error('boom');
          }
          out.push(text);
        },
      },
      () => writer.write('from-onError\n'),
    );
    writer.write('a\n');
    await new Promise((r) => setTimeout(r, 80));
    expect(out.join('')).toBe('from-sink\nfrom-onError\n');
    writer.write('b\n');
    await new Promise((r) => setTimeout(r, 40));
    expect(out.join('')).toBe('from-sink\nfrom-onError\nb\n');
  });

  it('on a real server, every request is logged once, and the log lines come in the order the responses were written', async () => {
    const events: string[] = [];
    const writer = createBatchedWriter({ write: (text: string) => void events.push(...text.split('\n').filter((l) => l !== '').map((l) => `log:${l}`)) }, () => undefined);
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY], onRequest: (e) => writer.write(`${e.route}|${e.status}\n`) }));
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
      res.end = ((...a: unknown[]) => {
        events.push(`res:${res.statusCode}`);
        return end(...a);
      }) as typeof res.end;
      listener(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    try {
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => pipelined(port, [request('GET', i % 2 ? '/healthz' : '/nope', { key: null }), request('GET', '/rules', { close: true })])));
      for (const r of results) expect(r.responses).toHaveLength(2);
      await new Promise((r) => setTimeout(r, 40));
    } finally {
      await close(server);
    }
    const logs = events.filter((e) => e.startsWith('log:'));
    const responses = events.filter((e) => e.startsWith('res:'));
    expect(logs).toHaveLength(60);
    expect(responses).toHaveLength(60);
    expect(logs.map((l) => Number(l.split('|')[1]))).toEqual(responses.map((r) => Number(r.slice(4))));
  });

  it('when requests finish in two consecutive turns, each turn\'s log lines are written after its responses (the writer flushed by afterResponses, as txmon serve wires it)', async () => {
    // Found by this review: with the log flushed by two setImmediate hops of its own, lines of turn
    // 2 joined the batch queued in turn 1 and were written before turn 2's responses. Now the
    // writer is flushed from a timer, or by toNodeListener's afterResponses hook right after a
    // batch of responses (here on every batch: largeBytes 1).
    const events: string[] = [];
    const writer = createBatchedWriter({ write: (text: string) => void events.push(`log:${text.trim().split('\n').join(',')}`) }, () => undefined, { largeBytes: 1 });
    const listener = toNodeListener(createHttpHandler({ engine: createEngine(), apiKeys: [KEY], onRequest: (e) => writer.write(`${e.route}\n`) }), { afterResponses: writer.flushIfLarge });
    const fakeReq = (url: string) => Object.assign(Readable.from([]), { method: 'GET', url, headers: {}, rawHeaders: [], headersDistinct: {} }) as unknown as IncomingMessage;
    const fakeRes = (name: string, onEnd = () => {}) =>
      ({
        setHeader() {},
        writeHead() {},
        end() {
          events.push(`res:${name}`);
          onEnd();
        },
        destroy() {
          events.push(`destroyed:${name}`);
        },
      }) as unknown as ServerResponse;
    // Turn 1: a request finishes; its response is written in turn 1's check phase. Turn 2: another
    // request finishes in the timers phase (a 1 ms timer set while the first response is written,
    // already due when turn 2 starts), before turn 2's check phase.
    const second = () => listener(fakeReq('/openapi.json'), fakeRes('/openapi.json'));
    listener(
      fakeReq('/healthz'),
      fakeRes('/healthz', () => {
        setTimeout(second, 1);
        const t = Date.now();
        while (Date.now() - t < 3);
      }),
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(events.filter((e) => e.startsWith('res:'))).toEqual(['res:/healthz', 'res:/openapi.json']);
    // Every line after the response of its request.
    for (const route of ['/healthz', '/openapi.json']) {
      const logAt = events.findIndex((e) => e.startsWith('log:') && e.includes(route));
      expect(logAt).toBeGreaterThan(events.indexOf(`res:${route}`));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The request log of the built command (pino's synchronous destination on file descriptor 1).
// ---------------------------------------------------------------------------------------------

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  // A child left running by a failed test.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startCli(stdio: ('pipe' | 'ignore' | number)[], extra: string[] = []) {
  expect(existsSync(CLI), 'dist/cli.js is missing: run `npm run build`').toBe(true);
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...extra], { stdio: stdio as never, env: { ...process.env, TXMON_API_KEYS: KEY } });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = async (): Promise<string> => {
    const until = Date.now() + 10_000;
    while (!out.includes('\n')) {
      if (Date.now() > until) throw new Error(`no start: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return /"url":"([^"]+)"/.exec(out)?.[1] as string;
  };
  return { child, exited, ready, out: () => out, err: () => err };
}

describe('D-141: txmon serve request log (built command)', () => {
  it('every request of a pipelined burst is logged exactly once, whole lines, before "shutting down"; then "stopped"', async () => {
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    const port = Number(new URL(url).port);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => pipelined(port, [request('GET', '/healthz', { key: null }), request('GET', '/nope'), request('HEAD', '/rules'), request('GET', '/rules', { key: 'bad-key-0123456789abcdef', close: true })])),
    );
    for (const r of results) expect(r.responses.map((x) => x.status)).toEqual([200, 404, 200, 401]);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    const lines = cli.out().split('\n');
    expect(lines.pop()).toBe('');
    const parsed = lines.map((l) => JSON.parse(l) as { msg: string; status?: number; method?: string; route?: string });
    expect(parsed[0]?.msg).toBe('txmon serving');
    const msgs = parsed.map((p) => p.msg);
    expect(msgs.slice(-2)).toEqual(['shutting down: finishing in-flight requests', 'stopped']);
    const reqs = parsed.filter((p) => p.msg === 'request');
    expect(reqs).toHaveLength(80);
    expect(msgs.slice(1, 81).every((m) => m === 'request')).toBe(true);
    const count = (s: number) => reqs.filter((r) => r.status === s).length;
    expect([count(200), count(404), count(401)]).toEqual([40, 20, 20]);
    expect(reqs.filter((r) => r.method === 'HEAD' && r.route === '/rules')).toHaveLength(20);
    expect(cli.err()).toBe('');
  });

  it('stdout closed (EPIPE): reported once on stderr, and the server keeps serving', async () => {
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    cli.child.stdout?.destroy();
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 10));
    }
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.err().match(/could not be written \(EPIPE\)/g)).toHaveLength(1);
  });

  it('SIGTERM with a keep-alive request in flight: the process exits right after its response (not after the 5 s keep-alive timeout)', async () => {
    // Found by this review: Node answers a busy keep-alive connection with `Connection: keep-alive`
    // after server.close(), so the process waited for keepAliveTimeout. exitOnSignals now closes
    // connections as they turn idle.
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    const port = Number(new URL(url).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const body = txBody().body;
    // Headers and half the body: the request is in flight when the signal arrives.
    socket.write(`POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 200));
    cli.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    let closedByServer = false;
    socket.once('close', () => (closedByServer = true));
    let exited = false;
    const exit = cli.exited.then((code) => {
      exited = true;
      return code;
    });
    socket.write(body.slice(10));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (answer.includes('\r\n\r\n')) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    expect(answer.startsWith('HTTP/1.1 201')).toBe(true);
    // Well within the 5 s keep-alive timeout the connection is closed and the process is gone.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(closedByServer).toBe(true);
    expect(exited).toBe(true);
    expect(await exit).toBe(0);
  });

  it('stdout on a full disk (ENOSPC): reported once on stderr, and the server keeps serving', async () => {
    const full = openSync('/dev/full', 'w');
    const cli = startCli(['ignore', full, 'pipe']);
    closeSync(full);
    const until = Date.now() + 10_000;
    while (!cli.err().includes('\n') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    // The port is not readable from stdout here: find it from the process's listening socket.
    const port = await listeningPort(cli.child.pid as number);
    for (let i = 0; i < 5; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.err().match(/could not be written \(ENOSPC\)/g)).toHaveLength(1);
  });

  it('with stdout and stderr both closed (e.g. `txmon serve 2>&1 | head -1`), the server keeps serving', async () => {
    // Found by this review: the report went through process.stderr, whose EPIPE was an unhandled
    // 'error' event that killed the process. It is now a writeSync(2) whose failure is ignored.
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    cli.child.stdout?.destroy();
    cli.child.stderr?.destroy();
    try {
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(await fetch(`${url}/healthz`).then((r) => r.status, (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message));
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(statuses).toEqual([200, 200, 200, 200]);
    } finally {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  });
});

/** The TCP port a process listens on (Linux /proc). */
async function listeningPort(pid: number): Promise<number> {
  const until = Date.now() + 10_000;
  for (;;) {
    const inodes = new Set<string>();
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
          const m = /^socket:\[(\d+)\]$/.exec(link);
          if (m) inodes.add(m[1] as string);
        } catch {
          // closed meanwhile
        }
      }
      for (const row of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
        const cols = row.trim().split(/\s+/);
        if (cols[3] === '0A' && inodes.has(cols[9] as string)) return Number.parseInt((cols[1] as string).split(':')[1] as string, 16);
      }
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error('no listening socket');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('D-141: the destination txmon serve writes through (createFdSink)', () => {
  // Found by this review: pino's sonic-boom destination kept a buffer whose write failed with
  // anything but EPIPE and retried it with every later write (unbounded memory on a full disk). The
  // command now writes through createFdSink, which drops on errors and holds back only on EAGAIN.
  const line = (i: number) => formatRequestLine({ method: 'GET', route: '/healthz', status: 200, tenant: null, durationMs: i }, ',"time":"2026-11-22T09:00:00.000Z"');

  it('a write that fails with ENOSPC loses its own lines only: nothing is kept, later lines are written once the disk recovers', () => {
    const written: string[] = [];
    const errors: string[] = [];
    let failing = true;
    const sink = createFdSink(99, (e) => errors.push((e as NodeJS.ErrnoException).code ?? ''), {
      write: (_fd, bytes, offset, length) => {
        if (failing) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
        written.push(Buffer.from(bytes.subarray(offset, offset + length)).toString('utf8'));
        return length;
      },
    });
    for (let i = 0; i < 200; i++) sink.write(line(i));
    expect(errors).toHaveLength(200);
    expect(sink.flush()).toBe(true);
    failing = false;
    sink.write(line(-1));
    expect(written).toEqual([line(-1)]);
  });

  it('on a real descriptor (/dev/full) every write fails with ENOSPC and nothing piles up', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const errors: string[] = [];
      const sink = createFdSink(fd, (e) => errors.push((e as NodeJS.ErrnoException).code ?? ''));
      for (let i = 0; i < 50; i++) sink.write(line(i));
      expect(errors.every((c) => c === 'ENOSPC')).toBe(true);
      expect(errors).toHaveLength(50);
      expect(sink.flush()).toBe(true);
    } finally {
      closeSync(fd);
    }
  });

  it('partial writes and EAGAIN keep the rest, in order, up to the bound; past it new text is dropped and reported', async () => {
    let out = '';
    let mode: 'partial' | 'again' | 'ok' = 'partial';
    const errors: string[] = [];
    const sink = createFdSink(99, (e) => errors.push((e as NodeJS.ErrnoException).code ?? ''), {
      maxHeldBytes: 1000,
      write: (_fd, bytes, offset, length) => {
        if (mode === 'again') throw Object.assign(new Error('again'), { code: 'EAGAIN' });
        const n = mode === 'partial' ? Math.min(7, length) : length;
        out += Buffer.from(bytes.subarray(offset, offset + n)).toString('latin1');
        return n;
      },
    });
    sink.write('abcdefghijklmnopqrstuvwxyz\n');
    expect(out).toBe('abcdefghijklmnopqrstuvwxyz\n');
    mode = 'again';
    sink.write('first\n');
    sink.write('second\n');
    expect(sink.flush()).toBe(false);
    expect(errors).toEqual([]);
    sink.write('x'.repeat(2000));
    expect(errors).toEqual(['EBACKLOG']);
    mode = 'ok';
    // The 10 ms retry timer writes what was held back, without another write.
    await new Promise((r) => setTimeout(r, 40));
    expect(out).toBe('abcdefghijklmnopqrstuvwxyz\nfirst\nsecond\n');
    expect(sink.flush()).toBe(true);
  });
});
