/**
 * Batches on PGlite and PostgreSQL: the batch path (chunks of transactions, each one unit of the store) stores
 * exactly what the same transactions store sent one by one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, presets, type Alert, type Case, type EngineOptions, type TransactionWithRulesResult } from '../../src/index.js';
import { createPostgresRepositories } from '../../src/postgres/index.js';
import { ADAPTER_TARGETS, type AdapterDatabase } from '../adapters.js';
import { RISK, RISK_LEVEL_VELOCITY, engineWith, stateOf, workloadHistory, workloadTransactions } from '../engine/services/batch-exactness.js';
import { postgresDatabase, type TestDatabase } from './fixtures.js';

const BATCH_PROCESS = join(import.meta.dirname, 'batch-process.mjs');
/** Transactions per unit of the store in a batch (BATCH_CHUNK_RECORDS). */
const CHUNK = 250;

describe('createTransactionBatch on PostgreSQL', () => {
  let single: TestDatabase;
  let batched: TestDatabase;
  beforeAll(async () => {
    single = await postgresDatabase();
    batched = await postgresDatabase();
  });
  afterAll(async () => {
    await single?.close();
    await batched?.close();
  });

  it('the workload sent as one batch stores exactly what it stores sent one by one: results, series entries, counters, alerts, cases, users', async () => {
    const { transactions, instances } = await workloadTransactions(600);
    const one = await engineWith(await single.fresh(), instances);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const many = await engineWith(await batched.fresh(), instances);
    const response = await many.createTransactionBatch({ batchId: 'exact', data: structuredClone(transactions) });
    expect(response).toMatchObject({ status: 'SUCCESS', successful: transactions.length });
    const expected = await stateOf(one, transactions);
    expect((expected as { alerts: unknown[] }).alerts.length).toBeGreaterThan(0);
    expect(await stateOf(many, transactions)).toEqual(expected);
    expect(await many.createTransactionBatch({ batchId: 'exact', data: structuredClone(transactions) })).toEqual(response);
    expect((await many.getTransactionBatch('exact', { pageSize: 1000 })).transactions.map((t) => t.transactionId)).toEqual(
      transactions.map((t) => t.transactionId),
    );
  }, 120_000);

  it('a batch that finds a user of a later chunk held by another writer waits for it, forgets what it read, and still stores exactly what the transactions store sent one by one', async () => {
    const { transactions, instances } = await workloadTransactions(1_000, 2_000);
    const ordered = [...transactions].sort((a, b) => (a.timestamp as number) - (b.timestamp as number));
    // A user first seen after the first chunk: the batch holds no key of it before it gets there.
    const earlier = new Set(ordered.slice(0, CHUNK).flatMap((t) => [t.originUserId, t.destinationUserId]));
    const late = ordered
      .slice(CHUNK)
      .flatMap((t) => [t.originUserId, t.destinationUserId])
      .find((id) => id !== undefined && !earlier.has(id));
    expect(late).toBeDefined();
    const one = await engineWith(await single.fresh(), instances);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const many = await engineWith(await batched.fresh(), instances);
    // The other writer holds the user's key as a unit of another process does, until the batch waits for it.
    const holder = await (batched.client as pg.Pool).connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`u:${late}`]);
      const batch = many.createTransactionBatch({ data: structuredClone(transactions) });
      for (let waited = 0; ; waited += 20) {
        const rows = await holder.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        if ((rows.rows[0] as { n: number }).n > 0) break;
        if (waited > 60_000) throw new Error('the batch never waited for the held user');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await holder.query('COMMIT');
      expect(await batch).toMatchObject({ status: 'SUCCESS', successful: transactions.length });
    } finally {
      holder.release();
    }
    expect(await stateOf(many, transactions)).toEqual(await stateOf(one, transactions));
  }, 120_000);
});

describe.each(ADAPTER_TARGETS.filter((t) => t.name !== 'memory'))(
  'createTransactionBatch on $name under rule sets that make a chunk ask the store again',
  (target) => {
    let database: AdapterDatabase;
    beforeAll(async () => {
      database = await target.open();
    });
    afterAll(async () => {
      await database?.close();
    });

    it.each([
      ['the AML baseline (last entries, distinct counterparties, graph paths, dormancy)', () => presets.amlBaseline(), {}],
      ['risk-level parameters while the chunk moves the risk levels', (instances: readonly object[]) => [...instances, RISK_LEVEL_VELOCITY], RISK],
    ])(
      'stores what the same transactions store sent one by one, under %s',
      async (_name, ruleSet, options: EngineOptions) => {
        const { transactions, instances } = await workloadTransactions(400, 40);
        const rules = ruleSet(instances);
        const one = await engineWith(await database.fresh(), rules, options);
        for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
        const expected = await stateOf(one, transactions);
        const many = await engineWith(await database.fresh(), rules, options);
        expect(await many.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ successful: transactions.length });
        expect(await stateOf(many, transactions)).toEqual(expected);
      },
      120_000,
    );
  },
);

