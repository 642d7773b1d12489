#!/usr/bin/env node
/**
 * `npm run detection`: measures the shipped preset (`presets.amlBaseline()`) on generated, labelled
 * histories with fixed seeds and writes the tables into docs/detection.md, between the markers
 * `<!-- detection:<users>x<days> -->` and `<!-- /detection -->`. The 1,000-customer table is the one
 * `test/simulation/detection.test.ts` recomputes in CI and compares with the file.
 *
 *   node scripts/detection.mjs            # both sizes (the large one takes a minute or two)
 *   node scripts/detection.mjs --small    # only the 1,000-customer table
 *
 * Reads the built package (dist/): run `npm run build` first (`npm run detection` does).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { amlBaseline, DETECTION_ENGINE, DETECTION_SIZES, measureDetection, renderDetectionTable } from '../dist/internals.js';

const { values } = parseArgs({ options: { small: { type: 'boolean', default: false } } });
const file = path.resolve(import.meta.dirname, '..', 'docs', 'detection.md');

let text = readFileSync(file, 'utf8');
for (const size of DETECTION_SIZES) {
  if (values.small && size.users > 1000) continue;
  const started = Date.now();
  const table = await measureDetection({ history: size, ruleSet: amlBaseline(), engine: DETECTION_ENGINE });
  const marker = `<!-- detection:${size.users}x${size.days} -->`;
  const at = text.indexOf(marker);
  const end = text.indexOf('<!-- /detection -->', at);
  if (at < 0 || end < 0) throw new Error(`docs/detection.md has no ${marker} … <!-- /detection --> block`);
  text = `${text.slice(0, at + marker.length)}\n${renderDetectionTable(table)}\n${text.slice(end)}`;
  process.stderr.write(`${size.users} × ${size.days}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
writeFileSync(file, text);
