/**
 * Several engine processes over one PostgreSQL database answer exactly what one engine answers.
 * Real child processes (`engine-process.mjs`, the BUILT package from dist/) migrate a fresh
 * database all at once, wait at a barrier, then fire transactions and events for a few users — all
 * at the same timestamp, some transaction ids sent to two processes at once. The answers state
 * what each transaction saw: R-30 (limit 0) states the user's count, R-69 (threshold 0) the user's
 * volume, on both sides. Every create adds a positive amount and every event raises one, so each
 * user's volume strictly grows: sorting a user's answers by the volume they state gives the order
 * they ran in, and the counts and volumes must be exactly those of that order. The per-user orders
 * together give one serial order; one in-memory engine fed the same requests in it must answer the
 * same, and the stored counters, alerts, cases and aggregates must be what those answers imply.
 * Needs `npm run build` first (`npm test` builds). PostgreSQL only: PGlite is one process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Txmon from '../../src/index.js';
import type * as TxmonPostgres from '../../src/postgres/index.js';
import { POSTGRES_URL } from './fixtures.js';

type Engine = Txmon.Engine;
type Alert = Txmon.Alert;
type Case = Txmon.Case;
type RuleInstance = Txmon.RuleInstance;
type CreateAnswer = Txmon.TransactionMonitoringResult;
type EventAnswer = Txmon.TransactionEventMonitoringResult;

const DIST = join(import.meta.dirname, '../../dist');
const SCRIPT = join(import.meta.dirname, 'engine-process.mjs');

const PROCESSES = 4;
/** Requests in flight per process (and its pool size). */
const CONCURRENCY = 6;
const USERS = Array.from({ length: 6 }, (_, i) => `p-${i}`);
const CREATES = 200;
/** The first creates are sent to two processes each, at the front of both lists. */
const DUPLICATES = 24;
const EVENT_SHARE = 0.4;
const T = Date.UTC(2025, 0, 15, 12, 0, 0);
const WINDOW = { units: 30, granularity: 'day', rollingBasis: true };
const SEED = fc.readConfigureGlobal().seed ?? Math.floor(Math.random() * 2 ** 31);

