/**
 * The options of `createEngine`, their defaults, and the settings every service of one engine
 * shares once they are checked.
 */
import { CASE_GROUPINGS, DEFAULT_SLA_HOURS, type CaseGrouping, type RiskLevel, type SlaHours } from '../domain/index.js';
import { isCurrencyCode } from '../domain/codes.js';
import { createFixedRateProvider, fixedRateProvider, type RateProvider, type RateTable } from '../domain/money.js';
import { DEFAULT_RISK_BANDS, type RiskBands } from '../domain/risk-score.js';
import { configurationError } from '../errors.js';
import type { Repositories } from './repositories.js';
import { createRuleRegistry, type RuleRegistry } from '../rules/registry.js';
import { SERIES_NAMES, type SeriesName } from '../rules/series.js';
import type { AnyRule, MoneyContext } from '../rules/types.js';
import { DEFAULT_TRANSITIONS, type TransitionTable } from './pipeline/lifecycle.js';
import { resolveEngineLimits, type EngineLimits } from './limits.js';
import { validateRiskConfiguration, type RiskFactor } from './pipeline/risk.js';
import type { Clock, IdGenerator } from './types.js';
import { createUrlSigner, randomSecret, type UrlSigner } from './services/url-signer.js';

/** Options of `createEngine`; every one is optional. */
export interface EngineOptions {
  /** Persistence; default: the memory repositories (`createMemoryRepositories()`). */
  readonly repositories?: Repositories;
  /** Default: `Date.now`. */
  readonly clock?: Clock;
  /** Default: random UUIDs (alerts `A-…`, cases `C-…`). */
  readonly ids?: IdGenerator;
  /** Extra rules (templates) beside the library — transaction rules (`defineRule`) and user rules (`defineUserRule`); ids must not clash. */
  readonly rules?: readonly AnyRule[];
  /** Transaction lifecycle table; default {@link DEFAULT_TRANSITIONS}. */
  readonly transitions?: TransitionTable;
  /** Risk level for users without one, used to pick parameters and actions. Default `VERY_HIGH`. */
  readonly defaultRiskLevel?: RiskLevel;
  /**
   * Currency in which windowed sums are kept: a known currency code (ISO 4217 or a listed
   * crypto-asset ticker) with a rate in `rates`. Default `USD`.
   */
  readonly baseCurrency?: string;
  /**
   * How alerts are grouped into cases (docs/alerts-and-cases.md): `USER` (default), one case per
   * user; `COUNTERPARTIES`, a user without an open case joins the open case of the hit
   * transaction's other side, so one scheme's accounts share one case.
   */
  readonly caseGrouping?: CaseGrouping;
  /**
   * Hours from creation to the due date (`slaDueTimestamp`) of an alert or a case, per priority
   * (docs/alerts-and-cases.md#sla). Default {@link DEFAULT_SLA_HOURS}: P1 24, P2 72, P3 168, P4 336.
   * Given in part, the other priorities keep their defaults.
   * @example createEngine({ slaHours: { P1: 4, P2: 24 } })
   */
  readonly slaHours?: Partial<SlaHours>;
  /**
   * Aggregate series kept even when no active instance reads them (`'all'` = every built-in
   * series). By default a series is kept only while an active instance reads it, and filled from
   * the stored transactions when an instance starts reading it: keep series here to make that
   * fill unnecessary, e.g. when instances come and go over a long history.
   */
  readonly maintainSeries?: 'all' | readonly SeriesName[];
  /**
   * Currency conversion: a {@link RateProvider}, or a table of rates (units of each currency per
   * one unit of a common reference, as `createFixedRateProvider` takes; checked entry by entry).
   * Default the fixed, dated table of `createFixedRateProvider()`.
   * @example createEngine({ baseCurrency: 'EUR', rates: { EUR: '1', USD: '1.04', BTC: '0.0000101' } })
   */
  readonly rates?: RateProvider | RateTable;
  /**
   * `true`: a transaction or event on which a rule could not be evaluated (an amount without a
   * rate, a custom rule's logic that failed: `ruleHitMeta.notEvaluated`) is refused with
   * `RULE_NOT_EVALUATED` (422) and nothing is stored. Default `false`: it is stored, its result
   * marks the rule and lists a warning (docs/wire-format.md#not-evaluated).
   */
  readonly strict?: boolean;
  /** Largest `fileSize` accepted by `createUpload`. Default 100,000,000 bytes. */
  readonly maxUploadBytes?: number;
  /** Lifetime of upload and download URLs. Default 15 minutes. */
  readonly urlTtlMs?: number;
  /** Prefix of upload/download URLs, e.g. `https://txmon.example.com/v1`. Default `''` (relative). */
  readonly publicBaseUrl?: string;
  /** Secret for URL signatures (≥ 16 bytes). Default: 32 random bytes per engine. */
  readonly urlSigningSecret?: Uint8Array;
  /**
   * Transaction risk factors (weighted average → `riskScoreDetails.trsScore`). Default: none, so
   * results carry no TRS and CRAs do not move until the host configures its risk model.
   */
  readonly riskFactors?: readonly RiskFactor[];
  /** Score bands of the five risk levels; default [0,20) [20,40) [40,60) [60,80) [80,100]. */
  readonly riskBands?: RiskBands;
  /** What clients may make this engine hold or compute; each absent limit keeps its default (`DEFAULT_ENGINE_LIMITS`). */
  readonly limits?: Partial<EngineLimits>;
  /**
   * How much older than the clock a transaction may be and still see exact windows after
   * {@link Engine.pruneSeries}: the margin a prune keeps beyond the longest window. Default 7 days.
   */
  readonly lateArrivalMs?: number;
}

