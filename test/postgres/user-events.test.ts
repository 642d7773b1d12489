/**
 * User events through engines on PGlite and PostgreSQL: the event and the user are written in one
 * unit under the user's key, so two engines on one store (two processes) sending events of one user
 * at once store each event once, with arrivals 0…n-1, and the user as the fold in timestamp order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { T0 } from '../helpers.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

describe.each([
  ['PGlite', pgliteDatabase],
  ['PostgreSQL', postgresDatabase],
])('user events on %s', (_name, open) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db.close();
  });

  it('two engines on one store: every event stored once, arrivals 0..n-1, the user the fold in timestamp order; replay and conflict', async () => {
    const repositories = await db.fresh();
    const a = createEngine({ repositories });
    const b = createEngine({ repositories });
    await a.createUser({ userId: 'pg-u', createdTimestamp: T0, userDetails: { countryOfResidence: 'DE' } });
    const event = (n: number) => ({
      userId: 'pg-u',
      eventId: `pg-ue-${n}`,
      // Arrival order differs from timestamp order: the highest n has the earliest timestamp.
      timestamp: T0 + 100 - n,
      updatedConsumerUserAttributes: { tags: [{ key: 'last', value: String(n) }], ...(n === 0 ? { userDetails: { countryOfResidence: 'FR' } } : {}) },
    });
    await Promise.all(Array.from({ length: 8 }, (_, n) => (n % 2 === 0 ? a : b).createConsumerUserEvent(event(n))));
    const stored = await repositories.users.listUserEvents('pg-u');
    expect(stored.map((e) => e.arrival)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(stored.map((e) => e.eventId)).size).toBe(8);
    // Event 0 has the latest timestamp: its tags and country win, whatever the arrival order.
    expect(await a.getUser('pg-u')).toMatchObject({ tags: [{ key: 'last', value: '0' }], userDetails: { countryOfResidence: 'FR' } });
    const replay = await b.createConsumerUserEvent(event(3));
    expect(replay).toMatchObject({ userId: 'pg-u' });
    await expect(a.createConsumerUserEvent({ ...event(3), timestamp: T0 })).rejects.toMatchObject({ code: 'EVENT_ID_CONFLICT' });
    expect(await a.getConsumerUserEvent('pg-ue-5')).toMatchObject({ eventId: 'pg-ue-5', executedRules: [], hitRules: [] });
  });

  it('user rules in a unit: two engines creating and moving users run R-20 and R-61 once per call; counters and user alerts match the calls', async () => {
    const repositories = await db.fresh();
    const a = createEngine({ repositories });
    const b = createEngine({ repositories });
    const r20 = await a.createRuleInstance({ ruleId: 'R-20' });
    const r61 = await a.createRuleInstance({ ruleId: 'R-61' });
    const users = Array.from({ length: 4 }, (_, n) => `pg-ur-${n}`);
    // Every user is created from KP (an R-20 hit each); creation never hits R-61.
    const created = await Promise.all(
      users.map((userId, n) => (n % 2 === 0 ? a : b).createUser({ userId, createdTimestamp: T0, userDetails: { countryOfResidence: 'KP' } })),
    );
    expect(created.map((r) => r.hitRules.map((h) => h.ruleId))).toEqual(users.map(() => ['R-20']));
    // Each user then moves (an R-61 hit, and R-20 again: the residence is still KP).
    const moved = await Promise.all(
      users.map((userId, n) =>
        (n % 2 === 0 ? b : a).createConsumerUserEvent({
          userId,
          eventId: `pg-ur-move-${n}`,
          timestamp: T0 + 1,
          updatedConsumerUserAttributes: { contactDetails: { addresses: [{ addressLines: ['1 Main St'], city: 'Berlin', country: 'DE' }] } },
        }),
      ),
    );
    expect(moved.map((r) => r.hitRules.map((h) => h.ruleId).sort())).toEqual(users.map(() => ['R-20', 'R-61']));
    expect(await a.getRuleInstance(r20.id)).toMatchObject({ runCount: 8, hitCount: 8 });
    expect(await b.getRuleInstance(r61.id)).toMatchObject({ runCount: 8, hitCount: 4 });
    const alerts = await repositories.cases.listAlerts();
    // One alert per (instance, user): R-20's second hit lands in its open alert.
    expect(alerts).toHaveLength(8);
    expect(alerts.every((alert) => alert.entityDetails.type === 'USER' && alert.entityDetails.transactionIds.length === 0)).toBe(true);
    expect(await a.getConsumerUserEvent('pg-ur-move-0')).toMatchObject({ hitRules: [expect.anything(), expect.anything()] });
  });
});
