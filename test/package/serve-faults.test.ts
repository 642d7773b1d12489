/**
 * The built `txmon serve` under the faults an operator meets: database backends terminated, the
 * database restarted or killed, a table locked, a database that hangs at start, probes while it
 * starts, two processes on one PGlite directory, restarts with a generated key, many clients from
 * one address, many tenants on one PostgreSQL. In each: the process survives; a client sees only
 * answers (2xx, or 503 with `Retry-After` and a code naming the cause), never a reset or a 500;
 * nothing acknowledged is lost; serving resumes by itself. Needs `npm run build` first (`npm test`
 * builds); PostgreSQL faults run on a server of their own (test/setup/postgres-server.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { T0, tx } from '../helpers.js';
import { POSTGRES_URL } from '../postgres/fixtures.js';
import { startPostgresServer, type PostgresServer } from '../setup/postgres-server.js';
import { freePort, runLoad, sleep, spawnCli, startServe, stopAll, type LoadOutcome } from './serve-process.js';

const KEY = 'serve-faults-key-0123456789';

afterEach(stopAll);

/** A file holding {@link KEY}, so the key never shows in the process list. */
function keyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'txmon-faults-')), 'keys');
  writeFileSync(file, `${KEY}\n`);
  return file;
}

/** A fresh database on `serverUrl`; its URL. */
async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `sql` on `url` with a connection of its own. */
async function onDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Which of `ids` are stored. */
async function storedOf(url: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await onDatabase(url, (c) =>
    c.query<{ transaction_id: string }>('SELECT transaction_id FROM txmon_transactions WHERE transaction_id = ANY($1)', [ids]),
  );
  return new Set(rows.rows.map((r) => r.transaction_id));
}

