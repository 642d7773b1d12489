// HTTP load run: autocannon against `txmon serve` (dist/cli.js) with the 20-instance workload.
//
//   npm run build && node bench/http.bench.mjs                 # connections 1, 10, 50; 20 s each
//   node bench/http.bench.mjs --connections 10 --duration 10   # one quicker run
//
// For every connection count a fresh server is started (`node dist/cli.js serve --port 0`, its
// pino request log written to a temporary file), the 20 instances of bench/workload.mjs are
// created with POST /rule-instances, and then autocannon drives it over keep-alive connections
// with pipelining 1: a warm-up, then the measured run. Each request is one operation of the
// generated stream (POST /transactions or POST /events/transaction) and no operation is sent
// twice, so every request does real work. The stream is split over the connections by
// transaction: a transaction and its events always travel on the same connection, in stream
// order, so an event is never sent before its transaction has been answered.
//
// Reported: requests/s (completed ÷ wall time), latency percentiles at µs resolution (measured
// here from autocannon's per-response hrtime; autocannon's own histogram rounds to whole ms),
// status codes per kind, the server process's CPU time (utime + stime from /proc/<pid>/stat, all
// its threads) and so requests per server CPU-second, the load generator's own CPU time, and the
// CPU the rest of the machine used meanwhile (noise). The load generator runs in this process, on
// the other core of a 2-core machine. `--anchor` also runs bench/http-anchor-server.mjs (bare
// node:http, same requests, fixed answer) as a floor for what the transport costs here.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createInstanceConfigs, generateWorkload } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '1,10,50' },
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    ops: { type: 'string', default: '400000' },
    seed: { type: 'string', default: '20250131' },
    cli: { type: 'string', default: path.join(root, 'dist', 'cli.js') },
    json: { type: 'string', default: path.join(here, 'results', 'http-latest.json') },
    'keep-logs': { type: 'boolean', default: false },
    'server-node-args': { type: 'string', default: '' },
    anchor: { type: 'boolean', default: false },
    // The in-process engine's HTTP cost; `pglite:<dir>` or a postgres:// URL measures a database store.
    store: { type: 'string', default: 'memory' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (args.help) {
  console.log(
    `node bench/http.bench.mjs [--connections 1,10,50] [--duration 20] [--warmup 5] [--ops 400000] [--seed N] [--cli dist/cli.js] [--json PATH|-] [--keep-logs] [--anchor] [--server-node-args='--cpu-prof --cpu-prof-dir=/tmp/prof']`,
  );
  process.exit(0);
}
const connectionCounts = args.connections.split(',').map((s) => Number(s.trim()));
const duration = Number(args.duration);
const warmup = Number(args.warmup);
const totalOps = Number(args.ops);
const seed = Number(args.seed);
if (connectionCounts.some((c) => !Number.isInteger(c) || c < 1) || !(duration > 0) || !(warmup >= 0) || !(totalOps > 0)) {
  console.error('bad options; see --help');
  process.exit(2);
}
if (!existsSync(args.cli)) {
  console.error(`${args.cli} not found: run \`npm run build\` first`);
  process.exit(1);
}

const API_KEY = 'bench-http-key-0123456789abcdef';
const CLK_TCK = 100; // Linux USER_HZ; /proc/<pid>/stat times are in these ticks

// ---- workload --------------------------------------------------------------------------------

console.log(`generating ${totalOps.toLocaleString('en-US')} operations (seed ${seed}) …`);
const generated = generateWorkload({ operations: totalOps, seed });
/** Serialized bodies in stream order: kind 0 = transaction, 1 = event; conn key = transactionId. */
const stream = generated.operations.map((op) => ({
  kind: op.kind === 'transaction' ? 0 : 1,
  txId: op.payload.transactionId,
  body: Buffer.from(JSON.stringify(op.payload)),
}));
generated.operations.length = 0;
const meanBodyBytes = Math.round(stream.reduce((s, o) => s + o.body.length, 0) / stream.length);
console.log(
  `  ${generated.stats.transactions.toLocaleString('en-US')} transactions + ${generated.stats.events.toLocaleString('en-US')} events, mean body ${meanBodyBytes} B`,
);

/**
 * Splits the stream over `n` connections: the i-th transaction goes to queue i mod n, and its
 * events follow it on the same queue. Stream order is kept inside each queue.
 */
function splitStream(n) {
  const queues = Array.from({ length: n }, () => ({ items: [], next: 0 }));
  const home = new Map();
  let t = 0;
  for (const op of stream) {
    let q;
    if (op.kind === 0) {
      q = t++ % n;
      home.set(op.txId, q);
    } else {
      q = home.get(op.txId);
    }
    queues[q].items.push(op);
  }
  return queues;
}

// ---- server process --------------------------------------------------------------------------

function readCpuTicks(pid) {
  // Fields after the "(comm)" part: state is field 3, utime 14, stime 15 (1-based).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy CPU ticks of the whole machine (all cores, all processes) from /proc/stat. */
function readMachineBusyTicks() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  void idle;
  void iowait;
  return user + nice + system + irq + softirq + steal;
}

function readRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /VmRSS:\s+(\d+) kB/.exec(status);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
  return { rssMb: rss ? Math.round(Number(rss[1]) / 1024) : null, peakRssMb: hwm ? Math.round(Number(hwm[1]) / 1024) : null };
}