/** The instances, created once before the barrier: the two that state what a transaction saw alert. */
const INSTANCES = {
  count: {
    ruleId: 'R-30',
    parameters: { transactionsLimit: 0, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' },
    alertCreationOnHit: true,
    casePriority: 'P3',
  },
  volume: {
    ruleId: 'R-69',
    parameters: { transactionVolumeThreshold: { USD: 0 }, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' },
    alertCreationOnHit: true,
    casePriority: 'P2',
  },
  block: {
    ruleId: 'R-69',
    action: 'BLOCK',
    alertCreationOnHit: false,
    parameters: { transactionVolumeThreshold: { USD: 15_000 }, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' },
  },
  shadow: {
    ruleId: 'R-30',
    mode: 'SHADOW',
    // A shadow instance's hits never alert, whatever it asks.
    alertCreationOnHit: true,
    parameters: { transactionsLimit: 20, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' },
  },
} as const;
type Role = keyof typeof INSTANCES;
const ALERTING: readonly Role[] = ['count', 'volume'];

interface CreateBody {
  type: 'TRANSFER';
  transactionId: string;
  timestamp: number;
  originUserId: string;
  destinationUserId: string;
  originAmountDetails: { transactionAmount: number; transactionCurrency: 'USD'; country: string };
  destinationAmountDetails: { transactionAmount: number; transactionCurrency: 'USD'; country: string };
}
interface EventBody {
  transactionId: string;
  eventId: string;
  timestamp: number;
  transactionState: string;
  updatedTransactionAttributes: { originAmountDetails: { transactionAmount: number }; destinationAmountDetails: { transactionAmount: number } };
}
interface Op {
  create: CreateBody;
  then?: EventBody;
}

/** A small seeded generator (mulberry32): the workload is a function of {@link SEED}. */
function randomOf(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n) };
}

/** The ops of every process: each create once (the first {@link DUPLICATES} twice, in two processes), a share with an event after it. */
function workloadOf(seed: number): Op[][] {
  const random = randomOf(seed);
  const lists: Op[][] = Array.from({ length: PROCESSES }, () => []);
  const states = ['SUCCESSFUL', 'SENT', 'PROCESSING', 'SUSPENDED'];
  for (let k = 0; k < CREATES; k++) {
    const a = random.int(USERS.length);
    const b = (a + 1 + random.int(USERS.length - 1)) % USERS.length;
    const cents = 100 + random.int(99_900);
    const transactionId = `x-${k}`;
    const create: CreateBody = {
      type: 'TRANSFER',
      transactionId,
      timestamp: T,
      originUserId: USERS[a] as string,
      destinationUserId: USERS[b] as string,
      originAmountDetails: { transactionAmount: cents / 100, transactionCurrency: 'USD', country: 'DE' },
      destinationAmountDetails: { transactionAmount: cents / 100, transactionCurrency: 'USD', country: 'FR' },
    };
    const op: Op = { create };
    // Half the duplicates have an event: the same event id then reaches two processes at once too.
    if (k < DUPLICATES ? k % 2 === 0 : random.next() < EVENT_SHARE) {
      // A raise (never a cut): every request adds to its users' volumes.
      const raised = (cents + 1 + random.int(5_000)) / 100;
      // biome-ignore lint/suspicious/noThenProperty: the follow-up operation of a scripted step, never awaited
      op.then = {
        transactionId,
        eventId: `${transactionId}-event`,
        timestamp: T + 60_000,
        transactionState: states[random.int(states.length)] as string,
        updatedTransactionAttributes: { originAmountDetails: { transactionAmount: raised }, destinationAmountDetails: { transactionAmount: raised } },
      };
    }
    const p = random.int(PROCESSES);
    (lists[p] as Op[]).push(op);
    if (k < DUPLICATES) (lists[(p + 1 + random.int(PROCESSES - 1)) % PROCESSES] as Op[]).push(op);
  }
  // The duplicates stay at the front of every list (fired first, at once); the rest is shuffled.
  for (const list of lists) {
    const front = list.filter((op) => Number(op.create.transactionId.slice(2)) < DUPLICATES).length;
    for (let i = list.length - 1; i > front; i--) {
      const j = front + random.int(i - front + 1);
      [list[i], list[j]] = [list[j] as Op, list[i] as Op];
    }
  }
  return lists;
}

// ---------------------------------------------------------------------------------------------
// Processes and the database

type Message =
  | { type: 'ready'; migration: { version: number; applied: number[] } }
  | { type: 'armed' }
  | { type: 'done'; results: Result[] }
  | { type: 'fatal'; message: string };
type Result = { kind: 'create' | 'event'; id: string; response?: CreateAnswer | EventAnswer; error?: { code: string; message: string } };

interface EngineProcess {
  readonly child: ChildProcess;
  /** The next message of `type`; rejects when the process reports a fatal error or exits first. */
  next<K extends Message['type']>(type: K): Promise<Extract<Message, { type: K }>>;
}

const running: ChildProcess[] = [];

function startProcess(url: string): EngineProcess {
  const child = spawn(process.execPath, [SCRIPT, url, String(CONCURRENCY)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  running.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const inbox: Message[] = [];
  let wake: (() => void) | null = null;
  let exited = false;
  child.on('message', (m) => {
    inbox.push(m as Message);
    wake?.();
  });
  child.on('exit', () => {
    exited = true;
    wake?.();
  });
  return {
    child,
    async next(type) {
      for (;;) {
        const at = inbox.findIndex((m) => m.type === type || m.type === 'fatal');
        if (at >= 0) {
          const m = inbox.splice(at, 1)[0] as Message;
          if (m.type === 'fatal') throw new Error(`an engine process failed: ${m.message}`);
          return m as never;
        }
        if (exited) throw new Error(`an engine process exited before '${type}' (exit code ${child.exitCode}): ${stderr}`);
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    },
  };
}

/** A fresh, empty (not migrated) database on the run's server: the processes migrate it. */
async function createEmptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `txmon_processes_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = new pg.Client({ connectionString: POSTGRES_URL });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What the answers state

/** One request that was answered: a create or an event (a duplicate is one request answered twice). */
interface Item {
  readonly kind: 'create' | 'event';
  readonly id: string;
  readonly body: CreateBody | EventBody;
  readonly create: CreateBody;
  readonly response: CreateAnswer | EventAnswer;
  /** The process whose answer is kept (a duplicate's other answer is checked equal). */
  readonly by: number;
}

type Side = 'Sender' | 'Receiver';
const sidesOf = (create: CreateBody): [string, Side][] => [
  [create.originUserId, 'Sender'],
  [create.destinationUserId, 'Receiver'],
];

/** Exact scaled amount (10⁻⁸ units) of a decimal like `123.45`. */
function scaled(decimal: string): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * 100_000_000n + BigInt(fraction.padEnd(8, '0'));
}
const amountOf = (n: number) => scaled(n.toFixed(2));

/** What one side of an answer states: the user's count (1 when R-30 did not hit that side) and volume. */
function statedBy(item: Item, ids: Readonly<Record<Role, string>>, side: Side): { count: number; volume: bigint | null } {
  const description = (role: Role) => item.response.hitRules.find((h) => h.ruleInstanceId === ids[role])?.ruleDescription ?? '';
  const count = new RegExp(`${side} made (\\d+) transactions`).exec(description('count'));
  const volume = new RegExp(`${side} volume in [^,]* is (\\d+\\.\\d+) USD`).exec(description('volume'));
  return { count: count ? Number(count[1]) : 1, volume: volume ? scaled(volume[1] as string) : null };
}

/**
 * Each user's requests in the order they ran (by the volume they state, which strictly grows), and
 * every way the stated counts and volumes differ from what that order implies.
 */
function userOrders(items: readonly Item[], ids: Readonly<Record<Role, string>>) {
  const orders = new Map<string, Item[]>();
  const problems: string[] = [];
  const stated = new Map<Item, Map<string, { count: number; volume: bigint | null }>>();
  for (const item of items) {
    const own = new Map<string, { count: number; volume: bigint | null }>();
    for (const [user, side] of sidesOf(item.create)) {
      own.set(user, statedBy(item, ids, side));
      let list = orders.get(user);
      if (!list) {
        list = [];
        orders.set(user, list);
      }
      list.push(item);
    }
    stated.set(item, own);
  }
  const said = (item: Item, user: string) => stated.get(item)?.get(user) as { count: number; volume: bigint | null };
  for (const [user, list] of orders) {
    if (list.some((item) => said(item, user).volume === null)) problems.push(`${user}: an answer states no volume`);
    const volumeOf = (item: Item) => said(item, user).volume ?? 0n;
    list.sort((a, b) => (volumeOf(a) < volumeOf(b) ? -1 : volumeOf(a) > volumeOf(b) ? 1 : 0));
    const amounts = new Map<string, bigint>();
    let creates = 0;
    let previous: bigint | null = null;
    for (const item of list) {
      const { count, volume } = said(item, user);
      if (volume === previous) problems.push(`${user}: ${item.id} states the volume of the request before it (${volume} twice)`);
      previous = volume;
      const side = item.create.originUserId === user ? 'originAmountDetails' : 'destinationAmountDetails';
      if (item.kind === 'create') {
        creates += 1;
        amounts.set(item.create.transactionId, amountOf(item.create[side].transactionAmount));
      } else {
        if (!amounts.has(item.create.transactionId)) problems.push(`${user}: ${item.id} ran before its transaction was created`);
        amounts.set(item.create.transactionId, amountOf((item.body as EventBody).updatedTransactionAttributes[side].transactionAmount));
      }
      const expected = [...amounts.values()].reduce((s, v) => s + v, 0n);
      if (count !== creates) problems.push(`${user}: ${item.id} states ${count} transactions, ${creates} ran up to it`);
      if (volume !== expected) problems.push(`${user}: ${item.id} states volume ${volume}, the requests up to it add up to ${expected}`);
    }
  }
  return { orders, problems };
}

/** One serial order that contains every user's order, or `null` when they form a cycle. */
function serialOrder(items: readonly Item[], orders: ReadonlyMap<string, readonly Item[]>): Item[] | null {
  const after = new Map<Item, Item[]>(items.map((i) => [i, []]));
  const before = new Map<Item, number>(items.map((i) => [i, 0]));
  for (const list of orders.values()) {
    for (let i = 1; i < list.length; i++) {
      (after.get(list[i - 1] as Item) as Item[]).push(list[i] as Item);
      before.set(list[i] as Item, (before.get(list[i] as Item) as number) + 1);
    }
  }
  const ready = items.filter((i) => before.get(i) === 0);
  const out: Item[] = [];
  while (ready.length > 0) {
    const item = ready.shift() as Item;
    out.push(item);
    for (const next of after.get(item) as Item[]) {
      const left = (before.get(next) as number) - 1;
      before.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  return out.length === items.length ? out : null;
}

/** The alerts as stored: for each (instance, user), its transaction ids; alert and case ids left out. */
/**
 * Whether two answers are equal but for the ids of the alerts and cases their results name (the
 * reference engine draws its own): their `alerts` must name, entry by entry, the same instance,
 * user, side and action, and their ids must correspond one to one across every answer compared
 * with the same `ids` (an alert opened in one is the alert opened in the other, and later appended
 * to in both).
 */
function sameAnswer(
  reference: Record<string, unknown>,
  actual: Record<string, unknown>,
  ids: { readonly alerts: Map<string, string>; readonly cases: Map<string, string>; readonly used: Set<string> },
): boolean {
  const { alerts: referenceAlerts = [], ...referenceRest } = reference as { alerts?: Record<string, string>[] };
  const { alerts: actualAlerts = [], ...actualRest } = actual as { alerts?: Record<string, string>[] };
  if (!isDeepStrictEqual(referenceRest, actualRest) || referenceAlerts.length !== actualAlerts.length) return false;
  const corresponds = (map: Map<string, string>, from: string, to: string) => {
    const known = map.get(from);
    if (known !== undefined) return known === to;
    if (ids.used.has(to)) return false;
    map.set(from, to);
    ids.used.add(to);
    return true;
  };
  return referenceAlerts.every((r, i) => {
    const a = actualAlerts[i] as Record<string, string>;
    return (
      r.ruleInstanceId === a.ruleInstanceId &&
      r.userId === a.userId &&
      r.direction === a.direction &&
      r.action === a.action &&
      corresponds(ids.alerts, r.alertId as string, a.alertId as string) &&
      corresponds(ids.cases, r.caseId as string, a.caseId as string)
    );
  });
}

function alertsByInstanceAndUser(alerts: readonly Alert[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of alerts) {
    const key = `${a.ruleDetails.instanceId} ${a.userId}`;
    expect(out[key], `one alert per (instance, user): ${key}`).toBeUndefined();
    out[key] = [...(a.entityDetails.transactionIds ?? [])];
  }
  return out;
}

/** The cases as stored: for each user, the (instance, user) of its alerts in order. */
function casesByUser(cases: readonly Case[], alerts: readonly Alert[]): Record<string, string[]> {
  const alertKey = new Map(alerts.map((a) => [a.alertId, `${a.ruleDetails.instanceId} ${a.userId}`]));
  const out: Record<string, string[]> = {};
  for (const c of cases) {
    const user = (c.entityDetails as { userId: string }).userId;
    expect(out[user], `one case per user: ${user}`).toBeUndefined();
    out[user] = c.alertIds.map((id) => alertKey.get(id) ?? `unknown alert ${id}`);
  }
  return out;
}

interface EntryView {
  series: string;
  key: string;
  id: string;
  timestamp: number;
  amount: string | null;
  state?: string;
}

// ---------------------------------------------------------------------------------------------
// The run

interface Run {
  migrations: { version: number; applied: number[] }[];
  schemaVersion: number;
  results: Result[][];
  items: Item[];
  ids: Record<Role, string>;
  instances: RuleInstance[];
  alerts: Alert[];
  cases: Case[];
  storedTransactions: number;
  storedEvents: number;
  decisionLog: Txmon.DecisionLogReport;
  finals: Map<string, Txmon.TransactionWithRulesResult>;
  entries: EntryView[];
}

let run: Run;
let dropDatabase: (() => Promise<void>) | null = null;

async function importBuilt(): Promise<{ txmon: typeof Txmon; postgres: typeof TxmonPostgres }> {
  for (const entry of ['index.js', 'postgres.js']) {
    if (!existsSync(join(DIST, entry))) throw new Error(`dist/${entry} is missing: run \`npm run build\` first (npm test builds before running vitest)`);
  }
  const txmon = (await import(pathToFileURL(join(DIST, 'index.js')).href)) as typeof Txmon;
  const postgres = (await import(pathToFileURL(join(DIST, 'postgres.js')).href)) as typeof TxmonPostgres;
  return { txmon, postgres };
}

/** Every series entry stored, read through `repositories.aggregates.entries`, with its values' `state`. */
async function storedEntries(pool: pg.Pool, repositories: Txmon.Repositories): Promise<EntryView[]> {
  const keys = (await pool.query<{ series: string; key: string }>('SELECT DISTINCT series, key FROM txmon_series_entries ORDER BY series, key')).rows;
  const out: EntryView[] = [];
  for (const { series, key } of keys) {
    for (const e of await repositories.aggregates.listEntries(series, key)) {
      const view: EntryView = { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount === null ? null : e.amount.toString() };
      if (e.values?.state !== undefined) view.state = e.values.state;
      out.push(view);
    }
  }
  return out;
}

async function runProcesses(): Promise<Run> {
  const { txmon, postgres } = await importBuilt();
  const database = await createEmptyDatabase();
  dropDatabase = database.drop;
  const processes = Array.from({ length: PROCESSES }, () => startProcess(database.url));
  // Every process migrates the empty database at once.
  const migrations = (await Promise.all(processes.map((p) => p.next('ready')))).map((m) => m.migration);

  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => undefined);
  try {
    const repositories = postgres.createPostgresRepositories({ client: pool });
    const engine: Engine = txmon.createEngine({ repositories });
    const ids = {} as Record<Role, string>;
    for (const role of Object.keys(INSTANCES) as Role[]) ids[role] = (await engine.createRuleInstance(INSTANCES[role])).id;

    const lists = workloadOf(SEED);
    for (const [i, p] of processes.entries()) p.child.send({ type: 'work', ops: lists[i] });
    await Promise.all(processes.map((p) => p.next('armed')));
    for (const p of processes) p.child.send({ type: 'go' });
    const results = (await Promise.all(processes.map((p) => p.next('done')))).map((m) => m.results);

    const bodies = new Map<string, { create: CreateBody; event?: EventBody }>();
    for (const op of lists.flat()) bodies.set(op.create.transactionId, op.then ? { create: op.create, event: op.then } : { create: op.create });
    const items = new Map<string, Item>();
    results.forEach((list, by) => {
      for (const r of list) {
        if (!r.response || items.has(r.id)) continue;
        const transactionId = r.kind === 'create' ? r.id : r.id.replace(/-event$/, '');
        const known = bodies.get(transactionId) as { create: CreateBody; event?: EventBody };
        const body = r.kind === 'create' ? known.create : (known.event as EventBody);
        items.set(r.id, { kind: r.kind, id: r.id, body, create: known.create, response: r.response, by });
      }
    });

    const finals = new Map<string, Txmon.TransactionWithRulesResult>();
    for (const id of bodies.keys()) {
      // A create that failed everywhere left nothing: the test of the answers reports its error.
      const stored = await engine.getTransaction(id).catch(() => null);
      if (stored) finals.set(id, stored);
    }
    const count = async (table: string) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);
    return {
      migrations,
      schemaVersion: postgres.SCHEMA_VERSION,
      results,
      items: [...items.values()],
      ids,
      instances: await engine.listRuleInstances(),
      alerts: await engine.listAlerts(),
      cases: await engine.listCases(),
      storedTransactions: await count('txmon_transactions'),
      storedEvents: await count('txmon_events'),
      decisionLog: await engine.verifyDecisionLog(),
      finals,
      entries: await storedEntries(pool, repositories),
    };
  } finally {
    await pool.end();
  }
}

