import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serve } from '../../src/cli/serve.js';
import { T0, tx } from '../helpers.js';

const KEY = 'cli-key-0123456789abcdef';
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
});

const logLines: string[] = [];
const logTo = { write: (line: string) => void logLines.push(line) };

async function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const server = await serve(['--port', '0', ...args], env, logTo);
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('txmon serve (in process)', () => {
  it('serves with --api-key; other keys get 401; logs one line per request with the route pattern', async () => {
    const url = await start(['--api-key', KEY]);
    logLines.length = 0;
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request')).toMatchObject({ method: 'GET', route: '/rules', status: 200 });
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': 'another-key-0123456789' } })).status).toBe(401);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('reads keys from TXMON_API_KEYS (comma-separated)', async () => {
    const url = await start([], { TXMON_API_KEYS: ` ${KEY} , second-key-0123456789 ` });
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': 'second-key-0123456789' } })).status).toBe(200);
  });

  it('serves tenants from --tenants, each with its own data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    const file = join(dir, 'tenants.json');
    writeFileSync(file, JSON.stringify({ tenants: [{ id: 'acme', apiKeys: [KEY] }, { id: 'globex', apiKeys: ['globex-key-0123456789'] }] }));
    const url = await start(['--tenants', file]);
    const body = JSON.stringify(tx({ timestamp: T0 }));
    const created = await fetch(`${url}/transactions`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body });
    expect(created.status).toBe(201);
    const id = (JSON.parse(body) as { transactionId: string }).transactionId;
    expect((await fetch(`${url}/transactions/${id}`, { headers: { 'x-api-key': 'globex-key-0123456789' } })).status).toBe(404);
    expect((await fetch(`${url}/transactions/${id}`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
  });

  it('applies --rate-limit and --base-path', async () => {
    const url = await start(['--api-key', KEY, '--rate-limit', '1', '--base-path', '/v1']);
    const get = () => fetch(`${url}/v1/rules`, { headers: { 'x-api-key': KEY } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it('reads keys from --api-key-file or TXMON_API_KEY_FILE (one per line, # comments), never needing them on the command line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    const file = join(dir, 'keys');
    writeFileSync(file, `# keys of the default tenant\n${KEY}\n\nsecond-key-0123456789\n`);
    const warnings = vi.spyOn(process.stderr, 'write');
    const url = await start(['--api-key-file', file]);
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': 'second-key-0123456789' } })).status).toBe(200);
    const fromEnv = await start([], { TXMON_API_KEY_FILE: file });
    expect((await fetch(`${fromEnv}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect(warnings.mock.calls.flat().join('')).not.toContain('process list');
    await start(['--api-key', KEY]);
    expect(warnings.mock.calls.flat().join('')).toContain('--api-key is visible to other users in the process list');
    warnings.mockRestore();
  });

  it('applies --limits to every tenant, and a tenant\'s own limits over them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    const limits = join(dir, 'limits.json');
    writeFileSync(limits, JSON.stringify({ maxTransactionSize: 1_000, maxRuleInstances: 1 }));
    const tenants = join(dir, 'tenants.json');
    writeFileSync(tenants, JSON.stringify({ tenants: [{ id: 'acme', apiKeys: [KEY] }, { id: 'globex', apiKeys: ['globex-key-0123456789'], limits: { maxTransactionSize: 5_000 } }] }));
    const url = await start(['--tenants', tenants, '--limits', limits]);
    const post = (key: string) =>
      fetch(`${url}/transactions`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(tx({ timestamp: T0, reference: 'r'.repeat(2_000) })) });
    const refused = await post(KEY);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((await post('globex-key-0123456789')).status).toBe(201);
    const instance = () => fetch(`${url}/rule-instances`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ ruleId: 'R-1' }) });
    expect((await instance()).status).toBe(200);
    expect((await instance()).status).toBe(400);
  });

  const bad: { name: string; args: string[]; message: RegExp }[] = [
    { name: 'a bad port', args: ['--port', 'x'], message: /--port/ },
    { name: 'a bad rate limit', args: ['--api-key', KEY, '--rate-limit', '-1'], message: /--rate-limit/ },
    { name: 'a short key', args: ['--api-key', 'short'], message: /16 characters/ },
    { name: 'a missing tenants file', args: ['--tenants', '/nonexistent/tenants.json'], message: /--tenants/ },
    { name: 'an unknown option', args: ['--bogus'], message: /bogus/ },
    { name: 'a missing key file', args: ['--api-key-file', '/nonexistent/keys'], message: /--api-key-file/ },
    { name: 'a bad shutdown grace', args: ['--shutdown-grace-ms', 'soon'], message: /--shutdown-grace-ms/ },
  ];
  it.each(bad)('refuses $name', async ({ args, message }) => {
    await expect(serve(args, {}, logTo)).rejects.toThrow(message);
  });

  it('refuses a limits file naming an unknown limit or a value that is not a positive integer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    for (const [content, message] of [
      [{ maxNope: 1 }, /maxNope is not a known limit/],
      [{ maxTransactionSize: -1 }, /maxTransactionSize must be a positive integer/],
    ] as const) {
      const file = join(dir, 'limits.json');
      writeFileSync(file, JSON.stringify(content));
      await expect(serve(['--api-key', KEY, '--limits', file], {}, logTo)).rejects.toThrow(message);
    }
  });
});

describe('txmon serve (the built command)', () => {
  const cli = join(import.meta.dirname, '../../dist/cli.js');

  it('prints a generated key once, logs one line per request without payload values, and exits 0 on SIGTERM after in-flight requests', async () => {
    expect(existsSync(cli), 'dist/cli.js is missing: run `npm run build` (npm test builds first)').toBe(true);
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TXMON_API_KEYS: '' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 10_000);
      const check = setInterval(() => {
        if (out.includes('Generated API key')) {
          clearInterval(check);
          clearTimeout(timer);
          resolve();
        }
      }, 20);
    });
    const key = /Generated API key \(shown once\): (\S+)/.exec(out)?.[1] as string;
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
      await fetch(`${url}/pre-signed-url`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ filename: 'a.txt', fileSize: 10 }) })
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
  }, 30_000);

  it('logs stopped and exits 0 when in-flight requests outlast the grace period, and a second signal changes nothing', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--shutdown-grace-ms', '300'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TXMON_API_KEYS: KEY },
    });
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

function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
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
