// Regenerates docs/errors.md from src/errors.ts (ERROR_CODES and the doc comment of each code):
//   node scripts/generate-errors-doc.mjs
// test/docs/errors-doc.test.ts checks that the page is current.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../', import.meta.url);

/** The rows of ERROR_CODES in source order: code, status and the text of its doc comment (or null). */
export function readErrorCodes(source) {
  const table = source.slice(source.indexOf('export const ERROR_CODES = {'), source.indexOf('} as const;'));
  const rows = [];
  let comment = null;
  for (const match of table.matchAll(/\/\*\*([\s\S]*?)\*\/|^\s*([A-Z_]+): (\d{3}),/gm)) {
    if (match[1] !== undefined) {
      comment = match[1]
        .split('\n')
        .map((line) => line.replace(/^\s*\*\s?/, '').trim())
        .filter((line) => line !== '')
        .join(' ');
    } else {
      rows.push({ code: match[2], status: Number(match[3]), text: comment });
      comment = null;
    }
  }
  return rows;
}

/** docs/errors.md for the given source of src/errors.ts. */
export function renderErrorsDoc(source) {
  const out = [
    '# Errors',
    '',
    'Every error txmon throws is a `TxmonError` with `code` (stable, UPPER_SNAKE), `status` (HTTP),',
    '`message` (names the field or call, never a transaction value) and `details[]` of',
    '`{ path, code, message }` where `path` is a JSON Pointer into the request (`/originAmountDetails/transactionAmount`).',
    'The table is generated from `src/errors.ts` (`ERROR_CODES`), the single source, by `node scripts/generate-errors-doc.mjs`.',
    '',
    '| code | status | when |',
    '|---|---|---|',
  ];
  for (const { code, status, text } of readErrorCodes(source)) out.push(`| \`${code}\` | ${status} | ${text ?? 'see code name'} |`);
  const own = [
    ...source
      .slice(source.indexOf('export const TXMON_DETAIL_CODES = ['), source.indexOf('] as const;', source.indexOf('TXMON_DETAIL_CODES = [')))
      .matchAll(/'([a-z-]+)'/g),
  ].map((m) => m[1]);
  out.push(
    '',
    'Detail codes (`details[].code`, type `DetailCode`) name the violated constraint: the ajv keyword for a',
    'schema violation (`required`, `type`, `minimum`, `maximum`, `maxLength`, `enum`, `format`,',
    "`additionalProperties`, …), or one of txmon's own (`TXMON_DETAIL_CODES`):",
    `${own
      .map((c) => `\`${c}\``)
      .sort()
      .join(', ')}.`,
    "A `limit` detail's message names the limit and its value (see docs/security.md).",
    '',
  );
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = readFileSync(new URL('src/errors.ts', ROOT), 'utf8');
  writeFileSync(new URL('docs/errors.md', ROOT), renderErrorsDoc(source));
}
