/**
 * The `txmon` command. `txmon serve` serves the interface document's HTTP API on txmon engines
 * over a store (`--store`: PGlite files by default, PostgreSQL, or memory): one default tenant
 * (`--api-key-file`, `TXMON_API_KEYS`, `--api-key`, or a
 * generated key printed once), or the tenants of `--tenants <file.json>`. One structured log line
 * per request (pino's format), no payload values; SIGTERM/SIGINT stop accepting connections and
 * finish in-flight requests.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeSync } from 'node:fs';
import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { createEngine } from '../default-engine.js';
import { DEFAULT_ENGINE_LIMITS, type EngineLimits } from '../engine/limits.js';
import { createHttpHandler } from '../http/handler.js';
import { tenantsOf } from '../http/auth.js';
import { createNodeServer, drainAndClose } from '../http/node.js';
import { createOpenApiDocument } from '../http/openapi.js';
import { HANDLER_CORE, type CoreRequest, type HttpTenant, type TxmonHttpHandler } from '../http/types.js';
import { DEFAULT_MAX_STORED_BYTES } from '../repositories/memory/index.js';
import { DEFAULT_STORE, StoreSpecError, describeStore, openStore, parseStore, type OpenStore, type StoreSpec } from './stores.js';
import { createBatchedWriter, createFdSink, formatLogLine, formatRequestLine, type LogValue } from './request-log.js';
import { USAGE, UsageError } from './usage.js';

export { USAGE, UsageError } from './usage.js';

/** What the command logs through: `info` (a line in pino's format), and a synchronous flush before the process exits. */
export interface ServeLogger {
  info(fields: Readonly<Record<string, LogValue | undefined>>, msg: string): void;
  flushSync(): void;
  /** Writes out every pending request line, then calls `done`. */
  drain(done: () => void): void;
}
const logs = new WeakMap<Server, ServeLogger>();
/** Per server, how to close its tenants' stores once it stopped serving. */
const closers = new WeakMap<Server, () => Promise<void>>();

/** Closes the stores of a server started by {@link serve} (after it stopped serving). */
export function closeStoresOf(server: Server): Promise<void> {
  return closers.get(server)?.() ?? Promise.resolve();
}

