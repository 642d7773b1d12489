/**
 * `amlBaseline`: txmon's recommended anti-money-laundering rule set — one instance per typology of
 * docs/typologies.md, each tuned so that the set finds every injected scheme of the generated
 * history while flagging few honest customers (docs/detection.md measures it with `txmon simulate`).
 *
 * A preset is data: rule instance requests as `createRuleInstance` takes them, built from a few
 * options (the currencies amounts are written in, the national cash reporting thresholds, the
 * high-risk countries). Amount limits are figures in EUR converted into each currency at the
 * engine's default rate table and rounded to two significant digits, because an amount filter
 * never converts (a currency it does not list fails it).
 */
import { DEFAULT_USD_RATES, type RuleAction } from '../../domain/index.js';
import type { RuleInstanceInput } from '../types.js';

/** Options of {@link amlBaseline}. */
export interface AmlBaselineOptions {
  /**
   * The currencies amount limits are written in. Default: every currency of the default rate
   * table (`DEFAULT_USD_RATES`). A transaction in a currency not listed passes no amount filter.
   */
  readonly currencies?: readonly string[];
  /**
   * The cash reporting threshold per currency: structuring is several amounts just below it.
   * Default {@link DEFAULT_REPORTING_THRESHOLDS}; one pair of structuring instances per currency.
   */
  readonly reportingThresholds?: Readonly<Record<string, number>>;
  /** Countries whose transactions are high risk. Default {@link FATF_CALL_FOR_ACTION}. */
  readonly highRiskCountries?: readonly string[];
  /** The action of every instance. Default `FLAG`. */
  readonly action?: RuleAction;
  /** Days without a transaction sent after which a large one is a dormancy burst. Default 45. */
  readonly dormancyDays?: number;
}

/** Countries on FATF's "call for action" list (high-risk jurisdictions subject to a call for action). */
export const FATF_CALL_FOR_ACTION: readonly string[] = Object.freeze(['IR', 'KP', 'MM']);

/**
 * Cash reporting thresholds per currency used by default: 10,000 in EUR, USD, GBP and CHF; 40,000
 * PLN; 100,000 SEK. National rules differ: set the thresholds your reports use.
 */
export const DEFAULT_REPORTING_THRESHOLDS: Readonly<Record<string, number>> = Object.freeze({
  EUR: 10_000,
  USD: 10_000,
  GBP: 10_000,
  CHF: 10_000,
  PLN: 40_000,
  SEK: 100_000,
});

/** Share of the reporting threshold from which an amount is "just below" it. */
const STRUCTURING_BAND = 0.9;

type AmountRange = Record<string, { min?: number; max?: number }>;

/** `eur` in `currency` at the default rates, rounded to two significant digits. */
function convertFromEur(eur: number, currency: string): number {
  const perUsd = Number(DEFAULT_USD_RATES[currency]);
  const perEur = Number(DEFAULT_USD_RATES.EUR);
  if (!(perUsd > 0) || !(perEur > 0)) throw new RangeError(`amlBaseline: no default rate for the currency ${currency}`);
  const value = (eur * perUsd) / perEur;
  const magnitude = 10 ** (Math.floor(Math.log10(value)) - 1);
  return Math.round(value / magnitude) * magnitude;
}

/** `eur` (its equivalent) in every currency, as rules' per-currency amounts take it. */
function inEveryCurrency(eur: number, currencies: readonly string[]): Record<string, number> {
  return Object.fromEntries(currencies.map((c) => [c, c === 'EUR' ? eur : convertFromEur(eur, c)]));
}

/** An amount filter accepting at least `eur` (its equivalent) in every currency. */
function atLeast(eur: number, currencies: readonly string[]): AmountRange {
  return Object.fromEntries(Object.entries(inEveryCurrency(eur, currencies)).map(([c, min]) => [c, { min }]));
}

const days = (units: number) => ({ units, granularity: 'day' as const, rollingBasis: true });

