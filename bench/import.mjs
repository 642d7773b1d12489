/**
 * Batch throughput: the first N transactions of the `today` workload (20 instances, alerts on)
 * sent as ONE batch (`createTransactionBatch`, chunks of 250 as one store unit each) beside the
 * same transactions sent one by one (`createTransaction`), into the memory repositories and into
 * PostgreSQL (a throw-away server started here unless --url is given). On PostgreSQL a chunk's
 * reads are taken at once and its creations written set-based (src/engine/services/chunk-reads.ts).
 * Each subject starts on an empty store with the 20 instances. Reports transactions per second.
 *
 *   npm run build && node bench/import.mjs [--tx 10000] [--url postgres://…] [--stores memory,postgres] [--subjects one-by-one,batch] [--mode monitor|import]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadBuild, sequentialIds } from './persistence-engine.mjs';
import { startPostgresServer } from './persistence-server.mjs';
import { createInstanceConfigs, streamWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseOptions(argv) {
  const o = { tx: 10_000, url: null, stores: ['memory', 'postgres'], subjects: ['one-by-one', 'batch'], mode: 'monitor' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--tx') o.tx = Number(value);
    else if (arg === '--url') o.url = value;
    else if (arg === '--stores') o.stores = value.split(',');
    else if (arg === '--subjects') o.subjects = value.split(',');
    else if (arg === '--mode') o.mode = value;
    else throw new Error(`unknown option ${arg}`);
    i++;
  }
  if (!Number.isSafeInteger(o.tx) || o.tx < 1 || o.tx > 10_000) throw new Error('--tx must be 1 to 10000 (one batch)');
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
  const transactions = transactionsOf(o.tx);
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
  const run = async (store, subject, repositories) => {
    const engine = await engineOn(repositories);
    const data = structuredClone(transactions);
    const started = process.hrtime.bigint();
    if (subject === 'batch') {
      const response = await engine.createTransactionBatch({ data }, { mode: o.mode === 'import' ? 'IMPORT' : 'MONITOR' });
      if (response.successful !== data.length) throw new Error(`${store} batch: ${response.failed} records failed`);
    } else {
      for (const t of data) await engine.createTransaction(t);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const alerts = (await engine.listAlerts()).length;
    rows.push({ store, subject, transactions: data.length, seconds: seconds.toFixed(2), perSecond: Math.round(data.length / seconds), alerts });
    console.log(
      `${store.padEnd(9)} ${subject.padEnd(11)} ${String(data.length).padStart(6)} tx  ${seconds.toFixed(2).padStart(7)} s  ${String(Math.round(data.length / seconds)).padStart(7)} tx/s  ${alerts} alerts`,
    );
  };
  try {
    console.log(`import bench: ${transactions.length} transactions of the today workload, 20 instances, mode ${o.mode}; Node ${process.version}`);
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
