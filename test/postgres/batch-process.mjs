// The batch process of test/postgres/batches.test.ts: the BUILT package over a pg Pool on the
// database named by argv[2] sends the batch in the JSON file argv[3] and reports its answer over
// IPC ({ type: 'done', response } or { type: 'fatal', message }). The test kills it mid-batch.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const report = (message) => new Promise((resolve) => process.send(message, resolve));

for (const entry of ['index.js', 'postgres.js']) {
  if (!existsSync(fileURLToPath(new URL(`../../dist/${entry}`, import.meta.url)))) {
    await report({ type: 'fatal', message: `dist/${entry} is missing: run \`npm run build\` first (npm test builds before running vitest)` });
    process.exit(2);
  }
}

const [{ createEngine }, { createPostgresRepositories }, { default: pg }] = await Promise.all([import('txmon'), import('txmon/postgres'), import('pg')]);
const pool = new pg.Pool({ connectionString: process.argv[2], max: 2 });
pool.on('error', () => undefined);
try {
  const engine = createEngine({ repositories: createPostgresRepositories({ client: pool }) });
  const response = await engine.createTransactionBatch(JSON.parse(readFileSync(process.argv[3], 'utf8')));
  await report({ type: 'done', response });
} catch (error) {
  await report({ type: 'fatal', message: String(error?.stack ?? error) });
} finally {
  await pool.end();
}
