/**
 * `txmon simulate` (src/cli/simulate.ts): reads NDJSON (gzipped or not), CSV and a store's own
 * history, and reports what `simulate` reports for the same operations; bad lines are counted with
 * their line numbers, or stop the run with `--strict`; the command line is checked.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/simulate.js';
import { DEFAULT_STORE_SETTINGS, openStores, parseStore } from '../../src/cli/stores.js';
import { createEngine, simulate, type Repositories, type SimulationReport } from '../../src/index.js';
import { T0, tx } from '../helpers.js';

const quiet = { write: () => undefined };
const baseline = [{ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 5_000 } } }];
const candidate = [{ ruleId: 'R-30', parameters: { transactionsLimit: 2, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } }];

/** A history of transactions and events, as objects, in time order. */
function historyObjects(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < 60; i++) {
    const transaction = tx({
      transactionId: `c-${i}`,
      originUserId: `u-${i % 4}`,
      destinationUserId: `m-${i % 3}`,
      timestamp: T0 + i * 600_000,
      originAmountDetails: { transactionAmount: (i * 713) % 9_000, transactionCurrency: 'EUR', country: 'DE' },
    });
    out.push(transaction as unknown as Record<string, unknown>);
    if (i % 3 === 0) out.push({ transactionId: `c-${i}`, eventId: `e-${i}`, timestamp: T0 + i * 600_000 + 1_000, transactionState: 'SUCCESSFUL' });
  }
  return out;
}

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'txmon-simulate-'));
  const write = (name: string, text: string | Uint8Array) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  return { dir, write, rules: write('baseline.json', JSON.stringify(baseline)), candidate: write('candidate.json', JSON.stringify(candidate)) };
}

describe('txmon simulate', () => {
  it('reports from NDJSON — plain and gzipped — what simulate reports for the same operations, and writes the JSON report', async () => {
    const ws = workspace();
    const lines = historyObjects().map((o) => JSON.stringify(o));
    const plain = ws.write('history.ndjson', `${lines.join('\n')}\n`);
    const gz = ws.write('history.ndjson.gz', gzipSync(`${lines.join('\n')}\n`));
    const json = join(ws.dir, 'report.json');
    const fromFile = await simulateCommand(['--history', plain, '--rules', ws.rules, '--candidate', ws.candidate, '--json', json], quiet);
    const fromGzip = await simulateCommand(['--history', gz, '--rules', ws.rules, '--candidate', ws.candidate], quiet);
    const direct = await simulate({ history: lines, baseline, candidate });
    expect(fromFile).toEqual(direct);
    expect(fromGzip).toEqual(direct);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual(JSON.parse(JSON.stringify(direct)));
  });

  it('reads CSV by dot-path columns, or columns mapped to them, and numbers its rows by line', async () => {
    const ws = workspace();
    const header = 'type,transactionId,timestamp,originUserId,amount,currency,transactionState';
    const rows = [
      header,
      `TRANSFER,x-1,${T0},u-1,6000,EUR,`,
      `TRANSFER,x-2,${T0 + 1},u-1,10,EUR,`,
      `,x-1,${T0 + 2},,,,SUCCESSFUL`,
      'TRANSFER,x-3,not-a-time,u-2,1,EUR,',
    ];
    const csv = ws.write('history.csv', `${rows.join('\n')}\n`);
    const map = ws.write('map.json', JSON.stringify({ amount: 'originAmountDetails.transactionAmount', currency: 'originAmountDetails.transactionCurrency' }));
    const report = await simulateCommand(['--history', csv, '--csv-map', map, '--rules', ws.rules], quiet);
    expect(report.history).toMatchObject({ transactions: 2, events: 1, rejected: 1 });
    expect(report.rejected).toEqual([expect.objectContaining({ position: 5, code: 'VALIDATION_FAILED', transactionId: 'x-3' })]);
    expect(report.baseline.instances[0]?.hits).toBe(2);
  });

  it('replays a store’s own history in time order, the same as the file of it', async () => {
    const ws = workspace();
    const spec = parseStore(`pglite:${join(ws.dir, 'data')}`);
    const opened = await openStores(spec, ['default'], { single: true, maxStoredBytes: 1, settings: DEFAULT_STORE_SETTINGS });
    const engine = createEngine({ repositories: opened.repositories.get('default') as Repositories });
    // Sent out of time order: the store's history comes back in time order.
    const operations = historyObjects();
    for (const operation of [...operations].reverse().filter((o) => 'type' in o)) await engine.createTransaction(operation as never);
    for (const operation of operations.filter((o) => !('type' in o))) await engine.createTransactionEvent(operation as never);
    await opened.close();
    const fromStore = await simulateCommand(['--store', `pglite:${join(ws.dir, 'data')}`, '--rules', ws.rules, '--candidate', ws.candidate], quiet);
    const direct: SimulationReport = await simulate({ history: operations, baseline, candidate });
    expect(fromStore).toEqual(direct);
  }, 120_000);

  it('with --strict, stops at the first bad line, naming it', async () => {
    const ws = workspace();
    const file = ws.write('history.ndjson', `${JSON.stringify(tx({ timestamp: T0 }))}\n\n{"broken":\n`);
    await expect(simulateCommand(['--history', file, '--rules', ws.rules, '--strict'], quiet)).rejects.toThrow(/^History item 3: /);
  });

  const bad: { name: string; args: (ws: ReturnType<typeof workspace>) => string[]; message: RegExp }[] = [
    { name: 'neither --history nor --store', args: (ws) => ['--rules', ws.rules], message: /either --history/ },
    { name: 'both --history and --store', args: (ws) => ['--history', 'x', '--store', 'pglite:x', '--rules', ws.rules], message: /either --history/ },
    { name: 'no --rules', args: () => ['--history', 'x'], message: /--rules/ },
    { name: 'a rules file that is no array', args: (ws) => ['--history', 'x', '--rules', ws.write('r.json', '{"a":1}')], message: /array of rule instances/ },
    {
      name: 'an unknown engine setting',
      args: (ws) => ['--history', 'x', '--rules', ws.rules, '--engine', ws.write('e.json', '{"clock":1}')],
      message: /clock is not an engine setting/,
    },
    { name: '--from with a file', args: (ws) => ['--history', 'x', '--rules', ws.rules, '--from', '2026-01-01'], message: /go with --store/ },
    { name: 'a bad date', args: (ws) => ['--store', 'pglite:x', '--rules', ws.rules, '--from', 'yesterday'], message: /--from must be a date/ },
    { name: 'a memory store', args: (ws) => ['--store', 'memory', '--rules', ws.rules], message: /holds no history/ },
    { name: 'a missing history file', args: (ws) => ['--history', join(ws.dir, 'none.ndjson'), '--rules', ws.rules], message: /cannot read/ },
  ];
  it.each(bad)('refuses $name', async ({ args, message }) => {
    await expect(simulateCommand(args(workspace()), quiet)).rejects.toThrow(message);
  });

  it('refuses a bad rule instance, naming its set and path', async () => {
    const ws = workspace();
    const file = ws.write('history.ndjson', '');
    const rules = ws.write('bad.json', JSON.stringify([{ ruleId: 'R-30', parameters: { transactionsLimit: -1 } }]));
    await expect(simulateCommand(['--history', file, '--rules', rules], quiet)).rejects.toMatchObject({
      code: 'INVALID_PARAMETERS',
      details: expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^\/baseline\/0\/parameters/) })]),
    });
  });
});
