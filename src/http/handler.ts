/**
 * The interface document's HTTP API as a WHATWG fetch handler: `(Request) => Promise<Response>`.
 *
 * One place renders every error ({@link renderProblem}); keys are kept only as SHA-256 hashes and
 * compared in constant time; every tenant has its own engine, so no route can reach another
 * tenant's data; bodies are size-limited and must be JSON; each key has a token-bucket rate limit.
 */
import type { Engine, SignedFileAccess } from '../engine/create-engine.js';
import { ERROR_CODES, TxmonError, isTxmonError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { createHash } from 'node:crypto';
import { createOpenApiDocument } from './openapi.js';
import { createRateLimiter, isValidRateLimit, type RateLimit } from './rate-limit.js';
import { stringifyBody } from './response-json.js';

/** One tenant: its API keys and its own engine (its own repositories). */
export interface HttpTenant {
  /** Tenant id (used in the path of signed upload and download URLs: `/t/<id>/…`). */
  readonly id: string;
  /** The raw keys; only their SHA-256 hashes are kept. */
  readonly apiKeys: readonly string[];
  readonly engine: Engine;
}

/** Options of {@link createHttpHandler}. */
export interface HttpHandlerOptions {
  /** Single-tenant shorthand: this engine with `apiKeys`. */
  readonly engine?: Engine;
  readonly apiKeys?: readonly string[];
  /** Several tenants (instead of `engine` + `apiKeys`). */
  readonly tenants?: readonly HttpTenant[];
  /** Prefix the API is mounted under, e.g. `/v1`. Default `''`. */
  readonly basePath?: string;
  /** Largest request body in bytes (JSON and uploads). Default 1 MiB for JSON, `maxUploadBytes` for uploads. */
  readonly maxBodyBytes?: number;
  /** Largest upload body in bytes (the engine also checks the announced `fileSize`). Default 100 MB. */
  readonly maxUploadBytes?: number;
  /** Requests per second per API key (token bucket, burst = 2 × rate). `null`/absent: no limit. */
  readonly rateLimit?: RateLimit | null;
  /**
   * Requests per second per client address that carry no valid credentials (a missing or unknown
   * API key, a bad file-URL signature) or go to an open route (`/healthz`): past it they are
   * answered 429 with `Retry-After`. Default 10 per second, burst 50; `null`: no limit. Needs the
   * client address: the Node transport knows it; a fetch handler gets it from `clientAddress`.
   */
  readonly unauthenticatedRateLimit?: RateLimit | null;
  /** The client address of a fetch `Request` (e.g. from the platform's connection info), for `unauthenticatedRateLimit`. */
  readonly clientAddress?: (request: Request) => string | undefined;
  /** Clock for the rate limiter. Default `Date.now`. */
  readonly clock?: { now(): number };
  /** The OpenAPI document served at `/openapi.json`. Default: {@link createOpenApiDocument} for `basePath`. */
  readonly openApi?: () => Record<string, unknown>;
  /** Called once per request after the response is built (no payload values are passed); errors it throws are ignored. */
  readonly onRequest?: (entry: RequestLogEntry) => void;
}

/** What {@link HttpHandlerOptions.onRequest} receives: no body, no key, no query values. */
export interface RequestLogEntry {
  readonly method: string;
  /** The route pattern (e.g. `/transactions/{transactionId}`), never the raw path with ids. */
  readonly route: string;
  readonly status: number;
  readonly tenant: string | null;
  readonly durationMs: number;
  readonly code?: string;
}

/** A fetch-style handler. */
export type HttpHandler = (request: Request) => Promise<Response>;

/** A request as the transport-neutral core reads it (built from a `Request` or a Node request). */
export interface CoreRequest {
  readonly method: string;
  /** Path and query, e.g. `/transactions/t-1?x=1` (an absolute URL works too). */
  readonly url: string;
  /** Every value of the header `name` (given in lower case) joined with `, `; `null` when absent. */
  header(name: string): string | null;
  /** The body, at most `limit` bytes (`PAYLOAD_TOO_LARGE` past it). */
  readBody(limit: number): Promise<Uint8Array>;
  /**
   * The body as it arrives, at most `limit` bytes (`PAYLOAD_TOO_LARGE` past it); nothing is read
   * (and no `100 Continue` sent) until it is iterated.
   */
  streamBody(limit: number): AsyncIterable<Uint8Array>;
  /** The client's address, when the transport knows it (for {@link HttpHandlerOptions.unauthenticatedRateLimit}). */
  readonly remoteAddress?: string | undefined;
  /**
   * The client connection the request came on (a Node socket), when the transport knows it. The
   * handler remembers, per connection, the last API key it verified there (D-143): a later request
   * on the same keep-alive connection presenting the same key (compared in constant time) skips
   * the SHA-256. Held weakly: the memo goes with the connection.
   */
  readonly connection?: object;
}

/** A response of the core. */
export interface CoreResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | null;
}

