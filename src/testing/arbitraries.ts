/**
 * fast-check arbitraries for txmon's domain objects: transactions, lifecycle-valid event
 * sequences, consumer and business users, and rule-instance requests for the shipped rules.
 *
 * Every value is valid against the real schemas (`TransactionSchema`, `TransactionEventSchema`,
 * `ConsumerUserSchema`, `BusinessUserSchema`, `RuleInstanceRequestSchema` and each rule's
 * `parametersSchema`), so a property that feeds them to an engine tests behaviour, not validation.
 * Values are drawn from small pools (users, countries, currencies) so that velocity windows,
 * alerts and cases actually fill up.
 */
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import {
  ACQUISITION_CHANNELS,
  BUSINESS_USER_SEGMENTS,
  CARD_BRANDS,
  CARD_FUNDINGS,
  CASE_PRIORITIES,
  CONSUMER_USER_SEGMENTS,
  KYC_STATUSES,
  MPESA_TRANSACTION_TYPES,
  PAYMENT_METHODS,
  RISK_LEVELS,
  RULE_ACTIONS,
  USER_DIRECTIONS,
  USER_STATES,
} from '../domain/enums.js';
import type {
  BusinessUser,
  ConsumerUser,
  DeviceData,
  PaymentDetails,
  RiskLevel,
  RuleInstanceRequest,
  Tag,
  Transaction,
  TransactionAmountDetails,
  TransactionEvent,
  TransactionState,
  TransactionUpdatePatch,
} from '../domain/index.js';
import { DEFAULT_TRANSITIONS, type TransitionTable } from '../engine/pipeline/lifecycle.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Latest timestamp the schemas accept (docs/wire-format.md#timestamps), epoch ms. */
const MAX_TIMESTAMP_MS = 4_133_890_801_000;

/** Default start of generated timestamps: 2025-01-01T00:00:00Z. */
export const TESTING_EPOCH_MS = Date.UTC(2025, 0, 1);

/** Default span of generated transaction timestamps: 30 days from {@link TESTING_EPOCH_MS}. */
export const TESTING_SPAN_MS = 30 * DAY_MS;

/** Currencies of generated amounts and thresholds (all present in the default rate table). */
export const TESTING_CURRENCIES = ['EUR', 'USD', 'GBP'] as const;

/**
 * High-risk countries among {@link TESTING_COUNTRIES}: the FATF "call for action" list (IR, KP,
 * MM) and two countries under broad EU sanctions (RU, SY).
 */
export const TESTING_HIGH_RISK_COUNTRIES = ['IR', 'KP', 'MM', 'RU', 'SY'] as const;

/** Countries of generated transactions and users: common ones plus the high-risk ones. */
export const TESTING_COUNTRIES = ['DE', 'FR', 'GB', 'US', 'NL', 'ES', 'IT', ...TESTING_HIGH_RISK_COUNTRIES] as const;

/** Transaction `type`s drawn by {@link transactionArbitrary}. */
export const TESTING_TRANSACTION_TYPES = ['TRANSFER', 'DEPOSIT', 'WITHDRAWAL', 'EXTERNAL_PAYMENT', 'REFUND'] as const;

/** The default pool of user ids: small, so windows and alerts collect several transactions per user. */
export const TESTING_USER_IDS = ['u-alice', 'u-bob', 'u-carol', 'u-dave', 'u-erin', 'u-frank'] as const;

/** Amounts at the thresholds {@link ruleInstanceRequestArbitrary} uses: exactly at, one minor unit below and above. */
export const TESTING_AMOUNT_BOUNDARIES = [999.99, 1000, 1000.01, 9999.99, 10000, 10000.01] as const;

/** Ids of the rules (templates) {@link ruleInstanceRequestArbitrary} configures. */
export const TESTING_RULE_IDS = ['R-1', 'R-2', 'R-14', 'R-30', 'R-69'] as const;
/** One of {@link TESTING_RULE_IDS}. */
export type TestingRuleId = (typeof TESTING_RULE_IDS)[number];

/** Options of {@link transactionArbitrary}. */
export interface TransactionArbitraryOptions {
  /** Earliest timestamp (inclusive), epoch ms. Default {@link TESTING_EPOCH_MS}. */
  readonly from?: number;
  /** Latest timestamp (inclusive), epoch ms. Default `from + TESTING_SPAN_MS`. */
  readonly to?: number;
  /** Pool of origin/destination user ids (at least one). Default {@link TESTING_USER_IDS}. */
  readonly userIds?: readonly string[];
  /** Pool of currencies (at least one). Default {@link TESTING_CURRENCIES}. */
  readonly currencies?: readonly string[];
  /** Pool of countries (at least one). Default {@link TESTING_COUNTRIES}. */
  readonly countries?: readonly string[];
  /** Pool of transaction types (at least one). Default {@link TESTING_TRANSACTION_TYPES}. */
  readonly types?: readonly string[];
  /** Prefix of generated transaction ids. Default `tx-`. */
  readonly idPrefix?: string;
  /** Whether the create payload may name a state other than CREATED. Default `true`. */
  readonly initialStates?: boolean;
}

