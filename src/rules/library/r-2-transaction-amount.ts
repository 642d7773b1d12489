import { Type } from '@sinclair/typebox';
import { formatMoney, toScaled } from '../../domain/money.js';
import { defineRule } from '../define-rule.js';
import { amountEvidence } from '../kits/evidence.js';
import { amountThresholdsSchema, reachesThreshold, resolveThreshold, statedThreshold } from '../parameters.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  { transactionAmountThreshold: amountThresholdsSchema({ minProperties: 1 }) },
  { additionalProperties: false, title: 'R-2 parameters' },
);
const NO_HITS: readonly RuleHit[] = Object.freeze([]);

/**
 * R-2 Transaction amount too high: the origin amount is at or above the threshold (≥), the
 * single-transaction reporting trigger of most AML regimes (e.g. EU AMLD occasional-transaction
 * thresholds). Hits both sides.
 */
export const r2TransactionAmount = defineRule({
  id: 'R-2',
  name: 'Transaction amount too high',
  description: 'Transaction amount is at or above a threshold.',
  descriptionTemplate: 'Transaction amount is {{amount}}, at or above the threshold of {{threshold}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { transactionAmountThreshold: { USD: 10000 } },
  defaultAction: 'SUSPEND',
  defaultNature: 'AML',
  checksFor: ['Transaction amount'],
  types: ['Risk exposure'],
  typologies: ['High risk transactions'],
  series: [],
  check({ transaction, parameters, money }): readonly RuleHit[] {
    const details = transaction.originAmountDetails;
    if (!details) return NO_HITS;
    const amount = toScaled(details.transactionAmount);
    const thresholds = parameters.transactionAmountThreshold;
    // Most transactions stay below: test first, resolve (allocating) only to describe a hit.
    if (!reachesThreshold(thresholds, amount, details.transactionCurrency, money, transaction.timestamp)) return NO_HITS;
    const resolved = resolveThreshold(thresholds, amount, details.transactionCurrency, money, transaction.timestamp);
    if (!resolved) return NO_HITS;
    const vars = {
      amount: formatMoney(amount, details.transactionCurrency),
      threshold: statedThreshold(thresholds, resolved),
    };
    const original = { amount, currency: details.transactionCurrency };
    return [
      { direction: 'ORIGIN', vars, evidence: [amountEvidence('ORIGIN', 'amount', resolved, '>=', original)] },
      { direction: 'DESTINATION', vars, evidence: [amountEvidence('DESTINATION', 'amount', resolved, '>=', original)] },
    ];
  },
});