/** The core of a handler made by {@link createHttpHandler}, for transports that skip `Request`/`Response` (see `toNodeListener`). */
export const HANDLER_CORE: unique symbol = Symbol.for('txmon.http.core');
/** A handler made by {@link createHttpHandler}: fetch-style, with its core attached. */
export type TxmonHttpHandler = HttpHandler & { readonly [HANDLER_CORE]: (request: CoreRequest) => Promise<CoreResponse> };

type Params = Readonly<Record<string, string>>;
interface Context {
  readonly engine: Engine;
  readonly params: Params;
  readonly url: URL;
  body(): Promise<unknown>;
  /** The body as a stream of chunks, within the upload limit. */
  stream(): AsyncIterable<Uint8Array>;
  /** The body's announced length (`content-length`), when given. */
  declaredLength(): number | undefined;
}
type Action = (context: Context) => Promise<{ status: number; body?: unknown; bytes?: Uint8Array; contentType?: string }>;

interface Route {
  readonly pattern: string;
  readonly segments: readonly string[];
  readonly methods: Readonly<Record<string, Action>>;
  /** Signed URL routes authenticate by signature, not by key. */
  readonly signed?: boolean;
  /** No authentication at all. */
  readonly open?: boolean;
}

const JSON_TYPE = 'application/json';
const PROBLEM_TYPE = 'application/problem+json';
const DEFAULT_MAX_BODY = 1024 * 1024;

const ok = (body: unknown) => ({ status: 200, body });
const created = (body: unknown) => ({ status: 201, body });

