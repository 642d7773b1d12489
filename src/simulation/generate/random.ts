/**
 * The generator's only source of randomness: a seeded xoshiro128** stream (Blackman and Vigna's
 * 32-bit generator: four words of state, period 2^128 − 1, fast in plain JavaScript integers) with
 * the distributions the behaviour model draws from. Nothing here reads the clock or `Math.random`,
 * so the same seed gives the same draws on every run.
 *
 * Streams are independent per concern (`deriveSeed(seed, STREAM, index)`): each user draws its own
 * normal behaviour from its own stream, so turning a typology on or off does not change what an
 * uninvolved user does.
 */

/** A seeded pseudo-random source. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** A float in [min, max). */
  uniform(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty list, uniformly. */
  pick<T>(items: readonly T[]): T;
  /** A standard normal draw (mean 0, standard deviation 1). */
  normal(): number;
  /** A log-normal draw with the given median and log-space standard deviation. */
  logNormal(median: number, sigma: number): number;
  /** An exponential draw with the given mean. */
  exponential(mean: number): number;
  /** A Poisson count with the given mean (0 for a mean ≤ 0). */
  poisson(mean: number): number;
}

/** Stream families: the first part of a derived seed, so that two families never share a stream. */
export const STREAMS = Object.freeze({
  population: 1,
  user: 2,
  scheme: 3,
  plan: 4,
  identifiers: 5,
});

/** A 32-bit avalanche mix (every input bit flips about half of the output bits). */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A 32-bit seed from several non-negative integers (each up to 2^53): the seed of one stream.
 * @example deriveSeed(42, STREAMS.user, 17) // the stream of user 17 under seed 42
 */
export function deriveSeed(...parts: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    // Both halves of a 53-bit integer take part, so seeds above 2^32 still differ.
    const high = Math.floor(part / 0x1_0000_0000);
    h = mix32(h ^ mix32(part >>> 0));
    h = mix32(h ^ mix32(high + 0x632be5ab));
  }
  return h;
}

/** Creates the stream of a 32-bit seed (from {@link deriveSeed}). */
export function createRandom(seed: number): Random {
  // The four state words come from a splitmix-style counter over the seed, which never yields an
  // all-zero state (the one state xoshiro cannot leave).
  let counter = seed >>> 0;
  const word = () => {
    counter = (counter + 0x9e3779b9) >>> 0;
    return mix32(counter) || 1;
  };
  let s0 = word();
  let s1 = word();
  let s2 = word();
  let s3 = word();
  const nextWord = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };
  const next = () => nextWord() / 0x1_0000_0000;
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    uniform: (min, max) => min + next() * (max - min),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    normal() {
      // Box–Muller; 1 − u keeps the logarithm's argument in (0, 1].
      const u = 1 - next();
      const v = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    logNormal: (median, sigma) => median * Math.exp(sigma * random.normal()),
    exponential: (mean) => -mean * Math.log(1 - next()),
    poisson(mean) {
      if (mean <= 0) return 0;
      if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * random.normal()));
      // Knuth's product of uniforms: exact, and cheap for the small means of daily counts.
      const limit = Math.exp(-mean);
      let count = 0;
      let product = next();
      while (product > limit) {
        count += 1;
        product *= next();
      }
      return count;
    },
  };
  return random;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/**
 * A sampler of one of `items` with probability proportional to its weight (cumulative table and a
 * binary search: O(log n) per draw).
 */
export function createWeightedPicker<T>(items: readonly T[], weights: readonly number[]): (random: Random) => T {
  if (items.length === 0 || items.length !== weights.length) throw new RangeError('createWeightedPicker needs one weight per item');
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += w;
    cumulative.push(total);
  }
  return (random) => {
    const target = random.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] as number) > target) hi = mid;
      else lo = mid + 1;
    }
    return items[lo] as T;
  };
}

/** A Fisher–Yates shuffle of a copy of `items`. */
export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    const tmp = out[i] as T;
    out[i] = out[j] as T;
    out[j] = tmp;
  }
  return out;
}
