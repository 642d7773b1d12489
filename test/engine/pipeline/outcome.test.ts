/** The user updates a hit's `triggersOnHit` asks for (src/engine/pipeline/outcome.ts), as the engine applies them. */
import { describe, expect, it } from 'vitest';
import { DAY, T0, testEngine, tx, type RiskLevel } from '../../helpers.js';
import type { TriggersOnHit } from '../../../src/domain/index.js';

const LEVELS = ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const;

async function withUsers(options: Parameters<typeof testEngine>[0] = {}) {
  const { engine } = testEngine(options);
  await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, userStateDetails: { state: 'ACTIVE' }, kycStatusDetails: { status: 'SUCCESSFUL' } });
  await engine.createUser({ userId: 'bob', createdTimestamp: T0 - DAY, userStateDetails: { state: 'ACTIVE' } });
  return engine;
}

const stateOf = async (engine: Awaited<ReturnType<typeof withUsers>>, id: string) => {
  const u = (await engine.getUser(id)) as unknown as { userStateDetails?: { state: string; reason?: string }; kycStatusDetails?: { status: string } };
  return [u.userStateDetails?.state, u.kycStatusDetails?.status];
};

describe('ruleOutcomeWrites: triggersOnHit updates, through the engine', () => {
  const rows = [
    { name: 'ORIGIN changes only the sender', usersToCheck: 'ORIGIN', alice: 'SUSPENDED', bob: 'ACTIVE' },
    { name: 'DESTINATION changes only the receiver', usersToCheck: 'DESTINATION', alice: 'ACTIVE', bob: 'SUSPENDED' },
    { name: 'ALL changes both hit sides', usersToCheck: 'ALL', alice: 'SUSPENDED', bob: 'SUSPENDED' },
  ] as const;
  for (const row of rows) {
    it(`${row.name}`, async () => {
      const engine = await withUsers();
      // R-2 hits both sides.
      await engine.createRuleInstance({
        ruleId: 'R-2',
        parameters: { transactionAmountThreshold: { EUR: 10 } },
        triggersOnHit: { usersToCheck: row.usersToCheck, userStateDetails: { state: 'SUSPENDED', reason: 'Large transfer' } },
      });
      await engine.createTransaction(tx());
      expect((await stateOf(engine, 'alice'))[0]).toBe(row.alice);
      expect((await stateOf(engine, 'bob'))[0]).toBe(row.bob);
    });
  }

  it('applies only to the sides that hit (R-14 origin hit leaves the receiver alone under ALL)', async () => {
    const engine = await withUsers();
    await engine.createRuleInstance({
      ruleId: 'R-14',
      parameters: { highRiskCountries: ['DE'] },
      triggersOnHit: { usersToCheck: 'ALL', kycStatusDetails: { status: 'MANUAL_REVIEW', reason: 'High-risk country' } },
    });
    await engine.createTransaction(tx());
    expect(await stateOf(engine, 'alice')).toEqual(['ACTIVE', 'MANUAL_REVIEW']);
    expect((await stateOf(engine, 'bob'))[1]).toBeUndefined();
  });

  it('does nothing when the rule does not hit, and never for a shadow instance', async () => {
    const engine = await withUsers();
    await engine.createRuleInstance({
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 1_000_000 } },
      triggersOnHit: { userStateDetails: { state: 'BLOCKED', reason: 'x' } },
    });
    await engine.createRuleInstance({
      ruleId: 'R-2',
      mode: 'SHADOW',
      parameters: { transactionAmountThreshold: { EUR: 1 } },
      triggersOnHit: { userStateDetails: { state: 'BLOCKED', reason: 'x' } },
    });
    await engine.createTransaction(tx());
    expect((await stateOf(engine, 'alice'))[0]).toBe('ACTIVE');
  });

  it('riskLevelsTriggersOnHit picks the trigger of the sender risk level', async () => {
    const engine = await withUsers();
    await engine.createUser({ userId: 'carol', createdTimestamp: T0 - DAY, riskLevel: 'LOW', userStateDetails: { state: 'ACTIVE' } });
    await engine.createRuleInstance({
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 10 } },
      riskLevelsTriggersOnHit: Object.fromEntries(
        LEVELS.map((l) => [l, l === 'LOW' ? {} : { usersToCheck: 'ORIGIN', userStateDetails: { state: 'BLOCKED', reason: 'High risk sender' } }]),
      ) as Record<RiskLevel, TriggersOnHit>,
    });
    await engine.createTransaction(tx({ originUserId: 'carol' }));
    await engine.createTransaction(tx());
    // carol is LOW (no trigger); alice has no level → default VERY_HIGH → BLOCKED.
    expect((await stateOf(engine, 'carol'))[0]).toBe('ACTIVE');
    expect((await stateOf(engine, 'alice'))[0]).toBe('BLOCKED');
  });
});
