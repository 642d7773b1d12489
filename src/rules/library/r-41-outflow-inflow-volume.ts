import { Type, type Static } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { MONEY_SCALE, formatMoney, toScaled } from '../../domain/money.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { evidenceMoney, evidenceWindow } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { amountThresholdsSchema, reachesThreshold, transactionTypesSchema } from '../parameters.js';
import { contributionsOf, type SeriesName } from '../series.js';
import type { AggregateNeed, MoneyContext, RuleHit } from '../types.js';

const COMPARATORS = [Type.Literal('GREATER_THAN_OR_EQUAL_TO'), Type.Literal('LESS_THAN_OR_EQUAL_TO')] as const;

/** An optional guard on the share of 3DS-done card transactions among the outflow (inflow) transactions. */
function defineThreeDsGuard(flow: 'Outflow' | 'Inflow', which: string) {
  return Type.Optional(
    Type.Object(
      {
        value: Type.Number({
          minimum: 0,
          maximum: 100,
          title: 'Percentage',
          description: `Percentage (0–100) of the ${which} in the window that were paid by CARD with \`3dsDone: true\`. Compared exactly (decimals to 10^-8).`,
        }),
        comparator: Type.Union([...COMPARATORS], {
          title: 'Comparator',
          description: 'GREATER_THAN_OR_EQUAL_TO: the percentage must be at or above the value; LESS_THAN_OR_EQUAL_TO: at or below it.',
        }),
      },
      {
        additionalProperties: false,
        title: `${flow} 3DS-done percentage`,
        description: `When set, a side hits only if the percentage of 3DS-done card transactions among the user's ${which} in the window (this one included) meets this condition — checked for both sides, whatever side this transaction starts. 3DS is read from ${flow === 'Outflow' ? "each sent transaction's origin" : "each received transaction's destination"} payment details.`,
      },
    ),
  );
}

/** An optional minimum volume of one flow, by currency (as R-69's volume threshold). */
function defineMinVolume(flow: 'Outflow' | 'Inflow', which: string) {
  return Type.Optional(
    amountThresholdsSchema({
      minProperties: 1,
      title: `Minimum ${flow.toLowerCase()} volume`,
      description: `When set, a side hits only if the user's ${which} volume in the window (this transaction included) is at or above this amount. The volume is exact in the engine's base currency and compared in it when it is listed, else converted into the first listed currency and rounded to its minor unit (as R-69's volume threshold); without a rate the side does not hit.`,
    }),
  );
}

/** An optional minimum number of transactions of one flow. */
function defineMinCount(flow: 'Outflow' | 'Inflow', which: string) {
  return Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      title: `Minimum ${flow.toLowerCase()} transactions`,
      description: `When set, a side hits only if the user has at least this many ${which} in the window (this transaction included). Every side already needs one of each.`,
    }),
  );
}

