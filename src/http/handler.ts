/**
 * The HTTP API (docs/wire-format.md) as a WHATWG fetch handler: `(Request) => Promise<Response>`,
 * composed of the route table (routes.ts), path matching (match.ts), API-key authentication
 * (auth.ts), rate limits (rate-limit.ts), bodies (body.ts) and error responses (problem.ts).
 *
 * Every tenant has its own engine, so no route can reach another tenant's data.
 */
import { randomBytes } from 'node:crypto';
import type { Engine } from '../engine/create-engine.js';
import { SYSTEM_ACTOR } from '../engine/services/audit.js';
import { configurationError, isTxmonError, TxmonError } from '../errors.js';
import { createAdmission } from './admission.js';
import { createAuthenticator, keyOf, tenantsOf, type Authenticated } from './auth.js';
import { faultOf } from './fault.js';
import { createReadinessCheck, DEFAULT_READINESS_TIMEOUT_MS } from './readiness.js';
import { declaredLength, readJsonBody, readLimited, streamLimited } from './body.js';
import { locateRoute, normalizeBasePath, type Located } from './match.js';
import { createOpenApiDocument } from './openapi.js';
import { errorCodeOf, errorResponse, withResponseHeaders } from './problem.js';
import { createRequestLimits } from './rate-limit.js';
import { actionOf, allowOf, createRoutes, responseOf, type ActionContext } from './routes.js';
import {
  HANDLER_CORE,
  type CoreRequest,
  type CoreResponse,
  type HttpHandler,
  type HttpHandlerOptions,
  type HttpTenant,
  type MetricsEndpoint,
  type RequestLogEntry,
  type TxmonHttpHandler,
} from './types.js';

const DEFAULT_MAX_BODY = 1024 * 1024;
/** Default batch body limit: 10,000 transactions of a few kilobytes each. */
const DEFAULT_MAX_BATCH_BODY = 64 * 1024 * 1024;
const DEFAULT_MAX_UPLOAD = 100_000_000;

/** What the request log learns of a request as it is served. */
interface Seen {
  /** `performance.now()` at arrival. */
  readonly started: number;
  readonly requestId: string;
  route: string;
  tenant: string | null;
}

/** The routes a handler serving only metrics (`serves: 'metrics'`) keeps. */
const METRICS_PORT_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Request ids: a random prefix per handler and a counter, `3f9a1c2e-1`, `3f9a1c2e-2`, … — unique
 * across processes in practice, and nothing to compute per request but a number's text.
 */
function createRequestIds(): () => string {
  const prefix = `${randomBytes(4).toString('hex')}-`;
  let counter = 0;
  return () => prefix + (++counter).toString(36);
}

/**
 * The reader of `/metrics` a request's key names: `null` for a metrics key, else the tenant of an
 * API key. The key comes as `Authorization: Bearer <key>` or as `x-api-key`.
 * @throws TxmonError `UNAUTHORIZED` when neither kind of key is valid.
 */
function createMetricsReaders(
  metrics: MetricsEndpoint | undefined,
  tenants: readonly HttpTenant[],
  authenticate: (request: CoreRequest) => Authenticated,
): (request: CoreRequest) => string | null {
  const keys = metrics?.keys ?? [];
  const apiKeys = new Set(tenants.flatMap((tenant) => tenant.apiKeys.map(keyOf)));
  for (const key of keys) {
    if (apiKeys.has(key)) throw configurationError('createHttpHandler', 'a metrics key must not be an API key');
  }
  // The metrics keys are checked as the keys of a tenant of their own (hashes, constant time).
  const metricsKeys =
    keys.length === 0 ? null : createAuthenticator(tenantsOf({ tenants: [{ id: 'metrics', apiKeys: keys, engine: undefined as never }] }), false);
  return (request) => {
    const bearer = /^Bearer +([\x21-\x7e]+)$/i.exec(request.header('authorization') ?? '')?.[1];
    const key = bearer ?? request.header('x-api-key');
    const asKey: CoreRequest = bearer === undefined ? request : { ...request, header: (name) => (name === 'x-api-key' ? (key ?? null) : request.header(name)) };
    if (metricsKeys !== null && key !== null && key !== '') {
      try {
        metricsKeys(asKey);
        return null;
      } catch {
        // Not a metrics key: perhaps an API key.
      }
    }
    return authenticate(asKey).tenant.id;
  };
}

