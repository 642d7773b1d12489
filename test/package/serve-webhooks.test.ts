/**
 * The built `txmon serve --webhook-url …` on PGlite files: the outbox is delivered to a real
 * receiver, signed, and a process killed with SIGKILL mid-delivery loses nothing — after a restart
 * every message arrives, in order of first arrival, a message delivered twice carrying the same id
 * (only those delivered after the position was last saved).
 * Needs `npm run build` first (`npm test` builds).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/http/index.js';
import { ACK_EVERY } from '../../src/engine/services/outbox.js';
import { T0, tx } from '../helpers.js';
import { sleep, startServe, stopAll } from './serve-process.js';

const KEY = 'serve-webhooks-key-0123456789';
const SECRET = 'serve-webhooks-secret-0123456789';

let receiver: Server | null = null;
afterEach(async () => {
  stopAll();
  await new Promise((resolve) => (receiver === null ? resolve(undefined) : receiver.close(resolve)));
  receiver = null;
});

async function call(url: string, method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${url}${path}`, { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

describe('txmon serve delivering webhooks', () => {
  it('delivers every message signed, in order, across a SIGKILL and a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-webhooks-'));
    const secretFile = join(dir, 'secret.txt');
    writeFileSync(secretFile, `${SECRET}\n`);
    const seen: { id: string; type: string; verified: boolean }[] = [];
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
      });
      // Slow enough that the kill lands while messages are still waiting.
      req.on('end', () =>
        setTimeout(() => {
          seen.push({
            id: String(req.headers['webhook-id']),
            type: (JSON.parse(raw) as { type: string }).type,
            verified: verifyWebhook(SECRET, req.headers, raw),
          });
          res.writeHead(204).end();
        }, 20),
      );
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const args = [
      '--store',
      `pglite:${join(dir, 'data')}`,
      '--api-key',
      KEY,
      '--webhook-url',
      hook,
      '--webhook-secret-file',
      secretFile,
      '--webhook-lease-ms',
      '1000',
    ];

    const first = await startServe(args);
    expect(
      await call(first.url(), 'POST', '/rule-instances', { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 500 } }, action: 'SUSPEND' }),
    ).toBe(200);
    for (let i = 1; i <= 30; i++) {
      const payment = tx({ transactionId: `t-${i}`, timestamp: T0 + i, originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' } });
      expect(await call(first.url(), 'POST', '/transactions', payment)).toBe(201);
    }
    for (let i = 0; i < 1_000 && seen.length < 5; i++) await sleep(10);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = seen.length;
    expect(atKill).toBeLessThan(20);

    const second = await startServe(args);
    const { head } = (await (await fetch(`${second.url()}/outbox?limit=1`, { headers: { 'x-api-key': KEY } })).json()) as { head: number };
    for (let i = 0; i < 3_000 && new Set(seen.map((s) => s.id)).size < head; i++) await sleep(10);
    await second.stop();

    const ids = seen.map((s) => s.id);
    const firstArrivals = ids.filter((id, i) => ids.indexOf(id) === i);
    expect(firstArrivals).toEqual(Array.from({ length: head }, (_, i) => `msg_${i + 1}`));
    expect(new Set(seen.filter((s) => s.type === 'TRANSACTION_DECISION').map((s) => s.id)).size).toBe(30);
    expect(seen.every((s) => s.verified)).toBe(true);
    expect(seen[0]?.type).toBe('RULE_INSTANCE_CHANGED');
    // Only what was delivered since the position was last saved may come twice (ACK_EVERY at most).
    expect(ids.length - firstArrivals.length).toBeLessThanOrEqual(ACK_EVERY);
  }, 120_000);
});