describe(`createEngine on createPostgresRepositories shared by ${PROCESSES} processes`, () => {
  const replay = `the workload's seed is ${SEED}: FC_SEED=${SEED} replays it`;
  beforeAll(async () => {
    run = await runProcesses().catch((error: unknown) => {
      throw new Error(`the processes did not finish (${replay})`, { cause: error });
    });
  }, 60_000);

  afterEach(({ task }) => {
    if (task.result?.state === 'fail') console.error(`${task.name}: ${replay}`);
  });

  afterAll(async () => {
    for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await dropDatabase?.();
  });

  it('every process migrates the empty database at once: one applies the schema, the others find it current', () => {
    expect(run.migrations.map((m) => m.version)).toEqual(Array(PROCESSES).fill(run.schemaVersion));
    const appliers = run.migrations.filter((m) => m.applied.length > 0);
    expect(appliers).toHaveLength(1);
    // Every step, once, in order (step numbers may have gaps while parts of a change land separately).
    const applied = appliers[0]?.applied ?? [];
    expect([applied[0], applied.at(-1)]).toEqual([1, run.schemaVersion]);
    expect(applied.every((v, i) => i === 0 || v > (applied[i - 1] as number))).toBe(true);
  });

  it('answers every request, and a transaction (and its event) sent to two processes at once is stored once with the same answer from both', () => {
    const errors = run.results.flat().filter((r) => r.error);
    expect(errors).toEqual([]);
    const answers = new Map<string, unknown[]>();
    for (const r of run.results.flat()) answers.set(r.id, [...(answers.get(r.id) ?? []), r.response]);
    const twice = [...answers].filter(([, list]) => list.length === 2);
    expect(twice.filter(([id]) => !id.endsWith('-event'))).toHaveLength(DUPLICATES);
    expect(twice.filter(([id]) => id.endsWith('-event'))).toHaveLength(DUPLICATES / 2);
    for (const [id, [first, second]] of twice) expect(second, id).toEqual(first);
    expect([...answers.values()].every((list) => list.length <= 2)).toBe(true);
    expect(run.storedTransactions).toBe(CREATES);
    expect(run.storedEvents).toBe(run.items.filter((i) => i.kind === 'event').length);
  });

  it("each user's transactions state the counts 1..n, and every request the count and volume of exactly the requests that ran before it", () => {
    const { orders, problems } = userOrders(run.items, run.ids);
    expect(problems.slice(0, 10), `${problems.length} problems`).toEqual([]);
    expect([...orders.keys()].sort()).toEqual(USERS);
    // The serializability law in its plainest form: no two transactions of a user saw the same count.
    for (const user of USERS) {
      const counts = run.items
        .filter((i) => i.kind === 'create' && (i.create.originUserId === user || i.create.destinationUserId === user))
        .map((i) => statedBy(i, run.ids, i.create.originUserId === user ? 'Sender' : 'Receiver').count)
        .sort((a, b) => a - b);
      expect(counts, user).toEqual(Array.from({ length: counts.length }, (_, i) => i + 1));
    }
  });

  it("the processes ran at once: each user's requests, in the order they ran, switch between processes more often than processes one after the other could", () => {
    const { orders } = userOrders(run.items, run.ids);
    for (const [user, list] of orders) {
      const switches = list.filter((item, i) => i > 0 && item.by !== (list[i - 1] as Item).by).length;
      expect(switches, user).toBeGreaterThan(PROCESSES);
    }
  });

  it("every instance's runCount and hitCount equal the evaluations and hits answered", () => {
    for (const instance of run.instances) {
      const executed = run.items.map((i) => i.response.executedRules.find((r) => r.ruleInstanceId === instance.id));
      expect({ id: instance.id, runCount: instance.runCount, hitCount: instance.hitCount }).toEqual({
        id: instance.id,
        runCount: executed.filter((r) => r !== undefined).length,
        hitCount: executed.filter((r) => r?.ruleHit === true).length,
      });
    }
    expect(run.instances.find((i) => i.id === run.ids.shadow)?.hitCount).toBeGreaterThan(0);
  });

  it('the decisions of all processes form one intact chain: one entry per stored transaction and event', () => {
    expect(run.decisionLog).toMatchObject({ ok: true, count: run.storedTransactions + run.storedEvents });
  });

  it('one alert per alerting instance and user lists the hit transactions in the order they ran; one case per user holds its alerts', () => {
    const { orders } = userOrders(run.items, run.ids);
    const expectedAlerts: Record<string, string[]> = {};
    const expectedCases: Record<string, string[]> = {};
    for (const [user, list] of orders) {
      for (const item of list) {
        const side = item.create.originUserId === user ? 'ORIGIN' : 'DESTINATION';
        for (const role of ALERTING) {
          const hit = item.response.hitRules.find((h) => h.ruleInstanceId === run.ids[role]);
          if (!hit?.ruleHitMeta?.hitDirections?.includes(side)) continue;
          const key = `${run.ids[role]} ${user}`;
          if (!expectedAlerts[key]) {
            expectedCases[user] ??= [];
            expectedCases[user].push(key);
          }
          expectedAlerts[key] ??= [];
          const listed = expectedAlerts[key];
          if (!listed.includes(item.create.transactionId)) listed.push(item.create.transactionId);
        }
      }
    }
    expect(alertsByInstanceAndUser(run.alerts)).toEqual(expectedAlerts);
    expect(casesByUser(run.cases, run.alerts)).toEqual(expectedCases);
    expect(run.cases.every((c) => c.caseStatus === 'OPEN')).toBe(true);
  });

  it('the stored aggregates equal a brute-force recomputation from the final transactions', () => {
    const expected: EntryView[] = [];
    for (const [id, t] of run.finals) {
      const state = t.transactionState ?? 'CREATED';
      const origin = t.originUserId as string;
      const destination = t.destinationUserId as string;
      const originAmount = amountOf(t.originAmountDetails?.transactionAmount as number).toString();
      const destinationAmount = amountOf(t.destinationAmountDetails?.transactionAmount as number).toString();
      // A store shared across processes keeps every user series, whatever the instances read.
      expected.push({ series: 'user-all', key: origin, id, timestamp: T, amount: originAmount, state });
      expected.push({ series: 'user-all', key: destination, id, timestamp: T, amount: destinationAmount, state });
      expected.push({ series: 'user-sending', key: origin, id, timestamp: T, amount: originAmount, state });
      expected.push({ series: 'user-receiving', key: destination, id, timestamp: T, amount: destinationAmount, state });
      expected.push({ series: 'user-pair', key: JSON.stringify([origin, destination]), id, timestamp: T, amount: originAmount, state });
    }
    const order = (a: EntryView, b: EntryView) => `${a.series} ${a.key} ${a.id}`.localeCompare(`${b.series} ${b.key} ${b.id}`);
    expect([...run.entries].sort(order)).toEqual(expected.sort(order));
  });

  it('one in-memory engine fed the same requests in the serial order the answers imply answers the same, with the same counters, alerts, cases and aggregates', async () => {
    const { txmon } = await importBuilt();
    const { orders } = userOrders(run.items, run.ids);
    const serial = serialOrder(run.items, orders);
    expect(serial, "the users' orders form a cycle: no serial order").not.toBeNull();
    const repositories = txmon.createMemoryRepositories();
    const instanceIds = (Object.keys(INSTANCES) as Role[]).map((role) => run.ids[role]);
    const reference = txmon.createEngine({
      repositories,
      ids: { next: (kind) => (kind === 'ruleInstance' ? (instanceIds.shift() as string) : `${kind}-${randomUUID()}`) },
    });
    for (const role of Object.keys(INSTANCES) as Role[]) await reference.createRuleInstance(INSTANCES[role]);
    const differences: string[] = [];
    const ids = { alerts: new Map<string, string>(), cases: new Map<string, string>(), used: new Set<string>() };
    for (const item of serial as Item[]) {
      const answer =
        item.kind === 'create' ? await reference.createTransaction(item.body as never) : await reference.createTransactionEvent(item.body as never);
      if (!sameAnswer(JSON.parse(JSON.stringify(answer)), item.response as unknown as Record<string, unknown>, ids))
        differences.push(`${item.id}: ${JSON.stringify(item.response)} vs ${JSON.stringify(answer)}`);
    }
    expect(differences.slice(0, 5), `${differences.length} answers differ`).toEqual([]);
    const counters = (list: readonly RuleInstance[]) => list.map((i) => ({ id: i.id, runCount: i.runCount, hitCount: i.hitCount }));
    expect(counters(await reference.listRuleInstances())).toEqual(counters(run.instances));
    const alerts = await reference.listAlerts();
    expect(alertsByInstanceAndUser(alerts)).toEqual(alertsByInstanceAndUser(run.alerts));
    expect(casesByUser(await reference.listCases(), alerts)).toEqual(casesByUser(run.cases, run.alerts));
    const inMemory: EntryView[] = [];
    for (const user of USERS) {
      for (const e of await repositories.aggregates.listEntries('user-all', user)) {
        inMemory.push({ series: 'user-all', key: user, id: e.id, timestamp: e.timestamp, amount: e.amount === null ? null : e.amount.toString() });
      }
    }
    // The in-memory engine keeps only the series its instances read (values are compared above).
    expect(run.entries.filter((e) => e.series === 'user-all').map(({ state: _state, ...e }) => e)).toEqual(inMemory);
  });
});
