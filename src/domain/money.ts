/**
 * Exact money arithmetic.
 *
 * Amounts arrive as JSON numbers. txmon turns each into a scaled integer (`bigint`, 10^-8 units)
 * from the number's shortest decimal representation — the digits the client actually sent — so
 * `0.1 + 0.2` is exactly `0.3` and `3 × 3333.33 + 0.01` is exactly `10000.00`. Binary floats are
 * never accumulated. Digits beyond the 8th decimal are rounded half-to-even.
 */
import { isCurrencyCode } from './codes.js';
import { configurationError } from '../errors.js';

/** Decimal places kept by {@link toScaled}. */
export const MONEY_SCALE_DIGITS = 8;
/** 10^{@link MONEY_SCALE_DIGITS} as a bigint. */
export const MONEY_SCALE = 100_000_000n;

const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];
const SCALE_BY_DIGITS = [100000000n, 10000000n, 1000000n, 100000n, 10000n, 1000n, 100n, 10n, 1n];

/**
 * Converts a finite JSON number to a scaled integer (10^-8 units), exactly as its decimal text.
 * Fast path: when `value` is the double nearest to k / 10^d (d ≤ 8, |k| < 10^15), its decimal
 * text has d decimals and the result is k × 10^(8−d), computed without touching strings.
 * @throws RangeError when `value` is not finite (validation rejects such input earlier).
 */
export function toScaled(value: number): bigint {
  // Several rules scale the same amount of one transaction in a row: remember the last answer.
  if (value === lastValue) return lastScaled;
  if (!Number.isFinite(value)) throw new RangeError('amount must be finite');
  lastScaled = scale(value);
  lastValue = value;
  return lastScaled;
}
let lastValue = 0;
let lastScaled = 0n;

function scale(value: number): bigint {
  for (let d = 0; d <= 8; d += d < 2 ? 2 : 1) {
    const k = Math.round(value * (POW10[d] as number));
    // |k| < 10^15 keeps k exact and makes k / 10^d the shortest text of `value` (≤ 15 digits).
    if (Math.abs(k) < 1e15 && k / (POW10[d] as number) === value) return BigInt(k) * (SCALE_BY_DIGITS[d] as bigint);
  }
  return parseDecimal(String(value));
}

/** Parses a decimal string (as `String(number)` prints it, exponent allowed) into 10^-8 units. */
export function parseDecimal(text: string): bigint {
  let negative = false;
  let s = text;
  if (s.startsWith('-')) {
    negative = true;
    s = s.slice(1);
  }
  let exponent = 0;
  const e = s.search(/e/i);
  if (e >= 0) {
    exponent = Number(s.slice(e + 1));
    s = s.slice(0, e);
  }
  const dot = s.indexOf('.');
  let digits = dot >= 0 ? s.slice(0, dot) + s.slice(dot + 1) : s;
  let fractionDigits = dot >= 0 ? s.length - dot - 1 : 0;
  fractionDigits -= exponent;
  // value = digits × 10^-fractionDigits; bring it to 10^-8.
  let shift = MONEY_SCALE_DIGITS - fractionDigits;
  if (digits === '') digits = '0';
  let result: bigint;
  if (shift >= 0) {
    result = BigInt(digits) * 10n ** BigInt(shift);
  } else {
    shift = -shift;
    const divisor = 10n ** BigInt(shift);
    const n = BigInt(digits);
    let q = n / divisor;
    const r = n % divisor;
    const twice = r * 2n;
    if (twice > divisor || (twice === divisor && q % 2n === 1n)) q += 1n;
    result = q;
  }
  return negative ? -result : result;
}

/** Back to a JS number (for display and JSON output only; never for further arithmetic). */
export function scaledToNumber(value: bigint): number {
  return Number(scaledToDecimal(value));
}

/** Exact decimal text of a scaled amount, trailing zeros trimmed (`1050000000n` → `"10.5"`). */
export function scaledToDecimal(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / MONEY_SCALE;
  let fraction = (abs % MONEY_SCALE).toString().padStart(MONEY_SCALE_DIGITS, '0').replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : `${whole}`;
  fraction = '';
  return negative ? `-${text}` : text;
}

