import { Type } from '@sinclair/typebox';
import { defineUserRule } from '../define-rule.js';
import type { UserRuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    highRiskCountries: Type.Array(Type.String({ format: 'country-code' }), {
      title: 'High-risk countries',
      description:
        'ISO 3166-1 alpha-2 codes. A consumer hits when its country of residence or of nationality is listed, a business when its registration country is.',
      minItems: 1,
      maxItems: 300,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false, title: 'R-20 parameters' },
);

/**
 * The user's countries R-20 reads, each with the field it comes from and its JSON Pointer in the
 * user, in field order.
 */
export function userCountriesOf(
  type: 'CONSUMER' | 'BUSINESS' | null,
  profile: Readonly<Record<string, unknown>>,
): { field: string; path: string; country: string }[] {
  const found: { field: string; path: string; country: string }[] = [];
  const add = (field: string, path: string, value: unknown) => {
    if (typeof value === 'string') found.push({ field, path, country: value });
  };
  if (type === 'BUSINESS') {
    const legalEntity = profile['legalEntity'] as { companyRegistrationDetails?: { registrationCountry?: unknown } } | undefined;
    add('registration', '/legalEntity/companyRegistrationDetails/registrationCountry', legalEntity?.companyRegistrationDetails?.registrationCountry);
  } else {
    const details = profile['userDetails'] as { countryOfResidence?: unknown; countryOfNationality?: unknown } | undefined;
    add('residence', '/userDetails/countryOfResidence', details?.countryOfResidence);
    add('nationality', '/userDetails/countryOfNationality', details?.countryOfNationality);
  }
  return found;
}

/**
 * R-20 User onboarded from high risk country: a consumer whose `userDetails.countryOfResidence` or
 * `userDetails.countryOfNationality`, or a business whose
 * `legalEntity.companyRegistrationDetails.registrationCountry`, is on the list. Run on every
 * creation and user event, so a user whose country changes to a listed one hits then. Its
 * evidence is one `country` item per listed country of the user, with the field it is in.
 */
export const r20UserOnboardedHighRiskCountry = defineUserRule({
  id: 'R-20',
  name: 'User onboarded from high risk country',
  description: "User's country of residence, nationality or (business) registration is a high-risk country.",
  descriptionTemplate: 'User {{userId}}: country of {{field}} {{country}} is a high-risk country.',
  parametersSchema: ParametersSchema,
  defaultParameters: { highRiskCountries: ['RU', 'SY', 'AF', 'KP', 'SO', 'VE'] },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ["User's country"],
  types: ['Risk exposure'],
  typologies: ['High risk users', 'Terrorist financing'],
  check({ user, parameters }): UserRuleHit | null {
    const listed = userCountriesOf(user.type, user.profile).filter((c) => parameters.highRiskCountries.includes(c.country));
    const hit = listed[0];
    if (hit === undefined) return null;
    return {
      vars: { userId: user.userId, field: hit.field, country: hit.country },
      // Every listed country, not only the one the description names.
      evidence: listed.map((c) => ({
        direction: 'ORIGIN' as const,
        kind: 'country',
        field: c.field,
        path: c.path,
        value: c.country,
        comparison: 'in' as const,
        limit: '/parameters/highRiskCountries',
      })),
    };
  },
});
