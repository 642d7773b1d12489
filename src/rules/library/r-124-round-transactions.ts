import { Type, type Static } from '@sinclair/typebox';
import { TimeWindowSchema, describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { MONEY_SCALE, toScaled } from '../../domain/money.js';
import type { Transaction } from '../../domain/index.js';
import { createSideNames, receiverReads, senderReads, type SideRead } from '../directions.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

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
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';

const NAMES = createSideNames('round');

function needNames(read: SideRead) {
  return { total: `${read.name}:total`, round: `${read.name}:round` };
}

function sideReads(transaction: Transaction, parameters: Parameters, direction: Direction): readonly SideRead[] | null {
  return direction === 'ORIGIN'
    ? senderReads(transaction, parameters.checkSender, NAMES)
    : receiverReads(transaction, parameters.checkReceiver, NAMES);
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const start = windowStart(end, parameters.timeWindow);
  const needs: AggregateNeed[] = [];
  for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
    const reads = sideReads(transaction, parameters, direction);
    const key = direction === 'ORIGIN' ? transaction.originUserId : transaction.destinationUserId;
    if (!reads || !key) continue;
    for (const r of reads) {
      const names = needNames(r);
      const base = { series: r.series, key, start, end, excludeId: transaction.transactionId, includeCurrent: true } as const;
      needs.push({ ...base, name: names.total, fn: 'count' });
      needs.push({ ...base, name: names.round, fn: 'countIn', field: 'round', values: ['1'] });
    }
  }
  return needs;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** `part / total > percent %`, exactly (the percentage is read as its decimal text). */
function exceedsPercentage(part: number, total: number, percent: number): boolean {
  return BigInt(part) * 100n * MONEY_SCALE > toScaled(percent) * BigInt(total);
}

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
export const r124RoundTransactions: RuleDefinition<Parameters> = {
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
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction amount', 'No. of transactions'],
  types: ['Anomaly detection'],
  typologies: ['Structuring', 'Trade-based money laundering'],
  series: ['user-sending', 'user-receiving', 'user-all'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const reads = sideReads(transaction, parameters, direction);
      if (!reads) continue;
      let total = 0;
      let round = 0;
      for (const r of reads) {
        const names = needNames(r);
        total += numberOf(aggregates[names.total]);
        round += numberOf(aggregates[names.round]);
      }
      if (total <= parameters.initialTransactions || !exceedsPercentage(round, total, parameters.patternPercentageLimit)) continue;
      hits.push({
        direction,
        vars: {
          side: direction === 'ORIGIN' ? 'Sender' : 'Receiver',
          round,
          total,
          window: describeTimeWindow(parameters.timeWindow),
          limit: parameters.patternPercentageLimit,
        },
      });
    }
    return hits;
  },
};
