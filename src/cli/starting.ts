/**
 * What `txmon serve` answers between listening and having its stores open: it listens first (so a
 * load balancer's probes and early clients are answered, never refused or crashed), and until it is
 * ready every request gets a 503 `NOT_READY` with `Retry-After` — but `/healthz` (the process is
 * alive: 200) and `/readyz` (not ready yet: 503, saying what opening is doing).
 */
import { TxmonError } from '../errors.js';
import { errorResponse, RETRY_AFTER_SECONDS } from '../http/problem.js';
import type { Readiness } from '../http/readiness.js';
import type { CoreRequest, CoreResponse } from '../http/types.js';

/** The core that answers while starting; `detail()` says what opening is doing. */
export function startingCore(basePath: string, detail: () => string): (request: CoreRequest) => Promise<CoreResponse> {
  const json = { 'content-type': 'application/json' };
  return async (request) => {
    const path = new URL(request.url, 'http://localhost').pathname;
    const route = path.startsWith(basePath) ? path.slice(basePath.length) : path;
    const method = request.method.toUpperCase();
    if ((method === 'GET' || method === 'HEAD') && route === '/healthz') {
      return { status: 200, headers: json, body: method === 'HEAD' ? null : JSON.stringify({ status: 'ok' }) };
    }
    if ((method === 'GET' || method === 'HEAD') && route === '/readyz') {
      const body: Readiness = { status: 'starting', checks: [{ check: 'store', status: 'starting', detail: detail() }] };
      return { status: 503, headers: { ...json, 'retry-after': String(RETRY_AFTER_SECONDS) }, body: method === 'HEAD' ? null : JSON.stringify(body) };
    }
    return errorResponse(new TxmonError('NOT_READY', 'The server is starting: its store is not open yet; try again'), method);
  };
}
