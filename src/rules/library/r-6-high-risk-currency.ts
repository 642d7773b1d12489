import { Type, type Static } from '@sinclair/typebox';
import { defineRule } from '../define-rule.js';
import { listedEvidence } from '../kits/evidence.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    highRiskCurrencies: Type.Array(Type.String({ format: 'currency-code' }), {
      title: 'High-risk currencies',
      description:
        'Currency codes (ISO 4217 and the other accepted codes, upper case). The origin currency hits the sender side, the destination currency the receiver side.',
      minItems: 1,
      maxItems: 1000,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false, title: 'R-6 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

// One Set per parameters object: the check is a hash lookup even for long lists.
const currencySets = new WeakMap<object, ReadonlySet<string>>();

function listedCurrencies(parameters: Parameters): ReadonlySet<string> {
  let set = currencySets.get(parameters);
  if (!set) {
    set = new Set(parameters.highRiskCurrencies);
    currencySets.set(parameters, set);
  }
  return set;
}

/**
 * R-6 Transaction including a high risk currency: the origin currency
 * (`originAmountDetails.transactionCurrency`) or the destination currency
 * (`destinationAmountDetails.transactionCurrency`) is on the list — currencies of sanctioned or
 * high-risk jurisdictions (e.g. RUB, BYN, KPW, SYP under EU / OFAC sanctions programmes), a
 * sanctions-evasion and high-risk-jurisdiction typology. The origin currency hits the sender side,
 * the destination currency the receiver side. Codes are compared exactly: the schemas only accept
 * upper-case codes, on both the transaction and the parameters.
 */
export const r6HighRiskCurrency = defineRule({
  id: 'R-6',
  name: 'Transaction including a high risk currency',
  description: 'Origin or destination currency of the transaction is a high-risk currency.',
  descriptionTemplate: '{{side}} currency {{currency}} is a high-risk currency.',
  parametersSchema: ParametersSchema,
  defaultParameters: { highRiskCurrencies: ['AFN', 'BYN', 'KPW', 'LYD', 'RUB', 'SYP'] },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Transaction currency'],
  types: ['Risk exposure'],
  typologies: ['High risk transactions', 'Sanctions evasion'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const hits: RuleHit[] = [];
    const listed = listedCurrencies(parameters);
    const origin = transaction.originAmountDetails?.transactionCurrency;
    if (origin !== undefined && listed.has(origin)) {
      hits.push({
        direction: 'ORIGIN',
        vars: { side: 'Origin', currency: origin },
        evidence: [listedEvidence('ORIGIN', 'currency', origin, 'highRiskCurrencies')],
      });
    }
    const destination = transaction.destinationAmountDetails?.transactionCurrency;
    if (destination !== undefined && listed.has(destination)) {
      hits.push({
        direction: 'DESTINATION',
        vars: { side: 'Destination', currency: destination },
        evidence: [listedEvidence('DESTINATION', 'currency', destination, 'highRiskCurrencies')],
      });
    }
    return hits;
  },
});