const MAX_EXACT_SCALED = BigInt(Number.MAX_SAFE_INTEGER);

/** Formats a scaled amount with its currency for a rule description, e.g. `10000.00 EUR`. */
export function formatMoney(value: bigint, currency: string): string {
  if (value <= MAX_EXACT_SCALED && value >= -MAX_EXACT_SCALED) {
    // Below 2^53 the whole and fractional parts are exact in doubles: no bigint division or
    // string surgery (rule descriptions format two amounts per hit).
    const negative = value < 0n;
    const abs = Number(negative ? -value : value);
    let unit = Math.floor(abs / 1e8);
    let fraction = abs - unit * 1e8;
    // The quotient is rounded: correct it by at most one in either direction.
    if (fraction < 0) {
      unit -= 1;
      fraction += 1e8;
    } else if (fraction >= 1e8) {
      unit += 1;
      fraction -= 1e8;
    }
    let digits = String(fraction + 1e8).slice(1);
    let end = 8;
    while (end > 2 && digits.charCodeAt(end - 1) === 0x30 /* 0 */) end -= 1;
    if (end < 8) digits = digits.slice(0, end);
    return `${negative ? '-' : ''}${unit}.${digits} ${currency}`;
  }
  const decimal = scaledToDecimal(value);
  const [whole, fraction = ''] = decimal.split('.');
  const digits = Math.max(2, fraction.length);
  return `${whole}.${fraction.padEnd(digits, '0')} ${currency}`;
}

/**
 * Currency conversion port. Rates are decimal strings so conversion stays exact.
 * `rate(from, to, at)` returns how many units of `to` one unit of `from` buys at time `at`
 * (epoch ms), or `null` when the pair is unknown.
 */
export interface RateProvider {
  rate(from: string, to: string, at: number): string | null;
  /**
   * The currencies the provider has rates for, when it knows them ({@link createFixedRateProvider}
   * does): `createEngine` refuses a base currency outside them. Absent: not known in advance.
   */
  readonly currencies?: ReadonlySet<string>;
}

/**
 * A fixed table of rates: units of each currency per one unit of a common reference (the default
 * table's reference is 1 USD; any reference works, rates are crossed through it). Each key a known
 * currency code, each rate a positive finite decimal (a string keeps it exact; a number is read
 * as its shortest decimal text).
 */
export type RateTable = Readonly<Record<string, string | number>>;

/** A rate's decimal text: digits, an optional fraction and an optional exponent. */
const DECIMAL_TEXT = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?$/;

/**
 * Checks a {@link RateTable}: every key a known currency code, every rate a positive finite
 * decimal of at least 10^-8 (the precision table rates are kept at).
 * @param call the function the table was given to, named by the error (`createEngine`)
 * @param basePath JSON Pointer of the table among the call's options (`/rates`), prefixed to the
 *   path of the problem (`/rates/BTC`)
 * @throws TxmonError `INVALID_CONFIGURATION` naming the path of the first bad entry.
 */
