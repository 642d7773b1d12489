/**
 * `txmon import` (src/cli/import.ts): streams an NDJSON file (gzipped or not) of transactions,
 * events and users into a durable store through the batch path, lists rejected lines by number,
 * and completes an interrupted import when run again; bad options are usage errors.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importCommand } from '../../src/cli/import.js';
import { DEFAULT_STORE_SETTINGS, openStores, parseStore } from '../../src/cli/stores.js';
import { UsageError } from '../../src/cli/usage.js';
import { createEngine, type Repositories } from '../../src/index.js';
import { T0, tx } from '../helpers.js';

const R69 = { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { EUR: 150 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } };

/** Opens the PGlite store in `dir`, runs `fn` on an engine over it, closes it. */
async function withStore<T>(dir: string, fn: (engine: ReturnType<typeof createEngine>) => Promise<T>): Promise<T> {
  const opened = await openStores(parseStore(`pglite:${dir}`), ['default'], { single: true, maxStoredBytes: 1, settings: DEFAULT_STORE_SETTINGS });
  try {
    return await fn(createEngine({ repositories: opened.repositories.get('default') as Repositories }));
  } finally {
    await opened.close();
  }
}

function collect() {
  const chunks: string[] = [];
  return {
    text: () => chunks.join(''),
    out: {
      write: (chunk: string) => {
        chunks.push(chunk);
      },
    },
  };
}

const lines = [
  JSON.stringify({ userId: 'alice', createdTimestamp: T0 }),
  JSON.stringify(tx({ transactionId: 'imp-1', timestamp: T0 + 1 })),
  'not json',
  JSON.stringify(tx({ transactionId: 'imp-2', timestamp: T0 + 2 })),
  '',
  JSON.stringify({ transactionId: 'imp-1', eventId: 'imp-e1', timestamp: T0 + 3, transactionState: 'SUCCESSFUL' }),
  JSON.stringify({ transactionId: 'nowhere', eventId: 'imp-e2', timestamp: T0 + 4, transactionState: 'SENT' }),
  JSON.stringify({ ...tx({ transactionId: 'imp-3' }), timestamp: 'soon' }),
];

describe('txmon import', () => {
  it('imports users, transactions and events in file order, and lists the rejected lines with their numbers and codes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-import-'));
    const file = join(dir, 'history.ndjson.gz');
    writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
    await withStore(dir, (engine) => engine.createRuleInstance(R69));
    const run = collect();
    const summary = await importCommand(['--store', `pglite:${dir}`, file], run.out);
    expect(summary).toMatchObject({ transactions: 2, events: 1, users: 1, rejected: 3 });
    expect(summary.rejectedLines).toEqual([
      { line: 3, reasonCode: 'MALFORMED_JSON' },
      { line: 7, reasonCode: 'TRANSACTION_NOT_FOUND', id: 'imp-e2' },
      { line: 8, reasonCode: 'VALIDATION_FAILED', id: 'imp-3' },
    ]);
    expect(run.text()).toContain('line 7: TRANSACTION_NOT_FOUND (imp-e2)');
    await withStore(dir, async (engine) => {
      expect((await engine.getTransaction('imp-1')).transactionState).toBe('SUCCESSFUL');
      // Imported as history (the default mode): no rule ran, nothing counted or alerted.
      expect((await engine.getTransaction('imp-2')).executedRules).toEqual([]);
      expect((await engine.listRuleInstances())[0]?.runCount).toBe(0);
      expect(await engine.listAlerts()).toEqual([]);
      expect((await engine.getUser('alice')).userId).toBe('alice');
    });
  }, 60_000);

  it('--mode monitor runs the rules on every record; the same file again replays every stored record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-import-'));
    const file = join(dir, 'history.ndjson');
    writeFileSync(file, `${lines.slice(1, 2).join('\n')}\n${lines[3]}\n`);
    await withStore(dir, (engine) => engine.createRuleInstance(R69));
    expect(await importCommand(['--store', `pglite:${dir}`, '--mode', 'monitor', file], collect().out)).toMatchObject({ transactions: 2, rejected: 0 });
    expect(await importCommand(['--store', `pglite:${dir}`, '--mode', 'monitor', file], collect().out)).toMatchObject({ transactions: 2, rejected: 0 });
    await withStore(dir, async (engine) => {
      expect((await engine.listRuleInstances())[0]?.runCount).toBe(2);
      expect((await engine.getTransaction('imp-2')).hitRules.map((h) => h.ruleId)).toEqual(['R-69']);
    });
  }, 60_000);

  it.each([
    { name: 'no store', argv: ['f.ndjson'] },
    { name: 'a memory store', argv: ['--store', 'memory', 'f.ndjson'] },
    { name: 'an unknown mode', argv: ['--store', 'pglite:/tmp/x', '--mode', 'fast', 'f.ndjson'] },
    { name: 'no file', argv: ['--store', 'pglite:/tmp/x'] },
    { name: 'a file that is not there', argv: ['--store', 'pglite:/tmp/x', '/nonexistent/f.ndjson'] },
  ])('refuses $name with a usage error', async ({ argv }) => {
    await expect(importCommand(argv, collect().out)).rejects.toBeInstanceOf(UsageError);
  });
});
