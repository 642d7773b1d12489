/**
 * The database-path benchmark: the engine with the 20 instances of `workload.mjs` (alerts and
 * cases on, the instances' default) on the memory store, PGlite (a directory on disk, the default
 * store of `txmon serve`) and PostgreSQL with one and two engine processes, 16 concurrent clients.
 *
 *   node bench/persistence.mjs [--ops N] [--url postgres://…] [--stores memory,pglite,postgres]
 *                              [--processes 1,2] [--clients 16] [--warmup N] [--dist DIR] [--json PATH]
 *
 * Without --url it starts a throw-away PostgreSQL server (persistence-server.mjs) and stops it at the
 * end; with --url it creates (and drops) its own databases on that server. Every answer (status and
 * hit instances) and the per-instance run/hit counters, alert and case counts of every store are
 * checked against a serial run on the memory store; any difference fails the run (exit code 1).
 * docs/persistence.md ("Performance") describes the method and holds the latest figures.
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  callOperation,
  createInstances,
  createSqlMeter,
  loadBuild,
  mergeMeterTakes,
  meteredPGlite,
  meteredPool,
  sequentialIds,
  totalsOf,
} from './persistence-engine.mjs';
import { startPostgresServer } from './persistence-server.mjs';
import { createInstanceConfigs, generateWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// ---- options --------------------------------------------------------------------------------

function parseOptions(argv) {
  const o = {
    ops: 20_000,
    warmup: 2_000,
    clients: 16,
    seed: WORKLOAD_DEFAULTS.seed,
    users: WORKLOAD_DEFAULTS.users,
    url: null,
    stores: ['memory', 'pglite', 'postgres'],
    processes: [1, 2],
    dist: path.join(here, '..', 'dist'),
    json: path.join(here, 'results', 'persistence-latest.json'),
    top: 12,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--ops') o.ops = Number(value());
    else if (arg === '--warmup') o.warmup = Number(value());
    else if (arg === '--clients') o.clients = Number(value());
    else if (arg === '--seed') o.seed = Number(value());
    else if (arg === '--users') o.users = Number(value());
    else if (arg === '--url') o.url = value();
    else if (arg === '--stores') o.stores = value().split(',');
    else if (arg === '--processes') o.processes = value().split(',').map(Number);
    else if (arg === '--dist') o.dist = value();
    else if (arg === '--json') o.json = value();
    else if (arg === '--top') o.top = Number(value());
    else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

// ---- the schedule: parallel, yet every answer is the serial one --------------------------------

/**
 * For each operation, how many earlier operations it waits for and which later ones wait for it:
 * an operation starts only once every earlier operation on its transaction or one of its users has
 * finished. Operations on different users run at once; each sees exactly the history a serial run
 * would show it, so every answer must equal the serial run's.
 */
function planDependencies(operations) {
  const usersOf = new Map();
  const last = new Map();
  const waits = new Int32Array(operations.length);
  const dependents = operations.map(() => []);
  operations.forEach((op, i) => {
    const p = op.payload;
    if (op.kind === 'transaction') usersOf.set(p.transactionId, [p.originUserId, p.destinationUserId]);
    const users = usersOf.get(p.transactionId) ?? [];
    const keys = new Set([`t:${p.transactionId}`, ...users.filter(Boolean).map((u) => `u:${u}`)]);
    const before = new Set();
    for (const key of keys) {
      const j = last.get(key);
      if (j !== undefined) before.add(j);
      last.set(key, i);
    }
    for (const j of before) dependents[j].push(i);
    waits[i] = before.size;
  });
  return { waits, dependents };
}

/**
 * Runs `operations` on `lanes` (each: `capacity` calls at once, `call(i, op)`), in dependency
 * order; returns every answer and latency.
 */
function runScheduled(operations, plan, lanes) {
  const n = operations.length;
  const waits = Int32Array.from(plan.waits);
  const summaries = new Array(n);
  const latencies = new Float64Array(n);
  const ready = [];
  let head = 0;
  for (let i = 0; i < n; i++) if (waits[i] === 0) ready.push(i);
  let finished = 0;
  return new Promise((resolve, reject) => {
    const inFlight = lanes.map(() => 0);
    const pump = () => {
      for (let l = 0; l < lanes.length; l++) {
        const lane = lanes[l];
        while (inFlight[l] < lane.capacity && head < ready.length) {
          const i = ready[head++];
          inFlight[l] += 1;
          lane.call(i, operations[i]).then((r) => {
            inFlight[l] -= 1;
            summaries[i] = r.summary;
            latencies[i] = r.ns;
            finished += 1;
            for (const k of plan.dependents[i]) if (--waits[k] === 0) ready.push(k);
            if (finished === n) resolve({ summaries, latencies });
            else pump();
          }, reject);
        }
      }
    };
    if (n === 0) resolve({ summaries, latencies });
    else pump();
  });
}

