/**
 * The metrics of `txmon serve`, in Prometheus' text format through prom-client (docs/security.md
 * says who may read them): requests, decisions, rule runs and hits, alerts opened and store
 * latency per tenant, the process's own (event-loop lag, heap, CPU), and the outbox's place.
 *
 * Requests are observed from the request log's entry (route pattern, never the raw path). The rest
 * is counted at the store boundary, by wrapping the repositories the command builds
 * ({@link ServeMetrics.instrument}): every repository call is timed, and what a committed write
 * stored is counted once — a replayed request writes nothing and counts nothing, a write that fails
 * (or a unit of work that rolls back) counts nothing. Calls to a memory store are the engine's own
 * CPU work, not a store's latency: they are not timed.
 *
 * Hot-path counts are plain numbers, handed to prom-client's registry when it is scraped: the
 * counters through `collect`, the two histograms as metrics of their own ({@link createHistogram}),
 * since prom-client's `observe` (labels hashed on every call) cost ~1.5 µs a request here.
 */
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import type { EvaluationStats } from '../engine/evaluation-stats.js';
import type { AlertHit, Repositories, TransactionOutcome, UserRuleWrites } from '../engine/repositories.js';
import { IMPORTED_RESULT } from '../engine/services/evaluate-transaction.js';
import { methodNames } from '../engine/store-faults.js';
import type { RequestLogEntry } from '../http/types.js';

/** The metrics of one `txmon serve`. */
export interface ServeMetrics {
  /** Counts one answered request (from its request-log entry). */
  observeRequest(entry: RequestLogEntry): void;
  /** `repositories` of `tenant`, timed and counted (see the module comment). */
  instrument(tenant: string, repositories: Repositories): Repositories;
  /**
   * The text for a reader: `null` reads every series; a tenant id reads the series labelled with
   * that tenant and those of no tenant (the process's), never another tenant's.
   */
  render(tenant: string | null): Promise<{ contentType: string; body: string }>;
  /**
   * The outbox's metrics: messages its webhook delivery has not yet acknowledged (a gauge per
   * tenant, read when scraped from what {@link ServeMetrics.watchOutbox} registers) and failed
   * delivery attempts (a counter per tenant, for the delivery to increment).
   */
  readonly outbox: { readonly backlog: Gauge<'tenant'>; readonly deliveryFailures: Counter<'tenant'> };
  /** Registers how to read `tenant`'s outbox backlog (messages after the delivery's position); a read that fails gives no sample. */
  watchOutbox(tenant: string, backlog: () => Promise<number>): void;
  /** Registers how to read `tenant`'s engine counters of rules that could not evaluate (`engine.evaluationStats`). */
  watchEvaluations(tenant: string, stats: () => EvaluationStats): void;
  readonly registry: Registry;
}

/** Request latency buckets, in seconds: 0.5 ms to 10 s. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Store latency buckets, in seconds: 0.1 ms (a memory store) to 5 s. */
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** Counts kept per tenant between scrapes, as plain numbers. */
interface TenantCounts {
  /** `<kind> <status>` → decisions. */
  readonly decisions: Map<string, number>;
  /** Rule instance id → [runs, hits]. */
  readonly rules: Map<string, [number, number]>;
  alertsOpened: number;
}

/** What one committed write stored, to count. */
interface Written {
  readonly outcomes: readonly TransactionOutcome[];
  readonly rules: UserRuleWrites | null;
}

/**
 * Creates the metrics of a `txmon serve` process, each on its own registry (so that two servers in
 * one process, as in tests, never share counts).
 */
