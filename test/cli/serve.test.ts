import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { serve, type ServerHandle } from '../../src/cli/serve.js';
import { T0, tx } from '../helpers.js';

const KEY = 'cli-key-0123456789abcdef';
const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const logLines: string[] = [];
const logTo = { write: (line: string) => void logLines.push(line) };

async function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const handle = await serve(['--port', '0', '--store', 'memory', ...args], env, logTo);
  servers.push(handle);
  return `http://127.0.0.1:${(handle.server.address() as AddressInfo).port}`;
}

describe('txmon serve (in process)', () => {
  it('serves with --api-key; other keys get 401; logs one line per request with the route pattern', async () => {
    const url = await start(['--api-key', KEY]);
    logLines.length = 0;
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request')).toMatchObject({
      method: 'GET',
      route: '/rules',
      status: 200,
    });
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
    writeFileSync(
      file,
      JSON.stringify({
        tenants: [
          { id: 'acme', apiKeys: [KEY] },
          { id: 'globex', apiKeys: ['globex-key-0123456789'] },
        ],
      }),
    );
    const url = await start(['--tenants', file]);
    const body = JSON.stringify(tx({ timestamp: T0 }));
    const created = await fetch(`${url}/transactions`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body });
    expect(created.status).toBe(201);
    const id = (JSON.parse(body) as { transactionId: string }).transactionId;
    expect((await fetch(`${url}/transactions/${id}`, { headers: { 'x-api-key': 'globex-key-0123456789' } })).status).toBe(404);
    expect((await fetch(`${url}/transactions/${id}`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
  });

  it('a key of the tenants file may carry a label: the audit trail names its changes <tenant>/<label>', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    const file = join(dir, 'tenants.json');
    writeFileSync(file, JSON.stringify({ tenants: [{ id: 'acme', apiKeys: [{ key: KEY, label: 'ops' }] }] }));
    const url = await start(['--tenants', file]);
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    expect(
      (await fetch(`${url}/lists/l-1`, { method: 'PUT', headers, body: JSON.stringify({ listType: 'BLACKLIST', subtype: 'USER_ID', items: [] }) })).status,
    ).toBe(200);
    const page = (await (await fetch(`${url}/audit-log`, { headers })).json()) as { items: { actor: string }[] };
    expect(page.items.map((e) => e.actor)).toEqual(['acme/ops']);
    writeFileSync(file, JSON.stringify({ tenants: [{ id: 'acme', apiKeys: [{ key: KEY }] }] }));
    await expect(start(['--tenants', file])).rejects.toThrow(/apiKeys/);
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

  it('reads the store from the file TXMON_STORE_FILE names (a mounted secret) when TXMON_STORE is not set; refuses a file it cannot read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    const file = join(dir, 'store');
    writeFileSync(file, 'memory\n');
    logLines.length = 0;
    const handle = await serve(['--port', '0', '--api-key', KEY], { TXMON_STORE_FILE: file }, logTo);
    servers.push(handle);
    const serving = logLines.map((l) => JSON.parse(l) as { msg: string; store?: string }).find((l) => l.msg === 'txmon serving');
    expect(serving?.store).toBe('memory');
    await expect(serve(['--port', '0', '--api-key', KEY], { TXMON_STORE_FILE: join(dir, 'missing') }, logTo)).rejects.toThrow(/TXMON_STORE_FILE: cannot read/);
  });

  it("applies --limits to every tenant, and a tenant's own limits over them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-'));
    const limits = join(dir, 'limits.json');
    writeFileSync(limits, JSON.stringify({ maxTransactionSize: 1_000, maxRuleInstances: 1 }));
    const tenants = join(dir, 'tenants.json');
    writeFileSync(
      tenants,
      JSON.stringify({
        tenants: [
          { id: 'acme', apiKeys: [KEY] },
          { id: 'globex', apiKeys: ['globex-key-0123456789'], limits: { maxTransactionSize: 5_000 } },
        ],
      }),
    );
    const url = await start(['--tenants', tenants, '--limits', limits]);
    const post = (key: string) =>
      fetch(`${url}/transactions`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(tx({ timestamp: T0, reference: 'r'.repeat(2_000) })),
      });
    const refused = await post(KEY);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((await post('globex-key-0123456789')).status).toBe(201);
    const instance = () =>
      fetch(`${url}/rule-instances`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ ruleId: 'R-1' }),
      });
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
    { name: 'a prune interval of zero hours', args: ['--prune-every-hours', '0'], message: /--prune-every-hours/ },
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

