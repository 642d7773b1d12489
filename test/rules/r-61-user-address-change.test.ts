import { describe, expect, it } from 'vitest';
import { DAY, T0, testEngine } from '../helpers.js';

/** R-61 boundary table, through the engine: a user created, then changed by an event; which changes of its addresses hit. */

const berlin = { addressLines: ['Unter den Linden 1'], city: 'Berlin', country: 'DE', postcode: '10117' };
const koeln = { addressLines: ['Domkloster 4'], city: 'Köln', country: 'DE', postcode: '50667' };

interface Row {
  name: string;
  /** The addresses at creation (`undefined`: no contactDetails). */
  before: unknown[] | undefined;
  /** The event's patch of contactDetails (`undefined`: the event does not touch it). */
  patch: Record<string, unknown> | null | undefined;
  hit: boolean;
  /** A hit's evidence: positions of the added addresses in the new list, removed, count after, count before. */
  change?: [number[], number, number, number];
}

const rows: Row[] = [
  { name: 'an address replaced by another hits', before: [berlin], patch: { addresses: [koeln] }, hit: true, change: [[0], 1, 1, 1] },
  { name: 'an address added hits', before: [berlin], patch: { addresses: [berlin, koeln] }, hit: true, change: [[1], 0, 2, 1] },
  { name: 'an address removed hits', before: [berlin, koeln], patch: { addresses: [berlin] }, hit: true, change: [[], 1, 1, 2] },
  {
    name: 'one field of an address changed hits',
    before: [berlin],
    patch: { addresses: [{ ...berlin, postcode: '10115' }] },
    hit: true,
    change: [[0], 1, 1, 1],
  },
  { name: 'a first address where there was none hits', before: undefined, patch: { addresses: [berlin] }, hit: true, change: [[0], 0, 1, 0] },
  { name: 'all addresses removed hits', before: [berlin], patch: null, hit: true, change: [[], 1, 0, 1] },
  { name: 'the same addresses reordered do not hit', before: [berlin, koeln], patch: { addresses: [koeln, berlin] }, hit: false },
  {
    name: 'the same address with its keys in another order does not hit',
    before: [berlin],
    patch: { addresses: [{ postcode: '10117', country: 'DE', city: 'Berlin', addressLines: ['Unter den Linden 1'] }] },
    hit: false,
  },
  { name: 'an event not touching the addresses does not hit', before: [berlin], patch: undefined, hit: false },
  { name: 'other contact details changed do not hit', before: [berlin], patch: { emailIds: ['a@example.com'] }, hit: false },
  { name: 'no addresses before or after does not hit', before: undefined, patch: { emailIds: ['a@example.com'] }, hit: false },
];

describe('R-61 user address change', () => {
  for (const [i, row] of rows.entries()) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-61' });
      const userId = `u-${i}`;
      const created = await engine.createUser({
        userId,
        createdTimestamp: T0 - DAY,
        ...(row.before === undefined ? {} : { contactDetails: { addresses: row.before } }),
      });
      // Never on first creation.
      expect(created.executedRules).toEqual([expect.objectContaining({ ruleId: 'R-61', ruleHit: false })]);
      const patch = row.patch === undefined ? { userStateDetails: { state: 'ACTIVE' } } : { contactDetails: row.patch };
      const result = await engine.createConsumerUserEvent({ userId, timestamp: T0, updatedConsumerUserAttributes: patch });
      expect(result.executedRules).toEqual([expect.objectContaining({ ruleId: 'R-61', ruleHit: row.hit, ruleAction: 'FLAG' })]);
      expect(result.hitRules).toHaveLength(row.hit ? 1 : 0);
      if (row.change !== undefined) {
        const [added, removed, addressCount, previousAddressCount] = row.change;
        expect(result.hitRules[0]?.ruleHitMeta).toEqual({
          hitDirections: ['ORIGIN'],
          evidence: [
            {
              direction: 'ORIGIN',
              kind: 'addressChange',
              path: '/contactDetails/addresses',
              value: added.length + removed,
              comparison: '>',
              limit: 0,
              added,
              removed,
              addressCount,
              previousAddressCount,
            },
          ],
        });
      }
    });
  }

  it("reads a business's legalEntity.contactDetails.addresses, not a top-level contactDetails", async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-61' });
    await engine.createUser(
      { userId: 'b', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'B' }, contactDetails: { addresses: [berlin] } } },
      { type: 'BUSINESS' },
    );
    const elsewhere = await engine.createBusinessUserEvent({
      userId: 'b',
      timestamp: T0 + 1,
      updatedBusinessUserAttributes: { contactDetails: { addresses: [koeln] } },
    });
    expect(elsewhere.hitRules).toEqual([]);
    const moved = await engine.createBusinessUserEvent({
      userId: 'b',
      timestamp: T0 + 2,
      updatedBusinessUserAttributes: { legalEntity: { contactDetails: { addresses: [koeln] } } },
    });
    expect(moved.hitRules).toEqual([expect.objectContaining({ ruleId: 'R-61', nature: 'FRAUD' })]);
  });

  it('refuses any parameter (it takes none)', async () => {
    const { engine } = testEngine();
    await expect(engine.createRuleInstance({ ruleId: 'R-61', parameters: { days: 1 } })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS' });
  });
});
