import { fc } from '@fast-check/vitest';

/**
 * Code points (and short sequences) chosen to make text-matching code do the most work per
 * character: compatibility characters that Unicode normalisation expands (U+FDFA is 18 code
 * points under NFKC/NFKD, U+FB2C and U+1D160 expand under NFC too), ligatures, fullwidth and
 * mathematical forms, characters whose lower case is longer, combining marks, mixed scripts,
 * separators and lone surrogates.
 */
export const HOSTILE_UNITS: readonly string[] = [
  // Normalisation expansions.
  '\uFDFA', // ARABIC LIGATURE SALLALLAHOU ALAYHE WASALLAM: 18 code points, 4 words
  '\uFDFB', // ARABIC LIGATURE JALLAJALALOUHOU: 8 code points, 2 words
  '\uFDF2', // ARABIC LIGATURE ALLAH ISOLATED FORM: 4 letters, no separator
  '\uFB2C', // HEBREW LETTER SHIN WITH DAGESH AND SHIN DOT: 3 code points even under NFC
  '\u{1D15E}', // MUSICAL SYMBOL HALF NOTE: 2 code points under NFC
  '\u{1D160}', // MUSICAL SYMBOL EIGHTH NOTE: 3 code points under NFC
  '\uFB03', // LATIN SMALL LIGATURE FFI
  '\uFB04', // LATIN SMALL LIGATURE FFL
  '\u3316', // SQUARE KIROMEETORU: 6 katakana
  '\u337F', // SQUARE CORPORATION: 4 ideographs
  '\u2474', // PARENTHESIZED DIGIT ONE
  '\u2487', // PARENTHESIZED NUMBER TWENTY
  '\u2167', // ROMAN NUMERAL EIGHT: VIII
  '\u3389', // SQUARE KCAL
  '\u0390', // GREEK SMALL LETTER IOTA WITH DIALYTIKA AND TONOS: 3 code points under NFD
  '\u01C5', // LATIN CAPITAL LETTER D WITH SMALL LETTER Z WITH CARON
  '\u0130', // LATIN CAPITAL LETTER I WITH DOT ABOVE: 2 code points in lower case
  '\u1E9E', // LATIN CAPITAL LETTER SHARP S
  // Fullwidth, halfwidth and mathematical forms.
  '\uFF21', // FULLWIDTH A
  '\uFF42', // FULLWIDTH b
  '\uFF10', // FULLWIDTH DIGIT ZERO
  '\uFF8A\uFF9E', // HALFWIDTH KATAKANA HA + VOICED SOUND MARK
  '\u{1D400}', // MATHEMATICAL BOLD CAPITAL A
  // Combining marks.
  '\u0301',
  '\u0308',
  '\u0345',
  '\u093F',
  // Mixed scripts, digits and an emoji.
  'a',
  'b',
  'e',
  'z',
  'б',
  'α',
  'ا',
  'ש',
  '中',
  'ก',
  '1',
  '٣',
  '\u{1F600}',
  // Separators and apostrophes.
  ' ',
  '-',
  '.',
  '\t',
  '\u00A0',
  "'",
  '\u2019',
  // Lone surrogates.
  '\uD800',
  '\uDC00',
];

/** Cuts `text` to its first `maxLength` code points (as JSON Schema counts `maxLength`). */
export function cutToCodePoints(text: string, maxLength: number): string {
  const chars = Array.from(text);
  return chars.length <= maxLength ? text : chars.slice(0, maxLength).join('');
}

/**
 * Hostile text of at most `maxLength` code points: hostile units in any order, a chunk repeated
 * many times, or a letter under a flood of combining marks.
 */
export function hostileText(options: { readonly maxLength: number; readonly minLength?: number }): fc.Arbitrary<string> {
  const { maxLength } = options;
  const minLength = options.minLength ?? 0;
  const unit = fc.constantFrom(...HOSTILE_UNITS);
  const mixed = fc.array(unit, { maxLength: Math.min(maxLength, 600) }).map((units) => units.join(''));
  const repeated = fc
    .tuple(fc.array(unit, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: maxLength }))
    .map(([chunk, times]) => chunk.join('').repeat(times));
  const flood = fc
    .tuple(fc.constantFrom('a', 'e', 'α', 'ا', '1'), fc.constantFrom('\u0301', '\u0308', '\u0345', '\u093F'), fc.integer({ min: 1, max: maxLength }))
    .map(([base, mark, times]) => base + mark.repeat(times));
  return fc
    .oneof(mixed, repeated, flood)
    .map((text) => cutToCodePoints(text, maxLength))
    .filter((text) => Array.from(text).length >= minLength);
}
