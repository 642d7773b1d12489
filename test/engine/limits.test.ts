/**
 * Engine limits: each one refuses the request that would pass it with LIMIT_EXCEEDED naming the
 * limit, accepts a request exactly at it, and leaves nothing half-written.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_LIMITS, createMemoryRepositories, measureJsonSize, type EngineLimits } from '../../src/internals.js';
import { buildContributions, buildOutcome, buildStoredTransaction, buildTransaction } from '../../src/testing/fixtures.js';
import { T0, errorOf, testEngine, tx, type RiskLevel, type TransactionInput } from '../helpers.js';

function limited(limits: Partial<EngineLimits>) {
  return testEngine({ limits }).engine;
}

/** A transaction whose size (as the limits count it) is exactly `size`, padded through `reference`. */
function transactionOfSize(size: number, overrides: Record<string, unknown> = {}): TransactionInput {
  const base = tx({ timestamp: T0, reference: '', ...overrides });
  return { ...base, reference: 'r'.repeat(size - measureJsonSize(base)) };
}

describe('limits', () => {
  it('have documented defaults', () => {
    expect(DEFAULT_ENGINE_LIMITS).toEqual({
      maxTransactionSize: 65_536,
      maxEventSize: 65_536,
      maxEventsPerTransaction: 1_000,
      maxRuleInstances: 500,
      maxCustomLogicInstances: 50,
      maxRuleInstanceSize: 262_144,
      maxParameterItems: 10_000,
      maxLogicWork: 50_000,
      maxLists: 1_000,
      maxListItems: 100_000,
      maxLockWaitMs: 10_000,
    });
  });

  it('refuses an unknown limit or one that is not a positive integer (a host error)', async () => {
    for (const limits of [{ maxNope: 1 }, { maxTransactionSize: 0 }, { maxRuleInstances: 1.5 }]) {
      expect(() => testEngine({ limits: limits as Partial<EngineLimits> })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    }
  });

  describe('maxTransactionSize', () => {
    it('accepts a transaction exactly at the limit and refuses one a character above, storing nothing', async () => {
      const engine = limited({ maxTransactionSize: 2_000 });
      const at = transactionOfSize(2_000);
      expect(measureJsonSize(at)).toBe(2_000);
      await engine.createTransaction(at);
      const above = transactionOfSize(2_001);
      const e = await errorOf(() => engine.createTransaction(above));
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.status).toBe(400);
      expect(e.message).toContain('maxTransactionSize (2000)');
      await expect(engine.getTransaction(above.transactionId as string)).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
    });

    it('refuses an event that would make the transaction larger than the limit, storing nothing', async () => {
      const engine = limited({ maxTransactionSize: 2_000, maxEventSize: 10_000 });
      const t = transactionOfSize(1_900);
      await engine.createTransaction(t);
      const e = await errorOf(() =>
        engine.createTransactionEvent({
          transactionId: t.transactionId,
          eventId: 'grow',
          timestamp: T0 + 1,
          transactionState: 'SUCCESSFUL',
          updatedTransactionAttributes: { reference: 'r'.repeat(4_000) },
        }),
      );
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.details).toEqual([expect.objectContaining({ path: '/updatedTransactionAttributes', code: 'limit' })]);
      await expect(engine.getTransactionEvent('grow')).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
      expect((await engine.getTransaction(t.transactionId as string)).transactionState).toBe('CREATED');
    });

    it('a schema problem is reported as such even in a transaction past the size limit', async () => {
      const engine = limited({ maxTransactionSize: 100 });
      const e = await errorOf(() => engine.createTransaction({ ...tx({ timestamp: T0 }), transactionId: 'x'.repeat(300) }));
      expect(e.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('maxEventSize and maxEventsPerTransaction', () => {
    it('refuses an event above maxEventSize', async () => {
      const engine = limited({ maxEventSize: 500 });
      const t = tx({ timestamp: T0 });
      await engine.createTransaction(t);
      const e = await errorOf(() =>
        engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'PROCESSING', reason: 'x'.repeat(600) }),
      );
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.message).toContain('maxEventSize (500)');
    });

    it('accepts events up to maxEventsPerTransaction and refuses the next one', async () => {
      const engine = limited({ maxEventsPerTransaction: 3 });
      const t = tx({ timestamp: T0 });
      await engine.createTransaction(t);
      for (let i = 1; i <= 3; i++)
        await engine.createTransactionEvent({ transactionId: t.transactionId, eventId: `e-${i}`, timestamp: T0 + i, transactionState: 'PROCESSING' });
      const e = await errorOf(() =>
        engine.createTransactionEvent({ transactionId: t.transactionId, eventId: 'e-4', timestamp: T0 + 4, transactionState: 'PROCESSING' }),
      );
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.details[0]).toMatchObject({ path: '/transactionId', code: 'limit' });
      // A replay of a stored event is still answered (it stores nothing new).
      expect(
        (await engine.createTransactionEvent({ transactionId: t.transactionId, eventId: 'e-3', timestamp: T0 + 3, transactionState: 'PROCESSING' })).eventId,
      ).toBe('e-3');
    });
  });

  describe('rule instances', () => {
    it('maxRuleInstances: refuses the instance past it; an update of a stored one still passes', async () => {
      const engine = limited({ maxRuleInstances: 2 });
      const a = await engine.createRuleInstance({ ruleId: 'R-1' });
      await engine.createRuleInstance({ ruleId: 'R-1' });
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-1' }));
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.message).toContain('maxRuleInstances (2)');
      expect(await engine.listRuleInstances()).toHaveLength(2);
      await engine.updateRuleInstance(a.id, { status: 'INACTIVE' });
    });

    it('maxCustomLogicInstances: refuses the custom instance past it, at /logic; library instances still pass', async () => {
      const engine = limited({ maxCustomLogicInstances: 1 });
      const logic = { '>': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 10] };
      await engine.createRuleInstance({ logic });
      const e = await errorOf(() => engine.createRuleInstance({ logic }));
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.details[0]).toMatchObject({ path: '/logic', code: 'limit' });
      await engine.createRuleInstance({ ruleId: 'R-2' });
    });

    it('maxParameterItems: refuses a parameter list past it, at its path (base and per risk level)', async () => {
      const engine = limited({ maxParameterItems: 3 });
      await engine.createRuleInstance({ ruleId: 'R-24', parameters: { keywords: ['a1', 'b2', 'c3'] } });
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-24', parameters: { keywords: ['a1', 'b2', 'c3', 'd4'] } }));
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.details[0]).toMatchObject({ path: '/parameters/keywords', code: 'limit' });
      const levels = Object.fromEntries(
        ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'].map((l) => [l, { keywords: l === 'HIGH' ? ['a1', 'b2', 'c3', 'd4'] : ['a1'] }]),
      ) as Record<RiskLevel, { keywords: string[] }>;
      const e2 = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-24', riskLevelParameters: levels }));
      expect(e2.details[0]).toMatchObject({ path: '/riskLevelParameters/HIGH/keywords', code: 'limit' });
    });

    it('maxRuleInstanceSize: refuses a request past it on create and on update', async () => {
      const engine = limited({ maxRuleInstanceSize: 400 });
      const small = await engine.createRuleInstance({ ruleId: 'R-1', ruleDescriptionAlias: 'd' });
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-1', ruleDescriptionAlias: 'd'.repeat(500) }));
      expect(e.code).toBe('LIMIT_EXCEEDED');
      const e2 = await errorOf(() => engine.updateRuleInstance(small.id, { ruleDescriptionAlias: 'd'.repeat(500) }));
      expect(e2.code).toBe('LIMIT_EXCEEDED');
      expect((await engine.getRuleInstance(small.id)).ruleDescriptionAlias).toBe('d');
    });

    it('maxLogicWork: a custom rule whose evaluation needs more work than the budget does not hit; within it, it does', async () => {
      // `in` over the reference reads all of it: about 4,000 units here.
      const logic = { in: ['needle', { var: 'transaction.reference' }] };
      const reference = `${'x'.repeat(4_000)}needle`;
      const tight = limited({ maxLogicWork: 1_000 });
      await tight.createRuleInstance({ logic });
      expect((await tight.createTransaction(tx({ timestamp: T0, reference }))).hitRules).toHaveLength(0);
      const roomy = limited({ maxLogicWork: 10_000 });
      await roomy.createRuleInstance({ logic });
      expect((await roomy.createTransaction(tx({ timestamp: T0, reference }))).hitRules).toHaveLength(1);
    });
  });

  describe('lists', () => {
    it('maxListItems counts distinct items; maxLists counts lists, and replacing a list is not a new one', async () => {
      const engine = limited({ maxListItems: 2, maxLists: 1 });
      await engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a', 'b', 'a'] });
      const e = await errorOf(() => engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a', 'b', 'c'] }));
      expect(e.details[0]).toMatchObject({ path: '/items', code: 'limit' });
      await engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['c'] });
      const e2 = await errorOf(() => engine.putList('l-2', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['c'] }));
      expect(e2.message).toContain('maxLists (1)');
      expect((await engine.getList('l-1')).items).toEqual(['c']);
    });
  });
});

