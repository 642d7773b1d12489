import type { SeriesEntry, SeriesEntryRef } from '../aggregation/aggregate-store.js';
import { convertScaled, toScaled } from '../domain/money.js';
import type { Transaction } from '../domain/index.js';
import type { MoneyContext } from './types.js';

/**
 * A series is one way of indexing transactions for windowed aggregates: which key a transaction
 * is filed under (the sending user, the receiving user, …) and which amount it carries.
 *
 * - `user-sending`: key = `originUserId`; amount = the origin amount (else the destination amount).
 * - `user-receiving`: key = `destinationUserId`; amount = the destination amount (else the origin amount).
 * - `user-all`: key = each user of the transaction, ONE entry per user — a self-transfer counts
 *   once; amount = the user's own side (origin amount for the sender).
 * - `user-pair`: key = {@link pairKey}(sender, receiver) when both are users; amount = the origin
 *   amount (else the destination amount). What flows between the same two parties.
 * - `payment-origin` / `payment-destination`: key = the origin / destination payment identifier
 *   ({@link paymentIdentifier}); values `user` (that side's user id) and `counterpartyUser`.
 * - `ip`: key = `originDeviceData.ipAddress`; value `user` = the sender.
 * User-series entries also carry `paymentId` (that side's payment identifier) for distinct counts.
 *
 * Amounts are kept in the engine's base currency as exact scaled integers; an amount whose
 * currency has no rate is kept as `null` (it counts, but adds nothing to sums).
 */
export const SERIES_NAMES = ['user-sending', 'user-receiving', 'user-all', 'user-pair', 'payment-origin', 'payment-destination', 'ip'] as const;

/**
 * Fields that identify a payment instrument, per method (docs/wire-format.md#payment-identifiers,
 * Flagright's `PAYMENT_METHOD_IDENTIFIER_FIELDS`): every listed field must be non-empty, else no
 * identifier. GENERIC_BANK_ACCOUNT uses accountNumber + bankCode, else the legacy accountNumber +
 * accountType.
 */
const IDENTIFIER_FIELDS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  IBAN: [['BIC', 'IBAN']],
  CARD: [['cardFingerprint']],
  ACH: [['routingNumber', 'accountNumber']],
  UPI: [['upiID']],
  WALLET: [['walletId']],
  GENERIC_BANK_ACCOUNT: [
    ['accountNumber', 'bankCode'],
    ['accountNumber', 'accountType'],
  ],
  SWIFT: [['accountNumber', 'swiftCode']],
  MPESA: [['businessShortCode', 'phoneNumber']],
  CHECK: [['accountNumber']],
  CASH: [['identifier']],
  NPP: [['payId']],
};

/**
 * The payment identifier of payment details — `METHOD:field1|field2` from the identifying fields
 * of the method — or `undefined` when a field is missing (e.g. an IBAN without BIC).
 */
export function paymentIdentifier(details: Transaction['originPaymentDetails']): string | undefined {
  if (!details) return undefined;
  const record = details as unknown as Record<string, unknown>;
  for (const fields of IDENTIFIER_FIELDS[details.method] ?? []) {
    const parts: string[] = [];
    for (const f of fields) {
      const v = record[f];
      if (typeof v !== 'string' || v.trim() === '') break;
      parts.push(v.trim());
    }
    if (parts.length === fields.length) return `${details.method}:${parts.join('|')}`;
  }
  return undefined;
}

/**
 * The `user-pair` key of a sender and a receiver: the ordered pair as JSON, unambiguous whatever the
 * ids hold and plain text any database stores.
 */
export function pairKey(originUserId: string, destinationUserId: string): string {
  return JSON.stringify([originUserId, destinationUserId]);
}
/** Name of a built-in series. */
export type SeriesName = (typeof SERIES_NAMES)[number];

/** The built-in series keyed by a user id. */
export type UserSeriesName = 'user-sending' | 'user-receiving' | 'user-all';

/** Name of a {@link DerivedSeries}: its base series, `~`, and the id of its filter. */
export type DerivedSeriesName = `${SeriesName}~${string}`;

