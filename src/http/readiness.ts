/**
 * `GET /readyz`: whether each tenant's store answers one round trip within a short timeout. A
 * liveness check (`/healthz`) says the process runs; this one says it can serve — a load balancer
 * stops sending to a server whose database is away, and sends again once it answers.
 */
import type { ReadinessBody } from '../domain/schemas/responses.js';
import { isTxmonError } from '../errors.js';
import type { HttpTenant } from './types.js';

/** Default of `HttpHandlerOptions.readinessTimeoutMs`. */
export const DEFAULT_READINESS_TIMEOUT_MS = 2_000;

/**
 * The body of `GET /readyz`: 200 when `ready`, else 503 with `Retry-After`; each check says which
 * store (`tenant`, when the server has several) is `ok`, `failing` (with the `code` it failed with:
 * `STORE_UNAVAILABLE`, `STORE_TIMEOUT`) or `starting` (with what opening is doing in `detail`).
 */
export type Readiness = ReadinessBody;
/** One check of a {@link Readiness}. */
export type ReadinessCheck = ReadinessBody['checks'][number];

/** `promise`, or `null` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The readiness of `tenants`' stores, each asked at once, each bounded by `timeoutMs`. */
export function createReadinessCheck(tenants: readonly HttpTenant[], timeoutMs: number): () => Promise<Readiness> {
  const named = tenants.length > 1;
  return async () => {
    const checks = await Promise.all(
      tenants.map(async (tenant): Promise<ReadinessCheck> => {
        const base = named ? { check: 'store' as const, tenant: tenant.id } : { check: 'store' as const };
        try {
          const answered = await within(
            tenant.engine.checkStore().then(() => true),
            timeoutMs,
          );
          return answered === null ? { ...base, status: 'failing', code: 'STORE_TIMEOUT' } : { ...base, status: 'ok' };
        } catch (error) {
          return { ...base, status: 'failing', code: isTxmonError(error) ? error.code : 'STORE_UNAVAILABLE' };
        }
      }),
    );
    return { status: checks.every((c) => c.status === 'ok') ? 'ready' : 'not-ready', checks };
  };
}