function defineRoutes(openApi: (() => Record<string, unknown>) | undefined): Route[] {
  const list: [string, Record<string, Action>, { signed?: boolean; open?: boolean }?][] = [
    ['/healthz', { GET: async () => ok({ status: 'ok' }) }, { open: true }],
    ['/openapi.json', { GET: async () => (openApi ? ok(openApi()) : Promise.reject(notFound())) }],
    ['/transactions', { POST: async (c) => created(await c.engine.createTransaction(await c.body())) }],
    ['/transactions/{transactionId}', { GET: async (c) => ok(await c.engine.getTransaction(c.params.transactionId as string)) }],
    ['/events/transaction', { POST: async (c) => created(await c.engine.createTransactionEvent(await c.body())) }],
    ['/events/transaction/{eventId}', { GET: async (c) => ok(await c.engine.getTransactionEvent(c.params.eventId as string)) }],
    ['/consumer/users', { POST: async (c) => ok(await c.engine.createUser(await c.body(), { type: 'CONSUMER' })) }],
    ['/business/users', { POST: async (c) => ok(await c.engine.createUser(await c.body(), { type: 'BUSINESS' })) }],
    ['/consumer/users/{userId}', { GET: async (c) => ok(await c.engine.getUser(c.params.userId as string, { type: 'CONSUMER' })) }],
    ['/business/users/{userId}', { GET: async (c) => ok(await c.engine.getUser(c.params.userId as string, { type: 'BUSINESS' })) }],
    ['/users/{userId}/comments', { POST: async (c) => created(await c.engine.createUserComment(c.params.userId as string, await c.body())) }],
    ['/cases/{caseId}/comments', { POST: async (c) => created(await c.engine.createCaseComment(c.params.caseId as string, await c.body())) }],
    ['/alerts/{alertId}/comments', { POST: async (c) => created(await c.engine.createAlertComment(c.params.alertId as string, await c.body())) }],
    [
      '/rule-instances',
      {
        POST: async (c) => ok(await c.engine.createRuleInstance(await c.body())),
        GET: async (c) => ok(await c.engine.listRuleInstances()),
      },
    ],
    [
      '/rule-instances/{ruleInstanceId}',
      {
        GET: async (c) => ok(await c.engine.getRuleInstance(c.params.ruleInstanceId as string)),
        POST: async (c) => ok(await c.engine.updateRuleInstance(c.params.ruleInstanceId as string, await c.body())),
        DELETE: async (c) => {
          await c.engine.deleteRuleInstance(c.params.ruleInstanceId as string);
          return { status: 204 };
        },
      },
    ],
    ['/rules', { GET: async (c) => ok(await c.engine.listRules()) }],
    ['/rules/{ruleId}', { GET: async (c) => ok(await c.engine.getRule(c.params.ruleId as string)) }],
    ['/rule-filters-schema', { GET: async (c) => ok(await c.engine.getRuleFiltersSchema()) }],
    ['/pre-signed-url', { POST: async (c) => ok(await c.engine.createUpload(await c.body())) }],
    ['/alerts/{alertId}', { GET: async (c) => ok(await c.engine.getAlert(c.params.alertId as string)) }],
    ['/cases/{caseId}', { GET: async (c) => ok(await c.engine.getCase(c.params.caseId as string)) }],
    ['/lists', { GET: async (c) => ok(await c.engine.listLists()) }],
    [
      '/lists/{listId}',
      {
        GET: async (c) => ok(await c.engine.getList(c.params.listId as string)),
        PUT: async (c) => ok(await c.engine.putList(c.params.listId as string, await c.body())),
        DELETE: async (c) => {
          await c.engine.deleteList(c.params.listId as string);
          return { status: 204 };
        },
      },
    ],
    [
      '/uploads/{key}',
      {
        PUT: async (c) => {
          // The signature is checked before the first byte is read; the bytes then stream to the store.
          const declared = c.declaredLength();
          await c.engine.putUploadContent(signedAccess(c), c.stream(), declared === undefined ? {} : { declaredBytes: declared });
          return { status: 204 };
        },
      },
      { signed: true },
    ],
    [
      '/files/{key}',
      {
        GET: async (c) => {
          const file = await c.engine.getFileContent(signedAccess(c));
          return { status: 200, bytes: file.bytes, contentType: 'application/octet-stream' };
        },
      },
      { signed: true },
    ],
  ];
  return list.map(([pattern, methods, flags]) => ({
    pattern,
    segments: pattern.split('/').slice(1),
    methods,
    ...(flags?.signed ? { signed: true } : {}),
    ...(flags?.open ? { open: true } : {}),
  }));
}

function signedAccess(c: Context): SignedFileAccess {
  const expires = Number(c.url.searchParams.get('expires'));
  const signature = c.url.searchParams.get('signature') ?? '';
  if (!Number.isSafeInteger(expires) || signature === '') {
    throw new TxmonError('UNAUTHORIZED', 'The file URL is invalid or expired');
  }
  return { key: c.params.key as string, expiresAt: expires, signature };
}

function notFound(): TxmonError {
  return new TxmonError('ROUTE_NOT_FOUND', 'No such route');
}

/** Matches `segments` against a route; returns the decoded path parameters or null. */
function match(route: Route, segments: readonly string[]): Params | null {
  if (route.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = route.segments[i] as string;
    const got = segments[i] as string;
    if (want.startsWith('{')) {
      if (got === '') return null;
      let value: string;
      try {
        value = decodeURIComponent(got);
      } catch {
        return null;
      }
      params[want.slice(1, -1)] = value;
    } else if (want !== got) {
      return null;
    }
  }
  return params;
}

