import { Type, type Static } from '@sinclair/typebox';
import type { AggregateEntry, AggregateValue } from '../../aggregation/aggregate-store.js';
import { MAX_LAST_ENTRIES } from '../../aggregation/checks.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { MAX_EVIDENCE_TRANSACTION_IDS } from '../../domain/schemas/results.js';
import { MONEY_SCALE, convertScaled, divideRounded, formatMoney, toScaled } from '../../domain/money.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import type { ErrorDetail } from '../../errors.js';
import { defineRule } from '../define-rule.js';
import { evidenceMoney, evidenceWindow, exactDecimal } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import type { SeriesName } from '../series.js';
import type { AggregateNeed, MoneyContext, RuleHit } from '../types.js';

const multiplier = (title: string, description: string) => Type.Union([Type.Number({ minimum: 1, maximum: 1_000_000 }), Type.Null()], { title, description });

const ParametersSchema = Type.Object(
  {
    checkDirection: Type.Union([Type.Literal('sending'), Type.Literal('receiving'), Type.Literal('all')], {
      title: 'Check direction',
      description:
        "'sending': the sender's amount against what it usually sends (hits ORIGIN); 'receiving': the receiver's amount against what it usually receives (hits DESTINATION); 'all': both sides, each against its own history in that direction.",
    }),
    timeWindow: {
      ...TimeWindowSchema,
      title: 'History window',
      description: "The window (ending at this transaction) in which the user's earlier transactions are read.",
    },
    historyTransactions: Type.Integer({
      minimum: 1,
      maximum: MAX_LAST_ENTRIES,
      title: 'History transactions',
      description: `The usual amount is the median of the amounts of the user's latest this many earlier transactions in the window, in that direction (1 to ${MAX_LAST_ENTRIES}; this one not included). The work per transaction is bounded by it whatever the history.`,
    }),
    minimumHistory: Type.Integer({
      minimum: 1,
      maximum: MAX_LAST_ENTRIES,
      title: 'Minimum history',
      description:
        'The rule decides only when at least this many of those transactions have an amount (one without a rate to the base currency has none). At most historyTransactions.',
    }),
    aboveMultiplier: multiplier(
      'Above multiplier',
      'A factor (not a percentage): the rule hits when the amount is at or above this many times the usual amount (≥), e.g. 5. Fractional factors are compared exactly. null: no check above.',
    ),
    belowMultiplier: multiplier(
      'Below multiplier',
      'A factor (not a percentage): the rule hits when the amount is at or below the usual amount divided by this (≤), e.g. 10. Fractional factors are compared exactly. null: no check below.',
    ),
  },
  { additionalProperties: false, title: 'TXM-3 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';

const NAMES: Readonly<Record<Direction, string>> = { ORIGIN: 'TXM-3:sent', DESTINATION: 'TXM-3:received' };
const SERIES: Readonly<Record<Direction, SeriesName>> = { ORIGIN: 'user-sending', DESTINATION: 'user-receiving' };

function directionsOf(parameters: Parameters): readonly Direction[] {
  if (parameters.checkDirection === 'sending') return ['ORIGIN'];
  if (parameters.checkDirection === 'receiving') return ['DESTINATION'];
  return ['ORIGIN', 'DESTINATION'];
}

function userOf(transaction: Transaction, direction: Direction): string | undefined {
  return direction === 'ORIGIN' ? transaction.originUserId : transaction.destinationUserId;
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const start = windowStart(end, parameters.timeWindow);
  const needs: AggregateNeed[] = [];
  for (const direction of directionsOf(parameters)) {
    const user = userOf(transaction, direction);
    if (!user) continue;
    needs.push(
      createNeed(NAMES[direction], SERIES[direction], user, start, end, 'lastEntries', transaction.transactionId, false, {
        limit: parameters.historyTransactions,
      }),
    );
  }
  return needs;
}

/** A median as a fraction with denominator 2: `twice` = the two middle amounts added (the middle one twice for an odd count). */
export function twiceMedian(amounts: readonly bigint[]): bigint | null {
  if (amounts.length === 0) return null;
  const sorted = [...amounts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return (sorted[Math.floor((sorted.length - 1) / 2)] as bigint) + (sorted[Math.floor(sorted.length / 2)] as bigint);
}

/**
 * Whether `amount` is unusual against a median given as `twice` (> 0), exactly: at or above
 * `above × median` is `2 × amount × 10^8 ≥ above(10^-8 units) × twice`; at or below
 * `median ÷ below` is `2 × amount × below(10^-8 units) ≤ twice × 10^8`.
 */
export function unusualSide(amount: bigint, twice: bigint, above: number | null, below: number | null): 'above' | 'below' | null {
  if (above !== null && 2n * amount * MONEY_SCALE >= toScaled(above) * twice) return 'above';
  if (below !== null && 2n * amount * toScaled(below) <= twice * MONEY_SCALE) return 'below';
  return null;
}

/** The amount a side's series files the transaction under (base currency), as `contributionsOf` computes it. */
function sideAmount(transaction: Transaction, direction: Direction, money: MoneyContext): bigint | null {
  const details =
    direction === 'ORIGIN'
      ? (transaction.originAmountDetails ?? transaction.destinationAmountDetails)
      : (transaction.destinationAmountDetails ?? transaction.originAmountDetails);
  if (details === undefined) return null;
  return convertScaled(toScaled(details.transactionAmount), details.transactionCurrency, money.baseCurrency, money.rates, transaction.timestamp);
}

function amountsOf(value: AggregateValue | undefined): bigint[] {
  if (!Array.isArray(value)) return [];
  const out: bigint[] = [];
  for (const entry of value as readonly AggregateEntry[]) if (entry.amount !== null) out.push(entry.amount);
  return out;
}

/** The ids of the entries with an amount (those the median is of), newest first, at most {@link MAX_EVIDENCE_TRANSACTION_IDS}. */
function medianIdsOf(value: AggregateValue | undefined): string[] {
  const out: string[] = [];
  if (!Array.isArray(value)) return out;
  const entries = value as readonly AggregateEntry[];
  for (let i = entries.length - 1; i >= 0 && out.length < MAX_EVIDENCE_TRANSACTION_IDS; i--) {
    const entry = entries[i] as AggregateEntry;
    if (entry.amount !== null) out.push(entry.id);
  }
  return out;
}

/**
 * The evidence of a hit on one side, exact: above, `amount ≥ aboveMultiplier × median`; below,
 * `amount × belowMultiplier ≤ median` (the median divided by a factor need not terminate as a
 * decimal; the rule compares the product). Then the history it decided on.
 */
function evidenceOf(
  direction: Direction,
  side: 'above' | 'below',
  amount: bigint,
  twice: bigint,
  amounts: number,
  parameters: Parameters,
  transaction: Transaction,
  value: AggregateValue | undefined,
  currency: string,
): RuleEvidence[] {
  const median = exactDecimal(twice, 2n * MONEY_SCALE);
  const multiplier = (side === 'above' ? parameters.aboveMultiplier : parameters.belowMultiplier) as number;
  const scaledMultiplier = toScaled(multiplier);
  const end = transaction.timestamp;
  const comparison: RuleEvidence =
    side === 'above'
      ? ({
          direction,
          kind: 'amountAboveMedian',
          value: evidenceMoney(amount),
          comparison: '>=',
          limit: exactDecimal(scaledMultiplier * twice, 2n * MONEY_SCALE * MONEY_SCALE),
          currency,
          median,
          multiplier,
        } as RuleEvidence)
      : ({
          direction,
          kind: 'amountBelowMedian',
          value: exactDecimal(amount * scaledMultiplier, MONEY_SCALE * MONEY_SCALE),
          comparison: '<=',
          limit: median,
          currency,
          amount: evidenceMoney(amount),
          multiplier,
        } as RuleEvidence);
  return [
    comparison,
    {
      direction,
      kind: 'history',
      value: amounts,
      comparison: '>=',
      limit: parameters.minimumHistory,
      window: evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow),
      transactionCount: amounts,
      transactionIds: medianIdsOf(value),
    },
  ];
}

function validateParameters(parameters: Parameters): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (parameters.aboveMultiplier === null && parameters.belowMultiplier === null) {
    details.push({ path: '/aboveMultiplier', code: 'required', message: 'aboveMultiplier or belowMultiplier must be a number' });
  }
  if (parameters.minimumHistory > parameters.historyTransactions) {
    details.push({ path: '/minimumHistory', code: 'maximum', message: 'must not be above historyTransactions' });
  }
  return details;
}

/**
 * TXM-3 Amount unusual for this user (both directions) — a txmon rule, not in Flagright's library.
 * The amount of this transaction (in the base currency) against the median of the amounts of the
 * user's latest `historyTransactions` earlier transactions in the same direction within
 * `timeWindow`: a hit when it is at or above `aboveMultiplier` times that median, or at or below
 * the median divided by `belowMultiplier` (both plain factors; either may be `null`). Much larger
 * than usual is the classic account-takeover and mule-activation signal; much smaller than usual
 * catches test payments before a fraud and structuring below one's own habits. The median, not the
 * mean, so that one earlier outlier does not move the baseline. Decides only after
 * `minimumHistory` earlier transactions with an amount and with a median above zero; compared
 * exactly in integers.
 */
export const txm3UnusualAmount = defineRule({
  id: 'TXM-3',
  name: 'Amount unusual for this user (both directions)',
  description:
    "A transaction's amount is much larger or much smaller than the median of the user's recent transactions in the same direction (plain factors). Meant for account takeover and mule activation (a sudden large amount) and for test payments or structuring below one's own habits (a sudden small one). Narrow it with transaction-type filters and an amount floor: a month's rent is many times a median card payment.",
  descriptionTemplate: '{{side}} amount {{amount}} is {{relation}} the usual {{usual}} (median of the last {{count}} in {{window}}).',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    checkDirection: 'sending',
    timeWindow: { units: 90, granularity: 'day', rollingBasis: true },
    historyTransactions: 20,
    minimumHistory: 5,
    aboveMultiplier: 5,
    belowMultiplier: 10,
  },
  validateParameters,
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection'],
  typologies: ['Account takeover fraud', 'Money mules', 'Structuring'],
  series: ['user-sending', 'user-receiving'],
  seriesFor: (parameters) => directionsOf(parameters).map((d) => SERIES[d]),
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const hits: RuleHit[] = [];
    for (const direction of directionsOf(parameters)) {
      if (!userOf(transaction, direction)) continue;
      const amounts = amountsOf(aggregates[NAMES[direction]]);
      if (amounts.length < parameters.minimumHistory) continue;
      const twice = twiceMedian(amounts) as bigint;
      const amount = sideAmount(transaction, direction, money);
      if (amount === null || twice <= 0n) continue;
      const side = unusualSide(amount, twice, parameters.aboveMultiplier, parameters.belowMultiplier);
      if (side === null) continue;
      const read = aggregates[NAMES[direction]];
      hits.push({
        direction,
        vars: {
          side: direction === 'ORIGIN' ? 'Sender' : 'Receiver',
          amount: formatMoney(amount, money.baseCurrency),
          relation: side === 'above' ? `at or above ${parameters.aboveMultiplier} times` : `at or below 1/${parameters.belowMultiplier} of`,
          usual: formatMoney(divideRounded(twice, 2n), money.baseCurrency),
          count: amounts.length,
          window: describeTimeWindow(parameters.timeWindow),
        },
        evidence: evidenceOf(direction, side, amount, twice, amounts.length, parameters, transaction, read, money.baseCurrency),
      });
    }
    return hits;
  },
});
