import { Type, type Static } from '@sinclair/typebox';
import type { AggregateEntry, AggregateValue } from '../../aggregation/aggregate-store.js';
import { MAX_LAST_ENTRIES } from '../../aggregation/checks.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { MAX_EVIDENCE_TRANSACTION_IDS } from '../../domain/schemas/results.js';
import { MONEY_SCALE, formatMoney, toScaled } from '../../domain/money.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import type { ErrorDetail } from '../../errors.js';
import { defineRule } from '../define-rule.js';
import { evidenceMoney, evidenceWindow, exactDecimal } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { amountThresholdsSchema, reachesThreshold, transactionTypesSchema } from '../parameters.js';
import type { AggregateNeed, MoneyContext, RuleHit } from '../types.js';

/** Milliseconds per unit of a {@link PassThroughWindowSchema}. */
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

const PassThroughWindowSchema = Type.Object(
  {
    units: Type.Integer({ minimum: 1, maximum: 10_000, title: 'Units', description: 'How many units the delay may span (1 to 10000).' }),
    granularity: Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day')], {
      title: 'Granularity',
      description: 'minute, hour or day (a day is 24 hours).',
    }),
  },
  {
    additionalProperties: false,
    title: 'Pass-through window',
    description:
      'The longest delay from money in to money out: an outflow counts towards an inflow when it comes strictly after it and at most this long after it (inclusive).',
  },
);

const percentage = (title: string, description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 1000, title, description });

