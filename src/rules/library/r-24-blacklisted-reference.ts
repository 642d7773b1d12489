import { Type, type Static } from '@sinclair/typebox';
import type { ErrorDetail } from '../../errors.js';
import { measurePatternDistance, prepareLevenshteinPattern, toCodePoints, type LevenshteinPattern, type StepCounter } from '../bounded-levenshtein.js';
import { defineRule } from '../define-rule.js';
import { listedEvidence } from '../kits/evidence.js';
import type { RuleHit } from '../types.js';

/** Max keywords of one instance. */
const MAX_KEYWORDS = 1000;
/** Max characters of one keyword as written (a word or a short phrase). */
const MAX_KEYWORD_LENGTH = 32;
/**
 * Max code points of a keyword after normalisation (NFKC, lower case, words joined by one space).
 * NFKC can expand one character into up to 18 (U+FDFA), so the written limit alone does not bound
 * it; with this one every keyword fits one 32-bit block of the bit-parallel distance and has at
 * most 16 words.
 */
export const MAX_NORMALIZED_KEYWORD_LENGTH = 32;
/**
 * Max words summed over the keywords matched fuzzily (those whose allowed distance is at least 1):
 * fuzzy matching of a keyword of w words reads the distinct runs of w words within its length
 * window, at most w passes over the screened reference, so this caps the fuzzy work of a check at
 * about this many passes. Any list of up to 1000 one-word keywords fits.
 */
export const MAX_FUZZY_KEYWORD_WORDS = 1000;
/**
 * Code points of the normalised reference that are screened. The schema caps the reference at
 * 4096 characters, but NFKC can make them up to 18 times longer; text past this limit is not
 * screened (a word cut by the limit neither), so the work of a check does not grow with the
 * expansion.
 */
export const MAX_SCREENED_REFERENCE_LENGTH = 8192;

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
        description: `A word, or a phrase of several words, matched case-insensitively against the words of the reference. At most ${MAX_KEYWORD_LENGTH} characters as written and at most ${MAX_NORMALIZED_KEYWORD_LENGTH} after NFKC normalisation and lower-casing (words joined by one space): a compatibility character such as U+FDFA, which NFKC expands to 18 characters, counts as what it expands to.`,
      }),
      {
        title: 'Blacklisted keywords',
        description: `Words or phrases that must not appear in the transaction reference. A phrase (several words) matches the same words in a row, whatever separates them. Each keyword has at most ${MAX_KEYWORD_LENGTH} characters as written and at most ${MAX_NORMALIZED_KEYWORD_LENGTH} after NFKC normalisation and lower-casing (U+FDFA alone becomes 18). With fuzzy matching, the keywords matched fuzzily may have at most ${MAX_FUZZY_KEYWORD_WORDS} words in all (a phrase of 3 words counts 3). Only the first ${MAX_SCREENED_REFERENCE_LENGTH} characters of the normalised reference are screened.`,
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
        description: `Fuzzy matching: a word matches a keyword when their Levenshtein distance is at most this percentage of the keyword length (in characters after normalisation, rounded down). Omit (or 0) for exact matching. A keyword whose allowed distance rounds down to 0 is matched exactly; the others count towards the limit of ${MAX_FUZZY_KEYWORD_WORDS} fuzzy keyword words.`,
      }),
    ),
  },
  { additionalProperties: false, title: 'R-24 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

/** Words: maximal runs of Unicode letters, combining marks and digits (`u` flag). */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const WORD_CHARACTER = /^[\p{L}\p{M}\p{N}]$/u;

/** Case- and width-folds a keyword and splits it into words (see {@link WORD}). */
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
  readonly length: number;
  /** Largest Levenshtein distance that still matches: ⌊length × percentage / 100⌋. */
  readonly bound: number;
  /** The prepared distance pattern, or `null` when `bound` is 0 (exact matching only). */
  readonly pattern: LevenshteinPattern | null;
}

