import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, tx } from '../../helpers.js';

const address = (city: string) => ({ addressLines: [`${city} 1`], city, country: 'DE', postcode: '10115' });
const consumer = (userId: string, residence = 'DE', addresses = [address('Berlin')]) => ({
  userId,
  createdTimestamp: T0 - DAY,
  userDetails: { name: { firstName: 'Alice' }, countryOfResidence: residence, countryOfNationality: 'DE' },
  contactDetails: { addresses },
});

describe('user rules on createUser', () => {
  it('a consumer residing in KP hits R-20 (default parameters): results in the SDK shape, counters up, an alert and a case opened', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({ ruleId: 'R-20', action: 'FLAG' });
    expect(instance).toMatchObject({
      ruleId: 'R-20',
      type: 'USER',
      parameters: { highRiskCountries: ['RU', 'SY', 'AF', 'KP', 'SO', 'VE'] },
      alertCreationOnHit: true,
    });
    const result = await engine.createUser(consumer('kp-user', 'KP'));
    expect(result.executedRules).toEqual([
      expect.objectContaining({
        ruleInstanceId: instance.id,
        ruleId: 'R-20',
        ruleName: 'User onboarded from high risk country',
        ruleAction: 'FLAG',
        ruleHit: true,
      }),
    ]);
    expect(result.hitRules).toEqual([
      expect.objectContaining({
        ruleInstanceId: instance.id,
        ruleId: 'R-20',
        ruleAction: 'FLAG',
        ruleHitMeta: {
          hitDirections: ['ORIGIN'],
          evidence: [
            {
              direction: 'ORIGIN',
              kind: 'country',
              field: 'residence',
              path: '/userDetails/countryOfResidence',
              value: 'KP',
              comparison: 'in',
              limit: '/parameters/highRiskCountries',
            },
          ],
        },
      }),
    ]);
    expect(result.hitRules[0]?.ruleDescription).toBe('User kp-user: country of residence KP is a high-risk country.');
    expect(await engine.getRuleInstance(instance.id)).toMatchObject({ runCount: 1, hitCount: 1 });
    const read = await engine.getUser('kp-user');
    expect([read.executedRules, read.hitRules]).toEqual([result.executedRules, result.hitRules]);
    const alerts = await engine.repositories.cases.listAlerts();
    expect(alerts).toEqual([
      expect.objectContaining({
        userId: 'kp-user',
        direction: 'ORIGIN',
        entityDetails: { type: 'USER', transactionIds: [] },
        ruleDetails: expect.objectContaining({ id: 'R-20', instanceId: instance.id, action: 'FLAG' }),
      }),
    ]);
    const cases = await engine.repositories.cases.listCases();
    expect(cases).toEqual([expect.objectContaining({ entityDetails: { type: 'USER', userId: 'kp-user' }, alertIds: [alerts[0]?.alertId] })]);
  });

  it('a consumer from Germany runs R-20 without a hit: counted as a run, no alert', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({ ruleId: 'R-20' });
    const result = await engine.createUser(consumer('de-user'));
    expect(result.executedRules).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, ruleHit: false })]);
    expect(result.hitRules).toEqual([]);
    expect(await engine.getRuleInstance(instance.id)).toMatchObject({ runCount: 1, hitCount: 0 });
    expect(await engine.repositories.cases.listAlerts()).toEqual([]);
  });

  it('alertCreationOnHit false and shadow mode hit without opening an alert', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-20', alertCreationOnHit: false });
    await engine.createRuleInstance({ ruleId: 'R-20', mode: 'SHADOW' });
    const result = await engine.createUser(consumer('kp-quiet', 'KP'));
    expect(result.hitRules.map((r) => r.isShadow)).toEqual([false, true]);
    expect(await engine.repositories.cases.listAlerts()).toEqual([]);
  });

  it('a second hit of the same instance on the same user lands in its open alert', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-20' });
    await engine.createUser(consumer('kp-twice', 'KP'));
    await engine.createUser(consumer('kp-twice', 'KP'));
    const alerts = await engine.repositories.cases.listAlerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.entityDetails.transactionIds).toEqual([]);
  });

  it('a business registered in a listed country hits R-20 with custom parameters; riskLevelActions pick the action', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({
      ruleId: 'R-20',
      parameters: { highRiskCountries: ['IR'] },
      riskLevelActions: { VERY_LOW: 'FLAG', LOW: 'FLAG', MEDIUM: 'FLAG', HIGH: 'SUSPEND', VERY_HIGH: 'BLOCK' },
    });
    const result = await engine.createUser(
      {
        userId: 'acme-ir',
        createdTimestamp: T0 - DAY,
        riskLevel: 'HIGH',
        legalEntity: { companyGeneralDetails: { legalName: 'Acme' }, companyRegistrationDetails: { registrationCountry: 'IR' } },
      },
      { type: 'BUSINESS' },
    );
    expect(result.hitRules).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, ruleAction: 'SUSPEND' })]);
    expect(result.hitRules[0]?.ruleDescription).toBe('User acme-ir: country of registration IR is a high-risk country.');
  });

  it('user filters select the users an instance runs on: a filtered-out user is not counted', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({ ruleId: 'R-20', filters: { userType: 'BUSINESS' } });
    const result = await engine.createUser(consumer('kp-consumer', 'KP'));
    expect(result.executedRules).toEqual([]);
    expect(await engine.getRuleInstance(instance.id)).toMatchObject({ runCount: 0, hitCount: 0 });
  });

  it('first creation never hits R-61; re-creating the user with another address does; with the same addresses reordered it does not', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({ ruleId: 'R-61' });
    const first = await engine.createUser(consumer('mover', 'DE', [address('Berlin'), address('Köln')]));
    expect(first.executedRules).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, ruleId: 'R-61', ruleHit: false })]);
    const reordered = await engine.createUser(consumer('mover', 'DE', [address('Köln'), address('Berlin')]));
    expect(reordered.hitRules).toEqual([]);
    const moved = await engine.createUser(consumer('mover', 'DE', [address('Hamburg')]));
    expect(moved.hitRules).toEqual([expect.objectContaining({ ruleId: 'R-61', ruleDescription: 'User mover changed address.' })]);
    expect(await engine.getRuleInstance(instance.id)).toMatchObject({ runCount: 3, hitCount: 1 });
  });

  it('a user first seen in a transaction and then created does not hit R-61 (no earlier profile)', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-61' });
    await engine.createTransaction(tx({ originUserId: 'seen-first' }));
    const created = await engine.createUser(consumer('seen-first'));
    expect(created.hitRules).toEqual([]);
  });
});

