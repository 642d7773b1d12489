/**
 * The README's table of Flagright SDK methods ("Flagright's Node SDK") is the SDK as installed and
 * txmon as routed: every method of `flagright` is listed once, with the method and path the SDK
 * really sends (recorded by a stub server), and marked `supported` exactly when txmon's route table
 * has that route.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { FlagrightClient } from 'flagright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoutes } from '../../src/http/routes.js';

const ROOT = join(import.meta.dirname, '../..');
/** The id every call passes, so that recorded paths compare with the README's `{param}` paths. */
const ID = 'ID';

interface Row {
  readonly method: string;
  readonly route: string;
  readonly status: string;
}

/** The rows `| \`sdk.method\` | \`VERB /path\` | status |` of the README's SDK section, by SDK method. */
function readmeRows(): Map<string, Row> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf("### Flagright's Node SDK\n");
  if (at < 0) throw new Error('README.md has no section "Flagright\'s Node SDK"');
  const end = readme.indexOf('\n#', at + 1);
  const section = readme.slice(at, end < 0 ? undefined : end);
  const rows = new Map<string, Row>();
  for (const m of section.matchAll(/^\| `([\w.]+)` \| `([A-Z]+ [^`]+)` \| ([\w ]+) \|$/gm)) {
    const [, name = '', route = '', status = ''] = m;
    expect(rows.has(name), `${name} listed twice`).toBe(false);
    rows.set(name, { method: name, route, status });
  }
  return rows;
}

/** Every method of the installed SDK, as `resource.method`. */
function sdkMethods(client: FlagrightClient): string[] {
  const out: string[] = [];
  for (const resource of Object.getOwnPropertyNames(Object.getPrototypeOf(client))) {
    const value = (client as unknown as Record<string, unknown>)[resource];
    if (resource === 'constructor' || value === null || typeof value !== 'object') continue;
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(value))) {
      if (name !== 'constructor' && !name.startsWith('_') && typeof (value as Record<string, unknown>)[name] === 'function') out.push(`${resource}.${name}`);
    }
  }
  return out.sort();
}

/** One call of each SDK method with the smallest body its serializer accepts. */
const CALLS: Record<string, (c: FlagrightClient) => Promise<unknown>> = {
  'transactions.verify': (c) => c.transactions.verify({ body: { type: 'TRANSFER', transactionId: ID, timestamp: 1 } }),
  'transactions.get': (c) => c.transactions.get(ID),
  'transactionEvents.create': (c) => c.transactionEvents.create({ transactionId: ID, timestamp: 1, transactionState: 'CREATED' }),
  'transactionEvents.get': (c) => c.transactionEvents.get(ID),
  'consumerUsers.create': (c) => c.consumerUsers.create({ body: { userId: ID, createdTimestamp: 1 } }),
  'consumerUsers.get': (c) => c.consumerUsers.get(ID),
  'businessUsers.create': (c) => c.businessUsers.create({ body: { userId: ID, createdTimestamp: 1, legalEntity: { companyGeneralDetails: {} } } }),
  'businessUsers.get': (c) => c.businessUsers.get(ID),
  'consumerUserEvents.create': (c) => c.consumerUserEvents.create({ body: { userId: ID, timestamp: 1 } }),
  'consumerUserEvents.get': (c) => c.consumerUserEvents.get(ID),
  'businessUserEvents.create': (c) => c.businessUserEvents.create({ body: { userId: ID, timestamp: 1 } }),
  'businessUserEvents.get': (c) => c.businessUserEvents.get(ID),
  'batch.verifyTransaction': (c) => c.batch.verifyTransaction({ data: [] }),
  'batch.getTransactions': (c) => c.batch.getTransactions(ID),
  'batch.createTransactionEvents': (c) => c.batch.createTransactionEvents({ data: [] }),
  'batch.getTransactionEvents': (c) => c.batch.getTransactionEvents(ID),
  'batch.createConsumerUsers': (c) => c.batch.createConsumerUsers({ data: [] }),
  'batch.getConsumerUsers': (c) => c.batch.getConsumerUsers(ID),
  'batch.createBusinessUsers': (c) => c.batch.createBusinessUsers({ data: [] }),
  'batch.getBusinessUsers': (c) => c.batch.getBusinessUsers(ID),
  'batch.createConsumerUserEvents': (c) => c.batch.createConsumerUserEvents({ data: [] }),
  'batch.getConsumerUserEvents': (c) => c.batch.getConsumerUserEvents(ID),
  'batch.createBusinessUserEvents': (c) => c.batch.createBusinessUserEvents({ data: [] }),
  'batch.getBusinessUserEvents': (c) => c.batch.getBusinessUserEvents(ID),
};

describe("README: Flagright's Node SDK", () => {
  let stub: Server;
  let client: FlagrightClient;
  const sent: string[] = [];

  beforeAll(async () => {
    // Records each request line and answers a 404 with a message (no retry: the SDK retries only 408, 429, 5xx).
    stub = createServer((req, res) => {
      sent.push(`${req.method} ${new URL(req.url ?? '/', 'http://stub').pathname}`);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'stub' }));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    client = new FlagrightClient({ apiKey: 'stub-key', baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}` });
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => stub.close(() => resolve()));
  });

  it('lists every method of the installed SDK, and only those (24 in flagright 1.8.53)', () => {
    expect([...readmeRows().keys()].sort()).toEqual(sdkMethods(client));
    expect(sdkMethods(client)).toEqual(Object.keys(CALLS).sort());
  });

  it.each(Object.keys(CALLS))('%s: the route listed is the one the SDK calls', async (name) => {
    sent.length = 0;
    await expect(CALLS[name]?.(client)).rejects.toMatchObject({ statusCode: 404 });
    const row = readmeRows().get(name);
    expect(sent).toEqual([row?.route.replace(/\{\w+\}/g, ID)]);
  });

  it.each(Object.keys(CALLS))('%s: "supported" exactly when txmon routes it', (name) => {
    const row = readmeRows().get(name);
    const [verb = '', path = ''] = row?.route.split(' ') ?? [];
    const routes = createRoutes(
      () => ({}),
      async () => ({ status: 'ready', checks: [] }),
    );
    const routed = routes.some((r) => r.pattern === path && r.methods[verb] !== undefined);
    expect(row?.status).toBe(routed ? 'supported' : 'in progress');
  });
});
