/**
 * The command line of `txmon serve`, checked: every option's value and range, the tenants file, the
 * limits file and the API keys (every mistake a `UsageError` naming the option).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_CONCURRENCY } from '../http/admission.js';
import { DEFAULT_NODE_SERVER_OPTIONS } from '../http/node.js';
import type { LabelledApiKey } from '../http/types.js';
import { DEFAULT_ENGINE_LIMITS, type EngineLimits } from '../engine/limits.js';
import { LOG_LEVELS, type LogLevel } from './request-log.js';
import type { EngineOptions } from '../engine/options.js';
import { DEFAULT_STORE_SETTINGS, type StoreSettings } from './stores.js';
import { USAGE, UsageError } from './usage.js';

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** What a tenant may store and compute: the engine's limits and the memory store's byte budget. */
export type TenantLimits = Partial<EngineLimits> & { maxStoredBytes?: number };

export interface TenantSpec {
  id: string;
  /** Keys, each a string or `{ key, label }` (the label names the key's changes in the audit trail). */
  apiKeys: (string | LabelledApiKey)[];
  limits: TenantLimits;
  /** `createEngine` options beside the store, limits and public URL (from `--config`). */
  engine?: Partial<EngineOptions>;
}

/** The command line of `txmon serve`, checked. */
export interface ServeArgs {
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
  /** `--config`: the configuration file (config-file.ts). */
  readonly configFile: string | undefined;
  /** `--store` as given (`TXMON_STORE` and the default apply later). */
  readonly store: string | undefined;
  /** `--prune-every-hours`: how often each tenant's series are pruned (`null`: never). */
  readonly pruneEveryMs: number | null;
  /** The store's bounds and PostgreSQL pool. */
  readonly storeSettings: StoreSettings;
  /** Requests running engine work at once, waiting, and how long they may wait. */
  readonly concurrency: { readonly maxActive: number; readonly maxQueued: number; readonly maxWaitMs: number };
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  /** `--trust-proxy`: proxies whose `X-Forwarded-For` names the client. */
  readonly trustedProxies: readonly string[];
  /** `--metrics-port` (`null`: `/metrics` on the API's port) and `--metrics-key-file`. */
  readonly metrics: { readonly port: number | null; readonly keyFile: string | undefined };
  /** `--log-level` as given (`TXMON_LOG_LEVEL` and the default, `info`, apply later). */
  readonly logLevel: LogLevel | undefined;
  /** `--webhook-url` / `--webhook-secret-file`: where every tenant's outbox is delivered (both or neither). */
  readonly webhook: { readonly url: string; readonly secretFile: string; readonly leaseMs: number } | null;
}

