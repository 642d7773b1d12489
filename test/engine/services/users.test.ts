import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, tx } from '../../helpers.js';
import type { UserView } from '../../../src/engine/types.js';

describe('createUser', () => {
  it('keeps the CRA a transaction gave the user', async () => {
    const factor = { id: 'c', parameter: 'originCountry' as const, weight: 1, mapping: [{ values: ['IR'], riskLevel: 'VERY_HIGH' as const }] };
    const { engine } = testEngine({ riskFactors: [factor] });
    await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'IR' } }));
    const r = await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY });
    expect(r.riskScoreDetails).toEqual({ craRiskScore: 90, craRiskLevel: 'VERY_HIGH' });
    expect((await engine.getUser('alice')).riskScoreDetails).toEqual({ craRiskScore: 90, craRiskLevel: 'VERY_HIGH' });
  });
});

describe('createUser on an existing userId', () => {
  const full = {
    userId: 'carol',
    createdTimestamp: T0 - DAY,
    userDetails: { name: { firstName: 'Carol', lastName: 'Smith' }, countryOfResidence: 'DE' },
    kycStatusDetails: { status: 'SUCCESSFUL' as const },
  };

  it('keeps the fields the new payload omits and replaces those it carries (documented merge)', async () => {
    const { engine } = testEngine();
    await engine.createUser(full);
    await engine.createUser({ userId: 'carol', createdTimestamp: T0 - DAY, tags: [{ key: 'segment', value: 'retail' }] });
    const stored = (await engine.getUser('carol')) as UserView & { userDetails?: unknown };
    expect(stored.userDetails).toEqual(full.userDetails);
    expect(stored.kycStatusDetails).toEqual({ status: 'SUCCESSFUL' });
    expect(stored.tags).toEqual([{ key: 'segment', value: 'retail' }]);
    await engine.createUser({ userId: 'carol', createdTimestamp: T0 - DAY, kycStatusDetails: { status: 'FAILED' } });
    expect((await engine.getUser('carol')).kycStatusDetails).toEqual({ status: 'FAILED' });
  });

  it('validateUserId refuses an existing user with 400 at /userId and leaves it unchanged', async () => {
    const { engine } = testEngine();
    await engine.createUser(full);
    const error = await errorOf(() => engine.createUser({ userId: 'carol', createdTimestamp: T0 }, { validateUserId: true }));
    expect(error.status).toBe(400);
    expect(error.details[0]).toMatchObject({ path: '/userId', code: 'duplicate' });
    expect(await engine.getUser('carol')).toMatchObject({ createdTimestamp: T0 - DAY, userDetails: full.userDetails });
  });

  it('validateUserId accepts a new user and a user only seen as a transaction party', async () => {
    const { engine } = testEngine();
    await engine.createTransaction(tx({ originUserId: 'dave' }));
    await expect(engine.createUser({ userId: 'dave', createdTimestamp: T0 }, { validateUserId: true })).resolves.toMatchObject({ userId: 'dave' });
    await expect(engine.createUser({ userId: 'erin', createdTimestamp: T0 }, { validateUserId: true })).resolves.toMatchObject({ userId: 'erin' });
  });

  it('created with the other type, the user is converted: its profile is replaced whole', async () => {
    const { engine } = testEngine();
    await engine.createUser(full);
    const business = { userId: 'carol', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'Carol Ltd' } } };
    await engine.createUser(business, { type: 'BUSINESS' });
    const stored = await engine.getUser('carol');
    expect(stored).toMatchObject({ type: 'BUSINESS', legalEntity: business.legalEntity });
    expect(stored).not.toHaveProperty('userDetails');
  });
});

describe('createUser lock flags', () => {
  it.each(['lockCraRiskLevel', 'lockKycRiskLevel'] as const)('%s: true is refused with a 400 naming it and nothing is stored; false is taken', async (flag) => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createUser({ userId: 'frank', createdTimestamp: T0 }, { [flag]: true }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain(flag);
    await expect(engine.getUser('frank')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(engine.createUser({ userId: 'frank', createdTimestamp: T0 }, { [flag]: false })).resolves.toMatchObject({ userId: 'frank' });
  });
});
