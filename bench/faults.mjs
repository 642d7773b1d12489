#!/usr/bin/env node
/**
 * Operator faults against a real `txmon serve`: a throw-away PostgreSQL 15 server is started here,
 * each scenario starts its own `txmon serve` (the build given by `--cli`, default ../dist/cli.js),
 * puts it under load and injects one fault (backends terminated, PostgreSQL restarted or killed, a
 * table locked, the database down at start, probes during startup, two processes on one PGlite
 * directory, many keep-alive clients, many tenants' pools, a generated key across a restart).
 *
 * Per scenario: requests acknowledged (2xx), answered 503, other outcomes (500, other statuses,
 * client timeouts, socket errors by kind), whether the server died (exit code/signal), and the
 * recovery time (from the end of the fault / the database being back to the first acknowledged
 * write after it). A table at the end, and `--json <file>` writes everything.
 *
 *   node bench/faults.mjs [--cli path/to/dist/cli.js] [--json out.json] [--only name,name] [--pg-bin dir]
 *
 * Only Node built-ins and `pg`. Every child process (servers, PostgreSQL) is stopped and every
 * temporary directory removed on every path (errors, SIGINT/SIGTERM included).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

const HERE = dirname(fileURLToPath(import.meta.url));
const { values: opts } = parseArgs({
  options: {
    cli: { type: 'string', default: join(HERE, '..', 'dist', 'cli.js') },
    json: { type: 'string' },
    only: { type: 'string' },
    'pg-bin': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
  allowPositionals: false,
});
if (opts.help) {
  process.stdout.write('node bench/faults.mjs [--cli path/to/dist/cli.js] [--json out.json] [--only name,name] [--pg-bin dir]\n');
  process.exit(0);
}
const CLI = resolve(opts.cli);
if (!existsSync(CLI)) {
  process.stderr.write(`faults: no build at ${CLI} (run npm run build, or pass --cli)\n`);
  process.exit(2);
}

const KEY = 'faults-key-0123456789abcdef';
const REQUEST_TIMEOUT_MS = 5_000;
const LOAD_CLIENTS = 12;
const PRE_FAULT_MS = 1_000;
const POST_FAULT_MS = 2_500;
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const USERS = ['u-0', 'u-1', 'u-2', 'u-3', 'u-4'];
/** A velocity rule that hits on every transaction after a user's first (test/package/serve-store.test.ts). */
const COUNTING_RULE = {
  ruleId: 'R-30',
  parameters: { transactionsLimit: 0, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' },
};
const RUN_ID = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x) => (x === null || x === undefined ? x : Math.round(x));
const log = (line) => process.stderr.write(`[faults ${new Date().toISOString().slice(11, 23)}] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Cleanup on every path: children, PostgreSQL, temporary directories
// ---------------------------------------------------------------------------------------------

const children = new Set();
const tempDirs = new Set();
let postgres = null;
let cleanedUp = false;

function cleanupSync() {
  if (cleanedUp) return;
  cleanedUp = true;
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // gone
      }
    }
  }
  children.clear();
  if (postgres !== null) {
    try {
      postgres.stopSync();
    } catch (error) {
      process.stderr.write(`faults: stopping PostgreSQL: ${error.message}\n`);
    }
    postgres = null;
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nfaults: ${signal}: stopping every child and removing temporary directories\n`);
    cleanupSync();
    process.exit(130);
  });
}
process.on('uncaughtException', (error) => {
  process.stderr.write(`faults: uncaught ${error?.stack ?? error}\n`);
  cleanupSync();
  process.exit(1);
});
const strayRejections = [];
process.on('unhandledRejection', (reason) => {
  strayRejections.push(String(reason?.message ?? reason));
});

