// Mounting the HTTP API in a Fastify app under /txmon, next to the app's own JSON routes.
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { createEngine } from 'txmon';
import { createHttpHandler, toNodeListener } from 'txmon/http';

const apiKey = 'example-key-0123456789'; // at least 16 characters
const engine = createEngine();
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
const listener = toNodeListener(createHttpHandler({ engine, apiKeys: [apiKey], basePath: '/txmon' }));

const app = Fastify();
// An encapsulated plugin: inside it, every content type is accepted and the body stream is left
// unread, so the txmon handler reads (and size-limits) it. Fastify does not touch req.url: basePath '/txmon'.
await app.register(async (scope) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
  scope.all('/txmon/*', (req, reply) => {
    reply.hijack(); // Fastify will not send a reply of its own
    listener(req.raw, reply.raw);
  });
});
app.post('/echo', async (req) => req.body); // outside the plugin, Fastify's JSON parsing is unchanged

await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
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

  const fetched = await fetch(`${base}/txmon/transactions/tx-1`, { headers: { 'x-api-key': apiKey } });
  assert.equal(fetched.status, 200);
  assert.equal((await fetched.json()).transactionId, 'tx-1');

  const denied = await fetch(`${base}/txmon/rules`, { headers: { 'x-api-key': 'not-the-right-key-at-all' } });
  const problem = await denied.json();
  console.log('GET /txmon/rules (bad key)', denied.status, problem.code); // 401 UNAUTHORIZED
  assert.equal(denied.status, 401);
  assert.equal(problem.code, 'UNAUTHORIZED');

  const echo = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  assert.deepEqual(await echo.json(), { a: 1 });
} finally {
  await app.close();
}
