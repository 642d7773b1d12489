/**
 * Imports flow one way — domain ← validation/logic ← rules/aggregation ← engine ← simulation ←
 * repositories ← http/cli — and the linter (biome.json, run by `npm test`) is what enforces it. These cases feed
 * the linter a module placed in a layer and check it refuses each import that points up
 * and accepts the ones that point down, so a change to the configuration that stops the rule
 * from firing fails here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const biome = path.join(root, 'node_modules', '.bin', 'biome');

/**
 * The layer-rule diagnostics of `source` placed at `file` (a path inside src/): the module is
 * written into a scratch copy of the tree's layout beside the project's biome.json, and linted there.
 */
function layerViolations(file: string, source: string): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'txmon-layers-'));
  try {
    const config = JSON.parse(readFileSync(path.join(root, 'biome.json'), 'utf8'));
    writeFileSync(path.join(dir, 'biome.json'), JSON.stringify({ ...config, vcs: { enabled: false }, files: { includes: ['src/**'] } }));
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
    const run = spawnSync(biome, ['lint', '--max-diagnostics=50', file], { cwd: dir, encoding: 'utf8' });
    if (run.error) throw run.error;
    return `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => line.includes('must not import'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const upward: [file: string, specifier: string][] = [
  ['src/domain/probe.ts', '../validation/index.js'],
  ['src/domain/probe.ts', '../engine/repositories.js'],
  ['src/errors.ts', './rules/registry.js'],
  ['src/validation/probe.ts', '../rules/registry.js'],
  ['src/logic/probe.ts', '../aggregation/window-index.js'],
  ['src/rules/library/probe.ts', '../../engine/types.js'],
  ['src/aggregation/probe.ts', '../engine/create-engine.js'],
  ['src/engine/services/probe.ts', '../../repositories/memory/index.js'],
  ['src/engine/probe.ts', '../postgres/index.js'],
  ['src/engine/probe.ts', '../http/index.js'],
  ['src/engine/probe.ts', '../default-engine.js'],
  ['src/repositories/memory/probe.ts', '../../http/index.js'],
  ['src/postgres/probe.ts', '../cli/main.js'],
  ['src/engine/probe.ts', '../simulation/simulate.js'],
  ['src/simulation/probe.ts', '../repositories/memory/index.js'],
  ['src/simulation/probe.ts', '../cli/main.js'],
];

const downward: [file: string, specifier: string][] = [
  ['src/validation/probe.ts', '../domain/index.js'],
  ['src/rules/library/probe.ts', '../../logic/index.js'],
  ['src/engine/services/probe.ts', '../repositories.js'],
  ['src/engine/probe.ts', '../rules/registry.js'],
  ['src/repositories/memory/probe.ts', '../../engine/repositories.js'],
  ['src/postgres/probe.ts', '../engine/repositories.js'],
  ['src/http/probe.ts', '../engine/types.js'],
  ['src/cli/probe.ts', '../postgres/index.js'],
  ['src/simulation/probe.ts', '../engine/pipeline/index.js'],
  ['src/cli/probe.ts', '../simulation/simulate.js'],
];

describe('the import-boundary lint rule', () => {
  it.each(upward)('refuses, in %s, an import of %s', (file, specifier) => {
    expect(layerViolations(file, `import { x } from '${specifier}';\nexport const y = x;\n`)).not.toEqual([]);
  });

  it.each(downward)('accepts, in %s, an import of %s', (file, specifier) => {
    expect(layerViolations(file, `import { x } from '${specifier}';\nexport const y = x;\n`)).toEqual([]);
  });

  it('refuses a re-export that points up as well', () => {
    expect(layerViolations('src/domain/probe.ts', `export { x } from '../engine/types.js';\n`)).not.toEqual([]);
  });
});