export function createServeMetrics(): ServeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counts = new Map<string, TenantCounts>();
  const countsOf = (tenant: string): TenantCounts => {
    let own = counts.get(tenant);
    if (own === undefined) {
      own = { decisions: new Map(), rules: new Map(), alertsOpened: 0 };
      counts.set(tenant, own);
    }
    return own;
  };
  // Every series of a tenant carries its `tenant` label: `render` keeps a reader's lines by it.
  const requests = createHistogram(
    registry,
    'txmon_http_request_duration_seconds',
    'Requests answered, by route pattern, method and status, and how long they took (its _count is the number of requests)',
    REQUEST_BUCKETS,
  );
  const requestSeries = new Map<string, Map<string, Map<string, Map<number, Series>>>>();
  const store = createHistogram(
    registry,
    'txmon_store_operation_duration_seconds',
    'Repository calls of a database store (PGlite, PostgreSQL), by operation (<group>.<method>; runExclusive is a whole unit of work, lock wait and commit included), and how long they took',
    STORE_BUCKETS,
  );
  const storeFailures = new Counter({
    name: 'txmon_store_operation_failures_total',
    help: 'Repository calls that failed, by operation and error code',
    labelNames: ['tenant', 'operation', 'code'],
    registers: [registry],
  });
  new Counter({
    name: 'txmon_decisions_total',
    help: 'Decisions stored: transaction and transaction-event results by status (a replay is not counted again; history imports are not decisions)',
    labelNames: ['tenant', 'kind', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, own] of counts) {
        for (const [key, n] of own.decisions) {
          const [kind, status] = key.split(' ') as [string, string];
          this.inc({ tenant, kind, status }, n);
        }
      }
    },
  });
  new Counter({
    name: 'txmon_rule_runs_total',
    help: 'Evaluations of each rule instance (shadow instances included), as stored with the decisions',
    labelNames: ['tenant', 'rule_instance'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, own] of counts) for (const [id, [runs]] of own.rules) this.inc({ tenant, rule_instance: id }, runs);
    },
  });
  new Counter({
    name: 'txmon_rule_hits_total',
    help: 'Hits of each rule instance (shadow instances included), as stored with the decisions',
    labelNames: ['tenant', 'rule_instance'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, own] of counts) for (const [id, [, hits]] of own.rules) if (hits > 0) this.inc({ tenant, rule_instance: id }, hits);
    },
  });
  new Counter({
    name: 'txmon_alerts_opened_total',
    help: 'Alerts opened by rule hits (a hit appended to an open alert opens none)',
    labelNames: ['tenant'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, own] of counts) this.inc({ tenant }, own.alertsOpened);
    },
  });
  const evaluationReaders = new Map<string, () => EvaluationStats>();
  new Counter({
    name: 'txmon_rules_not_evaluated_total',
    help: 'Rule runs that could not be evaluated (no rate to convert an amount, a logic error or work budget; docs/wire-format.md#not-evaluated), by reason',
    labelNames: ['tenant', 'reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, read] of evaluationReaders) {
        for (const [reason, n] of Object.entries(read().notEvaluated.byReason)) this.inc({ tenant, reason }, n);
      }
    },
  });
  const backlogReaders = new Map<string, () => Promise<number>>();
  const outbox = {
    backlog: new Gauge({
      name: 'txmon_outbox_backlog',
      help: 'Outbox messages the webhook delivery has not acknowledged yet (read from the store when scraped)',
      labelNames: ['tenant'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const [tenant, read] of backlogReaders) {
          try {
            this.set({ tenant }, await read());
          } catch {
            // The store is away, or the delivery has not made its consumer yet: no sample.
          }
        }
      },
    }),
    deliveryFailures: new Counter({
      name: 'txmon_webhook_delivery_failures_total',
      help: 'Webhook delivery attempts that failed (each retry, and the last attempt before a message is given up)',
      labelNames: ['tenant'] as const,
      registers: [registry],
    }),
  };

  function observeRequest(entry: RequestLogEntry): void {
    // Nested maps: each key is a string the handler already holds (its hash kept), no key built per request.
    // Bounded: tenants, the route table's patterns, the methods Node's parser knows, statuses.
    const tenant = entry.tenant ?? '';
    const byRoute = lookUp(requestSeries, tenant, () => new Map<string, Map<string, Map<number, Series>>>());
    const byMethod = lookUp(byRoute, entry.route, () => new Map<string, Map<number, Series>>());
    const byStatus = lookUp(byMethod, entry.method, () => new Map<number, Series>());
    const series = lookUp(byStatus, entry.status, () => requests.series({ tenant, method: entry.method, route: entry.route, status: String(entry.status) }));
    observe(series, REQUEST_BUCKETS, entry.durationMs / 1000);
  }

  function instrument(tenant: string, repositories: Repositories): Repositories {
    const own = countsOf(tenant);
    const timers = new Map<string, Series>();
    const timerOf = (operation: string): Series | null => {
      if (!repositories.flags.durable) return null;
      let timer = timers.get(operation);
      if (timer === undefined) {
        timer = store.series({ tenant, operation });
        timers.set(operation, timer);
      }
      return timer;
    };
    const failed = (operation: string, error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      storeFailures.inc({ tenant, operation, code: typeof code === 'string' && code.length <= 64 ? code : 'UNKNOWN' });
    };
    /** Counts what a committed write stored; alerts are looked up afterwards, off the request's path. */
    const count = (written: Written) => {
      const opened: AlertHit[] = [];
      for (const outcome of written.outcomes) {
        const kind = outcome.event === null ? 'transaction' : 'event';
        const result = outcome.event === null ? outcome.transaction.createResult : outcome.event.result;
        if (result !== IMPORTED_RESULT) {
          const key = `${kind} ${result.status}`;
          own.decisions.set(key, (own.decisions.get(key) ?? 0) + 1);
        }
        addRuleCounts(own, outcome.counters);
        for (const hit of outcome.alertHits) opened.push(hit);
      }
      if (written.rules !== null) {
        addRuleCounts(own, written.rules.counters ?? []);
        for (const hit of written.rules.alertHits ?? []) opened.push(hit);
      }
      // Whether a hit opened an alert or joined an open one is the store's choice: an alert stored
      // under the hit's new id was opened by it. One read per alerting hit, not awaited.
      for (const hit of opened) {
        repositories.cases.getAlert(hit.newAlertId).then(
          (alert) => {
            if (alert !== null) own.alertsOpened++;
          },
          () => undefined,
        );
      }
    };
    return wrapRepositories(repositories, timerOf, failed, count);
  }

  async function render(tenant: string | null): Promise<{ contentType: string; body: string }> {
    const text = await registry.metrics();
    return { contentType: registry.contentType, body: tenant === null ? text : linesOfTenant(text, tenant) };
  }

  return {
    observeRequest,
    instrument,
    render,
    outbox,
    watchOutbox: (tenant, read) => void backlogReaders.set(tenant, read),
    watchEvaluations: (tenant, read) => void evaluationReaders.set(tenant, read),
    registry,
  };
}

