import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/domain/canonical-json.js';
import { DAY, T0, errorOf, testEngine, tx } from '../../helpers.js';

const consumer = {
  userId: 'alice',
  createdTimestamp: T0 - DAY,
  userDetails: { name: { firstName: 'Alice', lastName: 'Liddell' }, countryOfResidence: 'DE' },
  kycStatusDetails: { status: 'IN_PROGRESS' as const },
};
const business = { userId: 'acme', createdTimestamp: T0 - DAY, legalEntity: { companyGeneralDetails: { legalName: 'Acme GmbH' } } };

async function withUsers() {
  const { engine } = testEngine();
  await engine.createUser(consumer);
  await engine.createUser(business, { type: 'BUSINESS' });
  return engine;
}

describe('createConsumerUserEvent / createBusinessUserEvent', () => {
  it('merges the attributes into the user (objects merge, null removes), sets state and KYC, and answers the user with its results', async () => {
    const engine = await withUsers();
    const result = await engine.createConsumerUserEvent({
      userId: 'alice',
      eventId: 'ue-1',
      timestamp: T0,
      updatedConsumerUserAttributes: {
        userDetails: { countryOfResidence: 'FR' },
        kycStatusDetails: { status: 'SUCCESSFUL' },
        userStateDetails: { state: 'ACTIVE' },
        tags: [{ key: 'k', value: 'v' }],
      },
    });
    expect(result).toMatchObject({
      userId: 'alice',
      userDetails: { name: { firstName: 'Alice', lastName: 'Liddell' }, countryOfResidence: 'FR' },
      kycStatusDetails: { status: 'SUCCESSFUL' },
      userStateDetails: { state: 'ACTIVE' },
      executedRules: [],
      hitRules: [],
    });
    await engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0 + 1, updatedConsumerUserAttributes: { tags: null } });
    const stored = (await engine.getUser('alice')) as Record<string, unknown>;
    expect(stored).not.toHaveProperty('tags');
    expect(stored).toMatchObject({ kycStatusDetails: { status: 'SUCCESSFUL' }, userStateDetails: { state: 'ACTIVE' }, type: 'CONSUMER' });
  });

  it('a business event patches a business user', async () => {
    const engine = await withUsers();
    const result = await engine.createBusinessUserEvent({
      userId: 'acme',
      timestamp: T0,
      updatedBusinessUserAttributes: { legalEntity: { companyGeneralDetails: { userSegment: 'SMB' } } },
    });
    expect(result).toMatchObject({ legalEntity: { companyGeneralDetails: { legalName: 'Acme GmbH', userSegment: 'SMB' } } });
    expect(await engine.getUser('acme', { type: 'BUSINESS' })).toMatchObject({ legalEntity: (result as { legalEntity?: unknown }).legalEntity });
  });

  it.each([
    ['userId', 'bob'],
    ['createdTimestamp', T0],
  ])('refuses a change of %s (IMMUTABLE_FIELD at its path) and stores nothing', async (field, value) => {
    const engine = await withUsers();
    const error = await errorOf(() =>
      engine.createConsumerUserEvent({ userId: 'alice', eventId: 'ue-x', timestamp: T0, updatedConsumerUserAttributes: { [field]: value } }),
    );
    expect(error).toMatchObject({ code: 'IMMUTABLE_FIELD', status: 400 });
    expect(error.details[0]?.path).toBe(`/updatedConsumerUserAttributes/${field}`);
    await expect(engine.getConsumerUserEvent('ue-x')).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });

  it('refuses a patch that makes the user invalid, with the path under the patch, and keeps the user', async () => {
    const engine = await withUsers();
    const error = await errorOf(() =>
      engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0, updatedConsumerUserAttributes: { kycStatusDetails: { status: 'MAYBE' } } }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details[0]?.path).toMatch(/^\/updatedConsumerUserAttributes\/kycStatusDetails/);
    expect((await engine.getUser('alice')).kycStatusDetails).toEqual({ status: 'IN_PROGRESS' });
  });

  it('an unknown user is 404 at /userId; a user of the other type is 400 at /userId; the other type patch field is refused', async () => {
    const engine = await withUsers();
    expect((await errorOf(() => engine.createConsumerUserEvent({ userId: 'nobody', timestamp: T0 }))).code).toBe('USER_NOT_FOUND');
    const wrongType = await errorOf(() => engine.createConsumerUserEvent({ userId: 'acme', timestamp: T0 }));
    expect(wrongType.details[0]).toMatchObject({ path: '/userId', code: 'conflict' });
    const wrongField = await errorOf(() =>
      engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0, updatedBusinessUserAttributes: { riskLevel: 'LOW' } } as never),
    );
    expect(wrongField.details[0]).toMatchObject({ path: '/updatedBusinessUserAttributes', code: 'not-allowed' });
  });

  it.each(['allowUserTypeConversion', 'lockCraRiskLevel', 'lockKycRiskLevel'] as const)(
    '%s: true is refused with a 400 naming it; false is taken',
    async (flag) => {
      const engine = await withUsers();
      const error = await errorOf(() => engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0 }, { [flag]: true }));
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toContain(flag);
      await expect(engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0 }, { [flag]: false })).resolves.toMatchObject({ userId: 'alice' });
    },
  );
});

