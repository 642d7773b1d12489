import { Type } from '@sinclair/typebox';
import type { Transaction } from '../../domain/index.js';
import { defineMatchingCountRule, type SideCount } from '../kits/side-counts.js';

/** The counterparty country of a side of this transaction: the other side's country. */
function counterpartyCountry(transaction: Transaction, direction: 'ORIGIN' | 'DESTINATION'): string | undefined {
  return direction === 'ORIGIN' ? transaction.destinationAmountDetails?.country : transaction.originAmountDetails?.country;
}

/** Whether a counterparty country (possibly unknown) is high risk under the parameters. */
function isHighRisk(country: string | undefined, parameters: { highRiskCountries: readonly string[]; highRiskCountriesExclusive?: boolean }): boolean {
  const listed = country !== undefined && parameters.highRiskCountries.includes(country);
  return parameters.highRiskCountriesExclusive === true ? !listed : listed;
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
export const r77HighRiskCountryTransactions = defineMatchingCountRule({
  id: 'R-77',
  name: 'Too Many Transactions To High Risk Country',
  description: 'A user makes more than the allowed number of transactions with high-risk countries within a time window.',
  descriptionTemplate:
    '{{side}} made {{count}} transactions with high-risk counterparty countries in {{window}} (this one: {{country}}), more than the limit of {{limit}}.',
  limitDescription:
    'The rule hits when the number of transactions with a high-risk counterparty country in the window, this one included, is greater than this.',
  initialTransactionsDescription:
    "When set, a side only hits once its user has at least this many transactions of all time (in the side's series, this one included).",
  parameters: {
    highRiskCountries: Type.Array(Type.String({ format: 'country-code' }), {
      title: 'High-risk countries',
      description:
        "ISO 3166-1 alpha-2 codes. The counterparty country of a transaction is the other side's country (the destination country of a sent transaction, the origin country of a received one). Empty: no country is high risk (unless the list is exclusive).",
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
  },
  defaultParameters: {
    timeWindow: { units: 1, granularity: 'hour', rollingBasis: true },
    transactionsLimit: 2,
    highRiskCountries: [],
    checkSender: 'all',
    checkReceiver: 'all',
  },
  checksFor: ['Transaction country', 'No. of transactions'],
  types: ['Velocity', 'Risk exposure'],
  typologies: ['High risk transactions', 'Terrorist financing'],
  matches: (transaction, direction, parameters) => isHighRisk(counterpartyCountry(transaction, direction), parameters),
  // Exclusive lists (high risk = not listed) also count all transactions, to subtract the listed.
  countsOf(parameters, start) {
    const counts: SideCount[] = [{ suffix: 'listed', start, fn: 'countIn', countIn: { field: 'counterpartyCountry', values: parameters.highRiskCountries } }];
    if (parameters.highRiskCountriesExclusive === true) counts.push({ suffix: 'total', start, fn: 'count' });
    return counts;
  },
  countOf: (sum, parameters) => (parameters.highRiskCountriesExclusive === true ? sum('total') - sum('listed') : sum('listed')),
  varsOf: (transaction, direction) => ({ country: counterpartyCountry(transaction, direction) ?? 'unknown' }),
});
