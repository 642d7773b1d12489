import { Type } from '@sinclair/typebox';
import { DAY_MS } from '../../domain/time.js';
import type { RuleEvidence } from '../../domain/index.js';
import { defineRule } from '../define-rule.js';
import { createNeed } from '../kits/need.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    dormancyPeriodDays: Type.Integer({
      minimum: 1,
      maximum: 36_500,
      title: 'Dormancy period (days)',
      description: "The rule hits when more than this many days passed since the user's previous transaction.",
    }),
    checkDirection: Type.Union([Type.Literal('sending'), Type.Literal('all')], {
      title: 'Previous transactions',
      description: "Which earlier transactions of the sender count: 'sending' (sent only) or 'all' (sent and received).",
    }),
  },
  { additionalProperties: false, title: 'R-5 parameters' },
);

const LATEST = 'latest';

/**
 * R-5 Dormant account: the sender's previous transaction (by timestamp, this one excluded) is more
 * than `dormancyPeriodDays` days older than this one (strict `>`, measured in exact milliseconds).
 * A reactivated dormant account is a classic mule / account-takeover signal (FATF guidance on money
 * mules; EBA ML/TF risk factors). A user without an earlier transaction is new, not dormant: no hit.
 * Hits the sender.
 */
export const r5DormantAccount = defineRule({
  id: 'R-5',
  name: 'Dormant account',
  description: 'A user transacts again after a period of inactivity longer than the dormancy period.',
  descriptionTemplate: "Sender's previous transaction was {{days}} days earlier, more than the dormancy period of {{period}} days.",
  parametersSchema: ParametersSchema,
  defaultParameters: { dormancyPeriodDays: 360, checkDirection: 'all' },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Account activity'],
  types: ['New activity'],
  typologies: ['Account takeover fraud', 'Money mules'],
  series: ['user-sending', 'user-all'],
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    if (!transaction.originUserId) return [];
    const series = parameters.checkDirection === 'all' ? 'user-all' : 'user-sending';
    return [createNeed(LATEST, series, transaction.originUserId, Number.NEGATIVE_INFINITY, transaction.timestamp, 'latest', transaction.transactionId, false)];
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const previous = aggregates[LATEST];
    if (!transaction.originUserId || typeof previous !== 'number') return [];
    const gap = transaction.timestamp - previous;
    if (gap <= parameters.dormancyPeriodDays * DAY_MS) return [];
    // The time since the user's previous transaction against the dormancy period, both in ms.
    const evidence = {
      direction: 'ORIGIN',
      kind: 'dormancy',
      value: gap,
      comparison: '>',
      limit: parameters.dormancyPeriodDays * DAY_MS,
      previousTimestamp: previous,
    } as RuleEvidence;
    return [{ direction: 'ORIGIN', vars: { days: Math.floor(gap / DAY_MS), period: parameters.dormancyPeriodDays }, evidence: [evidence] }];
  },
});