/** Options of {@link transactionsArbitrary}: those of {@link transactionArbitrary} plus the list length. */
export interface TransactionsArbitraryOptions extends TransactionArbitraryOptions {
  /** Default 0. */
  readonly minLength?: number;
  /** Default 20. */
  readonly maxLength?: number;
}

/** Options of {@link transactionEventSequenceArbitrary} and {@link eventSequenceArbitrary}. */
export interface EventSequenceOptions {
  /** Default 0. */
  readonly minEvents?: number;
  /** Default 5. */
  readonly maxEvents?: number;
  /** Largest gap between consecutive timestamps (the smallest is 1 ms). Default 6 hours. */
  readonly maxGapMs?: number;
  /** Lifecycle table the sequence must respect. Default {@link DEFAULT_TRANSITIONS}. */
  readonly transitions?: TransitionTable;
  /** Pool of currencies for amount changes. Default {@link TESTING_CURRENCIES}. */
  readonly currencies?: readonly string[];
  /** Whether `updatedTransactionAttributes` may remove optional fields with `null` (RFC 7396). Default `true`. */
  readonly nullRemovals?: boolean;
}

/** A transaction and a lifecycle-valid sequence of its events, in timestamp order. */
export interface TransactionWithEvents {
  transaction: Transaction;
  events: TransactionEvent[];
}

/** Options of {@link consumerUserArbitrary} and {@link businessUserArbitrary}. */
export interface UserArbitraryOptions {
  /** Pool of user ids (at least one). Default {@link TESTING_USER_IDS}. */
  readonly userIds?: readonly string[];
  /** Pool of countries (at least one). Default {@link TESTING_COUNTRIES}. */
  readonly countries?: readonly string[];
  /** Earliest `createdTimestamp`, epoch ms. Default {@link TESTING_EPOCH_MS} − 365 days. */
  readonly from?: number;
  /** Latest `createdTimestamp`, epoch ms. Default {@link TESTING_EPOCH_MS}. */
  readonly to?: number;
}

/** Options of {@link ruleInstanceRequestArbitrary}. */
export interface RuleInstanceRequestArbitraryOptions {
  /** Rules to configure (at least one). Default {@link TESTING_RULE_IDS}. */
  readonly ruleIds?: readonly TestingRuleId[];
  /** Currencies of thresholds (at least one). Default {@link TESTING_CURRENCIES}. */
  readonly currencies?: readonly string[];
  /** Countries R-14 may list (at least one). Default {@link TESTING_COUNTRIES}. */
  readonly countries?: readonly string[];
  /** Whether `status: 'INACTIVE'` may be generated. Default `false`. */
  readonly includeInactive?: boolean;
  /** Whether `triggersOnHit` may be generated (hits then change user state/KYC). Default `true`. */
  readonly triggersOnHit?: boolean;
}

function pick<T>(values: readonly T[], what: string): Arbitrary<T> {
  if (values.length === 0) throw new RangeError(`txmon/testing: ${what} must not be empty`);
  return fc.constantFrom(...values);
}

const DIGITS = '0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function charsArbitrary(alphabet: string, length: number): Arbitrary<string> {
  return fc
    .array(fc.integer({ min: 0, max: alphabet.length - 1 }), { minLength: length, maxLength: length })
    .map((indexes) => indexes.map((i) => alphabet[i]).join(''));
}

/**
 * A realistic amount: a decimal with at most 2 decimals, mostly small, sometimes large, sometimes
 * exactly at one of {@link TESTING_AMOUNT_BOUNDARIES}. Built as integer cents ÷ 100, so the
 * number's shortest decimal form is the intended one (exact for txmon's decimal arithmetic).
 *
 * @example
 * ```ts
 * fc.sample(amountArbitrary(), 3); // e.g. [12.5, 10000, 48211.07]
 * ```
 */
export function amountArbitrary(): Arbitrary<number> {
  const cents = (min: number, max: number) => fc.integer({ min, max }).map((c) => c / 100);
  return fc.oneof(
    { weight: 5, arbitrary: cents(1, 100_000) },
    { weight: 3, arbitrary: cents(100_000, 5_000_000) },
    { weight: 1, arbitrary: cents(5_000_000, 100_000_000) },
    { weight: 2, arbitrary: fc.constantFrom(...TESTING_AMOUNT_BOUNDARIES) },
  );
}

