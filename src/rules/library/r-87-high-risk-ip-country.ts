import { Type } from '@sinclair/typebox';
import { defineRule } from '../define-rule.js';
import { listedEvidence } from '../kits/evidence.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    highRiskCountries: Type.Array(Type.String({ format: 'country-code' }), {
      title: 'High-risk IP countries',
      description:
        "ISO 3166-1 alpha-2 codes. The sender's IP country (`originDeviceData.ipCountry`) hits the sender side, the receiver's (`destinationDeviceData.ipCountry`) the receiver side. A transaction without an IP country does not hit: no geo-IP lookup is made.",
      minItems: 1,
      maxItems: 300,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false, title: 'R-87 parameters' },
);

/**
 * R-87 High risk IP address countries: the country of a side's device IP address is on the list —
 * a high-risk-geography red flag on the channel rather than the account (FATF Recommendation 19,
 * higher-risk countries; EBA ML/TF risk factor guidelines on delivery channels; a device abroad in
 * a high-risk country is also an account-takeover signal).
 *
 * The country is the one the host sends: `originDeviceData.ipCountry` (ORIGIN) and
 * `destinationDeviceData.ipCountry` (DESTINATION). The engine does no geo-IP lookup of
 * `ipAddress`, so a transaction without `ipCountry` on a side does not hit that side.
 */
export const r87HighRiskIpCountry = defineRule({
  id: 'R-87',
  name: 'High risk IP address countries',
  description: "The country of the sender's or receiver's device IP address is a high-risk country.",
  descriptionTemplate: '{{side}} IP address country {{country}} is a high-risk country.',
  parametersSchema: ParametersSchema,
  defaultParameters: { highRiskCountries: ['RU', 'SY', 'RO', 'UA'] },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['IP address country'],
  types: ['Risk exposure'],
  typologies: ['High risk transactions', 'Account takeover fraud'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const hits: RuleHit[] = [];
    const list = parameters.highRiskCountries;
    const origin = transaction.originDeviceData?.ipCountry;
    if (origin !== undefined && list.includes(origin)) {
      hits.push({
        direction: 'ORIGIN',
        vars: { side: 'Sender', country: origin },
        evidence: [listedEvidence('ORIGIN', 'ipCountry', origin, 'highRiskCountries')],
      });
    }
    const destination = transaction.destinationDeviceData?.ipCountry;
    if (destination !== undefined && list.includes(destination)) {
      hits.push({
        direction: 'DESTINATION',
        vars: { side: 'Receiver', country: destination },
        evidence: [listedEvidence('DESTINATION', 'ipCountry', destination, 'highRiskCountries')],
      });
    }
    return hits;
  },
});