/**
 * A filtered copy of a built-in series: the entries of `base` for the transactions `accepts`
 * admits (historical filters of an instance, the filter logic of an aggregation variable). Its
 * entries are the base entries renamed to `name`, so every aggregate function works on it with the
 * same costs. Equal filters give equal names, so instances with the same filters share a series.
 */
export interface DerivedSeries {
  readonly name: DerivedSeriesName;
  readonly base: SeriesName;
  /** Whether a transaction (in its current state) contributes. Pure. */
  readonly accepts: (transaction: Transaction) => boolean;
}

/** The {@link DerivedSeries} of `base` filtered by `accepts`, named after the filter's id. */
export function createDerivedSeries(base: SeriesName, id: string, accepts: (transaction: Transaction) => boolean): DerivedSeries {
  return { name: `${base}~${id}`, base, accepts };
}

type AmountDetails = { transactionAmount: number; transactionCurrency: string } | undefined;

function amountInBase(details: AmountDetails, money: MoneyContext, at: number): bigint | null {
  if (details === undefined) return null;
  return convertScaled(toScaled(details.transactionAmount), details.transactionCurrency, money.baseCurrency, money.rates, at);
}

/**
 * The string attributes an entry carries, for distinct counts and filtered counts (`countIn`). For
 * the side of the user the entry is filed under:
 * - `counterparty`: the other side's user id; `counterpartyCountry`: the other side's country;
 * - `country`, `currency`: this side's amount country and currency;
 * - `state`: the transaction state (replaced by every event); `type`: the transaction type;
 * - `round`: `'1'` when this side's amount is a whole multiple of 100 in its own currency (exact);
 * - `paymentId`: this side's payment identifier ({@link paymentIdentifier});
 * - `threeDs`: `'1'` when this side paid by CARD with `3dsDone: true`, and then `threeDsType`: the type;
 * - `ipCountry`: this side's `DeviceData.ipCountry`.
 */
export type EntryValueField =
  | 'counterparty'
  | 'counterpartyCountry'
  | 'country'
  | 'currency'
  | 'state'
  | 'type'
  | 'round'
  | 'paymentId'
  | 'threeDs'
  | 'threeDsType'
  | 'ipCountry';

const HUNDRED = 10_000_000_000n; // 100 in 10^-8 units

function entryValues(transaction: Transaction, side: 'origin' | 'destination'): Record<string, string> {
  const values: Record<string, string> = {};
  const own =
    side === 'origin'
      ? (transaction.originAmountDetails ?? transaction.destinationAmountDetails)
      : (transaction.destinationAmountDetails ?? transaction.originAmountDetails);
  const counterparty = side === 'origin' ? transaction.destinationUserId : transaction.originUserId;
  if (counterparty) values.counterparty = counterparty;
  const counterpartyCountry = side === 'origin' ? transaction.destinationAmountDetails?.country : transaction.originAmountDetails?.country;
  if (counterpartyCountry) values.counterpartyCountry = counterpartyCountry;
  if (own?.country) values.country = own.country;
  if (own) {
    values.currency = own.transactionCurrency;
    const scaled = toScaled(own.transactionAmount);
    if (scaled !== 0n && scaled % HUNDRED === 0n) values.round = '1';
  }
  values.state = transaction.transactionState ?? 'CREATED';
  values.type = transaction.type;
  const payment = side === 'origin' ? transaction.originPaymentDetails : transaction.destinationPaymentDetails;
  const paymentId = paymentIdentifier(payment);
  if (paymentId !== undefined) values.paymentId = paymentId;
  if (payment?.method === 'CARD' && (payment as { '3dsDone'?: boolean })['3dsDone'] === true) {
    values.threeDs = '1';
    // The type of a 3DS-done transaction: "3DS-done transactions of these types" is one countIn.
    values.threeDsType = transaction.type;
  }
  const ipCountry = (side === 'origin' ? transaction.originDeviceData : transaction.destinationDeviceData)?.ipCountry;
  if (ipCountry) values.ipCountry = ipCountry;
  return values;
}

/**
 * The values of the entry `transaction` files under user `key` in `series` — the same values
 * {@link contributionsOf} stores for it — or `null` when it files no entry there: `key` did not
 * send it (`user-sending`), did not receive it (`user-receiving`), or is neither of its users
 * (`user-all`; a self-transfer's one entry there is its sender's).
 */