describe('user event idempotency', () => {
  it('the same eventId and payload answers the same and stores one event; another payload is EVENT_ID_CONFLICT (409)', async () => {
    const engine = await withUsers();
    const event = { userId: 'alice', eventId: 'ue-1', timestamp: T0, updatedConsumerUserAttributes: { kycStatusDetails: { status: 'SUCCESSFUL' } } };
    const first = await engine.createConsumerUserEvent(structuredClone(event) as never);
    await engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0 + 1, updatedConsumerUserAttributes: { kycStatusDetails: { status: 'FAILED' } } });
    expect(await engine.createConsumerUserEvent(structuredClone(event) as never)).toEqual(first);
    expect(await engine.repositories.users.listUserEvents('alice')).toHaveLength(2);
    const changed = await errorOf(() => engine.createConsumerUserEvent({ ...event, timestamp: T0 + 5 } as never));
    expect(changed).toMatchObject({ code: 'EVENT_ID_CONFLICT', status: 409 });
    expect(changed.details[0]?.path).toBe('/eventId');
    // The same id on the other route is another payload too.
    expect((await errorOf(() => engine.createBusinessUserEvent({ userId: 'acme', eventId: 'ue-1', timestamp: T0 }))).code).toBe('EVENT_ID_CONFLICT');
    expect((await engine.getUser('alice')).kycStatusDetails).toEqual({ status: 'FAILED' });
  });

  it('an event without eventId gets a generated one, readable by its GET with the result', async () => {
    const engine = await withUsers();
    await engine.createConsumerUserEvent({
      userId: 'alice',
      timestamp: T0,
      reason: 'moved',
      updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'FR' } },
    });
    const [stored] = await engine.repositories.users.listUserEvents('alice');
    expect(stored?.clientEventId).toBe(false);
    const got = await engine.getConsumerUserEvent(stored?.eventId as string);
    expect(got).toMatchObject({ userId: 'alice', eventId: stored?.eventId, reason: 'moved', executedRules: [], hitRules: [] });
    await expect(engine.getBusinessUserEvent(stored?.eventId as string)).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });
});

describe('user events arrive in any order', () => {
  const events = [
    {
      userId: 'alice',
      eventId: 'a',
      timestamp: T0 + 1,
      updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'FR' }, tags: [{ key: 'x', value: '1' }] },
    },
    { userId: 'alice', eventId: 'b', timestamp: T0 + 2, updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'IT', name: null }, tags: null } },
    {
      userId: 'alice',
      eventId: 'c',
      timestamp: T0 + 3,
      updatedConsumerUserAttributes: { userDetails: { name: { firstName: 'Al' } }, kycStatusDetails: { status: 'FAILED' } },
    },
    { userId: 'alice', eventId: 'd', timestamp: T0 + 2, updatedConsumerUserAttributes: { tags: [{ key: 'y', value: '2' }] } },
  ];
  const orders = [
    [0, 1, 2, 3],
    [2, 1, 0, 3],
    [1, 3, 2, 0],
    [3, 2, 0, 1],
  ];

  it('the stored user is the fold of its events in (timestamp, arrival) order, whatever order they arrived in', async () => {
    const finals = [];
    for (const order of orders) {
      const engine = await withUsers();
      for (const i of order) await engine.createConsumerUserEvent(structuredClone(events[i]) as never);
      finals.push(await engine.getUser('alice'));
    }
    // b and d share a timestamp: d's tags win where d arrived after b, else b removes them.
    const withTags = finals.filter((f) => 'tags' in f);
    expect(finals[0]).toMatchObject({ userDetails: { countryOfResidence: 'IT', name: { firstName: 'Al' } }, kycStatusDetails: { status: 'FAILED' } });
    expect(finals[0]).toMatchObject({ tags: [{ key: 'y', value: '2' }] });
    const strip = (u: Record<string, unknown>) => canonicalJson({ ...u, tags: undefined });
    for (const f of finals) expect(strip(f as Record<string, unknown>)).toBe(strip(finals[0] as Record<string, unknown>));
    expect(withTags.length).toBe(3);
  });
});

describe('user events feed what rules read', () => {
  it("a riskLevel set by an event picks the instance's parameters for the user's next transaction", async () => {
    const engine = await withUsers();
    const byLevel = (limit: number) => ({ transactionAmountThreshold: { EUR: limit } });
    await engine.createRuleInstance({
      ruleId: 'R-2',
      parameters: byLevel(1_000),
      riskLevelParameters: { VERY_LOW: byLevel(1_000), LOW: byLevel(1_000), MEDIUM: byLevel(1_000), HIGH: byLevel(50), VERY_HIGH: byLevel(1_000) },
    });
    const hitsOf = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.filter((h) => h.ruleId === 'R-2').length;
    expect(hitsOf(await engine.createTransaction(tx({ timestamp: T0 })))).toBe(0);
    await engine.createConsumerUserEvent({ userId: 'alice', timestamp: T0 + 1, updatedConsumerUserAttributes: { riskLevel: 'HIGH' } });
    expect(hitsOf(await engine.createTransaction(tx({ timestamp: T0 + 2 })))).toBe(1);
  });
});

describe('a caller gone before its user write runs', () => {
  it('createUser and a user event with an aborted signal are not run (CLIENT_GONE) and write nothing', async () => {
    const engine = await withUsers();
    const gone = { aborted: true };
    await expect(engine.createUser({ userId: 'zed', createdTimestamp: T0 }, { signal: gone })).rejects.toMatchObject({ code: 'CLIENT_GONE' });
    await expect(engine.getUser('zed')).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(
      engine.createConsumerUserEvent({ userId: 'alice', eventId: 'gone', timestamp: T0, updatedConsumerUserAttributes: { tags: [] } }, { signal: gone }),
    ).rejects.toMatchObject({ code: 'CLIENT_GONE' });
    await expect(engine.getConsumerUserEvent('gone')).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });
});
