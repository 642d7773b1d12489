/**
 * A throw-away PostgreSQL server for `persistence.mjs`: `initdb` in a temporary directory, started
 * on a free loopback port from the machine's binaries (as `postgres` when run as root: the server
 * refuses root), stopped and removed by `stop()`. Durability stays at PostgreSQL's defaults
 * (fsync and synchronous_commit on): the benchmark measures what a production setting pays.
 *
 * The test run has its own helper (test/setup/postgres-server.ts, durability off); this one is the
 * benchmark's, so the two can differ in settings without touching each other.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where `initdb` and `pg_ctl` are: `TXMON_POSTGRES_BIN`, Debian's newest `/usr/lib/postgresql/<n>/bin`, or the PATH. */
export function postgresBinDir() {
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
  throw new Error('No PostgreSQL binaries: install PostgreSQL, set TXMON_POSTGRES_BIN, or pass --url postgres://…');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server in a fresh directory.
 * @param {{ settings?: Record<string, string | number> }} [options] extra `-c name=value` settings
 * @returns {Promise<{ url: string, dir: string, stop: () => void }>}
 */
export async function startPostgresServer(options = {}) {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'txmon-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (program, args) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  const settings = { listen_addresses: '127.0.0.1', max_connections: 100, ...options.settings };
  const flags = Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C']);
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} ${flags}`, 'start']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start PostgreSQL from ${bin}: ${error.message}\n${error.stderr?.toString() ?? ''}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
