import { Type, type Static } from '@sinclair/typebox';
import { MAX_FAN_OUT, MAX_HOPS } from '../../aggregation/checks.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import type { ErrorDetail } from '../../errors.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { distinctUserParties } from '../kits/directions.js';
import { evidenceWindow } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import type { AggregateNeed, RuleHit } from '../types.js';

/**
 * The most transfers one check may read (f + f² + … + f^(h − 1)): the defaults read at most 4,368;
 * the cap keeps a parameter set from asking for billions (64 transfers over 6 hops).
 */
const MAX_TRANSFERS_READ = 100_000;

const ParametersSchema = Type.Object(
  {
    timeWindow: TimeWindowSchema,
    maxHops: Type.Integer({
      minimum: 2,
      maximum: MAX_HOPS + 1,
      title: 'Longest cycle',
      description: `The most transfers (accounts) a cycle may have, this transaction included: 2 is a transfer straight back, 4 goes through three other accounts. At most ${MAX_HOPS + 1}.`,
    }),
    maxTransfersPerAccount: Type.Integer({
      minimum: 1,
      maximum: MAX_FAN_OUT,
      title: 'Transfers followed per account',
      description: `Of each account on the way, only its latest this many sent transfers in the window are followed (1 to ${MAX_FAN_OUT}). Bounds the work: with f this number and h maxHops, at most f + f² + … + f^(h − 1) transfers are read per transaction, whatever the history, and that must be at most ${MAX_TRANSFERS_READ.toLocaleString('en')}.`,
    }),
  },
  { additionalProperties: false, title: 'TXM-2 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NEED = 'TXM-2:hops';

/** The most transfers a path search with these parameters reads: every layer's keys times their capped edges. */
function transfersReadAtMost(maxHops: number, perAccount: number): number {
  let total = 0;
  let layer = 1;
  for (let hop = 1; hop < maxHops; hop++) {
    layer *= perAccount;
    total += layer;
  }
  return total;
}

/** The work bound the schema cannot express (see {@link MAX_TRANSFERS_READ}). */
function validateParameters(parameters: Parameters): ErrorDetail[] {
  if (transfersReadAtMost(parameters.maxHops, parameters.maxTransfersPerAccount) <= MAX_TRANSFERS_READ) return [];
  return [
    {
      path: '/maxTransfersPerAccount',
      code: 'too-complex',
      message: `with maxHops, allows more than ${MAX_TRANSFERS_READ} transfers read per transaction (f + f² + … + f^(maxHops − 1)); lower it or maxHops`,
    },
  ];
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const parties = distinctUserParties(transaction);
  if (parties === null) return [];
  const end = transaction.timestamp;
  // The receiver is where the money started: a path of earlier transfers from it back to the sender.
  return [
    createNeed(NEED, 'user-sending', parties.destination, windowStart(end, parameters.timeWindow), end, 'hopsTo', transaction.transactionId, false, {
      field: 'counterparty',
      values: [parties.origin],
      limit: parameters.maxHops - 1,
      fanOut: parameters.maxTransfersPerAccount,
    }),
  ];
}

/**
 * TXM-2 Funds returned to their origin (cycle): a transfer from user X to user Y closes a cycle
 * when Y earlier sent money that reached X through a chain of transfers between users — Y → … → X,
 * each transfer later than the one before (strictly), all within `timeWindow` ending now — and the
 * cycle, this transfer included, has at most `maxHops` transfers. Round-tripping through several
 * accounts makes funds look like the proceeds of business between customers (FATF: layering
 * through circular transfers). Both sides hit: X closed the cycle, Y got its money back.
 *
 * The path is read by the `hopsTo` graph aggregate over `user-sending`: from each account only its
 * latest `maxTransfersPerAccount` sent transfers in the window are followed, so the work is bounded
 * by the parameters. Historical filters choose which transfers are links, the closing one included:
 * with `transactionAmountRangeHistorical` small payments between friends never form a cycle. The
 * window is the time of the whole cycle: loans repaid a week or more later fall outside a short one.
 * A self-transfer is no cycle.
 */
export const txm2FundsReturnedToOrigin = defineRule({
  id: 'TXM-2',
  name: 'Funds returned to their origin (cycle)',
  description: 'A transfer closes a cycle of transfers between users that began with its receiver, within a time window.',
  descriptionTemplate: 'The transfer closes a cycle of {{hops}} transfers back to the account the money started from, within {{window}}.',
  parametersSchema: ParametersSchema,
  validateParameters,
  defaultParameters: {
    timeWindow: { units: 5, granularity: 'day', rollingBasis: true },
    maxHops: 4,
    maxTransfersPerAccount: 16,
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Counterparty', 'Transaction graph'],
  types: ['Cycle'],
  typologies: ['Layering', 'Round-tripping'],
  series: ['user-sending'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, currentCounts }): RuleHit[] {
    // The closing transfer is held to the historical filters its links passed.
    if (currentCounts === false || distinctUserParties(transaction) === null) return [];
    const path = aggregates[NEED];
    if (typeof path !== 'number' || path === 0) return [];
    const vars = { hops: path + 1, window: describeTimeWindow(parameters.timeWindow) };
    const end = transaction.timestamp;
    const window = evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow);
    // The graph aggregate answers the shortest cycle's length, not its transfers: no ids.
    const cycle = (direction: 'ORIGIN' | 'DESTINATION'): RuleEvidence =>
      ({ direction, kind: 'cycleLength', value: path + 1, comparison: '<=', limit: parameters.maxHops, window }) as RuleEvidence;
    return [
      { direction: 'ORIGIN', vars, evidence: [cycle('ORIGIN')] },
      { direction: 'DESTINATION', vars, evidence: [cycle('DESTINATION')] },
    ];
  },
});
