import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { T0, errorOf, testEngine, tx } from '../helpers.js';

/** R-22 boundary table, through the engine: a card's issuing country on either side, and nothing else. */

const engineFor = () => testEngine().engine;

const LIST = ['IR', 'KP'];

type Details = Record<string, unknown> | undefined;

const card = (cardIssuedCountry?: string): Record<string, unknown> =>
  cardIssuedCountry === undefined ? { method: 'CARD' } : { method: 'CARD', cardIssuedCountry };

interface Row {
  name: string;
  origin: Details;
  destination: Details;
  directions: string[];
}

const rows: Row[] = [
  { name: 'an origin card issued in a listed country hits the sender side only', origin: card('IR'), destination: card('FR'), directions: ['ORIGIN'] },
  {
    name: 'a destination card issued in a listed country hits the receiver side only',
    origin: card('DE'),
    destination: card('KP'),
    directions: ['DESTINATION'],
  },
  { name: 'listed cards on both sides hit both sides', origin: card('KP'), destination: card('IR'), directions: ['ORIGIN', 'DESTINATION'] },
  { name: 'cards issued in unlisted countries do not hit', origin: card('DE'), destination: card('FR'), directions: [] },
  { name: 'a card without an issuing country does not hit', origin: card(), destination: card(), directions: [] },
  { name: 'no payment details on either side do not hit', origin: undefined, destination: undefined, directions: [] },
  { name: 'a listed origin card with no destination details hits the sender side', origin: card('IR'), destination: undefined, directions: ['ORIGIN'] },
  {
    name: 'a non-card method with a listed country field does not hit (IBAN country IR)',
    origin: { method: 'IBAN', country: 'IR' },
    destination: { method: 'GENERIC_BANK_ACCOUNT', country: 'KP' },
    directions: [],
  },
  {
    name: 'a non-card method carrying an unknown cardIssuedCountry property does not hit (WALLET)',
    origin: { method: 'WALLET', cardIssuedCountry: 'IR' },
    destination: undefined,
    directions: [],
  },
  {
    name: 'a card with a listed merchant country but an unlisted issuing country does not hit',
    origin: { method: 'CARD', cardIssuedCountry: 'DE', merchantDetails: { country: 'IR' } },
    destination: undefined,
    directions: [],
  },
  {
    name: 'a card with listed nationality / residence but an unlisted issuing country does not hit',
    origin: { method: 'CARD', cardIssuedCountry: 'DE', countryOfNationality: 'IR', countryOfResidence: 'KP' },
    destination: undefined,
    directions: [],
  },
  {
    name: 'the transaction countries do not matter: a listed card hits with unlisted transaction countries',
    origin: card('KP'),
    destination: { method: 'IBAN', country: 'KP' },
    directions: ['ORIGIN'],
  },
];

function payment(origin: Details, destination: Details) {
  return { originPaymentDetails: origin, destinationPaymentDetails: destination };
}

