// Runs every numbered example against the built package (imports resolve to dist/ through the
// package's own `exports`), failing on the first that exits non-zero.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const examples = readdirSync(here)
  .filter((f) => /^\d+-.*\.(mjs|cjs)$/.test(f))
  .sort();
let failed = 0;
for (const file of examples) {
  const run = spawnSync(process.execPath, [join(here, file)], { encoding: 'utf8' });
  const ok = run.status === 0;
  if (!ok) failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} examples/${file}`);
  if (!ok) console.log(run.stdout, run.stderr);
}
console.log(`examples: ${examples.length - failed} passed, ${failed} failed`);
// Read by scripts/test-summary.mjs for the closing line of `npm test`.
mkdirSync(join(here, '..', 'test-results'), { recursive: true });
writeFileSync(join(here, '..', 'test-results', 'examples.json'), JSON.stringify({ passed: examples.length - failed, failed }));
process.exit(failed === 0 ? 0 : 1);
