/**
 * Token buckets keyed by a string (an API key's hash, a client address), in bounded memory, and
 * the two limits of an HTTP handler built on them: per API key, and per client address for
 * requests without valid credentials.
 */
import { configurationError, TxmonError } from '../errors.js';
import { withResponseHeaders } from './problem.js';

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

/** Default of `HttpHandlerOptions.unauthenticatedRateLimit`: 10 per second, burst 50. */
export const DEFAULT_UNAUTHENTICATED_RATE_LIMIT: RateLimit = Object.freeze({ requestsPerSecond: 10, burst: 50 });

/** The rate limits of an HTTP handler. Each check throws `RATE_LIMITED` (429, with `Retry-After`) when no token is left. */
export interface RequestLimits {
  /** Whether requests are limited per API key. */
  readonly perKey: boolean;
  /** Takes a token of an API key's bucket (its digest). */
  forKey(bucket: string): void;
  /** Takes a token of a client address's bucket of requests without valid credentials (or to an open route). */
  forAddress(address: string | undefined): void;
}

/**
 * The rate limits of a handler's options: `rateLimit` per API key (none by default) and
 * `unauthenticatedRateLimit` per client address ({@link DEFAULT_UNAUTHENTICATED_RATE_LIMIT} by
 * default; `null` for none).
 * @throws TxmonError `INVALID_CONFIGURATION` for a rate that is not positive or a burst below 1.
 */
export function createRequestLimits(
  options: { readonly rateLimit?: RateLimit | null | undefined; readonly unauthenticatedRateLimit?: RateLimit | null | undefined },
  now: () => number,
): RequestLimits {
  const perKey = options.rateLimit;
  if (perKey && !isValidRateLimit(perKey)) {
    throw configurationError('createHttpHandler', 'rateLimit.requestsPerSecond must be > 0 and burst ≥ 1');
  }
  const perAddress = options.unauthenticatedRateLimit === undefined ? DEFAULT_UNAUTHENTICATED_RATE_LIMIT : options.unauthenticatedRateLimit;
  if (perAddress && !isValidRateLimit(perAddress)) {
    throw configurationError('createHttpHandler', 'unauthenticatedRateLimit.requestsPerSecond must be > 0 and burst ≥ 1');
  }
  const keys = perKey ? createRateLimiter(perKey, now) : null;
  const addresses = perAddress ? createRateLimiter(perAddress, now) : null;
  return {
    perKey: keys !== null,
    forKey(bucket) {
      const wait = keys === null ? 0 : keys.take(bucket);
      if (wait > 0) throw tooManyRequests(wait, 'Too many requests for this API key');
    },
    forAddress(address) {
      const wait = addresses === null ? 0 : addresses.take(address ?? '');
      if (wait > 0) throw tooManyRequests(wait, 'Too many requests without valid credentials from this address');
    },
  };
}

function tooManyRequests(waitSeconds: number, message: string): TxmonError {
  return withResponseHeaders(new TxmonError('RATE_LIMITED', message), { 'retry-after': String(waitSeconds) });
}