const ParametersSchema = Type.Object(
  {
    timeWindow: TimeWindowSchema,
    outflowTransactionTypes: transactionTypesSchema(
      'Outflow transaction types',
      "The user's SENT transactions of these types are its outflow. The sender side is checked only when this transaction's type is one of them.",
    ),
    inflowTransactionTypes: transactionTypesSchema(
      'Inflow transaction types',
      "The user's RECEIVED transactions of these types are its inflow. The receiver side is checked only when this transaction's type is one of them.",
    ),
    outflowInflowComparator: Type.Union([...COMPARATORS], {
      title: 'Outflow vs inflow comparator',
      description:
        'GREATER_THAN_OR_EQUAL_TO hits when the outflow volume is at or above the inflow volume (money leaves as fast as it comes in); LESS_THAN_OR_EQUAL_TO when it is at or below. Compared exactly in the base currency.',
    }),
    outflow3dsDonePercentageThreshold: defineThreeDsGuard('Outflow', 'outflow transactions (sent, of the outflow types)'),
    inflow3dsDonePercentageThreshold: defineThreeDsGuard('Inflow', 'inflow transactions (received, of the inflow types)'),
    minOutflowVolume: defineMinVolume('Outflow', 'outflow (sent, of the outflow types, origin amounts)'),
    minInflowVolume: defineMinVolume('Inflow', 'inflow (received, of the inflow types, destination amounts)'),
    minOutflowTransactions: defineMinCount('Outflow', 'outflow transactions (sent, of the outflow types)'),
    minInflowTransactions: defineMinCount('Inflow', 'inflow transactions (received, of the inflow types)'),
  },
  { additionalProperties: false, title: 'R-41 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';
type ThreeDsGuard = NonNullable<Parameters['outflow3dsDonePercentageThreshold']>;

const FLOW_SERIES: ReadonlySet<SeriesName> = new Set(['user-sending', 'user-receiving']);

/**
 * The need names of one side: outflow / inflow volume (sum), number of transactions (count) and
 * number of 3DS-done ones among them (asked only when the matching guard is set).
 */
function namesOf(direction: Direction) {
  const p = `R-41:${direction}`;
  return {
    outSum: `${p}:outSum`,
    outCount: `${p}:outCount`,
    outThreeDs: `${p}:outThreeDs`,
    inSum: `${p}:inSum`,
    inCount: `${p}:inCount`,
    inThreeDs: `${p}:inThreeDs`,
  };
}
const NAMES: Readonly<Record<Direction, ReturnType<typeof namesOf>>> = { ORIGIN: namesOf('ORIGIN'), DESTINATION: namesOf('DESTINATION') };

/** The entry value naming the type of a 3DS-done card transaction (absent otherwise): see `entryValues` in series.ts. */
const THREE_DS_TYPE = 'threeDsType';

/**
 * Whether `threeDs` of `total` transactions (total > 0) meets a guard: `threeDs / total × 100`
 * compared with the value, exactly — `threeDs × 100 × 10^8` against `value(10^-8 units) × total`.
 */
function meetsGuard(guard: ThreeDsGuard | undefined, threeDs: number, total: number): boolean {
  if (guard === undefined) return true;
  const percentage = BigInt(threeDs) * 100n * MONEY_SCALE;
  const bound = toScaled(guard.value) * BigInt(total);
  return guard.comparator === 'GREATER_THAN_OR_EQUAL_TO' ? percentage >= bound : percentage <= bound;
}

/** What one side saw in the window, this transaction included: volumes in the base currency (10^-8 units) and counts. */
interface SideFlows {
  readonly outflow: bigint;
  readonly outCount: number;
  readonly inflow: bigint;
  readonly inCount: number;
}

/**
 * Whether a side reaches the optional minimum volumes (≥, resolved as amount thresholds are) and
 * minimum counts (≥): small or sparse flows that balance are everyday life, not pass-through.
 */
function meetsMinimums(parameters: Parameters, flows: SideFlows, money: MoneyContext, at: number): boolean {
  const { minOutflowVolume, minInflowVolume, minOutflowTransactions, minInflowTransactions } = parameters;
  if (minOutflowTransactions !== undefined && flows.outCount < minOutflowTransactions) return false;
  if (minInflowTransactions !== undefined && flows.inCount < minInflowTransactions) return false;
  if (minOutflowVolume !== undefined && !reachesThreshold(minOutflowVolume, flows.outflow, money.baseCurrency, money, at)) return false;
  if (minInflowVolume !== undefined && !reachesThreshold(minInflowVolume, flows.inflow, money.baseCurrency, money, at)) return false;
  return true;
}

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
    const id = transaction.transactionId;
    const out = { field: 'type', values: parameters.outflowTransactionTypes };
    const inflow = { field: 'type', values: parameters.inflowTransactionTypes };
    needs.push(
      createNeed(names.outSum, 'user-sending', user, start, end, 'sumIn', id, false, out),
      createNeed(names.outCount, 'user-sending', user, start, end, 'countIn', id, false, out),
      createNeed(names.inSum, 'user-receiving', user, start, end, 'sumIn', id, false, inflow),
      createNeed(names.inCount, 'user-receiving', user, start, end, 'countIn', id, false, inflow),
    );
    // 3DS-done transactions of the listed types: their `threeDsType` is their type.
    if (parameters.outflow3dsDonePercentageThreshold) {
      needs.push(
        createNeed(names.outThreeDs, 'user-sending', user, start, end, 'countIn', id, false, {
          field: THREE_DS_TYPE,
          values: parameters.outflowTransactionTypes,
        }),
      );
    }
    if (parameters.inflow3dsDonePercentageThreshold) {
      needs.push(
        createNeed(names.inThreeDs, 'user-receiving', user, start, end, 'countIn', id, false, {
          field: THREE_DS_TYPE,
          values: parameters.inflowTransactionTypes,
        }),
      );
    }
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
 * Optional 3DS-done guards (`outflow3dsDonePercentageThreshold`, `inflow3dsDonePercentageThreshold`):
 * the percentage of the side user's outflow (inflow) transactions in the window, this one
 * included, that were paid by CARD with `3dsDone: true` — the origin payment details of a sent
 * transaction, the destination payment details of a received one — must meet `comparator` against
 * `value`, compared exactly in integers. E.g. inflow ≤ 10 % 3DS-done: card top-ups without strong
 * customer authentication being cashed out. Unlike Flagright (which applies the outflow guard only
 * to the sender side and the inflow guard only to the receiver side), every guard set applies to
 * both sides: the verdict depends only on the user's window, not on which transaction arrives.
 *
 * Optional minimums (txmon's, not Flagright's): `minOutflowVolume` / `minInflowVolume` (amount
 * thresholds by currency, ≥, resolved as R-69's volume threshold) and `minOutflowTransactions` /
 * `minInflowTransactions` (≥), so a side whose flows balance at small amounts or in one or two
 * transactions (a salary spent) does not hit.
 */
export const r41OutflowInflowVolume = defineRule({
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
  checksFor: ['Transaction volume'],
  types: ['Volume comparison'],
  typologies: ['Money mules', 'Layering', 'Acquiring fraud'],
  series: ['user-sending', 'user-receiving'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, money, currentCounts }): RuleHit[] {
    const hits: RuleHit[] = [];
    // The aggregates count only the transactions the historical filters accept: the current one
    // is added on the same terms.
    let current: ReturnType<typeof contributionsOf> | undefined = currentCounts === false ? [] : undefined;
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const user = selectSideUser(transaction, parameters, direction);
      if (!user) continue;
      const names = NAMES[direction];
      let outflow = bigintOf(aggregates[names.outSum]);
      let outCount = numberOf(aggregates[names.outCount]);
      let inflow = bigintOf(aggregates[names.inSum]);
      let inCount = numberOf(aggregates[names.inCount]);
      let outThreeDs = numberOf(aggregates[names.outThreeDs]);
      let inThreeDs = numberOf(aggregates[names.inThreeDs]);
      // This transaction's own entries (a self-transfer can be both an outflow and an inflow).
      current ??= contributionsOf(transaction, FLOW_SERIES, money);
      for (const entry of current) {
        if (entry.key !== user) continue;
        const type = entry.values?.type ?? '';
        const threeDs = entry.values?.[THREE_DS_TYPE] !== undefined;
        if (entry.series === 'user-sending' && parameters.outflowTransactionTypes.includes(type)) {
          outCount += 1;
          if (threeDs) outThreeDs += 1;
          if (entry.amount !== null) outflow += entry.amount;
        } else if (entry.series === 'user-receiving' && parameters.inflowTransactionTypes.includes(type)) {
          inCount += 1;
          if (threeDs) inThreeDs += 1;
          if (entry.amount !== null) inflow += entry.amount;
        }
      }
      if (outCount === 0 || inCount === 0) continue;
      const atOrAbove = parameters.outflowInflowComparator === 'GREATER_THAN_OR_EQUAL_TO';
      if (atOrAbove ? outflow < inflow : outflow > inflow) continue;
      if (!meetsGuard(parameters.outflow3dsDonePercentageThreshold, outThreeDs, outCount)) continue;
      if (!meetsGuard(parameters.inflow3dsDonePercentageThreshold, inThreeDs, inCount)) continue;
      if (!meetsMinimums(parameters, { outflow, outCount, inflow, inCount }, money, transaction.timestamp)) continue;
      const end = transaction.timestamp;
      // The outflow against the inflow (both in the base currency, over the transaction types
      // chosen): no ids, as the window's newest entries are not all of those types.
      const evidence = {
        direction,
        kind: 'outflow',
        value: evidenceMoney(outflow),
        comparison: atOrAbove ? '>=' : '<=',
        limit: evidenceMoney(inflow),
        currency: money.baseCurrency,
        window: evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow),
        outflowCount: outCount,
        inflowCount: inCount,
      } as RuleEvidence;
      hits.push({
        evidence: [evidence],
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
});
