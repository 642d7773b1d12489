/**
 * The PostgreSQL server the tests run against, brought by the test run itself (a vitest global
 * setup): `TXMON_TEST_POSTGRES_URL` when it names one, otherwise a throw-away server started from
 * the machine's PostgreSQL binaries in a temporary directory on a free loopback port, and stopped
 * (and its directory removed) when the run ends. No PostgreSQL is an error, never a skipped suite.
 * Tests read the URL with `inject('postgresUrl')` (see `test/postgres/fixtures.ts`).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** Where `initdb` and `pg_ctl` are: `TXMON_POSTGRES_BIN`, Debian's newest `/usr/lib/postgresql/<n>/bin`, or the PATH. */
function postgresBinDir(): string {
  const configured = process.env.TXMON_POSTGRES_BIN;
  if (configured) return configured;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error(
    'The tests need PostgreSQL: install it (Debian: apt-get install -y postgresql; .ci/run does this), ' +
      'or point TXMON_POSTGRES_BIN at its bin directory, or TXMON_TEST_POSTGRES_URL at a running server.',
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a server in a fresh directory; PostgreSQL refuses to run as root, so root runs it as `postgres`. */
async function startServer(): Promise<{ url: string; stop: () => void }> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'txmon-test-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (program: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C']);
    // Durability settings off: a test server's crash safety is not under test (txmon's own crash test kills txmon, not PostgreSQL).
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`Could not start the test PostgreSQL server from ${bin}: ${(error as Error).message}\n${stderr}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.TXMON_TEST_POSTGRES_URL;
  const server = given ? { url: given, stop: () => undefined } : await startServer();
  project.provide('postgresUrl', server.url);
  return server.stop;
}