function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Runs a program to its end (async: the event loop, and so the load, keeps running). */
function runAsync(file, args, { timeoutMs = 90_000 } = {}) {
  return new Promise((resolveRun) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (c) => {
      if (out.length < 20_000) out += c;
    });
    child.stderr.on('data', (c) => {
      if (out.length < 20_000) out += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      resolveRun({ code: null, signal: null, out: `${out}${error.message}` });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolveRun({ code, signal, out });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The throw-away PostgreSQL server
// ---------------------------------------------------------------------------------------------

function postgresBinDir() {
  const configured = opts['pg-bin'] ?? process.env.TXMON_POSTGRES_BIN;
  if (configured) return configured;
  if (existsSync('/usr/lib/postgresql/15/bin/initdb')) return '/usr/lib/postgresql/15/bin';
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  throw new Error('no PostgreSQL binaries (install PostgreSQL 15 or pass --pg-bin)');
}

async function startPostgres() {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = tempDir('txmon-faults-pg-');
  if (asRoot) {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    execFileSync('chown', ['postgres', dir]);
  }
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const port = await freePort();
  const command = (program, args) => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args]);
  const runSync = (program, args, timeout = 90_000) => {
    const [file, argv] = command(program, args);
    return execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout }).toString();
  };
  // fsync off only matters for an OS crash; synchronous_commit stays on, so a killed postmaster loses
  // no commit PostgreSQL acknowledged (what txmon acknowledged must then read back).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (args, timeoutMs) => {
    const [file, argv] = command('pg_ctl', args);
    return runAsync(file, argv, { timeoutMs });
  };
  runSync('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C']);
  runSync('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', '-o', options, 'start']);
  const server = {
    bin,
    dir,
    data,
    port,
    url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`,
    postmasterPid() {
      const text = readFileSync(join(data, 'postmaster.pid'), 'utf8');
      return Number(text.split('\n')[0]);
    },
    start: () => pgCtl(['-D', data, '-l', logFile, '-w', '-t', '60', '-o', options, 'start'], 90_000),
    restartFast: () => pgCtl(['-D', data, '-l', logFile, '-w', '-t', '60', '-m', 'fast', 'restart'], 90_000),
    stopSync() {
      try {
        runSync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop'], 40_000);
      } catch {
        // Not running (or pg_ctl failed): kill what the pid file names, if alive.
        try {
          process.kill(this.postmasterPid(), 'SIGKILL');
        } catch {
          // none
        }
      }
      removeTempDir(dir);
    },
  };
  return server;
}

async function adminClient(db = 'postgres') {
  const client = new pg.Client({ connectionString: postgres.url(db), connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Makes sure PostgreSQL answers (a previous scenario may have left it down). */
async function ensurePostgresUp() {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      const client = await adminClient();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      if (attempt % 5 === 0) await postgres.start();
      await sleep(250);
    }
  }
  throw new Error('PostgreSQL does not come back');
}

let dbCounter = 0;
async function createDatabase(name) {
  const db = `faults_${name.replace(/[^a-z0-9]/g, '_')}_${++dbCounter}`;
  const client = await adminClient();
  try {
    await client.query(`CREATE DATABASE ${db}`);
  } finally {
    await client.end();
  }
  return db;
}

// ---------------------------------------------------------------------------------------------
// txmon serve processes
// ---------------------------------------------------------------------------------------------

function serveEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('TXMON_')) delete env[name];
  return env;
}

let keyFile = null;
function defaultKeyFile() {
  if (keyFile === null) {
    keyFile = join(tempDir('txmon-faults-keys-'), 'keys');
    writeFileSync(keyFile, `${KEY}\n`);
  }
  return keyFile;
}

/**
 * Spawns `txmon serve`. `key`: true for the default key (given in a key file, so stderr carries no
 * warning), false for none (a generated key). Standard output is drained continuously (the request
 * log); its first 16 KB and standard error's first 16 KB are kept.
 */
function startTxmon({ store, key = true, port = 0, extra = [], scenario }) {
  const argv = [CLI, 'serve', '--port', String(port), '--store', store, ...(key ? ['--api-key-file', defaultKeyFile()] : []), ...extra];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: serveEnv() });
  children.add(child);
  const proc = { child, spawnedAt: now(), head: '', stderr: '', url: null, readyAt: null, exit: null, stoppedByUs: false };
  scenario?.procs.push(proc);
  child.stdout.on('data', (chunk) => {
    if (proc.head.length < 16_384) proc.head += chunk.toString();
    if (proc.url === null) {
      const match = /"url":"([^"]+)"/.exec(proc.head);
      if (match) {
        proc.url = match[1];
        proc.readyAt = now();
      }
    }
  });
  child.stderr.on('data', (chunk) => {
    if (proc.stderr.length < 16_384) proc.stderr += chunk.toString();
  });
  proc.exited = new Promise((resolveExit) => {
    child.on('exit', (code, signal) => {
      proc.exit = { code, signal, at: now() };
      children.delete(child);
      resolveExit(proc.exit);
    });
    child.on('error', (error) => {
      proc.stderr += `spawn error: ${error.message}\n`;
    });
  });
  return proc;
}

const alive = (proc) => proc.exit === null;

async function waitReady(proc, timeoutMs = 60_000) {
  const deadline = now() + timeoutMs;
  while (proc.url === null) {
    if (!alive(proc)) throw new Error(`txmon exited before serving (${exitText(proc.exit)}): ${firstLines(proc.stderr, 4)}`);
    if (now() > deadline) throw new Error(`txmon did not serve within ${timeoutMs} ms: ${firstLines(proc.stderr, 4)}`);
    await sleep(10);
  }
  return proc.url;
}

/** SIGTERM, then SIGKILL after `graceMs`; what the exit was. */
async function stopTxmon(proc, graceMs = 13_000) {
  if (!alive(proc)) return { alreadyExited: true, ...exitInfo(proc) };
  proc.stoppedByUs = true;
  const t = now();
  proc.child.kill('SIGTERM');
  const exited = await Promise.race([proc.exited, sleep(graceMs).then(() => null)]);
  if (exited === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
    return { forcedKill: true, ms: round(now() - t), code: proc.exit.code, signal: proc.exit.signal };
  }
  return { forcedKill: false, ms: round(now() - t), code: exited.code, signal: exited.signal };
}

function exitInfo(proc) {
  return proc.exit === null ? null : { code: proc.exit.code, signal: proc.exit.signal };
}
function exitText(exit) {
  return exit === null ? 'running' : exit.signal ? `signal ${exit.signal}` : `exit ${exit.code}`;
}
function firstLines(text, n) {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, n)
    .join(' | ');
}
/** The first lines of stderr that explain a crash (Node prints the throwing line, then the error). */
function crashLines(proc) {
  const lines = proc.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('--api-key is visible'));
  const errorLine = lines.findIndex((l) => /Error|error:|^txmon:|Unhandled|FATAL/i.test(l));
  const from = errorLine < 0 ? 0 : Math.max(0, errorLine - 1);
  return lines
    .slice(from, from + 4)
    .map((l) => l.trim().slice(0, 200))
    .join(' | ');
}

// ---------------------------------------------------------------------------------------------
// Requests and load
// ---------------------------------------------------------------------------------------------

function classifyError(error) {
  if (error?.name === 'TimeoutError') return 'timeout';
  const cause = error?.cause;
  const code = error?.code ?? cause?.code ?? cause?.name ?? error?.name ?? 'unknown';
  return `err:${code}`;
}
function classifyStatus(status) {
  if (status >= 200 && status < 300) return 'ack';
  return `status:${status}`;
}

/** A request through fetch (a new keep-alive pool per process: undici's global dispatcher). */
async function fetchCall(base, method, path, body, key = KEY, timeoutMs = REQUEST_TIMEOUT_MS) {
  const start = now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return { start, end: now(), status: response.status, outcome: classifyStatus(response.status), text };
  } catch (error) {
    return { start, end: now(), status: null, outcome: classifyError(error), text: '' };
  }
}

/** A request through node:http with a given agent (keep-alive clients). */
function httpCall(agent, base, method, path, body, key = KEY, timeoutMs = REQUEST_TIMEOUT_MS, onSocket) {
  const start = now();
  const url = new URL(`${base}${path}`);
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolveCall) => {
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolveCall({ start, end: now(), ...result });
    };
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname,
        headers: { 'x-api-key': key, ...(payload === null ? {} : { 'content-type': 'application/json', 'content-length': payload.length }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => finish({ status: res.statusCode, outcome: classifyStatus(res.statusCode), text }));
        res.on('error', (error) => finish({ status: null, outcome: classifyError(error), text: '' }));
        res.on('aborted', () => finish({ status: null, outcome: 'err:ECONNRESET', text: '' }));
      },
    );
    const timer = setTimeout(() => {
      finish({ status: null, outcome: 'timeout', text: '' });
      req.destroy();
    }, timeoutMs);
    req.on('socket', (socket) => onSocket?.(socket));
    req.on('error', (error) => finish({ status: null, outcome: classifyError(error), text: '' }));
    req.end(payload ?? undefined);
  });
}

let txCounter = 0;
function transactionBody(id, n) {
  return {
    type: 'TRANSFER',
    transactionId: id,
    timestamp: T0 + n * 1000,
    originUserId: USERS[n % USERS.length],
    destinationUserId: 'merchant',
    originAmountDetails: { transactionAmount: 50 + (n % 17) * 10, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: 50 + (n % 17) * 10, transactionCurrency: 'EUR', country: 'FR' },
  };
}

/**
 * Load: `clients` loops, each sending POST /transactions (unique ids) and, about one time in four,
 * POST /events/transaction for a transaction its tenant already acknowledged. Stops on `stop()` or
 * once the server process is gone. Every request is recorded: kind, id, start, end, outcome.
 */
function startLoad({ base, keys = [KEY], clients = LOAD_CLIENTS, prefix, proc, call = fetchCall, eventShare = 0.25 }) {
  const records = [];
  const ackedByKey = new Map(keys.map((k) => [k, []]));
  let stopped = false;
  const loop = async (index) => {
    const key = keys[index % keys.length];
    const acked = ackedByKey.get(key);
    while (!stopped && (proc === undefined || alive(proc))) {
      const useEvent = acked.length > 0 && Math.random() < eventShare;
      let record;
      if (useEvent) {
        const target = acked[Math.floor(Math.random() * acked.length)];
        target.events += 1;
        const eventId = `${target.id}-ev-${target.events}`;
        const body = { transactionId: target.id, eventId, timestamp: target.timestamp + target.events, transactionState: 'SUCCESSFUL' };
        const result = await call(base, 'POST', '/events/transaction', body, key);
        record = { kind: 'event', id: eventId, key, start: result.start, end: result.end, outcome: result.outcome };
      } else {
        const n = ++txCounter;
        const id = `${prefix}-${RUN_ID}-${n}`;
        const body = transactionBody(id, n);
        const result = await call(base, 'POST', '/transactions', body, key);
        record = { kind: 'tx', id, key, start: result.start, end: result.end, outcome: result.outcome };
        if (result.outcome === 'ack') acked.push({ id, timestamp: body.timestamp, events: 0 });
      }
      records.push(record);
      // A connection refused or reset: a short pause, so a dead or restarting server is not spun on.
      if (record.outcome.startsWith('err:')) await sleep(25);
    }
  };
  const loops = Array.from({ length: clients }, (_, i) => loop(i));
  return {
    records,
    ackedByKey,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Counts of outcomes: acknowledged, 503, 500, other statuses, timeouts, socket errors by kind. */
function summarize(records) {
  const s = { requests: records.length, ack: 0, s503: 0, s500: 0, otherStatus: {}, timeout: 0, socket: {} };
  for (const r of records) {
    if (r.outcome === 'ack') s.ack++;
    else if (r.outcome === 'status:503') s.s503++;
    else if (r.outcome === 'status:500') s.s500++;
    else if (r.outcome === 'timeout') s.timeout++;
    else if (r.outcome.startsWith('status:')) s.otherStatus[r.outcome.slice(7)] = (s.otherStatus[r.outcome.slice(7)] ?? 0) + 1;
    else {
      const kind = r.outcome.slice(4);
      s.socket[kind] = (s.socket[kind] ?? 0) + 1;
    }
  }
  return s;
}

function latencies(records) {
  const sorted = records.map((r) => r.end - r.start).sort((a, b) => a - b);
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? null) };
}

/** Recovery: from `faultEnd` to the first acknowledged write answered after it (and: of one sent after it). */
function recovery(records, faultEnd) {
  const acks = records.filter((r) => r.outcome === 'ack');
  const after = acks.filter((r) => r.end >= faultEnd).sort((a, b) => a.end - b.end)[0];
  const sentAfter = acks.filter((r) => r.start >= faultEnd).sort((a, b) => a.end - b.end)[0];
  const ends = acks.map((r) => r.end).sort((a, b) => a - b);
  let maxGap = 0;
  for (let i = 1; i < ends.length; i++) maxGap = Math.max(maxGap, ends[i] - ends[i - 1]);
  return {
    recoveryMs: after === undefined ? null : round(after.end - faultEnd),
    recoverySentAfterMs: sentAfter === undefined ? null : round(sentAfter.end - faultEnd),
    longestGapBetweenAcksMs: round(maxGap),
  };
}

/**
 * What the database holds against what the clients saw: acknowledged writes missing, and writes the
 * clients did not see acknowledged (timeouts, resets, 500s…) that the server still executed.
 */
async function verifyDatabase(db, records, schema = null) {
  const client = await adminClient(db);
  try {
    const qualify = (table) => (schema === null ? table : `"${schema}".${table}`);
    const txRows = await client.query(`SELECT transaction_id FROM ${qualify('txmon_transactions')}`);
    const evRows = await client.query(`SELECT event_id FROM ${qualify('txmon_events')}`);
    const txIds = new Set(txRows.rows.map((r) => r.transaction_id));
    const evIds = new Set(evRows.rows.map((r) => r.event_id));
    const result = { rowsTransactions: txIds.size, rowsEvents: evIds.size, ackedMissing: 0, storedWithoutAck: {} };
    for (const r of records) {
      const stored = r.kind === 'tx' ? txIds.has(r.id) : evIds.has(r.id);
      if (r.outcome === 'ack' && !stored) result.ackedMissing++;
      if (r.outcome !== 'ack' && stored) result.storedWithoutAck[r.outcome] = (result.storedWithoutAck[r.outcome] ?? 0) + 1;
    }
    return result;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createRule(base, key = KEY) {
  const result = await fetchCall(base, 'POST', '/rule-instances', COUNTING_RULE, key, 15_000);
  if (result.outcome !== 'ack') throw new Error(`creating the R-30 rule instance answered ${result.outcome}: ${result.text.slice(0, 200)}`);
}

// ---------------------------------------------------------------------------------------------
// Scenarios under load on PostgreSQL (1–4)
// ---------------------------------------------------------------------------------------------

/**
 * A fresh database and server, the rule, load for PRE_FAULT_MS, the fault (which returns
 * `{ faultStart, faultEnd, ... }`), load for POST_FAULT_MS more, then SIGTERM and a look at the
 * database.
 */
async function pgLoadScenario(scenario, fault, { postMs = POST_FAULT_MS } = {}) {
  await ensurePostgresUp();
  const db = await createDatabase(scenario.name);
  const proc = startTxmon({ store: postgres.url(db), scenario });
  const base = await waitReady(proc);
  await createRule(base);
  const load = startLoad({ base, prefix: scenario.name, proc });
  scenario.cleanups.push(() => load.stop());
  const loadStart = now();
  await sleep(PRE_FAULT_MS);
  const injected = await fault({ db, proc, base, load });
  const until = injected.faultEnd + postMs;
  while (now() < until && alive(proc)) await sleep(20);
  await load.stop();
  const loadEnd = now();
  const died = !alive(proc);
  const result = {
    died,
    exit: exitInfo(proc),
    diedAtMsAfterFaultStart: died ? round(proc.exit.at - injected.faultStart) : null,
    crash: died ? crashLines(proc) : null,
    loadMs: round(loadEnd - loadStart),
    outcomes: summarize(load.records),
    byKind: { tx: summarize(load.records.filter((r) => r.kind === 'tx')), event: summarize(load.records.filter((r) => r.kind === 'event')) },
    duringFault: summarize(load.records.filter((r) => r.start >= injected.faultStart && r.start < injected.faultEnd)),
    ...recovery(load.records, injected.faultEnd),
    fault: { ...injected.details, durationMs: round(injected.faultEnd - injected.faultStart) },
  };
  if (injected.extra) Object.assign(result, injected.extra(load.records));
  result.shutdown = died ? null : await stopTxmon(proc);
  await ensurePostgresUp();
  try {
    result.database = await verifyDatabase(db, load.records);
  } catch (error) {
    result.database = { error: error.message };
  }
  return result;
}

const SCENARIOS = [
  {
    name: 'terminate-backends',
    title: 'pg_terminate_backend ×3 under load',
    run: (s) =>
      pgLoadScenario(s, async ({ db }) => {
        const faultStart = now();
        const terminated = [];
        for (let i = 0; i < 3; i++) {
          if (i > 0) await sleep(500);
          const admin = await adminClient(db);
          try {
            const r = await admin.query(
              "SELECT count(*) FILTER (WHERE t) ::int AS n FROM (SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') x",
            );
            terminated.push(r.rows[0].n);
          } finally {
            await admin.end().catch(() => undefined);
          }
        }
        return { faultStart, faultEnd: now(), details: { terminatedPerRound: terminated } };
      }),
  },
  {
    name: 'restart-fast',
    title: 'pg_ctl restart -m fast under load',
    run: (s) =>
      pgLoadScenario(s, async () => {
        const faultStart = now();
        const r = await postgres.restartFast();
        const faultEnd = now();
        if (r.code !== 0) throw new Error(`pg_ctl restart failed: ${r.out.slice(0, 300)}`);
        return { faultStart, faultEnd, details: { postgresOutageMs: round(faultEnd - faultStart) } };
      }),
  },
  {
    name: 'kill-postmaster',
    title: 'kill -9 postmaster, then pg_ctl start',
    run: (s) =>
      pgLoadScenario(s, async () => {
        const pid = postgres.postmasterPid();
        const faultStart = now();
        process.kill(pid, 'SIGKILL');
        // The backends notice their postmaster died and exit; until they do, a new postmaster refuses
        // to start (shared memory still in use): start again until it serves.
        let attempts = 0;
        let last = '';
        for (;;) {
          attempts++;
          await sleep(100);
          const r = await postgres.start();
          if (r.code === 0) break;
          last = r.out.slice(0, 300);
          if (attempts >= 60) throw new Error(`PostgreSQL did not start again: ${last}`);
        }
        const faultEnd = now();
        return { faultStart, faultEnd, details: { postmasterPid: pid, startAttempts: attempts, postgresOutageMs: round(faultEnd - faultStart) } };
      }),
  },
  {
    name: 'locked-table',
    title: 'ACCESS EXCLUSIVE lock on txmon_transactions for 8 s',
    run: (s) =>
      pgLoadScenario(s, async ({ db }) => {
        const admin = await adminClient(db);
        try {
          await admin.query('BEGIN');
          const requested = now();
          await admin.query('LOCK TABLE txmon_transactions IN ACCESS EXCLUSIVE MODE');
          const faultStart = now();
          await sleep(8_000);
          await admin.query('ROLLBACK');
          const faultEnd = now();
          return {
            faultStart,
            faultEnd,
            details: { lockWaitMs: round(faultStart - requested), lockHeldMs: round(faultEnd - faultStart) },
            extra: (records) => {
              const during = records.filter((r) => r.start >= faultStart && r.start < faultEnd);
              return {
                latencyDuringLock: { ...latencies(during), note: `client timeouts count as ${REQUEST_TIMEOUT_MS} ms` },
                latencyDuringLockAnswered: latencies(during.filter((r) => r.outcome !== 'timeout')),
              };
            },
          };
        } finally {
          await admin.end().catch(() => undefined);
        }
      }),
  },
  {
    name: 'db-down-at-start',
    title: 'postgres URL where nothing listens (--store-wait-ms 3000 where the build has it)',
    run: async (s) => {
      const port = await freePort();
      const t = now();
      const waits = execFileSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8' }).includes('--store-wait-ms');
      const proc = startTxmon({ store: `postgres://postgres@127.0.0.1:${port}/postgres`, scenario: s, extra: waits ? ['--store-wait-ms', '3000'] : [] });
      // While it waits for the database: what a probe and a client see.
      const seen = { healthz: new Map(), readyz: new Map(), rules: new Map() };
      const probing = (async () => {
        while (alive(proc)) {
          const address = /"address":"([^"]+)"/.exec(proc.head)?.[1];
          if (address !== undefined) {
            for (const [name, path] of [
              ['healthz', '/healthz'],
              ['readyz', '/readyz'],
              ['rules', '/rules'],
            ]) {
              const outcome = await fetch(`http://${address}${path}`, { headers: { 'x-api-key': KEY }, signal: AbortSignal.timeout(1_000) }).then(
                (r) => String(r.status),
                (e) => e.cause?.code ?? e.name,
              );
              seen[name].set(outcome, (seen[name].get(outcome) ?? 0) + 1);
            }
          }
          await sleep(100);
        }
      })();
      const exited = await Promise.race([proc.exited, sleep(60_000).then(() => null)]);
      await probing;
      const result = {
        died: exited !== null,
        exit: exitInfo(proc),
        exitMs: exited === null ? null : round(exited.at - t),
        listenedFirst: /"address":"/.test(proc.head),
        whileWaiting: Object.fromEntries(Object.entries(seen).map(([name, map]) => [name, Object.fromEntries(map)])),
        printedUsage: /Usage: txmon serve/.test(proc.stderr),
        stderrFirstLines: proc.stderr.split('\n').slice(0, 4),
      };
      if (exited === null) {
        result.stillRunningAfterMs = 60_000;
        result.shutdown = await stopTxmon(proc);
      }
      return result;
    },
  },
  {
    name: 'startup-probes',
    title: 'GET /healthz and /rules every 20 ms from spawn (PGlite)',
    run: async (s) => {
      const runs = [];
      for (let i = 0; i < 4; i++) runs.push(await startupProbeRun(s, i));
      return {
        died: runs.some((r) => r.died),
        crashedRuns: runs.filter((r) => r.died).length,
        exit: runs.find((r) => r.died)?.exit ?? null,
        runs,
      };
    },
  },
  {
    name: 'two-owners',
    title: 'two servers on one PGlite directory; prune while serving',
    run: (s) => twoOwners(s),
  },
  {
    name: 'many-clients',
    title: '60 keep-alive clients from 127.0.0.1 for 3 s (memory)',
    run: (s) => manyClients(s, 60),
  },
  {
    name: 'many-clients-100',
    title: '100 keep-alive clients from 127.0.0.1 for 3 s (memory)',
    run: (s) => manyClients(s, 100),
  },
  {
    name: 'tenants-connections',
    title: '15 tenants on PostgreSQL, all loaded for 3 s',
    run: (s) => tenantsConnections(s),
  },
  {
    name: 'generated-key',
    title: 'no key given, started twice on one PGlite directory',
    run: (s) => generatedKey(s),
  },
];