describe.each(ADAPTER_TARGETS)('createTransactionEventBatch on $name', (target) => {
  let database: AdapterDatabase;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('the events sent as batches store exactly what they store sent one by one: results, series entries, counters, alerts, cases, users', async () => {
    const { transactions, events } = await workloadHistory(900);
    const { instances } = await workloadTransactions(1);
    expect(events.length).toBeGreaterThan(100);
    const one = await engineWith(await database.fresh(), instances, RISK);
    const many = await engineWith(await database.fresh(), instances, RISK);
    for (const engine of [one, many]) await engine.createTransactionBatch({ data: structuredClone(transactions) });
    // Events in timestamp order, as a batch applies them (ties in batch order).
    const ordered = [...events].sort((a, b) => (a.timestamp as number) - (b.timestamp as number));
    for (const e of ordered) await one.createTransactionEvent(structuredClone(e) as never).catch(() => undefined);
    const response = await many.createTransactionEventBatch({ data: structuredClone(ordered) });
    expect(response.successful).toBeGreaterThan(100);
    expect(await stateOf(many, transactions)).toEqual(await stateOf(one, transactions));
  }, 120_000);
});

describe('createTransactionBatch killed mid-batch (PostgreSQL)', () => {
  let killed: TestDatabase;
  let reference: TestDatabase;
  let child: ChildProcess | null = null;
  const dir = mkdtempSync(join(tmpdir(), 'txmon-batch-'));
  beforeAll(async () => {
    killed = await postgresDatabase();
    reference = await postgresDatabase();
  });
  afterAll(async () => {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await killed?.close();
    await reference?.close();
  });

  it('leaves every record of the batch wholly stored or absent (whole chunks), and the same batch sent again completes it as one uninterrupted run', async () => {
    // Enough chunks that the process is still inside the batch when the first one is seen stored.
    const { transactions, instances } = await workloadTransactions(4000);
    const body = { batchId: 'killed', data: transactions };
    const file = join(dir, 'batch.json');
    writeFileSync(file, JSON.stringify(body));
    const repositories = await killed.fresh();
    // The instances are created as the process's engine would number them (the first ids of a fresh engine).
    await engineWith(repositories, instances);
    const url = new URL((killed.client as pg.Pool).options.connectionString as string).toString();
    child = spawn(process.execPath, [BATCH_PROCESS, url, file], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<void>((resolve) => child?.on('exit', () => resolve()));
    const storedCount = async () => Number(((await killed.client.query('SELECT count(*) AS n FROM txmon_transactions')).rows[0] as { n: string }).n);
    // Killed as soon as the first chunk is in: the process is then inside a later chunk.
    for (let waited = 0; (await storedCount()) === 0; waited++) {
      if (child.exitCode !== null || waited > 3000) throw new Error(`the batch process ended or hung before its first chunk: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGKILL');
    await exited;
    const afterKill = await storedCount();
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(transactions.length);
    expect(afterKill % CHUNK).toBe(0);
    expect((await killed.client.query('SELECT 1 FROM txmon_batches')).rows).toEqual([]);

    const again = createEngine({ repositories: createPostgresRepositories({ client: killed.client }), urlSigningSecret: new Uint8Array(32).fill(7) });
    const response = await again.createTransactionBatch(structuredClone(body));
    expect(response).toMatchObject({ status: 'SUCCESS', successful: transactions.length, failed: 0 });

    const whole = await engineWith(await reference.fresh(), instances);
    await whole.createTransactionBatch(structuredClone(body));
    // Ids and instants come from each engine's own generator and clock: compared by content.
    const strip = (state: unknown) => {
      const s = state as { results: TransactionWithRulesResult[]; alerts: Alert[]; cases: Case[]; users: (Record<string, unknown> | null)[] };
      const sorted = <T>(items: T[]) => items.map((x) => JSON.stringify(x)).sort();
      return {
        ...s,
        // The alerts a result names, less their ids.
        results: s.results.map((r) => (r.alerts === undefined ? r : { ...r, alerts: r.alerts.map(({ alertId: _a, caseId: _c, ...named }) => named) })),
        alerts: sorted(s.alerts.map((a) => [a.ruleDetails.instanceId, a.entityDetails, a.priority, a.alertStatus])),
        cases: sorted(s.cases.map((c) => [c.entityDetails, c.alertIds.length, c.priority, c.caseStatus])),
        users: s.users.map((u) => (u === null ? null : { ...u, updatedAt: 0, firstSeenAt: 0 })),
      };
    };
    expect(strip(await stateOf(again, transactions))).toEqual(strip(await stateOf(whole, transactions)));
  }, 120_000);
});