function amountDetailsArbitrary(currencies: readonly string[], countries: readonly string[]): Arbitrary<TransactionAmountDetails> {
  return fc.record(
    { transactionAmount: amountArbitrary(), transactionCurrency: pick(currencies, 'currencies'), country: pick(countries, 'countries') },
    { requiredKeys: ['transactionAmount', 'transactionCurrency'] },
  );
}

const tagArbitrary: Arbitrary<Tag> = fc.record({
  key: fc.constantFrom('channel', 'campaign', 'branch', 'merchantCategory'),
  value: fc.constantFrom('web', 'mobile', 'api', 'spring-2025', 'north', '5411', ''),
});

function tagsArbitrary(): Arbitrary<Tag[]> {
  return fc.array(tagArbitrary, { minLength: 1, maxLength: 3 });
}

function referenceArbitrary(): Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('Invoice 2025-001', 'Rent March', 'Salary', 'Gift', 'Loan repayment', 'Order #4711', ''),
    fc.integer({ min: 1, max: 999_999 }).map((n) => `Ref ${n}`),
  );
}

const NAMES = ['Alice Martin', 'Bob Schmidt', 'Carol Rossi', 'Dave Dubois', 'Erin Novak', 'Frank Jansen'] as const;
const BANKS = ['Deutsche Bank', 'BNP Paribas', 'Barclays', 'ING', 'Santander', 'Chase'] as const;

/**
 * Payment details of one side, one of several methods with their wire names (CARD, IBAN with
 * `IBAN`/`BIC`, ACH, SWIFT, GENERIC_BANK_ACCOUNT, WALLET, UPI, MPESA, CASH).
 *
 * @example
 * ```ts
 * fc.sample(paymentDetailsArbitrary(), 1); // e.g. [{ method: 'IBAN', IBAN: 'DE44…', BIC: 'DEUTDEFF', name: 'Alice Martin' }]
 * ```
 */
export function paymentDetailsArbitrary(countries: readonly string[] = TESTING_COUNTRIES): Arbitrary<PaymentDetails> {
  const country = pick(countries, 'countries');
  const name = fc.constantFrom(...NAMES);
  const bankName = fc.constantFrom(...BANKS);
  const card: Arbitrary<PaymentDetails> = fc
    .record(
      {
        cardFingerprint: charsArbitrary(DIGITS + UPPER, 16),
        cardIssuedCountry: country,
        cardLast4Digits: charsArbitrary(DIGITS, 4),
        cardBrand: fc.constantFrom(...CARD_BRANDS),
        cardFunding: fc.constantFrom(...CARD_FUNDINGS),
        '3dsDone': fc.boolean(),
      },
      { requiredKeys: ['cardFingerprint'] },
    )
    .map((r) => ({ method: 'CARD' as const, ...r }));
  const iban: Arbitrary<PaymentDetails> = fc
    .record(
      {
        IBAN: fc.tuple(country, charsArbitrary(DIGITS, 2), charsArbitrary(DIGITS, 18)).map(([c, check, bban]) => `${c.length === 2 ? c : 'DE'}${check}${bban}`),
        BIC: fc.tuple(charsArbitrary(UPPER, 4), charsArbitrary(UPPER, 2), charsArbitrary(UPPER + DIGITS, 2)).map((p) => p.join('')),
        bankName,
        country,
        name,
      },
      { requiredKeys: ['IBAN'] },
    )
    .map((r) => ({ method: 'IBAN' as const, ...r }));
  const ach: Arbitrary<PaymentDetails> = fc
    .record(
      { routingNumber: charsArbitrary(DIGITS, 9), accountNumber: charsArbitrary(DIGITS, 10), bankName, name },
      {
        requiredKeys: ['routingNumber', 'accountNumber'],
      },
    )
    .map((r) => ({ method: 'ACH' as const, ...r }));
  const swift: Arbitrary<PaymentDetails> = fc
    .record(
      { swiftCode: charsArbitrary(UPPER, 8), accountNumber: charsArbitrary(DIGITS, 12), bankName, name },
      {
        requiredKeys: ['swiftCode'],
      },
    )
    .map((r) => ({ method: 'SWIFT' as const, ...r }));
  const generic: Arbitrary<PaymentDetails> = fc
    .record({ accountNumber: charsArbitrary(DIGITS, 10), bankName, country, name }, { requiredKeys: ['accountNumber'] })
    .map((r) => ({ method: 'GENERIC_BANK_ACCOUNT' as const, ...r }));
  const wallet: Arbitrary<PaymentDetails> = fc
    .record(
      { walletType: fc.constantFrom('e-money', 'crypto'), walletId: charsArbitrary(DIGITS + UPPER, 12), name },
      {
        requiredKeys: ['walletId'],
      },
    )
    .map((r) => ({ method: 'WALLET' as const, ...r }));
  const upi: Arbitrary<PaymentDetails> = fc
    .record({ upiID: charsArbitrary(DIGITS, 10).map((d) => `${d}@upi`), name }, { requiredKeys: ['upiID'] })
    .map((r) => ({ method: 'UPI' as const, ...r }));
  const mpesa: Arbitrary<PaymentDetails> = fc
    .record({
      businessShortCode: charsArbitrary(DIGITS, 6),
      transactionType: fc.constantFrom(...MPESA_TRANSACTION_TYPES),
      phoneNumber: charsArbitrary(DIGITS, 9).map((d) => `+254${d}`),
    })
    .map((r) => ({ method: 'MPESA' as const, ...r }));
  const cash: Arbitrary<PaymentDetails> = fc
    .record({ identifier: charsArbitrary(DIGITS, 6), name }, { requiredKeys: [] })
    .map((r) => ({ method: 'CASH' as const, ...r }));
  return fc.oneof(
    { weight: 3, arbitrary: card },
    { weight: 3, arbitrary: iban },
    { weight: 1, arbitrary: ach },
    { weight: 1, arbitrary: swift },
    { weight: 1, arbitrary: generic },
    { weight: 1, arbitrary: wallet },
    { weight: 1, arbitrary: upi },
    { weight: 1, arbitrary: mpesa },
    { weight: 1, arbitrary: cash },
  );
}

