/**
 * Batch throughput: the first N transactions of the `today` workload (20 instances, alerts on)
 * sent as ONE batch (`createTransactionBatch`, chunks of 250 as one store unit each) beside the
 * same transactions sent one by one (`createTransaction`), into the memory repositories and into
 * PostgreSQL (a throw-away server started here unless --url is given). On PostgreSQL a chunk's
 * reads are taken at once and its creations written set-based (src/engine/services/chunk-reads.ts).
 * Each subject starts on an empty store with the 20 instances. Reports transactions per second.
 * With `--batches N`, the batch subject sends N consecutive batches of the next transactions of
 * the stream into the same store, as an import of a long history does: each later batch finds the
 * windows the earlier ones filled (and a process that has run batches before); one line each.
 *
 *   npm run build && node bench/import.mjs [--tx 10000] [--batches 1] [--url postgres://…] [--stores memory,postgres] [--subjects one-by-one,batch] [--mode monitor|import]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadBuild, sequentialIds } from './persistence-engine.mjs';
import { startPostgresServer } from './persistence-server.mjs';
import { createInstanceConfigs, streamWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * CPU seconds the PostgreSQL server started here has used (the postmaster and its backends, from
 * /proc): what the database costs, apart from how busy the machine is. `null` without /proc or a
 * server of our own.
 */
function serverCpuSeconds(server) {
  if (server === null || !existsSync('/proc/self/stat')) return null;
  const ticks = (pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime + stime, and cutime + cstime: the backends that ended (reaped by the postmaster) count too.
      return { ppid: Number(fields[1]), cpu: Number(fields[11]) + Number(fields[12]), reaped: Number(fields[13]) + Number(fields[14]) };
    } catch {
      return null;
    }
  };
  const postmaster = Number(readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const own = ticks(postmaster);
  let total = (own?.cpu ?? 0) + (own?.reaped ?? 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const t = ticks(entry);
    if (t !== null && t.ppid === postmaster) total += t.cpu;
  }
  return total / 100;
}

function parseOptions(argv) {
  const o = { tx: 10_000, batches: 1, url: null, stores: ['memory', 'postgres'], subjects: ['one-by-one', 'batch'], mode: 'monitor' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--tx') o.tx = Number(value);
    else if (arg === '--batches') o.batches = Number(value);
    else if (arg === '--url') o.url = value;
    else if (arg === '--stores') o.stores = value.split(',');
    else if (arg === '--subjects') o.subjects = value.split(',');
    else if (arg === '--mode') o.mode = value;
    else throw new Error(`unknown option ${arg}`);
    i++;
  }
  if (!Number.isSafeInteger(o.tx) || o.tx < 1 || o.tx > 10_000) throw new Error('--tx must be 1 to 10000 (one batch)');
  if (!Number.isSafeInteger(o.batches) || o.batches < 1 || o.batches > 20) throw new Error('--batches must be 1 to 20');
  return o;
}

function transactionsOf(count) {
  const out = [];
  for (const op of streamWorkload({ seed: WORKLOAD_DEFAULTS.seed, operations: count * 2 })) {
    if (op.kind === 'transaction') out.push(op.payload);
    if (out.length === count) break;
  }
  return out;
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const { txmon, postgres } = await loadBuild(path.join(here, '../dist'));
  const stream = transactionsOf(o.tx * o.batches);
  const transactions = stream.slice(0, o.tx);
  const instances = createInstanceConfigs();
  let server = null;
  let admin = null;
  const pools = [];
  let databaseCount = 0;
  /** A fresh migrated database on the server, with a pool on it. */
  const freshDatabase = async () => {
    databaseCount += 1;
    const name = `txmon_import_${process.pid}_${databaseCount}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(o.url ?? server.url);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
    pools.push(pool);
    await postgres.migrate(pool);
    return postgres.createPostgresRepositories({ client: pool });
  };
  const engineOn = async (repositories) => {
    const engine = txmon.createEngine({ repositories, ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(7) });
    for (const { request } of instances) await engine.createRuleInstance(request);
    return engine;
  };
  const rows = [];
  /** One measured call: `send` on `data`, timed, with the CPU each side used. */
  const measure = async (store, subject, engine, data, send, label = subject) => {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const serverCpu = store === 'postgres' ? serverCpuSeconds(server) : null;
    await send(data);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const nodeCpu = (used.user + used.system) / 1e6;
    const dbCpu = serverCpu === null ? null : serverCpuSeconds(server) - serverCpu;
    const alerts = (await engine.listAlerts()).length;
    const cpuText = `node CPU ${nodeCpu.toFixed(2)} s${dbCpu === null ? '' : `, database CPU ${dbCpu.toFixed(2)} s`}`;
    rows.push({
      store,
      subject: label,
      transactions: data.length,
      seconds: seconds.toFixed(2),
      perSecond: Math.round(data.length / seconds),
      alerts,
      nodeCpuSeconds: nodeCpu.toFixed(2),
      ...(dbCpu === null ? {} : { databaseCpuSeconds: dbCpu.toFixed(2) }),
    });
    console.log(
      `${store.padEnd(9)} ${label.padEnd(11)} ${String(data.length).padStart(6)} tx  ${seconds.toFixed(2).padStart(7)} s  ${String(Math.round(data.length / seconds)).padStart(7)} tx/s  ${alerts} alerts  (${cpuText})`,
    );
  };
  const run = async (store, subject, repositories) => {
    const engine = await engineOn(repositories);
    if (subject !== 'batch') {
      await measure(store, subject, engine, structuredClone(transactions), async (data) => {
        for (const t of data) await engine.createTransaction(t);
      });
      return;
    }
    const mode = o.mode === 'import' ? 'IMPORT' : 'MONITOR';
    for (let b = 0; b < o.batches; b++) {
      const data = structuredClone(stream.slice(b * o.tx, (b + 1) * o.tx));
      const label = o.batches === 1 ? subject : `batch ${b + 1}`;
      await measure(
        store,
        subject,
        engine,
        data,
        async (records) => {
          const response = await engine.createTransactionBatch({ data: records }, { mode });
          if (response.successful !== records.length) throw new Error(`${store} batch: ${response.failed} records failed`);
        },
        label,
      );
    }
  };
  try {
    console.log(
      `import bench: ${transactions.length} transactions of the today workload${o.batches > 1 ? ` a batch, ${o.batches} batches` : ''}, 20 instances, mode ${o.mode}; Node ${process.version}`,
    );
    if (o.stores.includes('memory')) {
      for (const subject of o.subjects) await run('memory', subject, txmon.createMemoryRepositories());
    }
    if (o.stores.includes('postgres')) {
      if (o.url === null) {
        server = await startPostgresServer();
        console.log(`started a throw-away PostgreSQL server at ${server.url}`);
      }
      admin = new pg.Client({ connectionString: o.url ?? server.url });
      await admin.connect();
      for (const subject of o.subjects) await run('postgres', subject, await freshDatabase());
    }
  } finally {
    for (const pool of pools) await pool.end().catch(() => undefined);
    if (admin !== null) {
      for (let i = 1; i <= databaseCount; i++)
        await admin.query(`DROP DATABASE IF EXISTS txmon_import_${process.pid}_${i} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
    server?.stop();
  }
  console.log(JSON.stringify(rows));
}

await main();
