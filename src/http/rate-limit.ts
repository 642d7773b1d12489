/**
 * Token buckets keyed by a string (an API key's hash, a client address), in bounded memory.
 */

/** A rate: `requestsPerSecond` tokens per second, at most `burst` saved up. */
export interface RateLimit {
  readonly requestsPerSecond: number;
  /** Default: twice the rate (at least 1). */
  readonly burst?: number;
}

/** Token buckets: {@link RateLimiter.take} answers 0 when a request may pass, else the seconds to wait. */
export interface RateLimiter {
  take(key: string): number;
}

/** Default of {@link createRateLimiter}'s `maxKeys`. */
export const DEFAULT_MAX_RATE_KEYS = 10_000;

/** Whether `limit` is a usable rate (positive finite rate, burst ≥ 1 when given). */
export function isValidRateLimit(limit: RateLimit): boolean {
  const { requestsPerSecond, burst } = limit;
  return Number.isFinite(requestsPerSecond) && requestsPerSecond > 0 && (burst === undefined || (Number.isFinite(burst) && burst >= 1));
}

/**
 * Token buckets per key. At most `maxKeys` buckets are kept: past it, the bucket used least
 * recently is forgotten (it would be full again by the time it is needed, unless its key is
 * hammering — and a hammering key is used recently), so a client sending from ever new addresses
 * cannot grow the table.
 */
export function createRateLimiter(limit: RateLimit, now: () => number, maxKeys = DEFAULT_MAX_RATE_KEYS): RateLimiter {
  const rate = limit.requestsPerSecond;
  const burst = limit.burst ?? Math.max(1, 2 * rate);
  // Insertion order is recency order: a used bucket is deleted and set again.
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      const t = now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as string);
        bucket = { tokens: burst, at: t };
      } else {
        buckets.delete(key);
      }
      buckets.set(key, bucket);
      bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.at) / 1000) * rate);
      bucket.at = t;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
    },
  };
}
