/**
 * The Dockerfile, without Docker (there is none here): its instructions are read, checked (stages,
 * user, volume, healthcheck, entrypoint) and replayed in a temporary directory standing for each
 * stage's filesystem — files copied as COPY copies them (none the .dockerignore leaves out), RUN
 * steps run by `sh` with the stage's ENV — and the server is started as ENTRYPOINT + CMD would start
 * it and probed with the HEALTHCHECK's own command.
 *
 * What is not replayed as written, and why: the build stage's `npm ci` (every dev dependency, most
 * of a minute from the cache) is this checkout's node_modules, installed from the same lockfile, and
 * its `npm run build` is this checkout's dist/ (test/package runs after `npm run build`); `chown`
 * (no `node` user on this machine) is recorded by a stand-in and checked; absolute paths of the
 * image (`/app`, `/data`) are mapped into the temporary directory. The runtime stage's installs run
 * for real, from npm's cache when it holds the packages (`prefer-offline`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRoutes } from '../../src/http/routes.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** One instruction: its keyword, its flags (`--from=build`), and its arguments (JSON form or words). */
interface Instruction {
  readonly op: string;
  readonly flags: Readonly<Record<string, string>>;
  /** The exec form's list, or the shell form's text split at spaces. */
  readonly args: readonly string[];
  /** The text after the keyword and its flags. */
  readonly text: string;
}

interface Stage {
  readonly from: string;
  readonly name: string;
  readonly instructions: Instruction[];
}

/** The stages of a Dockerfile: lines joined at `\`, comments dropped, flags (`--x=y`) taken apart. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of logical) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const flags: Record<string, string> = {};
    let body = rest;
    for (let m = /^--([a-z-]+)=(\S+)\s+/.exec(body); m !== null; m = /^--([a-z-]+)=(\S+)\s+/.exec(body)) {
      flags[m[1] as string] = m[2] as string;
      body = body.slice(m[0].length);
    }
    // The exec form (a JSON list), also after HEALTHCHECK's `CMD`; else the shell form's words.
    const args = body.startsWith('[')
      ? (JSON.parse(body) as string[])
      : body.startsWith('CMD [')
        ? ['CMD', ...(JSON.parse(body.slice(4)) as string[])]
        : body.split(/\s+/);
    const instruction = { op: op.toUpperCase(), flags, args, text: body };
    if (instruction.op === 'FROM') stages.push({ from: args[0] as string, name: args[2] ?? String(stages.length), instructions: [] });
    else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const build = dockerfile[0] as Stage;
const runtime = dockerfile.at(-1) as Stage;
const all = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);
const one = (stage: Stage, op: string) => {
  const found = all(stage, op);
  expect(found, op).toHaveLength(1);
  return found[0] as Instruction;
};
/** ENV instructions as a record (`ENV A=b`). */
const envOf = (stage: Stage): Record<string, string> =>
  Object.fromEntries(all(stage, 'ENV').flatMap((i) => i.args.map((pair) => pair.split('=', 2) as [string, string])));

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, on the Debian Node 20 image, as an unprivileged user', () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile) expect(stage.from).toMatch(/^node:20-bookworm(-slim)?$/);
    expect(all(build, 'RUN').map((i) => i.text)).toEqual([expect.stringMatching(/^npm ci\b/), 'npm run build']);
    expect(all(runtime, 'RUN').some((i) => /npm (ci|install) .*--omit=dev/.test(i.text))).toBe(true);
    expect(all(runtime, 'COPY').find((i) => i.flags.from === build.name)?.args).toEqual(['/app/dist', './dist']);
    expect(one(runtime, 'USER').args).toEqual(['node']);
    expect(envOf(runtime).NODE_ENV).toBe('production');
  });

  it('keeps PGlite in a volume, checks health on the readiness route, and runs txmon serve on all interfaces', () => {
    expect(one(runtime, 'VOLUME').args).toEqual(['/data']);
    expect(envOf(runtime).TXMON_STORE).toBe('pglite:/data');
    const readiness = createRoutes(
      () => ({}),
      async () => ({ status: 'ready', checks: [] }),
    ).find((route) => route.pattern === '/readyz');
    expect(readiness?.access).toBe('public');
    expect(one(runtime, 'HEALTHCHECK').text).toContain("fetch('http://127.0.0.1:8080/readyz')");
    expect(one(runtime, 'ENTRYPOINT').args).toEqual(['node', '/app/dist/cli.js']);
    expect(one(runtime, 'CMD').args).toEqual(['serve', '--host', '0.0.0.0', '--port', '8080']);
    expect(one(runtime, 'EXPOSE').args).toEqual(['8080']);
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    for (const stage of dockerfile) {
      for (const copy of all(stage, 'COPY').filter((i) => i.flags.from === undefined)) {
        for (const source of copy.args.slice(0, -1)) {
          expect(existsSync(join(ROOT, source)), source).toBe(true);
          expect(dockerignore, source).not.toContain(source.split('/')[0]);
        }
      }
    }
    // What must never reach a build context: the checkout's dependencies, build, data and secrets.
    for (const kept of ['node_modules', 'dist', 'txmon-data', 'secrets', '.git']) expect(dockerignore).toContain(kept);
  });
});