describe('user rules on user events', () => {
  it('an address change event hits R-61; the stored event keeps the results; a replay answers the same without counting again', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({ ruleId: 'R-61', alertCreationOnHit: true });
    await engine.createUser(consumer('eve'));
    const event = {
      userId: 'eve',
      eventId: 'eve-moved',
      timestamp: T0,
      updatedConsumerUserAttributes: { contactDetails: { addresses: [address('München')] } },
    };
    const result = await engine.createConsumerUserEvent(event);
    expect(result.hitRules).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, ruleId: 'R-61', ruleAction: 'FLAG' })]);
    expect(result.executedRules).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, ruleHit: true })]);
    const stored = await engine.getConsumerUserEvent('eve-moved');
    expect((await engine.getUser('eve')).hitRules).toEqual(result.hitRules);
    expect(stored.executedRules).toEqual(result.executedRules);
    expect(stored.hitRules).toEqual(result.hitRules);
    expect(await engine.createConsumerUserEvent(event)).toEqual(result);
    expect(await engine.getRuleInstance(instance.id)).toMatchObject({ runCount: 2, hitCount: 1 });
    expect(await engine.repositories.cases.listAlerts()).toEqual([
      expect.objectContaining({ userId: 'eve', ruleDetails: expect.objectContaining({ id: 'R-61' }) }),
    ]);
  });

  it('an event that leaves the addresses as they were does not hit R-61', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-61' });
    await engine.createUser(consumer('still'));
    const result = await engine.createConsumerUserEvent({
      userId: 'still',
      timestamp: T0,
      updatedConsumerUserAttributes: { userStateDetails: { state: 'ACTIVE' } },
    });
    expect(result.executedRules).toEqual([expect.objectContaining({ ruleId: 'R-61', ruleHit: false })]);
  });

  it('a business event changing legalEntity.contactDetails.addresses hits R-61; one moving the registration to KP hits R-20', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-61' });
    await engine.createRuleInstance({ ruleId: 'R-20' });
    await engine.createUser({ userId: 'biz', createdTimestamp: T0 - DAY, legalEntity: { companyGeneralDetails: { legalName: 'Biz' } } }, { type: 'BUSINESS' });
    const moved = await engine.createBusinessUserEvent({
      userId: 'biz',
      timestamp: T0,
      updatedBusinessUserAttributes: { legalEntity: { contactDetails: { addresses: [address('Bonn')] } } },
    });
    expect(moved.hitRules.map((r) => r.ruleId)).toEqual(['R-61']);
    const registered = await engine.createBusinessUserEvent({
      userId: 'biz',
      timestamp: T0 + 1,
      updatedBusinessUserAttributes: { legalEntity: { companyRegistrationDetails: { registrationCountry: 'KP' } } },
    });
    expect(registered.hitRules.map((r) => r.ruleId)).toEqual(['R-20']);
  });

  it('a user event never runs a transaction rule, and a transaction never runs a user rule', async () => {
    const { engine } = testEngine();
    const txInstance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 } } });
    const userInstance = await engine.createRuleInstance({ ruleId: 'R-20' });
    const user = await engine.createUser(consumer('both', 'KP'));
    expect(user.executedRules.map((r) => r.ruleInstanceId)).toEqual([userInstance.id]);
    const transaction = await engine.createTransaction(tx({ originUserId: 'both' }));
    expect(transaction.executedRules.map((r) => r.ruleInstanceId)).toEqual([txInstance.id]);
    expect(await engine.getRuleInstance(userInstance.id)).toMatchObject({ runCount: 1 });
  });
});

