/**
 * The built `txmon serve --config` and `txmon config check`: the documented example file starts a
 * server on PGlite files (its rule instance under its id, its webhook delivering, a host rule of a
 * rule module served); the rule instances it ensures are idempotent across restarts and across two
 * processes starting together on one PostgreSQL; a bad file exits 2 naming each problem's path.
 * Needs `npm run build` first (`npm test` builds).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/http/index.js';
import { T0, tx } from '../helpers.js';
import { POSTGRES_URL } from '../postgres/fixtures.js';
import { spawnCli, startServe, stopAll } from './serve-process.js';

const KEY = 'serve-config-key-0123456789';
const SECRET = 'serve-config-secret-0123456789';
const DIST_INDEX = pathToFileURL(join(import.meta.dirname, '../../dist/index.js')).href;

let receiver: Server | null = null;
afterEach(async () => {
  stopAll();
  await new Promise((resolve) => (receiver === null ? resolve(undefined) : receiver.close(resolve)));
  receiver = null;
});

const databases: string[] = [];
afterAll(async () => {
  if (databases.length === 0) return;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
});

/** A new database on the run's PostgreSQL server, dropped after the file's tests. */
async function newDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  const name = `txmon_config_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  databases.push(name);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A directory with the example's key and secret files, and `txmon.json` holding `config`. */
function configDir(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'txmon-serve-config-'));
  writeFileSync(join(dir, 'api-keys.txt'), `${KEY}\n`);
  writeFileSync(join(dir, 'webhook-secret.txt'), `${SECRET}\n`);
  writeConfig(dir, config);
  return dir;
}

function writeConfig(dir: string, config: unknown): void {
  writeFileSync(join(dir, 'txmon.json'), JSON.stringify(config, null, 2));
}

/** The example of the README and docs/configuration.md, with `webhook` as its receiver. */
function example(webhook = 'https://hooks.example.com/txmon', threshold = 10000) {
  return {
    store: 'pglite:./txmon-data',
    apiKeys: { file: './api-keys.txt' },
    ruleInstances: [{ id: 'big-transfers', ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: threshold } } }],
    webhooks: [{ url: webhook, secretFile: './webhook-secret.txt' }],
  };
}

async function get(url: string, path: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { headers: { 'x-api-key': KEY } });
  expect(response.status).toBe(200);
  return response.json();
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The configured instance's versions and the audit trail's entries for it. */
async function historyOf(url: string, id: string) {
  const versions = (await get(url, `/rule-instances/${id}/versions`)) as { version: number; parameters: unknown }[];
  const audit = (await get(url, `/audit-log?entityId=${id}`)) as { items: { action: string; actor: string }[] };
  return { versions: versions.map((v) => v.version), audit: audit.items.map((e) => `${e.action} by ${e.actor}`) };
}

describe('txmon serve --config', () => {
  it('starts from the documented example on PGlite: the rule instance big-transfers, the webhook delivering signed, a host rule from a rule module', async () => {
    const deliveries: { type: string; verified: boolean }[] = [];
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
      });
      req.on('end', () => {
        deliveries.push({ type: (JSON.parse(raw) as { type: string }).type, verified: verifyWebhook(SECRET, req.headers, raw) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/txmon`;
    const dir = configDir({ ...example(hook), ruleModules: ['./rules.mjs'] });
    writeFileSync(
      join(dir, 'rules.mjs'),
      `import { defineRule } from '${DIST_INDEX}';
import { Type } from '${pathToFileURL(createRequire(import.meta.url).resolve('@sinclair/typebox')).href}';
export const roundAmounts = defineRule({
  id: 'ACME-ROUND', name: 'Round amounts', description: 'A round amount.', descriptionTemplate: 'A round amount.',
  parametersSchema: Type.Object({ unit: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  defaultParameters: { unit: 1000 }, defaultAction: 'FLAG', defaultNature: 'AML',
  checksFor: ['Amount'], types: ['Amount'], typologies: ['Structuring'], readsEntryValues: false,
  check: ({ transaction, parameters }) => ((transaction.originAmountDetails?.transactionAmount ?? 1) % parameters.unit === 0 ? [{ direction: 'ORIGIN', vars: {} }] : []),
});
`,
    );
    // Started from another directory: the file's paths are relative to the file.
    const server = await startServe(['--config', join(dir, 'txmon.json')], { cwd: tmpdir() });
    const instances = (await get(server.url(), '/rule-instances')) as { id: string; ruleId: string; action: string; parameters: unknown }[];
    expect(instances).toMatchObject([{ id: 'big-transfers', ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: 10000 } } }]);
    expect(((await get(server.url(), '/rules')) as { id: string }[]).map((r) => r.id)).toContain('ACME-ROUND');
    expect((await post(server.url(), '/rule-instances', { ruleId: 'ACME-ROUND' })).status).toBe(200);
    const payment = await post(
      server.url(),
      '/transactions',
      tx({ timestamp: T0, originAmountDetails: { transactionAmount: 20000, transactionCurrency: 'EUR' } }),
    );
    expect(payment.status).toBe(201);
    expect(payment.body.status).toBe('SUSPEND');
    expect((payment.body.hitRules as { ruleId: string }[]).map((h) => h.ruleId).sort()).toEqual(['ACME-ROUND', 'R-2']);
    // The configured webhook delivers the outbox: the instance created by config, then the decision.
    const deadline = Date.now() + 30_000;
    while (!deliveries.some((d) => d.type === 'TRANSACTION_DECISION') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deliveries.map((d) => d.type).slice(0, 3)).toEqual(['RULE_INSTANCE_CHANGED', 'RULE_INSTANCE_CHANGED', 'TRANSACTION_DECISION']);
    expect(deliveries.every((d) => d.verified)).toBe(true);
    expect(await server.stop()).toBe(0);
  });

  it('ensures the rule instances idempotently across restarts: unchanged, no new version; a changed parameter, one new version', async () => {
    const dir = configDir(example());
    const first = await startServe(['--config', join(dir, 'txmon.json')]);
    expect(await historyOf(first.url(), 'big-transfers')).toEqual({ versions: [1], audit: ['CREATE by config'] });
    expect(await first.stop()).toBe(0);

    const second = await startServe(['--config', join(dir, 'txmon.json')]);
    expect(second.output()).toMatch(/"change":"UNCHANGED"/);
    expect(await get(second.url(), '/rule-instances')).toHaveLength(1);
    expect(await historyOf(second.url(), 'big-transfers')).toEqual({ versions: [1], audit: ['CREATE by config'] });
    expect(await second.stop()).toBe(0);

    writeConfig(dir, example(undefined, 5000));
    const third = await startServe(['--config', join(dir, 'txmon.json')]);
    expect(await get(third.url(), '/rule-instances')).toMatchObject([
      { id: 'big-transfers', version: 2, parameters: { transactionAmountThreshold: { EUR: 5000 } } },
    ]);
    expect(await historyOf(third.url(), 'big-transfers')).toEqual({ versions: [2, 1], audit: ['CREATE by config', 'UPDATE by config'] });
    expect(await third.stop()).toBe(0);
  });

  it('two processes starting together on one PostgreSQL end with one instance, created once', async () => {
    const store = await newDatabase();
    const dir = configDir({ ...example(), store, webhooks: undefined });
    const both = [
      spawnCli(['serve', '--port', '0', '--config', join(dir, 'txmon.json')]),
      spawnCli(['serve', '--port', '0', '--config', join(dir, 'txmon.json')]),
    ];
    await Promise.all(both.map((p) => p.waitFor(/"msg":"txmon serving"/)));
    for (const p of both) {
      expect(await get(p.url(), '/rule-instances')).toMatchObject([{ id: 'big-transfers', version: 1 }]);
      expect(await historyOf(p.url(), 'big-transfers')).toEqual({ versions: [1], audit: ['CREATE by config'] });
    }
    // One created it, the other found it as configured.
    expect(both.map((p) => /"change":"(CREATED|UNCHANGED)"/.exec(p.output())?.[1]).sort()).toEqual(['CREATED', 'UNCHANGED']);
    for (const p of both) expect(await p.stop()).toBe(0);
  });

  it('a file with mistakes exits 2 before opening anything, naming each path, without a stack or the usage text', async () => {
    const dir = configDir({ ...example(), apiKeys: { file: './missing.txt' }, ruleInstances: [{ id: 'x', ruleId: 'R-99999' }] });
    const server = spawnCli(['serve', '--port', '0', '--config', join(dir, 'txmon.json')]);
    expect(await server.exited).toBe(2);
    expect(server.output()).toMatch(/\/apiKeys\/file: cannot read \.\/missing\.txt/);
    expect(server.output()).toMatch(/\/ruleInstances\/0\/ruleId: /);
    expect(server.output()).not.toMatch(/\n\s+at |Usage:/);
  });
});

