/**
 * Fixtures of the HTTP tests: engines with their own URL-signing secret, and a fetch-style client.
 */
import type { HttpHandler } from '../../src/http/index.js';
import { createEngine, type Engine } from '../../src/index.js';
import { fixedClock, sequentialIds } from '../helpers.js';

export const ORIGIN = 'http://txmon.test';

let secrets = 0;

/** An engine with a fixed clock, sequential ids and a URL-signing secret of its own. */
export function httpTestEngine(): Engine {
  secrets += 1;
  return createEngine({ clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(secrets) });
}

/** Options of a call: `key` (`null`: none; default the caller's key), a JSON `body` or a `raw` one, its content `type`. */
export interface CallOptions {
  key?: string | null;
  body?: unknown;
  raw?: string;
  type?: string;
}

/** A client sending requests to a handler with `defaultKey` unless a call says otherwise. */
export function createCaller(defaultKey: string) {
  return (handler: HttpHandler, method: string, path: string, options: CallOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    const key = options.key === undefined ? defaultKey : options.key;
    if (key !== null) headers['x-api-key'] = key;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = options.type ?? 'application/json';
    return handler(new Request(`${ORIGIN}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
  };
}

/** The JSON body of a response. */
export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}
