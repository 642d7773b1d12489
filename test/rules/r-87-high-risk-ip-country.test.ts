import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;

const LIST = ['IR', 'KP'];

/** `null`: an instance without parameters (the rule's defaults). */
async function engineWith(parameters: Record<string, unknown> | null = { highRiskCountries: LIST }) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-87', ...(parameters === null ? {} : { parameters }) });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-87').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** Device data of one side: `undefined` = none at all, `null` = device data without an IP country. */
function device(ipCountry: string | null | undefined, ipAddress = '203.0.113.7') {
  if (ipCountry === undefined) return undefined;
  return { ipAddress, ...(ipCountry === null ? {} : { ipCountry }) };
}

function withDevices(origin: string | null | undefined, destination: string | null | undefined, extra: Record<string, unknown> = {}) {
  const o = device(origin);
  const d = device(destination);
  return tx({ ...(o ? { originDeviceData: o } : {}), ...(d ? { destinationDeviceData: d } : {}), ...extra });
}

describe('R-87 High risk IP address countries', () => {
  const rows: { name: string; origin: string | null | undefined; destination: string | null | undefined; expected: string[] }[] = [
    { name: 'a listed sender IP country hits the sender side only', origin: 'IR', destination: 'FR', expected: ['ORIGIN'] },
    { name: 'a listed receiver IP country hits the receiver side only', origin: 'DE', destination: 'KP', expected: ['DESTINATION'] },
    { name: 'listed IP countries on both sides hit both sides', origin: 'KP', destination: 'IR', expected: ['ORIGIN', 'DESTINATION'] },
    { name: 'unlisted IP countries do not hit', origin: 'DE', destination: 'FR', expected: [] },
    { name: 'no device data on either side does not hit', origin: undefined, destination: undefined, expected: [] },
    { name: 'device data without ipCountry does not hit (no geo-IP lookup of ipAddress)', origin: null, destination: null, expected: [] },
    { name: 'a listed IP country on one side and none on the other hits that side', origin: null, destination: 'IR', expected: ['DESTINATION'] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      expect(hitsOf(await engine.createTransaction(withDevices(row.origin, row.destination)))).toEqual(row.expected);
    });
  }

  it('reads the IP country, not the amount country: a listed amount country with a safe IP country does not hit', async () => {
    const engine = await engineWith();
    const t = withDevices('DE', 'FR', {
      originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'IR' },
      destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'KP' },
    });
    expect(hitsOf(await engine.createTransaction(t))).toEqual([]);
  });

  it('names the side and the IP country in the description of a hit', async () => {
    const engine = await engineWith();
    const r = await engine.createTransaction(withDevices('DE', 'KP'));
    expect(r.hitRules.find((h) => h.ruleId === 'R-87')?.ruleDescription).toBe('Receiver IP address country KP is a high-risk country.');
  });

  it('flags with a FRAUD nature', async () => {
    const engine = await engineWith();
    const r = await engine.createTransaction(withDevices('IR', undefined));
    expect(r.status).toBe('FLAG');
    expect(r.hitRules[0]).toMatchObject({ ruleId: 'R-87', ruleAction: 'FLAG', nature: 'FRAUD' });
  });

  const defaultRows = [
    { name: 'RU', country: 'RU', expected: ['ORIGIN'] },
    { name: 'UA', country: 'UA', expected: ['ORIGIN'] },
    { name: 'an unlisted country (IR)', country: 'IR', expected: [] },
  ];
  for (const row of defaultRows) {
    it(`uses the default list (RU, SY, RO, UA) when no parameters are given: ${row.name}`, async () => {
      const engine = await engineWith(null);
      expect(hitsOf(await engine.createTransaction(withDevices(row.country, undefined)))).toEqual(row.expected);
    });
  }

  const badRows = [
    { name: 'an empty list', parameters: { highRiskCountries: [] }, path: '/parameters/highRiskCountries' },
    { name: 'an unknown country code', parameters: { highRiskCountries: ['IR', 'XX'] }, path: '/parameters/highRiskCountries/1' },
    { name: 'a lower-case country code', parameters: { highRiskCountries: ['ir'] }, path: '/parameters/highRiskCountries/0' },
    { name: 'a repeated country', parameters: { highRiskCountries: ['IR', 'IR'] }, path: '/parameters/highRiskCountries' },
    { name: 'an unknown parameter', parameters: { highRiskCountries: ['IR'], ipCountries: ['IR'] }, path: '/parameters/ipCountries' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-87', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const COUNTRIES = ['DE', 'FR', 'IR', 'KP', 'RU', 'US'] as const;
  const side = fc.option(fc.constantFrom(...COUNTRIES), { nil: undefined });
  const list = fc.subarray([...COUNTRIES], { minLength: 1 });
  test.prop([side, side, list, fc.constantFrom(...COUNTRIES)], { numRuns: 40 })(
    'adding a country to the list can only add hit sides, and a side hits exactly when its IP country is listed',
    async (origin, destination, countries, added) => {
      const run = async (highRiskCountries: string[]) => {
        const engine = await engineWith({ highRiskCountries });
        return hitsOf(await engine.createTransaction(withDevices(origin, destination)));
      };
      const before = await run(countries);
      const after = await run(countries.includes(added) ? countries : [...countries, added]);
      for (const d of before) expect(after).toContain(d);
      const expected = [
        ...(origin !== undefined && countries.includes(origin) ? ['ORIGIN'] : []),
        ...(destination !== undefined && countries.includes(destination) ? ['DESTINATION'] : []),
      ];
      expect(before).toEqual(expected);
    },
  );
});