function deviceDataArbitrary(countries: readonly string[]): Arbitrary<DeviceData> {
  return fc.record(
    {
      ipAddress: fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 })).map((p) => p.join('.')),
      ipCountry: pick(countries, 'countries'),
      vpnUsed: fc.boolean(),
      operatingSystem: fc.constantFrom('iOS', 'Android', 'Windows', 'macOS'),
    },
    { requiredKeys: ['ipAddress'] },
  );
}

/** Two user ids from the pool; distinct whenever the pool has two or more. */
function userPairArbitrary(userIds: readonly string[]): Arbitrary<[string, string]> {
  if (userIds.length === 0) throw new RangeError('txmon/testing: userIds must not be empty');
  const n = userIds.length;
  return fc
    .tuple(fc.nat(n - 1), fc.nat(Math.max(0, n - 2)))
    .map(([i, offset]) => [userIds[i] as string, userIds[n === 1 ? i : (i + 1 + offset) % n] as string]);
}

/**
 * A valid transaction (passes `TransactionSchema`): a type from a small set, a random
 * `transactionId` (`tx-<uuid>`; use {@link transactionsArbitrary} for lists with distinct ids), a
 * timestamp in [`from`, `to`] (default a 30-day span from {@link TESTING_EPOCH_MS}), origin and
 * destination users from a small pool, amounts with ≤ 2 decimals in EUR/USD/GBP, countries
 * including high-risk ones, and optional payment details, device data, tags and reference.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * import { transactionArbitrary } from 'txmon/testing';
 * await fc.assert(fc.asyncProperty(transactionArbitrary(), async (t) => {
 *   const r = await engine.createTransaction(t);
 *   return r.hitRules.every((h) => r.executedRules.some((e) => e.ruleInstanceId === h.ruleInstanceId));
 * }));
 * ```
 */
