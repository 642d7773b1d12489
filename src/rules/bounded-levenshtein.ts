/**
 * Levenshtein distance over code points (insertion, deletion and substitution cost 1) whose cost
 * depends only on the lengths of its inputs, never on their content: Myers' bit-parallel
 * algorithm (Myers 1999, "A fast bit-vector algorithm for approximate string matching based on
 * dynamic programming"), in Hyyrö's global-distance form and his decomposition of longer patterns
 * into 32-bit blocks (Hyyrö 2003, "A bit-vector algorithm for computing Levenshtein and Damerau
 * edit distances"). A pattern of m code points against a text of n code points costs ⌈m/32⌉ · n
 * block steps, each a fixed handful of 32-bit operations; there is no quadratic fallback, whatever
 * the lengths.
 *
 * Rules that compare free text share this module; each bounds the lengths it passes
 * in, so the work of a check is a documented function of the transaction's size and the
 * instance's parameters.
 */

/**
 * Counts the work of a matcher, for tests and benchmarks that prove a bound on it. A matcher adds
 * to `steps`; pass a fresh object per measurement. Never a module-level counter: concurrent checks
 * must not share one.
 */
export interface StepCounter {
  steps: number;
}

/** Code points as numbers (`toCodePoints`); a lone surrogate is one code point, as in `Array.from`. */
export type CodePoints = ArrayLike<number>;

/** Pattern code points per block: one 32-bit word of JavaScript's bitwise operators. */
export const LEVENSHTEIN_BLOCK_SIZE = 32;

/** The code points of `text`, as numbers. */
export function toCodePoints(text: string): Int32Array {
  const out = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; n += 1) {
    const c = text.codePointAt(i) as number;
    out[n] = c;
    i += c > 0xffff ? 2 : 1;
  }
  return n === text.length ? out : out.slice(0, n);
}

/**
 * Slots of the table of a one-block pattern: twice its most distinct code points (32), so that
 * half the slots stay empty and a lookup ends within a few probes.
 */
const TABLE_SLOTS = 64;
const TABLE_SHIFT = 32 - Math.log2(TABLE_SLOTS);
/** Odd multipliers tried for the table's hash (Fibonacci hashing and other well-mixing constants). */
const MULTIPLIERS = [0x9e3779b1, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1, 0xd3a2646d, 0xfd7046c5, 0xb55a4f09].map((m) => m | 0);

/** A pattern prepared once for {@link measurePatternDistance}. */
export interface LevenshteinPattern {
  /** Code points of the pattern. */
  readonly length: number;
  /** ⌈length / 32⌉: the 32-bit blocks every text code point costs. */
  readonly blocks: number;
  /**
   * One block: an open-addressed table of its code points (key = code point + 1, 0 = empty) and
   * their masks, interleaved; `null` for several blocks.
   */
  readonly table: Int32Array | null;
  /** The hash multiplier of `table`, chosen to keep its longest probe sequence short. */
  readonly multiplier: number;
  /** Several blocks: per code point, bit i of block k set when it occurs at position 32k + i; `null` for one block. */
  readonly blockMasks: ReadonlyMap<number, Int32Array> | null;
}

/** The slot of `key` for a hash multiplier. */
function slotOf(key: number, multiplier: number): number {
  return Math.imul(key, multiplier) >>> TABLE_SHIFT;
}

/**
 * The one-block table of `masks` with the multiplier whose longest run of occupied slots is the
 * shortest: a lookup reads at most that many slots plus one.
 */
function buildTable(masks: ReadonlyMap<number, number>): { table: Int32Array; multiplier: number } {
  let best: { table: Int32Array; multiplier: number; longest: number } | null = null;
  for (const multiplier of MULTIPLIERS) {
    const table = new Int32Array(2 * TABLE_SLOTS);
    for (const [c, mask] of masks) {
      let h = slotOf(c + 1, multiplier);
      while (table[2 * h] !== 0) h = (h + 1) & (TABLE_SLOTS - 1);
      table[2 * h] = c + 1;
      table[2 * h + 1] = mask;
    }
    let longest = 0;
    let run = 0;
    // Twice round, so that a run wrapping past the last slot is measured whole.
    for (let i = 0; i < 2 * TABLE_SLOTS; i += 1) {
      run = table[2 * (i & (TABLE_SLOTS - 1))] === 0 ? 0 : run + 1;
      if (run > longest) longest = run;
    }
    if (best === null || longest < best.longest) best = { table, multiplier, longest };
    if (longest <= 2) break;
  }
  return best as { table: Int32Array; multiplier: number };
}