describe('R-22 blacklisted card-issued country', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: LIST } });
      const r = await engine.createTransaction(tx(payment(row.origin, row.destination)));
      const hit = row.directions.length > 0;
      expect(r.executedRules[0]).toMatchObject({ ruleId: 'R-22', ruleHit: hit, ruleAction: 'FLAG' });
      expect(r.hitRules).toHaveLength(hit ? 1 : 0);
      expect(r.status).toBe(hit ? 'FLAG' : 'ALLOW');
      if (hit) expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(row.directions);
    });
  }

  const defaultRows = [
    ...['RU', 'YE', 'IR', 'KP', 'VE', 'CU', 'BY', 'SY', 'AF'].map((c) => ({ name: `${c} (default list) hits`, country: c, hit: true })),
    { name: 'UA (not in the default list) does not hit', country: 'UA', hit: false },
    { name: 'DE (not in the default list) does not hit', country: 'DE', hit: false },
  ];
  for (const row of defaultRows) {
    it(`with default parameters: ${row.name}`, async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-22' });
      const r = await engine.createTransaction(tx(payment(card(row.country), undefined)));
      expect(r.executedRules[0]?.ruleHit).toBe(row.hit);
      expect(r.executedRules[0]?.nature).toBe('AML');
    });
  }

  it('names the side and the issuing country of each hit side in the description', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: LIST } });
    const r = await engine.createTransaction(tx(payment(card('IR'), card('KP'))));
    expect(r.hitRules[0]?.ruleDescription).toBe('Origin card was issued in blacklisted country IR. Destination card was issued in blacklisted country KP.');
  });

  it('an origin-only hit opens an alert for the sender only', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: LIST } });
    await engine.createTransaction(tx(payment(card('IR'), card('DE'))));
    const alerts = await engine.listAlerts();
    expect(alerts.map((a) => [a.userId, a.direction])).toEqual([['alice', 'ORIGIN']]);
  });

  it('checkDirection DESTINATION turns an origin-only hit into no hit', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: LIST }, filters: { checkDirection: 'DESTINATION' } });
    const r = await engine.createTransaction(tx(payment(card('IR'), card('DE'))));
    expect(r.status).toBe('ALLOW');
  });

  it('re-evaluates on an event that replaces the origin card with one issued in a listed country', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: LIST } });
    const t = tx(payment(card('DE'), undefined));
    expect((await engine.createTransaction(t)).status).toBe('ALLOW');
    const r = await engine.createTransactionEvent({
      transactionId: t.transactionId,
      timestamp: T0 + 1,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { originPaymentDetails: card('KP') },
    });
    expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN']);
  });

  const badParameters = [
    { name: 'an empty list', parameters: { blacklistedCountries: [] }, path: '/parameters/blacklistedCountries' },
    { name: 'a lower-case code', parameters: { blacklistedCountries: ['ir'] }, path: '/parameters/blacklistedCountries/0' },
    { name: 'an alpha-3 code', parameters: { blacklistedCountries: ['DE', 'IRN'] }, path: '/parameters/blacklistedCountries/1' },
    { name: 'a duplicate code', parameters: { blacklistedCountries: ['IR', 'IR'] }, path: '/parameters/blacklistedCountries' },
    { name: 'a number in the list', parameters: { blacklistedCountries: [364] }, path: '/parameters/blacklistedCountries/0' },
    { name: 'an unknown parameter', parameters: { blacklistedCountries: ['IR'], highRiskCountries: ['KP'] }, path: '/parameters/highRiskCountries' },
  ];
  for (const row of badParameters) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-22', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
      expect(await engine.listRuleInstances()).toEqual([]);
    });
  }
});

describe('properties', () => {
  const COUNTRIES = ['IR', 'KP', 'RU', 'DE', 'FR', 'US'] as const;
  const countryArb = fc.constantFrom(...COUNTRIES);
  const listArb = fc.uniqueArray(countryArb, { minLength: 1, maxLength: COUNTRIES.length });
  const detailsArb: fc.Arbitrary<Details> = fc.oneof(
    fc.constant(undefined),
    countryArb.map((c) => card(c)),
    fc.constant(card()),
    countryArb.map((c) => ({ method: 'IBAN', country: c })),
  );
  const listedCard = (details: Details, list: readonly string[]) =>
    details?.['method'] === 'CARD' && typeof details['cardIssuedCountry'] === 'string' && list.includes(details['cardIssuedCountry']);

  test.prop([listArb, detailsArb, detailsArb], { numRuns: 60 })(
    'a side hits exactly when it pays with a card issued in a listed country',
    async (list, origin, destination) => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: list } });
      const r = await engine.createTransaction(tx(payment(origin, destination)));
      const expected = [...(listedCard(origin, list) ? ['ORIGIN'] : []), ...(listedCard(destination, list) ? ['DESTINATION'] : [])];
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(expected);
    },
  );

  test.prop([listArb, countryArb, detailsArb, detailsArb], { numRuns: 60 })(
    'adding a country to the list can only add hit sides',
    async (list, extra, origin, destination) => {
      const sides = async (countries: string[]) => {
        const engine = engineFor();
        await engine.createRuleInstance({ ruleId: 'R-22', parameters: { blacklistedCountries: countries } });
        const r = await engine.createTransaction(tx(payment(origin, destination)));
        return r.hitRules[0]?.ruleHitMeta?.hitDirections ?? [];
      };
      const before = await sides(list);
      const after = await sides(list.includes(extra) ? list : [...list, extra]);
      for (const side of before) expect(after).toContain(side);
    },
  );
});