async function startServer(subject, logFile) {
  const fd = openSync(logFile, 'w');
  const nodeArgs = args['server-node-args'].split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, ...subject.argv], {
    cwd: root,
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    const line = text.split('\n').find((l) => l.includes('"txmon serving"'));
    if (line) return { child, url: JSON.parse(line).url, exited, stderr: () => stderr };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${stderr.trim() || '(no stderr)'}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stopServer(server) {
  if (server.child.exitCode !== null) return server.exited;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  const result = await server.exited;
  clearTimeout(timer);
  return result;
}

async function createInstances(url) {
  for (const { request } of createInstanceConfigs()) {
    const res = await fetch(`${url}/rule-instances`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    if (res.status !== 200) throw new Error(`POST /rule-instances answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
}

// ---- one autocannon run ----------------------------------------------------------------------

const PATHS = ['/transactions', '/events/transaction'];
const KIND_NAMES = ['transaction', 'event'];

/**
 * Runs autocannon for `seconds` with `connections` connections; connection k takes its requests
 * from queues[k] (continuing where the previous run on these queues stopped). With `wrap` (the
 * stateless anchor only) a queue starts over when it runs out; otherwise the run stops.
 */
function runLoad(url, queues, connections, seconds, record, wrap) {
  let clientIndex = 0;
  const perClient = [];
  const latencies = record ? new Float64Array(4_000_000) : null;
  let recorded = 0;
  const status = [{}, {}];
  const hits = { transactions: 0, withHit: 0 };
  const problems = [];
  let exhausted = false;
  let instance;

  const setupClient = (client) => {
    const queue = queues[clientIndex % queues.length];
    const state = { queue, kind: 0 };
    perClient.push(state);
    clientIndex += 1;
    client.benchState = state;
    client.setRequests([
      {
        method: 'POST',
        setupRequest(req) {
          if (wrap && queue.next === queue.items.length) queue.next = 0;
          const op = queue.items[queue.next];
          if (op === undefined) {
            // Out of operations: answer with a cheap no-op and stop the run (reported as exhausted).
            if (!exhausted) {
              exhausted = true;
              setImmediate(() => instance.stop());
            }
            state.kind = 2;
            req.method = 'GET';
            req.path = '/healthz';
            req.body = undefined;
            return req;
          }
          queue.next += 1;
          state.kind = op.kind;
          req.path = PATHS[op.kind];
          req.body = op.body;
          return req;
        },
        onResponse(code, body) {
          if (state.kind === 2) return;
          if (code >= 300 && problems.length < 5) problems.push({ kind: KIND_NAMES[state.kind], status: code, body: String(body).slice(0, 300) });
          if (record && state.kind === 0 && code === 201) {
            hits.transactions += 1;
            if (!body.includes('"hitRules":[]')) hits.withHit += 1;
          }
        },
      },
    ]);
  };

  return new Promise((resolve, reject) => {
    const cpuBefore = process.cpuUsage();
    const wallBefore = process.hrtime.bigint();
    instance = autocannon(
      {
        url,
        connections,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
        setupClient,
      },
      (err, result) => {
        if (err) return reject(err);
        const wallS = Number(process.hrtime.bigint() - wallBefore) / 1e9;
        const cpu = process.cpuUsage(cpuBefore);
        resolve({
          result,
          latencies: latencies?.subarray(0, recorded),
          status,
          hits,
          problems,
          exhausted,
          clientCpuS: (cpu.user + cpu.system) / 1e6,
          clientWallS: wallS,
        });
      },
    );
    instance.on('response', (client, code, _bytes, ms) => {
      const kind = client.benchState.kind;
      if (kind === 2) return;
      const byKind = status[kind];
      byKind[code] = (byKind[code] ?? 0) + 1;
      if (record && recorded < latencies.length) latencies[recorded++] = ms;
    });
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

// ---- main ------------------------------------------------------------------------------------

const env = {
  date: new Date().toISOString(),
  node: process.version,
  v8: process.versions.v8,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
};
console.log(`${env.cpu} × ${env.cores}, ${env.memoryGb} GB, ${env.platform}, Node ${env.node}; load average ${env.loadAverage.join(' ')}`);
console.log(
  `autocannon ${JSON.parse(readFileSync(path.join(root, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version} runs in this process (one core); the server is a separate process.`,
);
console.log(`per connection count: fresh server, 20 instances, ${warmup} s warm-up, ${duration} s measured; keep-alive, pipelining 1\n`);

// A run stores up to ~400,000 operations in the store: its byte budget is raised to 2 GiB
// (counted; the heap holds about three times as much at most). The default budget (256 MiB)
// refuses writes after about 65,000 transactions of this workload (docs/security.md).
const limitsFile = path.join(os.tmpdir(), `txmon-http-bench-${process.pid}-limits.json`);
writeFileSync(limitsFile, JSON.stringify({ maxStoredBytes: 2 * 1024 ** 3 }));
const subjects = [
  { name: 'txmon', argv: [args.cli, 'serve', '--port', '0', '--store', args.store, '--api-key', API_KEY, '--limits', limitsFile], wrap: false },
];
if (args.anchor) subjects.push({ name: 'anchor', argv: [path.join(here, 'http-anchor-server.mjs')], wrap: true });

const runs = [];
for (const connections of connectionCounts)
  for (const subject of subjects) {
    const logFile = path.join(os.tmpdir(), `txmon-http-bench-${process.pid}-${subject.name}-c${connections}.log`);
    const server = await startServer(subject, logFile);
    const pid = server.child.pid;
    let run;
    try {
      await createInstances(server.url);
      const queues = splitStream(connections);
      if (warmup > 0) {
        const w = await runLoad(server.url, queues, connections, warmup, false, subject.wrap);
        if (w.exhausted) throw new Error('the workload ran out during the warm-up: raise --ops');
      }
      const sent = queues.reduce((s, q) => s + q.next, 0);
      const ticksBefore = readCpuTicks(pid);
      const machineBefore = readMachineBusyTicks();
      const r = await runLoad(server.url, queues, connections, duration, true, subject.wrap);
      const ticksAfter = readCpuTicks(pid);
      const machineAfter = readMachineBusyTicks();
      const mem = readRssMb(pid);
      const serverCpuS = (ticksAfter - ticksBefore) / CLK_TCK;
      const sorted = r.latencies.slice().sort();
      const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
      const completed = r.result.requests.total;
      const wallS = r.result.duration;
      const ms = (v) => Math.round(v * 1000) / 1000;
      run = {
        subject: subject.name,
        connections,
        durationS: wallS,
        completed,
        requestsPerSecond: Math.round(completed / wallS),
        perSecondSamples: {
          mean: r.result.requests.average,
          min: r.result.requests.min,
          max: r.result.requests.max,
          stddev: Math.round(r.result.requests.stddev),
        },
        latencyMs: {
          mean: ms(mean),
          p50: ms(percentile(sorted, 50)),
          p90: ms(percentile(sorted, 90)),
          p97_5: ms(percentile(sorted, 97.5)),
          p99: ms(percentile(sorted, 99)),
          p99_9: ms(percentile(sorted, 99.9)),
          max: ms(sorted[sorted.length - 1] ?? NaN),
        },
        autocannonLatencyMs: { p50: r.result.latency.p50, p97_5: r.result.latency.p97_5, p99: r.result.latency.p99, max: r.result.latency.max },
        non2xx: r.result.non2xx,
        errors: r.result.errors,
        timeouts: r.result.timeouts,
        statusByKind: { transaction: r.status[0], event: r.status[1] },
        transactionsWithHit: r.hits.transactions ? Math.round((r.hits.withHit / r.hits.transactions) * 1000) / 1000 : null,
        serverCpuS,
        serverCpuPercent: Math.round((serverCpuS / wallS) * 100),
        requestsPerServerCpuS: Math.round(completed / serverCpuS),
        clientCpuPercent: Math.round((r.clientCpuS / r.clientWallS) * 100),
        // Everything else on the machine during the run (other processes, kernel threads): noise.
        otherCpuPercent: Math.max(0, Math.round((((machineAfter - machineBefore) / CLK_TCK - serverCpuS - r.clientCpuS) / wallS) * 100)),
        loadAverageAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
        server: mem,
        operationsBeforeRun: sent,
        logBytes: statSync(logFile).size,
        exhausted: r.exhausted,
        problems: r.problems,
      };
    } finally {
      const exit = await stopServer(server);
      if (!args['keep-logs']) rmSync(logFile, { force: true });
      if (exit.code !== 0 && exit.code !== null) console.error(`server exited with code ${exit.code}: ${server.stderr().trim()}`);
    }
    runs.push(run);
    const l = run.latencyMs;
    console.log(
      `${subject.name} c=${connections}: ${run.requestsPerSecond.toLocaleString('en-US')} req/s, p50 ${l.p50} ms, p97.5 ${l.p97_5} ms, p99 ${l.p99} ms, ` +
        `non-2xx ${run.non2xx}, server CPU ${run.serverCpuPercent}% → ${run.requestsPerServerCpuS.toLocaleString('en-US')} req/cpu-s, client CPU ${run.clientCpuPercent}%, other processes ${run.otherCpuPercent}%` +
        (run.exhausted ? '  [WORKLOAD EXHAUSTED: raise --ops]' : ''),
    );
    for (const p of run.problems) console.log(`  non-2xx sample: ${p.kind} ${p.status} ${p.body}`);
    if (run.otherCpuPercent > 10) console.log(`  warning: other processes used ${run.otherCpuPercent}% of a core during this run; the figures are noisy`);
  }

// ---- table -----------------------------------------------------------------------------------

const fmt = (n) => n.toLocaleString('en-US');
const header = [
  'server',
  'connections',
  'req/s',
  'p50 ms',
  'p97.5 ms',
  'p99 ms',
  'p99.9 ms',
  'max ms',
  'non-2xx',
  'server CPU %',
  'req/s per server core',
  'client CPU %',
  'other CPU %',
];
const rows = runs.map((r) => [
  r.subject,
  String(r.connections),
  fmt(r.requestsPerSecond),
  r.latencyMs.p50.toFixed(2),
  r.latencyMs.p97_5.toFixed(2),
  r.latencyMs.p99.toFixed(2),
  r.latencyMs.p99_9.toFixed(2),
  r.latencyMs.max.toFixed(1),
  String(r.non2xx),
  String(r.serverCpuPercent),
  fmt(r.requestsPerServerCpuS),
  String(r.clientCpuPercent),
  String(r.otherCpuPercent),
]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
console.log();
console.log(header.map((h, i) => h.padStart(widths[i])).join('  '));
for (const row of rows) console.log(row.map((c, i) => c.padStart(widths[i])).join('  '));
console.log();
for (const r of runs) {
  console.log(
    `${r.subject} c=${r.connections}: ${fmt(r.completed)} requests in ${r.durationS} s (per-second samples ${fmt(r.perSecondSamples.min)}–${fmt(r.perSecondSamples.max)}); ` +
      `transactions ${JSON.stringify(r.statusByKind.transaction)}, events ${JSON.stringify(r.statusByKind.event)}; ` +
      `${Math.round((r.transactionsWithHit ?? 0) * 100)}% of transactions hit a rule; server RSS ${r.server.rssMb} MB (peak ${r.server.peakRssMb} MB); ` +
      `autocannon's own (whole-ms) p50/p97.5/p99 ${r.autocannonLatencyMs.p50}/${r.autocannonLatencyMs.p97_5}/${r.autocannonLatencyMs.p99} ms`,
  );
}
const txmonRuns = runs.filter((r) => r.subject === 'txmon');
const c10 = txmonRuns.find((r) => r.connections === 10) ?? txmonRuns[0];
if (c10) {
  const rateOk = c10.requestsPerServerCpuS >= 8000;
  const p99Ok = c10.latencyMs.p99 <= 5;
  console.log(
    `\ntarget (≥ 8,000 req/s on one core, p99 ≤ 5 ms), at ${c10.connections} connections: ` +
      `${fmt(c10.requestsPerSecond)} req/s wall, ${fmt(c10.requestsPerServerCpuS)} per server CPU-second — ${rateOk ? 'met' : 'NOT met'}; ` +
      `p99 ${c10.latencyMs.p99} ms — ${p99Ok ? 'met' : 'NOT met'}`,
  );
}

if (args.json !== '-') {
  mkdirSync(path.dirname(args.json), { recursive: true });
  writeFileSync(
    args.json,
    `${JSON.stringify({ env, options: { connections: connectionCounts, durationS: duration, warmupS: warmup, operations: totalOps, seed, pipelining: 1, meanBodyBytes, anchor: args.anchor }, runs }, null, 2)}\n`,
  );
  console.log(`\nwrote ${path.relative(process.cwd(), args.json)}`);
}
const bad = runs.some((r) => r.non2xx > 0 || r.errors > 0 || r.exhausted);
if (bad) console.error('some run had non-2xx answers, errors, or ran out of operations (see above)');
process.exit(bad ? 1 : 0);