describe('compose.yaml', () => {
  const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
  it('runs PostgreSQL with a healthcheck, starts txmon once it is healthy, and takes the store URL and keys from secret files', () => {
    expect(compose).toMatch(/postgres:\n\s+image: postgres:/);
    expect(compose).toMatch(/healthcheck:\n\s+test: \["CMD-SHELL", "pg_isready -U txmon -d txmon"\]/);
    expect(compose).toMatch(/depends_on:\n\s+postgres:\n\s+condition: service_healthy/);
    expect(compose).toContain('POSTGRES_PASSWORD_FILE: /run/secrets/postgres-password');
    for (const variable of ['TXMON_STORE_FILE: /run/secrets/txmon-store', 'TXMON_API_KEY_FILE: /run/secrets/txmon-api-keys'])
      expect(compose).toContain(variable);
    // No password or key written in the file itself.
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:|TXMON_API_KEYS:|postgres:\/\/[^@\s]*:[^@\s]*@/);
  });
});

const children = new Set<ChildProcess>();
const dirs: string[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A port free at the time of asking. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('Dockerfile, replayed on this machine', () => {
  it("its runtime stage installs what txmon serve needs, and the server it starts answers the HEALTHCHECK's probe and the API", async () => {
    const fs = mkdtempSync(join(tmpdir(), 'txmon-container-'));
    dirs.push(fs);
    // Each stage's filesystem is a directory; the image's absolute paths are mapped into it.
    const rootOf = (stage: Stage) => join(fs, stage.name);
    const inImage = (stage: Stage, path: string) => join(rootOf(stage), path);
    const mapPaths = (stage: Stage, text: string) =>
      text.replace(/(^|[\s=:])\/(app|data)\b/g, (_, before: string, top: string) => `${before}${inImage(stage, `/${top}`)}`);
    // chown: recorded, since this machine has no `node` user.
    const bin = join(fs, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'chown'), `#!/bin/sh\necho "$@" >> "${join(fs, 'chown.log')}"\n`);
    chmodSync(join(bin, 'chown'), 0o755);

    for (const stage of dockerfile) {
      let workdir = '/';
      const env: Record<string, string> = {};
      for (const instruction of stage.instructions) {
        const cwd = inImage(stage, workdir);
        if (instruction.op === 'WORKDIR') {
          workdir = instruction.args[0] as string;
          mkdirSync(inImage(stage, workdir), { recursive: true });
        } else if (instruction.op === 'ENV') Object.assign(env, envOf({ ...stage, instructions: [instruction] }));
        else if (instruction.op === 'COPY') {
          const from = instruction.flags.from;
          const sources = instruction.args.slice(0, -1);
          const target = resolve(cwd, instruction.args.at(-1) as string);
          for (const source of sources) {
            const path = from === undefined ? join(ROOT, source) : inImage(dockerfile.find((s) => s.name === from) as Stage, source);
            const into = sources.length > 1 || target.endsWith('/') ? join(target, source.split('/').at(-1) as string) : target;
            mkdirSync(dirname(into), { recursive: true });
            cpSync(path, into, { recursive: true });
          }
        } else if (instruction.op === 'RUN') {
          if (stage === build && /^npm ci\b/.test(instruction.text)) {
            symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
          } else if (stage === build && instruction.text === 'npm run build') {
            cpSync(join(ROOT, 'dist'), join(cwd, 'dist'), { recursive: true });
          } else {
            execFileSync('sh', ['-c', mapPaths(stage, instruction.text)], {
              cwd,
              env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME ?? fs, npm_config_prefer_offline: 'true', ...env },
              stdio: 'pipe',
              timeout: 120_000,
            });
          }
        }
      }
    }

    const app = inImage(runtime, '/app');
    // Production dependencies and the two store drivers, nothing of the build's.
    for (const needed of ['prom-client', 'pg', '@electric-sql/pglite', 'ajv', 'fs-native-extensions'])
      expect(existsSync(join(app, 'node_modules', needed)), needed).toBe(true);
    for (const devOnly of ['tsup', 'vitest', 'typescript']) expect(existsSync(join(app, 'node_modules', devOnly)), devOnly).toBe(false);
    expect(readFileSync(join(fs, 'chown.log'), 'utf8')).toContain(`node:node ${inImage(runtime, '/data')}`);

    const port = await freePort();
    const withPort = (args: readonly string[]) => args.map((arg) => arg.replace(/\b8080\b/, String(port)));
    const [command, ...entrypoint] = [...one(runtime, 'ENTRYPOINT').args, ...withPort(one(runtime, 'CMD').args)].map((arg) => mapPaths(runtime, arg));
    expect(command).toBe('node');
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: inImage(runtime, '/data'), ...envOf(runtime) };
    env.TXMON_STORE = mapPaths(runtime, env.TXMON_STORE as string);
    const child = spawn(process.execPath, entrypoint, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const healthcheck = one(runtime, 'HEALTHCHECK');
    const probe = withPort(healthcheck.args.slice(healthcheck.args.indexOf('CMD') + 1));
    expect(probe[0]).toBe('node');
    const healthy = () => {
      try {
        execFileSync(process.execPath, probe.slice(1), { stdio: 'ignore', timeout: 5_000 });
        return true;
      } catch {
        return false;
      }
    };
    // PGlite creates its database on the first start: this can take a while on a busy machine.
    for (let tries = 0; !healthy(); tries++) {
      expect(child.exitCode, out).toBeNull();
      expect(tries, out).toBeLessThan(300);
      await new Promise((done) => setTimeout(done, 200));
    }
    // A first start with no key configured makes one, keeps it in the volume and prints it once.
    const key = readFileSync(inImage(runtime, '/data/.api-key'), 'utf8').trim();
    for (let tries = 0; !out.includes(`Generated API key (shown once, kept for the next starts): ${key}`); tries++) {
      expect(tries, out).toBeLessThan(100);
      await new Promise((done) => setTimeout(done, 50));
    }
    const rules = await fetch(`http://127.0.0.1:${port}/rules`, { headers: { 'x-api-key': key } });
    expect(rules.status).toBe(200);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'x-api-key': key } });
    expect(await metrics.text()).toContain('txmon_http_request_duration_seconds_count{tenant="default",method="GET",route="/rules",status="200"} 1');
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((done) => child.once('exit', (exitCode) => done(exitCode)));
    children.delete(child);
    expect(code, out).toBe(0);
  }, 180_000);
});
