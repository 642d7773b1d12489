import { Type } from '@sinclair/typebox';
import type { RuleEvidence } from '../../domain/index.js';
import { formatMoney, toScaled } from '../../domain/money.js';
import { defineRule } from '../define-rule.js';
import { amountEvidence } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { amountThresholdsSchema, reachesThreshold, resolveThreshold } from '../parameters.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionAmountThreshold: Type.Optional(
      amountThresholdsSchema({
        title: 'Minimum amount',
        description: 'When set, the first transaction only hits when its amount is at or above this threshold.',
      }),
    ),
  },
  { additionalProperties: false, title: 'R-1 parameters' },
);

const PRIOR = 'priorSending';

/**
 * R-1 First transaction of a user: the sender has no earlier sending transaction (any timestamp
 * up to and including this one, other than this transaction), optionally only above an amount.
 * New-relationship monitoring (FATF Recommendation 10, ongoing due diligence). Hits the sender.
 */
export const r1FirstTransaction = defineRule({
  id: 'R-1',
  name: 'First transaction of a user',
  description: 'First outgoing transaction of a user.',
  descriptionTemplate: 'First sending transaction of the user ({{amount}}).',
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['No. of transactions'],
  types: ['New activity'],
  typologies: ['Account takeover fraud', 'Money mules'],
  series: ['user-sending'],
  readsEntryValues: false,
  aggregates({ transaction }) {
    if (!transaction.originUserId) return [];
    return [
      createNeed(PRIOR, 'user-sending', transaction.originUserId, Number.NEGATIVE_INFINITY, transaction.timestamp, 'count', transaction.transactionId, false),
    ];
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    if (!transaction.originUserId) return [];
    if (aggregates[PRIOR] !== 0) return [];
    const details = transaction.originAmountDetails;
    const amount = details ? formatMoney(toScaled(details.transactionAmount), details.transactionCurrency) : 'no amount';
    const thresholds = parameters.transactionAmountThreshold;
    // No earlier sent transaction of the user, and the amount against the threshold when one is set.
    const evidence: RuleEvidence[] = [{ direction: 'ORIGIN', kind: 'history', value: 0, comparison: '=', limit: 0 }];
    if (thresholds && Object.keys(thresholds).length > 0) {
      if (!details) return [];
      const scaled = toScaled(details.transactionAmount);
      if (!reachesThreshold(thresholds, scaled, details.transactionCurrency, money, transaction.timestamp)) return [];
      const resolved = resolveThreshold(thresholds, scaled, details.transactionCurrency, money, transaction.timestamp);
      if (resolved) evidence.push(amountEvidence('ORIGIN', 'amount', resolved, '>=', { amount: scaled, currency: details.transactionCurrency }));
    }
    return [{ direction: 'ORIGIN', vars: { amount }, evidence }];
  },
});