/**
 * The recommended AML rule set: an array of rule instance requests to pass to
 * `createRuleInstance` (or to `simulate` as a baseline or candidate).
 *
 * | typology | instance |
 * |---|---|
 * | structuring | R-7 (received) and R-8 (sent): 3 amounts in the band just below the reporting threshold within 10 days, per currency |
 * | fan_in | R-9: more than 4 distinct senders of ≥ 300 EUR into one user within 3 days |
 * | fan_out | R-10: a consumer transacting with more than 4 distinct users, ≥ 300 EUR each, within 2 days |
 * | pass_through | TXM-1: a consumer passing on 80–100 % of a receipt of ≥ 500 EUR within 24 h, twice in 14 days |
 * | cycle | TXM-2: a transfer of ≥ 1,000 EUR closing a cycle of at most 4 such transfers back to its origin within 5 days |
 * | dormancy_burst | R-5: a sent transaction of ≥ 1,000 EUR after more than `dormancyDays` without one |
 * | round_amounts | R-124: more than half of more than 5 transactions of ≥ 1,000 EUR round within 14 days |
 * | high_risk_corridor | R-77: more than one transaction of ≥ 1,000 EUR with a high-risk country within 30 days |
 *
 * @example
 * ```ts
 * import { createEngine, presets } from 'txmon';
 * const engine = createEngine({ baseCurrency: 'EUR' });
 * for (const instance of presets.amlBaseline()) await engine.createRuleInstance(instance);
 * ```
 */
export function amlBaseline(options: AmlBaselineOptions = {}): RuleInstanceInput[] {
  const currencies = options.currencies ?? Object.keys(DEFAULT_USD_RATES);
  const thresholds = options.reportingThresholds ?? DEFAULT_REPORTING_THRESHOLDS;
  const action = options.action ?? 'FLAG';
  const common = { action, alertCreationOnHit: true } as const;
  const instance = (ruleId: string, name: string, parameters: object, filters: object): RuleInstanceInput =>
    ({ ruleId, ruleNameAlias: name, ...common, parameters, filters }) as RuleInstanceInput;
  const amounts = (eur: number) => {
    const range = atLeast(eur, currencies);
    return { transactionAmountRange: range, transactionAmountRangeHistorical: range };
  };

  const structuring = Object.entries(thresholds).flatMap(([currency, threshold]) => {
    const band = { [currency]: { min: threshold * STRUCTURING_BAND, max: threshold - 0.01 } };
    const parameters = { lowTransactionValues: band, lowTransactionCount: 3, timeWindow: days(10) };
    const filters = { transactionAmountRange: band, transactionAmountRangeHistorical: band };
    return [
      instance('R-7', `Structuring: amounts received just below ${threshold} ${currency}`, parameters, filters),
      instance('R-8', `Structuring: amounts sent just below ${threshold} ${currency}`, parameters, filters),
    ];
  });

  return [
    ...structuring,
    instance('R-9', 'Fan-in: many senders into one account', { sendersCount: 4, timeWindow: days(3) }, amounts(300)),
    instance('R-10', 'Fan-out: one consumer paying many customers', { sendersCount: 4, timeWindow: days(2) }, { ...amounts(300), userType: 'CONSUMER' }),
    instance(
      'TXM-1',
      'Pass-through: money in, most of it out within hours',
      {
        outflowTransactionTypes: ['TRANSFER'],
        inflowTransactionTypes: ['DEPOSIT', 'TRANSFER'],
        minimumInflowAmount: inEveryCurrency(500, currencies),
        passThroughWindow: { units: 24, granularity: 'hour' },
        minimumOutflowPercentage: 80,
        maximumOutflowPercentage: 100,
        minimumRounds: 2,
        roundsWindow: days(14),
        maxEntries: 50,
      },
      { userType: 'CONSUMER' },
    ),
    instance(
      'TXM-2',
      'Cycle: funds returned to their origin',
      { timeWindow: days(5), maxHops: 4, maxTransfersPerAccount: 16 },
      { ...amounts(1_000), transactionTypes: ['TRANSFER'] },
    ),
    instance(
      'R-5',
      'Dormant account moves a large sum',
      { dormancyPeriodDays: options.dormancyDays ?? 45, checkDirection: 'sending' },
      { transactionAmountRange: atLeast(1_000, currencies) },
    ),
    instance(
      'R-124',
      'Many round amounts of a thousand or more',
      { timeWindow: days(14), patternPercentageLimit: 50, initialTransactions: 5, checkSender: 'all', checkReceiver: 'all' },
      amounts(1_000),
    ),
    instance(
      'R-77',
      'Repeated transfers with a high-risk country',
      {
        timeWindow: days(30),
        transactionsLimit: 1,
        highRiskCountries: [...(options.highRiskCountries ?? FATF_CALL_FOR_ACTION)],
        checkSender: 'all',
        checkReceiver: 'all',
      },
      amounts(1_000),
    ),
  ];
}

/** Rule sets shipped with txmon, as functions returning rule instance requests. */
export const presets = Object.freeze({ amlBaseline });
