import { describe, expect, it } from 'vitest';
import { DAY, T0, testEngine } from '../helpers.js';

/** R-20 boundary table, through the engine: which of the user's countries hit, for consumers and businesses. */

interface Row {
  name: string;
  type: 'CONSUMER' | 'BUSINESS';
  countries: { residence?: string; nationality?: string; registration?: string };
  /** The `{{field}} {{country}}` named in the description; `null`: no hit. */
  named: string | null;
  /** The hit's evidence items as `field value path`. */
  evidence?: string[];
}

const LIST = ['IR', 'KP'];

const rows: Row[] = [
  {
    name: 'a listed residence hits',
    type: 'CONSUMER',
    countries: { residence: 'KP', nationality: 'DE' },
    named: 'residence KP',
    evidence: ['residence KP /userDetails/countryOfResidence'],
  },
  {
    name: 'a listed nationality hits',
    type: 'CONSUMER',
    countries: { residence: 'DE', nationality: 'IR' },
    named: 'nationality IR',
    evidence: ['nationality IR /userDetails/countryOfNationality'],
  },
  {
    name: 'both listed: the residence is named',
    type: 'CONSUMER',
    countries: { residence: 'IR', nationality: 'KP' },
    named: 'residence IR',
    evidence: ['residence IR /userDetails/countryOfResidence', 'nationality KP /userDetails/countryOfNationality'],
  },
  { name: 'unlisted countries do not hit', type: 'CONSUMER', countries: { residence: 'DE', nationality: 'FR' }, named: null },
  { name: 'a consumer without countries does not hit', type: 'CONSUMER', countries: {}, named: null },
  { name: "a consumer's registration country is not read", type: 'CONSUMER', countries: { registration: 'KP' }, named: null },
  {
    name: 'a business registered in a listed country hits',
    type: 'BUSINESS',
    countries: { registration: 'KP' },
    named: 'registration KP',
    evidence: ['registration KP /legalEntity/companyRegistrationDetails/registrationCountry'],
  },
  { name: 'a business registered elsewhere does not hit', type: 'BUSINESS', countries: { registration: 'DE' }, named: null },
  { name: 'a business without registration details does not hit', type: 'BUSINESS', countries: {}, named: null },
];

function userOf(row: Row, userId: string): Record<string, unknown> {
  const { residence, nationality, registration } = row.countries;
  const registrationDetails = registration === undefined ? {} : { companyRegistrationDetails: { registrationCountry: registration } };
  if (row.type === 'BUSINESS')
    return { userId, createdTimestamp: T0 - DAY, legalEntity: { companyGeneralDetails: { legalName: 'Co' }, ...registrationDetails } };
  return {
    userId,
    createdTimestamp: T0 - DAY,
    userDetails: { ...(residence ? { countryOfResidence: residence } : {}), ...(nationality ? { countryOfNationality: nationality } : {}) },
    // A consumer carrying a business's field (open object): R-20 does not read it for a consumer.
    ...(registration === undefined ? {} : { legalEntity: registrationDetails }),
  };
}

describe('R-20 user onboarded from high risk country', () => {
  for (const [i, row] of rows.entries()) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-20', parameters: { highRiskCountries: LIST } });
      const userId = `u-${i}`;
      const result = await engine.createUser(userOf(row, userId) as never, { type: row.type });
      const hit = row.named !== null;
      expect(result.executedRules).toEqual([expect.objectContaining({ ruleId: 'R-20', ruleHit: hit, ruleAction: 'FLAG' })]);
      expect(result.hitRules).toHaveLength(hit ? 1 : 0);
      if (hit) expect(result.hitRules[0]?.ruleDescription).toBe(`User ${userId}: country of ${row.named} is a high-risk country.`);
      // Evidence: every listed country of the user, the named one first, with where it is.
      const evidence = ((result.hitRules[0]?.ruleHitMeta?.evidence ?? []) as Record<string, unknown>[]).map((e) => `${e.field} ${e.value} ${e.path}`);
      expect(evidence).toEqual(row.evidence ?? []);
      for (const e of result.hitRules[0]?.ruleHitMeta?.evidence ?? [])
        expect(e).toMatchObject({ direction: 'ORIGIN', kind: 'country', comparison: 'in', limit: '/parameters/highRiskCountries' });
    });
  }

  it('with default parameters hits the six listed countries (RU, SY, AF, KP, SO, VE) and not others', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-20' });
    const hits: string[] = [];
    for (const country of ['RU', 'SY', 'AF', 'KP', 'SO', 'VE', 'DE', 'IR', 'US']) {
      const result = await engine.createUser({ userId: `d-${country}`, createdTimestamp: T0, userDetails: { countryOfResidence: country } });
      if (result.hitRules.length > 0) hits.push(country);
    }
    expect(hits).toEqual(['RU', 'SY', 'AF', 'KP', 'SO', 'VE']);
  });

  it('refuses an empty list, a duplicate and a code that is not a country, naming the path', async () => {
    const { engine } = testEngine();
    for (const [highRiskCountries, path] of [
      [[], '/parameters/highRiskCountries'],
      [['KP', 'KP'], '/parameters/highRiskCountries'],
      [['XX1'], '/parameters/highRiskCountries/0'],
    ] as const) {
      await expect(engine.createRuleInstance({ ruleId: 'R-20', parameters: { highRiskCountries: [...highRiskCountries] } })).rejects.toMatchObject({
        code: 'INVALID_PARAMETERS',
        details: [expect.objectContaining({ path })],
      });
    }
  });
});
