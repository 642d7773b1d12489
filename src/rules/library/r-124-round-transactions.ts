import { Type } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { createSideNames, describeSide, getSideReads, sideSeries, USER_SERIES } from '../kits/directions.js';
import { isShareAbovePercent, percentOf, planSideCounts, ROUND_ENTRIES, sumSideCounts } from '../kits/side-counts.js';
import { evidenceWindow } from '../kits/evidence.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    timeWindow: TimeWindowSchema,
    patternPercentageLimit: Type.Number({
      minimum: 0,
      maximum: 100,
      title: 'Round transactions percentage limit',
      description:
        "The rule hits when the share of round transactions (an amount that is a whole multiple of 100 in its own currency) among the user's transactions in the window, this one included, is greater than this percentage. Compared exactly.",
    }),
    initialTransactions: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Initial transactions',
      description: 'The rule only hits once the user has more than this many transactions in the window (this one included).',
    }),
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
  },
  { additionalProperties: false, title: 'R-124 parameters' },
);

const NAMES = createSideNames('round');

/**
 * R-124 Too many round transactions: more than `patternPercentageLimit` % of a user's
 * transactions in the window (this one included) are round — the amount of the user's side is a
 * whole, non-zero multiple of 100 in its own currency (no conversion) — once the user has more
 * than `initialTransactions` transactions in the window. Round amounts are a classic structuring
 * and fabricated-invoice indicator (FATF trade-based ML red flags; FinCEN structuring guidance).
 *
 * Decisions: `initialTransactions` counts the window (the percentage's own sample), not all time;
 * the comparison is exact (`round × 100 > limit × total` on scaled integers); any transaction of a
 * user over the percentage hits, round or not.
 */
export const r124RoundTransactions = defineRule({
  id: 'R-124',
  name: 'Too many round transactions',
  description: "A high share of a user's transactions within a time window have round amounts (multiples of 100).",
  descriptionTemplate: '{{side}} made {{round}} round transactions out of {{total}} in {{window}}, more than {{limit}}%.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    timeWindow: { units: 7, granularity: 'day', rollingBasis: true },
    patternPercentageLimit: 50,
    initialTransactions: 10,
    checkSender: 'all',
    checkReceiver: 'all',
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Transaction amount', 'No. of transactions'],
  types: ['Anomaly detection'],
  typologies: ['Structuring', 'Trade-based money laundering'],
  series: USER_SERIES,
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  aggregates({ transaction, parameters }) {
    const start = windowStart(transaction.timestamp, parameters.timeWindow);
    return planSideCounts(transaction, parameters, NAMES, () => [
      { suffix: 'total', start, fn: 'count' },
      { suffix: 'round', start, fn: 'countIn', countIn: ROUND_ENTRIES },
    ]);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const reads = getSideReads(transaction, parameters, NAMES, direction);
      if (!reads) continue;
      const total = sumSideCounts(aggregates, reads, 'total');
      const round = sumSideCounts(aggregates, reads, 'round');
      if (total <= parameters.initialTransactions || !isShareAbovePercent(round, total, parameters.patternPercentageLimit)) continue;
      const window = evidenceWindow(windowStart(transaction.timestamp, parameters.timeWindow), transaction.timestamp, parameters.timeWindow);
      hits.push({
        direction,
        evidence: [
          // `round > limit % × total`, the rule's exact comparison, the limit an exact decimal (as R-125).
          {
            direction,
            kind: 'roundCount',
            value: round,
            comparison: '>',
            limit: percentOf(parameters.patternPercentageLimit, total),
            window,
            transactionCount: total,
          },
          { direction, kind: 'transactionCount', value: total, comparison: '>', limit: parameters.initialTransactions, window },
        ],
        vars: {
          side: describeSide(direction),
          round,
          total,
          window: describeTimeWindow(parameters.timeWindow),
          limit: parameters.patternPercentageLimit,
        },
      });
    }
    return hits;
  },
});
