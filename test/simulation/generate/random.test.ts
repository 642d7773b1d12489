import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { STREAMS, createRandom, createWeightedPicker, deriveSeed, shuffled } from '../../../src/simulation/generate/random.js';

const draws = (seed: number, n: number) => {
  const random = createRandom(seed);
  return Array.from({ length: n }, () => random.next());
};

describe('createRandom', () => {
  it('gives the same draws for the same seed and different ones for another', () => {
    expect(draws(42, 50)).toEqual(draws(42, 50));
    expect(draws(42, 50)).not.toEqual(draws(43, 50));
  });

  it('keeps int within its inclusive bounds and reaches both of them', () => {
    const random = createRandom(7);
    const seen = new Set(Array.from({ length: 2000 }, () => random.int(3, 6)));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('draws Poisson counts whose mean is near the asked one (fixed seed)', () => {
    const random = createRandom(11);
    for (const mean of [0.05, 0.6, 4, 50]) {
      const n = 20_000;
      let sum = 0;
      for (let i = 0; i < n; i++) sum += random.poisson(mean);
      expect(sum / n).toBeGreaterThan(mean * 0.9);
      expect(sum / n).toBeLessThan(mean * 1.1 + 0.01);
    }
    expect(random.poisson(0)).toBe(0);
  });

  it('draws log-normal values around their median (fixed seed)', () => {
    const random = createRandom(5);
    const values = Array.from({ length: 10_001 }, () => random.logNormal(30, 0.9)).sort((a, b) => a - b);
    expect(values[5000]).toBeGreaterThan(27);
    expect(values[5000]).toBeLessThan(33);
  });
});

describe('deriveSeed', () => {
  it('separates streams by family and index, and seeds beyond 2^32', () => {
    const seeds = new Set([
      deriveSeed(1, STREAMS.user, 0),
      deriveSeed(1, STREAMS.user, 1),
      deriveSeed(1, STREAMS.scheme, 0),
      deriveSeed(2, STREAMS.user, 0),
      deriveSeed(2 ** 32 + 1, STREAMS.user, 0),
    ]);
    expect(seeds.size).toBe(5);
  });
});

describe('createWeightedPicker', () => {
  it('never picks a zero-weight item and picks the others in proportion (fixed seed)', () => {
    const pick = createWeightedPicker(['a', 'b', 'c'], [1, 0, 3]);
    const random = createRandom(3);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 8000; i++) counts[pick(random) as 'a' | 'b' | 'c'] += 1;
    expect(counts.b).toBe(0);
    expect(counts.c / counts.a).toBeGreaterThan(2.6);
    expect(counts.c / counts.a).toBeLessThan(3.4);
  });

  it('refuses weights that do not match the items', () => {
    expect(() => createWeightedPicker(['a'], [1, 2])).toThrow(RangeError);
  });
});

describe('properties', () => {
  test.prop([fc.nat(), fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 100 })])('int stays within [min, max] for any seed', (seed, min, width) => {
    const random = createRandom(seed);
    for (let i = 0; i < 20; i++) {
      const v = random.int(min, min + width);
      expect(v).toBeGreaterThanOrEqual(min);
      expect(v).toBeLessThanOrEqual(min + width);
      expect(Number.isInteger(v)).toBe(true);
    }
  });

  test.prop([fc.nat(), fc.array(fc.integer(), { maxLength: 30 })])('shuffled is a permutation', (seed, items) => {
    expect(shuffled(createRandom(seed), items).sort((a, b) => a - b)).toEqual([...items].sort((a, b) => a - b));
  });
});
