/**
 * The `txmon` command. `txmon serve` serves the interface document's HTTP API on the embedded
 * in-memory engine: one default tenant (`--api-key`, `TXMON_API_KEYS`, or a generated key printed
 * once), or the tenants of `--tenants <file.json>`. One structured log line per request (pino's format), no
 * payload values; SIGTERM/SIGINT stop accepting connections and finish in-flight requests.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createEngine } from '../engine/create-engine.js';
import { createHttpHandler, type HttpTenant } from '../http/handler.js';
import { toNodeListener } from '../http/node.js';
import { createOpenApiDocument } from '../http/openapi.js';
import { createBatchedWriter, createFdSink, formatRequestLine } from './request-log.js';

/** What the command logs through: pino's `info`, and a synchronous flush before the process exits. */
export interface ServeLogger {
  info(obj: unknown, msg?: string): void;
  flushSync(): void;
  /** Writes out every pending request line, then calls `done`. */
  drain(done: () => void): void;
}
const logs = new WeakMap<Server, ServeLogger>();

/** The logger of a server started by {@link serve}. */
export function loggerOf(server: Server): ServeLogger {
  return logs.get(server) ?? { info: () => undefined, flushSync: () => undefined, drain: (done) => done() };
}

export const USAGE = `Usage: txmon serve [--port <n>] [--host <address>] [--api-key <key>]... [--tenants <file.json>] [--rate-limit <requests/s per key>] [--base-path <prefix>]

  --port        port to listen on (default 8080; 0 picks a free one)
  --host        address to bind (default 127.0.0.1)
  --api-key     an API key of the default tenant (repeatable; also TXMON_API_KEYS, comma-separated).
                With no key at all, one is generated and printed once.
  --tenants     JSON file {"tenants": [{"id": "acme", "apiKeys": ["…"]}, …]}: one in-memory engine per tenant
  --rate-limit  requests per second per API key (token bucket, burst 2×); default: no limit
  --base-path   mount the API under this prefix, e.g. /v1
`;

/** Thrown for bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends Error {}

interface TenantSpec {
  id: string;
  apiKeys: string[];
}

function readTenants(file: string): TenantSpec[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UsageError(`--tenants: cannot read JSON from ${file}`);
  }
  const list = typeof parsed === 'object' && parsed !== null ? (parsed as { tenants?: unknown }).tenants : undefined;
  if (!Array.isArray(list) || list.length === 0) throw new UsageError('--tenants: the file must be {"tenants": [{"id", "apiKeys": [...]}, ...]}');
  return list.map((t: unknown, i) => {
    const entry = typeof t === 'object' && t !== null ? (t as { id?: unknown; apiKeys?: unknown }) : {};
    const id = entry.id;
    const keys = entry.apiKeys;
    if (typeof id !== 'string' || !Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) {
      throw new UsageError(`--tenants: /tenants/${i} needs a string id and a list of string apiKeys`);
    }
    return { id, apiKeys: keys as string[] };
  });
}

/**
 * Stops on SIGTERM/SIGINT: no new connections, idle keep-alive sockets closed, in-flight requests
 * finished (at most 10 s), then exit 0. Installed by the command only (never by {@link serve}).
 */
export function exitOnSignals(server: Server, log: ServeLogger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stop accepting; idle keep-alive sockets are closed now, busy ones once their response is out
    // (Node keeps those alive, so they are closed as they turn idle).
    const sweep = setInterval(() => server.closeIdleConnections(), 20);
    server.close(() => {
      clearInterval(sweep);
      log.info({}, 'stopped');
      log.drain(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      log.flushSync();
      process.exit(0);
    }, 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/**
 * Starts `txmon serve`; resolves with the listening server (for tests) once it listens.
 * @param logTo where the request log goes (default standard output).
 */
export async function serve(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, logTo?: { write(line: string): void }): Promise<Server> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string', multiple: true },
      tenants: { type: 'string' },
      'rate-limit': { type: 'string' },
      'base-path': { type: 'string', default: '' },
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
  const basePath = rawBase.replace(/\/+$/, '');
  const host = values.host ?? '127.0.0.1';

  // By default the log goes to standard output, written with writeSync and never blocking (D-141).
  // Request lines are formatted as pino would and gathered: one write(2) every 25 ms, or right after
  // a batch of responses (D-142) once 16 KB are waiting, not one per request. Lifecycle lines (serving, shutting down, stopped) are
  // formatted by pino and written after the gathered request lines.
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
  const lifecycleLogger = pino({ base: null, timestamp: time }, out);
  const log: ServeLogger = {
    info: (obj, msg) => lifecycleLogger.info(obj, msg),
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
  // A test's collector gets each line at once.
  const logRequest = requests === null ? (line: string) => void out.write(line) : requests.write;
  const specs: TenantSpec[] = values.tenants !== undefined ? readTenants(values.tenants) : [];
  let generated: string | null = null;
  if (specs.length === 0) {
    const keys = [...(values['api-key'] ?? []), ...(env.TXMON_API_KEYS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== '')];
    if (keys.length === 0) {
      generated = `txm_${randomBytes(24).toString('base64url')}`;
      keys.push(generated);
    }
    specs.push({ id: 'default', apiKeys: keys });
  } else if ((values['api-key'] ?? []).length > 0) {
    throw new UsageError('give either --api-key or --tenants, not both');
  }

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}${basePath}`;
  const single = values.tenants === undefined;
  const tenants: HttpTenant[] = specs.map((spec) => ({
    id: spec.id,
    apiKeys: spec.apiKeys,
    engine: createEngine({ publicBaseUrl: single ? origin : `${origin}/t/${spec.id}` }),
  }));
  let handler;
  try {
    handler = createHttpHandler({
      ...(single ? { engine: (tenants[0] as HttpTenant).engine, apiKeys: (tenants[0] as HttpTenant).apiKeys } : { tenants }),
      basePath,
      rateLimit: rate === null ? null : { requestsPerSecond: rate },
      openApi: () => createOpenApiDocument({ basePath, serverUrl: origin.slice(0, origin.length - basePath.length) }),
      onRequest: (entry) => logRequest(formatRequestLine(entry, time())),
    });
  } catch (error) {
    server.close();
    throw new UsageError((error as Error).message);
  }
  server.on('request', toNodeListener(handler, requests === null ? {} : { afterResponses: requests.flushIfLarge }));
  log.info({ url: origin, tenants: tenants.map((t) => t.id) }, 'txmon serving');
  logs.set(server, log);
  if (generated !== null) {
    process.stdout.write(
      `\nGenerated API key (shown once): ${generated}\nTry:\n  curl -s -H 'x-api-key: ${generated}' ${origin}/rules | head -c 300\n` +
        `  curl -s -X POST -H 'x-api-key: ${generated}' -H 'content-type: application/json' ${origin}/transactions \\\n` +
        `    -d '{"type":"TRANSFER","transactionId":"t-1","timestamp":${Date.now()},"originUserId":"u-1","originAmountDetails":{"transactionAmount":100,"transactionCurrency":"EUR"}}'\n\n`,
    );
  }

  return server;
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
