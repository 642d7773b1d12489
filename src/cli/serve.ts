/**
 * The command `txmon serve`: the HTTP API (docs/wire-format.md) on txmon engines over a store
 * (`--store`: PGlite files by default, PostgreSQL, or memory), for one default tenant
 * (`--api-key-file`, `TXMON_API_KEYS`, `--api-key`, or a generated key kept in the store's
 * directory) or the tenants of `--tenants <file.json>`.
 *
 * It listens first and answers from that moment: 503 `NOT_READY` until its stores are open and
 * migrated (starting.ts), then the API. One structured log line per request (pino's format), no
 * payload values; a fault of the server or its store is logged at error level with its cause and
 * the request's id; `--log-level` / `TXMON_LOG_LEVEL` drops the lines below a level. Prometheus
 * metrics (metrics.ts) at `/metrics`, on the API's port or `--metrics-port`.
 * SIGTERM/SIGINT stop accepting connections and finish in-flight requests.
 */
import { readFileSync, writeSync } from 'node:fs';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { createEngine } from '../default-engine.js';
import { tenantsOf } from '../http/auth.js';
import { faultOf } from '../http/fault.js';
import { createHttpHandler } from '../http/handler.js';
import { createNodeServer, drainAndClose } from '../http/node.js';
import { createOpenApiDocument } from '../http/openapi.js';
import { MIN_WEBHOOK_SECRET_BYTES, startWebhookDelivery } from '../http/webhooks.js';
import type { OutboxSubscription } from '../engine/types.js';
import { HANDLER_CORE, type CoreRequest, type CoreResponse, type HttpTenant, type RequestLogEntry, type TxmonHttpHandler } from '../http/types.js';
import { DEFAULT_MAX_STORED_BYTES } from '../repositories/memory/index.js';
import { type DirectoryLock, lockDirectory } from './directory-lock.js';
import { generatedKeyIn, newApiKey } from './generated-key.js';
import { createServeMetrics, type ServeMetrics } from './metrics.js';
import {
  createBatchedWriter,
  createFdSink,
  formatLogLine,
  formatRequestLine,
  LOG_LEVELS,
  requestLevelOf,
  type LogLevel,
  type LogValue,
} from './request-log.js';
import {
  configuredKeys,
  logLevelOf,
  metricsKeysOf,
  parseLimits,
  parseServeArgs,
  readJsonFile,
  readTenants,
  type ServeArgs,
  type TenantLimits,
  type TenantSpec,
} from './serve-args.js';
import { startingCore } from './starting.js';
import { DEFAULT_STORE, StoreSpecError, describeStore, openStores, parseStore, storeOfEnvironment, type OpenStores, type StoreSpec } from './stores.js';
import { UsageError } from './usage.js';
import { applyConfig, loadConfigFile, tenantSpecsOf, type LoadedConfig } from './config-file.js';

export { USAGE, UsageError } from './usage.js';
export { readTenants } from './serve-args.js';

/** What the command logs through: a line in pino's format at a level, and a synchronous flush before the process exits. */
export interface ServeLogger {
  info(fields: Readonly<Record<string, LogValue | undefined>>, msg: string): void;
  /** A line at `level` (`warn`, `error`, …). */
  at(level: LogLevel, fields: Readonly<Record<string, LogValue | undefined>>, msg: string): void;
  flushSync(): void;
  /** Writes out every pending request line, then calls `done`. */
  drain(done: () => void): void;
}

