// One engine process of test/postgres/processes.test.ts: the BUILT package (`txmon`, `txmon/postgres`
// from dist/, resolved through the package's own `exports`) over a pg Pool on the database named by
// argv[2]. Speaks with the test over IPC:
//   child  → { type: 'ready', migration }   after migrate(pool) (every process migrates at once)
//   parent → { type: 'work', ops }           child → { type: 'armed' }
//   parent → { type: 'go' }                  the barrier: every process starts firing at once
//   child  → { type: 'done', results }       then the child closes its pool and exits
// An op is { create, then? }: the create, and (once its answer is in) the event `then`. Every answer
// or error is reported, never thrown.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const report = (message) => new Promise((resolve) => process.send(message, resolve));

for (const entry of ['index.js', 'postgres.js']) {
  if (!existsSync(fileURLToPath(new URL(`../../dist/${entry}`, import.meta.url)))) {
    await report({ type: 'fatal', message: `dist/${entry} is missing: run \`npm run build\` first (npm test builds before running vitest)` });
    process.exit(2);
  }
}

const [{ createEngine, isTxmonError }, { createPostgresRepositories, migrate }, { default: pg }] = await Promise.all([
  import('txmon'),
  import('txmon/postgres'),
  import('pg'),
]);

const url = process.argv[2];
const concurrency = Number(process.argv[3] ?? 8);
const pool = new pg.Pool({ connectionString: url, max: concurrency });
// An idle connection closed by the server (the database dropped at the end) is not an error here.
pool.on('error', () => undefined);

const errorOf = (error) =>
  isTxmonError(error) ? { code: error.code, message: error.message } : { code: 'UNEXPECTED', message: String(error?.stack ?? error) };

async function run(ops) {
  const engine = createEngine({ repositories: createPostgresRepositories({ client: pool }) });
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < ops.length) {
      const op = ops[next++];
      try {
        results.push({ kind: 'create', id: op.create.transactionId, response: await engine.createTransaction(op.create) });
      } catch (error) {
        results.push({ kind: 'create', id: op.create.transactionId, error: errorOf(error) });
        continue;
      }
      if (!op.then) continue;
      try {
        results.push({ kind: 'event', id: op.then.eventId, response: await engine.createTransactionEvent(op.then) });
      } catch (error) {
        results.push({ kind: 'event', id: op.then.eventId, error: errorOf(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

let ops = null;
process.on('message', async (message) => {
  if (message.type === 'work') {
    ops = message.ops;
    await report({ type: 'armed' });
  } else if (message.type === 'go') {
    const results = await run(ops);
    await report({ type: 'done', results });
    await pool.end();
    process.disconnect();
  }
});

try {
  const migration = await migrate(pool);
  await report({ type: 'ready', migration });
} catch (error) {
  await report({ type: 'fatal', message: `migrate failed: ${String(error?.stack ?? error)}` });
  process.exit(1);
}
