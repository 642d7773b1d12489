import { Type, type Static } from '@sinclair/typebox';
import type { PaymentDetails } from '../../domain/index.js';
import { defineRule } from '../define-rule.js';
import { listedEvidence } from '../kits/evidence.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    blacklistedCountries: Type.Array(Type.String({ format: 'country-code' }), {
      title: 'Blacklisted card-issuing countries',
      description:
        'ISO 3166-1 alpha-2 codes (upper case). A card issued in one of them hits the side that pays or receives with it (origin card: sender; destination card: receiver).',
      minItems: 1,
      maxItems: 300,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false, title: 'R-22 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

// One Set per parameters object: the check is a hash lookup even for long lists.
const countrySets = new WeakMap<object, ReadonlySet<string>>();

function listedCountries(parameters: Parameters): ReadonlySet<string> {
  let set = countrySets.get(parameters);
  if (!set) {
    set = new Set(parameters.blacklistedCountries);
    countrySets.set(parameters, set);
  }
  return set;
}

/** The issuing country of a card payment, or `undefined` for other methods and cards without one. */
function cardIssuedCountryOf(details: PaymentDetails | undefined): string | undefined {
  return details?.method === 'CARD' ? details.cardIssuedCountry : undefined;
}

/**
 * R-22 Blacklisted card-issued country: the payment details of a side are a card (`method: CARD`)
 * whose `cardIssuedCountry` is on the list — cards issued in sanctioned or high-risk
 * jurisdictions (FATF "call for action" and EU high-risk third countries, OFAC / EU sanctions
 * programmes). The origin card hits the sender side, the destination card the receiver side; any
 * other payment method, or a card without an issuing country, never hits. Codes are compared
 * exactly (the schemas only accept upper-case codes). Default list: RU, YE, IR, KP, VE, CU, BY, SY,
 * AF (the nine countries the source names before its "…", docs/wire-format.md#rule-library).
 */
export const r22BlacklistedCardCountry = defineRule({
  id: 'R-22',
  name: 'Blacklisted card-issued country',
  description: 'A card used in the transaction (origin or destination) was issued in a blacklisted country.',
  descriptionTemplate: '{{side}} card was issued in blacklisted country {{country}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { blacklistedCountries: ['RU', 'YE', 'IR', 'KP', 'VE', 'CU', 'BY', 'SY', 'AF'] },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Card issued country'],
  types: ['Risk exposure'],
  typologies: ['High risk transactions', 'Sanctions evasion'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const hits: RuleHit[] = [];
    const listed = listedCountries(parameters);
    const origin = cardIssuedCountryOf(transaction.originPaymentDetails);
    if (origin !== undefined && listed.has(origin)) {
      hits.push({
        direction: 'ORIGIN',
        vars: { side: 'Origin', country: origin },
        evidence: [listedEvidence('ORIGIN', 'cardIssuedCountry', origin, 'blacklistedCountries')],
      });
    }
    const destination = cardIssuedCountryOf(transaction.destinationPaymentDetails);
    if (destination !== undefined && listed.has(destination)) {
      hits.push({
        direction: 'DESTINATION',
        vars: { side: 'Destination', country: destination },
        evidence: [listedEvidence('DESTINATION', 'cardIssuedCountry', destination, 'blacklistedCountries')],
      });
    }
    return hits;
  },
});