export function transactionArbitrary(options: TransactionArbitraryOptions = {}): Arbitrary<Transaction> {
  const from = options.from ?? TESTING_EPOCH_MS;
  const to = options.to ?? from + TESTING_SPAN_MS;
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from <= to)) {
    throw new RangeError('txmon/testing: from and to must be integers with from <= to');
  }
  const userIds = options.userIds ?? TESTING_USER_IDS;
  const currencies = options.currencies ?? TESTING_CURRENCIES;
  const countries = options.countries ?? TESTING_COUNTRIES;
  const types = options.types ?? TESTING_TRANSACTION_TYPES;
  const prefix = options.idPrefix ?? 'tx-';
  const states: Arbitrary<TransactionState> =
    options.initialStates === false ? fc.constant('CREATED') : fc.constantFrom('CREATED', 'PROCESSING', 'SENT', 'SUCCESSFUL');
  const origin = amountDetailsArbitrary(currencies, countries);
  const destinationVariant = fc.oneof(
    { weight: 3, arbitrary: fc.constant<'same' | 'other' | 'none'>('same') },
    { weight: 1, arbitrary: fc.constant<'same' | 'other' | 'none'>('other') },
    { weight: 1, arbitrary: fc.constant<'same' | 'other' | 'none'>('none') },
  );
  return fc
    .record({
      core: fc.record({
        type: pick(types, 'types'),
        transactionId: fc.uuid().map((u) => `${prefix}${u}`),
        timestamp: fc.integer({ min: from, max: to }),
      }),
      users: fc.record({
        pair: userPairArbitrary(userIds),
        // Mostly both parties: a user-less side is realistic (cash, card acquiring) but rarer.
        sides: fc.oneof(
          { weight: 6, arbitrary: fc.constant<'both' | 'origin' | 'destination'>('both') },
          { weight: 1, arbitrary: fc.constant<'both' | 'origin' | 'destination'>('origin') },
          { weight: 1, arbitrary: fc.constant<'both' | 'origin' | 'destination'>('destination') },
        ),
      }),
      amounts: fc.record({
        origin: fc.option(origin, { nil: null, freq: 8 }),
        variant: destinationVariant,
        other: amountDetailsArbitrary(currencies, countries),
        destinationCountry: pick(countries, 'countries'),
      }),
      extra: fc.record(
        {
          transactionState: states,
          originPaymentDetails: paymentDetailsArbitrary(countries),
          destinationPaymentDetails: paymentDetailsArbitrary(countries),
          originDeviceData: deviceDataArbitrary(countries),
          reference: referenceArbitrary(),
          tags: tagsArbitrary(),
          productType: fc.constantFrom('P2P', 'CARD_PAYMENT', 'PAYOUT'),
          promotionCodeUsed: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    })
    .map(({ core, users, amounts, extra }) => {
      const t: Transaction = { ...core };
      if (users.sides !== 'destination') t.originUserId = users.pair[0];
      if (users.sides !== 'origin') t.destinationUserId = users.pair[1];
      if (amounts.origin !== null) {
        t.originAmountDetails = amounts.origin;
        if (amounts.variant === 'same') {
          t.destinationAmountDetails = {
            transactionAmount: amounts.origin.transactionAmount,
            transactionCurrency: amounts.origin.transactionCurrency,
            country: amounts.destinationCountry,
          };
        } else if (amounts.variant === 'other') {
          t.destinationAmountDetails = amounts.other;
        }
      } else if (amounts.variant !== 'none') {
        t.destinationAmountDetails = amounts.other;
      }
      if (extra.transactionState !== undefined && extra.transactionState !== 'CREATED') t.transactionState = extra.transactionState;
      if (extra.originPaymentDetails !== undefined) t.originPaymentDetails = extra.originPaymentDetails;
      if (extra.destinationPaymentDetails !== undefined) t.destinationPaymentDetails = extra.destinationPaymentDetails;
      if (extra.originDeviceData !== undefined) t.originDeviceData = extra.originDeviceData;
      if (extra.reference !== undefined) t.reference = extra.reference;
      if (extra.tags !== undefined) t.tags = extra.tags;
      if (extra.productType !== undefined) t.productType = extra.productType;
      if (extra.promotionCodeUsed !== undefined) t.promotionCodeUsed = extra.promotionCodeUsed;
      return t;
    });
}

/**
 * A list of valid transactions with distinct `transactionId`s (see {@link transactionArbitrary}).
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(transactionsArbitrary({ maxLength: 50 }), async (list) => {
 *   for (const t of list) await engine.createTransaction(t);
 * }));
 * ```
 */
export function transactionsArbitrary(options: TransactionsArbitraryOptions = {}): Arbitrary<Transaction[]> {
  return fc.uniqueArray(transactionArbitrary(options), {
    minLength: options.minLength ?? 0,
    maxLength: options.maxLength ?? 20,
    size: 'max',
    selector: (t) => t.transactionId,
  });
}

interface EventStep {
  move: number;
  gap: number;
  patch: TransactionUpdatePatch | null;
  reason: string | null;
  metaData: DeviceData | null;
}

const REMOVABLE_FIELDS = ['reference', 'tags', 'originDeviceData', 'destinationPaymentDetails', 'productType'] as const;

function patchArbitrary(currencies: readonly string[], nullRemovals: boolean): Arbitrary<TransactionUpdatePatch | null> {
  const amount = fc.record({ transactionAmount: amountArbitrary(), transactionCurrency: pick(currencies, 'currencies') });
  const changes = fc.record(
    {
      // Whole objects (amount and currency), so the merge is valid even where the side had no amount yet.
      originAmountDetails: amount,
      destinationAmountDetails: amount,
      reference: referenceArbitrary(),
      tags: tagsArbitrary(),
    },
    { requiredKeys: [] },
  );
  const removals = nullRemovals ? fc.subarray([...REMOVABLE_FIELDS]) : fc.constant([] as string[]);
  return fc.option(
    fc.tuple(changes, removals).map(([c, r]) => {
      const patch: Record<string, unknown> = { ...c };
      for (const field of r) if (!(field in patch)) patch[field] = null;
      return patch;
    }),
    { nil: null, freq: 2 },
  );
}

/**
 * A lifecycle-valid sequence of events for `transaction`: applied in timestamp order, every
 * move is allowed by `transitions` (default {@link DEFAULT_TRANSITIONS}; a move to the same state
 * is an attribute-only update). Timestamps are distinct, strictly increasing and after the
 * transaction's; `eventId`s are distinct (`<transactionId>-e1`, `-e2`, …). Some events carry
 * `updatedTransactionAttributes`, a JSON Merge Patch whose result is a valid transaction: amount
 * and currency changes, reference and tag changes, and `null` removals of optional fields (unless
 * `nullRemovals: false`). Generation stops early rather than pass the latest accepted timestamp.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(
 *   transactionArbitrary().chain((t) => transactionEventSequenceArbitrary(t).map((events) => ({ t, events }))),
 *   async ({ t, events }) => {
 *     await engine.createTransaction(t);
 *     for (const e of events) await engine.createTransactionEvent(e);
 *   },
 * ));
 * ```
 */
export function transactionEventSequenceArbitrary(transaction: Transaction, options: EventSequenceOptions = {}): Arbitrary<TransactionEvent[]> {
  const table = options.transitions ?? DEFAULT_TRANSITIONS;
  const maxGap = options.maxGapMs ?? 6 * HOUR_MS;
  if (!(Number.isSafeInteger(maxGap) && maxGap >= 1)) throw new RangeError('txmon/testing: maxGapMs must be an integer >= 1');
  const currencies = options.currencies ?? TESTING_CURRENCIES;
  const step: Arbitrary<EventStep> = fc.record({
    move: fc.nat(1_000),
    gap: fc.integer({ min: 1, max: maxGap }),
    patch: patchArbitrary(currencies, options.nullRemovals !== false),
    reason: fc.option(fc.constantFrom('Settled by the bank', 'Customer request', 'Risk review', 'Timeout'), { nil: null }),
    metaData: fc.option(deviceDataArbitrary(TESTING_COUNTRIES), { nil: null, freq: 4 }),
  });
  return fc.array(step, { minLength: options.minEvents ?? 0, maxLength: options.maxEvents ?? 5 }).map((steps) => {
    const events: TransactionEvent[] = [];
    let state: TransactionState = transaction.transactionState ?? 'CREATED';
    let at = Math.ceil(transaction.timestamp);
    for (const s of steps) {
      at += s.gap;
      if (at > MAX_TIMESTAMP_MS) break;
      const moves: readonly TransactionState[] = [state, ...(table[state] ?? [])];
      state = moves[s.move % moves.length] as TransactionState;
      const event: TransactionEvent = {
        transactionId: transaction.transactionId,
        eventId: `${transaction.transactionId}-e${events.length + 1}`,
        timestamp: at,
        transactionState: state,
      };
      if (s.patch !== null) event.updatedTransactionAttributes = s.patch;
      if (s.reason !== null) event.reason = s.reason;
      if (s.metaData !== null) event.metaData = s.metaData;
      events.push(event);
    }
    return events;
  });
}

/**
 * A transaction together with a lifecycle-valid sequence of its events (see
 * {@link transactionArbitrary} and {@link transactionEventSequenceArbitrary}).
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(eventSequenceArbitrary(), async ({ transaction, events }) => {
 *   await engine.createTransaction(transaction);
 *   for (const e of events) await engine.createTransactionEvent(e);
 *   const stored = await engine.getTransaction(transaction.transactionId);
 *   return stored.transactionState === (events.at(-1)?.transactionState ?? transaction.transactionState ?? 'CREATED');
 * }));
 * ```
 */
export function eventSequenceArbitrary(options: TransactionArbitraryOptions & EventSequenceOptions = {}): Arbitrary<TransactionWithEvents> {
  return transactionArbitrary(options).chain((transaction) =>
    transactionEventSequenceArbitrary(transaction, options).map((events) => ({ transaction, events })),
  );
}

function dateOfBirthArbitrary(): Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: 1940, max: 2006 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
    .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
}

