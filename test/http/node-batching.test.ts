import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createHttpHandler, toNodeListener } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';

// toNodeListener sends the responses of one event-loop turn together, from a setImmediate
// callback (D-142). These tests drive the listener with stand-in request and response objects, so
// they can see when each response is written.

const KEY = 'batching-key-0123456789';

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

describe('createHttpHandler: a failing onRequest hook', () => {
  it('is called once, and the response stands (a stored transaction is not reported as a 500)', async () => {
    let calls = 0;
    const handler = createHttpHandler({
      engine: createEngine(),
      apiKeys: [KEY],
      onRequest: () => {
        calls += 1;
        throw new Error('log sink down');
      },
    });
    const response = await handler(new Request('http://localhost/healthz'));
    expect(response.status).toBe(200);
    expect(calls).toBe(1);
  });
});
