/**
 * The generator is a library below the engine: src/simulation/generate imports only from src/domain
 * and from itself (never the engine, HTTP, CLI or PostgreSQL layers), and nothing but the command
 * and the detection measure (which generates the history it replays) imports it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1] as string);
}

describe('src/simulation/generate', () => {
  it('imports only src/domain and its own modules', () => {
    for (const file of filesUnder(join(root, 'src/simulation/generate'))) {
      for (const specifier of importsOf(file)) {
        expect(specifier.startsWith('.'), `${relative(root, file)} imports the package ${specifier}`).toBe(true);
        const target = relative(root, resolve(dirname(file), specifier));
        expect(target.startsWith('src/simulation/generate/') || target.startsWith('src/domain/'), `${relative(root, file)} imports ${target}`).toBe(true);
      }
    }
  });

  it('is imported only by the generate command and the detection measure', () => {
    const importers = filesUnder(join(root, 'src'))
      .filter((file) => !file.includes(join('src', 'simulation', 'generate')))
      .filter((file) => importsOf(file).some((s) => s.includes('generate/')));
    expect(importers.map((f) => relative(root, f))).toEqual(['src/cli/generate.ts', 'src/simulation/detection.ts']);
  });
});
