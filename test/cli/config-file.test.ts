import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/cli/config-file.js';
import { serve, type ServerHandle } from '../../src/cli/serve.js';
import { isTxmonError, type TxmonError } from '../../src/errors.js';
import { T0, tx } from '../helpers.js';

const KEY = 'config-key-0123456789abcdef';
const OTHER_KEY = 'config-key-other-0123456789';
const SECRET = 'webhook-secret-0123456789abcdef';

/** A directory holding `txmon.json` and the files it names (key file, secret file, a rule module). */
function configDir(config: unknown, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'txmon-config-'));
  const all: Record<string, string> = { 'api-keys.txt': `# keys\n${KEY}\n`, 'webhook-secret.txt': `${SECRET}\n`, ...files };
  for (const [name, text] of Object.entries(all)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'txmon.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
}

/** The example of the README and docs/configuration.md, on a memory store. */
const EXAMPLE = {
  store: 'memory',
  apiKeys: { file: './api-keys.txt' },
  ruleInstances: [{ id: 'big-transfers', ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: 10000 } } }],
  webhooks: [{ url: 'https://hooks.example.com/txmon', secretFile: './webhook-secret.txt' }],
};

async function problemsOf(config: unknown, env: NodeJS.ProcessEnv = {}, files: Record<string, string> = {}): Promise<{ path: string; code: string }[]> {
  const dir = configDir(config, files);
  try {
    await loadConfigFile(join(dir, 'txmon.json'), env);
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    expect(error.code).toBe('INVALID_CONFIGURATION');
    return (error as TxmonError).details.map((d) => ({ path: d.path, code: d.code }));
  }
  return [];
}

/** A host rule's module as a host writes it (TypeBox imported by path: the temporary directory has no node_modules). */
const RULE_MODULE = `import { Type } from '${pathToFileURL(createRequire(import.meta.url).resolve('@sinclair/typebox')).href}';
export const bigCount = {
  id: 'ACME-1', name: 'n', description: 'd', descriptionTemplate: 't',
  parametersSchema: Type.Object({ limit: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  defaultParameters: { limit: 3 }, defaultAction: 'FLAG', defaultNature: 'AML', checksFor: ['x'], types: ['x'], typologies: ['x'],
  labels: [], series: [], defaultCasePriority: 'P1',
  check: () => [],
};
export const notARule = 42;
`;