describe('txmon serve (in process): edge cases of the options', () => {
  const servers: ServerHandle[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  function tenantsFile(content: unknown): string {
    const file = join(mkdtempSync(join(tmpdir(), 'txmon-')), 'tenants.json');
    writeFileSync(file, JSON.stringify(content));
    return file;
  }

  it('with --tenants and --base-path ending in "/", the signed upload URL it hands out works', async () => {
    const file = tenantsFile({ tenants: [{ id: 'acme', apiKeys: [KEY] }] });
    const handle = await serve(['--port', '0', '--store', 'memory', '--tenants', file, '--base-path', '/v1/'], {}, { write: () => undefined });
    servers.push(handle);
    const origin = `http://127.0.0.1:${(handle.server.address() as AddressInfo).port}`;
    const created = await fetch(`${origin}/v1/pre-signed-url`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.txt', fileSize: 3 }),
    });
    expect(created.status).toBe(200);
    const slot = (await created.json()) as { url: string };
    const upload = await fetch(slot.url, { method: 'PUT', body: 'abc' });
    expect(upload.status, slot.url).toBe(204);
  });

  it('an empty --port is refused, not turned into port 0 (a random port)', async () => {
    const started = serve(['--port', '', '--store', 'memory', '--api-key', KEY], {}, { write: () => undefined });
    const handle = await started.catch(() => null);
    if (handle !== null) servers.push(handle);
    expect(handle, `listening on ${handle ? (handle.server.address() as AddressInfo).port : ''}`).toBeNull();
  });

  const badFiles = [
    { name: 'a null tenant entry', content: { tenants: [null] } },
    { name: 'a JSON null file', content: null },
  ];
  it.each(badFiles)('--tenants with $name is a usage error naming --tenants, not a TypeError', async ({ content }) => {
    await expect(serve(['--port', '0', '--store', 'memory', '--tenants', tenantsFile(content)], {}, { write: () => undefined })).rejects.toThrow(/--tenants/);
  });
});

describe('txmon serve (in process): the time of request-log lines', () => {
  afterEach(() => vi.restoreAllMocks());

  it('each line’s time is exactly pino’s isoTime for the Date.now() of that line, also across ms changes and clock steps back', async () => {
    const lines: string[] = [];
    let now = Date.UTC(2025, 0, 1, 0, 0, 0, 999);
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const handle = await serve(['--port', '0', '--store', 'memory', '--api-key', KEY], {}, { write: (line: string) => void lines.push(line) });
    try {
      const url = `http://127.0.0.1:${(handle.server.address() as AddressInfo).port}`;
      const times: number[] = [now];
      for (const next of [now, now + 1, now + 1, now - 5_000, 253402300800000, 0, now]) {
        now = next;
        times.push(next);
        expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
      }
      const parsed = lines.map((l) => JSON.parse(l) as { time: string; msg: string });
      const requestTimes = parsed.filter((p) => p.msg === 'request').map((p) => p.time);
      const expected = times.slice(1).map((t) => {
        now = t;
        return (JSON.parse(`{${pino.stdTimeFunctions.isoTime().slice(1)}}`) as { time: string }).time;
      });
      expect(requestTimes).toEqual(expected);
      expect(parsed[0]?.time).toBe(new Date(times[0] as number).toISOString());
    } finally {
      await handle.close();
    }
  });
});
