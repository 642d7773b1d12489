// Mounting the HTTP API in a Hono app under /txmon — fetch handler to fetch handler, no server needed.
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { createEngine } from 'txmon';
import { createHttpHandler } from 'txmon/http';

const apiKey = 'example-key-0123456789'; // at least 16 characters
const engine = createEngine();
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
// Hono passes the untouched Request (full URL, unread body): basePath '/txmon'.
const handler = createHttpHandler({ engine, apiKeys: [apiKey], basePath: '/txmon' });

const app = new Hono();
app.all('/txmon/*', (c) => handler(c.req.raw));
app.get('/status', (c) => c.json({ app: 'up' }));
// On a server: `export default app` (Bun, Deno, workers) or @hono/node-server's serve(app).

const created = await app.request('/txmon/transactions', {
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

const denied = await app.request('/txmon/rules', { headers: { 'x-api-key': 'not-the-right-key-at-all' } });
const problem = await denied.json();
console.log('GET /txmon/rules (bad key)', denied.status, problem.code); // 401 UNAUTHORIZED
assert.equal(denied.status, 401);
assert.equal(problem.code, 'UNAUTHORIZED');

assert.deepEqual(await (await app.request('/status')).json(), { app: 'up' });