interface Prepared {
  readonly keywords: readonly PreparedKeyword[];
  /** Distinct phrase lengths (in words) of the keywords, ascending. */
  readonly wordCounts: readonly number[];
  /** Phrase lengths of the keywords matched fuzzily. */
  readonly fuzzyWordCounts: ReadonlySet<number>;
}

/** Normalises one keyword; `null` when it has no word. */
function prepareKeyword(original: string, percentage: number): PreparedKeyword | null {
  const words = splitWords(original);
  if (words.length === 0) return null;
  const joined = words.join(' ');
  const chars = toCodePoints(joined);
  // Integer arithmetic: distance × 100 ≤ percentage × length ⇔ distance ≤ ⌊percentage × length / 100⌋.
  const bound = Math.floor((percentage * chars.length) / 100);
  return { original, wordCount: words.length, joined, length: chars.length, bound, pattern: bound > 0 ? prepareLevenshteinPattern(chars) : null };
}

const preparedCache = new WeakMap<object, Prepared>();

/** Normalises the keywords once per parameters object. */
function prepare(parameters: Parameters): Prepared {
  const cached = preparedCache.get(parameters);
  if (cached !== undefined) return cached;
  const percentage = parameters.allowedDistancePercentage ?? 0;
  const keywords: PreparedKeyword[] = [];
  const counts = new Set<number>();
  const fuzzyCounts = new Set<number>();
  for (const original of parameters.keywords) {
    const keyword = prepareKeyword(original, percentage);
    if (keyword === null) continue;
    keywords.push(keyword);
    counts.add(keyword.wordCount);
    if (keyword.pattern !== null) fuzzyCounts.add(keyword.wordCount);
  }
  const prepared: Prepared = { keywords, wordCounts: [...counts].sort((a, b) => a - b), fuzzyWordCounts: fuzzyCounts };
  preparedCache.set(parameters, prepared);
  return prepared;
}

/**
 * The limits the schema cannot express: each keyword at most {@link MAX_NORMALIZED_KEYWORD_LENGTH}
 * code points once normalised, and at most {@link MAX_FUZZY_KEYWORD_WORDS} words over the keywords
 * matched fuzzily. Paths are inside the parameters object.
 */
function validateParameters(parameters: Parameters): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const percentage = parameters.allowedDistancePercentage ?? 0;
  let fuzzyWords = 0;
  parameters.keywords.forEach((original, index) => {
    const keyword = prepareKeyword(original, percentage);
    if (keyword === null) return;
    if (keyword.length > MAX_NORMALIZED_KEYWORD_LENGTH) {
      details.push({
        path: `/keywords/${index}`,
        code: 'max-normalized-length',
        message: `must be at most ${MAX_NORMALIZED_KEYWORD_LENGTH} characters after NFKC normalisation and lower-casing (it has ${keyword.length})`,
      });
    } else if (keyword.pattern !== null) {
      fuzzyWords += keyword.wordCount;
    }
  });
  if (fuzzyWords > MAX_FUZZY_KEYWORD_WORDS) {
    details.push({
      path: '/keywords',
      code: 'max-fuzzy-words',
      message: `must have at most ${MAX_FUZZY_KEYWORD_WORDS} words in all over the keywords matched fuzzily (it has ${fuzzyWords} at allowedDistancePercentage ${percentage}): remove keywords or phrases, or lower the percentage`,
    });
  }
  return details;
}

/** The screened words of a reference and the code points they were taken from. */
interface ScreenedReference {
  readonly words: readonly string[];
  /** Code points of the normalised reference that were screened (≤ {@link MAX_SCREENED_REFERENCE_LENGTH}). */
  readonly length: number;
}

/**
 * Case- and width-folds the reference (NFKC, lower case) and splits its first
 * {@link MAX_SCREENED_REFERENCE_LENGTH} code points into words. A word that the limit cuts in two
 * is dropped: its head could match a keyword that the whole word does not (`bomb|ardment`).
 */