/** A server started by {@link startServer}. */
export interface ServerHandle {
  readonly server: Server;
  /** The server of `--metrics-port` (`null` without it: `/metrics` is on the API's port). */
  readonly metricsServer: Server | null;
  /** The process's metrics. */
  readonly metrics: ServeMetrics;
  /** The API's base URL (`http://host:port` and the base path). */
  readonly url: string;
  readonly log: ServeLogger;
  /** How long in-flight requests may take to finish on shutdown (`--shutdown-grace-ms`). */
  readonly graceMs: number;
  /**
   * Resolves once the stores are open and the API is served. Rejects (after closing the server and
   * the stores) when they cannot be opened: a PGlite directory owned by another process, a
   * database that did not answer within `--store-wait-ms`.
   */
  readonly ready: Promise<void>;
  /** Closes the stores (a pool's connections, PGlite's files) and gives up the directory lock; call once the server stopped serving. */
  closeStores(): Promise<void>;
  /** Stops serving at once (open connections closed) and closes the stores: for tests and failed starts. */
  close(): Promise<void>;
}

/** Heap bytes per byte the memory store counts, at most (measured with transactions of thousands of tiny fields; see docs/security.md). */
const HEAP_PER_COUNTED_BYTE = 3;

/**
 * Stops on SIGTERM/SIGINT: no new connections, idle keep-alive connections closed, in-flight
 * requests finished and answered with `connection: close` (at most `graceMs`), the tenants' stores
 * closed, then `stopped` is logged and the process exits 0 — on every path, the forced one after
 * `graceMs` included. A second signal while stopping is logged and changes nothing. Installed by
 * the command only (never by {@link startServer}).
 */