describe('loadConfigFile', () => {
  it('reads the example file: the default tenant with its key file, the rule instance to ensure and the webhook with its secret', async () => {
    const dir = configDir(EXAMPLE);
    const config = await loadConfigFile(join(dir, 'txmon.json'), {});
    expect(config.multiTenant).toBe(false);
    expect(config.tenants).toHaveLength(1);
    expect(config.tenants[0]).toMatchObject({
      id: 'default',
      apiKeys: [KEY],
      ruleInstances: [{ id: 'big-transfers', input: { ruleId: 'R-2', action: 'SUSPEND' } }],
      webhooks: [{ url: 'https://hooks.example.com/txmon', secret: SECRET, name: 'default', leaseMs: 30_000 }],
    });
  });

  it('resolves a PGlite store and rule modules against the file’s directory, not the working directory', async () => {
    const dir = configDir(
      { ...EXAMPLE, store: 'pglite:./data', ruleModules: ['./rules.mjs'], ruleInstances: [{ id: 'acme', ruleId: 'ACME-1', parameters: { limit: 5 } }] },
      { 'rules.mjs': RULE_MODULE },
    );
    const config = await loadConfigFile(join(dir, 'txmon.json'), {});
    expect(config.store).toBe(`pglite:${join(dir, 'data')}`);
    expect(config.tenants[0]?.engine.rules?.map((r) => r.id)).toEqual(['ACME-1']);
  });

  it('reads keys and secrets from environment variables', async () => {
    const config = await loadConfigFile(
      join(
        configDir({ apiKeys: { env: 'KEYS' }, urlSigningSecret: { env: 'SIGNING' }, webhooks: [{ url: 'http://localhost:9/h', secretEnv: 'HOOK' }] }),
        'txmon.json',
      ),
      { KEYS: `${KEY}, ${OTHER_KEY}`, SIGNING: SECRET, HOOK: SECRET },
    );
    expect(config.tenants[0]?.apiKeys).toEqual([KEY, OTHER_KEY]);
    expect(config.tenants[0]?.engine.urlSigningSecret).toBeInstanceOf(Uint8Array);
    expect(config.tenants[0]?.webhooks[0]?.secret).toBe(SECRET);
  });

  it('accepts maxStoredBytes among the limits (the memory store’s budget, not an engine limit)', async () => {
    const config = await loadConfigFile(join(configDir({ ...EXAMPLE, limits: { maxStoredBytes: 1_000_000, maxLists: 3 } }), 'txmon.json'), {});
    expect(config.tenants[0]?.limits).toEqual({ maxStoredBytes: 1_000_000, maxLists: 3 });
  });

  it('passes strict to the engine: a transaction a rule cannot evaluate is refused', async () => {
    const config = await loadConfigFile(join(configDir({ ...EXAMPLE, strict: true }), 'txmon.json'), {});
    expect(config.tenants[0]?.engine).toMatchObject({ strict: true });
  });

  it('gives each tenant the top-level engine settings and limits under its own', async () => {
    const config = await loadConfigFile(
      join(
        configDir({
          baseCurrency: 'EUR',
          limits: { maxRuleInstances: 10, maxLists: 5 },
          tenants: [
            { id: 'acme', apiKeys: [KEY], limits: { maxLists: 7 } },
            { id: 'globex', apiKeys: [OTHER_KEY], baseCurrency: 'GBP' },
          ],
        }),
        'txmon.json',
      ),
      {},
    );
    expect(config.tenants.map((t) => [t.id, t.engine.baseCurrency, t.limits])).toEqual([
      ['acme', 'EUR', { maxRuleInstances: 10, maxLists: 7 }],
      ['globex', 'GBP', { maxRuleInstances: 10, maxLists: 5 }],
    ]);
  });

  // Each row: one mistake, and the path (and detail code) the error names for it.
  const cases: { name: string; config: unknown; env?: NodeJS.ProcessEnv; files?: Record<string, string>; expected: { path: string; code: string }[] }[] = [
    { name: 'not JSON', config: '{ "store": ', expected: [{ path: '', code: 'malformed-json' }] },
    { name: 'an unknown top-level field', config: { ...EXAMPLE, stores: 'memory' }, expected: [{ path: '/stores', code: 'additionalProperties' }] },
    { name: 'a store of the wrong type', config: { ...EXAMPLE, store: 5 }, expected: [{ path: '/store', code: 'type' }] },
    { name: 'a store that names no store', config: { ...EXAMPLE, store: 'mysql://x' }, expected: [{ path: '/store', code: 'format' }] },
    {
      name: 'a key file that does not exist',
      config: { ...EXAMPLE, apiKeys: { file: './missing.txt' } },
      expected: [{ path: '/apiKeys/file', code: 'not-found' }],
    },
    { name: 'a key variable that is not set', config: { ...EXAMPLE, apiKeys: { env: 'NOPE' } }, expected: [{ path: '/apiKeys/env', code: 'not-found' }] },
    { name: 'an inline key too short', config: { ...EXAMPLE, apiKeys: ['short'] }, expected: [{ path: '/apiKeys/0', code: 'minLength' }] },
    {
      name: 'a rule instance without id',
      config: { ...EXAMPLE, ruleInstances: [{ ruleId: 'R-2' }] },
      expected: [{ path: '/ruleInstances/0/id', code: 'required' }],
    },
    {
      name: 'an unknown rule id',
      config: { ...EXAMPLE, ruleInstances: [{ id: 'x', ruleId: 'R-99999' }] },
      expected: [{ path: '/ruleInstances/0/ruleId', code: 'unknown-rule' }],
    },
    {
      name: 'bad rule parameters',
      config: { ...EXAMPLE, ruleInstances: [{ id: 'x', ruleId: 'R-2', parameters: { transactionAmountThreshold: 'lots' } }] },
      expected: [{ path: '/ruleInstances/0/parameters/transactionAmountThreshold', code: 'type' }],
    },
    {
      name: 'an unknown action',
      config: { ...EXAMPLE, ruleInstances: [{ id: 'x', ruleId: 'R-2', action: 'PANIC' }] },
      expected: [{ path: '/ruleInstances/0/action', code: 'enum' }],
    },
    {
      name: 'a rule instance id given twice',
      config: { ...EXAMPLE, ruleInstances: [...EXAMPLE.ruleInstances, ...EXAMPLE.ruleInstances] },
      expected: [{ path: '/ruleInstances/1/id', code: 'duplicate' }],
    },
    {
      name: 'a missing webhook secret file',
      config: { ...EXAMPLE, webhooks: [{ url: 'https://h.example.com', secretFile: './nope' }] },
      expected: [{ path: '/webhooks/0/secretFile', code: 'not-found' }],
    },
    {
      name: 'a webhook secret too short',
      config: EXAMPLE,
      files: { 'webhook-secret.txt': 'short' },
      expected: [{ path: '/webhooks/0/secretFile', code: 'range' }],
    },
    {
      name: 'a webhook without a secret',
      config: { ...EXAMPLE, webhooks: [{ url: 'https://h.example.com' }] },
      expected: [{ path: '/webhooks/0', code: 'exclusive' }],
    },
    {
      name: 'a webhook URL that is not http',
      config: { ...EXAMPLE, webhooks: [{ url: 'ftp://h', secretFile: './webhook-secret.txt' }] },
      expected: [{ path: '/webhooks/0/url', code: 'pattern' }],
    },
    {
      name: 'two webhooks of one name',
      config: { ...EXAMPLE, webhooks: [...EXAMPLE.webhooks, ...EXAMPLE.webhooks] },
      expected: [{ path: '/webhooks/1/name', code: 'duplicate' }],
    },
    {
      name: 'an unknown limit',
      config: { ...EXAMPLE, limits: { maxEverything: 3 } },
      expected: [{ path: '/limits/maxEverything', code: 'additionalProperties' }],
    },
    {
      name: 'a limit that is not a positive integer',
      config: { ...EXAMPLE, limits: { maxLists: 0 } },
      expected: [{ path: '/limits/maxLists', code: 'minimum' }],
    },
    { name: 'an unknown base currency', config: { ...EXAMPLE, baseCurrency: 'EURO' }, expected: [{ path: '/baseCurrency', code: 'format' }] },
    { name: 'a rate of an unknown currency', config: { ...EXAMPLE, rates: { ZZZ: '2' } }, expected: [{ path: '/rates/ZZZ', code: 'format' }] },
    { name: 'risk bands not increasing', config: { ...EXAMPLE, riskBands: [0, 20, 10, 60, 80, 100] }, expected: [{ path: '/riskBands', code: 'unsupported' }] },
    {
      name: "a tenant's risk bands not increasing",
      config: { tenants: [{ id: 'acme', apiKeys: [KEY], riskBands: [0, 20, 10, 60, 80, 100] }] },
      expected: [{ path: '/tenants/0/riskBands', code: 'unsupported' }],
    },
    {
      name: 'a risk factor of an unknown parameter',
      config: { ...EXAMPLE, riskFactors: [{ id: 'f', parameter: 'shoeSize', weight: 1, mapping: [] }] },
      expected: [{ path: '/riskFactors/0/parameter', code: 'const' }],
    },
    {
      name: 'a list of an unknown subtype',
      config: { ...EXAMPLE, lists: [{ listId: 'l', listType: 'BLACKLIST', subtype: 'SHOE', items: [] }] },
      expected: [{ path: '/lists/0/subtype', code: 'enum' }],
    },
    {
      name: 'a rule module that does not exist',
      config: { ...EXAMPLE, ruleModules: ['./nope.mjs'] },
      expected: [{ path: '/ruleModules/0', code: 'not-found' }],
    },
    {
      name: 'a rule module exporting no rule',
      config: { ...EXAMPLE, ruleModules: ['./empty.mjs'] },
      files: { 'empty.mjs': 'export const x = 1;\n' },
      expected: [{ path: '/ruleModules/0', code: 'not-found' }],
    },
    {
      name: 'a rule module whose rule clashes with a library rule',
      config: { ...EXAMPLE, ruleModules: ['./clash.mjs'] },
      files: { 'clash.mjs': RULE_MODULE.replace("'ACME-1'", "'R-2'") },
      expected: [{ path: '/ruleModules', code: 'conflict' }],
    },
    {
      name: 'a URL-signing secret variable not set',
      config: { ...EXAMPLE, urlSigningSecret: { env: 'NOPE' } },
      expected: [{ path: '/urlSigningSecret/env', code: 'not-found' }],
    },
    {
      name: 'tenants beside top-level keys',
      config: { ...EXAMPLE, tenants: [{ id: 'acme', apiKeys: [KEY] }] },
      expected: [
        { path: '/apiKeys', code: 'exclusive' },
        { path: '/ruleInstances', code: 'exclusive' },
        { path: '/webhooks', code: 'exclusive' },
      ],
    },
    { name: 'a tenant without keys', config: { tenants: [{ id: 'acme' }] }, expected: [{ path: '/tenants/0/apiKeys', code: 'required' }] },
    {
      name: 'a tenant id given twice',
      config: {
        tenants: [
          { id: 'acme', apiKeys: [KEY] },
          { id: 'acme', apiKeys: [OTHER_KEY] },
        ],
      },
      expected: [{ path: '/tenants/1/id', code: 'duplicate' }],
    },
    { name: 'a bad tenant id', config: { tenants: [{ id: 'a b', apiKeys: [KEY] }] }, expected: [{ path: '/tenants/0/id', code: 'pattern' }] },
    {
      name: "a tenant's bad rule instance",
      config: { tenants: [{ id: 'acme', apiKeys: [KEY], ruleInstances: [{ id: 'x', ruleId: 'R-2', parameters: { nope: 1 } }] }] },
      expected: [{ path: '/tenants/0/ruleInstances/0/parameters/nope', code: 'additionalProperties' }],
    },
    {
      name: 'one key for two tenants',
      config: {
        tenants: [
          { id: 'acme', apiKeys: [KEY] },
          { id: 'globex', apiKeys: [KEY] },
        ],
      },
      expected: [{ path: '/tenants', code: 'conflict' }],
    },
  ];

  it.each(cases)('names the path of $name', async ({ config, env, files, expected }) => {
    expect(await problemsOf(config, env, files)).toEqual(expected);
  });

  it('lists every problem of a file at once, each by its path', async () => {
    const problems = await problemsOf({
      ...EXAMPLE,
      apiKeys: { file: './missing.txt' },
      ruleInstances: [{ id: 'x', ruleId: 'R-99999' }],
      webhooks: [{ url: 'https://h.example.com', secretFile: './nope' }],
    });
    expect(problems.map((p) => p.path)).toEqual(['/apiKeys/file', '/ruleInstances/0/ruleId', '/webhooks/0/secretFile']);
  });
});

