/**
 * The public types of `txmon/http`: the handler's options, what its request log receives, and the
 * transport-neutral core that `toNodeListener` serves without `Request`/`Response` objects.
 */
import type { Engine } from '../engine/create-engine.js';
import type { Concurrency } from './admission.js';
import type { RequestFault } from './fault.js';
import type { RateLimit } from './rate-limit.js';

/**
 * An API key with a label: the audit trail names a change made with it `<tenant id>/<label>`
 * (a key given as a plain string is labelled `key-` and the first 8 hex digits of its SHA-256).
 */
export interface LabelledApiKey {
  readonly key: string;
  /** 1–64 of `[A-Za-z0-9_.@-]`, unique within the tenant. */
  readonly label: string;
}

/** One tenant: its API keys and its own engine (its own repositories). */
export interface HttpTenant {
  /** Tenant id (used in the path of signed upload and download URLs: `/t/<id>/…`). */
  readonly id: string;
  /** The raw keys (or keys with labels); only their SHA-256 hashes are kept. */
  readonly apiKeys: readonly (string | LabelledApiKey)[];
  readonly engine: Engine;
}

/** Options of `createHttpHandler`. */
export interface HttpHandlerOptions {
  /** Single-tenant shorthand: this engine with `apiKeys`. */
  readonly engine?: Engine;
  readonly apiKeys?: readonly (string | LabelledApiKey)[];
  /** Several tenants (instead of `engine` + `apiKeys`). */
  readonly tenants?: readonly HttpTenant[];
  /** Prefix the API is mounted under, e.g. `/v1`. Default `''`. */
  readonly basePath?: string;
  /** Largest request body in bytes (JSON and uploads). Default 1 MiB for JSON, `maxUploadBytes` for uploads. */
  readonly maxBodyBytes?: number;
  /** Largest body of a batch route (`POST /batch/…`) in bytes. Default 64 MiB. */
  readonly maxBatchBodyBytes?: number;
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
  /** The OpenAPI document served at `/openapi.json`. Default: `createOpenApiDocument` for `basePath`. */
  readonly openApi?: () => Record<string, unknown>;
  /** Called once per request after the response is built (no payload values are passed); errors it throws are ignored. */
  readonly onRequest?: (entry: RequestLogEntry) => void;
  /**
   * How much engine work runs at once and how much may wait (`maxActive` 64, `maxQueued` 1,024,
   * `maxWaitMs` 10,000 by default): past the queue or the wait, `OVERLOADED` (503). Open routes
   * (`/healthz`, `/readyz`) never wait.
   */
  readonly concurrency?: Concurrency;
  /** How long `GET /readyz` waits for each store's round trip. Default 2,000 ms. */
  readonly readinessTimeoutMs?: number;
  /** What `GET /metrics` serves (Prometheus' text format). Absent: the route answers 404. */
  readonly metrics?: MetricsEndpoint;
  /**
   * `'metrics'`: the handler serves `/metrics`, `/healthz` and `/readyz` only (a separate metrics
   * port); every other path answers 404. Default `'api'`: every route.
   */
  readonly serves?: 'api' | 'metrics';
}

/**
 * `GET /metrics` of a handler. It is read with an API key (the reader then sees its own tenant's
 * series and the process's, never another tenant's) or with one of `keys` (every series), given as
 * `x-api-key` or as `Authorization: Bearer <key>` (what Prometheus sends from a credentials file).
 */
export interface MetricsEndpoint {
  /** The exposition for a reader: `tenant` is `null` for a metrics key, else the id of the tenant whose API key read it. */
  render(tenant: string | null): Promise<{ readonly contentType: string; readonly body: string }>;
  /** Keys that read `/metrics` and nothing else: unique, at least 16 characters, visible ASCII only, none an API key. */
  readonly keys?: readonly string[];
}

/** What {@link HttpHandlerOptions.onRequest} receives: no body, no key, no query values. */
export interface RequestLogEntry {
  readonly method: string;
  /** The route pattern (e.g. `/transactions/{transactionId}`), never the raw path with ids. */
  readonly route: string;
  readonly status: number;
  readonly tenant: string | null;
  /** Milliseconds from the request's arrival to its response, to the microsecond. */
  readonly durationMs: number;
  /**
   * The id the handler gave the request (`<process prefix>-<counter>`): in the log line, and in the
   * `x-request-id` header of every error response (status ≥ 400), so a client's report of an
   * error finds its line. The handler makes it; a client's own `x-request-id` is not used.
   */
  readonly requestId?: string;
  readonly code?: string;
  /** For a 5xx: its cause, without any payload value (see `RequestFault`). */
  readonly fault?: RequestFault;
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
  /** Whether the client has closed its connection (or aborted the request): a request still waiting is then not run. */
  isGone?(): boolean;
  /**
   * The client connection the request came on (a Node socket), when the transport knows it. The
   * handler remembers, per connection, the last API key it verified there, so that a keep-alive
   * client does not pay a SHA-256 per request: a later request on the same connection presenting
   * the same key (compared in constant time) skips the hash. Held weakly: the memo goes with the
   * connection.
   */
  readonly connection?: object;
}

/** A response of the core. */
export interface CoreResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | null;
}

/** The core of a handler made by `createHttpHandler`, for transports that skip `Request`/`Response` (see `toNodeListener`). */
export const HANDLER_CORE: unique symbol = Symbol.for('txmon.http.core');

/** A handler made by `createHttpHandler`: fetch-style, with its core attached. */
export type TxmonHttpHandler = HttpHandler & { readonly [HANDLER_CORE]: (request: CoreRequest) => Promise<CoreResponse> };