export function exitOnSignals(handle: ServerHandle): void {
  const { server, log, graceMs } = handle;
  let stopping = false;
  let exiting = false;
  const exit = (forced: boolean) => {
    if (exiting) return;
    exiting = true;
    // The stores close after the last response: a pool's connections, PGlite's files.
    void handle.closeStores().finally(() => {
      log.info({ forced }, 'stopped');
      log.drain(() => process.exit(0));
    });
  };
  const stop = (signal: string) => {
    if (stopping) {
      log.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const forced = setTimeout(() => {
      server.closeAllConnections();
      exit(true);
    }, graceMs);
    forced.unref();
    drainAndClose(server, () => {
      clearTimeout(forced);
      exit(false);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Where the command's log goes: lifecycle lines at once, request lines gathered. */
interface ServeLogging {
  readonly log: ServeLogger;
  /** Logs one formatted request line. */
  readonly logRequest: (line: string) => void;
  /** To call right after each batch of responses (writes the gathered lines once 16 KB wait). */
  readonly afterResponses: (() => void) | undefined;
  /** The `time` field (pino's isoTime) for now. */
  readonly time: () => string;
}

/**
 * The command's logging. By default it goes to standard output, written with `writeSync` and never
 * blocking, so a slow reader of the log never stalls the server. Request lines are formatted as
 * pino would and gathered: one write(2) every 25 ms, or right after a batch of responses once
 * 16 KB are waiting, not one per request. Lifecycle lines (serving, shutting down, stopped), in
 * pino's format too, are written after the gathered request lines. A test's collector (`logTo`)
 * gets each line at once.
 */
function createServeLogging(logTo: { write(line: string): void } | undefined, minLevel: number): ServeLogging {
  const time = isoTimeCachedPerMs();
  let reported = false;
  const onLogError = (error: unknown) => {
    // Serving goes on without the lost lines; said once on standard error (which may be gone too).
    if (reported) return;
    reported = true;
    try {
      writeSync(2, `txmon: the request log could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); lines are being lost\n`);
    } catch {
      // Nowhere left to say it.
    }
  };
  const stdout = logTo === undefined ? createFdSink(1, onLogError) : null;
  const requests = stdout === null ? null : createBatchedWriter(stdout, onLogError);
  const out: { write(line: string): void } = logTo ?? {
    write: (line) => {
      requests?.flush();
      stdout?.write(line);
    },
  };
  const log: ServeLogger = {
    info: (fields, msg) => {
      if (LOG_LEVELS.info >= minLevel) out.write(formatLogLine(fields, msg, time()));
    },
    at: (level, fields, msg) => {
      if (LOG_LEVELS[level] >= minLevel) out.write(formatLogLine(fields, msg, time(), LOG_LEVELS[level]));
    },
    flushSync: () => {
      requests?.flush();
      stdout?.flush();
    },
    drain: (done) => {
      requests?.flush();
      // Text held back by a full pipe: a few more tries, then exit anyway.
      let tries = 0;
      const attempt = () => {
        if (stdout === null || stdout.flush() || ++tries > 20) done();
        else setTimeout(attempt, 50);
      };
      attempt();
    },
  };
  const logRequest = requests === null ? (line: string) => void out.write(line) : requests.write;
  return { log, logRequest, afterResponses: requests?.flushIfLarge, time };
}

/** Refuses bad tenant ids or keys before anything is opened (the handler checks them the same way). */
function checkTenantSpecs(specs: readonly TenantSpec[]): void {
  try {
    tenantsOf({ tenants: specs.map((spec) => ({ id: spec.id, apiKeys: spec.apiKeys, engine: undefined as never })) });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** {@link storeOfEnvironment}, or the usage error that names its file. */
function storeOfEnvironmentOrUsage(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return storeOfEnvironment(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A `--store` / `TXMON_STORE` value, or the usage error that names it. */
function parseStoreArgument(value: string): StoreSpec {
  try {
    return parseStore(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The tenants to serve, and a generated key to show (`null` when the key was configured or shown before). */
interface Tenancy {
  readonly specs: TenantSpec[];
  readonly shownKey: string | null;
}

/**
 * The tenants to serve: those of `--tenants`, or else the default tenant with its configured keys
 * — or, with none, a generated key: kept in a PGlite store's directory (so a restart serves the
 * same key) and shown only when made, made afresh for a memory store (which keeps nothing), and
 * refused for PostgreSQL (its processes would each make their own).
 * @throws UsageError for keys given both ways, or no key for a PostgreSQL store.
 */
function tenancyOf(args: ServeArgs, store: StoreSpec, env: NodeJS.ProcessEnv): Tenancy {
  if (args.tenantsFile !== undefined) {
    if (args.apiKeys.length > 0 || args.apiKeyFile !== undefined) throw new UsageError('give either --api-key/--api-key-file or --tenants, not both');
    return { specs: readTenants(args.tenantsFile), shownKey: null };
  }
  const keys = configuredKeys(args, env);
  if (keys.length > 0) return { specs: [{ id: 'default', apiKeys: keys, limits: {} }], shownKey: null };
  if (store.kind === 'postgres') {
    throw new UsageError('a PostgreSQL store needs API keys (several processes share it): --api-key-file, TXMON_API_KEY_FILE or TXMON_API_KEYS');
  }
  const generated = store.kind === 'pglite' ? generatedKeyIn(resolve(store.dir)) : { key: newApiKey(), created: true };
  return { specs: [{ id: 'default', apiKeys: [generated.key], limits: {} }], shownKey: generated.created ? generated.key : null };
}

/**
 * The tenants of a configuration file (`--config`): its tenants with their keys — for a file
 * without `tenants`, `--api-key`/`--api-key-file` replace its keys, and with none either way
 * `tenancyOf` decides (`null`).
 * @throws UsageError for `--tenants` beside `--config`, or key options beside a file with tenants
 */
function configTenancy(config: LoadedConfig, args: ServeArgs, env: NodeJS.ProcessEnv): Tenancy | null {
  if (args.tenantsFile !== undefined) throw new UsageError('give either --config or --tenants, not both');
  const flagKeys = args.apiKeys.length > 0 || args.apiKeyFile !== undefined;
  if (config.multiTenant && flagKeys)
    throw new UsageError('--api-key/--api-key-file do not apply to a configuration file with tenants (give each tenant its apiKeys)');
  const specs = tenantSpecsOf(config, () => []).map((spec) => (flagKeys ? { ...spec, apiKeys: configuredKeys(args, env) } : spec));
  if (!config.multiTenant && specs[0]?.apiKeys.length === 0) return null;
  return { specs, shownKey: null };
}

/** `specs` with each tenant's limits (`--limits` over the file's) and engine settings from the file. */
function withConfigSettings(specs: readonly TenantSpec[], config: LoadedConfig, limits: TenantLimits): TenantSpec[] {
  return specs.map((spec) => {
    const configured = config.tenants.find((tenant) => tenant.id === spec.id);
    return configured === undefined ? spec : { ...spec, limits: { ...configured.limits, ...limits }, engine: configured.engine };
  });
}

/** A server listening on `port` and `host`, answering as `startingCore` until {@link LateHandler.serve} is given the API. */
interface LateHandler {
  readonly server: Server;
  serve(handler: TxmonHttpHandler): void;
}

async function listenStarting(args: ServeArgs, port: number, afterResponses: (() => void) | undefined, detail: () => string): Promise<LateHandler> {
  // The engines need the address the server listens on (for file URLs), known once it listens; the
  // stores take from milliseconds to minutes to open. Until both, requests are answered by the
  // starting core (503), never left to a handler that does not exist yet.
  let core: (request: CoreRequest) => Promise<CoreResponse> = startingCore(args.basePath, detail);
  let handler: TxmonHttpHandler | null = null;
  const delegate = Object.assign(
    (request: Request) => (handler === null ? Promise.resolve(new Response('{"code":"NOT_READY"}', { status: 503 })) : handler(request)),
    { [HANDLER_CORE]: (request: CoreRequest) => core(request) },
  );
  const server = createNodeServer(delegate, {
    ...(afterResponses === undefined ? {} : { afterResponses }),
    maxConnections: args.maxConnections,
    maxConnectionsPerAddress: args.maxConnectionsPerAddress,
    trustedProxies: args.trustedProxies,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, args.host, () => resolve());
  });
  return {
    server,
    serve(h) {
      handler = h;
      core = h[HANDLER_CORE];
    },
  };
}

/**
 * One engine per tenant on its own store, with its limits over the common ones. A memory store's
 * budget, unless configured, is a third of the heap shared among the tenants, counted in the
 * store's units (its heap use is up to about three times its count).
 */
function createTenants(
  specs: readonly TenantSpec[],
  common: TenantLimits,
  stores: OpenStores,
  origin: string,
  single: boolean,
  metrics: ServeMetrics,
): HttpTenant[] {
  const { maxStoredBytes: _memoryBudget, ...commonEngineLimits } = common;
  return specs.map((spec) => {
    const { maxStoredBytes: _own, ...own } = spec.limits;
    const engine = createEngine({
      ...spec.engine,
      publicBaseUrl: single ? origin : `${origin}/t/${spec.id}`,
      repositories: metrics.instrument(spec.id, stores.repositories.get(spec.id) as NonNullable<ReturnType<OpenStores['repositories']['get']>>),
      limits: { ...commonEngineLimits, ...own },
    });
    metrics.watchEvaluations(spec.id, () => engine.evaluationStats());
    return { id: spec.id, apiKeys: spec.apiKeys, engine };
  });
}

/** A memory store's byte budget per tenant: configured, or a share of a third of the heap. */
function memoryBudgetOf(specs: readonly TenantSpec[], common: TenantLimits): number {
  const configured = specs.find((spec) => spec.limits.maxStoredBytes !== undefined)?.limits.maxStoredBytes ?? common.maxStoredBytes;
  const shared = Math.max(1, Math.floor(getHeapStatistics().heap_size_limit / 3 / HEAP_PER_COUNTED_BYTE / specs.length));
  return configured ?? Math.min(DEFAULT_MAX_STORED_BYTES, shared);
}

/**
 * Prunes every tenant's series every `everyMs` (one tenant at a time, never two runs at once),
 * logging what each run dropped; returns what stops it.
 */
function schedulePrunes(tenants: readonly HttpTenant[], everyMs: number, log: ServeLogger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void (async () => {
      for (const tenant of tenants) {
        try {
          const { removed } = await tenant.engine.pruneSeries();
          log.info({ tenant: tenant.id, removed }, 'pruned');
        } catch (error) {
          log.at('error', { tenant: tenant.id, fault: faultOf(error) as unknown as LogValue }, 'prune failed');
        }
      }
    })().finally(() => {
      running = false;
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The webhook secret file's content (surrounding whitespace dropped), at least MIN_WEBHOOK_SECRET_BYTES. */
function readWebhookSecret(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new UsageError(`--webhook-secret-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (Buffer.byteLength(text) < MIN_WEBHOOK_SECRET_BYTES)
    throw new UsageError(`--webhook-secret-file: the secret must be at least ${MIN_WEBHOOK_SECRET_BYTES} bytes`);
  return text;
}

/**
 * Delivers each tenant's outbox to `url` (docs/webhooks.md), a delivery failure and a dead letter
 * logged (the receiver's status, never a message's content).
 */
function startDeliveries(
  tenants: readonly HttpTenant[],
  webhook: { readonly url: string; readonly secret: string; readonly leaseMs: number; readonly name?: string },
  single: boolean,
  log: ServeLogger,
  metrics: ServeMetrics,
): OutboxSubscription[] {
  return tenants.map((tenant) => {
    const failures = metrics.outbox.deliveryFailures.labels(tenant.id);
    const subscription = startWebhookDelivery(tenant.engine, {
      url: webhook.url,
      secret: webhook.secret,
      leaseMs: webhook.leaseMs,
      ...(webhook.name === undefined ? {} : { name: webhook.name }),
      ...(single ? {} : { tenant: tenant.id }),
      onError: (error) => log.at('error', { tenant: tenant.id, fault: faultOf(error) as unknown as LogValue }, 'webhook delivery: store fault'),
      onRetry: (retry) => {
        failures.inc();
        log.at('warn', { tenant: tenant.id, seq: retry.seq, attempts: retry.attempts, lastError: retry.lastError }, 'webhook delivery failed: trying again');
      },
      onDeadLetter: (dead) => {
        failures.inc();
        log.at('error', { tenant: tenant.id, seq: dead.seq, attempts: dead.attempts, lastError: dead.lastError }, 'webhook delivery gave up on a message');
      },
    });
    const { outbox } = tenant.engine;
    metrics.watchOutbox(tenant.id, async () => (await outbox.head()) - (await outbox.getConsumer(subscription.name)).position);
    return subscription;
  });
}

/** Shows a generated key once, with two commands to try it. */
function printGeneratedKey(key: string, origin: string): void {
  process.stdout.write(
    `\nGenerated API key (shown once, kept for the next starts): ${key}\nTry:\n  curl -s -H 'x-api-key: ${key}' ${origin}/rules | head -c 300\n` +
      `  curl -s -X POST -H 'x-api-key: ${key}' -H 'content-type: application/json' ${origin}/transactions \\\n` +
      // A new transaction id and the current time on every run, so the example works every time.
      `    -d '{"type":"TRANSFER","transactionId":"try-'$(date +%s%N)'","timestamp":'$(date +%s000)',"originUserId":"u-1","originAmountDetails":{"transactionAmount":100,"transactionCurrency":"EUR"}}'\n\n`,
  );
}

/** The per-store parts of a start: the PGlite directory's lock, taken before anything in it is read or written. */
function lockStore(store: StoreSpec): DirectoryLock | null {
  return store.kind === 'pglite' ? lockDirectory(store.dir) : null;
}

/**
 * Starts `txmon serve`: resolves once the server listens (answering 503 until ready); `ready`
 * resolves once the API is served.
 * @param logTo where the log goes (default standard output).
 * @throws UsageError for a bad command line; DirectoryLockedError when another process owns the
 *   PGlite directory.
 */
export async function startServer(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, logTo?: { write(line: string): void }): Promise<ServerHandle> {
  const args = parseServeArgs(argv);
  // Read, checked and its rule modules loaded before anything is opened: a bad file exits 2.
  const config = args.configFile === undefined ? null : await loadConfigFile(args.configFile, env);
  const storeSpec = parseStoreArgument(args.store ?? config?.store ?? storeOfEnvironmentOrUsage(env) ?? DEFAULT_STORE);
  const commonLimits = args.limitsFile === undefined ? {} : parseLimits(readJsonFile(args.limitsFile, '--limits'), '--limits');
  if (args.apiKeys.length > 0) {
    process.stderr.write('txmon: warning: --api-key is visible to other users in the process list; prefer --api-key-file or TXMON_API_KEYS\n');
  }
  const webhookSecret = args.webhook === null ? null : readWebhookSecret(args.webhook.secretFile);
  // The directory is this process's before its key file is read or made, or its database opened.
  const envLevel = env.TXMON_LOG_LEVEL?.trim() || undefined;
  const minLevel = LOG_LEVELS[args.logLevel ?? (envLevel === undefined ? 'info' : logLevelOf(envLevel, 'TXMON_LOG_LEVEL'))];
  const metricsKeys = metricsKeysOf(args, env);
  const lock = lockStore(storeSpec);
  const { log, logRequest, afterResponses, time } = createServeLogging(logTo, minLevel);
  const metrics = createServeMetrics();
  const onRequest = (entry: RequestLogEntry) => {
    metrics.observeRequest(entry);
    if (minLevel <= LOG_LEVELS.info || requestLevelOf(entry) >= minLevel) logRequest(formatRequestLine(entry, time()));
  };
  const single = args.tenantsFile === undefined && config?.multiTenant !== true;
  let progress = 'opening the store';
  let stores: OpenStores | null = null;
  let tenancy: Tenancy;
  const openAll = (specs: readonly TenantSpec[]) =>
    openStores(
      storeSpec,
      specs.map((spec) => spec.id),
      {
        single,
        maxStoredBytes: memoryBudgetOf(specs, commonLimits),
        settings: args.storeSettings,
        ...(lock === null ? {} : { lock }),
        onProgress: (detail) => {
          if (detail !== progress && detail.startsWith('waiting')) log.at('warn', { detail }, 'store not ready');
          progress = detail;
        },
        onConnectionError: (error) => log.at('error', { fault: faultOf(error) as unknown as LogValue }, 'store connection lost'),
      },
    );
  let late: LateHandler;
  let lateMetrics: LateHandler | null = null;
  try {
    tenancy = (config === null ? null : configTenancy(config, args, env)) ?? tenancyOf(args, storeSpec, env);
    if (config !== null) tenancy = { ...tenancy, specs: withConfigSettings(tenancy.specs, config, commonLimits) };
    checkTenantSpecs(tenancy.specs);
    // A store in the process (memory, PGlite) opens before the server listens: PGlite's WASM runs
    // on this thread, and a server listening meanwhile would leave its clients unanswered for
    // seconds. A database server may take minutes to come: the server listens and answers 503.
    if (storeSpec.kind !== 'postgres') stores = await openAll(tenancy.specs);
    late = await listenStarting(args, args.port, afterResponses, () => progress);
    if (args.metrics.port !== null) {
      const api = late.server;
      lateMetrics = await listenStarting(args, args.metrics.port, afterResponses, () => progress).catch((error: unknown) => {
        api.close();
        throw error;
      });
    }
  } catch (error) {
    await (stores as OpenStores | null)?.close();
    lock?.release();
    throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
  }
  const { server } = late;
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : args.port;
  const origin = `http://${args.host.includes(':') ? `[${args.host}]` : args.host}:${actualPort}${args.basePath}`;
  if (stores === null) log.info({ address: `${args.host}:${actualPort}`, store: describeStore(storeSpec) }, 'txmon listening: opening the store');
  let stopPruning: () => void = () => undefined;
  const metricsServer = (lateMetrics as LateHandler | null)?.server ?? null;
  let deliveries: OutboxSubscription[] = [];
  const closeStores = async () => {
    stopPruning();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    const stopping = deliveries;
    deliveries = [];
    await Promise.all(stopping.map((d) => d.stop()));
    await stores?.close();
    lock?.release();
  };
  const ready = (async () => {
    // One turn of the event loop first: the caller installs its signal handlers before anything is
    // served or printed, so a stop asked for as soon as the key shows is a graceful one.
    await new Promise<void>((resolve) => setImmediate(resolve));
    stores ??= await openAll(tenancy.specs);
    const tenants = createTenants(tenancy.specs, commonLimits, stores, config?.publicUrl ?? origin, single, metrics);
    if (config !== null)
      await applyConfig(tenants, config, (change) =>
        log.info({ ...change }, `config: ${change.kind === 'list' ? 'list' : 'rule instance'} ${change.change.toLowerCase()}`),
      );
    if (args.pruneEveryMs !== null) stopPruning = schedulePrunes(tenants, args.pruneEveryMs, log);
    if (webhookSecret !== null && args.webhook !== null)
      deliveries = startDeliveries(tenants, { ...args.webhook, secret: webhookSecret }, single, log, metrics);
    // The file's webhooks, unless --webhook-url replaces them.
    else if (config !== null)
      deliveries = tenants.flatMap((tenant) =>
        (config.tenants.find((c) => c.id === tenant.id)?.webhooks ?? []).flatMap((hook) => startDeliveries([tenant], hook, single, log, metrics)),
      );
    const who = single ? { engine: (tenants[0] as HttpTenant).engine, apiKeys: (tenants[0] as HttpTenant).apiKeys } : { tenants };
    const endpoint = { render: metrics.render, keys: metricsKeys };
    const rateLimit = args.rate === null ? null : { requestsPerSecond: args.rate };
    late.serve(
      createHttpHandler({
        ...who,
        basePath: args.basePath,
        rateLimit,
        concurrency: args.concurrency,
        openApi: () => createOpenApiDocument({ basePath: args.basePath, serverUrl: origin.slice(0, origin.length - args.basePath.length) }),
        onRequest,
        ...(lateMetrics === null ? { metrics: endpoint } : {}),
      }),
    );
    lateMetrics?.serve(createHttpHandler({ ...who, rateLimit, serves: 'metrics', metrics: endpoint, onRequest }));
    log.info({ url: origin, tenants: tenants.map((t) => t.id), store: describeStore(storeSpec) }, 'txmon serving');
    if (tenancy.shownKey !== null) printGeneratedKey(tenancy.shownKey, origin);
  })();
  const close = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await closeStores();
  };
  // A failed start closes what it opened; the caller hears of it through `ready`.
  const settled = ready.catch(async (error: unknown) => {
    await close().catch(() => undefined);
    throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
  });
  settled.catch(() => undefined);
  return { server, metricsServer, metrics, url: origin, log, graceMs: args.graceMs, ready: settled, closeStores, close };
}

/**
 * Starts `txmon serve` and waits until it serves (for tests and embedding); see {@link startServer}.
 * @throws whatever {@link startServer} or its `ready` throws.
 */
export async function serve(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, logTo?: { write(line: string): void }): Promise<ServerHandle> {
  const handle = await startServer(argv, env, logTo);
  await handle.ready;
  return handle;
}

/**
 * pino's ISO `time` field, formatted once per millisecond: a loaded server logs several requests
 * per millisecond, and `Date#toISOString` per line showed in its profile. Same output as
 * `pino.stdTimeFunctions.isoTime`.
 */
function isoTimeCachedPerMs(): () => string {
  let lastMs = Number.NaN;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}
