/**
 * The run's check for leftover processes (child-processes.ts) fails a run whose test leaves a
 * process behind, kills that process, and lets a clean run pass: a nested vitest run on a scratch
 * project with the same global setup shows both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** A nested vitest run of one test file whose body is `body`; its exit code and output. */
function nestedRun(body: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'txmon-leak-'));
  try {
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['*.test.mjs'], globalSetup: [${JSON.stringify(join(ROOT, 'test/setup/child-processes.ts'))}] } };\n`,
    );
    writeFileSync(join(dir, 'probe.test.mjs'), `import { spawn } from 'node:child_process';\nimport { it } from 'vitest';\nit('runs', () => { ${body} });\n`);
    const run = spawnSync(process.execPath, [VITEST, 'run', '--root', dir], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the check for processes left by a test run', () => {
  it('fails a run whose test leaves a process running, and names and kills it', () => {
    const leaked = nestedRun("spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000) // leaked-by-probe'], { detached: true, stdio: 'ignore' }).unref();");
    expect(leaked.status).toBe(1);
    expect(leaked.output).toMatch(/the test run left 1 process\(es\) running \(killed now\): \d+ .*leaked-by-probe/);
    const again = spawnSync('pgrep', ['-f', 'leaked-by-probe'], { encoding: 'utf8' });
    expect(again.stdout.trim()).toBe('');
  }, 120_000);

  it('passes a run that stops what it starts', () => {
    const clean = nestedRun("const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); child.kill('SIGKILL');");
    expect(clean.status, clean.output).toBe(0);
  }, 120_000);
});