/**
 * Prepares `pattern` (code points) for {@link measurePatternDistance}. O(length) work and memory.
 *
 * @example
 * ```ts
 * const bomb = prepareLevenshteinPattern(toCodePoints('bomb'));
 * measurePatternDistance(toCodePoints('bomp'), bomb, 1); // 1
 * ```
 */
export function prepareLevenshteinPattern(pattern: CodePoints): LevenshteinPattern {
  const length = pattern.length;
  const blocks = Math.ceil(length / LEVENSHTEIN_BLOCK_SIZE);
  if (blocks <= 1) {
    const masks = new Map<number, number>();
    for (let i = 0; i < length; i += 1) {
      const c = pattern[i] as number;
      masks.set(c, (masks.get(c) ?? 0) | (1 << i));
    }
    const { table, multiplier } = buildTable(masks);
    return { length, blocks, table, multiplier, blockMasks: null };
  }
  const blockMasks = new Map<number, Int32Array>();
  for (let i = 0; i < length; i += 1) {
    const c = pattern[i] as number;
    let mask = blockMasks.get(c);
    if (mask === undefined) {
      mask = new Int32Array(blocks);
      blockMasks.set(c, mask);
    }
    const block = Math.floor(i / LEVENSHTEIN_BLOCK_SIZE);
    mask[block] = (mask[block] as number) | (1 << (i % LEVENSHTEIN_BLOCK_SIZE));
  }
  return { length, blocks, table: null, multiplier: 0, blockMasks };
}

/**
 * The work {@link measurePatternDistance} may do, in counter steps: ⌈m/32⌉ per text code point
 * (m = pattern length, n = text length), and 1 when it returns without reading the text.
 */
export function boundPatternDistanceSteps(patternLength: number, textLength: number): number {
  return Math.max(1, Math.ceil(patternLength / LEVENSHTEIN_BLOCK_SIZE) * textLength);
}

/**
 * Levenshtein distance from `text` to a prepared pattern, or `bound + 1` when it exceeds `bound`.
 * Returns at once when the lengths differ by more than `bound`; otherwise reads the text once,
 * ⌈m/32⌉ block steps per code point, and stops as soon as the distance can no longer come back
 * within `bound` (the last row changes by at most 1 per column). Adds the steps taken to `counter`
 * (at most {@link boundPatternDistanceSteps}).
 */
export function measurePatternDistance(text: CodePoints, pattern: LevenshteinPattern, bound: number, counter?: StepCounter): number {
  const m = pattern.length;
  const n = text.length;
  if (Math.abs(n - m) > bound || n === 0 || m === 0) {
    if (counter !== undefined) counter.steps += 1;
    return Math.abs(n - m) > bound ? bound + 1 : Math.max(n, m);
  }
  return pattern.table !== null ? measureOneBlock(text, pattern.table, pattern.multiplier, m, bound, counter) : measureBlocks(text, pattern, bound, counter);
}

/**
 * One 32-bit block (m ≤ 32): the row-0 boundary feeds +1 into every column. Adds one step per
 * text code point read to `counter`.
 */
function measureOneBlock(text: CodePoints, table: Int32Array, multiplier: number, m: number, bound: number, counter: StepCounter | undefined): number {
  const last = 1 << (m - 1);
  let pv = -1;
  let mv = 0;
  let score = m;
  const n = text.length;
  for (let j = 0; j < n; j += 1) {
    const key = (text[j] as number) + 1;
    let h = Math.imul(key, multiplier) >>> TABLE_SHIFT;
    let eq = 0;
    for (;;) {
      const k = table[2 * h] as number;
      if (k === key) {
        eq = table[2 * h + 1] as number;
        break;
      }
      if (k === 0) break;
      h = (h + 1) & (TABLE_SLOTS - 1);
    }
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
    if (score - (n - j - 1) > bound) {
      if (counter !== undefined) counter.steps += j + 1;
      return bound + 1;
    }
  }
  if (counter !== undefined) counter.steps += n;
  return score > bound ? bound + 1 : score;
}

