/**
 * The benchmark's baseline (bench/baseline.mjs) is a second, hand-written implementation of the
 * workloads' rules, alerts and cases. Its verification pass (`bench/run.mjs --verify-only`) makes
 * it a differential test: every response, counter, alert and case of the built engine must equal
 * the baseline's, over the first 20,000 operations of three workloads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const RUN = join(ROOT, 'bench/run.mjs');
const DIST = join(ROOT, 'dist/internals.js');

function verify(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [RUN, '--verify-only', '--json', '-', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** The verification lines of a run, one per workload. */
const verificationLines = (output: string) => output.split('\n').filter((line) => line.startsWith('verification:'));

describe('the engine against the hand-written baseline (bench/run.mjs --verify-only)', () => {
  it('answers every operation of the today, dense and AML workloads as the baseline does, alerts on', () => {
    const { status, output } = verify(['--workload', 'today,dense,aml', '--ops', '20000']);
    expect(status, output).toBe(0);
    const lines = verificationLines(output);
    expect(lines, output).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/^verification: 20000 operations, 0 mismatches, .*counters equal, \d+ alerts equal, \d+ cases equal/);
      // The stream is not trivial: alerts are raised.
      expect(Number(/(\d+) alerts equal/.exec(line)?.[1])).toBeGreaterThan(100);
    }
    // ~15 s alone; more on a loaded 2-core machine running the rest of the suite beside it.
  }, 240_000);

  it('answers as the baseline does with alerts off', () => {
    const { status, output } = verify(['--workload', 'today', '--ops', '5000', '--alerts', 'off']);
    expect(status, output).toBe(0);
    expect(verificationLines(output)).toEqual([
      expect.stringMatching(/^verification: 5000 operations, 0 mismatches, .*counters equal, 0 alerts equal, 0 cases equal/),
    ]);
  });

  it('fails, naming the operation, when the engine answers differently', () => {
    // A build whose engine reports every transaction's status as BLOCK.
    const dir = mkdtempSync(join(tmpdir(), 'txmon-verify-'));
    const altered = join(dir, 'altered.mjs');
    writeFileSync(
      altered,
      `export * from ${JSON.stringify(pathToFileURL(DIST).href)};
import { createEngine as real } from ${JSON.stringify(pathToFileURL(DIST).href)};
export function createEngine(options) {
  const engine = real(options);
  const createTransaction = engine.createTransaction.bind(engine);
  engine.createTransaction = async (payload) => ({ ...(await createTransaction(payload)), status: 'BLOCK' });
  return engine;
}
`,
    );
    const { status, output } = verify(['--workload', 'today', '--ops', '2000', '--dist', altered]);
    rmSync(dir, { recursive: true, force: true });
    expect(status).toBe(1);
    expect(output).toMatch(/MISMATCH at operation \d+ \(transaction [^)]+\), first at \/status/);
    expect(output).toContain('verification FAILED');
  });
});