/** An authenticated key: its tenant and its rate-limit bucket (the hex digest; '' without a limiter). */
interface Authenticated {
  readonly key: string;
  readonly tenant: HttpTenant;
  readonly bucket: string;
}

/** SHA-256 of a string (node:crypto, synchronous: ~1 µs, no thread-pool hop per request). */
function sha256(text: string): Uint8Array {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Constant-time equality of a presented key and a remembered one: the time depends only on the
 * presented key's length, never on where they differ (a pooled proxy connection may carry another
 * client's key next). Internal (exported for its property test).
 */
export function sameKey(presented: string, remembered: string): boolean {
  const n = presented.length;
  const m = remembered.length;
  let diff = n ^ m;
  for (let i = 0; i < n; i++) diff |= presented.charCodeAt(i) ^ remembered.charCodeAt(i < m ? i : 0);
  return diff === 0;
}

/** Constant-time equality of two equal-length digests. */
function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * The problem+json response of an error — the one place errors are rendered. Carries `message` and
 * `validationErrors` (a string, as clients of the interface document expect) plus `code` and
 * `errors[]` with JSON-Pointer paths. Never a stack trace or a payload value: a non-txmon error
 * becomes a generic 500.
 */
export function renderProblem(error: unknown, extraHeaders: Record<string, string> = {}): Response {
  const problem = problemOf(error, extraHeaders);
  return new Response(problem.body as string, { status: problem.status, headers: problem.headers as Record<string, string> });
}

/** The problem+json {@link CoreResponse} of an error (see {@link renderProblem}). */
export function problemOf(error: unknown, extraHeaders: Record<string, string> = {}): CoreResponse {
  const known = isTxmonError(error) ? error : null;
  const code: ErrorCode = known ? (known.code as ErrorCode) : 'INTERNAL';
  const status = ERROR_CODES[code] ?? 500;
  const message = known && status < 500 ? known.message : 'Internal error';
  const details: readonly ErrorDetail[] = known && status < 500 ? known.details : [];
  const body = {
    type: `https://txmon.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    code,
    message,
    validationErrors: details.map((d) => `${d.path || '/'} ${d.message}`).join('; '),
    errors: details.map((d) => ({ path: d.path, code: d.code, message: d.message })),
  };
  return { status, headers: { 'content-type': PROBLEM_TYPE, ...extraHeaders }, body: JSON.stringify(body) };
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** The chunks of a body, at most `limit` bytes in all; `PAYLOAD_TOO_LARGE` past it (without reading the rest). */
async function* streamLimited(request: Request, limit: number): AsyncIterable<Uint8Array> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw new TxmonError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
  if (!request.body) return;
  const reader = request.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > limit) throw new TxmonError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
      yield value;
    }
  } finally {
    reader.releaseLock();
    if (size > limit) await request.body.cancel().catch(() => undefined);
  }
}

/** Reads a body up to `limit` bytes; `PAYLOAD_TOO_LARGE` past it (without reading the rest). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw new TxmonError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new TxmonError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

// Stateless between calls (no streaming): one decoder for every body.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON body; `MALFORMED_JSON` with the position-free reason on failure. */
function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new TxmonError('MALFORMED_JSON', 'The request body is not valid UTF-8', [{ path: '', code: 'malformed-json', message: 'is not valid UTF-8' }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TxmonError('MALFORMED_JSON', 'The request body is not valid JSON', [{ path: '', code: 'malformed-json', message: 'is not valid JSON' }]);
  }
  if (keyTokens(text) !== keysOf(value)) {
    // JSON.parse keeps the last of two equal keys; another parser may keep the first. Refused, so
    // every component reading the body sees the same value.
    throw new TxmonError('MALFORMED_JSON', 'The request body has an object with a duplicate key', [
      { path: '', code: 'duplicate-key', message: 'has an object with a duplicate key' },
    ]);
  }
  return value;
}

/**
 * Whether valid JSON text has an object with the same key twice (`"a"` and `"\u0061"` are the
 * same key). `JSON.parse` keeps one property per distinct key of an object, so the text has a
 * duplicate exactly when it holds more key tokens than the parsed value has own keys: two counts,
 * no set of keys per object.
 */
export function hasDuplicateKey(text: string): boolean {
  return keyTokens(text) !== keysOf(JSON.parse(text));
}

/** The number of object keys written in valid JSON text: string tokens followed by `:`. */
function keyTokens(text: string): number {
  let n = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    if (text.charCodeAt(i) !== 0x22 /* " */) continue;
    for (i += 1; i < length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x5c /* \ */) i += 1;
      else if (d === 0x22) break;
    }
    let j = i + 1;
    let c = text.charCodeAt(j);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++j);
    if (c === 0x3a /* : */) n += 1;
  }
  return n;
}

/**
 * The number of own keys of every object inside a parsed JSON value. Iterative (an explicit
 * stack): a body nested deeper than the call stack allows is counted too, and refused later by
 * the depth check with its own error.
 */
function keysOf(root: unknown): number {
  if (typeof root !== 'object' || root === null) return 0;
  let n = 0;
  const pending: object[] = [root];
  while (pending.length > 0) {
    const value = pending.pop() as object;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object' && item !== null) pending.push(item);
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      n += 1;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return n;
}

function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  if (value === JSON_TYPE) return true;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === JSON_TYPE || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Creates the HTTP handler of the interface document's API over one engine (single tenant) or
 * several (one per tenant).
 *
 * @throws TxmonError `INVALID_CONFIGURATION` without tenants or keys, or with a key given twice.
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
  const tenants: readonly HttpTenant[] =
    options.tenants ?? (options.engine ? [{ id: 'default', apiKeys: options.apiKeys ?? [], engine: options.engine }] : []);
  if (tenants.length === 0) throw new TxmonError('INVALID_CONFIGURATION', 'createHttpHandler: give `engine` and `apiKeys`, or `tenants`');
  const ids = new Set<string>();
  const rawKeys = new Set<string>();
  for (const tenant of tenants) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(tenant.id) || ids.has(tenant.id)) {
      throw new TxmonError('INVALID_CONFIGURATION', 'createHttpHandler: tenant ids must be unique, 1–64 of [A-Za-z0-9_-]');
    }
    ids.add(tenant.id);
    for (const key of tenant.apiKeys) {
      // A header value carries visible ASCII only (no spaces around, no control or non-Latin characters).
      if (key.length < 16 || !/^[\x21-\x7e]+$/.test(key) || rawKeys.has(key)) {
        throw new TxmonError('INVALID_CONFIGURATION', 'createHttpHandler: API keys must be unique, at least 16 characters, visible ASCII only');
      }
      rawKeys.add(key);
    }
  }
  rawKeys.clear();
  // Only the hashes are kept.
  const keyTable = tenants.map((tenant) => ({ tenant, hashes: tenant.apiKeys.map((k) => sha256(k)) }));
  const single = options.tenants === undefined;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath !== '' && !/^\/[A-Za-z0-9._~\/-]*$/.test(basePath)) {
    throw new TxmonError('INVALID_CONFIGURATION', 'createHttpHandler: basePath must start with / and be a plain path');
  }
  const rate = options.rateLimit;
  if (rate && !isValidRateLimit(rate)) {
    throw new TxmonError('INVALID_CONFIGURATION', 'createHttpHandler: rateLimit.requestsPerSecond must be > 0 and burst ≥ 1');
  }
  const unauthenticatedRate = options.unauthenticatedRateLimit === undefined ? DEFAULT_UNAUTHENTICATED_RATE : options.unauthenticatedRateLimit;
  if (unauthenticatedRate && !isValidRateLimit(unauthenticatedRate)) {
    throw new TxmonError('INVALID_CONFIGURATION', 'createHttpHandler: unauthenticatedRateLimit.requestsPerSecond must be > 0 and burst ≥ 1');
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const maxUpload = options.maxUploadBytes ?? 100_000_000;
  const clock = options.clock ?? { now: () => Date.now() };
  const limiter = rate ? createRateLimiter(rate, () => clock.now()) : null;
  const addressLimiter = unauthenticatedRate ? createRateLimiter(unauthenticatedRate, () => clock.now()) : null;
  let document: Record<string, unknown> | null = null;
  const routes = defineRoutes(options.openApi ?? (() => (document ??= createOpenApiDocument({ basePath }))));

  // Per connection, the last key verified on it and what it verified to (D-143). Only valid keys
  // are remembered, and only while their connection lives (the transport's request objects hold
  // the same header value meanwhile); the configured keys themselves stay hashes only.
  const verified = new WeakMap<object, Authenticated>();

  function authenticate(request: CoreRequest): Authenticated {
    const key = request.header('x-api-key');
    if (key === null || key === '') throw new TxmonError('UNAUTHORIZED', 'The x-api-key header is missing');
    const connection = typeof request.connection === 'object' && request.connection !== null ? request.connection : undefined;
    if (connection !== undefined) {
      const last = verified.get(connection);
      if (last !== undefined && sameKey(key, last.key)) return last;
    }
    const digest = sha256(key);
    let found: HttpTenant | null = null;
    // Every stored hash is compared (constant time each), whatever matched first.
    for (const { tenant, hashes } of keyTable) for (const h of hashes) if (sameDigest(h, digest) && found === null) found = tenant;
    if (found === null) throw new TxmonError('UNAUTHORIZED', 'The API key is not valid');
    const result: Authenticated = { key, tenant: found, bucket: limiter ? Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') : '' };
    if (connection !== undefined) verified.set(connection, result);
    return result;
  }

  async function core(request: CoreRequest): Promise<CoreResponse> {
    const started = clock.now();
    let routeName = '(none)';
    let tenantId: string | null = null;
    const finish = (response: CoreResponse, code?: string): CoreResponse => {
      if (options.onRequest !== undefined) {
        // Explicit literals, no conditional spread: one hidden class per shape of log entry.
        const entry: { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] } = { method: request.method, route: routeName, status: response.status, tenant: tenantId, durationMs: clock.now() - started };
        if (code !== undefined) entry.code = code;
        try {
          options.onRequest(entry);
        } catch {
          // A failing log hook changes no response (and is not called twice).
        }
      }
      return response;
    };
    let extraHeaders: Record<string, string> = {};
    /** Takes a token of the client address's bucket of requests without valid credentials; 429 when none is left. */
    const limitUnauthenticated = (request: CoreRequest): void => {
      if (addressLimiter === null) return;
      const wait = addressLimiter.take(request.remoteAddress ?? '');
      if (wait > 0) {
        extraHeaders = { 'retry-after': String(wait) };
        throw new TxmonError('RATE_LIMITED', 'Too many requests without valid credentials from this address');
      }
    };
    try {
      // A path is resolved against a fixed origin by concatenation: `//host/x` stays a path (a
      // relative reference would read `host` as an authority).
      let url: URL;
      try {
        url = new URL(request.url.startsWith('/') ? `http://localhost${request.url}` : request.url);
      } catch {
        throw notFound();
      }
      let path = url.pathname;
      if (basePath !== '') {
        if (path !== basePath && !path.startsWith(`${basePath}/`)) throw notFound();
        path = path.slice(basePath.length) || '/';
      }
      let segments = path.split('/').slice(1);
      // Signed file URLs of a tenant carry `/t/<tenant>` in front (multi-tenant handlers).
      let signedTenant: HttpTenant | null = null;
      if (!single && segments[0] === 't' && segments.length >= 3) {
        signedTenant = tenants.find((t) => t.id === segments[1]) ?? null;
        if (signedTenant === null) throw notFound();
        segments = segments.slice(2);
      }
      let route: Route | null = null;
      let params: Params = {};
      for (const r of routes) {
        const m = match(r, segments);
        if (m) {
          route = r;
          params = m;
          break;
        }
      }
      if (!route || (signedTenant !== null && !route.signed) || (route.signed && !single && signedTenant === null)) throw notFound();
      routeName = route.pattern;
      const method = request.method.toUpperCase();
      // HEAD is GET without the body (RFC 9110 §9.3.2).
      const action = route.methods[method === 'HEAD' ? 'GET' : method];
      if (!action) {
        const allowed = Object.keys(route.methods);
        extraHeaders = { allow: (allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed).join(', ') };
        throw new TxmonError('METHOD_NOT_ALLOWED', `${method} is not allowed on this route`);
      }
      let engine: Engine;
      if (route.open) {
        limitUnauthenticated(request);
        engine = (tenants[0] as HttpTenant).engine;
      } else if (route.signed) {
        engine = (signedTenant ?? (tenants[0] as HttpTenant)).engine;
        tenantId = (signedTenant ?? (tenants[0] as HttpTenant)).id;
      } else {
        let authenticated: Authenticated;
        try {
          authenticated = authenticate(request);
        } catch (error) {
          limitUnauthenticated(request);
          throw error;
        }
        const { tenant, bucket } = authenticated;
        tenantId = tenant.id;
        engine = tenant.engine;
        if (limiter) {
          const wait = limiter.take(bucket);
          if (wait > 0) {
            extraHeaders = { 'retry-after': String(wait) };
            throw new TxmonError('RATE_LIMITED', 'Too many requests for this API key');
          }
        }
      }
      const context: Context = {
        engine,
        params,
        url,
        async body() {
          if (!isJsonContentType(request.header('content-type'))) {
            throw new TxmonError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json');
          }
          return parseJson(await request.readBody(maxBody));
        },
        stream() {
          return request.streamBody(maxUpload);
        },
        declaredLength() {
          const value = request.header('content-length');
          return value !== null && /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
        },
      };
      let result: Awaited<ReturnType<Action>>;
      try {
        result = await action(context);
      } catch (error) {
        // A bad file-URL signature counts against the client's address like a bad API key.
        if (route.signed && isTxmonError(error) && error.code === 'UNAUTHORIZED') limitUnauthenticated(request);
        throw error;
      }
      if (result.status === 204) return finish({ status: 204, headers: {}, body: null });
      if (result.bytes) {
        return finish({ status: result.status, headers: { 'content-type': result.contentType ?? 'application/octet-stream' }, body: method === 'HEAD' ? null : result.bytes });
      }
      return finish({ status: result.status, headers: JSON_HEADERS, body: method === 'HEAD' ? null : stringifyBody(result.body) });
    } catch (error) {
      const code = isTxmonError(error) ? error.code : 'INTERNAL';
      // Past the body limit the rest of the body is not read: the connection is not reused.
      if (code === 'PAYLOAD_TOO_LARGE') extraHeaders = { ...extraHeaders, connection: 'close' };
      const problem = problemOf(error, extraHeaders);
      return finish(request.method.toUpperCase() === 'HEAD' ? { ...problem, body: null } : problem, code);
    }
  }

  const handler = async (request: Request): Promise<Response> => {
    const response = await core({
      method: request.method,
      url: request.url,
      header: (name) => request.headers.get(name),
      readBody: (limit) => readLimited(request, limit),
      streamBody: (limit) => streamLimited(request, limit),
      remoteAddress: options.clientAddress?.(request),
    });
    return new Response(response.body as BodyInit | null, { status: response.status, headers: response.headers as Record<string, string> });
  };
  return Object.assign(handler, { [HANDLER_CORE]: core }) as TxmonHttpHandler;
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': JSON_TYPE });

/** Default of {@link HttpHandlerOptions.unauthenticatedRateLimit}. */
const DEFAULT_UNAUTHENTICATED_RATE: RateLimit = Object.freeze({ requestsPerSecond: 10, burst: 50 });

