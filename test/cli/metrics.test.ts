/**
 * `/metrics` of `txmon serve` (in process, memory store): the series count what was served and
 * stored, a reader sees only what its key allows, `--metrics-port` moves the route, and
 * `--log-level` / `TXMON_LOG_LEVEL` drop the lines below a level.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServeMetrics, linesOfTenant } from '../../src/cli/metrics.js';
import { serve, type ServerHandle } from '../../src/cli/serve.js';
import type { Repositories, TransactionOutcome } from '../../src/engine/repositories.js';
import { createEngine, createMemoryRepositories, TxmonError } from '../../src/index.js';
import { T0, tx } from '../helpers.js';

const KEY = 'metrics-test-key-0123456789';
const OTHER_KEY = 'metrics-other-key-0123456789';
const METRICS_KEY = 'metrics-reader-key-0123456789';

const servers: ServerHandle[] = [];
const receivers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const r of receivers.splice(0)) {
    r.closeAllConnections();
    await new Promise((done) => r.close(done));
  }
});

const logLines: string[] = [];
const logTo = { write: (line: string) => void logLines.push(line) };

async function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const handle = await serve(['--port', '0', '--store', 'memory', ...args], env, logTo);
  servers.push(handle);
  const port = (server: ServerHandle['server'] | null) => (server?.address() as AddressInfo | null)?.port;
  return { url: `http://127.0.0.1:${port(handle.server)}`, metricsUrl: `http://127.0.0.1:${port(handle.metricsServer)}`, handle };
}

/** One sample of the text format: name, labels, value. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(match, line).not.toBeNull();
    const [, name, labelText = '', value] = match as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    for (const [, label, raw] of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[label as string] = raw as string;
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function sumOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

async function readMetrics(url: string, headers: Record<string, string>): Promise<Sample[]> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await response.text());
}

function post(url: string, path: string, body: unknown, key = KEY) {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('txmon serve: /metrics', () => {
  it('counts requests by route pattern and status, decisions by status, rule runs and hits and alerts opened', async () => {
    const { url } = await start(['--api-key', KEY]);
    const instance = await post(url, '/rule-instances', {
      ruleId: 'R-2',
      action: 'FLAG',
      parameters: { transactionAmountThreshold: { EUR: 50 } },
      alertCreationOnHit: true,
    });
    expect(instance.status).toBe(200);
    const { id } = (await instance.json()) as { id: string };
    const hit = tx({ timestamp: T0, originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' } });
    expect((await post(url, '/transactions', hit)).status).toBe(201);
    // The same payload again is a replay: answered, not decided again.
    expect((await post(url, '/transactions', hit)).status).toBe(201);
    expect(
      (await post(url, '/transactions', tx({ timestamp: T0 + 1, originAmountDetails: { transactionAmount: 200, transactionCurrency: 'EUR' } }))).status,
    ).toBe(201);
    expect(
      (await post(url, '/transactions', tx({ timestamp: T0 + 2, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR' } }))).status,
    ).toBe(201);
    expect((await post(url, '/events/transaction', { transactionId: hit.transactionId, timestamp: T0 + 3, transactionState: 'SUCCESSFUL' })).status).toBe(201);
    expect((await fetch(`${url}/transactions/t-unknown`, { headers: { 'x-api-key': KEY } })).status).toBe(404);
    const alerts = (await (await fetch(`${url}/alerts`, { headers: { 'x-api-key': KEY } })).json()) as { data?: unknown[]; items?: unknown[] };
    const alertCount = (alerts.data ?? alerts.items ?? []).length;

    const samples = await readMetrics(url, { 'x-api-key': KEY });
    const requests = 'txmon_http_request_duration_seconds_count';
    expect(sumOf(samples, requests, { tenant: 'default', method: 'POST', route: '/transactions', status: '201' })).toBe(4);
    // By pattern, never by the raw path (whose ids are personal data and unbounded).
    expect(sumOf(samples, requests, { method: 'GET', route: '/transactions/{transactionId}', status: '404' })).toBe(1);
    expect(samples.some((s) => s.labels.route?.includes('t-unknown'))).toBe(false);
    expect(sumOf(samples, 'txmon_decisions_total', { tenant: 'default', kind: 'transaction', status: 'FLAG' })).toBe(2);
    expect(sumOf(samples, 'txmon_decisions_total', { tenant: 'default', kind: 'transaction', status: 'ALLOW' })).toBe(1);
    expect(sumOf(samples, 'txmon_decisions_total', { tenant: 'default', kind: 'event' })).toBe(1);
    expect(sumOf(samples, 'txmon_rule_runs_total', { tenant: 'default', rule_instance: id })).toBe(4);
    expect(sumOf(samples, 'txmon_rule_hits_total', { tenant: 'default', rule_instance: id })).toBe(3);
    // Three hits by alice: one alert opened per hit user, later hits joined it.
    expect(alertCount).toBeGreaterThan(0);
    expect(sumOf(samples, 'txmon_alerts_opened_total', { tenant: 'default' })).toBe(alertCount);
    // A memory store's calls are the engine's own work: not timed as a store's.
    expect(samples.filter((s) => s.name.startsWith('txmon_store_operation_duration_seconds'))).toEqual([]);
    // The process's own, event-loop lag among them.
    expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('is read with an API key or a metrics key (x-api-key or a bearer token), which reads nothing else; anything else is 401', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-metrics-'));
    writeFileSync(join(dir, 'metrics-keys'), `# who scrapes\n${METRICS_KEY}\n`);
    const { url } = await start(['--api-key', KEY, '--metrics-key-file', join(dir, 'metrics-keys')]);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { 'x-api-key': 'not-a-key-0123456789' } })).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer not-a-key-0123456789' } })).status).toBe(401);
    await readMetrics(url, { 'x-api-key': KEY });
    await readMetrics(url, { 'x-api-key': METRICS_KEY });
    await readMetrics(url, { authorization: `Bearer ${METRICS_KEY}` });
    await readMetrics(url, { authorization: `Bearer ${KEY}` });
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': METRICS_KEY } })).status).toBe(401);
  });

  it('takes the metrics keys from TXMON_METRICS_KEYS too', async () => {
    const { url } = await start(['--api-key', KEY], { TXMON_METRICS_KEYS: ` ${METRICS_KEY} ` });
    await readMetrics(url, { authorization: `Bearer ${METRICS_KEY}` });
  });

  it("a tenant's API key reads its own series and the process's, never another tenant's; a metrics key reads every tenant's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-metrics-'));
    const tenants = join(dir, 'tenants.json');
    writeFileSync(
      tenants,
      JSON.stringify({
        tenants: [
          { id: 'acme', apiKeys: [KEY] },
          { id: 'globex', apiKeys: [OTHER_KEY] },
        ],
      }),
    );
    const { url } = await start(['--tenants', tenants], { TXMON_METRICS_KEYS: METRICS_KEY });
    expect((await post(url, '/transactions', tx({ timestamp: T0 }), KEY)).status).toBe(201);
    expect((await post(url, '/transactions', tx({ timestamp: T0 }), OTHER_KEY)).status).toBe(201);
    const acme = await readMetrics(url, { 'x-api-key': KEY });
    const tenantsSeen = new Set(acme.map((s) => s.labels.tenant).filter((t) => t !== undefined));
    expect([...tenantsSeen]).toEqual(['acme']);
    expect(sumOf(acme, 'txmon_decisions_total', { kind: 'transaction' })).toBe(1);
    expect(acme.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
    const all = await readMetrics(url, { authorization: `Bearer ${METRICS_KEY}` });
    expect(sumOf(all, 'txmon_decisions_total', { tenant: 'globex', kind: 'transaction' })).toBe(1);
    expect(sumOf(all, 'txmon_decisions_total', { tenant: 'acme', kind: 'transaction' })).toBe(1);
  });

  it('counts failed webhook deliveries and shows the outbox backlog while the receiver refuses', async () => {
    const receiver = createServer((_request, response) => {
      response.statusCode = 500;
      response.end();
    });
    receivers.push(receiver);
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const dir = mkdtempSync(join(tmpdir(), 'txmon-metrics-'));
    writeFileSync(join(dir, 'webhook-secret'), 'webhook-secret-0123456789abcdef\n');
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { url } = await start(['--api-key', KEY, '--webhook-url', hook, '--webhook-secret-file', join(dir, 'webhook-secret')]);
    // A rule instance change is a message for the host.
    expect((await post(url, '/rule-instances', { ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: 50 } } })).status).toBe(
      200,
    );
    let samples: Sample[] = [];
    for (let tries = 0; sumOf(samples, 'txmon_webhook_delivery_failures_total', { tenant: 'default' }) < 1; tries++) {
      expect(tries).toBeLessThan(200);
      await new Promise((done) => setTimeout(done, 50));
      samples = await readMetrics(url, { 'x-api-key': KEY });
    }
    expect(sumOf(samples, 'txmon_outbox_backlog', { tenant: 'default' })).toBeGreaterThanOrEqual(1);
  });

  it('with --metrics-port, serves /metrics on that port only', async () => {
    const { url, metricsUrl } = await start(['--api-key', KEY, '--metrics-port', '0']);
    expect(metricsUrl).not.toBe(url);
    await readMetrics(metricsUrl, { 'x-api-key': KEY });
    expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(401);
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(404);
    expect((await fetch(`${url}/metrics`, { headers: { 'x-api-key': KEY } })).status).toBe(404);
  });
});

describe('createServeMetrics', () => {
  it("counts each tenant's rule runs that could not be evaluated, by reason, from its engine's counters", async () => {
    const metrics = createServeMetrics();
    const engine = createEngine();
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 500 } }, action: 'FLAG' });
    metrics.watchEvaluations('acme', () => engine.evaluationStats());
    // No rate for this currency: the threshold rule cannot compare the amount.
    await engine.createTransaction({
      type: 'TRANSFER',
      transactionId: 'n-1',
      timestamp: Date.now(),
      originUserId: 'u',
      originAmountDetails: { transactionAmount: 1, transactionCurrency: 'XAU' },
    });
    const { body } = await metrics.render(null);
    expect(body).toMatch(/txmon_rules_not_evaluated_total\{tenant="acme",reason="NO_RATE"\} 1\n/);
    expect(body).toMatch(/txmon_rules_not_evaluated_total\{tenant="acme",reason="LOGIC_ERROR"\} 0\n/);
  });

  it("times a database store's calls by operation and counts what its committed writes stored; a failed write counts nothing", async () => {
    const metrics = createServeMetrics();
    const memory = createMemoryRepositories();
    let failNext = false;
    // A durable store (as PGlite and PostgreSQL are), one of whose writes fails once.
    const repositories = metrics.instrument('acme', {
      ...memory,
      flags: { ...memory.flags, durable: true },
      transactions: {
        ...memory.transactions,
        saveOutcome: async (outcome) => {
          if (failNext) {
            failNext = false;
            throw new TxmonError('STORE_UNAVAILABLE', 'down');
          }
          return memory.transactions.saveOutcome(outcome);
        },
      },
    });
    const engine = createEngine({ repositories });
    await engine.createRuleInstance({ ruleId: 'R-2', action: 'BLOCK', parameters: { transactionAmountThreshold: { EUR: 50 } } });
    await engine.createTransaction(tx({ timestamp: T0 }));
    failNext = true;
    await expect(engine.createTransaction(tx({ timestamp: T0 }))).rejects.toThrow();
    await engine.createTransactionBatch({ batchId: 'b-1', data: [tx({ timestamp: T0 }), tx({ timestamp: T0 })] });
    const samples = parseMetrics((await metrics.render(null)).body);
    const count = (operation: string) => sumOf(samples, 'txmon_store_operation_duration_seconds_count', { tenant: 'acme', operation });
    // One transaction alone, two in a batch (written one by one or as one chunk); the failed write is no call that took its time.
    expect(count('transactions.saveOutcome') + count('transactions.saveOutcomes')).toBeGreaterThanOrEqual(2);
    expect(count('transactions.getTransaction')).toBeGreaterThan(0);
    expect(sumOf(samples, 'txmon_store_operation_failures_total', { tenant: 'acme', operation: 'transactions.saveOutcome', code: 'STORE_UNAVAILABLE' })).toBe(
      1,
    );
    expect(sumOf(samples, 'txmon_decisions_total', { tenant: 'acme', kind: 'transaction', status: 'BLOCK' })).toBe(3);
    // The buckets are cumulative and end with +Inf = _count.
    const buckets = samples.filter((s) => s.name === 'txmon_store_operation_duration_seconds_bucket' && s.labels.operation === 'transactions.saveOutcome');
    expect(buckets.map((s) => s.value)).toEqual([...buckets.map((s) => s.value)].sort((a, b) => a - b));
    expect(buckets.at(-1)).toMatchObject({ labels: { le: '+Inf' }, value: count('transactions.saveOutcome') });
  });
});

describe('createServeMetrics: units of work', () => {
  it('counts the writes of a unit of work once it commits, and nothing of a unit that rolls back', async () => {
    const metrics = createServeMetrics();
    const memory = createMemoryRepositories();
    const stored: unknown[] = [];
    // A store shared across processes: the engine writes inside units; this one commits what a unit wrote unless the unit throws.
    const unit = {
      ...memory,
      transactions: {
        ...memory.transactions,
        saveOutcome: async (outcome: unknown) => {
          stored.push(outcome);
          return [];
        },
      },
    } as unknown as Repositories;
    const repositories = metrics.instrument('acme', {
      ...memory,
      flags: { ...memory.flags, durable: true },
      runExclusive: async <T>(_keys: readonly string[], work: (inner: Repositories) => Promise<T>) => work(unit),
    });
    const outcome = {
      event: null,
      transaction: { createResult: { status: 'SUSPEND', executedRules: [], hitRules: [] } },
      counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
      alertHits: [],
    } as unknown as TransactionOutcome;
    const run = repositories.runExclusive as NonNullable<Repositories['runExclusive']>;
    await expect(
      run(['k'], async (inner) => {
        await inner.transactions.saveOutcome(outcome);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const decisions = async () => sumOf(parseMetrics((await metrics.render(null)).body), 'txmon_decisions_total', { tenant: 'acme', status: 'SUSPEND' });
    expect(stored).toHaveLength(1);
    expect(await decisions()).toBe(0);
    await run(['k'], async (inner) => inner.transactions.saveOutcome(outcome));
    expect(await decisions()).toBe(1);
    const samples = parseMetrics((await metrics.render(null)).body);
    expect(sumOf(samples, 'txmon_rule_hits_total', { tenant: 'acme', rule_instance: 'ri-1' })).toBe(1);
    expect(sumOf(samples, 'txmon_store_operation_duration_seconds_count', { tenant: 'acme', operation: 'runExclusive' })).toBe(1);
    expect(sumOf(samples, 'txmon_store_operation_failures_total', { tenant: 'acme', operation: 'runExclusive' })).toBe(1);
  });
});

describe('linesOfTenant', () => {
  const text = [
    '# HELP m help',
    '# TYPE m counter',
    'm{tenant="a",x="1"} 1',
    'm{tenant="ab"} 2',
    'm{tenant="b",x="tenant=\\"a\\""} 3',
    'm{tenant=""} 4',
    'm_bucket{le="0.5",tenant="b"} 7',
    'm_bucket{le="0.5",tenant="a"} 8',
    'process_x 5',
    'n{x="1"} 6',
  ].join('\n');
  it('keeps comments, unlabelled and untenanted samples, and the samples of that tenant only, wherever the label stands (not of a tenant whose id it starts, nor a label value quoting it)', () => {
    expect(linesOfTenant(text, 'a').split('\n')).toEqual([
      '# HELP m help',
      '# TYPE m counter',
      'm{tenant="a",x="1"} 1',
      'm_bucket{le="0.5",tenant="a"} 8',
      'process_x 5',
      'n{x="1"} 6',
    ]);
  });
});

describe('txmon serve: --log-level and TXMON_LOG_LEVEL', () => {
  const levels = () => logLines.map((line) => (JSON.parse(line) as { level: number; msg: string }).level);

  it('at warn, drops request lines of answered requests and the info lines', async () => {
    logLines.length = 0;
    const { url } = await start(['--api-key', KEY, '--log-level', 'warn']);
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect(levels().filter((level) => level < 40)).toEqual([]);
  });

  it('takes TXMON_LOG_LEVEL when the flag is absent, the flag over it', async () => {
    logLines.length = 0;
    const { url } = await start(['--api-key', KEY], { TXMON_LOG_LEVEL: 'error' });
    await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } });
    expect(levels()).toEqual([]);
    logLines.length = 0;
    const second = await start(['--api-key', KEY, '--log-level', 'info'], { TXMON_LOG_LEVEL: 'error' });
    await fetch(`${second.url}/rules`, { headers: { 'x-api-key': KEY } });
    expect(logLines.some((line) => line.includes('"msg":"request"'))).toBe(true);
  });

  it('refuses an unknown level, naming where it came from', async () => {
    await expect(start(['--api-key', KEY, '--log-level', 'verbose'])).rejects.toThrow(/--log-level must be one of debug, info, warn, error/);
    await expect(start(['--api-key', KEY], { TXMON_LOG_LEVEL: 'loud' })).rejects.toThrow(/TXMON_LOG_LEVEL must be one of/);
  });
});
