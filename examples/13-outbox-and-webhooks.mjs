// The host told of each decision: a suspended payment reaches a webhook receiver, signed, and an
// in-process subscription — each message once, in commit order, retried until it is handled.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createEngine } from 'txmon';
import { startWebhookDelivery, verifyWebhook } from 'txmon/http';

const engine = createEngine();
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } }, action: 'SUSPEND' });

// A receiver: checks the signature over the raw body, acts once per webhook-id, answers 2xx.
const secret = 'example-webhook-secret-0123456789';
const handled = new Map();
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    if (!verifyWebhook(secret, req.headers, body)) return res.writeHead(401).end();
    handled.set(req.headers['webhook-id'], JSON.parse(body));
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const delivery = startWebhookDelivery(engine, { url: `http://127.0.0.1:${receiver.address().port}/txmon`, secret, pollMs: 20 });

// In-process, a consumer of its own: holds the payments the monitor suspended.
const held = [];
const holds = engine.outbox.subscribe(
  'payment-holds',
  (message) => {
    if (message.type === 'TRANSACTION_DECISION' && message.data.status === 'SUSPEND') held.push(message.data.transactionId);
  },
  { pollMs: 20 },
);

const result = await engine.createTransaction({
  type: 'TRANSFER',
  transactionId: 'p-1',
  timestamp: Date.now(),
  originUserId: 'erin',
  originAmountDetails: { transactionAmount: 25000, transactionCurrency: 'EUR' },
});
assert.equal(result.status, 'SUSPEND');

const head = await engine.outbox.head(); // the instance, the decision, the case and alert it opened
for (let i = 0; i < 200 && (handled.size < head || held.length < 1); i++) await new Promise((resolve) => setTimeout(resolve, 20));
await Promise.all([delivery.stop(), holds.stop()]);
receiver.close();

console.log([...handled.values()].map((m) => m.type)); // [ 'RULE_INSTANCE_CHANGED', 'TRANSACTION_DECISION', 'CASE_OPENED', 'ALERT_OPENED' ]
assert.deepEqual(held, ['p-1']);
assert.equal(handled.get('msg_2').data.transactionId, 'p-1');
const hooks = await engine.outbox.getConsumer('webhook:default');
assert.equal(hooks.position, head);