/** `map`'s value at `key`, made by `make` when absent. */
function lookUp<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

function addRuleCounts(own: TenantCounts, counters: readonly { instanceId: string; runs: number; hits: number }[]): void {
  for (const { instanceId, runs, hits } of counters) {
    const pair = own.rules.get(instanceId);
    if (pair === undefined) own.rules.set(instanceId, [runs, hits]);
    else {
      pair[0] += runs;
      pair[1] += hits;
    }
  }
}

/**
 * The exposition `text` without the samples of other tenants: a sample with a `tenant` label is
 * kept only when it names `tenant`; comments and samples without a tenant label are kept.
 */
export function linesOfTenant(text: string, tenant: string): string {
  return text
    .split('\n')
    .filter((line) => {
      if (line.startsWith('#')) return true;
      const labelled = tenantLabelOf(line);
      return labelled === undefined || labelled === tenant;
    })
    .join('\n');
}

/** The value of the `tenant` label of a sample line (`name{a="x",tenant="y"} 1`), read pair by pair (values may hold escaped quotes). */
function tenantLabelOf(line: string): string | undefined {
  const brace = line.indexOf('{');
  if (brace < 0) return undefined;
  let i = brace + 1;
  while (i < line.length && line[i] !== '}') {
    const equals = line.indexOf('="', i);
    if (equals < 0) return undefined;
    const name = line.slice(i, equals);
    let j = equals + 2;
    let value = '';
    while (j < line.length && line[j] !== '"') {
      // An escape (\\, \", \n) stands for one character; the one after the backslash will do here.
      value += line[j] === '\\' ? line[++j] : line[j];
      j++;
    }
    if (name === 'tenant') return value;
    i = line[j + 1] === ',' ? j + 2 : j + 1;
  }
  return undefined;
}

/** One labelled series of a {@link createHistogram}: counts per bucket (not cumulated), sum and count. */
interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** Adds `seconds` to `series`, whose buckets are `bounds`. */
function observe(series: Series, bounds: readonly number[], seconds: number): void {
  for (let i = 0; i < bounds.length; i++) {
    if (seconds <= (bounds[i] as number)) {
      (series.counts as { [i: number]: number })[i] = (series.counts[i] as number) + 1;
      break;
    }
  }
  series.sum += seconds;
  series.count++;
}

/**
 * A histogram kept as plain numbers and registered with `registry` as a metric: what its `get`
 * returns is what prom-client's own `Histogram#get` returns (cumulated `_bucket` samples with `le`,
 * `+Inf`, `_sum`, `_count`), so the registry writes it like any other.
 */
