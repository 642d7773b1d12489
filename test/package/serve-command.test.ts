/**
 * The built `txmon` command (`dist/cli.js`, spawned as a child process): its lifecycle on signals
 * and its request log on standard output. Needs `npm run build` first (`npm test` builds).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelined, rawRequestOf, txBody, type RawRequest } from '../http/raw-http.js';
import { T0, tx } from '../helpers.js';

const KEY = 'serve-command-key-0123456789';
const CLI = join(import.meta.dirname, '../../dist/cli.js');

/** An empty working directory, where the default store (`./txmon-data`) is created. */
function freshDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'txmon-serve-'));
}

/** A raw request with {@link KEY} unless `options.key` says otherwise (`null`: none). */
function request(method: string, path: string, options: { key?: string | null; close?: boolean } = {}): RawRequest {
  return rawRequestOf(options.key === undefined ? KEY : options.key, method, path, options);
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  // A child left running by a failed test.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('txmon serve: lifecycle', () => {
  const cli = join(import.meta.dirname, '../../dist/cli.js');

  it('prints a generated key once, logs one line per request without payload values, and exits 0 on SIGTERM after in-flight requests', async () => {
    expect(existsSync(cli), 'dist/cli.js is missing: run `npm run build` (npm test builds first)').toBe(true);
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
      cwd: freshDirectory(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TXMON_API_KEYS: '', TXMON_STORE: '' },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 30_000);
      const check = setInterval(() => {
        if (out.includes('Generated API key')) {
          clearInterval(check);
          clearTimeout(timer);
          resolve();
        }
      }, 20);
    });
    const key = /Generated API key \(shown once[^)]*\): (\S+)/.exec(out)?.[1] as string;
    const url = /"url":"([^"]+)"/.exec(out)?.[1] as string;
    const secret = 'very-secret-reference-text';
    const r = await fetch(`${url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(tx({ timestamp: T0, reference: secret })),
    });
    expect(r.status).toBe(201);
    // An upload whose body is still streaming when SIGTERM arrives must complete.
    const slot = (await (
      await fetch(`${url}/pre-signed-url`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'a.txt', fileSize: 10 }),
      })
    ).json()) as { url: string };
    let push!: (chunk: string | null) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(new TextEncoder().encode(chunk)));
      },
    });
    const inFlight = fetch(slot.url, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    push('hello');
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    push('world');
    push(null);
    expect((await inFlight).status).toBe(204);
    expect(await exited).toBe(0);
    const lines = out.split('\n').filter((l) => l.includes('"msg":"request"'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ method: 'POST', route: '/transactions', status: 201, tenant: 'default' });
    // Every line carries its ISO time (formatted once per millisecond), within the test's span.
    for (const line of lines) {
      const time = (JSON.parse(line) as { time: string }).time;
      expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(60_000);
    }
    expect(out).not.toContain(secret);
    expect(out.split(key).length - 1).toBe(3); // the key line and the two curl examples, nothing else
    expect(lastJsonLine(out)).toMatchObject({ msg: 'stopped', forced: false });
  }, 60_000);

  it('logs stopped and exits 0 when in-flight requests outlast the grace period, and a second signal changes nothing', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--store', 'memory', '--shutdown-grace-ms', '300'], {
      cwd: freshDirectory(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TXMON_API_KEYS: KEY },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => out.includes('"url"'));
    const url = /"url":"([^"]+)"/.exec(out)?.[1] as string;
    // A request whose body never ends stays in flight past the grace period.
    const stalled = fetch(`${url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"type":')) }),
      duplex: 'half',
    } as RequestInit).catch(() => 'cut');
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await stalled).toBe('cut');
    expect(out).toContain('"msg":"already shutting down"');
    expect(lastJsonLine(out)).toMatchObject({ msg: 'stopped', forced: true });
  }, 30_000);
});

function lastJsonLine(out: string): Record<string, unknown> {
  const lines = out.split('\n').filter((l) => l.startsWith('{'));
  return JSON.parse(lines[lines.length - 1] as string) as Record<string, unknown>;
}

function waitFor(condition: () => boolean, ms = 25_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (condition()) resolve();
      else if (Date.now() - started > ms) reject(new Error('condition not met in time'));
      else setTimeout(tick, 20);
    };
    tick();
  });
}