const ParametersSchema = Type.Object(
  {
    outflowTransactionTypes: transactionTypesSchema(
      'Outflow transaction types',
      "The user's SENT transactions of these types are money out. The rule runs only on a transaction of one of these types. The default, TRANSFER, leaves out WITHDRAWAL: customers sweeping their own money to their own account elsewhere is the common honest pass-through.",
    ),
    inflowTransactionTypes: transactionTypesSchema('Inflow transaction types', "The user's RECEIVED transactions of these types are money in."),
    minimumInflowAmount: amountThresholdsSchema({
      title: 'Minimum inflow amount',
      description:
        'An inflow starts a round only when its amount is at or above this (≥), per currency (ISO 4217 code → amount); the inflow, kept in the base currency, is compared in the base currency when listed, else converted into the first listed currency.',
      minProperties: 1,
    }),
    passThroughWindow: PassThroughWindowSchema,
    minimumOutflowPercentage: percentage(
      'Minimum outflow percentage',
      'A round is complete when the outflows that follow its inflow add up to at least this percentage of it (≥), compared exactly in the base currency.',
    ),
    maximumOutflowPercentage: percentage(
      'Maximum outflow percentage',
      '…and to at most this percentage of it (≤). Must not be below minimumOutflowPercentage.',
    ),
    minimumRounds: Type.Integer({
      minimum: 1,
      maximum: 1000,
      title: 'Minimum rounds',
      description:
        'The rule hits when the user has at least this many complete rounds (≥) whose inflow lies in roundsWindow, the one this transaction completes included.',
    }),
    roundsWindow: {
      ...TimeWindowSchema,
      title: 'Rounds window',
      description: 'The window (ending at this transaction) in which the inflows of the counted rounds lie.',
    },
    maxEntries: Type.Integer({
      minimum: 1,
      maximum: MAX_LAST_ENTRIES,
      title: 'Maximum entries read',
      description: `At most this many of the user's latest received and of its latest sent transactions in roundsWindow are read (this one included; 1 to ${MAX_LAST_ENTRIES}): the work per transaction is bounded by it whatever the history. Rounds older than what is read are not counted.`,
    }),
  },
  { additionalProperties: false, title: 'TXM-1 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const RECEIVED = 'TXM-1:received';
const SENT = 'TXM-1:sent';

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const user = transaction.originUserId;
  if (!user || !parameters.outflowTransactionTypes.includes(transaction.type)) return [];
  const end = transaction.timestamp;
  const start = windowStart(end, parameters.roundsWindow);
  const id = transaction.transactionId;
  const limit = { limit: parameters.maxEntries };
  // The current transaction is merged into both lists (a self-transfer is also money in).
  return [
    createNeed(RECEIVED, 'user-receiving', user, start, end, 'lastEntries', id, true, limit),
    createNeed(SENT, 'user-sending', user, start, end, 'lastEntries', id, true, limit),
  ];
}

/** An inflow that starts a round, and the outflows that followed it so far. */
interface Round {
  readonly inflow: AggregateEntry;
  readonly amount: bigint;
  outflow: bigint;
  /** Positions in the sent list of its first and last outflow (-1: none); its outflows lie between. */
  firstSent: number;
  lastSent: number;
}

/** The settings of {@link findPassThroughRounds}, resolved from the parameters. */
export interface PassThroughSettings {
  readonly inflowTypes: readonly string[];
  readonly outflowTypes: readonly string[];
  /** Whether an inflow amount (base currency) starts a round, at the inflow's timestamp. */
  readonly startsRound: (amount: bigint, at: number) => boolean;
  /** The longest delay from an inflow to an outflow counted towards it, ms (inclusive). */
  readonly windowMs: number;
  /** Percentages in 10^-8 units. */
  readonly minimumPercentage: bigint;
  readonly maximumPercentage: bigint;
}

/** What {@link findPassThroughRounds} found. */
export interface PassThroughRounds {
  /** Complete rounds among the inflows read. */
  readonly complete: number;
  /** The round the outflow `currentId` was counted towards, `null` when none. */
  readonly current: {
    readonly inflow: bigint;
    readonly outflow: bigint;
    readonly complete: boolean;
    /** Its inflow's id. */
    readonly inflowId: string;
    /** Its outflows' ids, oldest first (listed only when the round is complete: a hit's evidence). */
    readonly outflowIds: readonly string[];
  } | null;
}

const typeOf = (entry: AggregateEntry): string => entry.values?.type ?? '';

/** Whether `outflow` is within the percentages of `inflow` (> 0): `outflow × 100 × 10^8` against `percentage × inflow`. */
function isComplete(outflow: bigint, inflow: bigint, settings: PassThroughSettings): boolean {
  const scaled = outflow * 100n * MONEY_SCALE;
  return scaled >= settings.minimumPercentage * inflow && scaled <= settings.maximumPercentage * inflow;
}

/**
 * The pass-through rounds of one user: each received entry of an inflow type whose amount starts a
 * round is an inflow; each sent entry of an outflow type counts towards the latest such inflow
 * strictly before it, when it is at most `windowMs` after it (an outflow without an amount adds
 * nothing). A round is complete when its outflows add up to between the two percentages of its
 * inflow, inclusive. Both lists are ordered by (timestamp, id). Pure; O(received + sent).
 */
export function findPassThroughRounds(
  received: readonly AggregateEntry[],
  sent: readonly AggregateEntry[],
  currentId: string,
  settings: PassThroughSettings,
): PassThroughRounds {
  const rounds: Round[] = [];
  for (const entry of received) {
    if (entry.amount === null || entry.amount <= 0n || !settings.inflowTypes.includes(typeOf(entry))) continue;
    if (settings.startsRound(entry.amount, entry.timestamp)) rounds.push({ inflow: entry, amount: entry.amount, outflow: 0n, firstSent: -1, lastSent: -1 });
  }
  let current: Round | null = null;
  let next = 0;
  for (let i = 0; i < sent.length; i++) {
    const entry = sent[i] as AggregateEntry;
    if (!settings.outflowTypes.includes(typeOf(entry))) continue;
    // The latest inflow strictly before this outflow: inflows and outflows are both in time order.
    while (next < rounds.length && (rounds[next] as Round).inflow.timestamp < entry.timestamp) next += 1;
    const round = next > 0 ? (rounds[next - 1] as Round) : undefined;
    if (round === undefined || entry.timestamp - round.inflow.timestamp > settings.windowMs) continue;
    if (entry.amount !== null) round.outflow += entry.amount;
    if (round.firstSent < 0) round.firstSent = i;
    round.lastSent = i;
    if (entry.id === currentId) current = round;
  }
  let complete = 0;
  for (const round of rounds) if (isComplete(round.outflow, round.amount, settings)) complete += 1;
  if (current === null) return { complete, current: null };
  const currentComplete = isComplete(current.outflow, current.amount, settings);
  // A round's outflows are a run of the time-ordered sent list: the outflows of that run that were
  // counted towards it (of an outflow type, within the window of its inflow).
  const outflowIds: string[] = [];
  const inflowAt = current.inflow.timestamp;
  for (let i = currentComplete ? current.firstSent : 0; currentComplete && i <= current.lastSent; i++) {
    const entry = sent[i] as AggregateEntry;
    if (settings.outflowTypes.includes(typeOf(entry)) && entry.timestamp > inflowAt && entry.timestamp - inflowAt <= settings.windowMs)
      outflowIds.push(entry.id);
  }
  return {
    complete,
    current: {
      inflow: current.amount,
      outflow: current.outflow,
      complete: currentComplete,
      inflowId: current.inflow.id,
      outflowIds,
    },
  };
}

/** The {@link PassThroughSettings} of an instance's parameters. */
function settingsOf(parameters: Parameters, money: MoneyContext): PassThroughSettings {
  return {
    inflowTypes: parameters.inflowTransactionTypes,
    outflowTypes: parameters.outflowTransactionTypes,
    startsRound: (amount, at) => reachesThreshold(parameters.minimumInflowAmount, amount, money.baseCurrency, money, at),
    windowMs: parameters.passThroughWindow.units * UNIT_MS[parameters.passThroughWindow.granularity],
    minimumPercentage: toScaled(parameters.minimumOutflowPercentage),
    maximumPercentage: toScaled(parameters.maximumOutflowPercentage),
  };
}

const NO_ENTRIES: readonly AggregateEntry[] = Object.freeze([]);

/**
 * The evidence of a hit: the current round's outflow against its inflow's two percentages (the
 * rule's exact comparison `outflow × 100 ≥ minimum% × inflow`, the limit as an exact decimal), with
 * the round's transactions (its outflows newest first, then its inflow); then the complete rounds
 * against `minimumRounds`.
 */
function evidenceOf(
  current: NonNullable<PassThroughRounds['current']>,
  complete: number,
  parameters: Parameters,
  end: number,
  currency: string,
): RuleEvidence[] {
  const ids: string[] = [];
  for (let i = current.outflowIds.length - 1; i >= 0 && ids.length < MAX_EVIDENCE_TRANSACTION_IDS - 1; i--) ids.push(current.outflowIds[i] as string);
  ids.push(current.inflowId);
  // percentage (10^-8 units) × inflow (10^-8 units) / 100, in whole units.
  const share = (percentage: number) => exactDecimal(toScaled(percentage) * current.inflow, 100n * MONEY_SCALE * MONEY_SCALE);
  const outflow = evidenceMoney(current.outflow);
  const inflow = evidenceMoney(current.inflow);
  return [
    {
      direction: 'ORIGIN',
      kind: 'passThroughOutflow',
      value: outflow,
      comparison: '>=',
      limit: share(parameters.minimumOutflowPercentage),
      currency,
      percentage: parameters.minimumOutflowPercentage,
      inflow,
      inflowTransactionId: current.inflowId,
      transactionCount: current.outflowIds.length + 1,
      transactionIds: ids,
    } as RuleEvidence,
    {
      direction: 'ORIGIN',
      kind: 'passThroughOutflow',
      value: outflow,
      comparison: '<=',
      limit: share(parameters.maximumOutflowPercentage),
      currency,
      percentage: parameters.maximumOutflowPercentage,
      inflow,
    } as RuleEvidence,
    {
      direction: 'ORIGIN',
      kind: 'passThroughRounds',
      value: complete,
      comparison: '>=',
      limit: parameters.minimumRounds,
      window: evidenceWindow(windowStart(end, parameters.roundsWindow), end, parameters.roundsWindow),
    },
  ];
}

function entriesOf(value: AggregateValue | undefined): readonly AggregateEntry[] {
  return Array.isArray(value) ? value : NO_ENTRIES;
}

function validateParameters(parameters: Parameters): ErrorDetail[] {
  if (toScaled(parameters.minimumOutflowPercentage) <= toScaled(parameters.maximumOutflowPercentage)) return [];
  return [{ path: '/maximumOutflowPercentage', code: 'minimum', message: 'must not be below minimumOutflowPercentage' }];
}

/**
 * TXM-1 Funds passed through (money in, similar amount out) — a txmon rule, not in Flagright's
 * library. Meant for money mules: a consumer account that receives a sum from a stranger and sends
 * most of it on within hours, again and again (FATF / Europol money-mule indicators). Unlike
 * R-41, which compares volumes over a window, it matches amounts: each inflow against the outflows
 * that follow it.
 *
 * On a transaction of `outflowTransactionTypes` sent by a user, the rule reads the user's latest
 * `maxEntries` received and `maxEntries` sent transactions in `roundsWindow` (this one included)
 * and forms rounds: an inflow (received, of `inflowTransactionTypes`, at least
 * `minimumInflowAmount`) and the outflows (sent, of `outflowTransactionTypes`) that follow it
 * strictly later and within `passThroughWindow`, each outflow counted towards the latest inflow
 * before it only. A round is complete when its outflows add up to between
 * `minimumOutflowPercentage` and `maximumOutflowPercentage` of its inflow (inclusive, exact in the
 * base currency). The sender side (ORIGIN) hits when this transaction belongs to a complete round
 * and the user has at least `minimumRounds` complete rounds.
 *
 * Honest look-alikes: salaries swept to the customer's own account elsewhere (a WITHDRAWAL, not a
 * default outflow type), freelancers forwarding client payments and businesses paying suppliers
 * out of takings. Instances are meant to carry the user filter `userType: CONSUMER`.
 */
export const txm1PassThrough = defineRule({
  id: 'TXM-1',
  name: 'Funds passed through (money in, similar amount out)',
  description:
    "Money mules: a user repeatedly receives a sum and sends most of it on within hours (money in, then a similar amount out, matched round by round). Meant for consumers (use the user filter userType: CONSUMER); a salary swept to one's own account (a WITHDRAWAL) and businesses paying out of takings are the honest look-alikes it leaves out.",
  descriptionTemplate: 'Sender passed on {{outflow}} of {{inflow}} received within {{delay}}; {{rounds}} such rounds in {{window}}, at least {{minimum}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    outflowTransactionTypes: ['TRANSFER'],
    inflowTransactionTypes: ['DEPOSIT', 'TRANSFER'],
    minimumInflowAmount: { EUR: 500 },
    passThroughWindow: { units: 24, granularity: 'hour' },
    minimumOutflowPercentage: 80,
    maximumOutflowPercentage: 100,
    minimumRounds: 2,
    roundsWindow: { units: 14, granularity: 'day', rollingBasis: true },
    maxEntries: 50,
  },
  validateParameters,
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Transaction amount', 'Account activity'],
  types: ['Money flow'],
  typologies: ['Money mules', 'Layering'],
  series: ['user-sending', 'user-receiving'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const user = transaction.originUserId;
    if (!user || !parameters.outflowTransactionTypes.includes(transaction.type)) return [];
    const found = findPassThroughRounds(entriesOf(aggregates[RECEIVED]), entriesOf(aggregates[SENT]), transaction.transactionId, settingsOf(parameters, money));
    if (found.current === null || !found.current.complete || found.complete < parameters.minimumRounds) return [];
    return [
      {
        direction: 'ORIGIN',
        vars: {
          outflow: formatMoney(found.current.outflow, money.baseCurrency),
          inflow: formatMoney(found.current.inflow, money.baseCurrency),
          delay: `${parameters.passThroughWindow.units} ${parameters.passThroughWindow.granularity}${parameters.passThroughWindow.units === 1 ? '' : 's'}`,
          rounds: found.complete,
          window: describeTimeWindow(parameters.roundsWindow),
          minimum: parameters.minimumRounds,
        },
        evidence: evidenceOf(found.current, found.complete, parameters, transaction.timestamp, money.baseCurrency),
      },
    ];
  },
});
