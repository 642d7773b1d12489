/**
 * The HTTP handler over a store that fails, stalls or is slow: a fault of the store is a 503 with
 * `Retry-After` and a code naming it (never a 500), logged with its cause; `/readyz` says which
 * store is not ready; work past the handler's bounds is refused at once, and open routes answer
 * throughout. Nothing is half-written, and the engine serves again once the store is back.
 */
import { describe, expect, it } from 'vitest';
import { createHttpHandler, type RequestLogEntry } from '../../src/http/index.js';
import { createEngine, createMemoryRepositories, type Repositories } from '../../src/index.js';
import { formatRequestLine } from '../../src/cli/request-log.js';
import { fixedClock, sequentialIds, T0, tx } from '../helpers.js';
import { createCaller, json } from './fixtures.js';

const KEY = 'store-faults-key-0123456789';
const call = createCaller(KEY);

/** Memory repositories behind a switch: `down` makes every call reject; `stall` holds every call until released. */
function switchableStore() {
  const inner = createMemoryRepositories();
  const state = { down: false, stalled: [] as (() => void)[], stall: false, calls: 0 };
  const gate = async () => {
    state.calls += 1;
    if (state.stall) await new Promise<void>((resolve) => state.stalled.push(resolve));
    if (state.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  };
  const wrap = <G extends object>(group: G): G =>
    Object.fromEntries(
      Object.entries(group).map(([name, fn]) => [
        name,
        typeof fn === 'function'
          ? async (...args: unknown[]) => {
              await gate();
              return (fn as (...a: unknown[]) => unknown).apply(group, args);
            }
          : fn,
      ]),
    ) as G;
  const repositories: Repositories = {
    transactions: { ...wrap(inner.transactions), scanTransactions: inner.transactions.scanTransactions },
    ruleInstances: wrap(inner.ruleInstances),
    users: wrap(inner.users),
    comments: wrap(inner.comments),
    cases: wrap(inner.cases),
    files: wrap(inner.files),
    aggregates: wrap(inner.aggregates),
    lists: wrap(inner.lists),
    decisions: wrap(inner.decisions),
    batches: wrap(inner.batches),
    audit: wrap(inner.audit),
    outbox: wrap(inner.outbox),
    // A host's store: it does not report its own faults.
    flags: { durable: true, sharedAcrossProcesses: false },
    ping: gate,
  };
  const release = () => {
    state.stall = false;
    for (const resume of state.stalled.splice(0)) resume();
  };
  return { repositories, state, release };
}

function setup(options: Partial<Parameters<typeof createHttpHandler>[0]> = {}) {
  const store = switchableStore();
  const engine = createEngine({ repositories: store.repositories, clock: fixedClock(), ids: sequentialIds() });
  const log: RequestLogEntry[] = [];
  const handler = createHttpHandler({ engine, apiKeys: [KEY], onRequest: (entry) => void log.push(entry), ...options });
  return { store, engine, handler, log };
}

describe('createHttpHandler on a failing store', () => {
  it('a bug of the server is a 500 whose log line (error level) carries its cause, its stack frames and the id the response names, never a payload value', async () => {
    const iban = 'DE89370400440532013000';
    const inner = createMemoryRepositories();
    // A store that reports its own faults, and has a bug: the error it throws quotes the data.
    const repositories: Repositories = {
      ...inner,
      transactions: {
        ...inner.transactions,
        saveOutcome: async (outcome) => {
          throw new TypeError(`cannot store ${JSON.stringify(outcome.transaction.transaction)}`);
        },
      },
    };
    const engine = createEngine({ repositories, clock: fixedClock(), ids: sequentialIds() });
    const log: RequestLogEntry[] = [];
    const handler = createHttpHandler({ engine, apiKeys: [KEY], onRequest: (entry) => void log.push(entry) });
    const response = await call(handler, 'POST', '/transactions', {
      body: tx({ transactionId: 'bug-1', timestamp: T0, originPaymentDetails: { method: 'IBAN', IBAN: iban } }),
    });
    expect(response.status).toBe(500);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    const line = formatRequestLine(log.at(-1) as RequestLogEntry, ',"time":"2026-11-29T00:00:00.000Z"');
    expect(JSON.parse(line)).toMatchObject({ level: 50, status: 500, requestId, code: 'INTERNAL', fault: { code: 'INTERNAL', cause: 'TypeError' } });
    expect((JSON.parse(line) as { fault: { at: string } }).fault.at).toMatch(/^at /);
    expect(line).not.toContain(iban);
    expect(await response.text()).not.toContain(iban);
    // Each request has its own id; every error response names it, a client's error too.
    const again = await call(handler, 'POST', '/transactions', { body: tx({ transactionId: 'bug-2', timestamp: T0 }) });
    expect(again.headers.get('x-request-id')).not.toBe(requestId);
    const refused = await call(handler, 'GET', '/rules', { key: 'not-a-key-0123456789' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe(log.at(-1)?.requestId);
  });

  it('answers a store that throws with 503 STORE_UNAVAILABLE and Retry-After, logs its cause, and serves again once it is back', async () => {
    const { store, engine, handler, log } = setup();
    await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 0, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } });
    store.state.down = true;
    const refused = await call(handler, 'POST', '/transactions', { body: tx({ transactionId: 'f-1', timestamp: T0 }) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await json(refused)).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
    expect(log.at(-1)).toMatchObject({ status: 503, code: 'STORE_UNAVAILABLE', fault: { code: 'STORE_UNAVAILABLE', causeCode: 'ECONNREFUSED' } });
    store.state.down = false;
    const retried = await call(handler, 'POST', '/transactions', { body: tx({ transactionId: 'f-1', timestamp: T0 }) });
    expect(retried.status).toBe(201);
    // The refused request left nothing behind: one run of the instance, for the retry.
    expect((await engine.listRuleInstances())[0]).toMatchObject({ runCount: 1 });
  });

  it('a change refused because the store is down appends no audit entry; the same change once it is back appends one', async () => {
    const { store, engine, handler } = setup();
    const body = { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a'] };
    store.state.down = true;
    expect((await call(handler, 'PUT', '/lists/l-1', { body })).status).toBe(503);
    expect((await call(handler, 'POST', '/rule-instances', { body: { ruleId: 'R-1' } })).status).toBe(503);
    store.state.down = false;
    expect((await engine.listAuditLog()).count).toBe(0);
    expect((await call(handler, 'PUT', '/lists/l-1', { body })).status).toBe(200);
    expect((await engine.listAuditLog()).items.map((e) => [e.entityType, e.entityId, e.action])).toEqual([['LIST', 'l-1', 'CREATE']]);
  });

  it('/readyz answers 200 while the store answers, 503 naming the failure when it throws or does not answer in time', async () => {
    const { store, handler } = setup({ readinessTimeoutMs: 50 });
    const ready = await call(handler, 'GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ status: 'ready', checks: [{ check: 'store', status: 'ok' }] });
    store.state.down = true;
    const down = await call(handler, 'GET', '/readyz', { key: null });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await json(down)).toEqual({ status: 'not-ready', checks: [{ check: 'store', status: 'failing', code: 'STORE_UNAVAILABLE' }] });
    store.state.down = false;
    store.state.stall = true;
    const stalled = await call(handler, 'GET', '/readyz', { key: null });
    expect(await json(stalled)).toEqual({ status: 'not-ready', checks: [{ check: 'store', status: 'failing', code: 'STORE_TIMEOUT' }] });
    store.release();
    // Liveness says nothing of the store.
    expect((await call(handler, 'GET', '/healthz', { key: null })).status).toBe(200);
  });

  it('names the tenant of each store in /readyz when there are several', async () => {
    const a = setup();
    const b = setup();
    const handler = createHttpHandler({
      tenants: [
        { id: 'a', apiKeys: [KEY], engine: a.engine },
        { id: 'b', apiKeys: ['store-faults-key-b-0123456789'], engine: b.engine },
      ],
    });
    b.store.state.down = true;
    expect(await json(await call(handler, 'GET', '/readyz', { key: null }))).toEqual({
      status: 'not-ready',
      checks: [
        { check: 'store', tenant: 'a', status: 'ok' },
        { check: 'store', tenant: 'b', status: 'failing', code: 'STORE_UNAVAILABLE' },
      ],
    });
  });

  it('with the store stalled: runs maxActive requests, queues maxQueued, refuses the rest at once with OVERLOADED; open routes still answer', async () => {
    const { store, handler } = setup({ concurrency: { maxActive: 2, maxQueued: 2, maxWaitMs: 60_000 } });
    store.state.stall = true;
    const pending = Array.from({ length: 4 }, (_, i) =>
      call(handler, 'POST', '/transactions', { body: tx({ transactionId: `q-${i}`, originUserId: `u-${i}`, timestamp: T0 }) }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await call(handler, 'POST', '/transactions', { body: tx({ transactionId: 'q-x', originUserId: 'u-x', timestamp: T0 }) });
    expect(refused.status).toBe(503);
    expect(await json(refused)).toMatchObject({ code: 'OVERLOADED' });
    expect((await call(handler, 'GET', '/healthz', { key: null })).status).toBe(200);
    store.release();
    expect((await Promise.all(pending)).map((r) => r.status)).toEqual([201, 201, 201, 201]);
  });

  it('does not run a queued request whose client has gone: nothing of it is written', async () => {
    const { store, engine, handler, log } = setup({ concurrency: { maxActive: 1, maxQueued: 10, maxWaitMs: 60_000 } });
    store.state.stall = true;
    const first = call(handler, 'POST', '/transactions', { body: tx({ transactionId: 'g-1', timestamp: T0 }) });
    const controller = new AbortController();
    const gone = handler(
      new Request('http://txmon.test/transactions', {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(tx({ transactionId: 'g-2', timestamp: T0 })),
        signal: controller.signal,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    store.release();
    expect((await first).status).toBe(201);
    expect((await gone).status).toBe(499);
    expect(log.find((entry) => entry.code === 'CLIENT_GONE')).toBeDefined();
    await expect(engine.getTransaction('g-2')).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
  });
});
