/**
 * The README's code that runs as written: each block named here is run against the build (the
 * package resolves itself by name from inside the repository), and every `console.log(…); // text`
 * line must print that text.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The first ```js block after the heading `## <heading>`. */
function blockUnder(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`## ${heading}\n`);
  if (at < 0) throw new Error(`README.md has no section "${heading}"`);
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
  if (block?.[1] === undefined) throw new Error(`the section "${heading}" has no js block`);
  return block[1];
}

describe('README code', () => {
  it.each(['Pure functions'])('the "%s" block runs and prints what its comments say', (heading) => {
    const code = blockUnder(heading);
    const expected = [...code.matchAll(/console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(0);
    const dir = join(ROOT, 'test-results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `readme-${heading.toLowerCase().replace(/\W+/g, '-')}.mjs`);
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(expected);
  });
});