/**
 * Several blocks, column by column: each block passes its bottom row's horizontal delta (+1, 0 or
 * −1) down to the next one (Hyyrö 2003, §4). Bits of the last block above row m belong to rows
 * that do not exist; carries and shifts only move information upwards, so they never reach row m.
 * Adds one step per block per text code point read to `counter`.
 */
function measureBlocks(text: CodePoints, pattern: LevenshteinPattern, bound: number, counter: StepCounter | undefined): number {
  const m = pattern.length;
  const blocks = pattern.blocks;
  const masks = pattern.blockMasks as ReadonlyMap<number, Int32Array>;
  const pvs = new Int32Array(blocks).fill(-1);
  const mvs = new Int32Array(blocks);
  const lastBlock = blocks - 1;
  const lastRow = 1 << ((m - 1) % LEVENSHTEIN_BLOCK_SIZE);
  const highBit = 1 << (LEVENSHTEIN_BLOCK_SIZE - 1);
  let score = m;
  const n = text.length;
  for (let j = 0; j < n; j += 1) {
    const eqs = masks.get(text[j] as number);
    // Row 0 is 0, 1, 2, …: every column enters the first block with +1.
    let hin = 1;
    for (let k = 0; k < blocks; k += 1) {
      const pv = pvs[k] as number;
      const mv = mvs[k] as number;
      let eq = eqs === undefined ? 0 : (eqs[k] as number);
      const xv = eq | mv;
      if (hin < 0) eq |= 1;
      const xh = (((eq & pv) + pv) ^ pv) | eq;
      let ph = mv | ~(xh | pv);
      let mh = pv & xh;
      const high = k === lastBlock ? lastRow : highBit;
      const hout = (ph & high) !== 0 ? 1 : (mh & high) !== 0 ? -1 : 0;
      ph <<= 1;
      mh <<= 1;
      if (hin < 0) mh |= 1;
      else if (hin > 0) ph |= 1;
      pvs[k] = mh | ~(xv | ph);
      mvs[k] = ph & xv;
      hin = hout;
    }
    score += hin;
    if (score - (n - j - 1) > bound) {
      if (counter !== undefined) counter.steps += blocks * (j + 1);
      return bound + 1;
    }
  }
  if (counter !== undefined) counter.steps += blocks * n;
  return score > bound ? bound + 1 : score;
}

/**
 * The work {@link measureBoundedLevenshtein} may do, in counter steps: preparing the shorter input
 * as the pattern (one step per code point) and ⌈shorter/32⌉ block steps per code point of the
 * longer one.
 */
export function boundLevenshteinSteps(aLength: number, bLength: number): number {
  const shorter = Math.min(aLength, bLength);
  return shorter + boundPatternDistanceSteps(shorter, Math.max(aLength, bLength));
}

/**
 * Levenshtein distance between `a` and `b` (code points), or `bound + 1` when it exceeds `bound`.
 * The shorter input becomes the pattern, so the work is at most {@link boundLevenshteinSteps}:
 * O(⌈min/32⌉ · max), whatever the text. Adds the steps taken to `counter`.
 *
 * @example
 * ```ts
 * measureBoundedLevenshtein(toCodePoints('kitten'), toCodePoints('sitting'), 5); // 3
 * measureBoundedLevenshtein(toCodePoints('kitten'), toCodePoints('sitting'), 2); // 3 (= bound + 1)
 * ```
 */
export function measureBoundedLevenshtein(a: CodePoints, b: CodePoints, bound: number, counter?: StepCounter): number {
  const [text, pattern] = a.length >= b.length ? [a, b] : [b, a];
  if (text.length - pattern.length > bound || pattern.length === 0) {
    if (counter !== undefined) counter.steps += 1;
    return text.length - pattern.length > bound ? bound + 1 : text.length;
  }
  if (counter !== undefined) counter.steps += pattern.length;
  return measurePatternDistance(text, prepareLevenshteinPattern(pattern), bound, counter);
}