function commonUserArbitraries(options: UserArbitraryOptions) {
  const to = options.to ?? TESTING_EPOCH_MS;
  const from = options.from ?? to - 365 * DAY_MS;
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from <= to)) {
    throw new RangeError('txmon/testing: from and to must be integers with from <= to');
  }
  return {
    userId: pick(options.userIds ?? TESTING_USER_IDS, 'userIds'),
    createdTimestamp: fc.integer({ min: from, max: to }),
    riskLevel: fc.constantFrom(...RISK_LEVELS),
    userStateDetails: fc.record(
      { state: fc.constantFrom(...USER_STATES), reason: fc.constantFrom('Onboarding', 'Manual review') },
      { requiredKeys: ['state'] },
    ),
    kycStatusDetails: fc.record(
      { status: fc.constantFrom(...KYC_STATUSES), reason: fc.constantFrom('Documents verified', 'Pending documents') },
      { requiredKeys: [] },
    ),
    acquisitionChannel: fc.constantFrom(...ACQUISITION_CHANNELS),
    tags: tagsArbitrary(),
  };
}

/**
 * A valid consumer user (passes `ConsumerUserSchema`): a `userId` from the pool (default
 * {@link TESTING_USER_IDS}, the same as the transactions'), a name, date of birth and countries,
 * and optional `riskLevel` (manual CRA override), state, KYC status, segment and tags.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(consumerUserArbitrary(), async (u) => { await engine.createUser(u); }));
 * ```
 */
