import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/index.js';
// @ts-expect-error: a plain ESM script without types
import { readErrorCodes, renderErrorsDoc } from '../../scripts/generate-errors-doc.mjs';

const source = readFileSync(new URL('../../src/errors.ts', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it('is the page generated from src/errors.ts (regenerate with scripts/generate-errors-doc.mjs)', () => {
    expect(readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')).toBe(renderErrorsDoc(source));
  });

  it('lists every code of ERROR_CODES with its status', () => {
    const rows = (readErrorCodes(source) as { code: string; status: number }[]).map(({ code, status }) => [code, status]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
  });
});
