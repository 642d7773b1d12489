import type { Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { defineRule } from '../define-rule.js';
import { describeSide } from '../kits/directions.js';
import { distinctCountParametersSchema } from '../kits/distinct-count.js';
import { createIdsNeed, evidenceWindow, newestIds } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import type { AggregateNeed, RuleHit } from '../types.js';

const ParametersSchema = distinctCountParametersSchema('R-10', {
  parameter: 'sendersCount',
  title: 'Counterparties limit',
  description:
    'The rule hits a user when the number of distinct counterparties (users it sent to or received from) in the window, this transaction included, is greater than this.',
});
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';

const SIDES: readonly Direction[] = ['ORIGIN', 'DESTINATION'];
const NAMES: Readonly<Record<Direction, { distinct: string; self: string; count: string }>> = {
  ORIGIN: { distinct: 'R-10:ORIGIN:distinct', self: 'R-10:ORIGIN:self', count: 'R-10:ORIGIN:count' },
  DESTINATION: { distinct: 'R-10:DESTINATION:distinct', self: 'R-10:DESTINATION:self', count: 'R-10:DESTINATION:count' },
};

function readSide(transaction: Transaction, direction: Direction): { user: string | undefined; counterparty: string | undefined } {
  return direction === 'ORIGIN'
    ? { user: transaction.originUserId, counterparty: transaction.destinationUserId }
    : { user: transaction.destinationUserId, counterparty: transaction.originUserId };
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const start = windowStart(end, parameters.timeWindow);
  const needs: AggregateNeed[] = [];
  for (const direction of SIDES) {
    const { user, counterparty } = readSide(transaction, direction);
    if (!user) continue;
    const id = transaction.transactionId;
    // The current counterparty (not stored yet) is passed as present; never the user itself.
    const includeValue = counterparty && counterparty !== user ? counterparty : undefined;
    needs.push(createNeed(NAMES[direction].distinct, 'user-all', user, start, end, 'distinct', id, false, { field: 'counterparty', includeValue }));
    // Earlier self-transfers filed the user as its own counterparty: found here, taken out in check.
    needs.push(createNeed(NAMES[direction].self, 'user-all', user, start, end, 'countIn', id, false, { field: 'counterparty', values: [user] }));
    // The window's transactions (this one included) and their newest ids: the evidence of a hit.
    const count = createNeed(NAMES[direction].count, 'user-all', user, start, end, 'count', id, true);
    needs.push(count, createIdsNeed(count));
  }
  return needs;
}

/**
 * R-10 Too many counterparties transacting with a single user: the distinct counterparties of a
 * user in the window — the users it sent money to or received money from, this transaction's
 * counterparty included — are more than `sendersCount` (strict `>`). Fan-in / fan-out around one
 * account is a money-mule and collection-account signal (FATF money-mule red flags; the
 * "Nigerian prince" scam inbound pattern). Each side is checked on its own user's history and hits
 * ORIGIN (sender) and/or DESTINATION (receiver).
 *
 * Decisions: the source leaves the direction open (docs/wire-format.md#rule-library); a
 * counterparty counts whether the user paid it or was paid by it (`user-all` entries, value
 * `counterparty`), which keeps R-10 distinct from R-9 (senders paying one receiver). Counterparties
 * are user ids: a side without a user (an external beneficiary known only by payment details) is
 * not a counterparty. A user is never its own counterparty (self-transfers add none).
 */
export const r10ManyCounterpartiesOneUser = defineRule({
  id: 'R-10',
  name: 'Too many counterparties transacting with a single user',
  description: 'A user transacts with more distinct counterparties within a time window than allowed.',
  descriptionTemplate: '{{side}} transacted with {{count}} distinct counterparties in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    sendersCount: 4,
    timeWindow: { units: 30, granularity: 'day', rollingBasis: true },
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['No. of counterparties'],
  types: ['Diversity'],
  typologies: ['Money mules', 'Hidden/unusual relationships', 'Scams'],
  series: ['user-all'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    for (const direction of SIDES) {
      if (!readSide(transaction, direction).user) continue;
      const distinct = aggregates[NAMES[direction].distinct];
      const self = aggregates[NAMES[direction].self];
      if (typeof distinct !== 'number') continue;
      const count = typeof self === 'number' && self > 0 ? distinct - 1 : distinct;
      if (count <= parameters.sendersCount) continue;
      const end = transaction.timestamp;
      const total = aggregates[NAMES[direction].count];
      const evidence = {
        direction,
        kind: 'distinct',
        field: 'counterparty',
        value: count,
        comparison: '>',
        limit: parameters.sendersCount,
        window: evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow),
        transactionCount: typeof total === 'number' ? total : 0,
        transactionIds: newestIds(aggregates, [NAMES[direction].count]),
      } as RuleEvidence;
      hits.push({
        evidence: [evidence],
        direction,
        vars: {
          side: describeSide(direction),
          count,
          window: describeTimeWindow(parameters.timeWindow),
          limit: parameters.sendersCount,
        },
      });
    }
    return hits;
  },
});
