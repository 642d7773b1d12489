/**
 * Webhook delivery on PostgreSQL (a throw-away server unless --url): fills the outbox with the
 * messages of the `today` stream's first N transactions (20 instances, alerts on; a monitored batch),
 * then delivers them with `startWebhookDelivery` — one process, one consumer, each message a signed
 * POST to a receiver in this process that checks the signature and answers 204 — and reports
 * messages per second, from the first POST to the last acknowledgement.
 *
 *   npm run build && node bench/webhooks.mjs [--tx 10000] [--url postgres://…]
 */
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadBuild, sequentialIds } from './persistence-engine.mjs';
import { startPostgresServer } from './persistence-server.mjs';
import { createInstanceConfigs, streamWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = 'bench-webhook-secret-0123456789';

function parseOptions(argv) {
  const o = { tx: 10_000, url: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [arg, value] = [argv[i], argv[i + 1]];
    if (arg === '--tx') o.tx = Number(value);
    else if (arg === '--url') o.url = value;
    else throw new Error(`unknown option ${arg}`);
  }
  if (!Number.isSafeInteger(o.tx) || o.tx < 1 || o.tx > 10_000) throw new Error('--tx must be 1 to 10000 (one batch)');
  return o;
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const dist = path.join(here, '../dist');
  const { txmon, postgres } = await loadBuild(dist);
  const http = await import(path.join(dist, 'http.js'));
  const server = o.url === null ? await startPostgresServer() : null;
  const pool = new pg.Pool({ connectionString: o.url ?? server.url, max: 4 });
  let receiver = null;
  try {
    await postgres.migrate(pool);
    const engine = txmon.createEngine({ repositories: postgres.createPostgresRepositories({ client: pool }), ids: sequentialIds() });
    for (const { request } of createInstanceConfigs()) await engine.createRuleInstance(request);
    const data = [];
    for (const op of streamWorkload({ seed: WORKLOAD_DEFAULTS.seed, operations: o.tx * 2 })) {
      if (op.kind === 'transaction') data.push(op.payload);
      if (data.length === o.tx) break;
    }
    await engine.createTransactionBatch({ data });
    const head = await engine.outbox.head();
    let received = 0;
    let bad = 0;
    let done = () => undefined;
    const finished = new Promise((resolve) => {
      done = resolve;
    });
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        if (!http.verifyWebhook(SECRET, req.headers, body)) bad += 1;
        received += 1;
        res.writeHead(204).end();
      });
    });
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    const started = process.hrtime.bigint();
    const delivery = http.startWebhookDelivery(engine, { url, secret: SECRET, pollMs: 5 });
    const timer = setInterval(async () => {
      if ((await engine.outbox.getConsumer('webhook:default').catch(() => null))?.position === head) done();
    }, 20);
    await finished;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(timer);
    await delivery.stop();
    if (bad > 0) throw new Error(`${bad} deliveries failed verification`);
    console.log(`webhooks bench: ${o.tx} transactions → ${head} outbox messages; Node ${process.version}`);
    console.log(
      `delivered ${received} messages in ${seconds.toFixed(2)} s: ${Math.round(head / seconds)} messages/s (one process, one consumer, signed, verified)`,
    );
    console.log(JSON.stringify({ messages: head, received, seconds: seconds.toFixed(2), perSecond: Math.round(head / seconds) }));
  } finally {
    receiver?.close();
    await pool.end();
    server?.stop();
  }
}

await main();
