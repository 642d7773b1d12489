/**
 * `txmon verify-log` (src/cli/verify-log.ts): verifies the decision log of a durable store per
 * tenant, one JSON line each; an intact log exits 0, a tampered one 3 (the built command), and an
 * anchor from an earlier run catches a log rewritten since; a memory store or a bad option is a
 * usage error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STORE_SETTINGS, openStores, parseStore } from '../../src/cli/stores.js';
import { verifyLog } from '../../src/cli/verify-log.js';
import { createEngine, type Repositories } from '../../src/index.js';
import { tx } from '../helpers.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');

/** A PGlite store under a fresh directory holding three decisions. */
async function storeWithDecisions(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'txmon-verify-'));
  const opened = await openStores(parseStore(`pglite:${dir}`), ['default'], { single: true, maxStoredBytes: 1, settings: DEFAULT_STORE_SETTINGS });
  const engine = createEngine({ repositories: opened.repositories.get('default') as Repositories });
  for (let i = 0; i < 3; i++) await engine.createTransaction(tx({ transactionId: `v-${i}` }));
  await opened.close();
  return dir;
}

/** Runs `statement` on the store's database directly, as an operator with file access could. */
async function tamper(dir: string, statement: string): Promise<void> {
  const db = new PGlite(join(dir, 'default'));
  try {
    await db.exec(statement);
  } finally {
    await db.close();
  }
}

function collect() {
  const lines: Record<string, unknown>[] = [];
  return { lines, out: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

describe('txmon verify-log', () => {
  it('reports an intact log with its count and head, then the first tampered entry; an anchor catches a rewrite', async () => {
    const dir = await storeWithDecisions();
    const intact = collect();
    expect(await verifyLog(['--store', `pglite:${dir}`], {}, intact.out)).toBe(true);
    expect(intact.lines).toEqual([expect.objectContaining({ tenant: 'default', ok: true, count: 3, head: expect.objectContaining({ seq: 3 }) })]);
    const head = intact.lines[0]?.head as { seq: number; hash: string };

    // Rewritten whole: the last entry edited and re-hashed, the head with it — intact on its own.
    await tamper(
      dir,
      `UPDATE txmon_decisions SET entry = replace(entry, '"ALLOW"', '"BLOCK"'), hash = encode(sha256(convert_to(prev || replace(entry, '"ALLOW"', '"BLOCK"'), 'UTF8')), 'hex') WHERE seq = 3;
       UPDATE txmon_decision_head SET hash = (SELECT hash FROM txmon_decisions WHERE seq = 3)`,
    );
    expect(await verifyLog(['--store', `pglite:${dir}`], {}, collect().out)).toBe(true);
    const anchored = collect();
    expect(await verifyLog(['--store', `pglite:${dir}`, '--anchor', `${head.seq}:${head.hash}`], {}, anchored.out)).toBe(false);
    expect(anchored.lines[0]).toMatchObject({ ok: false, firstInvalid: { seq: 3, problem: 'EDITED' } });

    await tamper(dir, 'DELETE FROM txmon_decisions WHERE seq = 2');
    const removed = collect();
    expect(await verifyLog(['--store', `pglite:${dir}`], {}, removed.out)).toBe(false);
    expect(removed.lines[0]).toMatchObject({ ok: false, count: 2, firstInvalid: { seq: 2, problem: 'REMOVED' } });
  }, 60_000);

  it('the built command exits 0 for an intact log and 3 for a tampered one', async () => {
    expect(existsSync(CLI), 'dist/cli.js is missing: run `npm run build`').toBe(true);
    const dir = await storeWithDecisions();
    const run = () => spawnSync(process.execPath, [CLI, 'verify-log', '--store', `pglite:${dir}`], { encoding: 'utf8', timeout: 60_000 });
    const ok = run();
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, count: 3 });
    await tamper(dir, `UPDATE txmon_decisions SET entry = replace(entry, '"ALLOW"', '"BLOCK"') WHERE seq = 1`);
    const bad = run();
    expect(bad.status).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, firstInvalid: { seq: 1, problem: 'EDITED' } });
  }, 60_000);

  const bad = [
    { name: 'a memory store', args: ['--store', 'memory'], message: /no log to verify/ },
    { name: 'a malformed anchor', args: ['--store', 'pglite:/tmp/x', '--anchor', '3:abc'], message: /--anchor/ },
    { name: 'an unknown option', args: ['--store', 'pglite:/tmp/x', '--fix'], message: /--fix/ },
  ];
  it.each(bad)('refuses $name', async ({ args, message }) => {
    await expect(verifyLog(args, {}, collect().out)).rejects.toThrow(message);
  });
});