/** A `--store` / `TXMON_STORE` value, or the usage error that names it. */
function parseStoreArgument(value: string): StoreSpec {
  try {
    return parseStore(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
const graces = new WeakMap<Server, number>();

/** The logger of a server started by {@link serve}. */
export function loggerOf(server: Server): ServeLogger {
  return logs.get(server) ?? { info: () => undefined, flushSync: () => undefined, drain: (done) => done() };
}

/** How long a server started by {@link serve} lets in-flight requests finish on shutdown (`--shutdown-grace-ms`). */
export function shutdownGraceOf(server: Server): number {
  return graces.get(server) ?? DEFAULT_SHUTDOWN_GRACE_MS;
}

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Heap bytes per byte the memory store counts, at most (measured with transactions of thousands of tiny fields; see docs/security.md). */
const HEAP_PER_COUNTED_BYTE = 3;

/** What a tenant may store and compute: the engine's limits and the memory store's byte budget. */
type TenantLimits = Partial<EngineLimits> & { maxStoredBytes?: number };

export interface TenantSpec {
  id: string;
  apiKeys: string[];
  limits: TenantLimits;
}

const LIMIT_NAMES: readonly string[] = [...Object.keys(DEFAULT_ENGINE_LIMITS), 'maxStoredBytes'];

/** Limits from JSON: an object of known limit names with positive integer values. */
function parseLimits(value: unknown, where: string): TenantLimits {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where} must be an object of limits`);
  for (const [name, limit] of Object.entries(value)) {
    if (!LIMIT_NAMES.includes(name)) throw new UsageError(`${where}: ${name} is not a known limit (${LIMIT_NAMES.join(', ')})`);
    if (!Number.isSafeInteger(limit) || (limit as number) < 1) throw new UsageError(`${where}: ${name} must be a positive integer`);
  }
  return value as TenantLimits;
}

function readJsonFile(file: string, flag: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UsageError(`${flag}: cannot read JSON from ${file}`);
  }
}

/** API keys from a file: one per line; blank lines and lines starting with # are skipped. */
function readKeyFile(file: string, flag: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${flag}: cannot read ${file}`);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

export function readTenants(file: string): TenantSpec[] {
  const parsed = readJsonFile(file, '--tenants');
  const list = typeof parsed === 'object' && parsed !== null ? (parsed as { tenants?: unknown }).tenants : undefined;
  if (!Array.isArray(list) || list.length === 0) throw new UsageError('--tenants: the file must be {"tenants": [{"id", "apiKeys": [...]}, ...]}');
  return list.map((t: unknown, i) => {
    const entry = typeof t === 'object' && t !== null ? (t as { id?: unknown; apiKeys?: unknown; limits?: unknown }) : {};
    const id = entry.id;
    const keys = entry.apiKeys;
    if (typeof id !== 'string' || !Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) {
      throw new UsageError(`--tenants: /tenants/${i} needs a string id and a list of string apiKeys`);
    }
    return { id, apiKeys: keys as string[], limits: parseLimits(entry.limits, `--tenants: /tenants/${i}/limits`) };
  });
}

/**
 * Stops on SIGTERM/SIGINT: no new connections, idle keep-alive connections closed, in-flight
 * requests finished and answered with `connection: close` (at most `graceMs`), the tenants' stores
 * closed, then `stopped` is logged and the process exits 0 — on every path, the forced one after
 * `graceMs` included. A second
 * signal while stopping is logged and changes nothing. Installed by the command only (never by
 * {@link serve}).
 */
export function exitOnSignals(server: Server, log: ServeLogger, graceMs = DEFAULT_SHUTDOWN_GRACE_MS): void {
  let stopping = false;
  let exiting = false;
  const exit = (forced: boolean) => {
    if (exiting) return;
    exiting = true;
    // The stores close after the last response: a pool's connections, PGlite's files.
    void closeStoresOf(server).finally(() => {
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

/** The command line of `txmon serve`, checked. */
interface ServeArgs {
  readonly port: number;
  readonly host: string;
  /** Requests per second per API key; `null` for no limit. */
  readonly rate: number | null;
  /** Without trailing slashes. */
  readonly basePath: string;
  readonly graceMs: number;
  readonly apiKeys: readonly string[];
  readonly apiKeyFile: string | undefined;
  readonly tenantsFile: string | undefined;
  readonly limitsFile: string | undefined;
  /** `--store` as given (`TXMON_STORE` and the default apply later). */
  readonly store: string | undefined;
  /** `--prune-every-hours`: how often each tenant's series are pruned (`null`: never). */
  readonly pruneEveryMs: number | null;
}

/**
 * Parses and checks the command line (`--help` prints the usage and exits).
 * @throws UsageError for a value out of range; Node's `ERR_PARSE_ARGS_*` errors for unknown options.
 */
function parseServeArgs(argv: readonly string[]): ServeArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string', multiple: true },
      'api-key-file': { type: 'string' },
      tenants: { type: 'string' },
      limits: { type: 'string' },
      'rate-limit': { type: 'string' },
      'base-path': { type: 'string', default: '' },
      'shutdown-grace-ms': { type: 'string' },
      store: { type: 'string' },
      'prune-every-hours': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!/^[0-9]{1,5}$/.test(values.port ?? '') || port > 65_535) throw new UsageError('--port must be an integer 0–65535');
  const rate = values['rate-limit'] === undefined ? null : Number(values['rate-limit']);
  if (rate !== null && !(Number.isFinite(rate) && rate > 0)) throw new UsageError('--rate-limit must be a positive number');
  const rawBase = values['base-path'] ?? '';
  if (rawBase !== '' && !/^\/[A-Za-z0-9/_-]*$/.test(rawBase)) throw new UsageError('--base-path must start with / and use [A-Za-z0-9/_-]');
  const rawGrace = values['shutdown-grace-ms'];
  if (rawGrace !== undefined && !/^[0-9]{1,7}$/.test(rawGrace)) throw new UsageError('--shutdown-grace-ms must be an integer 0–9999999');
  const rawPrune = values['prune-every-hours'];
  if (rawPrune !== undefined && !(/^[0-9]{1,4}$/.test(rawPrune) && Number(rawPrune) >= 1))
    throw new UsageError('--prune-every-hours must be an integer 1–9999');
  return {
    port,
    host: values.host ?? '127.0.0.1',
    rate,
    basePath: rawBase.replace(/\/+$/, ''),
    graceMs: rawGrace === undefined ? DEFAULT_SHUTDOWN_GRACE_MS : Number(rawGrace),
    apiKeys: values['api-key'] ?? [],
    apiKeyFile: values['api-key-file'],
    tenantsFile: values.tenants,
    limitsFile: values.limits,
    store: values.store,
    pruneEveryMs: rawPrune === undefined ? null : Number(rawPrune) * 3_600_000,
  };
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
function createServeLogging(logTo: { write(line: string): void } | undefined): ServeLogging {
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
    info: (fields, msg) => void out.write(formatLogLine(fields, msg, time())),
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

/**
 * The tenants to serve: those of `--tenants`, or else the default tenant with the keys of
 * `--api-key-file` / `TXMON_API_KEY_FILE`, `TXMON_API_KEYS` and `--api-key` — or a key generated
 * here (returned, to be shown once) when none is given.
 * @throws UsageError for keys given both ways.
 */
function tenantSpecs(args: ServeArgs, fromFile: TenantSpec[], env: NodeJS.ProcessEnv): { specs: TenantSpec[]; generated: string | null } {
  if (fromFile.length > 0) {
    if (args.apiKeys.length > 0 || args.apiKeyFile !== undefined) throw new UsageError('give either --api-key/--api-key-file or --tenants, not both');
    return { specs: fromFile, generated: null };
  }
  const keyFile = args.apiKeyFile ?? env.TXMON_API_KEY_FILE;
  const keys = [
    ...(keyFile === undefined ? [] : readKeyFile(keyFile, args.apiKeyFile === undefined ? 'TXMON_API_KEY_FILE' : '--api-key-file')),
    ...(env.TXMON_API_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
    ...args.apiKeys,
  ];
  const generated = keys.length === 0 ? `txm_${randomBytes(24).toString('base64url')}` : null;
  if (generated !== null) keys.push(generated);
  return { specs: [{ id: 'default', apiKeys: keys, limits: {} }], generated };
}

/**
 * One engine per tenant on its own store, with its limits over the common ones. A memory store's
 * budget, unless configured, is a third of the heap shared among the tenants, counted in the
 * store's units (its heap use is up to about three times its count).
 */
async function createTenants(
  specs: readonly TenantSpec[],
  common: TenantLimits,
  store: StoreSpec,
  origin: string,
  single: boolean,
): Promise<{ tenants: HttpTenant[]; stores: OpenStore[] }> {
  const sharedStoredBytes = Math.max(1, Math.floor(getHeapStatistics().heap_size_limit / 3 / HEAP_PER_COUNTED_BYTE / specs.length));
  const { maxStoredBytes: commonStoredBytes, ...commonEngineLimits } = common;
  const tenants: HttpTenant[] = [];
  const stores: OpenStore[] = [];
  try {
    for (const spec of specs) {
      const { maxStoredBytes, ...own } = spec.limits;
      const opened = await openStore(store, spec.id, single, {
        maxStoredBytes: maxStoredBytes ?? commonStoredBytes ?? Math.min(DEFAULT_MAX_STORED_BYTES, sharedStoredBytes),
      });
      stores.push(opened);
      tenants.push({
        id: spec.id,
        apiKeys: spec.apiKeys,
        engine: createEngine({
          publicBaseUrl: single ? origin : `${origin}/t/${spec.id}`,
          repositories: opened.repositories,
          limits: { ...commonEngineLimits, ...own },
        }),
      });
    }
  } catch (error) {
    await closeStores(stores);
    throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
  }
  return { tenants, stores };
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
          log.info({ tenant: tenant.id, error: (error as Error).message }, 'prune failed');
        }
      }
    })().finally(() => {
      running = false;
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Closes every store (a pool's connections, PGlite's files); failures are ignored, the process is ending. */
async function closeStores(stores: readonly OpenStore[]): Promise<void> {
  for (const store of stores) await store.close().catch(() => undefined);
}

/** A server listening on `port` and `host` with a handler set later, once the address is known. */
async function listenWithLateHandler(
  args: ServeArgs,
  afterResponses: (() => void) | undefined,
): Promise<{ server: Server; setHandler(handler: TxmonHttpHandler): void }> {
  // The engines need the address the server listens on (for file URLs), known once it listens: the
  // server starts with a handler that delegates to the real one, set in the same turn as `listen`
  // completes (so before any request can be read).
  let handler: TxmonHttpHandler | undefined;
  const delegate = Object.assign((request: Request) => (handler as TxmonHttpHandler)(request), {
    [HANDLER_CORE]: (request: CoreRequest) => (handler as TxmonHttpHandler)[HANDLER_CORE](request),
  });
  const server = createNodeServer(delegate, afterResponses === undefined ? {} : { afterResponses });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(args.port, args.host, () => resolve());
  });
  return { server, setHandler: (h) => (handler = h) };
}

/** Refuses bad tenant ids or keys before anything is opened (the handler checks them the same way). */
function checkTenantSpecs(specs: readonly TenantSpec[]): void {
  try {
    tenantsOf({ tenants: specs.map((spec) => ({ id: spec.id, apiKeys: spec.apiKeys, engine: undefined as never })) });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Starts `txmon serve`; resolves with the listening server (for tests) once it listens.
 * @param logTo where the request log goes (default standard output).
 */
export async function serve(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, logTo?: { write(line: string): void }): Promise<Server> {
  const args = parseServeArgs(argv);
  const { log, logRequest, afterResponses, time } = createServeLogging(logTo);
  const fromFile = args.tenantsFile === undefined ? [] : readTenants(args.tenantsFile);
  const commonLimits = args.limitsFile === undefined ? {} : parseLimits(readJsonFile(args.limitsFile, '--limits'), '--limits');
  const { specs, generated } = tenantSpecs(args, fromFile, env);
  checkTenantSpecs(specs);
  if (args.apiKeys.length > 0) {
    process.stderr.write('txmon: warning: --api-key is visible to other users in the process list; prefer --api-key-file or TXMON_API_KEYS\n');
  }
  const { server, setHandler } = await listenWithLateHandler(args, afterResponses);
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : args.port;
  const origin = `http://${args.host.includes(':') ? `[${args.host}]` : args.host}:${actualPort}${args.basePath}`;
  const single = args.tenantsFile === undefined;
  const storeSpec = parseStoreArgument(args.store ?? (env.TXMON_STORE?.trim() || DEFAULT_STORE));
  let opened: { tenants: HttpTenant[]; stores: OpenStore[] };
  try {
    opened = await createTenants(specs, commonLimits, storeSpec, origin, single);
  } catch (error) {
    server.close();
    throw error;
  }
  const { tenants, stores } = opened;
  const stopPruning = args.pruneEveryMs === null ? () => undefined : schedulePrunes(tenants, args.pruneEveryMs, log);
  closers.set(server, () => {
    stopPruning();
    return closeStores(stores);
  });
  try {
    setHandler(
      createHttpHandler({
        ...(single ? { engine: (tenants[0] as HttpTenant).engine, apiKeys: (tenants[0] as HttpTenant).apiKeys } : { tenants }),
        basePath: args.basePath,
        rateLimit: args.rate === null ? null : { requestsPerSecond: args.rate },
        openApi: () => createOpenApiDocument({ basePath: args.basePath, serverUrl: origin.slice(0, origin.length - args.basePath.length) }),
        onRequest: (entry) => logRequest(formatRequestLine(entry, time())),
      }),
    );
  } catch (error) {
    server.close();
    await closeStores(stores);
    throw new UsageError((error as Error).message);
  }
  log.info({ url: origin, tenants: tenants.map((t) => t.id), store: describeStore(storeSpec) }, 'txmon serving');
  logs.set(server, log);
  graces.set(server, args.graceMs);
  if (generated !== null) printGeneratedKey(generated, origin);
  return server;
}

/** Shows a generated key once, with two commands to try it. */
function printGeneratedKey(key: string, origin: string): void {
  process.stdout.write(
    `\nGenerated API key (shown once): ${key}\nTry:\n  curl -s -H 'x-api-key: ${key}' ${origin}/rules | head -c 300\n` +
      `  curl -s -X POST -H 'x-api-key: ${key}' -H 'content-type: application/json' ${origin}/transactions \\\n` +
      `    -d '{"type":"TRANSFER","transactionId":"t-1","timestamp":${Date.now()},"originUserId":"u-1","originAmountDetails":{"transactionAmount":100,"transactionCurrency":"EUR"}}'\n\n`,
  );
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