export function userEntryValuesOf(transaction: Transaction, series: UserSeriesName, key: string): Readonly<Record<string, string>> | null {
  if (series !== 'user-receiving' && transaction.originUserId === key) return entryValues(transaction, 'origin');
  if (series !== 'user-sending' && transaction.destinationUserId === key) return entryValues(transaction, 'destination');
  return null;
}

/**
 * The entries a transaction contributes to the given built-in `series` and to the `derived`
 * series that accept it (a derived series needs no entry of its base in `series`). Pure: the same
 * transaction always yields the same entries, so an update replaces exactly what the earlier
 * version added. With `withValues` false the user-series entries carry no `values` (the engine
 * keeps them so while no active instance reads values; see `RuleDefinition.readsEntryValues`).
 */
export function contributionsOf(
  transaction: Transaction,
  series: ReadonlySet<SeriesName>,
  money: MoneyContext,
  derived: readonly DerivedSeries[] = NO_DERIVED,
  withValues = true,
): SeriesEntry[] {
  if (derived.length === 0) return baseContributionsOf(transaction, series, money, withValues);
  // Base entries of a derived series' base are computed even when that base is not kept.
  const computed = withBases(series, derived);
  const base = baseContributionsOf(transaction, computed, money, withValues);
  const out: SeriesEntry[] = computed === series ? base : base.filter((e) => series.has(e.series as SeriesName));
  for (const d of derived) {
    if (!d.accepts(transaction)) continue;
    for (const e of base) {
      if (e.series !== d.base) continue;
      out.push(
        e.values === undefined
          ? { series: d.name, key: e.key, id: e.id, timestamp: e.timestamp, amount: e.amount }
          : { series: d.name, key: e.key, id: e.id, timestamp: e.timestamp, amount: e.amount, values: e.values },
      );
    }
  }
  return out;
}

/** `series` plus the bases of `derived` (the same set object when nothing is missing). */
function withBases(series: ReadonlySet<SeriesName>, derived: readonly DerivedSeries[]): ReadonlySet<SeriesName> {
  let out: Set<SeriesName> | null = null;
  for (const d of derived) {
    if (series.has(d.base) || out?.has(d.base)) continue;
    out ??= new Set(series);
    out.add(d.base);
  }
  return out ?? series;
}

const NO_DERIVED: readonly DerivedSeries[] = Object.freeze([]);

function baseContributionsOf(transaction: Transaction, series: ReadonlySet<SeriesName>, money: MoneyContext, withValues: boolean): SeriesEntry[] {
  const out: SeriesEntry[] = [];
  const at = transaction.timestamp;
  const id = transaction.transactionId;
  const origin = transaction.originUserId;
  const destination = transaction.destinationUserId;
  // Each side's amount and values are computed once, shared by the series of that side, and only
  // when a kept series of that side carries them.
  const userSeries = series.has('user-all');
  const originUserSeries = userSeries || series.has('user-sending') || series.has('user-pair');
  const destinationUserSeries = userSeries || series.has('user-receiving');
  let originAmount: bigint | null = null;
  let originValues: Record<string, string> | null = null;
  if (origin && (originUserSeries || series.has('payment-origin') || series.has('ip'))) {
    originAmount = amountInBase(transaction.originAmountDetails ?? transaction.destinationAmountDetails, money, at);
    if (originUserSeries && withValues) originValues = entryValues(transaction, 'origin');
  }
  let destinationAmount: bigint | null = null;
  let destinationValues: Record<string, string> | null = null;
  if (destination && (destinationUserSeries || series.has('payment-destination'))) {
    destinationAmount = amountInBase(transaction.destinationAmountDetails ?? transaction.originAmountDetails, money, at);
    if (destinationUserSeries && withValues) destinationValues = entryValues(transaction, 'destination');
  }
  if (origin && series.has('user-sending')) {
    out.push({ series: 'user-sending', key: origin, id, timestamp: at, amount: originAmount, values: (originValues ?? undefined) as Record<string, string> });
  }
  if (destination && series.has('user-receiving')) {
    out.push({
      series: 'user-receiving',
      key: destination,
      id,
      timestamp: at,
      amount: destinationAmount,
      values: (destinationValues ?? undefined) as Record<string, string>,
    });
  }
  if (series.has('user-all')) {
    if (origin) {
      out.push({ series: 'user-all', key: origin, id, timestamp: at, amount: originAmount, values: (originValues ?? undefined) as Record<string, string> });
    }
    // A self-transfer is one transaction of its user: one user-all entry.
    if (destination && destination !== origin) {
      out.push({
        series: 'user-all',
        key: destination,
        id,
        timestamp: at,
        amount: destinationAmount,
        values: (destinationValues ?? undefined) as Record<string, string>,
      });
    }
  }
  if (origin && destination && series.has('user-pair')) {
    out.push({
      series: 'user-pair',
      key: pairKey(origin, destination),
      id,
      timestamp: at,
      amount: originAmount,
      values: (originValues ?? undefined) as Record<string, string>,
    });
  }
  const originPayment = series.has('payment-origin') ? paymentIdentifier(transaction.originPaymentDetails) : undefined;
  if (originPayment !== undefined) {
    out.push({ series: 'payment-origin', key: originPayment, id, timestamp: at, amount: originAmount, values: partyValues(origin, destination) });
  }
  const destinationPayment = series.has('payment-destination') ? paymentIdentifier(transaction.destinationPaymentDetails) : undefined;
  if (destinationPayment !== undefined) {
    out.push({
      series: 'payment-destination',
      key: destinationPayment,
      id,
      timestamp: at,
      amount: destinationAmount,
      values: partyValues(destination, origin),
    });
  }
  const ip = transaction.originDeviceData?.ipAddress;
  if (ip && series.has('ip')) {
    out.push({ series: 'ip', key: ip, id, timestamp: at, amount: originAmount, values: partyValues(origin, destination) });
  }
  return out;
}