function screenReference(reference: string): ScreenedReference {
  const folded = reference.normalize('NFKC').toLowerCase();
  let end = 0;
  let length = 0;
  while (end < folded.length && length < MAX_SCREENED_REFERENCE_LENGTH) {
    end += (folded.codePointAt(end) as number) > 0xffff ? 2 : 1;
    length += 1;
  }
  if (end === folded.length) return { words: folded.match(WORD) ?? [], length };
  const screened = folded.slice(0, end);
  const words = screened.match(WORD) ?? [];
  const next = String.fromCodePoint(folded.codePointAt(end) as number);
  const previous = Array.from(screened.slice(-2)).pop() ?? '';
  if (WORD_CHARACTER.test(next) && WORD_CHARACTER.test(previous)) words.pop();
  return { words, length };
}

/** A distinct run of words of the reference, its code points computed once when first measured. */
interface Run {
  readonly text: string;
  chars: Int32Array | null;
}

interface RunsOfLength {
  /** Every distinct run of n words, joined by one space. */
  readonly texts: ReadonlySet<string>;
  /** The same runs by length in code points; only for phrase lengths some fuzzy keyword has. */
  readonly byLength: ReadonlyMap<number, readonly Run[]> | null;
}

/** The distinct runs of n consecutive words, for each phrase length n of the keywords. */
function collectRuns(words: readonly string[], prepared: Prepared, counter: StepCounter | undefined): Map<number, RunsOfLength> {
  const wordLengths = words.map((w) => Array.from(w).length);
  const runs = new Map<number, RunsOfLength>();
  for (const n of prepared.wordCounts) {
    const texts = new Set<string>();
    const byLength = prepared.fuzzyWordCounts.has(n) ? new Map<number, Run[]>() : null;
    let length = n - 1;
    for (let i = 0; i < n - 1 && i < words.length; i += 1) length += wordLengths[i] as number;
    for (let i = 0; i + n <= words.length; i += 1) {
      length += wordLengths[i + n - 1] as number;
      const text = words.slice(i, i + n).join(' ');
      if (counter !== undefined) counter.steps += length;
      if (!texts.has(text)) {
        texts.add(text);
        if (byLength !== null) {
          const bucket = byLength.get(length);
          if (bucket === undefined) byLength.set(length, [{ text, chars: null }]);
          else bucket.push({ text, chars: null });
        }
      }
      length -= wordLengths[i] as number;
    }
    runs.set(n, { texts, byLength });
  }
  return runs;
}

/** Whether a distinct run within the keyword's length window is within its distance bound. */
function matchesFuzzily(keyword: PreparedKeyword, runs: RunsOfLength, counter: StepCounter | undefined): boolean {
  const { pattern, bound, length } = keyword;
  if (pattern === null || runs.byLength === null) return false;
  // Runs whose length differs by more than the bound are farther than the bound: never read.
  for (let runLength = Math.max(1, length - bound); runLength <= length + bound; runLength += 1) {
    if (counter !== undefined) counter.steps += 1;
    const bucket = runs.byLength.get(runLength);
    if (bucket === undefined) continue;
    for (const run of bucket) {
      if (run.chars === null) {
        run.chars = toCodePoints(run.text);
        if (counter !== undefined) counter.steps += runLength;
      }
      if (measurePatternDistance(run.chars, pattern, bound, counter) <= bound) return true;
    }
  }
  return false;
}

/**
 * The first configured keyword (in list order) that a run of words of `reference` matches, or
 * `null` — R-24's matching, as a pure function (see {@link r24BlacklistedReference} for the
 * rules). Adds its work to `counter`: one step per screened code point, per code point of each
 * run of words it builds or reads, per keyword, per run length it probes and per block step of
 * the distance. Whatever the reference holds, the count is at most
 *
 *   (L + 1) · (1 + 2·Σ_{n ∈ N} n + Σ_{fuzzy k} ⌈|k|/32⌉ · words(k)) + Σ_k (2·bound(k) + 2)
 *
 * where L ≤ {@link MAX_SCREENED_REFERENCE_LENGTH} is the screened length, N the distinct phrase
 * lengths (in words) of the keywords, |k| a keyword's normalised length, words(k) its words and
 * bound(k) its allowed distance; a keyword is fuzzy when bound(k) ≥ 1. The distinct runs of n
 * words hold at most n · (L + 1) code points in all, and a keyword reads only those within its
 * length window. Parameters that pass validation have |k| ≤ 32 (so ⌈|k|/32⌉ = 1, N ⊆ 1..16 and
 * Σ n ≤ 136) and at most 1000 fuzzy keyword words, hence at most 8193 · 1273 + 1000 · 66 =
 * 10,495,689 steps. (⌈|k|/32⌉ > 1 only for an instance stored before the normalised-length limit:
 * its longer keywords are measured in several blocks, still linearly.)
 */
