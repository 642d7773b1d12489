/**
 * The shipped preset catches what docs/detection.md says it catches: the 1,000-customer table is
 * recomputed from its fixed seed and must equal the file's, and every typology the preset covers
 * must be found at recall ≥ 0.9 with an account-level precision ≥ 0.5.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { amlBaseline } from '../../src/index.js';
import { DETECTION_ENGINE, DETECTION_SIZES, measureDetection, renderDetectionTable } from '../../src/simulation/detection.js';

const docs = readFileSync(path.resolve(import.meta.dirname, '..', '..', 'docs', 'detection.md'), 'utf8');

/** The text of docs/detection.md's block for a size. */
function documented(users: number, days: number): string {
  const marker = `<!-- detection:${users}x${days} -->`;
  const at = docs.indexOf(marker);
  const end = docs.indexOf('<!-- /detection -->', at);
  if (at < 0 || end < 0) throw new Error(`docs/detection.md has no ${marker} block`);
  return docs.slice(at + marker.length, end).trim();
}

describe('detection of the AML baseline preset', () => {
  const small = DETECTION_SIZES.find((size) => size.users === 1_000);
  if (small === undefined) throw new Error('no 1,000-customer size');

  it('finds every typology on 1,000 customers × 90 days as docs/detection.md states, at recall ≥ 0.9 and precision ≥ 0.5', async () => {
    const table = await measureDetection({ history: small, ruleSet: amlBaseline(), engine: DETECTION_ENGINE });
    expect(renderDetectionTable(table)).toBe(documented(small.users, small.days));
    expect(table.typologies.filter((row) => (row.recall ?? 0) < 0.9).map((row) => row.typology)).toEqual([]);
    expect(table.precision).toBeGreaterThanOrEqual(0.5);
  }, 120_000);
});
