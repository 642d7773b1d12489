import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import type { Transaction } from '../../domain/index.js';
import { createSideNames, describeSide, getSideReads, sideSeries } from '../directions.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import { planSideCounts, sumSideCounts, type SideCount } from '../side-counts.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    timeWindow: TimeWindowSchema,
    transactionsLimit: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Transactions limit',
      description:
        'The rule hits when the number of transactions with a high-risk counterparty country in the window, this one included, is greater than this.',
    }),
    highRiskCountries: Type.Array(Type.String({ format: 'country-code' }), {
      title: 'High-risk countries',
      description:
        'ISO 3166-1 alpha-2 codes. The counterparty country of a transaction is the other side\'s country (the destination country of a sent transaction, the origin country of a received one). Empty: no country is high risk (unless the list is exclusive).',
      maxItems: 300,
      uniqueItems: true,
    }),
    highRiskCountriesExclusive: Type.Optional(
      Type.Boolean({
        title: 'Exclusive list',
        description:
          'When true the list is an allow-list: every country NOT listed is high risk, and so is a transaction without a counterparty country (it is not on the allow-list).',
      }),
    ),
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
    initialTransactions: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        title: 'Initial transactions',
        description:
          "When set, a side only hits once its user has at least this many transactions of all time (in the side's series, this one included).",
      }),
    ),
  },
  { additionalProperties: false, title: 'R-77 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';

const NAMES = createSideNames('hrc');
const FIELD = 'counterpartyCountry';

/** The counterparty country of a side of this transaction: the other side's country. */
function counterpartyCountry(transaction: Transaction, direction: Direction): string | undefined {
  return direction === 'ORIGIN' ? transaction.destinationAmountDetails?.country : transaction.originAmountDetails?.country;
}

/** Whether a counterparty country (possibly unknown) is high risk under the parameters. */
function isHighRisk(country: string | undefined, parameters: Parameters): boolean {
  const listed = country !== undefined && parameters.highRiskCountries.includes(country);
  return parameters.highRiskCountriesExclusive === true ? !listed : listed;
}

/**
 * The counts of a side: countries on the list in the window, all transactions in the window
 * (exclusive lists: high risk = not listed), all of all time (`initialTransactions`). Only the side
 * whose current transaction is itself high risk can hit: `null` (no needs) for the others.
 */
function planCounts(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const start = windowStart(transaction.timestamp, parameters.timeWindow);
  const counts: SideCount[] = [{ suffix: 'listed', start, fn: 'countIn', countIn: { field: FIELD, values: parameters.highRiskCountries } }];
  if (parameters.highRiskCountriesExclusive === true) counts.push({ suffix: 'total', start, fn: 'count' });
  if (parameters.initialTransactions !== undefined) counts.push({ suffix: 'allTime', start: Number.NEGATIVE_INFINITY, fn: 'count' });
  const highRisk = (direction: Direction) => isHighRisk(counterpartyCountry(transaction, direction), parameters);
  return planSideCounts(transaction, parameters, NAMES, (direction) => (highRisk(direction) ? counts : null));
}

/**
 * R-77 Too many transactions to high risk country: a user's transactions in the window whose
 * counterparty country is high risk, this one included, are more than `transactionsLimit`
 * (strict `>`). Geographic-risk monitoring (FATF Recommendation 19, higher-risk countries;
 * EU high-risk third countries, Regulation (EU) 2016/1675; EBA ML/TF risk factor guidelines).
 *
 * Decisions:
 * - The counterparty country is the other side's country: the destination country of a sent
 *   transaction, the origin country of a received one (with `'all'`, both kinds count).
 * - A side hits only when the current transaction's own counterparty country is high risk: the
 *   alert is raised on a transaction that adds to the pattern, never on an unrelated one.
 * - Exclusive lists (allow-lists) count `count − countIn(list)`: a transaction without a
 *   counterparty country is not on the allow-list, so it counts as high risk (fail closed).
 * - An empty inclusive list never hits.
 * - `initialTransactions`: the user's all-time count in the side's series, this transaction
 *   included, must be at least this much.
 */
export const r77HighRiskCountryTransactions: RuleDefinition<Parameters> = {
  id: 'R-77',
  name: 'Too Many Transactions To High Risk Country',
  description: 'A user makes more than the allowed number of transactions with high-risk countries within a time window.',
  descriptionTemplate:
    '{{side}} made {{count}} transactions with high-risk counterparty countries in {{window}} (this one: {{country}}), more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    timeWindow: { units: 1, granularity: 'hour', rollingBasis: true },
    transactionsLimit: 2,
    highRiskCountries: [],
    checkSender: 'all',
    checkReceiver: 'all',
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction country', 'No. of transactions'],
  types: ['Velocity', 'Risk exposure'],
  typologies: ['High risk transactions', 'Terrorist financing'],
  series: ['user-sending', 'user-receiving', 'user-all'],
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  aggregates({ transaction, parameters }) {
    return planCounts(transaction, parameters);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    const exclusive = parameters.highRiskCountriesExclusive === true;
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const reads = getSideReads(transaction, parameters, NAMES, direction);
      const country = counterpartyCountry(transaction, direction);
      if (!reads || !isHighRisk(country, parameters)) continue;
      const listed = sumSideCounts(aggregates, reads, 'listed');
      const count = exclusive ? sumSideCounts(aggregates, reads, 'total') - listed : listed;
      if (parameters.initialTransactions !== undefined && sumSideCounts(aggregates, reads, 'allTime') < parameters.initialTransactions) continue;
      if (count > parameters.transactionsLimit) {
        hits.push({
          direction,
          vars: {
            side: describeSide(direction),
            count,
            window: describeTimeWindow(parameters.timeWindow),
            country: country ?? 'unknown',
            limit: parameters.transactionsLimit,
          },
        });
      }
    }
    return hits;
  },
};
