/**
 * Shared building blocks of the domain schemas: limits, primitives (ids, timestamps, codes,
 * amounts), tags, names, addresses and device data.
 *
 * Every limit txmon invents is a named constant in {@link SCHEMA_LIMITS} so docs and tests can cite it.
 */
import { Type, type SchemaOptions, type Static, type TObject, type TProperties, type TUnsafe } from '@sinclair/typebox';

/**
 * Limits applied by the schemas. Values marked "txmon" are txmon's own choices (the wire format
 * leaves them open: docs/wire-format.md#open-points); the timestamp range comes from
 * docs/wire-format.md#timestamps.
 */
export const SCHEMA_LIMITS = Object.freeze({
  /** Earliest accepted timestamp, epoch ms (1979-12-31T23:00:00Z), inclusive. */
  MIN_TIMESTAMP_MS: 315_529_200_000,
  /** Latest accepted timestamp, epoch ms (2100-12-30T23:00:01Z), inclusive. */
  MAX_TIMESTAMP_MS: 4_133_890_801_000,
  /** txmon: max characters of any identifier (transactionId, userId, eventId, ruleId…). */
  ID_MAX_LENGTH: 256,
  /** txmon: max characters of a transaction `type`. */
  TRANSACTION_TYPE_MAX_LENGTH: 64,
  /** txmon: max characters of short text (names, bank names, account numbers, device fields). */
  SHORT_TEXT_MAX_LENGTH: 256,
  /** txmon: max characters of free text (reference, reason, descriptions, tag values). */
  TEXT_MAX_LENGTH: 4096,
  /** txmon: max characters of one external link. */
  URL_MAX_LENGTH: 2048,
  /** txmon: max items of `tags`, `relatedTransactionIds`, `externalLinks` and other lists. */
  MAX_LIST_ITEMS: 100,
  /** txmon: largest accepted amount (absolute value); beyond it exact decimal arithmetic is not meaningful. */
  MAX_AMOUNT: 1e15,
  /** txmon: max characters of a comment body. */
  COMMENT_BODY_MAX_LENGTH: 100_000,
  /** txmon: max files attached to one comment. */
  MAX_COMMENT_FILES: 20,
  /** txmon: max characters of a file name (no path separators, no control characters). */
  FILENAME_MAX_LENGTH: 256,
  /** txmon: max characters of a file key (`s3Key` / `key`). */
  FILE_KEY_MAX_LENGTH: 1024,
  /** txmon: max items of shareholder / director / saved-payment lists of a user. */
  MAX_PARTY_ITEMS: 1000,
});

/**
 * A string enum as a plain JSON Schema `{ type: 'string', enum }` (one `enum` error on mismatch,
 * instead of the one-error-per-literal `anyOf` that `Type.Union` of literals produces).
 */
export function defineStringEnum<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** `Type.Object` that keeps unknown properties (`additionalProperties: true`). */
export function defineOpenObject<T extends TProperties>(properties: T, options?: SchemaOptions): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: true });
}

/** `Type.Object` that rejects unknown properties (`additionalProperties: false`). */
export function defineClosedObject<T extends TProperties>(properties: T, options?: SchemaOptions): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** Any JSON object (not an array, not null); contents unchecked. */
export function defineFreeObject(options?: SchemaOptions): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });
}

/**
 * A non-empty identifier: 1..{@link SCHEMA_LIMITS.ID_MAX_LENGTH} characters, counted as code points
 * (as JSON Schema counts `maxLength`). Like every string txmon accepts, it holds no lone surrogate
 * and no NUL (refused before any schema runs), so an id can always be read back through a URL path
 * and stored in any database.
 * {@link isIdText} applies the same rule to ids read from a path.
 */
export const IdSchema = Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.ID_MAX_LENGTH });

/** Whether `text` is a valid id under {@link IdSchema}'s rule. */
export function isIdText(text: string): boolean {
  if (text.length === 0 || text.includes('\u0000') || !(text as string & { isWellFormed(): boolean }).isWellFormed()) return false;
  if (text.length <= SCHEMA_LIMITS.ID_MAX_LENGTH) return true;
  // Longer in UTF-16 units: astral characters count once.
  let codePoints = 0;
  for (const _ of text) if (++codePoints > SCHEMA_LIMITS.ID_MAX_LENGTH) return false;
  return true;
}

/** Short text, possibly empty (≤ {@link SCHEMA_LIMITS.SHORT_TEXT_MAX_LENGTH} characters). */
export const ShortTextSchema = Type.String({ maxLength: SCHEMA_LIMITS.SHORT_TEXT_MAX_LENGTH });

/** Free text, possibly empty (≤ {@link SCHEMA_LIMITS.TEXT_MAX_LENGTH} characters). */
export const TextSchema = Type.String({ maxLength: SCHEMA_LIMITS.TEXT_MAX_LENGTH });