export function checkRateTable(table: unknown, call: string, basePath: string): asserts table is RateTable {
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    throw configurationError(call, `${basePath || 'the rate table'} must be an object of rates by currency code`, basePath, 'type');
  }
  for (const [code, value] of Object.entries(table)) {
    const path = `${basePath}/${code.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!isCurrencyCode(code))
      throw configurationError(call, `${path} is not a known currency code (ISO 4217 or a listed crypto-asset ticker)`, path, 'format');
    if (!isPositiveRate(value)) throw configurationError(call, `${path} must be a positive, finite decimal rate of at least 0.00000001`, path, 'range');
  }
}

/** A positive finite decimal of at least 10^-8 (rates are kept at that precision: a smaller one would be 0). */
function isPositiveRate(value: unknown): value is string | number {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 && toScaled(value) > 0n;
  return typeof value === 'string' && DECIMAL_TEXT.test(value) && parseDecimal(value) > 0n;
}

/**
 * The embedded default rates: a fixed table of units per 1 USD, dated 2025-01-02 (ECB reference
 * rates of that day, crossed through EUR and rounded to 6 significant digits). Documented, not
 * live: a host that converts currencies in production supplies its own {@link RateProvider}.
 */
export const DEFAULT_RATES_DATE = '2025-01-02';
export const DEFAULT_USD_RATES: Readonly<Record<string, string>> = Object.freeze({
  USD: '1',
  EUR: '0.965810',
  GBP: '0.799540',
  JPY: '157.220',
  CHF: '0.906990',
  CAD: '1.43890',
  AUD: '1.60870',
  NZD: '1.78080',
  SEK: '11.0690',
  NOK: '11.3860',
  DKK: '7.20330',
  PLN: '4.12710',
  CZK: '24.3420',
  HUF: '397.210',
  RON: '4.80620',
  BGN: '1.88890',
  ISK: '139.150',
  TRY: '35.3690',
  CNY: '7.29880',
  HKD: '7.76930',
  SGD: '1.36650',
  KRW: '1469.79',
  INR: '85.7560',
  IDR: '16213.0',
  MYR: '4.47310',
  PHP: '57.9330',
  THB: '34.3480',
  ILS: '3.64730',
  ZAR: '18.8240',
  BRL: '6.17920',
  MXN: '20.6950',
  AED: '3.67250',
  SAR: '3.75000',
  NGN: '1546.50',
  KES: '129.250',
  RUB: '110.000',
  UAH: '42.0300',
});

/**
 * A {@link RateProvider} over a table of units per 1 USD (or per one unit of any common
 * reference), crossing through that reference; its `currencies` are the table's keys.
 * @throws TxmonError `INVALID_CONFIGURATION` naming the entry (`/BTC`) whose code is not a known
 *   currency or whose rate is not a positive finite decimal.
 * @example
 * ```ts
 * createEngine({ rates: createFixedRateProvider({ USD: '1', EUR: '0.92', BTC: '0.0000105' }) });
 * ```
 */
export function createFixedRateProvider(usdRates: RateTable = DEFAULT_USD_RATES): RateProvider {
  return fixedRateProvider(usdRates, 'createFixedRateProvider', '');
}

/**
 * {@link createFixedRateProvider} for a table given to `call` at `basePath` (its errors name
 * that path: `/rates/BTC`).
 * @throws TxmonError `INVALID_CONFIGURATION` as {@link checkRateTable}.
 * @internal
 */
export function fixedRateProvider(usdRates: RateTable, call: string, basePath: string): RateProvider {
  checkRateTable(usdRates, call, basePath);
  const scaled = new Map<string, bigint>();
  for (const [code, value] of Object.entries(usdRates)) scaled.set(code, scaleRate(value));
  const currencies: ReadonlySet<string> = new Set(scaled.keys());
  // from → to → rate; nested maps avoid building a key string per lookup (hot path).
  const memo = new Map<string, Map<string, string | null>>();
  return {
    currencies,
    rate(from, to) {
      if (from === to) return '1';
      let row = memo.get(from);
      if (row === undefined) {
        row = new Map();
        memo.set(from, row);
      }
      const known = row.get(to);
      if (known !== undefined) return known;
      const f = scaled.get(from);
      const t = scaled.get(to);
      // units of `to` per `from` = t / f, with 18 decimals so that a round trip A→B→A stays
      // within far less than a minor unit of the original amount.
      const result = f === undefined || t === undefined || f === 0n ? null : divideToDecimal(t, f, RATE_DIGITS);
      row.set(to, result);
      return result;
    },
  };
}

/** A checked table rate at 10^-8 (at least 1 unit there: see {@link checkRateTable}). */
function scaleRate(value: string | number): bigint {
  return typeof value === 'number' ? toScaled(value) : parseDecimal(value);
}

function divideToDecimal(numerator: bigint, denominator: bigint, digits: number): string {
  const factor = 10n ** BigInt(digits);
  const q = (numerator * factor) / denominator;
  const whole = q / factor;
  const fraction = (q % factor).toString().padStart(digits, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** Decimal digits kept of a conversion rate. */
export const RATE_DIGITS = 18;
const RATE_SCALE = 10n ** BigInt(RATE_DIGITS);

/** Parses a decimal string into an integer scaled by 10^`digits`, rounding half-to-even. */
function parseScaled(text: string, digits: number): bigint {
  // parseDecimal works at 10^-8; shift the decimal point first so no digit is lost.
  const shift = digits - MONEY_SCALE_DIGITS;
  const e = text.search(/e/i);
  const mantissa = e >= 0 ? text.slice(0, e) : text;
  const exponent = e >= 0 ? Number(text.slice(e + 1)) : 0;
  return parseDecimal(`${mantissa}e${exponent + shift}`);
}

/** Divides with half-to-even rounding. */
/** `numerator / divisor` rounded half-to-even (divisor > 0), as every money division in txmon. */
export function divideRounded(numerator: bigint, divisor: bigint): bigint {
  let q = numerator / divisor;
  const rem = numerator % divisor;
  const twice = (rem < 0n ? -rem : rem) * 2n;
  if (twice > divisor || (twice === divisor && q % 2n !== 0n)) q += numerator < 0n ? -1n : 1n;
  return q;
}

/**
 * Converts a scaled amount between currencies with a decimal rate (kept to 18 decimals), rounding
 * half-to-even at 10^-8. Returns the same amount when `from === to`, and `null` when the provider
 * has no rate. Callers comparing a converted amount with a threshold round it to the target
 * currency's minor unit first ({@link roundToMinorUnit}).
 */
export function convertScaled(amount: bigint, from: string, to: string, rates: RateProvider, at: number): bigint | null {
  if (from === to) return amount;
  const rate = rates.rate(from, to, at);
  if (rate === null) return null;
  // Several rules convert the same amount at the same rate in a row: remember the last answer.
  if (amount === lastConverted.amount && rate === lastConverted.rate) return lastConverted.result;
  const result = convertAtRate(amount, rate);
  lastConverted.amount = amount;
  lastConverted.rate = rate;
  lastConverted.result = result;
  return result;
}

/**
 * `amount` × `rate` (a provider's decimal rate text), rounded half-to-even at 10^-8: the
 * arithmetic of {@link convertScaled} once the rate is known. Depends on nothing but its two
 * arguments, so a caller may cache what it derives from one rate text.
 * @internal
 */
export function convertAtRate(amount: bigint, rate: string): bigint {
  let scaled = parsedRates.get(rate);
  if (scaled === undefined) {
    scaled = parseScaled(rate, RATE_DIGITS);
    if (parsedRates.size > 10_000) parsedRates.clear();
    parsedRates.set(rate, scaled);
  }
  return divideRounded(amount * scaled, RATE_SCALE);
}
const lastConverted: { amount: bigint; rate: string; result: bigint } = { amount: 0n, rate: '', result: 0n };

// Rate strings repeat (a provider answers the same pair with the same text): parse each once.
const parsedRates = new Map<string, bigint>();

/**
 * Rounds a scaled amount (10^-8 units) to `exponent` decimals (the currency's ISO 4217 minor
 * unit), half-to-even. Converted amounts are compared with thresholds at this precision, so the
 * sub-cent noise of a conversion never decides a boundary.
 */
export function roundToMinorUnit(amount: bigint, exponent: number): bigint {
  if (exponent >= MONEY_SCALE_DIGITS) return amount;
  const unit = MINOR_UNITS[Math.max(0, exponent)] as bigint;
  // Already on the unit (every unconverted amount with at most `exponent` decimals): as is.
  if (amount % unit === 0n) return amount;
  return divideRounded(amount, unit) * unit;
}
/** 10^(8 − exponent) for exponents 0…7: the scaled size of one minor unit. */
const MINOR_UNITS: readonly bigint[] = Array.from({ length: MONEY_SCALE_DIGITS }, (_, e) => 10n ** BigInt(MONEY_SCALE_DIGITS - e));
