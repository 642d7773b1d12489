import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { T0, errorOf, testEngine, tx } from '../helpers.js';

/** R-6 boundary table, through the engine: which side's currency hits, and what the hit carries. */

const engineFor = () => testEngine().engine;

const LIST = ['RUB', 'KPW'];

interface Row {
  name: string;
  origin: string | undefined;
  destination: string | undefined;
  directions: string[];
}

const rows: Row[] = [
  { name: 'a listed origin currency hits the sender side only', origin: 'RUB', destination: 'EUR', directions: ['ORIGIN'] },
  { name: 'a listed destination currency hits the receiver side only', origin: 'EUR', destination: 'KPW', directions: ['DESTINATION'] },
  { name: 'the same listed currency on both sides hits both sides', origin: 'RUB', destination: 'RUB', directions: ['ORIGIN', 'DESTINATION'] },
  { name: 'different listed currencies on both sides hit both sides', origin: 'KPW', destination: 'RUB', directions: ['ORIGIN', 'DESTINATION'] },
  { name: 'unlisted currencies on both sides do not hit', origin: 'EUR', destination: 'USD', directions: [] },
  { name: 'no amount details on either side does not hit', origin: undefined, destination: undefined, directions: [] },
  { name: 'a listed destination currency with no origin amount hits the receiver side', origin: undefined, destination: 'RUB', directions: ['DESTINATION'] },
  { name: 'a listed origin currency with no destination amount hits the sender side', origin: 'KPW', destination: undefined, directions: ['ORIGIN'] },
];

function amounts(origin: string | undefined, destination: string | undefined) {
  return {
    originAmountDetails: origin === undefined ? undefined : { transactionAmount: 10, transactionCurrency: origin },
    destinationAmountDetails: destination === undefined ? undefined : { transactionAmount: 10, transactionCurrency: destination },
  };
}

describe('R-6 transaction including a high risk currency', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-6', parameters: { highRiskCurrencies: LIST } });
      const r = await engine.createTransaction(tx(amounts(row.origin, row.destination)));
      const hit = row.directions.length > 0;
      expect(r.executedRules[0]).toMatchObject({ ruleId: 'R-6', ruleHit: hit, ruleAction: 'FLAG' });
      expect(r.hitRules).toHaveLength(hit ? 1 : 0);
      expect(r.status).toBe(hit ? 'FLAG' : 'ALLOW');
      if (hit) expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(row.directions);
    });
  }

  const defaultRows = [
    { name: 'AFN (default list) hits', currency: 'AFN', hit: true },
    { name: 'BYN (default list) hits', currency: 'BYN', hit: true },
    { name: 'KPW (default list) hits', currency: 'KPW', hit: true },
    { name: 'LYD (default list) hits', currency: 'LYD', hit: true },
    { name: 'RUB (default list) hits', currency: 'RUB', hit: true },
    { name: 'SYP (default list) hits', currency: 'SYP', hit: true },
    { name: 'IRR (not in the default list) does not hit', currency: 'IRR', hit: false },
    { name: 'BYR (withdrawn predecessor of the listed BYN) does not hit', currency: 'BYR', hit: false },
    { name: 'EUR (not in the default list) does not hit', currency: 'EUR', hit: false },
  ];
  for (const row of defaultRows) {
    it(`with default parameters: ${row.name}`, async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-6' });
      const r = await engine.createTransaction(tx(amounts(row.currency, 'EUR')));
      expect(r.executedRules[0]?.ruleHit).toBe(row.hit);
      expect(r.executedRules[0]?.nature).toBe('AML');
    });
  }

  it('names the side and the currency of each hit side in the description', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-6', parameters: { highRiskCurrencies: LIST } });
    const r = await engine.createTransaction(tx(amounts('RUB', 'KPW')));
    expect(r.hitRules[0]?.ruleDescription).toBe('Origin currency RUB is a high-risk currency. Destination currency KPW is a high-risk currency.');
  });

  it('a destination-only hit opens an alert for the receiver only', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-6', parameters: { highRiskCurrencies: LIST } });
    await engine.createTransaction(tx(amounts('EUR', 'RUB')));
    const alerts = await engine.listAlerts();
    expect(alerts.map((a) => [a.userId, a.direction])).toEqual([['bob', 'DESTINATION']]);
  });

  it('re-evaluates on an event that changes the destination currency to a listed one', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-6', parameters: { highRiskCurrencies: LIST } });
    const t = tx(amounts('EUR', 'EUR'));
    expect((await engine.createTransaction(t)).status).toBe('ALLOW');
    const r = await engine.createTransactionEvent({
      transactionId: t.transactionId,
      timestamp: T0 + 1,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'KPW' } },
    });
    expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['DESTINATION']);
  });

  const badParameters = [
    { name: 'an empty list', parameters: { highRiskCurrencies: [] }, path: '/parameters/highRiskCurrencies' },
    { name: 'a lower-case code', parameters: { highRiskCurrencies: ['rub'] }, path: '/parameters/highRiskCurrencies/0' },
    { name: 'an unknown code', parameters: { highRiskCurrencies: ['EUR', 'ABCD'] }, path: '/parameters/highRiskCurrencies/1' },
    { name: 'a duplicate code', parameters: { highRiskCurrencies: ['RUB', 'RUB'] }, path: '/parameters/highRiskCurrencies' },
    { name: 'a string instead of a list', parameters: { highRiskCurrencies: 'RUB' }, path: '/parameters/highRiskCurrencies' },
    { name: 'an unknown parameter', parameters: { highRiskCurrencies: ['RUB'], currencies: ['KPW'] }, path: '/parameters/currencies' },
  ];
  for (const row of badParameters) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-6', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
      expect(await engine.listRuleInstances()).toEqual([]);
    });
  }
});

describe('properties', () => {
  const CURRENCIES = ['EUR', 'USD', 'GBP', 'RUB', 'KPW', 'SYP', 'AFN', 'CHF'] as const;
  const currencyArb = fc.constantFrom(...CURRENCIES);
  const listArb = fc.uniqueArray(currencyArb, { minLength: 1, maxLength: CURRENCIES.length });

  test.prop([listArb, currencyArb, currencyArb], { numRuns: 60 })('a side hits exactly when its currency is listed', async (list, origin, destination) => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-6', parameters: { highRiskCurrencies: list } });
    const r = await engine.createTransaction(tx(amounts(origin, destination)));
    const expected = [...(list.includes(origin) ? ['ORIGIN'] : []), ...(list.includes(destination) ? ['DESTINATION'] : [])];
    expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(expected);
  });

  test.prop([listArb, currencyArb, currencyArb, currencyArb], { numRuns: 60 })(
    'adding a currency to the list can only add hit sides',
    async (list, extra, origin, destination) => {
      const sides = async (currencies: string[]) => {
        const engine = engineFor();
        await engine.createRuleInstance({ ruleId: 'R-6', parameters: { highRiskCurrencies: currencies } });
        const r = await engine.createTransaction(tx(amounts(origin, destination)));
        return r.hitRules[0]?.ruleHitMeta?.hitDirections ?? [];
      };
      const before = await sides(list);
      const after = await sides(list.includes(extra) ? list : [...list, extra]);
      for (const side of before) expect(after).toContain(side);
    },
  );
});
