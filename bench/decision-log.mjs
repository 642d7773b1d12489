/**
 * The decision log on PostgreSQL (a throw-away server unless --url): fills a log of N entries (the
 * `today` stream's transactions through `createTransactionBatch`, 20 instances, chunks of 10,000),
 * then times `verifyDecisionLog()` over it, several rounds; and, when the build has the case
 * workflow, the time of one case status change (IN_PROGRESS, then CLOSED with a reason: each one
 * atomic write with its alerts and its decision entry), over many cases.
 *
 *   npm run build && node bench/decision-log.mjs [--entries 100000] [--rounds 3] [--changes 200] [--url postgres://…]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadBuild, sequentialIds } from './persistence-engine.mjs';
import { startPostgresServer } from './persistence-server.mjs';
import { createInstanceConfigs, streamWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseOptions(argv) {
  const o = { entries: 100_000, rounds: 3, changes: 200, url: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [arg, value] = [argv[i], argv[i + 1]];
    if (arg === '--entries') o.entries = Number(value);
    else if (arg === '--rounds') o.rounds = Number(value);
    else if (arg === '--changes') o.changes = Number(value);
    else if (arg === '--url') o.url = value;
    else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function fill(engine, entries) {
  let batch = [];
  let sent = 0;
  const flush = async () => {
    const response = await engine.createTransactionBatch({ data: batch });
    if (response.failed !== 0) throw new Error(`${response.failed} records failed`);
    sent += batch.length;
    batch = [];
  };
  for (const op of streamWorkload({ seed: WORKLOAD_DEFAULTS.seed, operations: entries * 2 })) {
    if (op.kind !== 'transaction') continue;
    batch.push(op.payload);
    if (batch.length === 10_000) await flush();
    if (sent + batch.length === entries) break;
  }
  if (batch.length > 0) await flush();
}

async function statusChanges(engine, count) {
  const cases = (await engine.listCases({ pageSize: 100, filterCaseStatus: ['OPEN'] })).items ?? [];
  const timings = [];
  for (const c of cases.slice(0, Math.ceil(count / 2))) {
    for (const request of [{ status: 'IN_PROGRESS' }, { status: 'CLOSED', reason: ['FALSE_POSITIVE'], comment: 'bench' }]) {
      const started = process.hrtime.bigint();
      await engine.changeCaseStatus(c.caseId, request);
      timings.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return timings;
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const { txmon, postgres } = await loadBuild(path.join(here, '../dist'));
  const server = o.url === null ? await startPostgresServer() : null;
  const pool = new pg.Pool({ connectionString: o.url ?? server.url, max: 4 });
  try {
    await postgres.migrate(pool);
    const engine = txmon.createEngine({ repositories: postgres.createPostgresRepositories({ client: pool }), ids: sequentialIds() });
    for (const { request } of createInstanceConfigs()) await engine.createRuleInstance(request);
    const filled = process.hrtime.bigint();
    await fill(engine, o.entries);
    console.log(`decision log bench: ${o.entries} entries filled in ${(Number(process.hrtime.bigint() - filled) / 1e9).toFixed(1)} s; Node ${process.version}`);
    const seconds = [];
    for (let round = 0; round < o.rounds; round++) {
      const started = process.hrtime.bigint();
      const report = await engine.verifyDecisionLog();
      seconds.push(Number(process.hrtime.bigint() - started) / 1e9);
      if (!report.ok || report.count !== o.entries) throw new Error(`verification: ${JSON.stringify(report)}`);
    }
    console.log(`verifyDecisionLog over ${o.entries} entries: median ${median(seconds).toFixed(2)} s (${seconds.map((s) => s.toFixed(2)).join(', ')})`);
    if (typeof engine.changeCaseStatus === 'function' && o.changes > 0) {
      const timings = await statusChanges(engine, o.changes);
      console.log(
        `one case status change: median ${median(timings).toFixed(2)} ms, p95 ${[...timings].sort((a, b) => a - b)[Math.floor(timings.length * 0.95)].toFixed(2)} ms over ${timings.length}`,
      );
    }
  } finally {
    await pool.end();
    server?.stop();
  }
}

await main();
