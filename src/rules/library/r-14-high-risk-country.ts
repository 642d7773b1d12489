import { Type } from '@sinclair/typebox';
import { defineRule } from '../define-rule.js';
import { listedEvidence } from '../kits/evidence.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    highRiskCountries: Type.Array(Type.String({ format: 'country-code' }), {
      title: 'High-risk countries',
      description: 'ISO 3166-1 alpha-2 codes. The origin country hits the sender side, the destination country the receiver side.',
      minItems: 1,
      maxItems: 300,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false, title: 'R-14 parameters' },
);

/**
 * R-14 High risk country: the origin or destination country (`originAmountDetails.country`,
 * `destinationAmountDetails.country`) is on the list — e.g. the FATF "call for action" and EU
 * high-risk third-country lists (Regulation (EU) 2016/1675).
 */
export const r14HighRiskCountry = defineRule({
  id: 'R-14',
  name: 'High risk country',
  description: 'Origin or destination country of the transaction is a high-risk country.',
  descriptionTemplate: '{{side}} country {{country}} is a high-risk country.',
  parametersSchema: ParametersSchema,
  defaultParameters: { highRiskCountries: ['RU', 'SY', 'RO', 'UA'] },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Transaction country'],
  types: ['Risk exposure'],
  typologies: ['High risk transactions', 'Terrorist financing'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const hits: RuleHit[] = [];
    const list = parameters.highRiskCountries;
    const origin = transaction.originAmountDetails?.country;
    if (origin !== undefined && list.includes(origin)) {
      hits.push({
        direction: 'ORIGIN',
        vars: { side: 'Origin', country: origin },
        evidence: [listedEvidence('ORIGIN', 'country', origin, 'highRiskCountries')],
      });
    }
    const destination = transaction.destinationAmountDetails?.country;
    if (destination !== undefined && list.includes(destination)) {
      hits.push({
        direction: 'DESTINATION',
        vars: { side: 'Destination', country: destination },
        evidence: [listedEvidence('DESTINATION', 'country', destination, 'highRiskCountries')],
      });
    }
    return hits;
  },
});