describe('createMemoryRepositories maxStoredBytes', () => {
  it('refuses the write that would pass the budget, keeps everything stored before, and keeps serving reads and smaller writes', async () => {
    const repositories = createMemoryRepositories({ maxStoredBytes: 30_000 });
    const { engine } = testEngine({ repositories });
    const stored: string[] = [];
    let refused = null;
    for (let i = 0; i < 100 && refused === null; i++) {
      const t = transactionOfSize(3_000, { transactionId: `big-${i}` });
      try {
        await engine.createTransaction(t);
        stored.push(t.transactionId as string);
      } catch (e) {
        refused = e as { code: string; message: string };
      }
    }
    expect(refused).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(refused?.message).toContain('maxStoredBytes (30000)');
    expect(stored.length).toBeGreaterThan(2);
    for (const id of stored) expect((await engine.getTransaction(id)).transactionId).toBe(id);
    await expect(engine.getTransaction(`big-${stored.length}`)).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
    // A list that does not fit is refused too; a small one still fits.
    const items = Array.from({ length: 1_000 }, (_, i) => `item-${i}`);
    await expect(engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    await expect(engine.getList('l-1')).rejects.toMatchObject({ code: 'LIST_NOT_FOUND' });
    await engine.putList('l-1', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a'] });
  });

  it('refuses outcomes saved together that would pass the budget as a whole, storing none of them', async () => {
    const repositories = createMemoryRepositories({ maxStoredBytes: 20_000 });
    const outcomes = [0, 1, 2, 3, 4].map((i) => {
      // ~3 kB each: a long reference.
      const transaction = { ...buildTransaction(`t-${i}`, { origin: 'alice', destination: 'bob' }), reference: 'x'.repeat(3_000) };
      return buildOutcome(buildStoredTransaction(transaction), null, {
        aggregates: { remove: [], add: buildContributions(transaction) },
        seenUserIds: ['alice', 'bob'],
      });
    });
    await expect(repositories.transactions.saveOutcomes(outcomes)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(await repositories.transactions.getTransactions(outcomes.map((o) => o.transaction.transaction.transactionId))).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toEqual([]);
    expect(await repositories.users.getUsers(['alice'])).toEqual([null]);
    // Two of them fit.
    await repositories.transactions.saveOutcomes(outcomes.slice(0, 2));
    expect((await repositories.aggregates.listEntries('user-sending', 'alice')).map((e) => e.id)).toEqual(['t-0', 't-1']);
  });

  it('counts uploads chunk by chunk and refuses one that would pass the budget, storing nothing of it', async () => {
    const repositories = createMemoryRepositories({ maxStoredBytes: 10_000 });
    await repositories.files.putFile({ key: 'f', filename: 'a', fileSize: 20_000, createdAt: T0, expiresAt: T0 + 1, uploaded: false });
    async function* chunks() {
      for (let i = 0; i < 20; i++) yield new Uint8Array(1_000);
    }
    await expect(repositories.files.putFileContent('f', chunks(), 20_000)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(await repositories.files.getFileContent('f')).toBeNull();
    async function* small() {
      yield new Uint8Array(5_000);
    }
    expect((await repositories.files.putFileContent('f', small(), 20_000)).size).toBe(5_000);
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => createMemoryRepositories({ maxStoredBytes: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
  });
});
