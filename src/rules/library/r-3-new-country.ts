import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from '../../domain/index.js';
import { checkNewness, planNewness, type NewnessSide } from '../newness.js';
import type { RuleDefinition } from '../types.js';

const ParametersSchema = Type.Object(
  {
    initialTransactions: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Initial transactions',
      description: 'The rule applies once the user has at least this many earlier transactions on that side (sent for the sender, received for the receiver).',
    }),
  },
  { additionalProperties: false, title: 'R-3 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

function sides(t: Transaction): NewnessSide[] {
  return [
    { direction: 'ORIGIN', userId: t.originUserId, series: 'user-sending', field: 'counterpartyCountry', value: t.destinationAmountDetails?.country },
    { direction: 'DESTINATION', userId: t.destinationUserId, series: 'user-receiving', field: 'counterpartyCountry', value: t.originAmountDetails?.country },
  ];
}

/**
 * R-3 Transaction to or from a new country: the sender, with at least `initialTransactions` earlier
 * sent transactions, sends to a destination country none of them went to; the receiver likewise
 * receives from a new origin country. Unexpected geography on an established account (FATF
 * Recommendation 10 ongoing due diligence). All time, by timestamp; this transaction excluded.
 */
export const r3NewCountry: RuleDefinition<Parameters> = {
  id: 'R-3',
  name: 'Transaction to or from a new country',
  description: 'A user with an established history transacts with a country it never transacted with before.',
  descriptionTemplate: '{{side}} transacted with {{country}} for the first time after {{history}} earlier transactions.',
  parametersSchema: ParametersSchema,
  defaultParameters: { initialTransactions: 10 },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction country'],
  types: ['New activity'],
  typologies: ['Unusual behaviour', 'Account takeover fraud'],
  series: ['user-sending', 'user-receiving'],
  aggregates({ transaction }) {
    return planNewness(transaction, 'r3', sides(transaction));
  },
  check({ transaction, parameters, aggregates }) {
    return checkNewness('r3', sides(transaction), aggregates, parameters.initialTransactions, (side) => ({
      side: side.direction === 'ORIGIN' ? 'Sender' : 'Receiver',
      country: side.value as string,
      history: aggregates[`r3:${side.direction}:past`] as number,
    }));
  },
};
