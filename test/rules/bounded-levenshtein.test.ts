import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  boundLevenshteinSteps,
  boundPatternDistanceSteps,
  measureBoundedLevenshtein,
  measurePatternDistance,
  prepareLevenshteinPattern,
  toCodePoints,
  type CodePoints,
  type StepCounter,
} from '../../src/rules/bounded-levenshtein.js';
import { hostileText } from '../arbitraries/hostile-text.js';

/** Plain unbounded Levenshtein over code points, the textbook recurrence, as the oracle. */
function levenshtein(a: CodePoints, b: CodePoints): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

describe('measureBoundedLevenshtein', () => {
  const cases = [
    { name: 'identical strings are at distance 0', a: 'bomb', b: 'bomb', bound: 2, expected: 0 },
    { name: 'one substitution', a: 'bomb', b: 'bomp', bound: 2, expected: 1 },
    { name: 'kitten → sitting is 3', a: 'kitten', b: 'sitting', bound: 5, expected: 3 },
    { name: 'over the bound returns bound + 1', a: 'kitten', b: 'sitting', bound: 2, expected: 3 },
    { name: 'length difference over the bound exits early', a: 'a', b: 'abcdef', bound: 2, expected: 3 },
    { name: 'empty vs word is its length', a: '', b: 'abc', bound: 5, expected: 3 },
    { name: 'word vs empty is its length', a: 'abc', b: '', bound: 5, expected: 3 },
    { name: 'code points, not UTF-16 units', a: '😀a', b: '😁a', bound: 3, expected: 1 },
    { name: 'a 32-code-point pattern (one block, top bit)', a: `${'a'.repeat(31)}b`, b: 'a'.repeat(32), bound: 5, expected: 1 },
    { name: 'a 33-code-point pattern (two blocks)', a: `${'a'.repeat(32)}b`, b: 'a'.repeat(33), bound: 5, expected: 1 },
    { name: 'a difference in the second block only', a: `${'a'.repeat(40)}xyz`, b: `${'a'.repeat(40)}xzz`, bound: 5, expected: 1 },
    { name: 'a 64-code-point pattern (exactly two blocks)', a: 'ab'.repeat(32), b: 'ba'.repeat(32), bound: 64, expected: 2 },
    { name: 'a 65-code-point pattern (three blocks), all different', a: 'x'.repeat(65), b: 'y'.repeat(65), bound: 65, expected: 65 },
    { name: 'the shorter input is the pattern, in either order', a: 'a'.repeat(10), b: 'a'.repeat(100), bound: 100, expected: 90 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(measureBoundedLevenshtein(toCodePoints(c.a), toCodePoints(c.b), c.bound)).toBe(c.expected);
      expect(measureBoundedLevenshtein(toCodePoints(c.b), toCodePoints(c.a), c.bound)).toBe(c.expected);
    });
  }

  it('counts ⌈m/32⌉ block steps per text code point, plus the pattern', () => {
    const counter: StepCounter = { steps: 0 };
    measureBoundedLevenshtein(toCodePoints('x'.repeat(100)), toCodePoints('y'.repeat(70)), 100, counter);
    expect(counter.steps).toBe(70 + 3 * 100);
  });

  it('reads code points, so an astral character and a lone surrogate are one each', () => {
    expect(Array.from(toCodePoints('a\u{1F600}\uD800b'))).toEqual([0x61, 0x1f600, 0xd800, 0x62]);
  });

  it('counts one step when the lengths alone exceed the bound', () => {
    const counter: StepCounter = { steps: 0 };
    measureBoundedLevenshtein(toCodePoints('x'.repeat(300)), toCodePoints('y'.repeat(3)), 10, counter);
    expect(counter.steps).toBe(1);
  });
});

describe('measurePatternDistance', () => {
  it('measures against a pattern prepared once', () => {
    const pattern = prepareLevenshteinPattern(toCodePoints('weapons'));
    expect([measurePatternDistance(toCodePoints('wepons'), pattern, 2), measurePatternDistance(toCodePoints('wxpxnx'), pattern, 2)]).toEqual([1, 3]);
  });
});

describe('properties', () => {
  // Short words over a small alphabet meet often; long ones cross block boundaries (32, 64, 96).
  const word = fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é'), maxLength: 8 }),
    fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 40 }),
    fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 30, maxLength: 130 }),
  );

  test.prop([word, word, fc.nat({ max: 140 })], { numRuns: 400 })('the bounded distance equals min(distance, bound + 1)', (a, b, bound) => {
    const exact = levenshtein(toCodePoints(a), toCodePoints(b));
    expect(measureBoundedLevenshtein(toCodePoints(a), toCodePoints(b), bound)).toBe(Math.min(exact, bound + 1));
  });

  test.prop([hostileText({ maxLength: 300 }), hostileText({ maxLength: 300 }), fc.nat({ max: 300 })], { numRuns: 200 })(
    'the work never exceeds ⌈min/32⌉ · max block steps plus the pattern, whatever the text',
    (a, b, bound) => {
      const x = toCodePoints(a);
      const y = toCodePoints(b);
      const counter: StepCounter = { steps: 0 };
      const distance = measureBoundedLevenshtein(x, y, bound, counter);
      expect(counter.steps).toBeLessThanOrEqual(boundLevenshteinSteps(x.length, y.length));
      expect(distance).toBe(Math.min(levenshtein(x, y), bound + 1));
    },
  );

  // One-block patterns keep their code points in a small hash table: any code point, NUL to
  // U+10FFFF, up to 32 distinct ones, present or absent in the text.
  const anyCodePoints = fc.array(fc.oneof(fc.integer({ min: 0, max: 0x10ffff }), fc.integer({ min: 0, max: 40 })), { minLength: 1, maxLength: 32 });
  test.prop(
    [
      anyCodePoints.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.oneof(fc.constantFrom(...p), fc.integer({ min: 0, max: 0x10ffff })), { maxLength: 48 }))),
      fc.nat({ max: 48 }),
    ],
    { numRuns: 300 },
  )('a one-block pattern over any code points measures exactly', ([pattern, text], bound) => {
    expect(measurePatternDistance(text, prepareLevenshteinPattern(pattern), bound)).toBe(Math.min(levenshtein(text, pattern), bound + 1));
  });

  test.prop([hostileText({ maxLength: 100 }), hostileText({ maxLength: 400 }), fc.nat({ max: 100 })], { numRuns: 200 })(
    'a prepared pattern costs at most ⌈m/32⌉ block steps per text code point',
    (p, t, bound) => {
      const pattern = prepareLevenshteinPattern(toCodePoints(p));
      const text = toCodePoints(t);
      const counter: StepCounter = { steps: 0 };
      measurePatternDistance(text, pattern, bound, counter);
      expect(counter.steps).toBeLessThanOrEqual(boundPatternDistanceSteps(pattern.length, text.length));
    },
  );
});