function startCli(stdio: ('pipe' | 'ignore' | number)[], extra: string[] = []) {
  expect(existsSync(CLI), 'dist/cli.js is missing: run `npm run build`').toBe(true);
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--store', 'memory', ...extra], {
    stdio: stdio as never,
    env: { ...process.env, TXMON_API_KEYS: KEY },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = async (): Promise<string> => {
    const until = Date.now() + 10_000;
    while (!out.includes('\n')) {
      if (Date.now() > until) throw new Error(`no start: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return /"url":"([^"]+)"/.exec(out)?.[1] as string;
  };
  return { child, exited, ready, out: () => out, err: () => err };
}

describe('txmon serve: the request log', () => {
  it('every request of a pipelined burst is logged exactly once, whole lines, before "shutting down"; then "stopped"', async () => {
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    const port = Number(new URL(url).port);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        pipelined(port, [
          request('GET', '/healthz', { key: null }),
          request('GET', '/nope'),
          request('HEAD', '/rules'),
          request('GET', '/rules', { key: 'bad-key-0123456789abcdef', close: true }),
        ]),
      ),
    );
    for (const r of results) expect(r.responses.map((x) => x.status)).toEqual([200, 404, 200, 401]);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    const lines = cli.out().split('\n');
    expect(lines.pop()).toBe('');
    const parsed = lines.map((l) => JSON.parse(l) as { msg: string; status?: number; method?: string; route?: string });
    expect(parsed[0]?.msg).toBe('txmon serving');
    const msgs = parsed.map((p) => p.msg);
    expect(msgs.slice(-2)).toEqual(['shutting down: finishing in-flight requests', 'stopped']);
    const reqs = parsed.filter((p) => p.msg === 'request');
    expect(reqs).toHaveLength(80);
    expect(msgs.slice(1, 81).every((m) => m === 'request')).toBe(true);
    const count = (s: number) => reqs.filter((r) => r.status === s).length;
    expect([count(200), count(404), count(401)]).toEqual([40, 20, 20]);
    expect(reqs.filter((r) => r.method === 'HEAD' && r.route === '/rules')).toHaveLength(20);
    expect(cli.err()).toBe('');
  });

  it('stdout closed (EPIPE): reported once on stderr, and the server keeps serving', async () => {
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    cli.child.stdout?.destroy();
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 10));
    }
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.err().match(/could not be written \(EPIPE\)/g)).toHaveLength(1);
  });

  it('SIGTERM with a keep-alive request in flight: the process exits right after its response (not after the 5 s keep-alive timeout)', async () => {
    // Node answers a busy keep-alive connection with `Connection: keep-alive` after server.close(),
    // so without more the process would wait for keepAliveTimeout: exitOnSignals closes connections
    // as they turn idle.
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    const port = Number(new URL(url).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const body = txBody().body;
    // Headers and half the body: the request is in flight when the signal arrives.
    socket.write(
      `POST /transactions HTTP/1.1\r\nhost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    cli.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    let closedByServer = false;
    socket.once('close', () => (closedByServer = true));
    let exited = false;
    const exit = cli.exited.then((code) => {
      exited = true;
      return code;
    });
    socket.write(body.slice(10));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (answer.includes('\r\n\r\n')) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    expect(answer.startsWith('HTTP/1.1 201')).toBe(true);
    // Well within the 5 s keep-alive timeout the connection is closed and the process is gone.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(closedByServer).toBe(true);
    expect(exited).toBe(true);
    expect(await exit).toBe(0);
  });

  it('stdout on a full disk (ENOSPC): reported once on stderr, and the server keeps serving', async () => {
    const full = openSync('/dev/full', 'w');
    const cli = startCli(['ignore', full, 'pipe']);
    closeSync(full);
    const until = Date.now() + 10_000;
    while (!cli.err().includes('\n') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    // The port is not readable from stdout here: find it from the process's listening socket.
    const port = await listeningPort(cli.child.pid as number);
    for (let i = 0; i < 5; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.err().match(/could not be written \(ENOSPC\)/g)).toHaveLength(1);
  });

  it('with stdout and stderr both closed (e.g. `txmon serve 2>&1 | head -1`), the server keeps serving', async () => {
    // A report through process.stderr would meet EPIPE as an unhandled 'error' event that kills the
    // process: it is a writeSync(2) whose failure is ignored.
    const cli = startCli(['ignore', 'pipe', 'pipe']);
    const url = await cli.ready();
    cli.child.stdout?.destroy();
    cli.child.stderr?.destroy();
    try {
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          await fetch(`${url}/healthz`).then(
            (r) => r.status,
            (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
          ),
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(statuses).toEqual([200, 200, 200, 200]);
    } finally {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
  });
});

/** The TCP port a process listens on (Linux /proc). */
async function listeningPort(pid: number): Promise<number> {
  const until = Date.now() + 10_000;
  for (;;) {
    const inodes = new Set<string>();
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
          const m = /^socket:\[(\d+)\]$/.exec(link);
          if (m) inodes.add(m[1] as string);
        } catch {
          // closed meanwhile
        }
      }
      for (const row of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
        const cols = row.trim().split(/\s+/);
        if (cols[3] === '0A' && inodes.has(cols[9] as string)) return Number.parseInt((cols[1] as string).split(':')[1] as string, 16);
      }
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error('no listening socket');
    await new Promise((r) => setTimeout(r, 20));
  }
}