// ---- machine measures -------------------------------------------------------------------------

/** Busy and total jiffies of the whole machine (/proc/stat). */
function machineCpu() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc; null when it is not visible. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
/** Linux's USER_HZ (`getconf CLK_TCK`), 100 on every mainstream kernel. */
const CLOCK_TICKS = 100;

/**
 * Samples pg_stat_activity of one database every few milliseconds: backend-milliseconds spent
 * waiting on a heavyweight lock (advisory, row, transaction id), by wait event, and busy; and, when
 * the server runs on this machine, the CPU time of the database's backends (from /proc).
 */
function startLockSampler(url, database) {
  const client = new pg.Client({ connectionString: url });
  const waitedMs = new Map();
  const cpuAtFirstSight = new Map();
  // The last CPU time read of each backend: a backend that ends during the run counts until then.
  const cpuLastSeen = new Map();
  let cpuReadAt = 0;
  let activeMs = 0;
  let running = true;
  const done = (async () => {
    await client.connect();
    let t = performance.now();
    while (running) {
      const rows = (
        await client.query(
          `SELECT pid, coalesce(wait_event_type, '') AS type, coalesce(wait_event, '') AS event, state FROM pg_stat_activity
             WHERE datname = $1 AND pid <> pg_backend_pid()`,
          [database],
        )
      ).rows;
      const now = performance.now();
      const dt = now - t;
      t = now;
      const readCpu = now - cpuReadAt >= 50;
      if (readCpu) cpuReadAt = now;
      for (const r of rows) {
        if (!cpuAtFirstSight.has(r.pid)) cpuAtFirstSight.set(r.pid, processCpuSeconds(r.pid));
        if (readCpu) cpuLastSeen.set(r.pid, processCpuSeconds(r.pid));
        if (r.state !== 'active') continue;
        activeMs += dt;
        if (r.type === 'Lock') waitedMs.set(r.event, (waitedMs.get(r.event) ?? 0) + dt);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await done;
      let serverCpuSeconds = 0;
      for (const [pid, first] of cpuAtFirstSight) {
        const last = processCpuSeconds(pid) ?? cpuLastSeen.get(pid) ?? null;
        if (first === null || last === null) {
          serverCpuSeconds = null;
          break;
        }
        serverCpuSeconds += last - first;
      }
      return { waitedMs: Object.fromEntries(waitedMs), activeMs, serverCpuSeconds };
    },
  };
}

// ---- stores -----------------------------------------------------------------------------------

/** Databases on one PostgreSQL server: created fresh per run, dropped after. */
function createDatabases(serverUrl) {
  const admin = new pg.Client({ connectionString: serverUrl });
  let connected = null;
  let n = 0;
  return {
    async create() {
      connected ??= admin.connect();
      await connected;
      const name = `txmon_bench_${process.pid}_${++n}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return { name, url: url.toString(), drop: () => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
    },
    async settings() {
      connected ??= admin.connect();
      await connected;
      const rows = (
        await admin.query(
          `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'server_version', 'max_connections')`,
        )
      ).rows;
      return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    },
    async end() {
      if (connected) await admin.end();
    },
  };
}

/** An engine in this process: `lanes` of `clients` calls at once. */
function inProcess(engine, clients) {
  return [{ capacity: clients, call: (_i, op) => callOperation(engine, op) }];
}

/**
 * A subject: `open()` gives a fresh store with the instances, ready to run: its lanes, its SQL
 * meter totals, the totals to verify, and how to close it.
 */
function memorySubject(build, configs, clients) {
  return {
    store: 'memory',
    processes: 1,
    async open() {
      const engine = build.txmon.createEngine({ ids: sequentialIds() });
      await createInstances(engine, configs);
      return { lanes: inProcess(engine, clients), sql: () => null, cpuSeconds: () => 0, totals: () => totalsOf(engine), close: async () => undefined };
    },
  };
}

function pgliteSubject(build, configs, clients, PGlite) {
  return {
    store: 'pglite',
    processes: 1,
    async open() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'txmon-bench-pglite-'));
      const db = new PGlite(dir);
      await build.postgres.migrate(db);
      const meter = createSqlMeter();
      const engine = build.txmon.createEngine({
        repositories: build.postgres.createPostgresRepositories({ client: meteredPGlite(db, meter) }),
        ids: sequentialIds(),
      });
      await createInstances(engine, configs);
      meter.take();
      return {
        lanes: inProcess(engine, clients),
        sql: () => meter.take(),
        cpuSeconds: () => 0,
        totals: () => totalsOf(engine),
        async close() {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** PostgreSQL, one engine process: this one. */
function postgresSubject(build, configs, clients, databases) {
  return {
    store: 'postgres',
    processes: 1,
    async open() {
      const database = await databases.create();
      const pool = new pg.Pool({ connectionString: database.url, max: clients });
      pool.on('error', () => undefined);
      await build.postgres.migrate(pool);
      const meter = createSqlMeter();
      const engine = build.txmon.createEngine({
        repositories: build.postgres.createPostgresRepositories({ client: meteredPool(pool, meter) }),
        ids: sequentialIds(),
      });
      await createInstances(engine, configs);
      meter.take();
      return {
        database,
        lanes: inProcess(engine, clients),
        sql: () => meter.take(),
        cpuSeconds: () => 0,
        totals: () => totalsOf(engine),
        async close() {
          await pool.end();
          await database.drop();
        },
      };
    },
  };
}

/** PostgreSQL, `processes` engine processes (children), `clients / processes` calls at once each. */
function postgresProcessesSubject(build, configs, clients, databases, processes, distDir) {
  const children = [];
  const request = (child, message, reply) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m.type === reply) {
          child.off('message', on);
          resolve(m);
        }
      };
      child.on('message', on);
      child.send(message);
    });
  return {
    store: 'postgres',
    processes,
    async open() {
      if (children.length === 0) {
        for (let p = 0; p < processes; p++) {
          const child = fork(path.join(here, 'persistence-worker.mjs'), [distDir, String(p)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
          await new Promise((resolve) => child.once('message', resolve));
          const pending = new Map();
          child.on('message', (m) => {
            if (m.type !== 'done') return;
            const settle = pending.get(m.i);
            pending.delete(m.i);
            settle(m);
          });
          children.push({ child, pending });
        }
      }
      const database = await databases.create();
      // The instances are created once, by a setup engine here; the processes read them.
      const setupPool = new pg.Pool({ connectionString: database.url, max: 1 });
      setupPool.on('error', () => undefined);
      await build.postgres.migrate(setupPool);
      const setup = build.txmon.createEngine({ repositories: build.postgres.createPostgresRepositories({ client: setupPool }), ids: sequentialIds() });
      await createInstances(setup, configs);
      const per = Math.ceil(clients / processes);
      await Promise.all(children.map(({ child }) => request(child, { type: 'open', url: database.url, connections: per }, 'opened')));
      let cpu = 0;
      let last = null;
      const stats = async () => {
        const all = await Promise.all(children.map(({ child }) => request(child, { type: 'stats' }, 'stats')));
        cpu = all.reduce((s, m) => s + m.cpuSeconds, 0);
        last = mergeMeterTakes(all.map((m) => m.sql));
      };
      return {
        database,
        lanes: children.map(({ child, pending }) => ({
          capacity: per,
          call: (i, op) =>
            new Promise((resolve) => {
              pending.set(i, resolve);
              child.send({ type: 'op', i, op });
            }),
        })),
        async collect() {
          await stats();
        },
        sql: () => last,
        cpuSeconds: () => cpu,
        totals: () => totalsOf(setup),
        async close() {
          await setupPool.end();
          await database.drop();
        },
      };
    },
    async dispose() {
      await Promise.all(children.map(({ child }) => request(child, { type: 'close' }, 'closed')));
      children.length = 0;
    },
  };
}

// ---- one run ------------------------------------------------------------------------------------

function percentileMs(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] / 1e6;
}

/** Warm-up on a store of its own, then the timed run on a fresh one; verified against `reference`. */
async function measure(subject, operations, plan, warmOps, warmPlan, reference, databaseUrl) {
  if (warmOps.length > 0) {
    const warm = await subject.open();
    await runScheduled(warmOps, warmPlan, warm.lanes);
    await warm.collect?.();
    await warm.close();
  }
  const run = await subject.open();
  const sampler = run.database && databaseUrl ? startLockSampler(databaseUrl, run.database.name) : null;
  const cpuBefore = machineCpu();
  const ownCpu0 = process.cpuUsage();
  const started = process.hrtime.bigint();
  const { summaries, latencies } = await runScheduled(operations, plan, run.lanes);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const ownCpu = process.cpuUsage(ownCpu0);
  const cpuAfter = machineCpu();
  const locks = sampler ? await sampler.stop() : null;
  await run.collect?.();
  const sql = run.sql();
  const totals = await run.totals();
  await run.close();

  const mismatches = [];
  for (let i = 0; i < operations.length; i++) {
    if (summaries[i] !== reference.summaries[i])
      mismatches.push({ i, kind: operations[i].kind, id: operations[i].payload.transactionId, got: summaries[i], expected: reference.summaries[i] });
  }
  const totalsEqual = JSON.stringify(totals) === JSON.stringify(reference.totals);
  const sorted = Float64Array.from(latencies).sort();
  const n = operations.length;
  const creates = operations.filter((op) => op.kind === 'transaction').length;
  const busy = cpuAfter.total > cpuBefore.total ? (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total) : NaN;
  const statementsOf = (prefix) => (sql ? sql.byLabel.filter((e) => e.label.startsWith(prefix)).reduce((s, e) => s + e.count, 0) : 0);
  return {
    store: subject.store,
    processes: subject.processes,
    operations: n,
    creates,
    events: n - creates,
    seconds,
    callsPerSecond: n / seconds,
    p50Ms: percentileMs(sorted, 0.5),
    p99Ms: percentileMs(sorted, 0.99),
    roundTripsPerCall: sql ? sql.count / n : null,
    transactionsPerCall: sql ? statementsOf('BEGIN') / n : null,
    sqlMsPerCall: sql ? sql.ns / 1e6 / n : null,
    lockWaitMsPerCall: locks ? Object.values(locks.waitedMs).reduce((a, b) => a + b, 0) / n : null,
    lockWaitByEvent: locks ? Object.fromEntries(Object.entries(locks.waitedMs).map(([k, v]) => [k, v / n])) : null,
    activeBackends: locks ? locks.activeMs / (seconds * 1000) : null,
    serverCpuMsPerCall: locks?.serverCpuSeconds != null ? (locks.serverCpuSeconds * 1000) / n : null,
    engineCpuMsPerCall: (((ownCpu.user + ownCpu.system) / 1e6 + run.cpuSeconds()) * 1000) / n,
    engineSystemCpuShare: run.cpuSeconds() > 0 ? null : ownCpu.system / (ownCpu.user + ownCpu.system),
    machineCpuBusy: busy,
    benchCpuSeconds: (ownCpu.user + ownCpu.system) / 1e6,
    childCpuSeconds: run.cpuSeconds(),
    statements: sql ? [...sql.byLabel].sort((a, b) => b.count - a.count || b.ns - a.ns) : [],
    verified: mismatches.length === 0 && totalsEqual,
    mismatches: mismatches.slice(0, 5),
    mismatchCount: mismatches.length,
    totals,
  };
}

// ---- main -------------------------------------------------------------------------------------

const o = parseOptions(process.argv.slice(2));
const build = await loadBuild(o.dist);
// The instances as users create them: alerts and cases on (the default), so the field is left out.
const configs = createInstanceConfigs().map(({ id, request: { alertCreationOnHit: _off, ...request } }) => ({ id, request }));
const { operations } = generateWorkload({ seed: o.seed, operations: o.ops, users: o.users });
// The warm-up stream: another seed, on a store of its own.
const warmOps = o.warmup > 0 ? generateWorkload({ seed: o.seed + 1, operations: o.warmup, users: o.users }).operations : [];
const plan = planDependencies(operations);
const warmPlan = planDependencies(warmOps);

console.log(
  `workload: ${operations.length} operations (${operations.filter((op) => op.kind === 'transaction').length} transactions), ${o.users} users, seed ${o.seed}; ${o.clients} concurrent clients`,
);

// The reference: the memory store, one call at a time in stream order.
const reference = await (async () => {
  const engine = build.txmon.createEngine({ ids: sequentialIds() });
  await createInstances(engine, configs);
  const summaries = new Array(operations.length);
  for (let i = 0; i < operations.length; i++) summaries[i] = (await callOperation(engine, operations[i])).summary;
  return { summaries, totals: await totalsOf(engine) };
})();
const errors = reference.summaries.filter((s) => s.startsWith('error')).length;
console.log(`reference (memory, serial): ${reference.totals.alerts} alerts, ${reference.totals.cases} cases, ${errors} error answers`);

let server = null;
let databases = null;
let serverSettings = null;
const needsPostgres = o.stores.includes('postgres');
const results = [];
try {
  if (needsPostgres) {
    if (o.url === null) {
      server = await startPostgresServer();
      console.log(`started a throw-away PostgreSQL server at ${server.url}`);
    }
    databases = createDatabases(o.url ?? server.url);
    serverSettings = await databases.settings();
    console.log(`PostgreSQL ${serverSettings.server_version}: fsync ${serverSettings.fsync}, synchronous_commit ${serverSettings.synchronous_commit}`);
  }
  const subjects = [];
  for (const store of o.stores) {
    if (store === 'memory') subjects.push(memorySubject(build, configs, o.clients));
    else if (store === 'pglite') {
      const { PGlite } = await import('@electric-sql/pglite');
      subjects.push(pgliteSubject(build, configs, o.clients, PGlite));
    } else if (store === 'postgres') {
      for (const p of o.processes) {
        subjects.push(
          p === 1 ? postgresSubject(build, configs, o.clients, databases) : postgresProcessesSubject(build, configs, o.clients, databases, p, o.dist),
        );
      }
    } else throw new Error(`unknown store ${store}`);
  }
  for (const subject of subjects) {
    const r = await measure(subject, operations, plan, warmOps, warmPlan, reference, o.url ?? server?.url ?? null);
    await subject.dispose?.();
    results.push(r);
    const fmt = (v, d = 2) => (v === null || Number.isNaN(v) ? '—' : v.toFixed(d));
    console.log(
      `${r.store} × ${r.processes}: ${Math.round(r.callsPerSecond)} calls/s, p50 ${fmt(r.p50Ms)} ms, p99 ${fmt(r.p99Ms)} ms, ` +
        `round trips/call ${fmt(r.roundTripsPerCall)}, SQL ms/call ${fmt(r.sqlMsPerCall)}, lock wait ms/call ${fmt(r.lockWaitMsPerCall, 3)}, ` +
        `machine CPU ${fmt(r.machineCpuBusy * 100, 0)} %, engine CPU ms/call ${fmt(r.engineCpuMsPerCall, 3)} (${fmt(r.engineSystemCpuShare === null ? null : r.engineSystemCpuShare * 100, 0)} % system), server CPU ms/call ${fmt(r.serverCpuMsPerCall, 3)} — ${r.verified ? 'verified' : `NOT VERIFIED (${r.mismatchCount} answers differ)`}`,
    );
    if (!r.verified) {
      for (const m of r.mismatches) console.log(`  op ${m.i} (${m.kind} ${m.id}): got "${m.got}", expected "${m.expected}"`);
      if (JSON.stringify(r.totals) !== JSON.stringify(reference.totals))
        console.log(`  totals: got ${JSON.stringify(r.totals)}\n  expected ${JSON.stringify(reference.totals)}`);
    }
    if (r.lockWaitByEvent && Object.keys(r.lockWaitByEvent).length > 0) {
      console.log(
        `  lock waits (ms/call): ${Object.entries(r.lockWaitByEvent)
          .map(([k, v]) => `${k} ${v.toFixed(3)}`)
          .join(', ')}; active backends ${fmt(r.activeBackends, 1)}`,
      );
    }
    for (const s of r.statements.slice(0, o.top)) {
      console.log(`  ${(s.count / r.operations).toFixed(2).padStart(6)}/call ${(s.ns / s.count / 1000).toFixed(0).padStart(6)} µs  ${s.label}`);
    }
  }
} finally {
  await databases?.end();
  server?.stop();
}

console.log(
  '\n| store | processes | calls/s | p50 ms | p99 ms | round trips/call | SQL ms/call | lock wait ms/call | engine CPU ms/call | server CPU ms/call | verified |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
for (const r of results) {
  const f = (v, d = 2) => (v === null || Number.isNaN(v) ? '—' : v.toFixed(d));
  console.log(
    `| ${r.store} | ${r.processes} | ${Math.round(r.callsPerSecond).toLocaleString('en-US')} | ${f(r.p50Ms)} | ${f(r.p99Ms)} | ${f(r.roundTripsPerCall)} | ${f(r.sqlMsPerCall)} | ${f(r.lockWaitMsPerCall, 3)} | ${f(r.engineCpuMsPerCall, 3)} | ${f(r.serverCpuMsPerCall, 3)} | ${r.verified ? 'yes' : 'NO'} |`,
  );
}

if (o.json !== '-') {
  mkdirSync(path.dirname(o.json), { recursive: true });
  const machine = {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
  writeFileSync(o.json, JSON.stringify({ options: { ...o, url: o.url ? '(given)' : null }, machine, serverSettings, results }, null, 2));
}
process.exitCode = results.every((r) => r.verified) ? 0 : 1;