/** A positive integer option (`min` ≤ value ≤ `max`), or its default when absent. */
function integerOption(values: Record<string, unknown>, name: string, fallback: number, min = 1, max = 9_999_999): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^[0-9]{1,7}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer ${min}–${max}`);
  }
  return Number(raw);
}

const OPTIONS = {
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  'api-key': { type: 'string', multiple: true },
  'api-key-file': { type: 'string' },
  tenants: { type: 'string' },
  limits: { type: 'string' },
  config: { type: 'string' },
  'rate-limit': { type: 'string' },
  'base-path': { type: 'string', default: '' },
  'shutdown-grace-ms': { type: 'string' },
  store: { type: 'string' },
  'prune-every-hours': { type: 'string' },
  'store-wait-ms': { type: 'string' },
  'store-connect-timeout-ms': { type: 'string' },
  'store-statement-timeout-ms': { type: 'string' },
  'store-lock-timeout-ms': { type: 'string' },
  'pg-pool-size': { type: 'string' },
  'max-active-requests': { type: 'string' },
  'max-queued-requests': { type: 'string' },
  'max-queue-wait-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'trust-proxy': { type: 'string', multiple: true },
  'metrics-port': { type: 'string' },
  'metrics-key-file': { type: 'string' },
  'log-level': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret-file': { type: 'string' },
  'webhook-lease-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses and checks the command line (`--help` prints the usage and exits).
 * @throws UsageError for a value out of range; Node's `ERR_PARSE_ARGS_*` errors for unknown options.
 */
export function parseServeArgs(argv: readonly string[]): ServeArgs {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
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
  const rawPrune = values['prune-every-hours'];
  if (rawPrune !== undefined && !(/^[0-9]{1,4}$/.test(rawPrune) && Number(rawPrune) >= 1))
    throw new UsageError('--prune-every-hours must be an integer 1–9999');
  const store = DEFAULT_STORE_SETTINGS;
  return {
    port,
    host: values.host ?? '127.0.0.1',
    rate,
    basePath: rawBase.replace(/\/+$/, ''),
    graceMs: integerOption(values, 'shutdown-grace-ms', DEFAULT_SHUTDOWN_GRACE_MS, 0),
    apiKeys: values['api-key'] ?? [],
    apiKeyFile: values['api-key-file'],
    tenantsFile: values.tenants,
    limitsFile: values.limits,
    configFile: values.config,
    store: values.store,
    pruneEveryMs: rawPrune === undefined ? null : Number(rawPrune) * 3_600_000,
    storeSettings: {
      startWaitMs: integerOption(values, 'store-wait-ms', store.startWaitMs, 0),
      connectTimeoutMs: integerOption(values, 'store-connect-timeout-ms', store.connectTimeoutMs),
      statementTimeoutMs: integerOption(values, 'store-statement-timeout-ms', store.statementTimeoutMs),
      lockTimeoutMs: integerOption(values, 'store-lock-timeout-ms', store.lockTimeoutMs),
      poolSize: integerOption(values, 'pg-pool-size', store.poolSize, 1, 10_000),
    },
    concurrency: {
      maxActive: integerOption(values, 'max-active-requests', DEFAULT_CONCURRENCY.maxActive),
      maxQueued: integerOption(values, 'max-queued-requests', DEFAULT_CONCURRENCY.maxQueued),
      maxWaitMs: integerOption(values, 'max-queue-wait-ms', DEFAULT_CONCURRENCY.maxWaitMs),
    },
    maxConnections: integerOption(values, 'max-connections', DEFAULT_NODE_SERVER_OPTIONS.maxConnections),
    maxConnectionsPerAddress: integerOption(values, 'max-connections-per-address', DEFAULT_NODE_SERVER_OPTIONS.maxConnectionsPerAddress),
    trustedProxies: (values['trust-proxy'] ?? []).flatMap((list) =>
      list
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    ),
    metrics: { port: values['metrics-port'] === undefined ? null : integerOption(values, 'metrics-port', 0, 0, 65_535), keyFile: values['metrics-key-file'] },
    logLevel: values['log-level'] === undefined ? undefined : logLevelOf(values['log-level'], '--log-level'),
    webhook: webhookOf(values['webhook-url'], values['webhook-secret-file'], integerOption(values, 'webhook-lease-ms', 30_000, 100, 3_600_000)),
  };
}

/**
 * A log level's name (`debug`, `info`, `warn`, `error`).
 * @throws UsageError naming `where` for any other text.
 */
export function logLevelOf(text: string, where: string): LogLevel {
  if (Object.hasOwn(LOG_LEVELS, text)) return text as LogLevel;
  throw new UsageError(`${where} must be one of ${Object.keys(LOG_LEVELS).join(', ')}`);
}

/** The metrics keys: `--metrics-key-file` / `TXMON_METRICS_KEY_FILE` (one per line), then `TXMON_METRICS_KEYS` (comma-separated). */
export function metricsKeysOf(args: ServeArgs, env: NodeJS.ProcessEnv): string[] {
  const keyFile = args.metrics.keyFile ?? (env.TXMON_METRICS_KEY_FILE?.trim() || undefined);
  return [
    ...(keyFile === undefined ? [] : readKeyFile(keyFile, args.metrics.keyFile === undefined ? 'TXMON_METRICS_KEY_FILE' : '--metrics-key-file')),
    ...(env.TXMON_METRICS_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
  ];
}

/** `--webhook-url` and `--webhook-secret-file`, checked: both or neither, an http(s) URL. */
function webhookOf(url: string | undefined, secretFile: string | undefined, leaseMs: number): ServeArgs['webhook'] {
  if (url === undefined && secretFile === undefined) return null;
  if (url === undefined || secretFile === undefined) throw new UsageError('--webhook-url and --webhook-secret-file go together');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('--webhook-url must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('--webhook-url must be an absolute http or https URL');
  return { url, secretFile, leaseMs };
}

const LIMIT_NAMES: readonly string[] = [...Object.keys(DEFAULT_ENGINE_LIMITS), 'maxStoredBytes'];

/** Limits from JSON: an object of known limit names with positive integer values. */
export function parseLimits(value: unknown, where: string): TenantLimits {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where} must be an object of limits`);
  for (const [name, limit] of Object.entries(value)) {
    if (!LIMIT_NAMES.includes(name)) throw new UsageError(`${where}: ${name} is not a known limit (${LIMIT_NAMES.join(', ')})`);
    if (!Number.isSafeInteger(limit) || (limit as number) < 1) throw new UsageError(`${where}: ${name} must be a positive integer`);
  }
  return value as TenantLimits;
}

export function readJsonFile(file: string, flag: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UsageError(`${flag}: cannot read JSON from ${file}`);
  }
}

/** API keys from a file: one per line; blank lines and lines starting with # are skipped. */
export function readKeyFile(file: string, flag: string): string[] {
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
    const isKey = (k: unknown) =>
      typeof k === 'string' ||
      (typeof k === 'object' &&
        k !== null &&
        Object.keys(k).every((name) => name === 'key' || name === 'label') &&
        typeof (k as { key?: unknown }).key === 'string' &&
        typeof (k as { label?: unknown }).label === 'string');
    if (typeof id !== 'string' || !Array.isArray(keys) || !keys.every(isKey)) {
      throw new UsageError(`--tenants: /tenants/${i} needs a string id and a list of apiKeys, each a string or {"key", "label"}`);
    }
    return { id, apiKeys: keys as (string | LabelledApiKey)[], limits: parseLimits(entry.limits, `--tenants: /tenants/${i}/limits`) };
  });
}

/**
 * The keys of the default tenant: `--api-key-file` / `TXMON_API_KEY_FILE`, `TXMON_API_KEYS` and
 * `--api-key`, in that order (none: the caller generates one).
 */
export function configuredKeys(args: ServeArgs, env: NodeJS.ProcessEnv): string[] {
  // An empty variable is as good as none (a shell's `TXMON_API_KEY_FILE= txmon serve`).
  const keyFile = args.apiKeyFile ?? (env.TXMON_API_KEY_FILE?.trim() || undefined);
  return [
    ...(keyFile === undefined ? [] : readKeyFile(keyFile, args.apiKeyFile === undefined ? 'TXMON_API_KEY_FILE' : '--api-key-file')),
    ...(env.TXMON_API_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
    ...args.apiKeys,
  ];
}
