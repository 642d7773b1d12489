import { Type, type Static } from '@sinclair/typebox';
import type { RuleDefinition, RuleHit } from '../types.js';

/** Max keywords of one instance; with the 4096-character reference this bounds the work of a check. */
const MAX_KEYWORDS = 1000;
/** Max characters of one keyword (a word or a short phrase). */
const MAX_KEYWORD_LENGTH = 32;
/** Patterns up to this many code points use the bit-parallel distance (one 32-bit word). */
const BIT_PARALLEL_MAX = 32;

const ParametersSchema = Type.Object(
  {
    keywords: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: MAX_KEYWORD_LENGTH,
        // At least one letter or digit: a keyword made only of separators would contain no word.
        pattern: '[\\p{L}\\p{N}]',
        'x-pattern-message': 'must contain at least one letter or digit',
        title: 'Keyword',
        description: 'A word, or a phrase of several words, matched case-insensitively against the words of the reference.',
      }),
      {
        title: 'Blacklisted keywords',
        description:
          'Words or phrases that must not appear in the transaction reference. A phrase (several words) matches the same words in a row, whatever separates them.',
        minItems: 1,
        maxItems: MAX_KEYWORDS,
        uniqueItems: true,
      },
    ),
    allowedDistancePercentage: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        title: 'Allowed distance (%)',
        description:
          'Fuzzy matching: a word matches a keyword when their Levenshtein distance is at most this percentage of the keyword length (in characters). Omit (or 0) for exact matching.',
      }),
    ),
  },
  { additionalProperties: false, title: 'R-24 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

/** Words: maximal runs of Unicode letters, combining marks and digits (`u` flag). */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Case- and width-folds text and splits it into words (see {@link WORD}). */
function splitWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

interface PreparedKeyword {
  /** The keyword as configured (shown in the description). */
  readonly original: string;
  /** Number of words of the keyword (1 for a single word, more for a phrase). */
  readonly wordCount: number;
  /** Its words joined by one space. */
  readonly joined: string;
  /** Code points of `joined`. */
  readonly chars: readonly string[];
  /** Largest Levenshtein distance that still matches: ⌊length × percentage / 100⌋. */
  readonly bound: number;
  /** Bit masks for the bit-parallel distance, or `null` when the keyword is longer than 32 code points. */
  readonly masks: ReadonlyMap<string, number> | null;
}

interface Prepared {
  readonly keywords: readonly PreparedKeyword[];
  /** Distinct phrase lengths (in words) of the keywords, ascending. */
  readonly wordCounts: readonly number[];
}

const preparedCache = new WeakMap<object, Prepared>();

/** Normalises the keywords once per parameters object. */
function prepare(parameters: Parameters): Prepared {
  const cached = preparedCache.get(parameters);
  if (cached !== undefined) return cached;
  const percentage = parameters.allowedDistancePercentage ?? 0;
  const keywords: PreparedKeyword[] = [];
  const counts = new Set<number>();
  for (const original of parameters.keywords) {
    const words = splitWords(original);
    if (words.length === 0) continue;
    const joined = words.join(' ');
    const chars = Array.from(joined);
    // Integer arithmetic: distance × 100 ≤ percentage × length ⇔ distance ≤ ⌊percentage × length / 100⌋.
    const keyword: PreparedKeyword = {
      original,
      wordCount: words.length,
      joined,
      chars,
      bound: Math.floor((percentage * chars.length) / 100),
      masks: chars.length <= BIT_PARALLEL_MAX ? createPatternMasks(chars) : null,
    };
    keywords.push(keyword);
    counts.add(words.length);
  }
  const prepared: Prepared = {
    keywords,
    wordCounts: [...counts].sort((a, b) => a - b),
  };
  preparedCache.set(parameters, prepared);
  return prepared;
}

/** Per code point of `pattern`, the bit mask of the positions where it occurs. */
function createPatternMasks(pattern: readonly string[]): ReadonlyMap<string, number> {
  const masks = new Map<string, number>();
  pattern.forEach((c, i) => masks.set(c, (masks.get(c) ?? 0) | (1 << i)));
  return masks;
}

/**
 * Bit-parallel Levenshtein distance (Myers 1999, in Hyyrö's global-distance form) of `text` to a
 * pattern of 1..32 code points given by its masks: O(|text|) word operations. Stops once the
 * distance can no longer come back within `bound` (the last row changes by at most 1 per column).
 */
function measureBitParallel(text: readonly string[], masks: ReadonlyMap<string, number>, patternLength: number, bound: number): number {
  const last = 1 << (patternLength - 1);
  let pv = -1;
  let mv = 0;
  let score = patternLength;
  const n = text.length;
  for (let j = 0; j < n; j += 1) {
    const eq = masks.get(text[j] as string) ?? 0;
    const xv = eq | mv;
    // ToInt32 of the sum keeps it modulo 2^32, which is all the algorithm needs.
    const xh = (((eq & pv) + pv) ^ pv) | eq;
    let ph = mv | ~(xh | pv);
    let mh = pv & xh;
    if ((ph & last) !== 0) score += 1;
    else if ((mh & last) !== 0) score -= 1;
    ph = (ph << 1) | 1;
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
    if (score - (n - j - 1) > bound) return bound + 1;
  }
  return score > bound ? bound + 1 : score;
}

/** Two-row dynamic programme, for patterns longer than {@link BIT_PARALLEL_MAX}; exits when a whole row exceeds the bound. */
function measureByRows(a: readonly string[], b: readonly string[], bound: number): number {
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j += 1) previous[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    let rowMin = i;
    const ca = a[i - 1];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (ca === b[j - 1] ? 0 : 1);
      const deletion = (previous[j] as number) + 1;
      const insertion = (current[j - 1] as number) + 1;
      const value = Math.min(substitution, deletion, insertion);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    // Every later cell descends from this row, so the distance is at least its minimum.
    if (rowMin > bound) return bound + 1;
    [previous, current] = [current, previous];
  }
  const distance = previous[b.length] as number;
  return distance > bound ? bound + 1 : distance;
}

