/**
 * `txmon prune` (src/cli/prune.ts): prunes the series of a durable store, per tenant, printing one
 * JSON line each; a dry run drops nothing; a memory store or a bad option is a usage error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prune } from '../../src/cli/prune.js';
import { DEFAULT_STORE_SETTINGS, openStores, parseStore } from '../../src/cli/stores.js';
import type { Repositories } from '../../src/index.js';
import { createEngine } from '../../src/index.js';
import { DAY } from '../helpers.js';

/** A PGlite store under a fresh directory with an R-30 instance (1 day) and ten daily transactions, the last one now. */
async function storeWithHistory(tenantId: string, single: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'txmon-prune-'));
  const spec = parseStore(`pglite:${dir}`);
  const opened = await openStores(spec, [tenantId], { single, maxStoredBytes: 1, settings: DEFAULT_STORE_SETTINGS });
  const engine = createEngine({ repositories: opened.repositories.get(tenantId) as Repositories });
  await engine.createRuleInstance({
    ruleId: 'R-30',
    parameters: { transactionsLimit: 5, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' },
  });
  for (let i = 0; i < 10; i++) {
    await engine.createTransaction({
      type: 'TRANSFER',
      transactionId: `t-${i}`,
      timestamp: Date.now() - (9 - i) * DAY,
      originUserId: 'u1',
      originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR' },
    });
  }
  await opened.close();
  return dir;
}

function collect() {
  const lines: Record<string, unknown>[] = [];
  return { lines, out: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

describe('txmon prune', () => {
  it('a dry run prints the horizons and drops nothing; a run drops what the instances no longer read', async () => {
    const dir = await storeWithHistory('default', true);
    const dry = collect();
    await prune(['--store', `pglite:${dir}`, '--dry-run'], {}, dry.out);
    expect(dry.lines).toEqual([expect.objectContaining({ tenant: 'default', dryRun: true, removed: 0 })]);
    const prunedBefore = dry.lines[0]?.prunedBefore as Record<string, string>;
    expect(Date.parse(prunedBefore['user-sending'] as string)).toBeLessThan(Date.now() - 9 * DAY);
    const run = collect();
    // No late arrivals: user-sending, read over a day, keeps two days (the window and its margin:
    // 8 of 10 go); user-all, held on a database but read by no instance, keeps nothing (10 go).
    await prune(['--store', `pglite:${dir}`, '--late-arrival-ms', '0'], {}, run.out);
    expect(run.lines[0]).toMatchObject({ tenant: 'default', dryRun: false, removed: 18 });
  }, 60_000);

  it('prunes every tenant of a tenants file, each in its own store', async () => {
    const dir = await storeWithHistory('acme', false);
    const file = join(dir, 'tenants.json');
    writeFileSync(
      file,
      JSON.stringify({
        tenants: [
          { id: 'acme', apiKeys: ['acme-key-0123456789'] },
          { id: 'globex', apiKeys: ['globex-key-0123456789'] },
        ],
      }),
    );
    const run = collect();
    await prune(['--store', `pglite:${dir}`, '--tenants', file, '--late-arrival-ms', '0'], {}, run.out);
    expect(run.lines.map((l) => [l.tenant, l.removed])).toEqual([
      ['acme', 18],
      ['globex', 0],
    ]);
  }, 60_000);

  const bad = [
    { name: 'a memory store', args: ['--store', 'memory'], message: /nothing to prune/ },
    { name: 'a bad late-arrival margin', args: ['--store', 'pglite:/tmp/x', '--late-arrival-ms', '-1'], message: /--late-arrival-ms/ },
    { name: 'an unknown store', args: ['--store', 'redis://x'], message: /--store/ },
  ];
  it.each(bad)('refuses $name', async ({ args, message }) => {
    await expect(prune(args, {}, collect().out)).rejects.toThrow(message);
  });
});
