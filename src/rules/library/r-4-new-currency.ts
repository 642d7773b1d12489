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
  { additionalProperties: false, title: 'R-4 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

function sides(t: Transaction): NewnessSide[] {
  return [
    { direction: 'ORIGIN', userId: t.originUserId, series: 'user-sending', field: 'currency', value: (t.originAmountDetails ?? t.destinationAmountDetails)?.transactionCurrency },
    { direction: 'DESTINATION', userId: t.destinationUserId, series: 'user-receiving', field: 'currency', value: (t.destinationAmountDetails ?? t.originAmountDetails)?.transactionCurrency },
  ];
}

/**
 * R-4 Transaction including a new currency: the sender, with at least `initialTransactions` earlier
 * sent transactions, sends in a currency none of them used; the receiver likewise receives in a new
 * currency. All time, by timestamp; this transaction excluded.
 */
export const r4NewCurrency: RuleDefinition<Parameters> = {
  id: 'R-4',
  name: 'Transaction including a new currency',
  description: 'A user with an established history transacts in a currency it never used before.',
  descriptionTemplate: '{{side}} used {{currency}} for the first time after {{history}} earlier transactions.',
  parametersSchema: ParametersSchema,
  defaultParameters: { initialTransactions: 10 },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction currency'],
  types: ['New activity'],
  typologies: ['Unusual behaviour'],
  series: ['user-sending', 'user-receiving'],
  aggregates({ transaction }) {
    return planNewness(transaction, 'r4', sides(transaction));
  },
  check({ transaction, parameters, aggregates }) {
    return checkNewness('r4', sides(transaction), aggregates, parameters.initialTransactions, (side) => ({
      side: side.direction === 'ORIGIN' ? 'Sender' : 'Receiver',
      currency: side.value as string,
      history: aggregates[`r4:${side.direction}:past`] as number,
    }));
  },
};