/** The checked settings of one engine, shared by its services. */
export interface EngineSettings {
  readonly repositories: Repositories;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly registry: RuleRegistry;
  readonly transitions: TransitionTable;
  readonly defaultRiskLevel: RiskLevel;
  readonly money: MoneyContext;
  /** {@link EngineOptions.strict}. */
  readonly strict: boolean;
  readonly limits: EngineLimits;
  /** Series kept whatever the instances read. */
  readonly maintainedSeries: readonly SeriesName[];
  readonly riskFactors: readonly RiskFactor[];
  readonly riskBands: RiskBands;
  readonly lateArrivalMs: number;
  readonly caseGrouping: CaseGrouping;
  readonly slaHours: SlaHours;
  readonly files: { readonly maxUploadBytes: number; readonly urlTtlMs: number; readonly publicBaseUrl: string; readonly signer: UrlSigner };
}

/** {@link EngineOptions.lateArrivalMs} by default: 7 days. */
export const DEFAULT_LATE_ARRIVAL_MS = 7 * 24 * 60 * 60 * 1000;

/** Random UUIDs; alerts and cases get the `A-` and `C-` prefixes. */
function defaultIds(): IdGenerator {
  return {
    next(kind) {
      const uuid = globalThis.crypto.randomUUID();
      if (kind === 'alert') return `A-${uuid}`;
      if (kind === 'case') return `C-${uuid}`;
      return uuid;
    },
  };
}

/**
 * The money settings of `options` (`baseCurrency`, `rates`), checked: the base currency a known
 * code, the rates a provider or a valid table, and the base currency among the provider's
 * currencies when it lists them. A wrong code here would not fail later: every conversion would
 * find no rate and every amount and volume rule would quietly stop hitting.
 * @param call the function named by the errors (`createEngine`, `simulate`)
 * @param basePath where the options sit in the call's argument (`''`, or `/engine`)
 * @throws TxmonError `INVALID_CONFIGURATION` naming the path: `/baseCurrency`, `/rates`, `/rates/BTC`.
 */
export function resolveMoneyContext(
  options: { readonly baseCurrency?: string | undefined; readonly rates?: RateProvider | RateTable | undefined },
  call: string,
  basePath = '',
): MoneyContext {
  const baseCurrency = options.baseCurrency ?? 'USD';
  if (!isCurrencyCode(baseCurrency)) {
    throw configurationError(
      call,
      'baseCurrency must be a known currency code (ISO 4217 or a listed crypto-asset ticker)',
      `${basePath}/baseCurrency`,
      'format',
    );
  }
  const given: unknown = options.rates;
  let rates: RateProvider;
  if (given === undefined) rates = createFixedRateProvider();
  else if (typeof given === 'object' && given !== null && typeof (given as RateProvider).rate === 'function') rates = given as RateProvider;
  else if (typeof given === 'object' && given !== null && !Array.isArray(given)) rates = fixedRateProvider(given as RateTable, call, `${basePath}/rates`);
  else
    throw configurationError(call, 'rates must be a rate provider (with rate(from, to, at)) or a table of rates by currency code', `${basePath}/rates`, 'type');
  if (rates.currencies !== undefined && !rates.currencies.has(baseCurrency)) {
    throw configurationError(
      call,
      'baseCurrency has no rate in rates: no amount in another currency could be converted into it',
      `${basePath}/baseCurrency`,
      'not-found',
    );
  }
  return { rates, baseCurrency };
}