/**
 * Creates the HTTP handler of the API (docs/wire-format.md) over one engine (single tenant) or
 * several (one per tenant).
 *
 * @throws TxmonError `INVALID_CONFIGURATION` without tenants or keys, with a key given twice, or
 *   with a malformed `basePath` or rate limit.
 * @example
 * ```ts
 * import { createEngine } from 'txmon';
 * import { createHttpHandler, toNodeListener } from 'txmon/http';
 * import { createServer } from 'node:http';
 * const handler = createHttpHandler({ engine: createEngine(), apiKeys: [process.env.TXMON_API_KEY!] });
 * createServer(toNodeListener(handler)).listen(8080);
 * ```
 */
export function createHttpHandler(options: HttpHandlerOptions): TxmonHttpHandler {
  const tenants = tenantsOf(options);
  const basePath = normalizeBasePath(options.basePath);
  const clock = options.clock ?? { now: () => Date.now() };
  const limits = createRequestLimits(options, () => clock.now());
  const authenticate = createAuthenticator(tenants, limits.perKey);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const maxUpload = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD;
  const maxBatchBody = options.maxBatchBodyBytes ?? DEFAULT_MAX_BATCH_BODY;
  let document: Record<string, unknown> | null = null;
  const admission = createAdmission(options.concurrency ?? {});
  const readiness = createReadinessCheck(tenants, options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS);
  const metrics = options.metrics;
  const allRoutes = createRoutes(
    options.openApi ?? (() => (document ??= createOpenApiDocument({ basePath }))),
    readiness,
    metrics === undefined ? undefined : (tenant) => metrics.render(tenant),
  );
  const routes = options.serves === 'metrics' ? allRoutes.filter((route) => METRICS_PORT_ROUTES.has(route.pattern)) : allRoutes;
  const readMetricsKey = createMetricsReaders(metrics, tenants, authenticate);
  const nextRequestId = createRequestIds();
  const table = { routes, basePath, prefixedTenants: options.tenants === undefined ? null : tenants };
  const report = createReporter(options.onRequest);
  const defaultTenant = tenants[0] as HttpTenant;

  /** The engine a request is admitted to, who its changes are made by, and the tenant of its API key. */
  type Admitted = { readonly engine: Engine; readonly actor: string; readonly keyTenant: string | null };

  /** Admits a request to its route's tenant: by API key, by the file URL's signature (checked by the engine), or openly. */
  function admit(request: CoreRequest, { route, tenant }: Located, seen: Seen): Admitted {
    if (route.access === 'public') {
      limits.forAddress(request.remoteAddress);
      return { engine: defaultTenant.engine, actor: SYSTEM_ACTOR, keyTenant: null };
    }
    if (route.access === 'signed-url') {
      seen.tenant = (tenant ?? defaultTenant).id;
      return { engine: (tenant ?? defaultTenant).engine, actor: SYSTEM_ACTOR, keyTenant: null };
    }
    if (route.access === 'metrics') {
      let reader: string | null;
      try {
        reader = readMetricsKey(request);
      } catch (error) {
        limits.forAddress(request.remoteAddress);
        throw error;
      }
      seen.tenant = reader;
      return { engine: defaultTenant.engine, actor: SYSTEM_ACTOR, keyTenant: reader };
    }
    let authenticated: Authenticated;
    try {
      authenticated = authenticate(request);
    } catch (error) {
      limits.forAddress(request.remoteAddress);
      throw error;
    }
    seen.tenant = authenticated.tenant.id;
    limits.forKey(authenticated.bucket);
    return { engine: authenticated.tenant.engine, actor: authenticated.actor, keyTenant: authenticated.tenant.id };
  }

  function contextOf(request: CoreRequest, { engine, actor, keyTenant }: Admitted, { params, url }: Located): ActionContext {
    return {
      engine,
      actor,
      keyTenant,
      params,
      url,
      body: <T>() => readJsonBody(request, maxBody) as Promise<T>,
      batchBody: <T>() => readJsonBody(request, maxBatchBody) as Promise<T>,
      stream: () => request.streamBody(maxUpload),
      declaredLength: () => declaredLength(request.header('content-length')),
      signal: {
        get aborted() {
          return request.isGone?.() === true;
        },
      },
    };
  }

  async function serve(request: CoreRequest, seen: Seen): Promise<CoreResponse> {
    const located = locateRoute(request.url, table);
    seen.route = located.route.pattern;
    const method = request.method.toUpperCase();
    const action = actionOf(located.route, method);
    if (!action) throw withResponseHeaders(new TxmonError('METHOD_NOT_ALLOWED', `${method} is not allowed on this route`), { allow: allowOf(located.route) });
    const admitted = admit(request, located, seen);
    // Open routes (liveness, readiness) and metrics never wait behind engine work.
    if (located.route.access === 'public' || located.route.access === 'metrics') return responseOf(await action(contextOf(request, admitted, located)), method);
    if (!admission.tryEnter()) await admission.wait(() => request.isGone?.() === true);
    try {
      if (request.isGone?.() === true) throw new TxmonError('CLIENT_GONE', 'The client closed the connection before its request started');
      return responseOf(await action(contextOf(request, admitted, located)), method);
    } catch (error) {
      // A bad file-URL signature counts against the client's address like a bad API key.
      if (located.route.access === 'signed-url' && isTxmonError(error) && error.code === 'UNAUTHORIZED') limits.forAddress(request.remoteAddress);
      throw error;
    } finally {
      admission.leave();
    }
  }

  async function core(request: CoreRequest): Promise<CoreResponse> {
    const seen: Seen = { started: performance.now(), requestId: nextRequestId(), route: '(none)', tenant: null };
    try {
      return report(request, seen, await serve(request, seen));
    } catch (error) {
      const response = errorResponse(error, request.method);
      const withId: CoreResponse = { status: response.status, headers: { ...response.headers, 'x-request-id': seen.requestId }, body: response.body };
      return report(request, seen, withId, errorCodeOf(error), error);
    }
  }

  return Object.assign(fetchHandler(core, options.clientAddress), { [HANDLER_CORE]: core }) as TxmonHttpHandler;
}