/**
 * Levenshtein distance between `a` and `b` (arrays of code points; insertion, deletion and
 * substitution cost 1), or `bound + 1` when it exceeds `bound`. Exits at once when the lengths
 * differ by more than the bound; a `b` of at most 32 code points is measured bit-parallel in
 * O(|a|), a longer one by the O(|a|·|b|) two-row recurrence with an early exit.
 */
export function measureBoundedLevenshtein(a: readonly string[], b: readonly string[], bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  if (a.length === 0 || b.length === 0) return Math.max(a.length, b.length);
  if (b.length <= BIT_PARALLEL_MAX) return measureBitParallel(a, createPatternMasks(b), b.length, bound);
  return measureByRows(a, b, bound);
}

/** {@link measureBoundedLevenshtein} against a prepared keyword (masks built once). */
function measureToKeyword(run: readonly string[], keyword: PreparedKeyword): number {
  const { chars, bound, masks } = keyword;
  if (Math.abs(run.length - chars.length) > bound) return bound + 1;
  if (run.length === 0) return chars.length;
  return masks === null ? measureByRows(run, chars, bound) : measureBitParallel(run, masks, chars.length, bound);
}

/** The first configured keyword (in list order) that some run of reference words matches, or `null`. */
function findKeyword(reference: string, prepared: Prepared): PreparedKeyword | null {
  const words = splitWords(reference);
  if (words.length === 0 || prepared.keywords.length === 0) return null;
  // Distinct runs of n words, for each phrase length n the keywords use.
  const runs = new Map<number, Set<string>>();
  for (const n of prepared.wordCounts) {
    const set = new Set<string>();
    for (let i = 0; i + n <= words.length; i += 1) set.add(words.slice(i, i + n).join(' '));
    runs.set(n, set);
  }
  const runChars = new Map<string, readonly string[]>();
  for (const keyword of prepared.keywords) {
    const set = runs.get(keyword.wordCount);
    if (set === undefined) continue;
    if (set.has(keyword.joined)) return keyword;
    if (keyword.bound === 0) continue;
    for (const run of set) {
      let chars = runChars.get(run);
      if (chars === undefined) {
        chars = Array.from(run);
        runChars.set(run, chars);
      }
      if (measureToKeyword(chars, keyword) <= keyword.bound) return keyword;
    }
  }
  return null;
}

/**
 * R-24 Blacklisted Tx reference field: a word (or run of words, for a phrase keyword) of
 * `transaction.reference` matches a blacklisted keyword — the free-text screening for terrorist
 * financing and illicit-goods indicators (FATF Recommendation 5 / 6 typologies). Hits both sides.
 *
 * Matching, precisely:
 * - Text is NFKC-normalised and lower-cased (locale-independent), then split into words: maximal
 *   runs of Unicode letters, combining marks and digits; everything else separates words.
 * - A keyword is split the same way; a keyword of n words (a phrase) matches n consecutive words of
 *   the reference, compared as the words joined by one space (`"dirty bomb"` matches
 *   `"Dirty-Bomb!"`). A keyword never matches part of a word (`gun` does not match `begun`).
 * - With `allowedDistancePercentage` p, a run matches when its Levenshtein distance (code points)
 *   to the keyword is at most ⌊p × keyword length / 100⌋; without it (or with a bound of 0), exactly.
 * - The description names the first matching keyword in list order, never the reference itself.
 *
 * Cost: the reference is at most 4096 characters; at most 1000 keywords of ≤ 32 characters are
 * allowed. Exact matching is a set lookup per keyword; fuzzy matching measures each (distinct run,
 * keyword) pair whose lengths differ by at most the bound, bit-parallel in O(run length) (Myers),
 * so a check does at most about 1000 × 4096 word operations per phrase length.
 */
export const r24BlacklistedReference: RuleDefinition<Parameters> = {
  id: 'R-24',
  name: 'Blacklisted Tx reference field',
  description: 'Transaction reference contains a blacklisted keyword.',
  descriptionTemplate: 'Transaction reference contains the blacklisted keyword {{keyword}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { keywords: ['taliban', 'isis', 'bomb', 'drugs', 'weapons', 'terror', 'gun', 'explosives'] },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction reference'],
  types: ['Blacklist'],
  typologies: ['Terrorist financing', 'Illicit goods'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const reference = transaction.reference;
    if (reference === undefined || reference === '') return [];
    const keyword = findKeyword(reference, prepare(parameters));
    if (keyword === null) return [];
    const vars = { keyword: keyword.original };
    return [
      { direction: 'ORIGIN', vars },
      { direction: 'DESTINATION', vars },
    ];
  },
};
