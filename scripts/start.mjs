// `npm start`: serves the built `txmon` command, building the package first only when dist/ is
// missing or older than the sources, and says which of the two it is doing and where the data is
// kept. It builds all of dist/ (the command and the library entries: `npm run build`), so a clone
// that was started can also be installed by a host (`npm install ../txmon`). `npm install` builds it
// too (the `prepare` script). Arguments after `npm start --` go to `txmon serve` (e.g.
// `npm start -- --store memory --port 0`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli.js');
const args = process.argv.slice(2);

/** The newest modification time of a file under `path` (a file or a directory). */
function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why dist/ must be built again, or null when it is up to date. */
function staleness() {
  for (const entry of ['cli.js', 'index.js', 'index.cjs', 'index.d.ts', 'postgres.js', 'http.js', 'testing.js']) {
    if (!existsSync(join(root, 'dist', entry))) return `dist/${entry} is missing`;
  }
  const built = statSync(cli).mtimeMs;
  for (const input of ['src', 'package.json', 'tsup.config.ts']) {
    if (newestMtime(join(root, input)) > built) return `${input} changed since the last build`;
  }
  return null;
}

/** Where `txmon serve` keeps its data with these arguments: `--store`, TXMON_STORE, or ./txmon-data. */
function storeOf(argv) {
  let store = process.env.TXMON_STORE?.trim() || 'pglite:./txmon-data';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--store' && argv[i + 1] !== undefined) store = argv[i + 1];
    else if (argv[i].startsWith('--store=')) store = argv[i].slice('--store='.length);
  }
  if (store === 'memory') return 'in memory (thrown away on exit)';
  if (store.startsWith('pglite:')) {
    const dir = resolve(store.slice('pglite:'.length));
    const fresh = existsSync(dir) ? '' : '; a new database, created in a few seconds';
    return `in PGlite files in ${dir} (kept across restarts; --store or TXMON_STORE to change${fresh})`;
  }
  return 'on the PostgreSQL server of --store / TXMON_STORE';
}

const reason = staleness();
if (reason !== null) {
  process.stderr.write(`txmon: building the package… (${reason})\n`);
  const started = Date.now();
  const npm = process.env.npm_execpath;
  const [command, args] = npm?.endsWith('.js') ? [process.execPath, [npm, 'run', 'build', '--silent']] : ['npm', ['run', 'build', '--silent']];
  const build = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (build.status !== 0) {
    process.stderr.write(`${build.stderr ?? ''}txmon: the build failed (${build.error?.message ?? `exit code ${build.status ?? build.signal}`})\n`);
    process.exit(1);
  }
  process.stderr.write(`txmon: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
process.stderr.write(`txmon: starting… data ${storeOf(args)}\n`);
// `npm start` runs this script under a shell that npm signals on SIGTERM (a container runtime's
// stop): the shell ends, and this process would live on, orphaned. It checks once a second that
// its parent is still the one that started it, and stops gracefully (as on SIGTERM) when not.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  process.kill(process.pid, 'SIGTERM');
}, 1_000);
watch.unref();
// The command reads its arguments from process.argv, as if run as `txmon serve …`.
process.argv = [process.argv[0], cli, 'serve', ...args];
await import(pathToFileURL(cli).href);