/** Calls `onRequest` once per response (a hook that throws changes no response, and is not called twice). */
function createReporter(onRequest: HttpHandlerOptions['onRequest']) {
  return (request: CoreRequest, seen: Seen, response: CoreResponse, code?: string, error?: unknown): CoreResponse => {
    if (onRequest === undefined) return response;
    // Explicit literals, no conditional spread: one hidden class per shape of log entry.
    const entry: { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] } = {
      method: request.method,
      route: seen.route,
      status: response.status,
      tenant: seen.tenant,
      // To the microsecond: a histogram of latencies needs better than whole milliseconds.
      durationMs: Math.round((performance.now() - seen.started) * 1000) / 1000,
      requestId: seen.requestId,
    };
    if (code !== undefined) entry.code = code;
    if (response.status >= 500 && error !== undefined) entry.fault = faultOf(error);
    try {
      onRequest(entry);
    } catch {
      // The response stands.
    }
    return response;
  };
}

/** The fetch form of a core: `Request` in, `Response` out. */
function fetchHandler(core: (request: CoreRequest) => Promise<CoreResponse>, clientAddress: HttpHandlerOptions['clientAddress']): HttpHandler {
  return async (request) => {
    const response = await core({
      method: request.method,
      url: request.url,
      header: (name) => request.headers.get(name),
      readBody: (limit) => readLimited(request, limit),
      streamBody: (limit) => streamLimited(request, limit),
      remoteAddress: clientAddress?.(request),
      isGone: () => request.signal.aborted,
    });
    return new Response(response.body as BodyInit | null, { status: response.status, headers: response.headers as Record<string, string> });
  };
}
