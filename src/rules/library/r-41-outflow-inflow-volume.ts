import { Type, type Static } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { TimeWindowSchema, describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { SCHEMA_LIMITS } from '../../domain/schemas/common.js';
import { formatMoney } from '../../domain/money.js';
import type { Transaction } from '../../domain/index.js';
import { contributionsOf, type SeriesName } from '../series.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

/** Largest accepted number of transaction types per list. */
const MAX_TYPES = 100;

function defineTransactionTypes(title: string, description: string) {
  return Type.Array(
    Type.String({
      minLength: 1,
      maxLength: SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH,
      title: 'Transaction type',
      description: 'A transaction `type` (e.g. DEPOSIT, WITHDRAWAL, TRANSFER), compared exactly.',
    }),
    { title, description, minItems: 1, maxItems: MAX_TYPES, uniqueItems: true },
  );
}

const ParametersSchema = Type.Object(
  {
    timeWindow: TimeWindowSchema,
    outflowTransactionTypes: defineTransactionTypes(
      'Outflow transaction types',
      "The user's SENT transactions of these types are its outflow. The sender side is checked only when this transaction's type is one of them.",
    ),
    inflowTransactionTypes: defineTransactionTypes(
      'Inflow transaction types',
      "The user's RECEIVED transactions of these types are its inflow. The receiver side is checked only when this transaction's type is one of them.",
    ),
    outflowInflowComparator: Type.Union([Type.Literal('GREATER_THAN_OR_EQUAL_TO'), Type.Literal('LESS_THAN_OR_EQUAL_TO')], {
      title: 'Outflow vs inflow comparator',
      description:
        'GREATER_THAN_OR_EQUAL_TO hits when the outflow volume is at or above the inflow volume (money leaves as fast as it comes in); LESS_THAN_OR_EQUAL_TO when it is at or below. Compared exactly in the base currency.',
    }),
  },
  { additionalProperties: false, title: 'R-41 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';

const FLOW_SERIES: ReadonlySet<SeriesName> = new Set(['user-sending', 'user-receiving']);

/** The need names of one side: outflow / inflow volume (sum) and number of transactions (count). */
const NAMES: Readonly<Record<Direction, { outSum: string; outCount: string; inSum: string; inCount: string }>> = {
  ORIGIN: { outSum: 'R-41:ORIGIN:outSum', outCount: 'R-41:ORIGIN:outCount', inSum: 'R-41:ORIGIN:inSum', inCount: 'R-41:ORIGIN:inCount' },
  DESTINATION: {
    outSum: 'R-41:DESTINATION:outSum',
    outCount: 'R-41:DESTINATION:outCount',
    inSum: 'R-41:DESTINATION:inSum',
    inCount: 'R-41:DESTINATION:inCount',
  },
};

/** The user a side checks, or `undefined` when it has none or this transaction's type does not start that side. */
function selectSideUser(transaction: Transaction, parameters: Parameters, direction: Direction): string | undefined {
  if (direction === 'ORIGIN') return parameters.outflowTransactionTypes.includes(transaction.type) ? transaction.originUserId : undefined;
  return parameters.inflowTransactionTypes.includes(transaction.type) ? transaction.destinationUserId : undefined;
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const start = windowStart(end, parameters.timeWindow);
  const needs: AggregateNeed[] = [];
  for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
    const user = selectSideUser(transaction, parameters, direction);
    if (!user) continue;
    const names = NAMES[direction];
    // sumIn cannot merge the current transaction, so neither do the counts: check adds it to both.
    const common = { key: user, start, end, field: 'type', excludeId: transaction.transactionId, includeCurrent: false } as const;
    const out = { ...common, series: 'user-sending', values: parameters.outflowTransactionTypes } as const;
    const inflow = { ...common, series: 'user-receiving', values: parameters.inflowTransactionTypes } as const;
    needs.push(
      { ...out, name: names.outSum, fn: 'sumIn' },
      { ...out, name: names.outCount, fn: 'countIn' },
      { ...inflow, name: names.inSum, fn: 'sumIn' },
      { ...inflow, name: names.inCount, fn: 'countIn' },
    );
  }
  return needs;
}

function bigintOf(value: AggregateValue | undefined): bigint {
  return typeof value === 'bigint' ? value : 0n;
}

function numberOf(value: AggregateValue | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/**
 * R-41 Transaction's sending volume compared to receiving volume: within the window, a user's
 * outflow volume (its sent transactions whose type is in `outflowTransactionTypes`, origin
 * amounts) compared with its inflow volume (its received transactions of
 * `inflowTransactionTypes`, destination amounts) by `outflowInflowComparator` — e.g. withdrawals
 * at or above deposits: pass-through / rapid movement of funds, a money-mule and layering red flag
 * (FATF money-mule indicators), or card top-ups cashed out (acquiring fraud).
 *
 * The sender side (ORIGIN) is checked when this transaction's type is an outflow type, the
 * receiver side (DESTINATION) when it is an inflow type; each on its own user's history, this
 * transaction included. A side needs at least one outflow and one inflow transaction in the window.
 * Volumes are exact sums in the engine's base currency (an amount without a rate counts as a
 * transaction but adds nothing) and compared exactly.
 *
 * Not implemented: Flagright's optional 3DS-done percentage guards
 * (`outflow3dsDonePercentageThreshold` / `inflow3dsDonePercentageThreshold`): stored history does
 * not record whether a past card payment had 3DS done, so they are not in the schema.
 */
export const r41OutflowInflowVolume: RuleDefinition<Parameters> = {
  id: 'R-41',
  name: "Transaction's sending volume compared to receiving volume",
  description: "A user's outflow volume of some transaction types compared with its inflow volume of others within a time window.",
  descriptionTemplate: '{{side}} outflow of {{outflow}} is {{relation}} the inflow of {{inflow}} in {{window}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    timeWindow: { units: 30, granularity: 'day', rollingBasis: true },
    outflowTransactionTypes: ['WITHDRAWAL'],
    inflowTransactionTypes: ['DEPOSIT'],
    outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO',
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction volume'],
  types: ['Volume comparison'],
  typologies: ['Money mules', 'Layering', 'Acquiring fraud'],
  series: ['user-sending', 'user-receiving'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, money, currentCounts }): RuleHit[] {
    const hits: RuleHit[] = [];
    // With historical filters the current transaction is added only when it passes them (D-115).
    let current: ReturnType<typeof contributionsOf> | undefined = currentCounts === false ? [] : undefined;
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const user = selectSideUser(transaction, parameters, direction);
      if (!user) continue;
      const names = NAMES[direction];
      let outflow = bigintOf(aggregates[names.outSum]);
      let outCount = numberOf(aggregates[names.outCount]);
      let inflow = bigintOf(aggregates[names.inSum]);
      let inCount = numberOf(aggregates[names.inCount]);
      // This transaction's own entries (a self-transfer can be both an outflow and an inflow).
      current ??= contributionsOf(transaction, FLOW_SERIES, money);
      for (const entry of current) {
        if (entry.key !== user) continue;
        const type = entry.values?.type ?? '';
        if (entry.series === 'user-sending' && parameters.outflowTransactionTypes.includes(type)) {
          outCount += 1;
          if (entry.amount !== null) outflow += entry.amount;
        } else if (entry.series === 'user-receiving' && parameters.inflowTransactionTypes.includes(type)) {
          inCount += 1;
          if (entry.amount !== null) inflow += entry.amount;
        }
      }
      if (outCount === 0 || inCount === 0) continue;
      const atOrAbove = parameters.outflowInflowComparator === 'GREATER_THAN_OR_EQUAL_TO';
      if (atOrAbove ? outflow < inflow : outflow > inflow) continue;
      hits.push({
        direction,
        vars: {
          side: direction === 'ORIGIN' ? 'Sender' : 'Receiver',
          outflow: formatMoney(outflow, money.baseCurrency),
          inflow: formatMoney(inflow, money.baseCurrency),
          relation: atOrAbove ? 'at or above' : 'at or below',
          window: describeTimeWindow(parameters.timeWindow),
        },
      });
    }
    return hits;
  },
};
