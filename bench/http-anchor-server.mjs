// Anchor for bench/http.bench.mjs (`--anchor`): the least an HTTP server on node:http does for the
// same requests. It reads the body, JSON.parse-s it, and answers a fixed JSON response shaped like
// a txmon transaction response (20 executed rules, no hit: 5.3 KB; txmon's average 5.7 KB),
// writing one pino-like log line per request to stdout as txmon does. No authentication, no
// validation, no engine.
//
//   node bench/http-anchor-server.mjs      # prints {"msg":"txmon serving","url":…} like `txmon serve`
import { createServer } from 'node:http';

const rule = (i) => ({
  ruleInstanceId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  ruleId: 'R-2',
  ruleName: 'Transaction amount too high',
  ruleDescription: 'Transaction amount is at or above a threshold.',
  ruleAction: 'FLAG',
  ruleHit: false,
  nature: 'AML',
  labels: [],
  isShadow: false,
});
const reply = Buffer.from(
  JSON.stringify({ transactionId: 'T-0000001', executedRules: Array.from({ length: 20 }, (_, i) => rule(i)), hitRules: [], status: 'ALLOW' }),
);

const server = createServer((req, res) => {
  const started = process.hrtime.bigint();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const status = req.url === '/rule-instances' ? 200 : 201;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': reply.length });
    res.end(reply);
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    process.stdout.write(
      `${JSON.stringify({ level: 30, time: new Date().toISOString(), method: req.method, route: req.url, status, tenant: 'default', durationMs: Math.round(durationMs), msg: 'request' })}\n`,
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ level: 30, url: `http://127.0.0.1:${server.address().port}`, msg: 'txmon serving' })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
