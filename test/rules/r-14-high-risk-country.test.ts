import { describe, expect, it } from 'vitest';
import { T0, testEngine, tx } from '../helpers.js';

/** R-14 boundary table, through the engine: which side's country hits, and what follows from the hit directions. */

const LIST = ['IR', 'KP'];

interface Row {
  name: string;
  origin: string | undefined;
  destination: string | undefined;
  directions: string[];
}

const rows: Row[] = [
  { name: 'a listed origin country hits the sender side only', origin: 'IR', destination: 'FR', directions: ['ORIGIN'] },
  { name: 'a listed destination country hits the receiver side only', origin: 'DE', destination: 'KP', directions: ['DESTINATION'] },
  { name: 'listed countries on both sides hit both sides', origin: 'KP', destination: 'IR', directions: ['ORIGIN', 'DESTINATION'] },
  { name: 'unlisted countries on both sides do not hit', origin: 'DE', destination: 'FR', directions: [] },
  { name: 'no country on either side does not hit', origin: undefined, destination: undefined, directions: [] },
  { name: 'a listed country on one side and none on the other hits that side', origin: undefined, destination: 'IR', directions: ['DESTINATION'] },
];

function amounts(origin: string | undefined, destination: string | undefined) {
  return {
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', ...(origin ? { country: origin } : {}) },
    destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', ...(destination ? { country: destination } : {}) },
  };
}

describe('R-14 high risk country', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: LIST } });
      const r = await engine.createTransaction(tx(amounts(row.origin, row.destination)));
      const hit = row.directions.length > 0;
      expect(r.executedRules[0]).toMatchObject({ ruleId: 'R-14', ruleHit: hit, ruleAction: 'FLAG' });
      expect(r.hitRules).toHaveLength(hit ? 1 : 0);
      expect(r.status).toBe(hit ? 'FLAG' : 'ALLOW');
      if (hit) {
        expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(row.directions);
        expect(r.executedRules[0]?.ruleHitMeta?.hitDirections).toEqual(row.directions);
      }
    });
  }

  it('names the side and the country in the description of a hit', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: LIST } });
    const r = await engine.createTransaction(tx(amounts('DE', 'KP')));
    expect(r.hitRules[0]?.ruleDescription).toContain('KP');
    expect(r.hitRules[0]?.ruleDescription).toContain('Destination');
  });

  const alertRows = [
    { name: 'an origin-only hit opens an alert for the sender only', origin: 'IR', destination: 'FR', users: ['alice'] },
    { name: 'a destination-only hit opens an alert for the receiver only', origin: 'DE', destination: 'IR', users: ['bob'] },
    { name: 'a hit on both sides opens one alert per side', origin: 'IR', destination: 'KP', users: ['alice', 'bob'] },
  ];
  for (const row of alertRows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: LIST } });
      const t = tx(amounts(row.origin, row.destination));
      await engine.createTransaction(t);
      const alerts = await engine.listAlerts();
      expect(alerts.map((a) => a.userId).sort()).toEqual(row.users);
      for (const a of alerts) {
        expect(a.direction).toBe(a.userId === 'alice' ? 'ORIGIN' : 'DESTINATION');
        expect(a.entityDetails.transactionIds).toEqual([t.transactionId]);
      }
    });
  }

  const directionRows = [
    { name: 'checkDirection ORIGIN keeps only the sender side of a two-sided hit', checkDirection: 'ORIGIN', directions: ['ORIGIN'] },
    { name: 'checkDirection DESTINATION keeps only the receiver side of a two-sided hit', checkDirection: 'DESTINATION', directions: ['DESTINATION'] },
  ];
  for (const row of directionRows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: LIST }, filters: { checkDirection: row.checkDirection } });
      const r = await engine.createTransaction(tx(amounts('IR', 'KP')));
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(row.directions);
    });
  }

  it('checkDirection ORIGIN turns a destination-only hit into no hit', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: LIST }, filters: { checkDirection: 'ORIGIN' } });
    const r = await engine.createTransaction(tx(amounts('DE', 'KP')));
    expect(r.hitRules).toEqual([]);
    expect(r.status).toBe('ALLOW');
    expect(await engine.listAlerts()).toEqual([]);
  });

  it('re-evaluates on an event that moves the destination to a listed country', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: LIST } });
    const t = tx(amounts('DE', 'FR'));
    expect((await engine.createTransaction(t)).status).toBe('ALLOW');
    const r = await engine.createTransactionEvent({
      transactionId: t.transactionId,
      timestamp: T0 + 1,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'IR' } },
    });
    expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['DESTINATION']);
  });
});
