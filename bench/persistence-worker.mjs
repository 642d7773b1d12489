// One engine process of `persistence.mjs` (the runs with several processes): an engine over a pg
// Pool on the database the parent names, answering the operations the parent sends, several at
// once. argv: <dist dir> <process index>. Over IPC:
//   parent → { type: 'open', url, connections }   child → { type: 'opened' }
//   parent → { type: 'op', i, op }                child → { type: 'done', i, summary, ns }
//   parent → { type: 'stats' }                    child → { type: 'stats', sql, cpu }
//   parent → { type: 'close' }                    child → { type: 'closed' }, then exits
import pg from 'pg';
import { callOperation, createSqlMeter, loadBuild, meteredPool, sequentialIds } from './persistence-engine.mjs';

const [distDir, index] = process.argv.slice(2);
const { txmon, postgres } = await loadBuild(distDir);
const meter = createSqlMeter();
let pool = null;
let engine = null;
let cpu0 = process.cpuUsage();

const send = (message) => process.send(message);

async function close() {
  if (pool) await pool.end();
  pool = null;
  engine = null;
}

process.on('message', async (message) => {
  switch (message.type) {
    case 'open': {
      await close();
      pool = new pg.Pool({ connectionString: message.url, max: message.connections });
      pool.on('error', () => undefined);
      engine = txmon.createEngine({
        repositories: postgres.createPostgresRepositories({ client: meteredPool(pool, meter) }),
        ids: sequentialIds(`p${index}-`),
      });
      // Reads the instances once, as a serving process does before its first request.
      await engine.listRuleInstances();
      meter.take();
      cpu0 = process.cpuUsage();
      send({ type: 'opened' });
      break;
    }
    case 'op': {
      const { summary, ns } = await callOperation(engine, message.op);
      send({ type: 'done', i: message.i, summary, ns });
      break;
    }
    case 'stats': {
      const cpu = process.cpuUsage(cpu0);
      send({ type: 'stats', sql: meter.take(), cpuSeconds: (cpu.user + cpu.system) / 1e6 });
      cpu0 = process.cpuUsage();
      break;
    }
    case 'close':
      await close();
      send({ type: 'closed' });
      process.disconnect();
      break;
    default:
      break;
  }
});
send({ type: 'ready' });
