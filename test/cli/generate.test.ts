/**
 * `txmon generate` (src/cli/generate.ts): flags checked with errors naming the flag, the three files
 * written (byte-identical for the same arguments, gzip when asked), the summary line; and the built
 * command's exit codes (2 for a bad command line).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generate, parseGenerateArgs } from '../../src/cli/generate.js';
import { UsageError } from '../../src/cli/usage.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'txmon-generate-'));
}

function quiet() {
  const lines: string[] = [];
  return { lines, out: { write: (line: string) => void lines.push(line) } };
}

describe('parseGenerateArgs', () => {
  it('reads every flag', () => {
    const args = parseGenerateArgs([
      '--users',
      '500',
      '--days',
      '21',
      '--seed',
      '9007199254740991',
      '--start',
      '2026-03-01',
      '--out',
      'h.ndjson',
      '--labels',
      'l.csv',
      '--users-out',
      'u.ndjson',
      '--typology-rate',
      '0.05',
      '--min-schemes',
      '4',
      '--typologies',
      'cycle,fan_in',
    ]);
    expect(args).toEqual({
      options: {
        users: 500,
        days: 21,
        seed: 9007199254740991,
        start: Date.UTC(2026, 2, 1),
        typologyRate: 0.05,
        minSchemes: 4,
        typologies: ['cycle', 'fan_in'],
      },
      out: 'h.ndjson',
      labels: 'l.csv',
      usersOut: 'u.ndjson',
    });
  });

  it('applies the defaults of users, days and seed, and reads all and none', () => {
    expect(parseGenerateArgs(['--out', 'h', '--labels', 'l']).options).toEqual({ users: 1000, days: 30, seed: 1 });
    expect(parseGenerateArgs(['--out', 'h', '--labels', 'l', '--typologies', 'none']).options.typologies).toEqual([]);
    expect(parseGenerateArgs(['--out', 'h', '--labels', 'l', '--typologies', 'all']).options.typologies).toBeUndefined();
  });

  it.each([
    { name: 'no --out', argv: ['--labels', 'l'], flag: '--out' },
    { name: 'no --labels', argv: ['--out', 'h'], flag: '--labels' },
    { name: 'the same file twice', argv: ['--out', 'x', '--labels', './x'], flag: '--labels' },
    { name: 'a word for --users', argv: ['--users', 'many'], flag: '--users' },
    { name: 'a negative --days', argv: ['--days=-3'], flag: '--days' },
    { name: 'a fractional --seed', argv: ['--seed', '1.5'], flag: '--seed' },
    { name: 'a --start that is no date', argv: ['--start', '2026-02-30'], flag: '--start' },
    { name: 'a --start with a time', argv: ['--start', '2026-02-01T10:00'], flag: '--start' },
    { name: 'a --typology-rate that is no number', argv: ['--typology-rate', 'high'], flag: '--typology-rate' },
    { name: 'an unknown typology', argv: ['--typologies', 'fan_in,smurfing'], flag: '--typologies' },
  ])('refuses $name, naming the flag', ({ argv, flag }) => {
    const full = argv.includes('--out') || argv.includes('--labels') ? argv : ['--out', 'h', '--labels', 'l', ...argv];
    let error: unknown;
    try {
      parseGenerateArgs(full);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(flag);
  });

  it('lets node:util refuse an unknown flag (a usage error for main.ts)', () => {
    expect(() => parseGenerateArgs(['--out', 'h', '--labels', 'l', '--colour', 'blue'])).toThrow(
      expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }),
    );
  });
});

describe('generate', () => {
  const small = ['--users', '120', '--days', '14', '--seed', '7'];

  it('writes the history, the labels and the users, and prints the counts', async () => {
    const dir = scratch();
    const { lines, out } = quiet();
    const summary = await generate([...small, '--out', join(dir, 'h.ndjson'), '--labels', join(dir, 'l.csv'), '--users-out', join(dir, 'u.ndjson')], out);
    const history = readFileSync(join(dir, 'h.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(history).toHaveLength(summary.operations);
    expect(history.filter((r) => 'type' in r)).toHaveLength(summary.transactions);
    const labels = readFileSync(join(dir, 'l.csv'), 'utf8').trimEnd().split('\n');
    expect(labels[0]).toBe('level,id,typology,scheme');
    expect(labels.slice(1).filter((r) => r.startsWith('user,'))).toHaveLength(summary.labelledUsers);
    expect(labels.slice(1).filter((r) => r.startsWith('transaction,'))).toHaveLength(summary.labelledTransactions);
    expect(readFileSync(join(dir, 'u.ndjson'), 'utf8').trimEnd().split('\n')).toHaveLength(120);
    expect(JSON.parse(lines.join(''))).toEqual(summary);
  });

  it('writes byte-identical files for the same arguments, other ones for another seed, and gzip when the name ends in .gz', async () => {
    const dir = scratch();
    const files = (name: string) => ['--out', join(dir, `${name}.ndjson`), '--labels', join(dir, `${name}.csv`)];
    await generate([...small, ...files('a')], quiet().out);
    await generate([...small, ...files('b')], quiet().out);
    await generate([...small.slice(0, 4), '--seed', '8', ...files('c')], quiet().out);
    await generate([...small, '--out', join(dir, 'd.ndjson.gz'), '--labels', join(dir, 'd.csv')], quiet().out);
    const read = (name: string) => readFileSync(join(dir, name));
    expect(read('a.ndjson').equals(read('b.ndjson'))).toBe(true);
    expect(read('a.csv').equals(read('b.csv'))).toBe(true);
    expect(read('a.ndjson').equals(read('c.ndjson'))).toBe(false);
    expect(gunzipSync(read('d.ndjson.gz')).equals(read('a.ndjson'))).toBe(true);
  });

  it('turns a wrong option into a usage error naming its flag before writing anything', async () => {
    const dir = scratch();
    await expect(generate(['--users', '50', '--out', join(dir, 'h'), '--labels', join(dir, 'l')], quiet().out)).rejects.toThrow(UsageError);
    await expect(generate(['--users', '50', '--out', join(dir, 'h'), '--labels', join(dir, 'l')], quiet().out)).rejects.toThrow('--users');
    expect(existsSync(join(dir, 'h'))).toBe(false);
  });

  it('fails with the file-system error, not a usage error, when a file cannot be written', async () => {
    const dir = scratch();
    const failure = generate([...small, '--out', join(dir, 'missing', 'h.ndjson'), '--labels', join(dir, 'l.csv')], quiet().out);
    await expect(failure).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('the built command', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, 'generate', ...args], { encoding: 'utf8' });

  it('exits 2 on a bad command line, naming the flag, and 0 with the usage for --help', () => {
    expect(existsSync(CLI), 'dist/cli.js is missing: run `npm run build`').toBe(true);
    const bad = run(['--users', 'many', '--out', 'h', '--labels', 'l']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--users');
    expect(bad.stderr).toContain('Usage: txmon generate');
    const unknown = run(['--colour', 'blue']);
    expect(unknown.status).toBe(2);
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: txmon generate');
  });

  it('exits 0 after writing the files, and 1 when it cannot write them', () => {
    const dir = scratch();
    const ok = run(['--users', '100', '--days', '14', '--out', join(dir, 'h.ndjson'), '--labels', join(dir, 'l.csv')]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ users: 100, days: 14, seed: 1 });
    const unwritable = run(['--users', '100', '--days', '14', '--out', join(dir, 'no', 'h.ndjson'), '--labels', join(dir, 'l2.csv')]);
    expect(unwritable.status).toBe(1);
    expect(unwritable.stderr).toContain('cannot generate');
  });
});