describe('txmon config check', () => {
  it('exits 0 for a valid file, with a summary; opens no store', async () => {
    const dir = configDir(example());
    const check = spawnCli(['config', 'check', join(dir, 'txmon.json')]);
    expect(await check.exited).toBe(0);
    expect(check.output()).toMatch(/valid \(1 tenant, 1 rule instance\)/);
    expect(existsSync(join(dir, 'txmon-data'))).toBe(false);
  });

  it('exits 2 listing every problem by its path', async () => {
    const dir = configDir({
      ...example(),
      ruleInstances: [{ id: 'big-transfers', ruleId: 'R-2', parameters: { transactionAmountThreshold: 'lots' } }],
      webhooks: [{ url: 'https://hooks.example.com/txmon', secretFile: './nope.txt' }],
    });
    const check = spawnCli(['config', 'check', join(dir, 'txmon.json')]);
    expect(await check.exited).toBe(2);
    expect(check.output()).toMatch(/\/ruleInstances\/0\/parameters\/transactionAmountThreshold: .*\n {2}\/webhooks\/0\/secretFile: cannot read/);
  });

  it('exits 2 with the usage for a missing file argument', async () => {
    const check = spawnCli(['config', 'check']);
    expect(await check.exited).toBe(2);
    expect(check.output()).toMatch(/Usage: txmon config check/);
  });
});