/**
 * Checks that every currency a risk factor's amount range names has a rate in `money.rates` when
 * the provider lists its currencies: otherwise the range would never match, in silence.
 * @throws TxmonError `INVALID_CONFIGURATION` at `/riskFactors/<i>/mapping/<j>/currency`.
 */
export function checkRiskFactorCurrencies(riskFactors: readonly RiskFactor[], money: MoneyContext, call: string, basePath = ''): void {
  const known = money.rates.currencies;
  if (known === undefined) return;
  riskFactors.forEach((factor, i) => {
    factor.mapping.forEach((entry, j) => {
      if (entry.currency !== undefined && !known.has(entry.currency)) {
        const path = `${basePath}/riskFactors/${i}/mapping/${j}/currency`;
        throw configurationError(call, `${path} has no rate in rates: amounts could never be compared in it`, path, 'not-found');
      }
    });
  });
}

/**
 * The settings of an engine over `repositories`, from its options and their defaults.
 * @throws TxmonError `INVALID_CONFIGURATION` for clashing rule ids, an unknown case grouping, a short signing secret, an
 *   unknown maintained series, bad risk factors or bands, a bad limit, an unknown base currency or
 *   one without a rate, a bad rate table (naming the path: `/baseCurrency`, `/rates/BTC`), or a `strict` that is not a boolean.
 */
export function resolveEngineSettings(options: EngineOptions, repositories: Repositories): EngineSettings {
  if (options.urlSigningSecret !== undefined && options.urlSigningSecret.length < 16) {
    throw configurationError('createEngine', 'urlSigningSecret must have at least 16 bytes');
  }
  const maintainedSeries: readonly SeriesName[] = options.maintainSeries === 'all' ? SERIES_NAMES : [...new Set(options.maintainSeries ?? [])];
  for (const name of maintainedSeries) {
    if (!(SERIES_NAMES as readonly string[]).includes(name)) throw configurationError('createEngine', 'maintainSeries names an unknown series');
  }
  const riskFactors = options.riskFactors ?? [];
  const riskBands = options.riskBands ?? DEFAULT_RISK_BANDS;
  validateRiskConfiguration(riskFactors, riskBands);
  const lateArrivalMs = options.lateArrivalMs ?? DEFAULT_LATE_ARRIVAL_MS;
  if (!Number.isSafeInteger(lateArrivalMs) || lateArrivalMs < 0) throw configurationError('createEngine', 'lateArrivalMs must be a non-negative integer');
  const caseGrouping = options.caseGrouping ?? 'USER';
  if (!CASE_GROUPINGS.includes(caseGrouping)) throw configurationError('createEngine', "caseGrouping must be 'USER' or 'COUNTERPARTIES'");
  if (options.slaHours !== undefined && (typeof options.slaHours !== 'object' || options.slaHours === null || Array.isArray(options.slaHours))) {
    throw configurationError('createEngine', 'slaHours must be an object of hours per priority');
  }
  const money = resolveMoneyContext(options, 'createEngine');
  checkRiskFactorCurrencies(riskFactors, money, 'createEngine');
  if (options.strict !== undefined && typeof options.strict !== 'boolean')
    throw configurationError('createEngine', 'strict must be a boolean', '/strict', 'type');
  const slaHours: SlaHours = Object.freeze({ ...DEFAULT_SLA_HOURS, ...options.slaHours });
  for (const [priority, hours] of Object.entries(slaHours)) {
    if (!(priority in DEFAULT_SLA_HOURS) || typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || hours > 100_000) {
      throw configurationError('createEngine', 'slaHours must map P1, P2, P3, P4 to hours greater than 0 (at most 100,000)');
    }
  }
  return {
    repositories,
    clock: options.clock ?? { now: () => Date.now() },
    ids: options.ids ?? defaultIds(),
    registry: createRuleRegistry(options.rules ?? []),
    transitions: options.transitions ?? DEFAULT_TRANSITIONS,
    defaultRiskLevel: options.defaultRiskLevel ?? 'VERY_HIGH',
    money,
    strict: options.strict === true,
    limits: resolveEngineLimits(options.limits),
    maintainedSeries,
    riskFactors,
    riskBands,
    lateArrivalMs,
    caseGrouping,
    slaHours,
    files: {
      maxUploadBytes: options.maxUploadBytes ?? 100_000_000,
      urlTtlMs: options.urlTtlMs ?? 15 * 60 * 1000,
      publicBaseUrl: (options.publicBaseUrl ?? '').replace(/\/+$/, ''),
      signer: createUrlSigner(options.urlSigningSecret ?? randomSecret()),
    },
  };
}
