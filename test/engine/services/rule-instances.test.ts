import { describe, expect, it } from 'vitest';
import { errorOf, T0, testEngine, tx } from '../../helpers.js';

describe('createRuleInstance: returned instances do not alias stored state', () => {
  it('a caller changing a returned instance or its nested defaults changes nothing stored', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance({ ruleId: 'R-30' });
    (created.parameters.timeWindow as { granularity: string }).granularity = 'year';
    created.parameters.transactionsLimit = 1;
    const stored = await engine.getRuleInstance(created.id);
    expect(stored.parameters).toMatchObject({ transactionsLimit: 100, timeWindow: { granularity: 'day' } });
    expect((await testEngine().engine.getRule('R-30')).defaultParameters).toMatchObject({ timeWindow: { granularity: 'day' } });
  });
});

describe('rule instance versions', () => {
  it('an update between two transactions: each result names its own version, and getRuleInstanceVersions returns both configurations, newest first', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 50 } } });
    expect(created.version).toBe(1);
    const first = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' } }));
    const updated = await engine.updateRuleInstance(created.id, { parameters: { transactionAmountThreshold: { EUR: 500 } } });
    expect(updated.version).toBe(2);
    const second = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' } }));
    expect(first.executedRules.map((r) => [r.ruleInstanceId, r.ruleInstanceVersion, r.ruleHit])).toEqual([[created.id, 1, true]]);
    expect(first.hitRules.map((r) => r.ruleInstanceVersion)).toEqual([1]);
    expect(second.executedRules.map((r) => [r.ruleInstanceId, r.ruleInstanceVersion, r.ruleHit])).toEqual([[created.id, 2, false]]);
    // The stored results keep the version that produced them.
    expect((await engine.getTransaction(first.transactionId)).executedRules[0]?.ruleInstanceVersion).toBe(1);
    expect((await engine.getTransaction(second.transactionId)).executedRules[0]?.ruleInstanceVersion).toBe(2);
    const versions = await engine.getRuleInstanceVersions(created.id);
    expect(versions.map((v) => [v.version, v.parameters])).toEqual([
      [2, { transactionAmountThreshold: { EUR: 500 } }],
      [1, { transactionAmountThreshold: { EUR: 50 } }],
    ]);
    expect(versions[0]).not.toHaveProperty('runCount');
  });

  it('a status change is a new version; a deleted instance keeps its versions; an id never stored is RULE_INSTANCE_NOT_FOUND', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance({ ruleId: 'R-1' });
    expect((await engine.updateRuleInstance(created.id, { status: 'INACTIVE' })).version).toBe(2);
    await engine.deleteRuleInstance(created.id);
    expect((await engine.getRuleInstanceVersions(created.id)).map((v) => [v.version, v.status])).toEqual([
      [2, 'INACTIVE'],
      [1, 'ACTIVE'],
    ]);
    expect((await errorOf(() => engine.getRuleInstanceVersions('ri-never'))).code).toBe('RULE_INSTANCE_NOT_FOUND');
  });

  it('version is read-only in a request', async () => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-1', version: 3 } as never));
    expect(error.code).toBe('READ_ONLY_FIELD');
    expect(error.details.map((d) => d.path)).toEqual(['/version']);
  });

  it('user rule results name the version too', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance({ ruleId: 'R-20', parameters: { highRiskCountries: ['IR'] } });
    await engine.updateRuleInstance(created.id, { ruleNameAlias: 'Onboarded from a listed country' });
    const result = await engine.createUser({ userId: 'u-1', createdTimestamp: T0, userDetails: { countryOfResidence: 'IR' } });
    expect(result.executedRules.map((r) => r.ruleInstanceVersion)).toEqual([2]);
    expect(result.hitRules.map((r) => r.ruleInstanceVersion)).toEqual([2]);
  });
});

describe('ensureRuleInstance', () => {
  const wanted = { ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: 10_000 } } } as const;

  it('creates the instance with the given id, then writes nothing while the input stays the same', async () => {
    const { engine } = testEngine();
    const first = await engine.ensureRuleInstance('big-transfers', wanted, { actor: 'config' });
    expect(first.change).toBe('CREATED');
    expect(first.instance).toMatchObject({ id: 'big-transfers', ruleId: 'R-2', action: 'SUSPEND', version: 1 });
    const again = await engine.ensureRuleInstance('big-transfers', wanted, { actor: 'config' });
    expect(again.change).toBe('UNCHANGED');
    expect(again.instance.version).toBe(1);
    expect(await engine.getRuleInstanceVersions('big-transfers')).toHaveLength(1);
    const audit = await engine.listAuditLog({ entityId: 'big-transfers' });
    expect(audit.items.map((e) => [e.action, e.actor])).toEqual([['CREATE', 'config']]);
  });

  it('a changed parameter makes one new version, audited as an update; the counters and creation date are kept', async () => {
    const { engine, clock } = testEngine();
    const first = await engine.ensureRuleInstance('big-transfers', wanted, { actor: 'config' });
    await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 20_000, transactionCurrency: 'EUR' } }));
    clock.advance(1000);
    const changed = await engine.ensureRuleInstance(
      'big-transfers',
      { ...wanted, parameters: { transactionAmountThreshold: { EUR: 5_000 } } },
      { actor: 'config' },
    );
    expect(changed.change).toBe('UPDATED');
    expect(changed.instance).toMatchObject({ version: 2, runCount: 1, hitCount: 1, createdAt: first.instance.createdAt });
    expect(changed.instance.updatedAt).toBeGreaterThan(first.instance.updatedAt);
    const audit = await engine.listAuditLog({ entityId: 'big-transfers' });
    expect(audit.items.map((e) => [e.action, e.actor])).toEqual([
      ['CREATE', 'config'],
      ['UPDATE', 'config'],
    ]);
  });

  it('a field set through the API but absent from the input goes back to what a creation gives (the input is the whole instance)', async () => {
    const { engine } = testEngine();
    await engine.ensureRuleInstance('big-transfers', wanted);
    await engine.updateRuleInstance('big-transfers', { mode: 'SHADOW' });
    const ensured = await engine.ensureRuleInstance('big-transfers', wanted);
    expect(ensured.change).toBe('UPDATED');
    expect(ensured.instance).toMatchObject({ mode: 'LIVE', version: 3 });
  });

  it('an instance deleted and ensured again continues its versions', async () => {
    const { engine } = testEngine();
    await engine.ensureRuleInstance('big-transfers', wanted);
    await engine.deleteRuleInstance('big-transfers');
    const again = await engine.ensureRuleInstance('big-transfers', wanted);
    expect(again).toMatchObject({ change: 'CREATED', instance: { version: 2 } });
    expect((await engine.getRuleInstanceVersions('big-transfers')).map((v) => v.version)).toEqual([2, 1]);
  });

  it('bad parameters are refused as a creation refuses them, naming the path, and nothing is stored', async () => {
    const { engine } = testEngine();
    const error = await errorOf(() =>
      engine.ensureRuleInstance('big-transfers', { ruleId: 'R-2', parameters: { transactionAmountThreshold: 'lots' } } as never),
    );
    expect(error.code).toBe('INVALID_PARAMETERS');
    expect(error.details[0]?.path).toBe('/parameters/transactionAmountThreshold');
    expect(await engine.listRuleInstances()).toEqual([]);
  });
});