/**
 * Epoch milliseconds in the range of docs/wire-format.md#timestamps, inclusive; integers and
 * fractions both accepted; NaN and ±Infinity are rejected by the validator (ajv `strictNumbers`).
 */
export const TimestampSchema = Type.Number({
  minimum: SCHEMA_LIMITS.MIN_TIMESTAMP_MS,
  maximum: SCHEMA_LIMITS.MAX_TIMESTAMP_MS,
});

/** An accepted country code (see `COUNTRY_CODES`), checked by the `country-code` format. */
export const CountryCodeSchema = Type.String({ format: 'country-code' });

/** An accepted currency code (see `CURRENCY_CODES`), checked by the `currency-code` format. */
export const CurrencyCodeSchema = Type.String({ format: 'currency-code' });

/** A list of identifiers (≤ {@link SCHEMA_LIMITS.MAX_LIST_ITEMS}). */
export const IdListSchema = Type.Array(IdSchema, { maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS });

/** A list of short strings (≤ {@link SCHEMA_LIMITS.MAX_LIST_ITEMS}). */
export const ShortTextListSchema = Type.Array(ShortTextSchema, { maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS });

/** External links (URLs as text; ≤ {@link SCHEMA_LIMITS.MAX_LIST_ITEMS} items). */
export const ExternalLinksSchema = Type.Array(Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.URL_MAX_LENGTH }), {
  maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS,
});

/** A key/value tag. `isTimestamp` marks a value that holds an epoch-ms timestamp as text. */
export const TagSchema = defineOpenObject({
  key: Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.SHORT_TEXT_MAX_LENGTH }),
  value: TextSchema,
  isTimestamp: Type.Optional(Type.Boolean()),
});
/** A key/value tag. */
export type Tag = Static<typeof TagSchema>;

/** Tags of an entity (≤ {@link SCHEMA_LIMITS.MAX_LIST_ITEMS}). */
export const TagListSchema = Type.Array(TagSchema, { maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS });

/** Amount of a transaction side: non-negative, finite, ≤ {@link SCHEMA_LIMITS.MAX_AMOUNT}. */
export const TransactionAmountDetailsSchema = defineOpenObject({
  transactionAmount: Type.Number({ minimum: 0, maximum: SCHEMA_LIMITS.MAX_AMOUNT }),
  transactionCurrency: CurrencyCodeSchema,
  country: Type.Optional(CountryCodeSchema),
});
/** Amount, currency and country of one side of a transaction. */
export type TransactionAmountDetails = Static<typeof TransactionAmountDetailsSchema>;

/** A money amount such as a balance (may be negative, e.g. an overdraft). */
export const AmountSchema = defineOpenObject({
  amountValue: Type.Number({ minimum: -SCHEMA_LIMITS.MAX_AMOUNT, maximum: SCHEMA_LIMITS.MAX_AMOUNT }),
  amountCurrency: CurrencyCodeSchema,
});
/** A money amount such as a balance. */
export type Amount = Static<typeof AmountSchema>;

/** A person's name. */
export const ConsumerNameSchema = defineOpenObject({
  firstName: ShortTextSchema,
  middleName: Type.Optional(ShortTextSchema),
  lastName: Type.Optional(ShortTextSchema),
});
/** A person's name. */
export type ConsumerName = Static<typeof ConsumerNameSchema>;

/** A postal address; every part optional (partial addresses are common in payment data). */
export const AddressSchema = defineOpenObject({
  addressLines: Type.Optional(Type.Array(ShortTextSchema, { maxItems: 10 })),
  postcode: Type.Optional(ShortTextSchema),
  city: Type.Optional(ShortTextSchema),
  state: Type.Optional(ShortTextSchema),
  country: Type.Optional(ShortTextSchema),
  tags: Type.Optional(TagListSchema),
});
/** A postal address. */
export type Address = Static<typeof AddressSchema>;

/** Device data of one side of a transaction, or an event's `metaData`. */
export const DeviceDataSchema = defineOpenObject({
  batteryLevel: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  deviceLatitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  deviceLongitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  ipAddress: Type.Optional(Type.String({ maxLength: 64 })),
  ipCountry: Type.Optional(CountryCodeSchema),
  deviceIdentifier: Type.Optional(ShortTextSchema),
  vpnUsed: Type.Optional(Type.Boolean()),
  operatingSystem: Type.Optional(ShortTextSchema),
  deviceMaker: Type.Optional(ShortTextSchema),
  deviceModel: Type.Optional(ShortTextSchema),
  deviceYear: Type.Optional(ShortTextSchema),
  appVersion: Type.Optional(ShortTextSchema),
  tags: Type.Optional(TagListSchema),
});
/** Device data. */
export type DeviceData = Static<typeof DeviceDataSchema>;
