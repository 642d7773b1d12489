/**
 * The built `txmon serve` on a durable store (PGlite files, and the run's PostgreSQL server): data survives a restart, and a process killed with
 * SIGKILL under load loses no acknowledged write — every acknowledged transaction reads back, every
 * request sent again is an idempotent replay, and the velocity counts are exact afterwards.
 * Needs `npm run build` first (`npm test` builds).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DAY, T0, tx } from '../helpers.js';
import { POSTGRES_URL } from '../postgres/fixtures.js';

const KEY = 'serve-store-key-0123456789';
const CLI = join(import.meta.dirname, '../../dist/cli.js');

interface Server {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

async function startServer(store: string): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--store', store, '--api-key', KEY], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!/"url":"[^"]+"/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the server did not start: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { url: /"url":"([^"]+)"/.exec(out)?.[1] as string, child, exited, output: () => out };
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A velocity rule that hits on every transaction after a user's first and states the user's count. */
const COUNTING_RULE = {
  ruleId: 'R-30',
  parameters: { transactionsLimit: 0, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' },
};

/** The sender's count in the window that the counting rule states for a transaction's response. */
function statedCount(body: Record<string, unknown>): number {
  const hits = body.hitRules as { ruleId: string; ruleHitMeta?: { hitDirections?: string[] }; ruleDescription?: string }[];
  const hit = hits.find((h) => h.ruleId === 'R-30');
  const match = /made (\d+) transactions/.exec(hit?.ruleDescription ?? '');
  return match ? Number(match[1]) : 1;
}

const USERS = ['u-0', 'u-1', 'u-2', 'u-3'];
const payment = (id: string, n: number) =>
  tx({ transactionId: id, originUserId: USERS[n % USERS.length], destinationUserId: 'merchant', timestamp: T0 + n * 1000 });

interface StoreUnderTest {
  readonly name: string;
  store(): Promise<string>;
}

const databases: string[] = [];
const stores: StoreUnderTest[] = [
  { name: 'PGlite files', store: async () => `pglite:${mkdtempSync(join(tmpdir(), 'txmon-store-'))}` },
  {
    name: 'PostgreSQL',
    async store() {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      const name = `txmon_serve_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      databases.push(name);
      const url = new URL(POSTGRES_URL);
      url.pathname = `/${name}`;
      return url.toString();
    },
  },
];

afterAll(async () => {
  if (databases.length === 0) return;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
});

describe.each(stores)('txmon serve on $name', ({ store }) => {
  it('keeps rule instances, transactions and windows across a restart; a replay answers the stored result', async () => {
    const where = await store();
    const first = await startServer(where);
    expect((await call(first.url, 'POST', '/rule-instances', COUNTING_RULE)).status).toBe(200);
    const created = await call(first.url, 'POST', '/transactions', payment('t-1', 0));
    expect(created.status).toBe(201);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await startServer(where);
    expect((await call(second.url, 'GET', '/rule-instances')).body).toHaveLength(1);
    expect((await call(second.url, 'GET', '/transactions/t-1')).status).toBe(200);
    const replay = await call(second.url, 'POST', '/transactions', payment('t-1', 0));
    expect(replay.body).toEqual(created.body);
    const next = await call(second.url, 'POST', '/transactions', payment('t-2', USERS.length));
    expect(statedCount(next.body)).toBe(2);
  }, 120_000);

  it('killed with SIGKILL under load: every acknowledged write reads back, every resent request is a replay, counts are exact', async () => {
    const where = await store();
    const first = await startServer(where);
    expect((await call(first.url, 'POST', '/rule-instances', COUNTING_RULE)).status).toBe(200);
    const acknowledged = new Map<string, Record<string, unknown>>();
    const sent: string[] = [];
    const refused: string[] = [];
    let n = 0;
    let killed = false;
    const client = async () => {
      while (!killed) {
        const id = `t-${n}`;
        const transaction = payment(id, n++);
        sent.push(id);
        let answer: Awaited<ReturnType<typeof call>>;
        try {
          answer = await call(first.url, 'POST', '/transactions', transaction);
        } catch {
          return; // the connection died with the process
        }
        if (answer.status === 201) acknowledged.set(id, answer.body);
        else refused.push(`${id}: ${answer.status}`);
      }
    };
    const clients = Array.from({ length: 8 }, client);
    while (acknowledged.size < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    first.child.kill('SIGKILL');
    await Promise.all(clients);
    await first.exited;
    expect(refused).toEqual([]);

    const second = await startServer(where);
    for (const [id, body] of acknowledged) {
      const stored = await call(second.url, 'GET', `/transactions/${id}`);
      expect(stored.status, id).toBe(200);
      expect((await call(second.url, 'POST', '/transactions', payment(id, Number(id.slice(2))))).body, id).toEqual(body);
    }
    // Requests in flight at the kill either landed whole or not at all: sent again, each is stored once.
    for (const id of sent.filter((i) => !acknowledged.has(i))) {
      expect([200, 201], id).toContain((await call(second.url, 'POST', '/transactions', payment(id, Number(id.slice(2))))).status);
    }
    const perUser = new Map<string, number>();
    for (const id of sent) {
      const user = USERS[Number(id.slice(2)) % USERS.length] as string;
      perUser.set(user, (perUser.get(user) ?? 0) + 1);
    }
    for (const [index, user] of USERS.entries()) {
      const probe = await call(
        second.url,
        'POST',
        '/transactions',
        tx({ transactionId: `probe-${user}`, originUserId: user, destinationUserId: 'merchant', timestamp: T0 + DAY + index }),
      );
      expect(statedCount(probe.body), user).toBe((perUser.get(user) ?? 0) + 1);
    }
  }, 180_000);
});
