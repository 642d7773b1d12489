/**
 * Webhooks: the Standard Webhooks signature (what a receiver verifies: the raw body, the id, a
 * timestamp within the replay window) and delivery of an engine's outbox to a real HTTP receiver
 * that fails for a while: every message arrives, in order, each signed, retried ones with the same id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpHandler, signWebhook, startWebhookDelivery, verifyWebhook } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { T0, fixedClock, sequentialIds, tx } from '../helpers.js';
import { createCaller, httpTestEngine, json } from './fixtures.js';

const SECRET = 'whsec-test-0123456789abcdef';

describe('signWebhook / verifyWebhook', () => {
  const body = '{"id":"1","type":"TRANSACTION_DECISION"}';
  const now = 1_767_225_600;
  const headers = (over: Record<string, string> = {}) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(now),
    'webhook-signature': signWebhook(SECRET, 'msg_1', now, body),
    ...over,
  });

  it('accepts the body as signed, within the tolerance either side', () => {
    expect(verifyWebhook(SECRET, headers(), body, { nowSeconds: now })).toBe(true);
    expect(verifyWebhook(SECRET, headers(), body, { nowSeconds: now + 300 })).toBe(true);
    expect(verifyWebhook(SECRET, headers(), body, { nowSeconds: now - 300 })).toBe(true);
    expect(verifyWebhook(SECRET, headers({ 'webhook-signature': `v1,AAAA ${signWebhook(SECRET, 'msg_1', now, body)}` }), body, { nowSeconds: now })).toBe(true);
  });

  it.each([
    ['a changed body', headers(), `${body} `, now],
    ['another id', headers({ 'webhook-id': 'msg_2' }), body, now],
    ['a replay after the tolerance', headers(), body, now + 301],
    ['a timestamp from the future', headers(), body, now - 301],
    ['another secret', headers({ 'webhook-signature': signWebhook(`${SECRET}x`, 'msg_1', now, body) }), body, now],
    ['no signature', { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now) }, body, now],
    ['a timestamp that is not a number', headers({ 'webhook-timestamp': '1e9' }), body, now],
  ])('refuses %s', (_name, h, b, at) => {
    expect(verifyWebhook(SECRET, h as Record<string, string>, b, { nowSeconds: at })).toBe(false);
  });
});

describe('startWebhookDelivery', () => {
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise((resolve) => (server === null ? resolve(undefined) : server.close(resolve)));
    server = null;
  });

  it('delivers every message signed and in order to a receiver that fails at first; a retry carries the same id', async () => {
    const received: { id: string; seq: string; type: string; verified: boolean; status: number }[] = [];
    let refusals = 2;
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
      });
      req.on('end', () => {
        const body = JSON.parse(raw) as { id: string; type: string };
        const status = refusals > 0 ? 503 : 204;
        if (refusals > 0) refusals -= 1;
        received.push({ id: String(req.headers['webhook-id']), seq: body.id, type: body.type, verified: verifyWebhook(SECRET, req.headers, raw), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const engine = createEngine({ clock: fixedClock(), ids: sequentialIds() });
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 500 } }, action: 'SUSPEND' });
    for (let i = 1; i <= 3; i++) {
      await engine.createTransaction(
        tx({ transactionId: `t-${i}`, timestamp: T0 + i, originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' } }),
      );
    }
    const head = await engine.outbox.head();
    const delivery = startWebhookDelivery(engine, {
      url: `http://127.0.0.1:${port}/hook`,
      secret: SECRET,
      pollMs: 5,
      retry: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    try {
      for (let i = 0; i < 2_000 && received.filter((r) => r.status === 204).length < head; i++) await new Promise((r) => setTimeout(r, 5));
    } finally {
      await delivery.stop();
    }
    expect(received.every((r) => r.verified)).toBe(true);
    expect(received.map((r) => [r.id, r.status])).toEqual([['msg_1', 503], ['msg_1', 503], ...Array.from({ length: head }, (_, i) => [`msg_${i + 1}`, 204])]);
    expect(received.map((r) => r.type).slice(2, 4)).toEqual(['RULE_INSTANCE_CHANGED', 'TRANSACTION_DECISION']);
    expect(received.filter((r) => r.type === 'TRANSACTION_DECISION')).toHaveLength(3);
    expect(await engine.outbox.getConsumer('webhook:default')).toMatchObject({ position: head, attempts: 0, deadLetters: 0 });
  });

  it('refuses a URL that is not http(s) and a secret shorter than 16 bytes', () => {
    const engine = createEngine();
    expect(() => startWebhookDelivery(engine, { url: 'ftp://x/hook', secret: SECRET })).toThrow(/http or https/);
    expect(() => startWebhookDelivery(engine, { url: 'http://x/hook', secret: 'short' })).toThrow(/16 bytes/);
  });
});

describe('the outbox routes', () => {
  const KEY = 'outbox-routes-key-0123456789';
  const call = createCaller(KEY);

  it('read the outbox and its consumers; an unknown or repeated parameter, or a bad value, is a 400 naming it; an unknown consumer a 404', async () => {
    const engine = httpTestEngine();
    const handler = createHttpHandler({ engine, apiKeys: [KEY] });
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 500 } }, action: 'SUSPEND' });
    await engine.outbox.acknowledge('reader', 1);
    expect(await json(await call(handler, 'GET', '/outbox?after=0&limit=5'))).toMatchObject({ head: 1, messages: [{ seq: 1, type: 'RULE_INSTANCE_CHANGED' }] });
    expect(await json(await call(handler, 'GET', '/outbox/consumers/reader'))).toMatchObject({ name: 'reader', position: 1 });
    expect(await (await call(handler, 'GET', '/outbox/consumers/reader/dead-letters')).json()).toEqual([]);
    const refused = async (path: string) => {
      const response = await call(handler, 'GET', path);
      return { status: response.status, body: await json(response) };
    };
    expect(await refused('/outbox?start=1')).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(await refused('/outbox?limit=1&limit=2')).toMatchObject({ status: 400 });
    expect(await refused('/outbox?limit=5000')).toMatchObject({ status: 400, body: { errors: [{ path: '/limit' }] } });
    expect(await refused('/outbox?after=-1')).toMatchObject({ status: 400, body: { errors: [{ path: '/after' }] } });
    expect(await refused('/outbox/consumers?after=1')).toMatchObject({ status: 400 });
    expect(await refused('/outbox/consumers/nobody')).toMatchObject({ status: 404, body: { code: 'CONSUMER_NOT_FOUND' } });
    expect((await call(handler, 'GET', '/outbox', { key: null })).status).toBe(401);
  });
});
