/**
 * From a request target to a route: the base path, the `/t/<tenant>` prefix of signed file URLs,
 * and the route whose pattern the path matches, with its parameters percent-decoded.
 */
import { configurationError, notFound } from '../errors.js';
import type { Params, Route } from './routes.js';
import type { HttpTenant } from './types.js';

/** What a request target names: its URL, route, decoded parameters and, for a signed URL under `/t/<id>`, its tenant. */
export interface Located {
  readonly url: URL;
  readonly route: Route;
  readonly params: Params;
  readonly tenant: HttpTenant | null;
}

/** Where routes are looked up. */
export interface RouteTable {
  readonly routes: readonly Route[];
  /** Normalised by {@link normalizeBasePath}. */
  readonly basePath: string;
  /** The tenants whose signed URLs carry `/t/<id>` in front; `null` for a single-tenant handler (no prefix). */
  readonly prefixedTenants: readonly HttpTenant[] | null;
}

/**
 * A base path without trailing slashes (`''` for none).
 * @throws TxmonError `INVALID_CONFIGURATION` unless it starts with `/` and is a plain path.
 */
export function normalizeBasePath(basePath: string | undefined): string {
  const normalized = (basePath ?? '').replace(/\/+$/, '');
  if (normalized !== '' && !/^\/[A-Za-z0-9._~/-]*$/.test(normalized)) {
    throw configurationError('createHttpHandler', 'basePath must start with / and be a plain path');
  }
  return normalized;
}

function routeNotFound() {
  return notFound('ROUTE_NOT_FOUND', 'route');
}

/**
 * The route a request target names.
 * @throws TxmonError `ROUTE_NOT_FOUND` for a target outside the base path, an unknown tenant
 *   prefix, no matching route, a keyed route under a tenant prefix, or a signed route of a
 *   multi-tenant handler without one.
 */
export function locateRoute(target: string, table: RouteTable): Located {
  const url = parseTarget(target);
  const path = url === null ? null : stripBasePath(url.pathname, table.basePath);
  if (url === null || path === null) throw routeNotFound();
  let segments = path.split('/').slice(1);
  let tenant: HttpTenant | null = null;
  // Signed file URLs of a tenant carry `/t/<tenant>` in front (multi-tenant handlers).
  if (table.prefixedTenants !== null && segments[0] === 't' && segments.length >= 3) {
    tenant = table.prefixedTenants.find((t) => t.id === segments[1]) ?? null;
    if (tenant === null) throw routeNotFound();
    segments = segments.slice(2);
  }
  const found = findRoute(table.routes, segments);
  if (found === null) throw routeNotFound();
  const signed = found.route.access === 'signed-url';
  if ((tenant !== null && !signed) || (signed && table.prefixedTenants !== null && tenant === null)) throw routeNotFound();
  return { url, route: found.route, params: found.params, tenant };
}

/**
 * The URL of a request target, or `null` when it is not one. A path is resolved against a fixed
 * origin by concatenation: `//host/x` stays a path (a relative reference would read `host` as an
 * authority).
 */
export function parseTarget(target: string): URL | null {
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target);
  } catch {
    return null;
  }
}

/** The path below `basePath` (`/` for the base path itself), or `null` when the path is outside it. */
export function stripBasePath(path: string, basePath: string): string | null {
  if (basePath === '') return path;
  if (path !== basePath && !path.startsWith(`${basePath}/`)) return null;
  return path.slice(basePath.length) || '/';
}

/** The first route whose pattern matches `segments`, with its parameters; `null` when none does. */
export function findRoute(routes: readonly Route[], segments: readonly string[]): { route: Route; params: Params } | null {
  for (const route of routes) {
    const params = matchSegments(route.segments, segments);
    if (params !== null) return { route, params };
  }
  return null;
}

/**
 * Matches path segments against a pattern's (`{name}` matches one non-empty segment); returns the
 * percent-decoded parameters, or `null` when the path does not match or a parameter is not valid
 * percent-encoded UTF-8.
 */
export function matchSegments(pattern: readonly string[], segments: readonly string[]): Params | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = pattern[i] as string;
    const got = segments[i] as string;
    if (!want.startsWith('{')) {
      if (want !== got) return null;
      continue;
    }
    if (got === '') return null;
    try {
      params[want.slice(1, -1)] = decodeURIComponent(got);
    } catch {
      return null;
    }
  }
  return params;
}
