import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { Transaction } from '../../domain/index.js';
import { MONEY_SCALE, toScaled } from '../../domain/money.js';
import type { EvidenceWindow, RuleEvidence } from '../../domain/schemas/results.js';
import { defineRule } from '../define-rule.js';
import { evidenceMoney, evidenceWindow } from '../kits/evidence.js';
import { createSideNames, describeSide, getSideReads, planSides, sideSeries, sumCounts, USER_SERIES, type SideChecks } from '../kits/directions.js';
import { periodSchema } from '../kits/two-periods.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { AggregateNeed, RuleHit } from '../types.js';

const minCountSchema = (title: string, description: string) => Type.Integer({ minimum: 0, maximum: 1_000_000_000, title, description });

const ParametersSchema = Type.Object(
  {
    multiplierThreshold: Type.Number({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Multiplier threshold (factor, ×)',
      description:
        'A factor, not a percentage (2 = twice, 1.5 = one and a half times): the rule hits when the number of transactions in time period 1 (this one included) is greater than this number times the number of transactions in time period 2 (period 1 excluded). Fractional values are compared exactly (to 10^-8).',
    }),
    timeWindow1: periodSchema('Time period 1', 'The recent period, ending at (and including) this transaction.'),
    timeWindow2: periodSchema(
      'Time period 2',
      'The reference period, ending at this transaction; time period 1 is excluded from it, so it must start before time period 1 (otherwise the rule does not hit).',
    ),
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
    minTransactionsInTimeWindow1: Type.Optional(
      minCountSchema('Minimum transactions in time period 1', 'No hit with fewer transactions in time period 1 (this one included).'),
    ),
    minTransactionsInTimeWindow2: Type.Optional(
      minCountSchema(
        'Minimum transactions in time period 2',
        'No hit with fewer transactions in time period 2 (time period 1 excluded). The rule never hits when time period 2 is empty.',
      ),
    ),
    initialTransactions: Type.Optional(
      minCountSchema(
        'Initial transactions',
        'The rule only applies once the user has at least this many transactions in all (sent and received, this one included), whatever checkSender/checkReceiver say.',
      ),
    ),
  },
  { additionalProperties: false, title: 'R-131 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const WINDOW1 = createSideNames('r131w1');
const WINDOW2 = createSideNames('r131w2');
const HISTORY = createSideNames('r131h');
const ALL_TRANSACTIONS = { checkSender: 'all', checkReceiver: 'all' } as const;

/** Whether `initialTransactions` asks for the all-time count. */
function readsHistory(parameters: Parameters): parameters is Parameters & { initialTransactions: number } {
  return parameters.initialTransactions !== undefined && parameters.initialTransactions > 0;
}

/** The side checks of the all-time count: every transaction (sent and received) of each checked side's user. */
function historyChecks(parameters: Parameters): SideChecks {
  return { checkSender: parameters.checkSender === 'none' ? 'none' : 'all', checkReceiver: parameters.checkReceiver === 'none' ? 'none' : 'all' };
}

/**
 * `count1 > multiplier × count2`, exactly for a fractional multiplier: both sides scaled by 10^8
 * (the multiplier taken at 10^-8 precision, as amounts are), so no float rounding decides a hit.
 */
function exceedsMultiple(count1: number, count2: number, multiplier: number): boolean {
  return BigInt(count1) * MONEY_SCALE > toScaled(multiplier) * BigInt(count2);
}

/**
 * The evidence of a hit, from the counts the rule read (no ids: it reads counts only): period 1's
 * count `>` the multiplier times period 2's (period 1 excluded), the limit an exact decimal, with
 * both windows as R-27 gives them; then each optional condition that held — the minimum counts of
 * the periods (`transactionCount`, `referenceCount`, `>=`) and the all-time `history` `>=`
 * `initialTransactions`.
 */
function periodEvidence(
  direction: 'ORIGIN' | 'DESTINATION',
  parameters: Parameters,
  count1: number,
  count2: number,
  window: EvidenceWindow,
  referenceWindow: EvidenceWindow,
  past: number | undefined,
): RuleEvidence[] {
  const evidence = [
    {
      direction,
      kind: 'periodCount',
      value: count1,
      comparison: '>',
      limit: evidenceMoney(toScaled(parameters.multiplierThreshold) * BigInt(count2)),
      multiplier: parameters.multiplierThreshold,
      window,
      transactionCount: count1,
      referenceWindow,
      referenceCount: count2,
      referenceExcludesWindow: true,
    } as RuleEvidence,
  ];
  if (parameters.minTransactionsInTimeWindow1 !== undefined) {
    evidence.push({ direction, kind: 'transactionCount', value: count1, comparison: '>=', limit: parameters.minTransactionsInTimeWindow1, window });
  }
  if (parameters.minTransactionsInTimeWindow2 !== undefined) {
    evidence.push({
      direction,
      kind: 'referenceCount',
      value: count2,
      comparison: '>=',
      limit: parameters.minTransactionsInTimeWindow2,
      referenceWindow,
    } as RuleEvidence);
  }
  if (past !== undefined && parameters.initialTransactions !== undefined) {
    evidence.push({ direction, kind: 'history', value: past, comparison: '>=', limit: parameters.initialTransactions });
  }
  return evidence;
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const { checkSender, checkReceiver } = parameters;
  const needs: AggregateNeed[] = [];
  planSides(transaction, checkSender, checkReceiver, WINDOW1, { start: windowStart(end, parameters.timeWindow1), end }, 'count', true, needs);
  planSides(transaction, checkSender, checkReceiver, WINDOW2, { start: windowStart(end, parameters.timeWindow2), end }, 'count', true, needs);
  if (readsHistory(parameters)) {
    const history = historyChecks(parameters);
    planSides(transaction, history.checkSender, history.checkReceiver, HISTORY, { start: Number.NEGATIVE_INFINITY, end }, 'count', true, needs);
  }
  return needs;
}

/**
 * R-131 Transactions exceed past period: the number of the user's transactions in time period 1
 * (this one included) is greater than `multiplierThreshold` (a factor, fractional allowed, compared
 * exactly in integers) times the number in time period 2 with period 1 excluded (strict `>`, as the
 * reference implementation and [HELP]).
 * Period 2's count is the nested difference count([start2, t]) − count([start1, t]) — exact.
 * No hit when period 2 is empty (a first burst has no past to exceed), when period 2 does not
 * start before period 1, below the optional minimum counts, or before `initialTransactions`
 * (all-time sent and received transactions of that user, this one included). A velocity
 * comparison for sudden bursts (account takeover, mule activation).
 */
export const r131TransactionsExceedPastPeriod = defineRule({
  id: 'R-131',
  name: 'Transactions exceed past period',
  description: "A user's number of transactions in a recent period is more than a multiple (a factor, e.g. 2 = twice) of the number in the period before it.",
  descriptionTemplate: '{{side}} made {{count1}} transactions in {{window1}}, more than {{multiplier}} times the {{count2}} in the rest of {{window2}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    multiplierThreshold: 100,
    timeWindow1: { units: 1, granularity: 'day', rollingBasis: true },
    timeWindow2: { units: 2, granularity: 'day', rollingBasis: true },
    checkSender: 'all',
    checkReceiver: 'all',
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['No. of transactions'],
  types: ['Velocity comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  series: USER_SERIES,
  // The all-time count of `initialTransactions` reads `user-all` for every checked side.
  seriesFor(p) {
    if (!readsHistory(p)) return sideSeries(p.checkSender, p.checkReceiver);
    const history = historyChecks(p);
    return [...new Set([...sideSeries(p.checkSender, p.checkReceiver), ...sideSeries(history.checkSender, history.checkReceiver)])];
  },
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const end = transaction.timestamp;
    const start1 = windowStart(end, parameters.timeWindow1);
    const start2 = windowStart(end, parameters.timeWindow2);
    if (!(start2 < start1)) return [];
    const hits: RuleHit[] = [];
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const w1 = getSideReads(transaction, parameters, WINDOW1, direction);
      const w2 = getSideReads(transaction, parameters, WINDOW2, direction);
      if (!w1 || !w2) continue;
      let past: number | undefined;
      if (readsHistory(parameters)) {
        const history = getSideReads(transaction, ALL_TRANSACTIONS, HISTORY, direction);
        past = sumCounts(aggregates, history ?? []);
        if (past < parameters.initialTransactions) continue;
      }
      const count1 = sumCounts(aggregates, w1);
      const count2 = sumCounts(aggregates, w2) - count1;
      if (count2 <= 0) continue;
      if (parameters.minTransactionsInTimeWindow1 !== undefined && count1 < parameters.minTransactionsInTimeWindow1) continue;
      if (parameters.minTransactionsInTimeWindow2 !== undefined && count2 < parameters.minTransactionsInTimeWindow2) continue;
      if (!exceedsMultiple(count1, count2, parameters.multiplierThreshold)) continue;
      hits.push({
        direction,
        evidence: periodEvidence(
          direction,
          parameters,
          count1,
          count2,
          evidenceWindow(start1, end, parameters.timeWindow1),
          evidenceWindow(start2, end, parameters.timeWindow2),
          past,
        ),
        vars: {
          side: describeSide(direction),
          count1,
          count2,
          window1: describeTimeWindow(parameters.timeWindow1),
          window2: describeTimeWindow(parameters.timeWindow2),
          multiplier: parameters.multiplierThreshold,
        },
      });
    }
    return hits;
  },
});