describe('user rules on batches', () => {
  it('a user batch and a user-event batch run the user rules per record, as the single calls do', async () => {
    const { engine } = testEngine();
    const r20 = await engine.createRuleInstance({ ruleId: 'R-20' });
    const r61 = await engine.createRuleInstance({ ruleId: 'R-61' });
    await engine.createUserBatch({ batchId: 'b-users', data: [consumer('b-kp', 'KP'), consumer('b-de')] });
    await engine.createUserEventBatch({
      batchId: 'b-events',
      data: [{ userId: 'b-de', eventId: 'b-de-moved', timestamp: T0, updatedConsumerUserAttributes: { contactDetails: { addresses: [address('Hamburg')] } } }],
    });
    expect(await engine.getRuleInstance(r20.id)).toMatchObject({ runCount: 3, hitCount: 1 });
    expect(await engine.getRuleInstance(r61.id)).toMatchObject({ runCount: 3, hitCount: 1 });
    expect((await engine.getConsumerUserEvent('b-de-moved')).hitRules.map((r) => r.ruleId)).toEqual(['R-61']);
    const page = await engine.getUserBatch('b-users');
    const users = 'consumerUsers' in page ? page.consumerUsers : [];
    expect(users.map((u) => [u.userId, u.executedRules?.find((r) => r.ruleId === 'R-20')?.ruleHit])).toEqual([
      ['b-kp', true],
      // Its latest evaluation is the event's: R-20 ran again and did not hit.
      ['b-de', false],
    ]);
    expect(users.every((u) => !('hitRules' in u))).toBe(true);
    expect((await engine.repositories.cases.listAlerts()).map((a) => [a.userId, a.ruleDetails.id])).toEqual([
      ['b-kp', 'R-20'],
      ['b-de', 'R-61'],
    ]);
  });
});

describe('createRuleInstance of a user rule', () => {
  it.each([
    {
      name: 'a transaction filter',
      request: { ruleId: 'R-20', filters: { transactionTypes: ['TRANSFER'] } },
      code: 'INVALID_FILTERS',
      path: '/filters/transactionTypes',
    },
    { name: 'checkDirection', request: { ruleId: 'R-61', filters: { checkDirection: 'ORIGIN' } }, code: 'INVALID_FILTERS', path: '/filters/checkDirection' },
    {
      name: 'a historical filter',
      request: { ruleId: 'R-20', filters: { transactionTypesHistorical: ['TRANSFER'] } },
      code: 'INVALID_FILTERS',
      path: '/filters/transactionTypesHistorical',
    },
    {
      name: 'triggersOnHit changing the user',
      request: { ruleId: 'R-20', triggersOnHit: { userStateDetails: { state: 'BLOCKED', reason: 'x' } } },
      code: 'VALIDATION_FAILED',
      path: '/triggersOnHit',
    },
  ])('refuses $name with a 400 naming the path', async ({ request, code, path }) => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createRuleInstance(request as never));
    expect(error).toMatchObject({ code, details: [expect.objectContaining({ path })] });
  });

  it('lists R-20 and R-61 as USER rules in listRules, and getRule finds them', async () => {
    const { engine } = testEngine();
    const rules = await engine.listRules();
    expect(rules.filter((r) => r.type === 'USER').map((r) => r.id)).toEqual(['R-20', 'R-61']);
    expect(await engine.getRule('R-61')).toMatchObject({ id: 'R-61', type: 'USER', defaultAction: 'FLAG', defaultNature: 'FRAUD', stateful: false });
  });
});