export function findBlacklistedKeyword(reference: string, parameters: Parameters, counter?: StepCounter): string | null {
  const prepared = prepare(parameters);
  if (prepared.keywords.length === 0) return null;
  const { words, length } = screenReference(reference);
  if (counter !== undefined) counter.steps += length;
  if (words.length === 0) return null;
  const runs = collectRuns(words, prepared, counter);
  for (const keyword of prepared.keywords) {
    if (counter !== undefined) counter.steps += 1;
    const ofLength = runs.get(keyword.wordCount);
    if (ofLength === undefined) continue;
    if (ofLength.texts.has(keyword.joined)) return keyword.original;
    if (matchesFuzzily(keyword, ofLength, counter)) return keyword.original;
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
 * - Only the first {@link MAX_SCREENED_REFERENCE_LENGTH} code points of the normalised reference are
 *   screened; a word cut by that limit is not. A reference within the schema's 4096 characters
 *   reaches the limit only when NFKC more than doubles it (ligatures such as U+FDFA, which expands
 *   to 18 characters).
 * - A keyword is split the same way; a keyword of n words (a phrase) matches n consecutive words of
 *   the reference, compared as the words joined by one space (`"dirty bomb"` matches
 *   `"Dirty-Bomb!"`). A keyword never matches part of a word (`gun` does not match `begun`).
 * - With `allowedDistancePercentage` p, a run matches when its Levenshtein distance (code points)
 *   to the keyword is at most ⌊p × keyword length / 100⌋; without it (or with a bound of 0), exactly.
 * - The description names the first matching keyword in list order, never the reference itself.
 *
 * Limits beyond the schema (checked when an instance is created or updated; `INVALID_PARAMETERS`
 * naming the keyword's path): a keyword is at most {@link MAX_NORMALIZED_KEYWORD_LENGTH} code points
 * once normalised, and the keywords matched fuzzily have at most {@link MAX_FUZZY_KEYWORD_WORDS}
 * words in all.
 *
 * Cost: exact matching is a set lookup per keyword over the distinct runs of each phrase length;
 * fuzzy matching measures a keyword only against distinct runs whose length is within its bound,
 * bit-parallel (Myers) in one 32-bit block step per code point, so a check does at most the work
 * {@link findBlacklistedKeyword} documents (about 10.5 million steps at the largest parameters the
 * limits allow), whatever the reference holds.
 */
export const r24BlacklistedReference = defineRule({
  id: 'R-24',
  name: 'Blacklisted Tx reference field',
  description: 'Transaction reference contains a blacklisted keyword.',
  descriptionTemplate: 'Transaction reference contains the blacklisted keyword {{keyword}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { keywords: ['taliban', 'isis', 'bomb', 'drugs', 'weapons', 'terror', 'gun', 'explosives'] },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Transaction reference'],
  types: ['Blacklist'],
  typologies: ['Terrorist financing', 'Illicit goods'],
  series: [],
  validateParameters,
  check({ transaction, parameters }): RuleHit[] {
    const reference = transaction.reference;
    if (reference === undefined || reference === '') return [];
    const keyword = findBlacklistedKeyword(reference, parameters);
    if (keyword === null) return [];
    const vars = { keyword };
    return [
      { direction: 'ORIGIN', vars, evidence: [listedEvidence('ORIGIN', 'keyword', keyword, 'keywords')] },
      { direction: 'DESTINATION', vars, evidence: [listedEvidence('DESTINATION', 'keyword', keyword, 'keywords')] },
    ];
  },
});
