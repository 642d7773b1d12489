// Mounting the HTTP API in an Express app under /txmon, next to the app's own routes.
import assert from 'node:assert/strict';
import express from 'express';
import { createEngine } from 'txmon';
import { createHttpHandler, toNodeListener } from 'txmon/http';

const apiKey = 'example-key-0123456789'; // at least 16 characters
const engine = createEngine();
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });

const app = express();
// Express strips the mount path from req.url, so the handler sees /transactions: no basePath.
// Keep body parsers (express.json()) off this path: the handler reads the raw body itself.
app.use('/txmon', toNodeListener(createHttpHandler({ engine, apiKeys: [apiKey] })));
app.get('/status', express.json(), (_req, res) => res.json({ app: 'up' })); // the app's own routes still work

const server = app.listen(0);
await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
const base = `http://127.0.0.1:${server.address().port}`;
try {
  const created = await fetch(`${base}/txmon/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({
      type: 'TRANSFER',
      transactionId: 'tx-1',
      timestamp: Date.now(),
      originUserId: 'alice',
      destinationUserId: 'bob',
      originAmountDetails: { transactionAmount: 12500, transactionCurrency: 'EUR', country: 'DE' },
    }),
  });
  const result = await created.json();
  console.log('POST /txmon/transactions', created.status, result.status); // 201 SUSPEND
  assert.equal(created.status, 201);
  assert.equal(result.status, 'SUSPEND');
  assert.deepEqual(
    result.hitRules.map((r) => r.ruleId),
    ['R-2'],
  );

  const denied = await fetch(`${base}/txmon/rules`, { headers: { 'x-api-key': 'not-the-right-key-at-all' } });
  const problem = await denied.json();
  console.log('GET /txmon/rules (bad key)', denied.status, problem.code); // 401 UNAUTHORIZED
  assert.equal(denied.status, 401);
  assert.equal(denied.headers.get('content-type'), 'application/problem+json');
  assert.equal(problem.code, 'UNAUTHORIZED');

  const own = await fetch(`${base}/status`);
  assert.deepEqual(await own.json(), { app: 'up' });
} finally {
  await new Promise((resolve) => server.close(resolve));
}
