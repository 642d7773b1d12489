/**
 * What `txmon --help` prints and the error for bad command-line input: kept apart from the
 * commands so that help and usage errors answer without loading the engine, the HTTP layer or a
 * store driver (main.ts imports a command's module only when that command runs).
 */

/** Usage of `txmon serve`. */
export const USAGE = `Usage: txmon serve [--port <n>] [--host <address>] [--store memory|pglite:<dir>|postgres://…] [--api-key-file <file>] [--tenants <file.json>] [--limits <file.json>] [--rate-limit <requests/s per key>] [--base-path <prefix>]

  --port          port to listen on (default 8080; 0 picks a free one)
  --host          address to bind (default 127.0.0.1)
  --api-key-file  a file with the API keys of the default tenant, one per line (also TXMON_API_KEY_FILE,
                  or the keys themselves in TXMON_API_KEYS, comma-separated). With no key at all,
                  one is generated and printed once.
  --api-key       an API key on the command line (repeatable). Other users of the machine can read
                  it in the process list: prefer --api-key-file or TXMON_API_KEYS.
  --tenants       JSON file {"tenants": [{"id": "acme", "apiKeys": ["…"], "limits": {…}}, …]}: one
                  engine per tenant, each with its own store (a PGlite subdirectory, a PostgreSQL
                  schema txmon_<id>, or memory) and its own limits (over --limits)
  --limits        JSON file of limits for every tenant: engine limits (maxTransactionSize,
                  maxRuleInstances, … see docs/security.md) and, for --store memory, maxStoredBytes
                  (default: 256 MiB, or less so that all tenants together fit in a third of the heap)
  --store         where the data is kept (also TXMON_STORE): pglite:<dir> (default pglite:./txmon-data,
                  kept across restarts), postgres://user:password@host/db (several processes may
                  share it), or memory (thrown away on exit)
  --rate-limit    requests per second per API key (token bucket, burst 2×); default: no limit
  --base-path     mount the API under this prefix, e.g. /v1
  --shutdown-grace-ms  on SIGTERM/SIGINT, how long in-flight requests may take to finish (default 10000)
  --prune-every-hours  drop the windowed-aggregate entries no rule instance reads any more, every n
                  hours (see txmon prune); default: never
`;

/** Usage of `txmon prune`. */
export const PRUNE_USAGE = `Usage: txmon prune [--store pglite:<dir>|postgres://…] [--tenants <file.json>] [--late-arrival-ms <n>] [--dry-run]

  Drops the windowed-aggregate entries no active rule instance can read any more: per series,
  those older than now minus the furthest back an instance reads it minus the late-arrival margin.
  Transactions, events, alerts and cases are kept. Prints one JSON line per tenant.

  --store            the store to prune (also TXMON_STORE; default pglite:./txmon-data). A PGlite
                     directory must not be in use by a running server.
  --tenants          the tenants file of the server: prunes each tenant's store
  --late-arrival-ms  how much older than now a transaction may be and still see exact windows
                     (default 604800000, 7 days; use the server's value)
  --dry-run          print the horizons without dropping anything
`;

/** Thrown for bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends Error {}
