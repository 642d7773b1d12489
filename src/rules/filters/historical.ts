/**
 * Historical filters of a rule instance (docs/wire-format.md#filters): they restrict which past
 * transactions count in the instance's windowed aggregates. The engine keeps a filtered copy of each
 * series the rule reads (a derived series, see `src/rules/series.ts`), named after the filters' id
 * ({@link filterIdOf}), so instances with equal filters share it.
 */
import { HISTORICAL_FILTER_KEYS, canonicalJson, type RuleFilters, type Transaction } from '../../domain/index.js';
import { compileAmountRange, compileTimeRange, isIn, toSet, type TransactionCheck } from './compile.js';

/**
 * Whether a filter value means "no filter": `undefined`, `null`, `''`, `[]`, or an object whose
 * every member is empty. Numbers and booleans are not empty.
 */
function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    for (const key of Object.keys(value)) if (!isEmptyValue((value as Record<string, unknown>)[key])) return false;
    return true;
  }
  return false;
}

/** The historical filters of an instance, compiled: see {@link compileHistoricalFilters}. */
export interface CompiledHistoricalFilters {
  /** Stable id of the filters' canonical form: equal filters, equal id (so equal series). */
  readonly id: string;
  /** The canonical JSON text of the non-empty historical filters. */
  readonly canonical: string;
  /** Whether a past transaction (in its current state) counts. Pure. */
  readonly accepts: (transaction: Transaction) => boolean;
}

/**
 * Compiles the historical filters of `filters` (already validated) into a predicate over a past
 * transaction; `null` when none is set. All set filters must pass (AND):
 * - `paymentMethodsHistorical`: the origin OR the destination payment method is listed;
 * - `transactionTypesHistorical`: the type is listed;
 * - `transactionStatesHistorical`: the current state (`CREATED` when none) is listed — events that
 *   change the state move the transaction in or out;
 * - `transactionCountriesHistorical`: the origin OR the destination amount country is listed;
 * - `transactionAmountRangeHistorical`: the origin amount lies in the range of its currency
 *   (inclusive, exact; a currency without a range fails), like `transactionAmountRange`;
 * - `transactionTimeRangeHistorical24hr`: the UTC time of day is in [start, end).
 *
 * The current transaction is held to the same filters: it counts in its own aggregates only when
 * it passes them.
 *
 * @example
 * ```ts
 * const h = compileHistoricalFilters({ transactionTypesHistorical: ['TRANSFER'] });
 * h?.accepts({ ...transaction, type: 'DEPOSIT' }); // false
 * ```
 */
export function compileHistoricalFilters(filters: RuleFilters): CompiledHistoricalFilters | null {
  const checks: TransactionCheck[] = [];
  const set: Record<string, unknown> = {};
  for (const key of HISTORICAL_FILTER_KEYS) if (!isEmptyValue(filters[key])) set[key] = filters[key];
  if (Object.keys(set).length === 0) return null;
  const methods = toSet(filters.paymentMethodsHistorical);
  if (methods !== null) {
    checks.push((t) => isIn(methods, t.originPaymentDetails?.method) || isIn(methods, t.destinationPaymentDetails?.method));
  }
  const types = toSet(filters.transactionTypesHistorical);
  if (types !== null) checks.push((t) => isIn(types, t.type));
  const states = toSet(filters.transactionStatesHistorical);
  if (states !== null) checks.push((t) => isIn(states, t.transactionState ?? 'CREATED'));
  const countries = toSet(filters.transactionCountriesHistorical);
  if (countries !== null) {
    checks.push((t) => isIn(countries, t.originAmountDetails?.country) || isIn(countries, t.destinationAmountDetails?.country));
  }
  const amount = isEmptyValue(filters.transactionAmountRangeHistorical) ? null : compileAmountRange(filters.transactionAmountRangeHistorical);
  if (amount !== null) checks.push(amount);
  const time = compileTimeRange(filters.transactionTimeRangeHistorical24hr);
  if (time !== null) checks.push(time);
  const canonical = canonicalJson(set);
  const accepts = (transaction: Transaction): boolean => {
    for (const check of checks) if (!check(transaction)) return false;
    return true;
  };
  return { id: filterIdOf(canonical), canonical, accepts };
}

/**
 * A stable id for a canonical JSON text: two independent 32-bit hashes (FNV-1a and a
 * multiply-xorshift one) in base 36, 64 bits in all.
 */
export function filterIdOf(canonicalText: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ canonicalText.length;
  for (let i = 0; i < canonicalText.length; i++) {
    const c = canonicalText.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}