export function consumerUserArbitrary(options: UserArbitraryOptions = {}): Arbitrary<ConsumerUser> {
  const common = commonUserArbitraries(options);
  const country = pick(options.countries ?? TESTING_COUNTRIES, 'countries');
  const [first, last] = [fc.constantFrom('Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank'), fc.constantFrom('Martin', 'Schmidt', 'Rossi', 'Dubois')];
  return fc.record(
    {
      ...common,
      userDetails: fc.record(
        {
          name: fc.record({ firstName: first, lastName: last }, { requiredKeys: ['firstName'] }),
          dateOfBirth: dateOfBirthArbitrary(),
          countryOfResidence: country,
          countryOfNationality: country,
        },
        { requiredKeys: [] },
      ),
      userSegment: fc.constantFrom(...CONSUMER_USER_SEGMENTS),
    },
    { requiredKeys: ['userId', 'createdTimestamp'] },
  );
}

/**
 * A valid business user (passes `BusinessUserSchema`): a `userId` from the pool, a legal entity
 * with general and registration details, and optional `riskLevel`, state, KYC status, allowed
 * payment methods and tags.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(businessUserArbitrary(), async (u) => { await engine.createUser(u, { type: 'BUSINESS' }); }));
 * ```
 */
export function businessUserArbitrary(options: UserArbitraryOptions = {}): Arbitrary<BusinessUser> {
  const common = commonUserArbitraries(options);
  const country = pick(options.countries ?? TESTING_COUNTRIES, 'countries');
  return fc.record(
    {
      ...common,
      legalEntity: fc.record(
        {
          companyGeneralDetails: fc.record(
            {
              legalName: fc.constantFrom('Acme GmbH', 'Globex Ltd', 'Initech SAS', 'Umbrella BV'),
              businessIndustry: fc.subarray(['Retail', 'Software', 'Logistics', 'Gambling', 'Crypto'], { minLength: 1 }),
              userSegment: fc.constantFrom(...BUSINESS_USER_SEGMENTS),
            },
            { requiredKeys: ['legalName'] },
          ),
          companyRegistrationDetails: fc.record(
            { registrationIdentifier: charsArbitrary(DIGITS, 8).map((d) => `HRB ${d}`), registrationCountry: country },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ['companyGeneralDetails'] },
      ),
      allowedPaymentMethods: fc.subarray([...PAYMENT_METHODS], { minLength: 1 }),
    },
    { requiredKeys: ['userId', 'createdTimestamp', 'legalEntity'] },
  );
}

function thresholdsArbitrary(currencies: readonly string[], minLength: number): Arbitrary<Record<string, number>> {
  const amount = fc.oneof(
    fc.constantFrom(1000, 5000, 10000, 15000),
    fc.integer({ min: 1, max: 5_000_000 }).map((c) => c / 100),
  );
  return fc
    .uniqueArray(fc.tuple(pick(currencies, 'currencies'), amount), {
      minLength: Math.min(minLength, currencies.length),
      maxLength: currencies.length,
      selector: ([currency]) => currency,
    })
    .map((pairs) => Object.fromEntries(pairs));
}

function timeWindowArbitrary() {
  const calendar = (granularity: 'day' | 'week' | 'month', max: number) =>
    fc.record(
      { units: fc.integer({ min: 1, max }), granularity: fc.constant(granularity), rollingBasis: fc.boolean() },
      {
        requiredKeys: ['units', 'granularity'],
      },
    );
  return fc.oneof(
    fc.record({ units: fc.integer({ min: 1, max: 120 }), granularity: fc.constant('minute' as const) }),
    fc.record({ units: fc.integer({ min: 1, max: 72 }), granularity: fc.constant('hour' as const) }),
    calendar('day', 30),
    calendar('week', 4),
    calendar('month', 2),
  );
}

const checkSender = fc.constantFrom('sending', 'all', 'none');
const checkReceiver = fc.constantFrom('receiving', 'all', 'none');

/**
 * Parameters of one shipped rule, valid against its `parametersSchema`, with thresholds and
 * windows sized for the generated data (so rules both hit and miss).
 *
 * @example
 * ```ts
 * fc.sample(ruleParametersArbitrary('R-30'), 1); // e.g. [{ transactionsLimit: 3, timeWindow: { units: 2, granularity: 'day' }, … }]
 * ```
 */
export function ruleParametersArbitrary(
  ruleId: TestingRuleId,
  options: Pick<RuleInstanceRequestArbitraryOptions, 'currencies' | 'countries'> = {},
): Arbitrary<Record<string, unknown>> {
  const currencies = options.currencies ?? TESTING_CURRENCIES;
  switch (ruleId) {
    case 'R-1':
      return fc.record({ transactionAmountThreshold: thresholdsArbitrary(currencies, 0) }, { requiredKeys: [] });
    case 'R-2':
      return fc.record({ transactionAmountThreshold: thresholdsArbitrary(currencies, 1) });
    case 'R-14': {
      const countries = options.countries ?? TESTING_COUNTRIES;
      if (countries.length === 0) throw new RangeError('txmon/testing: countries must not be empty');
      return fc.record({ highRiskCountries: fc.subarray([...countries], { minLength: 1 }) });
    }
    case 'R-30':
      return fc.record({
        transactionsLimit: fc.integer({ min: 0, max: 20 }),
        timeWindow: timeWindowArbitrary(),
        checkSender,
        checkReceiver,
      });
    case 'R-69':
      return fc.record(
        {
          transactionVolumeThreshold: thresholdsArbitrary(currencies, 1),
          transactionVolumeUpperThreshold: thresholdsArbitrary(currencies, 1),
          timeWindow: timeWindowArbitrary(),
          checkSender,
          checkReceiver,
          initialTransactions: fc.integer({ min: 0, max: 10 }),
        },
        { requiredKeys: ['transactionVolumeThreshold', 'timeWindow', 'checkSender', 'checkReceiver'] },
      );
    default:
      throw new RangeError('txmon/testing: ruleId must be one of TESTING_RULE_IDS');
  }
}

function riskLevelRecord<T>(inner: Arbitrary<T>): Arbitrary<Record<RiskLevel, T>> {
  return fc.record({ VERY_LOW: inner, LOW: inner, MEDIUM: inner, HIGH: inner, VERY_HIGH: inner });
}

/**
 * A valid rule-instance request for one of the shipped rules:
 * parameters valid against the rule's `parametersSchema`, and optional `action`, `mode`
 * (LIVE/SHADOW), `alertCreationOnHit`, `casePriority`, `triggersOnHit`, and per-risk-level
 * `riskLevelParameters` / `riskLevelActions` with all five levels.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(fc.array(ruleInstanceRequestArbitrary(), { maxLength: 5 }), transactionsArbitrary(),
 *   async (requests, transactions) => {
 *     const engine = createEngine();
 *     for (const r of requests) await engine.createRuleInstance(r);
 *     for (const t of transactions) await engine.createTransaction(t);
 *   }));
 * ```
 */
export function ruleInstanceRequestArbitrary(options: RuleInstanceRequestArbitraryOptions = {}): Arbitrary<RuleInstanceRequest> {
  const ruleIds = options.ruleIds ?? TESTING_RULE_IDS;
  if (ruleIds.length === 0) throw new RangeError('txmon/testing: ruleIds must not be empty');
  const action = fc.constantFrom(...RULE_ACTIONS);
  const triggers = fc.record(
    {
      usersToCheck: fc.constantFrom(...USER_DIRECTIONS),
      userStateDetails: fc.record({ state: fc.constantFrom(...USER_STATES), reason: fc.constant('Rule hit') }),
      kycStatusDetails: fc.record({ status: fc.constantFrom(...KYC_STATUSES), reason: fc.constant('Rule hit') }),
    },
    { requiredKeys: [] },
  );
  const perRule = ruleIds.map((ruleId) => {
    const parameters = ruleParametersArbitrary(ruleId, options);
    return fc
      .record(
        {
          parameters,
          action,
          mode: fc.constantFrom('LIVE' as const, 'SHADOW' as const),
          alertCreationOnHit: fc.boolean(),
          casePriority: fc.constantFrom(...CASE_PRIORITIES),
          riskLevelParameters: riskLevelRecord(parameters),
          riskLevelActions: riskLevelRecord(action),
          ruleNameAlias: fc.constantFrom('Large transfer', 'Velocity check', 'Watch list'),
          status: options.includeInactive === true ? fc.constantFrom('ACTIVE' as const, 'INACTIVE' as const) : fc.constant('ACTIVE' as const),
          ...(options.triggersOnHit === false ? {} : { triggersOnHit: triggers }),
        },
        { requiredKeys: ['parameters'] },
      )
      .map((r): RuleInstanceRequest => ({ ruleId, ...r }));
  });
  return fc.oneof(...perRule);
}
