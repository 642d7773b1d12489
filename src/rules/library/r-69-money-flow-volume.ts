import { Type, type Static } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { formatMoney } from '../../domain/money.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import {
  createSideNames,
  describeSide,
  planSides,
  receiverReads,
  senderReads,
  sideSeries,
  sumAmounts,
  sumCounts,
  USER_SERIES,
  type SideRead,
} from '../kits/directions.js';
import { addIdsNeeds, amountEvidence, evidenceWindow, newestIds, readNames } from '../kits/evidence.js';
import { amountThresholdsSchema, CheckReceiverSchema, CheckSenderSchema, reachesThreshold, resolveThreshold, statedThreshold } from '../parameters.js';
import type { AggregateNeed, MoneyContext, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionVolumeThreshold: amountThresholdsSchema({
      minProperties: 1,
      title: 'Volume threshold',
      description: 'The rule hits when the volume in the window, including this transaction, is at or above this amount.',
    }),
    transactionVolumeUpperThreshold: Type.Optional(
      amountThresholdsSchema({
        title: 'Upper volume bound',
        description: 'When set, a volume above this amount does not hit (another rule is expected to cover it).',
      }),
    ),
    timeWindow: TimeWindowSchema,
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
    initialTransactions: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        title: 'Initial transactions',
        description: 'The rule only applies once the user has at least this many transactions up to this one (this one included).',
      }),
    ),
  },
  { additionalProperties: false, title: 'R-69 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const VOLUME = createSideNames('v');
const HISTORY = createSideNames('h');
/** The window's number of transactions and newest ids: the evidence of a hit. */
const WINDOW_COUNT = createSideNames('c');

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const window = { start: windowStart(end, parameters.timeWindow), end };
  const needs = planSides(transaction, parameters.checkSender, parameters.checkReceiver, VOLUME, window, 'sum');
  const counts = needs.length;
  planSides(transaction, parameters.checkSender, parameters.checkReceiver, WINDOW_COUNT, window, 'count', true, needs);
  addIdsNeeds(needs, counts);
  if (parameters.initialTransactions !== undefined && parameters.initialTransactions > 0) {
    planSides(transaction, parameters.checkSender, parameters.checkReceiver, HISTORY, { start: Number.NEGATIVE_INFINITY, end }, 'count', true, needs);
  }
  return needs;
}

/**
 * R-69 Customer money flow is above the expected volume: the user's volume in the window,
 * including this transaction and converted into the threshold currency, is at or above the
 * threshold (≥); an optional upper bound (inclusive) and a minimum transaction history narrow it.
 */
export const r69MoneyFlowVolume = defineRule({
  id: 'R-69',
  name: 'Customer money flow is above the expected volume',
  description: "A user's transaction volume within a time window is at or above a threshold.",
  descriptionTemplate: '{{side}} volume in {{window}} is {{volume}}, at or above {{threshold}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    transactionVolumeThreshold: { USD: 10000 },
    timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
    checkSender: 'sending',
    checkReceiver: 'receiving',
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Transaction volume'],
  types: ['Volume'],
  typologies: ['Structuring', 'Layering', 'Money mules'],
  series: USER_SERIES,
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const hits: RuleHit[] = [];
    const at = transaction.timestamp;
    checkSide(
      hits,
      parameters,
      aggregates,
      money,
      at,
      'ORIGIN',
      senderReads(transaction, parameters.checkSender, VOLUME),
      senderReads(transaction, parameters.checkSender, HISTORY),
      senderReads(transaction, parameters.checkSender, WINDOW_COUNT),
    );
    checkSide(
      hits,
      parameters,
      aggregates,
      money,
      at,
      'DESTINATION',
      receiverReads(transaction, parameters.checkReceiver, VOLUME),
      receiverReads(transaction, parameters.checkReceiver, HISTORY),
      receiverReads(transaction, parameters.checkReceiver, WINDOW_COUNT),
    );
    return hits;
  },
});

/** One side's check (a module function, not a closure per call: the hot path allocates nothing). */
function checkSide(
  hits: RuleHit[],
  parameters: Parameters,
  aggregates: Readonly<Record<string, AggregateValue>>,
  money: MoneyContext,
  at: number,
  direction: 'ORIGIN' | 'DESTINATION',
  volume: readonly SideRead[] | null,
  history: readonly SideRead[] | null,
  counted: readonly SideRead[] | null,
): void {
  if (!volume) return;
  let historyCount = 0;
  if (parameters.initialTransactions !== undefined && parameters.initialTransactions > 0) {
    historyCount = sumCounts(aggregates, history ?? []);
    if (historyCount < parameters.initialTransactions) return;
  }
  const total = sumAmounts(aggregates, volume);
  if (!reachesThreshold(parameters.transactionVolumeThreshold, total, money.baseCurrency, money, at)) return;
  const resolved = resolveThreshold(parameters.transactionVolumeThreshold, total, money.baseCurrency, money, at);
  if (!resolved) return;
  const upper = parameters.transactionVolumeUpperThreshold;
  let bound: ReturnType<typeof resolveThreshold> = null;
  if (upper && Object.keys(upper).length > 0) {
    bound = resolveThreshold(upper, total, money.baseCurrency, money, at);
    if (bound && bound.amount > bound.threshold) return;
  }
  const base = { amount: total, currency: money.baseCurrency };
  const window = evidenceWindow(windowStart(at, parameters.timeWindow), at, parameters.timeWindow);
  const reads = counted ?? [];
  const facts = { window, transactionCount: sumCounts(aggregates, reads), transactionIds: newestIds(aggregates, readNames(reads)) };
  const evidence: RuleEvidence[] = [amountEvidence(direction, 'volume', resolved, '>=', base, facts)];
  if (bound) evidence.push(amountEvidence(direction, 'volume', bound, '<=', base, facts));
  if (parameters.initialTransactions !== undefined && parameters.initialTransactions > 0) {
    evidence.push({ direction, kind: 'history', value: historyCount, comparison: '>=', limit: parameters.initialTransactions });
  }
  hits.push({
    evidence,
    direction,
    vars: {
      side: describeSide(direction),
      window: describeTimeWindow(parameters.timeWindow),
      volume: formatMoney(resolved.amount, resolved.currency),
      threshold: statedThreshold(parameters.transactionVolumeThreshold, resolved),
    },
  });
}
