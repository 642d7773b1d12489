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
                  one is generated, kept in the PGlite directory (<dir>/.api-key, mode 0600) and
                  printed once (a memory store makes a new one each start; PostgreSQL needs keys).
  --api-key       an API key on the command line (repeatable). Other users of the machine can read
                  it in the process list: prefer --api-key-file or TXMON_API_KEYS.
  --tenants       JSON file {"tenants": [{"id": "acme", "apiKeys": ["…"], "limits": {…}}, …]}: one
                  engine per tenant, each with its own store (a PGlite subdirectory, a PostgreSQL
                  schema txmon_<id>, or memory) and its own limits (over --limits); a key may be
                  {"key": "…", "label": "ops"}: the audit trail names its changes acme/ops
  --limits        JSON file of limits for every tenant: engine limits (maxTransactionSize,
                  maxRuleInstances, … see docs/security.md) and, for --store memory, maxStoredBytes
                  (default: 256 MiB, or less so that all tenants together fit in a third of the heap)
  --store         where the data is kept (also TXMON_STORE, or TXMON_STORE_FILE: a file holding it,
                  e.g. a secret with a PostgreSQL URL and its password): pglite:<dir> (default pglite:./txmon-data,
                  kept across restarts; one process at a time, a second is refused), postgres://user:
                  password@host/db (several processes may share it), or memory (thrown away on exit)
  --rate-limit    requests per second per API key (token bucket, burst 2×); default: no limit
  --base-path     mount the API under this prefix, e.g. /v1
  --shutdown-grace-ms  on SIGTERM/SIGINT, how long in-flight requests may take to finish (default 10000)
  --prune-every-hours  drop the windowed-aggregate entries no rule instance reads any more, every n
                  hours (see txmon prune); default: never
  --log-level     debug, info (default), warn or error: lines below it are not written (also
                  TXMON_LOG_LEVEL). At warn, answered requests are not logged; faults always are.
  --metrics-key-file  a file of keys that read /metrics and nothing else, one per line (also
                  TXMON_METRICS_KEY_FILE, or TXMON_METRICS_KEYS comma-separated), sent as
                  "Authorization: Bearer <key>" or x-api-key; an API key reads its own tenant's series
  --metrics-port  serve /metrics (and /healthz, /readyz) on this port instead of the API's

  Faults and bounds (docs/persistence.md, "Faults"): a store that fails or is slow is answered 503
  with Retry-After, never waited for without end.
  --store-wait-ms               how long a database that cannot be reached at start is tried again
                                (the server answers 503 meanwhile), then exit code 1 (default 60000)
  --store-connect-timeout-ms    longest wait to connect, or for a pooled connection (default 3000)
  --store-statement-timeout-ms  longest statement (default 30000)
  --store-lock-timeout-ms       longest wait for a lock held by another session (default 2000)
  --pg-pool-size                PostgreSQL connections of the process, shared by all tenants (default 10)
  --max-active-requests         requests running at once (default 64)
  --max-queued-requests         requests waiting for their turn; past it 503 at once (default 1024)
  --max-queue-wait-ms           longest wait for a turn; past it 503 (default 10000)
  --max-connections             open connections; past it 503 and close (default 1024)
  --max-connections-per-address open connections from one client address (default 256)
  --trust-proxy <list>          proxies (addresses, CIDR ranges, loopback) whose X-Forwarded-For names
                                the client for the per-address limits (repeatable, comma-separated)
  --config <file.json>          the configuration file (docs/configuration.md): store, tenants and keys,
                                limits, currencies and rates, risk model, lists, rule instances ensured
                                at start, webhooks, public URL, URL-signing secret, rule modules. Beside
                                it, --store, --api-key(-file), --limits (merged over the file's) and
                                --webhook-* (replacing the file's webhooks) win; --tenants is refused
  --webhook-url <url>           deliver every tenant's outbox there, signed (docs/webhooks.md)
  --webhook-secret-file <file>  the signing secret (at least 16 bytes; with --webhook-url)
  --webhook-lease-ms <n>        how long a delivering process keeps its turn unrenewed; after a crash
                                another takes over once it runs out (default 30000)

  Routes without a key: /healthz (the process is alive) and /readyz (every store answers: 200, else 503).
  Exit codes: 0 stopped by SIGTERM/SIGINT, 1 could not start (store unreachable, directory in use),
  2 bad command line.
`;

/** Usage of `txmon prune`. */
export const PRUNE_USAGE = `Usage: txmon prune [--store pglite:<dir>|postgres://…] [--tenants <file.json>] [--late-arrival-ms <n>] [--dry-run]

  Drops the windowed-aggregate entries no active rule instance can read any more: per series,
  those older than now minus the furthest back an instance reads it minus the late-arrival margin.
  Transactions, events, alerts and cases are kept. Prints one JSON line per tenant.

  --store            the store to prune (also TXMON_STORE; default pglite:./txmon-data). A PGlite
                     directory in use by a running server is refused (exit code 1).
  --tenants          the tenants file of the server: prunes each tenant's store
  --late-arrival-ms  how much older than now a transaction may be and still see exact windows
                     (default 604800000, 7 days; use the server's value)
  --dry-run          print the horizons without dropping anything
`;

/** Usage of `txmon verify-log`. */
export const VERIFY_LOG_USAGE = `Usage: txmon verify-log [--store pglite:<dir>|postgres://…] [--tenants <file.json>] [--anchor <seq>:<hash>]

  Verifies the decision log — every stored transaction and event result, chained by SHA-256 in the
  order stored (docs/decision-log.md). Prints one JSON line per tenant: ok, the number of entries,
  the head (position and hash) and the first entry edited, removed, inserted or moved, if any.
  Exit code 0 when every log is intact, 3 when one is not, 1 when a store cannot be read.

  --store    the store (also TXMON_STORE; default pglite:./txmon-data). A PGlite directory in use
             by a running server is refused (exit code 1).
  --tenants  the tenants file of the server: verifies each tenant's log
  --anchor   a head printed by an earlier run and kept outside the store (<seq>:<hash>): the log
             must still pass through it, which catches a log rewritten whole (one tenant only)
`;

/** Usage of `txmon generate`. */
export const GENERATE_USAGE = `Usage: txmon generate --out <history.ndjson[.gz]> --labels <labels.csv> [--users <n>] [--days <n>] [--seed <n>] [--users-out <users.ndjson[.gz]>] [--start YYYY-MM-DD] [--typology-rate <share>] [--min-schemes <n>] [--typologies <list>]

  Writes a seeded synthetic payment history with injected, labelled money-laundering typologies
  (docs/typologies.md). The same arguments give byte-identical files. Prints one JSON line of counts.

  --out            the history: one transaction (POST /transactions body) or transaction event
                   (POST /events/transaction body) per line, in time order; gzip when it ends in .gz
  --labels         CSV "level,id,typology,scheme": the users and transactions of each injected scheme
  --users-out      the customers: one POST /consumer/users or /business/users body per line
  --users          customers (default 1000; at least 100 with typologies)
  --days           days of history, 14 to 3660 (default 30)
  --seed           any integer from 0 to 2^53 - 1 (default 1)
  --start          first day, UTC (default 2026-01-01); timestamps are epoch milliseconds
  --typology-rate  share of customers in injected schemes, 0 to 0.25 (default 0.025)
  --min-schemes    fewest schemes of each typology, whatever the rate (default 3)
  --typologies     comma-separated: structuring, fan_in, fan_out, pass_through, dormancy_burst,
                   round_amounts, high_risk_corridor, cycle; or all (default) or none

  Exit codes: 0 written, 1 a file could not be written, 2 bad command line.
`;

/** Thrown for bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** Usage of `txmon import`. */
export const IMPORT_USAGE = `Usage: txmon import --store pglite:<dir>|postgres://… [--tenant <id>] [--mode import|monitor] <file.ndjson[.gz]>

  Streams transactions, transaction events and users into a store through the batch path
  (POST /batch/… in process), in file order, up to 10,000 records a batch: the format txmon generate
  writes (a line with "type" and "transactionId" is a transaction, one with "transactionId" only an
  event, any other a user; .gz is read gzipped). Lines that are not JSON or that the engine refuses
  are listed with their line numbers; the import goes on. Running it again completes an
  interrupted import (records stored already are replays).

  --store    the store to import into (a PGlite directory must not be in use by a server)
  --tenant   the tenant's schema or directory (default: the store's own)
  --mode     import (default): history that fills the windows only — no rules run, nothing counted,
             alerted or scored; monitor: every record monitored as a single call would be
`;

/** Usage of `txmon simulate`. */
export const SIMULATE_USAGE = `Usage: txmon simulate (--history <file.ndjson[.gz]|file.csv[.gz]> | --store pglite:<dir>|postgres://… [--tenant <id>] [--from <date>] [--to <date>])
                      --rules <baseline.json> [--candidate <candidate.json>] [--labels <labels.csv>] [--users <users.ndjson>]
                      [--engine <engine.json>] [--csv-map <columns.json>] [--report <report.html>] [--json <report.json>] [--strict]

  Replays a history through a baseline rule set and a candidate (docs/backtesting.md): what each would
  have flagged, alerted and missed. One pass, the engine's own evaluation, nothing stored anywhere.

  --history    transactions and transaction events in time order: NDJSON (one per line; a line with
               "type" is a transaction, one with "transactionState" and no "type" an event) or CSV
               (a header of wire-format dot paths such as originAmountDetails.transactionAmount, or
               columns mapped to them by --csv-map {"column": "dot.path"}); .gz is read gzipped
  --store      a store's own history instead, read in time order from a read-only snapshot (a server on
               PostgreSQL keeps serving; a PGlite directory must not be in use); --tenant names the
               tenant's schema or directory; --from / --to bound it (dates or epoch ms)
  --rules      the baseline: a JSON array of rule-instance requests (what GET /rule-instances answers)
  --candidate  the rule set to compare with the baseline
  --labels     CSV with a header level,id,typology[,scheme]: precision, recall and F1 against them
  --users      users the host created, one JSON body per line ("type": CONSUMER or BUSINESS, else a
               body with legalEntity is a business)
  --engine     JSON of engine settings: baseCurrency, caseGrouping, defaultRiskLevel, lateArrivalMs, limits,
               riskFactors, riskBands, lists ([{"listId", "listType", "subtype", "items"}]), users
  --report     write the report as one self-contained HTML page
  --json       write the report as JSON
  --strict     stop at the first line that is not valid (exit code 1, naming the line); by default such
               lines are reported with their line numbers and the replay goes on
`;

/** Usage of `txmon config`. */
export const CONFIG_USAGE = `Usage: txmon config check <txmon.json> | txmon config schema

  Checks a configuration file as txmon serve --config does at start, without opening a store: the
  JSON Schema (docs/txmon-config.schema.json), the files and environment variables it names, the
  rule modules, every rule instance built (rule ids known, parameters valid) and the engine settings.
  Prints a summary and exits 0, or lists every problem by its JSON Pointer path and exits 2.
  txmon config schema prints the file's JSON Schema (the one published as docs/txmon-config.schema.json).
`;