function partyValues(user: string | undefined, counterpartyUser: string | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  if (user) values.user = user;
  if (counterpartyUser) values.counterpartyUser = counterpartyUser;
  return values;
}

/**
 * The references of the entries {@link contributionsOf} gives for a transaction (what an update
 * must remove), without computing amounts: series keys depend only on the user ids.
 */
export function contributionRefsOf(
  transaction: Transaction,
  series: ReadonlySet<SeriesName>,
  derived: readonly DerivedSeries[] = NO_DERIVED,
): SeriesEntryRef[] {
  if (derived.length === 0) return baseRefsOf(transaction, series);
  const computed = withBases(series, derived);
  const base = baseRefsOf(transaction, computed);
  const out: SeriesEntryRef[] = computed === series ? base : base.filter((r) => series.has(r.series as SeriesName));
  for (const d of derived) {
    // Only what the transaction's stored version contributed: the derived series accepted it.
    if (!d.accepts(transaction)) continue;
    for (const r of base) if (r.series === d.base) out.push({ series: d.name, key: r.key, id: r.id });
  }
  return out;
}

function baseRefsOf(transaction: Transaction, series: ReadonlySet<SeriesName>): SeriesEntryRef[] {
  const out: SeriesEntryRef[] = [];
  const id = transaction.transactionId;
  const origin = transaction.originUserId;
  const destination = transaction.destinationUserId;
  if (origin && series.has('user-sending')) out.push({ series: 'user-sending', key: origin, id });
  if (destination && series.has('user-receiving')) out.push({ series: 'user-receiving', key: destination, id });
  if (series.has('user-all')) {
    if (origin) out.push({ series: 'user-all', key: origin, id });
    if (destination && destination !== origin) out.push({ series: 'user-all', key: destination, id });
  }
  if (origin && destination && series.has('user-pair')) out.push({ series: 'user-pair', key: pairKey(origin, destination), id });
  const originPayment = series.has('payment-origin') ? paymentIdentifier(transaction.originPaymentDetails) : undefined;
  if (originPayment !== undefined) out.push({ series: 'payment-origin', key: originPayment, id });
  const destinationPayment = series.has('payment-destination') ? paymentIdentifier(transaction.destinationPaymentDetails) : undefined;
  if (destinationPayment !== undefined) out.push({ series: 'payment-destination', key: destinationPayment, id });
  const ip = transaction.originDeviceData?.ipAddress;
  if (ip && series.has('ip')) out.push({ series: 'ip', key: ip, id });
  return out;
}