// ---------------------------------------------------------------------------------------------
// Scenario 6: probes during startup
// ---------------------------------------------------------------------------------------------

/** Runs of equal outcomes in order: "err:ECONNREFUSED×41 → status:500×1". */
function runsOf(list) {
  const out = [];
  for (const item of list) {
    const last = out.at(-1);
    if (last && last[0] === item) last[1]++;
    else out.push([item, 1]);
  }
  return out.map(([o, n]) => `${o}×${n}`).join(' → ');
}

async function startupProbeRun(scenario, index) {
  const dir = tempDir('txmon-faults-probe-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = startTxmon({ store: `pglite:${dir}`, port, scenario });
  const probes = [];
  const pending = new Set();
  const deadline = now() + 60_000;
  let readyPlus = null;
  while (now() < deadline) {
    if (proc.readyAt !== null && readyPlus === null) readyPlus = proc.readyAt + 200;
    if (readyPlus !== null && now() > readyPlus) break;
    if (!alive(proc)) break;
    for (const [name, path, key] of [
      ['healthz', '/healthz', undefined],
      ['rules', '/rules', KEY],
    ]) {
      const p = fetchCall(base, 'GET', path, undefined, key, 2_000).then((r) => {
        probes.push({ name, start: r.start, end: r.end, outcome: r.outcome });
      });
      pending.add(p);
      p.finally(() => pending.delete(p));
    }
    await sleep(20);
  }
  await Promise.all(pending);
  const died = !alive(proc) && !proc.stoppedByUs;
  const readyAt = proc.readyAt;
  const before = (name) =>
    runsOf(
      probes
        .filter((p) => p.name === name && (readyAt === null || p.start < readyAt))
        .sort((a, b) => a.start - b.start)
        .map((p) => p.outcome),
    );
  const after = (name) => summarize(probes.filter((p) => p.name === name && readyAt !== null && p.start >= readyAt));
  const result = {
    run: index,
    died,
    exit: exitInfo(proc),
    readyMs: readyAt === null ? null : round(readyAt - proc.spawnedAt),
    crash: died ? crashLines(proc) : null,
    healthzBeforeReady: before('healthz'),
    rulesBeforeReady: before('rules'),
    healthzAfterReady: after('healthz'),
    rulesAfterReady: after('rules'),
  };
  if (!died) result.shutdown = await stopTxmon(proc);
  removeTempDir(dir);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Scenario 7: two servers on one PGlite directory, and prune while one serves
// ---------------------------------------------------------------------------------------------

async function sendTransactions(base, prefix, count, concurrency = 4) {
  const acked = [];
  const records = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = ++txCounter;
      const id = `${prefix}-${RUN_ID}-${next++}`;
      const r = await fetchCall(base, 'POST', '/transactions', transactionBody(id, n));
      records.push({ kind: 'tx', id, start: r.start, end: r.end, outcome: r.outcome });
      if (r.outcome === 'ack') acked.push(id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { acked, outcomes: summarize(records) };
}

async function readBack(base, ids) {
  let found = 0;
  const other = {};
  for (const id of ids) {
    const r = await fetchCall(base, 'GET', `/transactions/${encodeURIComponent(id)}`);
    if (r.outcome === 'ack') found++;
    else other[r.outcome] = (other[r.outcome] ?? 0) + 1;
  }
  return { asked: ids.length, found, other };
}

async function twoOwners(scenario) {
  const dir = tempDir('txmon-faults-owners-');
  const store = `pglite:${dir}`;
  const result = {};
  const a = startTxmon({ store, scenario });
  const baseA = await waitReady(a);
  await createRule(baseA);
  const b = startTxmon({ store, scenario });
  let baseB = null;
  try {
    baseB = await waitReady(b);
    result.secondStarted = true;
  } catch (error) {
    result.secondStarted = false;
    result.secondStartError = error.message;
    result.secondExit = exitInfo(b);
  }
  const [sentA, sentB] = await Promise.all([
    sendTransactions(baseA, 'ownerA', 50),
    baseB === null ? Promise.resolve({ acked: [], outcomes: null }) : sendTransactions(baseB, 'ownerB', 50),
  ]);
  result.firstSent = sentA.outcomes;
  result.secondSent = sentB.outcomes;
  result.firstAliveBeforeStop = alive(a);
  result.secondAliveBeforeStop = alive(b);
  const [stopA, stopB] = await Promise.all([stopTxmon(a), stopTxmon(b)]);
  result.firstStop = stopA;
  result.secondStop = stopB;
  result.firstStderr = crashLines(a) || null;
  result.secondStderr = crashLines(b) || null;
  const c = startTxmon({ store, scenario });
  let afterPruneAcked = [];
  try {
    const baseC = await waitReady(c);
    result.restarted = true;
    result.readBackFirst = await readBack(baseC, sentA.acked);
    result.readBackSecond = await readBack(baseC, sentB.acked);
    const rules = await fetchCall(baseC, 'GET', '/rule-instances');
    result.ruleInstancesAfter = rules.outcome === 'ack' ? JSON.parse(rules.text).length : rules.outcome;
    // prune while a server owns the directory
    const t = now();
    const pruned = await runAsync(process.execPath, [CLI, 'prune', '--store', store], { timeoutMs: 60_000 });
    result.pruneWhileServing = {
      code: pruned.code,
      signal: pruned.signal,
      ms: round(now() - t),
      refused: pruned.code !== 0,
      output: firstLines(pruned.out, 3).slice(0, 400),
    };
    result.serverAliveAfterPrune = alive(c);
    if (alive(c)) {
      const after = await sendTransactions(baseC, 'afterPrune', 5, 1);
      afterPruneAcked = after.acked;
      result.writesAfterPrune = after.outcomes;
      result.readBackAfterPrune = await readBack(baseC, after.acked);
    }
  } catch (error) {
    result.restarted = false;
    result.restartError = error.message;
  }
  result.thirdStop = await stopTxmon(c);
  // A fourth start: is the directory still usable after prune ran beside a server?
  const d = startTxmon({ store, scenario });
  try {
    const baseD = await waitReady(d);
    result.finalReadBackFirst = await readBack(baseD, sentA.acked);
    result.finalReadBackSecond = await readBack(baseD, sentB.acked);
    result.finalReadBackAfterPrune = await readBack(baseD, afterPruneAcked);
  } catch (error) {
    result.finalStartError = error.message;
  }
  await stopTxmon(d);
  const died = [a, b, c].filter((p) => p.exit !== null && !p.stoppedByUs);
  result.died = died.length > 0;
  result.exit = died[0] ? exitInfo(died[0]) : null;
  removeTempDir(dir);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Scenario 8: many keep-alive clients from one address
// ---------------------------------------------------------------------------------------------

async function manyClients(scenario, clients) {
  const proc = startTxmon({ store: 'memory', scenario });
  const base = await waitReady(proc);
  await createRule(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const sockets = new WeakSet();
  let opened = 0;
  const onSocket = (socket) => {
    if (!sockets.has(socket)) {
      sockets.add(socket);
      opened++;
    }
  };
  const call = (b, method, path, body, key) => httpCall(agent, b, method, path, body, key, REQUEST_TIMEOUT_MS, onSocket);
  const load = startLoad({ base, prefix: 'many', proc, clients, call });
  scenario.cleanups.push(() => load.stop());
  await sleep(3_000);
  await load.stop();
  agent.destroy();
  const died = !alive(proc);
  const result = {
    died,
    exit: exitInfo(proc),
    crash: died ? crashLines(proc) : null,
    outcomes: summarize(load.records),
    socketsOpened: opened,
    throughputPerS: round(load.records.filter((r) => r.outcome === 'ack').length / 3),
  };
  result.shutdown = died ? null : await stopTxmon(proc);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Scenario 9: 15 tenants' pools on one PostgreSQL server
// ---------------------------------------------------------------------------------------------

async function tenantsConnections(scenario) {
  await ensurePostgresUp();
  const db = await createDatabase(scenario.name);
  const tenants = Array.from({ length: 15 }, (_, i) => ({ id: `t${i}`, apiKeys: [`key-t${i}-0123456789abcdef`] }));
  const file = join(tempDir('txmon-faults-tenants-'), 'tenants.json');
  writeFileSync(file, JSON.stringify({ tenants }));
  const admin = await adminClient();
  scenario.cleanups.push(() => admin.end().catch(() => undefined));
  const settings = await admin.query(
    "SELECT current_setting('max_connections')::int AS max, current_setting('superuser_reserved_connections')::int AS reserved",
  );
  const count = async () =>
    (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")).rows[0].n;
  const t = now();
  const proc = startTxmon({ store: postgres.url(db), key: false, extra: ['--tenants', file], scenario });
  const base = await waitReady(proc, 90_000);
  const startupMs = round(now() - t);
  const afterStart = await count();
  const keys = tenants.map((x) => x.apiKeys[0]);
  for (const key of keys) await createRule(base, key);
  const idle = await count();
  const clientsPerTenant = 3;
  const load = startLoad({ base, keys, prefix: 'tenants', proc, clients: keys.length * clientsPerTenant });
  scenario.cleanups.push(() => load.stop());
  let max = 0;
  const samples = [];
  const end = now() + 3_000;
  while (now() < end && alive(proc)) {
    const n = await count().catch(() => null);
    if (n !== null) {
      samples.push(n);
      max = Math.max(max, n);
    }
    await sleep(50);
  }
  await load.stop();
  const died = !alive(proc);
  const perTenantAcks = keys.map((k) => load.records.filter((r) => r.key === k && r.outcome === 'ack').length);
  const result = {
    died,
    exit: exitInfo(proc),
    crash: died ? crashLines(proc) : null,
    maxConnectionsSetting: settings.rows[0].max,
    superuserReserved: settings.rows[0].reserved,
    serverStartupMs: startupMs,
    connectionsAfterStart: afterStart,
    connectionsAfterRules: idle,
    maxConnectionsDuringLoad: max,
    samples: samples.length,
    loadClients: keys.length * clientsPerTenant,
    outcomes: summarize(load.records),
    acksPerTenantMinMax: [Math.min(...perTenantAcks), Math.max(...perTenantAcks)],
  };
  result.shutdown = died ? null : await stopTxmon(proc);
  result.connectionsAfterStop = await count();
  await admin.end().catch(() => undefined);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Scenario 10: a generated key across a restart
// ---------------------------------------------------------------------------------------------

async function generatedKey(scenario) {
  const dir = tempDir('txmon-faults-genkey-');
  const store = `pglite:${dir}`;
  const keyOf = (proc) => /Generated API key \(shown once[^)]*\): (\S+)/.exec(proc.head)?.[1] ?? null;
  const first = startTxmon({ store, key: false, scenario });
  const base1 = await waitReady(first);
  await sleep(100);
  const key1 = keyOf(first);
  const works1 = key1 === null ? null : (await fetchCall(base1, 'GET', '/rules', undefined, key1)).status;
  const stop1 = await stopTxmon(first);
  const second = startTxmon({ store, key: false, scenario });
  const base2 = await waitReady(second);
  await sleep(100);
  const key2 = keyOf(second);
  const firstKeyOnSecond = key1 === null ? null : (await fetchCall(base2, 'GET', '/rules', undefined, key1)).status;
  const secondKeyOnSecond = key2 === null ? null : (await fetchCall(base2, 'GET', '/rules', undefined, key2)).status;
  const stop2 = await stopTxmon(second);
  removeTempDir(dir);
  return {
    died: false,
    exit: null,
    firstKeyPrinted: key1 !== null,
    firstKeyOnFirstStart: works1,
    secondStartPrintedAKey: key2 !== null,
    secondKeyDiffers: key1 !== null && key2 !== null ? key1 !== key2 : null,
    firstKeyOnSecondStart: firstKeyOnSecond,
    firstKeyWorksAfterRestart: firstKeyOnSecond === 200,
    secondKeyOnSecondStart: secondKeyOnSecond,
    stops: [stop1, stop2],
    secondStdoutHead: firstLines(second.head.replace(/txm_[A-Za-z0-9_-]+/g, 'txm_…'), 3).slice(0, 300),
  };
}

// ---------------------------------------------------------------------------------------------
// Running, table, JSON
// ---------------------------------------------------------------------------------------------

const SCENARIO_TIMEOUT_MS = 100_000;

async function runScenario(definition) {
  const scenario = { name: definition.name, procs: [], cleanups: [] };
  const t = now();
  log(`${definition.name}: ${definition.title}`);
  let result;
  let timer;
  try {
    const body = await Promise.race([
      definition.run(scenario),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`scenario timed out after ${SCENARIO_TIMEOUT_MS} ms`)), SCENARIO_TIMEOUT_MS);
      }),
    ]);
    result = { name: definition.name, title: definition.title, ok: true, ...body };
  } catch (error) {
    const crashed = scenario.procs.find((p) => p.exit !== null && !p.stoppedByUs);
    result = {
      name: definition.name,
      title: definition.title,
      ok: false,
      error: error?.message ?? String(error),
      died: crashed !== undefined,
      exit: crashed ? exitInfo(crashed) : null,
      crash: crashed ? crashLines(crashed) : null,
    };
  } finally {
    clearTimeout(timer);
  }
  for (const cleanup of scenario.cleanups)
    await Promise.race([
      Promise.resolve()
        .then(cleanup)
        .catch(() => undefined),
      sleep(15_000),
    ]);
  for (const proc of scenario.procs) {
    if (alive(proc)) {
      proc.stoppedByUs = true;
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
  }
  result.scenarioMs = round(now() - t);
  log(
    `${definition.name}: ${result.ok ? 'done' : `FAILED: ${result.error}`} in ${result.scenarioMs} ms${result.died ? ` — server died (${exitText(result.exit)})` : ''}`,
  );
  return result;
}

function socketText(socket) {
  const entries = Object.entries(socket ?? {});
  return entries.length === 0 ? '0' : entries.map(([k, v]) => `${k.replace(/^UND_ERR_/, '')}:${v}`).join(' ');
}
function otherStatusText(other) {
  const entries = Object.entries(other ?? {});
  return entries.length === 0 ? '0' : entries.map(([k, v]) => `${k}:${v}`).join(' ');
}

/** One line of notes per scenario for the table. */
function notesOf(r) {
  if (!r.ok) return `FAILED: ${r.error}`.slice(0, 160);
  switch (r.name) {
    case 'terminate-backends':
    case 'restart-fast':
    case 'kill-postmaster':
    case 'locked-table': {
      const parts = [];
      if (r.fault?.postgresOutageMs !== undefined) parts.push(`pg outage ${r.fault.postgresOutageMs}ms`);
      if (r.fault?.terminatedPerRound) parts.push(`terminated ${r.fault.terminatedPerRound.join('/')}`);
      if (r.latencyDuringLock) parts.push(`lock lat p50/p99/max ${r.latencyDuringLock.p50}/${r.latencyDuringLock.p99}/${r.latencyDuringLock.max}ms`);
      if (r.database && !r.database.error) {
        const ghosts = Object.entries(r.database.storedWithoutAck)
          .map(([k, v]) => `${k}:${v}`)
          .join(' ');
        parts.push(`db: acked-missing ${r.database.ackedMissing}, stored-unacked ${ghosts || '0'}`);
      }
      if (r.shutdown) parts.push(`SIGTERM→${exitText(r.shutdown)}${r.shutdown.forcedKill ? ' (SIGKILLed)' : ''}`);
      if (r.crash) parts.push(`crash: ${r.crash.slice(0, 140)}`);
      return parts.join('; ');
    }
    case 'db-down-at-start':
      return `${exitText(r.exit)} after ${r.exitMs}ms; while waiting ${JSON.stringify(r.whileWaiting)}; usage printed: ${r.printedUsage}; stderr: ${(r.stderrFirstLines ?? []).filter(Boolean).slice(0, 2).join(' | ').slice(0, 140)}`;
    case 'startup-probes':
      return `${r.crashedRuns}/4 crashed; ${r.runs
        .map((x) => `#${x.run}: healthz[${x.healthzBeforeReady}] rules[${x.rulesBeforeReady}]${x.died ? ` ${exitText(x.exit)}` : ''}`)
        .join('; ')
        .replace(/err:/g, '')}${r.runs.find((x) => x.crash) ? `; crash: ${r.runs.find((x) => x.crash).crash.slice(0, 120)}` : ''}`;
    case 'two-owners':
      return [
        `2nd started: ${r.secondStarted}`,
        r.readBackFirst
          ? `read back A ${r.readBackFirst.found}/${r.readBackFirst.asked}, B ${r.readBackSecond.found}/${r.readBackSecond.asked}`
          : `restart: ${r.restartError}`,
        r.pruneWhileServing ? `prune while serving: exit ${r.pruneWhileServing.code} (${r.pruneWhileServing.refused ? 'refused' : 'ran'})` : null,
        r.finalReadBackFirst
          ? `next start reads A ${r.finalReadBackFirst.found}, B ${r.finalReadBackSecond.found}, after-prune writes ${r.finalReadBackAfterPrune.found}/${r.finalReadBackAfterPrune.asked}`
          : r.finalStartError
            ? `final start: ${r.finalStartError}`
            : null,
      ]
        .filter(Boolean)
        .join('; ');
    case 'many-clients':
    case 'many-clients-100':
      return `${r.socketsOpened} sockets opened; ${r.throughputPerS} acks/s`;
    case 'tenants-connections':
      return `max ${r.maxConnectionsDuringLoad} client backends during load (max_connections ${r.maxConnectionsSetting}); after start ${r.connectionsAfterStart}; acks/tenant ${r.acksPerTenantMinMax?.join('–')}`;
    case 'generated-key':
      return `key printed: ${r.firstKeyPrinted}; first key on 2nd start → ${r.firstKeyOnSecondStart}; new key printed 2nd time: ${r.secondStartPrintedAKey}`;
    default:
      return '';
  }
}

function tableRow(r) {
  const o = r.outcomes;
  const died = r.died ? `yes (${exitText(r.exit)})` : 'no';
  return [
    r.name,
    r.ok ? 'ok' : 'FAILED',
    o ? String(o.ack) : '-',
    o ? String(o.s503) : '-',
    o ? String(o.s500) : '-',
    o ? otherStatusText(o.otherStatus) : '-',
    o ? String(o.timeout) : '-',
    o ? socketText(o.socket) : '-',
    died,
    r.recoveryMs === undefined ? '-' : r.recoveryMs === null ? 'never' : String(r.recoveryMs),
    notesOf(r),
  ];
}
const COLUMNS = ['scenario', 'result', '2xx', '503', '500', 'other status', 'timeout', 'socket errors', 'died', 'recovery ms', 'notes'];

function printTable(rows) {
  const last = COLUMNS.length - 1;
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => (i === last ? 0 : r[i].length))));
  const line = (cells) => cells.map((cell, i) => (i === last ? cell : cell.padEnd(widths[i]))).join(' | ');
  const out = [line(COLUMNS), COLUMNS.map((_c, i) => (i === last ? '-----' : '-'.repeat(widths[i]))).join('-|-')];
  for (const r of rows) out.push(line(r));
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main() {
  const only = opts.only ? new Set(opts.only.split(',')) : null;
  const selected = SCENARIOS.filter((s) => only === null || only.has(s.name));
  if (selected.length === 0) throw new Error(`--only names none of: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const started = new Date().toISOString();
  const t = now();
  const needsPostgres = selected.some((s) => ['terminate-backends', 'restart-fast', 'kill-postmaster', 'locked-table', 'tenants-connections'].includes(s.name));
  let postgresInfo = null;
  if (needsPostgres) {
    postgres = await startPostgres();
    const admin = await adminClient();
    postgresInfo = {
      bin: postgres.bin,
      port: postgres.port,
      version: (await admin.query('SHOW server_version')).rows[0].server_version,
      settings: 'fsync=off, otherwise defaults',
    };
    await admin.end();
    log(`PostgreSQL ${postgresInfo.version} on 127.0.0.1:${postgres.port} (${postgres.bin})`);
  }
  const results = [];
  for (const definition of selected) results.push(await runScenario(definition));
  const report = {
    cli: CLI,
    node: process.version,
    started,
    totalMs: round(now() - t),
    postgres: postgresInfo,
    load: { clients: LOAD_CLIENTS, requestTimeoutMs: REQUEST_TIMEOUT_MS, preFaultMs: PRE_FAULT_MS, postFaultMs: POST_FAULT_MS },
    strayRejections,
    scenarios: results,
  };
  process.stdout.write(`\ntxmon faults — ${CLI}\n\n`);
  printTable(results.map(tableRow));
  process.stdout.write(`\n${JSON.stringify(report, null, 2)}\n`);
  if (opts.json) {
    writeFileSync(resolve(opts.json), `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${resolve(opts.json)}`);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`faults: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  cleanupSync();
}