describe('txmon serve --config (in process)', () => {
  const servers: ServerHandle[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  const lines: string[] = [];
  const logTo = { write: (line: string) => void lines.push(line) };
  async function start(dir: string, args: string[] = []) {
    const handle = await serve(['--port', '0', '--config', join(dir, 'txmon.json'), ...args], {}, logTo);
    servers.push(handle);
    return `http://127.0.0.1:${(handle.server.address() as AddressInfo).port}`;
  }
  const get = async (url: string, path: string, key = KEY) => (await fetch(`${url}${path}`, { headers: { 'x-api-key': key } })).json() as Promise<unknown>;

  it('serves the file’s tenant: its key, its rule instance under its id (created by config), its lists, and a host rule of a rule module', async () => {
    const dir = configDir(
      {
        ...EXAMPLE,
        ruleModules: ['./rules.mjs'],
        ruleInstances: [...EXAMPLE.ruleInstances, { id: 'acme', ruleId: 'ACME-1', parameters: { limit: 5 } }],
        lists: [{ listId: 'blocked', listType: 'BLACKLIST', subtype: 'USER_ID', items: ['u-9', 'u-9', 'u-8'] }],
      },
      { 'rules.mjs': RULE_MODULE },
    );
    const url = await start(dir);
    const instances = (await get(url, '/rule-instances')) as { id: string; ruleId: string; version: number }[];
    expect(instances.map((i) => [i.id, i.ruleId, i.version])).toEqual([
      ['big-transfers', 'R-2', 1],
      ['acme', 'ACME-1', 1],
    ]);
    expect(((await get(url, '/rules')) as { id: string }[]).some((r) => r.id === 'ACME-1')).toBe(true);
    expect(await get(url, '/lists/blocked')).toMatchObject({ items: ['u-9', 'u-8'] });
    const audit = (await get(url, '/audit-log?entityType=RULE_INSTANCE')) as { items: { actor: string; action: string }[] };
    expect(audit.items.map((e) => [e.action, e.actor])).toEqual([
      ['CREATE', 'config'],
      ['CREATE', 'config'],
    ]);
    const result = await fetch(`${url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify(tx({ timestamp: T0, originAmountDetails: { transactionAmount: 20_000, transactionCurrency: 'EUR' } })),
    });
    expect(((await result.json()) as { status: string }).status).toBe('SUSPEND');
  });

  it('--api-key beside the file replaces its keys; --store replaces its store', async () => {
    const dir = configDir({ ...EXAMPLE, store: 'pglite:./never-made' });
    const url = await start(dir, ['--api-key', OTHER_KEY, '--store', 'memory']);
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': OTHER_KEY } })).status).toBe(200);
    expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(401);
  });

  it('serves several tenants of the file, each under its own key with its own instances', async () => {
    const dir = configDir({
      store: 'memory',
      tenants: [
        { id: 'acme', apiKeys: [KEY], ruleInstances: EXAMPLE.ruleInstances },
        { id: 'globex', apiKeys: { env: 'GLOBEX_KEYS' } },
      ],
    });
    const handle = await serve(['--port', '0', '--config', join(dir, 'txmon.json')], { GLOBEX_KEYS: OTHER_KEY }, logTo);
    servers.push(handle);
    const url = `http://127.0.0.1:${(handle.server.address() as AddressInfo).port}`;
    expect(((await get(url, '/rule-instances')) as unknown[]).length).toBe(1);
    expect(await get(url, '/rule-instances', OTHER_KEY)).toEqual([]);
  });

  it('hands out upload URLs under the file’s publicUrl', async () => {
    const dir = configDir({ ...EXAMPLE, webhooks: undefined, publicUrl: 'https://txmon.example.com/v1/', urlSigningSecret: { file: './webhook-secret.txt' } });
    const url = await start(dir);
    const created = await fetch(`${url}/pre-signed-url`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.txt', fileSize: 3 }),
    });
    expect(created.status).toBe(200);
    const slot = (await created.json()) as { url: string };
    expect(slot.url.startsWith('https://txmon.example.com/v1/')).toBe(true);
    // The same URL on the server's own address uploads: signed by the file's secret, verified by it.
    const upload = await fetch(slot.url.replace('https://txmon.example.com/v1', url), { method: 'PUT', body: 'abc' });
    expect(upload.status).toBe(204);
  });

  it('--limits beside the file goes over the file’s limits', async () => {
    const dir = configDir({ ...EXAMPLE, webhooks: undefined, limits: { maxLists: 5 } }, { 'limits.json': JSON.stringify({ maxLists: 1 }) });
    const url = await start(dir, ['--limits', join(dir, 'limits.json')]);
    const put = (id: string) =>
      fetch(`${url}/lists/${id}`, {
        method: 'PUT',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ listType: 'BLACKLIST', subtype: 'USER_ID', items: ['u-1'] }),
      });
    expect((await put('a')).status).toBe(200);
    const refused = await put('b');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('LIMIT_EXCEEDED');
  });

  it('--webhook-url beside the file replaces the file’s webhooks', async () => {
    const received = { file: 0, flag: 0 };
    const receivers = (['file', 'flag'] as const).map((which) =>
      createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received[which] += 1;
          res.writeHead(204).end();
        });
      }),
    );
    try {
      const urls = await Promise.all(
        receivers.map(
          (receiver) =>
            new Promise<string>((resolve) =>
              receiver.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`)),
            ),
        ),
      );
      const dir = configDir({ ...EXAMPLE, webhooks: [{ url: urls[0], secretFile: './webhook-secret.txt' }] });
      await start(dir, ['--webhook-url', urls[1] as string, '--webhook-secret-file', join(dir, 'webhook-secret.txt')]);
      // The instance the file created is an outbox message: delivered to the flag's receiver only.
      const deadline = Date.now() + 20_000;
      while (received.flag === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(received).toEqual({ file: 0, flag: 1 });
    } finally {
      for (const s of servers.splice(0)) await s.close();
      await Promise.all(receivers.map((receiver) => new Promise((resolve) => receiver.close(resolve))));
    }
  });

  it('refuses --tenants beside --config', async () => {
    const dir = configDir(EXAMPLE);
    mkdirSync(join(dir, 'x'));
    await expect(serve(['--port', '0', '--config', join(dir, 'txmon.json'), '--tenants', join(dir, 'x.json')], {}, logTo)).rejects.toThrow(
      /--config or --tenants/,
    );
  });
});