function createHistogram(registry: Registry, name: string, help: string, bounds: readonly number[]): { series(labels: Record<string, string>): Series } {
  const all: Series[] = [];
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const series of all) {
        let cumulated = 0;
        for (const [i, le] of bounds.entries()) {
          cumulated += series.counts[i] as number;
          values.push({ labels: { ...series.labels, le }, value: cumulated, metricName: `${name}_bucket` });
        }
        values.push({ labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: `${name}_bucket` });
        values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${name}_sum` });
        values.push({ labels: { ...series.labels }, value: series.count, metricName: `${name}_count` });
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
    reset() {
      for (const series of all) {
        series.counts.fill(0);
        series.sum = 0;
        series.count = 0;
      }
    },
  };
  registry.registerMetric(metric as unknown as Metric);
  return {
    series(labels) {
      const series: Series = { labels, counts: new Float64Array(bounds.length), sum: 0, count: 0 };
      all.push(series);
      return series;
    },
  };
}

/**
 * `repositories` with every method timed as `<group>.<method>`, failures counted, and what
 * `saveOutcome`, `saveOutcomes`, `saveUserProfile` and `saveUserEvent` wrote passed to `count`
 * once it is committed: at once outside a unit of work, at the unit's end inside one (nothing when
 * it rolls back).
 */
function wrapRepositories(
  repositories: Repositories,
  timerOf: (operation: string) => Series | null,
  failed: (operation: string, error: unknown) => void,
  count: (written: Written) => void,
): Repositories {
  const wrap = (inner: Repositories, committed: (written: Written) => void): Repositories => {
    // Every group the store has (`transactions`, `outbox`, …), whatever groups the port gains: each method timed as `<group>.<method>`.
    const wrapped: Record<string, unknown> = { ...inner };
    for (const [group, value] of Object.entries(inner)) {
      if (group !== 'flags' && typeof value === 'object' && value !== null) wrapped[group] = wrapGroup(value, group, timerOf, failed, committed);
    }
    const { ping, runExclusive } = inner;
    if (ping !== undefined) wrapped.ping = () => ping.call(inner);
    if (runExclusive !== undefined) {
      const timer = timerOf('runExclusive');
      wrapped.runExclusive = async <T>(
        keys: readonly string[],
        work: (unit: Repositories) => Promise<T>,
        options?: Parameters<NonNullable<Repositories['runExclusive']>>[2],
      ) => {
        const pending: Written[] = [];
        const started = performance.now();
        try {
          const result = await runExclusive.call(inner, keys, (unit) => work(wrap(unit, (written) => void pending.push(written))), options);
          if (timer !== null) observe(timer, STORE_BUCKETS, (performance.now() - started) / 1000);
          for (const written of pending) committed(written);
          return result;
        } catch (error) {
          failed('runExclusive', error);
          throw error;
        }
      };
    }
    return wrapped as unknown as Repositories;
  };
  return wrap(repositories, count);
}

/** The writes whose arguments are counted once committed, and how to read them. */
const COUNTED: Readonly<Record<string, (arg: unknown) => Written>> = {
  'transactions.saveOutcome': (arg) => ({ outcomes: [arg as TransactionOutcome], rules: null }),
  'transactions.saveOutcomes': (arg) => ({ outcomes: arg as TransactionOutcome[], rules: null }),
  'users.saveUserProfile': (arg) => ({ outcomes: [], rules: arg as UserRuleWrites }),
  'users.saveUserEvent': (arg) => ({ outcomes: [], rules: arg as UserRuleWrites }),
};

/**
 * `group` with each method timed (when `timerOf` gives a series) and the counted writes reported;
 * an async iterable (a scan) is passed through untimed, and a method neither timed nor counted is
 * the group's own.
 */
function wrapGroup(
  group: object,
  name: string,
  timerOf: (operation: string) => Series | null,
  failed: (operation: string, error: unknown) => void,
  committed: (written: Written) => void,
): object {
  const wrapped: Record<string, unknown> = { ...(group as Record<string, unknown>) };
  for (const method of methodNames(group)) {
    const operation = `${name}.${method}`;
    const fn = (group as Record<string, (...args: unknown[]) => unknown>)[method] as (...args: unknown[]) => unknown;
    const timer = timerOf(operation);
    const counted = COUNTED[operation];
    if (timer === null && counted === undefined) {
      wrapped[method] = fn.bind(group);
      continue;
    }
    wrapped[method] = (...args: unknown[]) => {
      const started = timer === null ? 0 : performance.now();
      const result = fn.apply(group, args);
      if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function') return result;
      return (result as Promise<unknown>).then(
        (value) => {
          if (timer !== null) observe(timer, STORE_BUCKETS, (performance.now() - started) / 1000);
          if (counted !== undefined) committed(counted(args[0]));
          return value;
        },
        (error: unknown) => {
          failed(operation, error);
          throw error;
        },
      );
    };
  }
  return wrapped;
}