/** Waits until `outcome` has `n` acknowledgements after its mark. */
async function acknowledgedAfterMark(outcome: LoadOutcome, n: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((outcome.afterMark.get(201) ?? 0) < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} acknowledgements after the fault: ${JSON.stringify([...outcome.afterMark])}`);
    await sleep(20);
  }
}

/** What every fault must leave: answers only — 2xx, or 503 naming the store with Retry-After — and no lost client. */
function expectOnlyAnswers(outcome: LoadOutcome): void {
  expect(outcome.socketErrors, 'connection resets or refusals').toEqual([]);
  expect(outcome.timeouts, 'client timeouts').toBe(0);
  expect([...outcome.statuses.keys()].filter((s) => s !== 201 && s !== 503)).toEqual([]);
  for (const error of outcome.serverErrors) {
    expect(error).toMatchObject({ status: 503, retryAfter: true });
    expect(['STORE_UNAVAILABLE', 'STORE_TIMEOUT']).toContain(error.code);
  }
}

describe('txmon serve on PostgreSQL, faults of the database under load', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    // Commits acknowledged once written: killing the server must not lose what txmon acknowledged.
    server = await startPostgresServer({ durable: true });
  }, 120_000);
  afterAll(() => server?.stop());

  const faults = [
    {
      name: 'backends terminated three times',
      async inject(url: string) {
        for (let round = 0; round < 3; round++) {
          await onDatabase(url, (c) =>
            c.query(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
            ),
          );
          await sleep(300);
        }
      },
    },
    { name: 'a fast restart (pg_ctl restart -m fast)', inject: async () => server.restart() },
    {
      name: 'the postmaster killed with SIGKILL, then started again',
      async inject() {
        server.kill();
        await sleep(300);
        await server.start();
      },
    },
  ];

  it.each(faults)(
    '$name: the server survives, answers 503 with Retry-After meanwhile, loses nothing acknowledged and serves again',
    async ({ name, inject }) => {
      const url = await freshDatabase(server.url, `txmon_fault_${faults.findIndex((f) => f.name === name)}`);
      const serve = await startServe(['--store', url, '--api-key-file', keyFile()]);
      const load = runLoad({ url: serve.url(), key: KEY, clients: 8, timeoutMs: 10_000, prefix: 'f' });
      await sleep(500);
      await inject(url);
      load.outcome.mark();
      await acknowledgedAfterMark(load.outcome, 20);
      const outcome = await load.stop();
      expect(serve.child.exitCode, serve.output()).toBeNull();
      expectOnlyAnswers(outcome);
      expect(outcome.serverErrors.length, 'the fault was felt').toBeGreaterThan(0);
      // The cause is logged at error level, with no payload value.
      expect(serve.output()).toMatch(/"level":50,[^\n]*"code":"STORE_(UNAVAILABLE|TIMEOUT)"/);
      expect(serve.output()).not.toContain(outcome.acknowledged[0] as string);
      const stored = await storedOf(url, outcome.acknowledged);
      expect(outcome.acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(await serve.stop()).toBe(0);
    },
    120_000,
  );

  it('a table locked past the lock timeout: 503 STORE_TIMEOUT instead of a hang; a request whose client gave up is not run', async () => {
    const url = await freshDatabase(server.url, 'txmon_fault_lock');
    const serve = await startServe(['--store', url, '--api-key-file', keyFile(), '--store-lock-timeout-ms', '300']);
    const load = runLoad({ url: serve.url(), key: KEY, clients: 8, timeoutMs: 10_000, prefix: 'l' });
    await sleep(300);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const abandoned = Array.from({ length: 4 }, (_, i) => `abandoned-${i}`);
    try {
      await admin.query('BEGIN');
      await admin.query('LOCK TABLE txmon_transactions IN ACCESS EXCLUSIVE MODE');
      // Clients that give up after 100 ms, one user each, behind the load's own users.
      const gaveUp = abandoned.map((id) =>
        fetch(`${serve.url()}/transactions`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify(tx({ transactionId: id, originUserId: 'u-1', timestamp: T0 })),
          signal: AbortSignal.timeout(100),
        }).catch(() => 'gave up'),
      );
      expect(await Promise.all(gaveUp)).toEqual(abandoned.map(() => 'gave up'));
      await sleep(1_500);
    } finally {
      await admin.query('ROLLBACK');
      await admin.end();
    }
    load.outcome.mark();
    await acknowledgedAfterMark(load.outcome, 20);
    const outcome = await load.stop();
    expectOnlyAnswers(outcome);
    expect(outcome.serverErrors.some((e) => e.code === 'STORE_TIMEOUT')).toBe(true);
    await sleep(500);
    expect([...(await storedOf(url, abandoned))]).toEqual([]);
    expect(await serve.stop()).toBe(0);
  }, 120_000);
});

describe('txmon serve while it starts', () => {
  const hanging: { server: NetServer; sockets: Socket[] }[] = [];
  afterAll(() => {
    for (const { server, sockets } of hanging) {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });

  /** A "database" that accepts connections and never answers. */
  async function hangingDatabase(): Promise<number> {
    const sockets: Socket[] = [];
    const server = createServer((socket) => void sockets.push(socket));
    hanging.push({ server, sockets });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  it('with a database that hangs: answers from the moment it listens (liveness 200, readiness 503, the API 503 NOT_READY), then gives up with one line and exit code 1', async () => {
    const port = await hangingDatabase();
    const serve = spawnCli([
      'serve',
      '--port',
      '0',
      '--store',
      `postgres://postgres@127.0.0.1:${port}/txmon`,
      '--api-key-file',
      keyFile(),
      '--store-wait-ms',
      '2500',
      '--store-connect-timeout-ms',
      '300',
    ]);
    const listening = await serve.waitFor(/"address":"127\.0\.0\.1:(\d+)"/);
    const base = `http://127.0.0.1:${listening[1]}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const readiness = await fetch(`${base}/readyz`);
    expect(readiness.status).toBe(503);
    expect(readiness.headers.get('retry-after')).toBe('1');
    expect(await readiness.json()).toMatchObject({ status: 'starting', checks: [{ check: 'store', status: 'starting' }] });
    const api = await fetch(`${base}/rules`, { headers: { 'x-api-key': KEY } });
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('1');
    expect(await api.json()).toMatchObject({ code: 'NOT_READY' });
    expect(await serve.exited).toBe(1);
    const errorLines = serve
      .output()
      .split('\n')
      .filter((line) => line.startsWith('txmon:'));
    expect(errorLines).toEqual([expect.stringMatching(/^txmon: cannot start: the database .* did not answer within \d+ s/)]);
    expect(serve.output()).not.toContain('Usage:');
  }, 60_000);

  it('on PGlite, probed every 20 ms from the moment it is spawned: refused until it listens, then answers; it never crashes', async () => {
    for (let round = 0; round < 2; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'txmon-probes-'));
      const port = await freePort();
      const serve = spawnCli(['serve', '--port', String(port), '--store', `pglite:${dir}`, '--api-key-file', keyFile()]);
      const seen = new Set<string>();
      let served = false;
      while (!served) {
        for (const path of ['/healthz', '/rules']) {
          try {
            const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': KEY }, signal: AbortSignal.timeout(5_000) });
            seen.add(String(response.status));
            if (path === '/rules' && response.status === 200) served = true;
          } catch (error) {
            seen.add(((error as Error).cause as { code?: string } | undefined)?.code ?? (error as Error).name);
          }
        }
        expect(serve.child.exitCode, serve.output()).toBeNull();
        await sleep(20);
      }
      expect([...seen].filter((s) => !['ECONNREFUSED', '200', '503'].includes(s))).toEqual([]);
      expect(await serve.stop()).toBe(0);
    }
  }, 120_000);
});

describe('txmon serve on a PGlite directory', () => {
  it('has one owner: a second server and prune are refused naming the directory and the owner; after the owner is killed with SIGKILL the next start has every acknowledged write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-owner-'));
    const keys = keyFile();
    const first = await startServe(['--store', `pglite:${dir}`, '--api-key-file', keys]);
    const load = runLoad({ url: first.url(), key: KEY, clients: 4, timeoutMs: 10_000, prefix: 'o' });
    await sleep(300);
    const second = spawnCli(['serve', '--port', '0', '--store', `pglite:${dir}`, '--api-key-file', keys]);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`${dir} is in use by another txmon process (pid ${first.child.pid})`);
    const prune = spawnCli(['prune', '--store', `pglite:${dir}`]);
    expect(await prune.exited).toBe(1);
    expect(prune.output()).toContain(`pid ${first.child.pid}`);
    await sleep(300);
    first.child.kill('SIGKILL');
    const outcome = await load.stop();
    expect(outcome.acknowledged.length).toBeGreaterThan(0);
    await first.exited;
    const next = await startServe(['--store', `pglite:${dir}`, '--api-key-file', keys]);
    const missing: string[] = [];
    for (const id of outcome.acknowledged) {
      const response = await fetch(`${next.url()}/transactions/${id}`, { headers: { 'x-api-key': KEY } });
      if (response.status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
    expect(await next.stop()).toBe(0);
  }, 120_000);

  it('keeps a generated key: printed on the first start only, it works after a restart, and the printed example works every time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-key-'));
    const first = await startServe(['--store', `pglite:${dir}`]);
    await first.waitFor(/Generated API key/);
    const key = /Generated API key \([^)]*\): (\S+)/.exec(first.output())?.[1] as string;
    const example = /-d ('.*')\n/.exec(first.output())?.[1] as string;
    expect(await first.stop()).toBe(0);
    const second = await startServe(['--store', `pglite:${dir}`]);
    await sleep(200);
    expect(second.output()).not.toContain('Generated API key');
    // The body the shell makes of the printed example, twice: a new transaction each time.
    for (let run = 0; run < 2; run++) {
      const body = execFileSync('sh', ['-c', `printf '%s' ${example}`], { encoding: 'utf8' });
      const response = await fetch(`${second.url()}/transactions`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
      expect(response.status, await response.clone().text()).toBe(201);
      await sleep(5);
    }
    expect(await second.stop()).toBe(0);
  }, 120_000);
});

describe('txmon serve: connections', () => {
  it('serves 100 keep-alive clients from one address (past the old cap of 64 sockets per address) with no reset', async () => {
    const serve = await startServe(['--store', 'memory', '--api-key-file', keyFile()]);
    const { port } = new URL(serve.url());
    const agent = new Agent({ keepAlive: true, maxSockets: 100 });
    const statuses = new Map<string, number>();
    const deadline = Date.now() + 2_000;
    let n = 0;
    const client = async () => {
      while (Date.now() < deadline) {
        const status = await new Promise<string>((resolve) => {
          const body = JSON.stringify(tx({ transactionId: `k-${n++}`, originUserId: `u-${n % 50}`, timestamp: T0 }));
          const req = httpRequest(
            { host: '127.0.0.1', port, path: '/transactions', method: 'POST', agent, headers: { 'x-api-key': KEY, 'content-type': 'application/json' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(String(res.statusCode)));
            },
          );
          req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
          req.end(body);
        });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 100 }, client));
    agent.destroy();
    expect([...statuses.keys()]).toEqual(['201']);
    expect(await serve.stop()).toBe(0);
  }, 60_000);

  it('answers connections past --max-connections-per-address with 503 and Connection: close, never a bare reset', async () => {
    const serve = await startServe(['--store', 'memory', '--api-key-file', keyFile(), '--max-connections-per-address', '4']);
    const { port } = new URL(serve.url());
    const agent = new Agent({ keepAlive: true, maxSockets: 10 });
    const answers = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<string>((resolve) => {
            const req = httpRequest({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
              res.resume();
              setTimeout(() => resolve(`${res.statusCode} ${res.headers.connection ?? ''}`), 300);
            });
            req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
            req.end();
          }),
      ),
    );
    agent.destroy();
    expect(answers.filter((a) => a === '200 keep-alive')).toHaveLength(4);
    expect(answers.filter((a) => a === '503 close')).toHaveLength(4);
    expect(await serve.stop()).toBe(0);
  }, 60_000);

  it('holds at most --pg-pool-size PostgreSQL connections for 20 tenants under load, and keeps the tenants apart', async () => {
    const url = await freshDatabase(POSTGRES_URL, `txmon_tenants_${process.pid}`);
    const tenants = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, apiKeys: [`tenant-${i}-key-0123456789`] }));
    const file = join(mkdtempSync(join(tmpdir(), 'txmon-tenants-')), 'tenants.json');
    writeFileSync(file, JSON.stringify({ tenants }));
    const serve = await startServe(['--store', url, '--tenants', file, '--pg-pool-size', '6']);
    const loads = tenants.map((t, i) => runLoad({ url: serve.url(), key: t.apiKeys[0] as string, clients: 2, timeoutMs: 10_000, prefix: `t${i}` }));
    const database = new URL(url).pathname.slice(1);
    let most = 0;
    for (let i = 0; i < 20; i++) {
      await sleep(100);
      const count = await onDatabase(POSTGRES_URL, (c) =>
        c.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [database]),
      );
      most = Math.max(most, Number(count.rows[0]?.n));
    }
    const outcomes = await Promise.all(loads.map((l) => l.stop()));
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(6);
    for (const outcome of outcomes) {
      expectOnlyAnswers(outcome);
      expect(outcome.acknowledged.length).toBeGreaterThan(0);
    }
    const ofTenant0 = outcomes[0]?.acknowledged[0] as string;
    const other = await fetch(`${serve.url()}/transactions/${ofTenant0}`, { headers: { 'x-api-key': tenants[1]?.apiKeys[0] as string } });
    expect(other.status).toBe(404);
    const own = await fetch(`${serve.url()}/transactions/${ofTenant0}`, { headers: { 'x-api-key': tenants[0]?.apiKeys[0] as string } });
    expect(own.status).toBe(200);
    expect(await serve.stop()).toBe(0);
  }, 120_000);
});

describe('npm start', () => {
  it('stops the server when npm is sent SIGTERM (as a container runtime does)', async () => {
    const root = join(import.meta.dirname, '../..');
    const npm = process.env.npm_execpath;
    const [command, args] = npm?.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
    const child = spawn(command, [...args, 'start', '--', '--store', 'memory', '--port', '0', '--api-key-file', keyFile()], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TXMON_STORE: '', TXMON_API_KEYS: '' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    try {
      const deadline = Date.now() + 60_000;
      while (!/"url":"([^"]+)"/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not serve: ${out}`);
        await sleep(50);
      }
      const url = /"url":"([^"]+)"/.exec(out)?.[1] as string;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      child.kill('SIGTERM');
      let stopped = false;
      for (let i = 0; i < 100 && !stopped; i++) {
        await sleep(100);
        stopped = await fetch(`${url}/healthz`).then(
          () => false,
          () => true,
        );
      }
      expect(stopped, out).toBe(true);
    } finally {
      child.kill('SIGKILL');
      // The server itself, if npm left it behind, is found by its arguments and stopped.
      try {
        execFileSync('pkill', ['-KILL', '-f', `start.mjs --store memory --port 0 --api-key-file`]);
      } catch {
        // None left: the test's point.
      }
    }
  }, 120_000);
});
