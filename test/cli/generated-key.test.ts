import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_KEY_FILE, generatedKeyIn } from '../../src/cli/generated-key.js';

describe('generatedKeyIn', () => {
  it('makes a key once, in a file only its owner can read, and returns the same key afterwards', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'txmon-key-')), 'data');
    const first = generatedKeyIn(dir);
    expect(first.created).toBe(true);
    expect(first.key).toMatch(/^txm_[A-Za-z0-9_-]{32}$/);
    expect(statSync(join(dir, GENERATED_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(generatedKeyIn(dir)).toEqual({ key: first.key, created: false });
  });
});
