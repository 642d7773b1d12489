/**
 * Payment details, one schema per `method`, and their discriminated union.
 *
 * Property names are the JSON wire names (`IBAN`, `BIC`, `upiID`, `3dsDone`, `MCC`), not the SDK's
 * TypeScript names. Every variant keeps unknown properties. Only the fields
 * docs/wire-format.md#payment-details marks as required are required (UPI `upiID`; MPESA
 * `businessShortCode`, `transactionType`, `phoneNumber`).
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { CARD_BRANDS, CARD_FUNDINGS, CARD_STATUSES, CARD_TYPES, COUNTERPARTY_TYPES, MPESA_TRANSACTION_TYPES, type PAYMENT_METHODS } from '../enums.js';
import {
  AddressSchema,
  AmountSchema,
  ConsumerNameSchema,
  CountryCodeSchema,
  IdSchema,
  SCHEMA_LIMITS,
  ShortTextSchema,
  TagListSchema,
  TextSchema,
  TimestampSchema,
  defineFreeObject,
  defineOpenObject,
  defineStringEnum,
} from './common.js';

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** Fields every payment-details variant may carry. */
const commonPaymentProperties = {
  counterpartyType: optional(defineStringEnum(COUNTERPARTY_TYPES)),
  tags: optional(TagListSchema),
};

/** Card expiry month/year. */
export const CardExpirySchema = defineOpenObject({
  month: optional(Type.Integer({ minimum: 1, maximum: 12 })),
  year: optional(Type.Integer({ minimum: 1900, maximum: 9999 })),
});
/** Card expiry month/year. */
export type CardExpiry = Static<typeof CardExpirySchema>;

/** Merchant of a card payment; `MCC` is the merchant category code (wire name). */
export const CardMerchantDetailsSchema = defineOpenObject({
  id: optional(ShortTextSchema),
  category: optional(ShortTextSchema),
  MCC: optional(Type.String({ maxLength: 16 })),
  city: optional(ShortTextSchema),
  country: optional(ShortTextSchema),
  state: optional(ShortTextSchema),
  postCode: optional(ShortTextSchema),
});
/** Merchant of a card payment. */
export type CardMerchantDetails = Static<typeof CardMerchantDetailsSchema>;

/** Card payment details. `cardLast4Digits` / `cardFirst6Digits` must be exactly 4 / 6 digits. */
export const CardDetailsSchema = defineOpenObject({
  method: Type.Literal('CARD'),
  ...commonPaymentProperties,
  cardFingerprint: optional(ShortTextSchema),
  cardIssuedCountry: optional(CountryCodeSchema),
  cardLast4Digits: optional(Type.String({ pattern: '^[0-9]{4}$', 'x-pattern-message': 'must be exactly 4 digits' })),
  cardFirst6Digits: optional(Type.String({ pattern: '^[0-9]{6}$', 'x-pattern-message': 'must be exactly 6 digits' })),
  cardBrand: optional(defineStringEnum(CARD_BRANDS)),
  cardFunding: optional(defineStringEnum(CARD_FUNDINGS)),
  cardType: optional(defineStringEnum(CARD_TYPES)),
  cardStatus: optional(defineStringEnum(CARD_STATUSES)),
  nameOnCard: optional(ConsumerNameSchema),
  cardExpiry: optional(CardExpirySchema),
  '3dsDone': optional(Type.Boolean()),
  cardPresent: optional(Type.Boolean()),
  cardAuthenticated: optional(Type.Boolean()),
  cardTokenized: optional(Type.Boolean()),
  paymentChannel: optional(ShortTextSchema),
  merchantDetails: optional(CardMerchantDetailsSchema),
  posDetails: optional(defineFreeObject()),
  transactionReferenceField: optional(TextSchema),
  cardBalance: optional(AmountSchema),
  networkProviderRiskScore: optional(Type.Number()),
  address: optional(AddressSchema),
  bankAddress: optional(AddressSchema),
  countryOfNationality: optional(CountryCodeSchema),
  countryOfResidence: optional(CountryCodeSchema),
});
/** Card payment details. */
export type CardDetails = Static<typeof CardDetailsSchema>;

/** IBAN payment details (`IBAN`, `BIC` are wire names). */
export const IbanDetailsSchema = defineOpenObject({
  method: Type.Literal('IBAN'),
  ...commonPaymentProperties,
  IBAN: optional(Type.String({ maxLength: 64 })),
  BIC: optional(Type.String({ maxLength: 64 })),
  bankName: optional(ShortTextSchema),
  country: optional(CountryCodeSchema),
  name: optional(ShortTextSchema),
  beneficiaryName: optional(ShortTextSchema),
  bankBranchCode: optional(ShortTextSchema),
  paymentChannel: optional(ShortTextSchema),
  accountBalance: optional(AmountSchema),
  bankAddress: optional(AddressSchema),
});
/** IBAN payment details. */
export type IbanDetails = Static<typeof IbanDetailsSchema>;

/** ACH payment details. */
export const AchDetailsSchema = defineOpenObject({
  method: Type.Literal('ACH'),
  ...commonPaymentProperties,
  routingNumber: optional(ShortTextSchema),
  accountNumber: optional(ShortTextSchema),
  bankName: optional(ShortTextSchema),
  name: optional(ShortTextSchema),
  beneficiaryName: optional(ShortTextSchema),
  accountBalance: optional(AmountSchema),
  bankAddress: optional(AddressSchema),
});
/** ACH payment details. */
export type AchDetails = Static<typeof AchDetailsSchema>;

/** SWIFT payment details. */
export const SwiftDetailsSchema = defineOpenObject({
  method: Type.Literal('SWIFT'),
  ...commonPaymentProperties,
  swiftCode: optional(ShortTextSchema),
  accountNumber: optional(ShortTextSchema),
  routingNumber: optional(ShortTextSchema),
  accountType: optional(ShortTextSchema),
  bankName: optional(ShortTextSchema),
  name: optional(ShortTextSchema),
  beneficiaryName: optional(ShortTextSchema),
  accountBalance: optional(AmountSchema),
  bankAddress: optional(AddressSchema),
  correspondentBankDetails: optional(Type.Array(defineFreeObject(), { maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS })),
});
/** SWIFT payment details. */
export type SwiftDetails = Static<typeof SwiftDetailsSchema>;

/** Any other bank account. */
export const GenericBankAccountDetailsSchema = defineOpenObject({
  method: Type.Literal('GENERIC_BANK_ACCOUNT'),
  ...commonPaymentProperties,
  accountNumber: optional(ShortTextSchema),
  accountType: optional(ShortTextSchema),
  bankName: optional(ShortTextSchema),
  bankCode: optional(ShortTextSchema),
  country: optional(CountryCodeSchema),
  name: optional(ShortTextSchema),
  routingNumber: optional(ShortTextSchema),
  transitNumber: optional(ShortTextSchema),
  paymentChannel: optional(ShortTextSchema),
  accountBalance: optional(AmountSchema),
  bankAddress: optional(AddressSchema),
});
/** Any other bank account. */
export type GenericBankAccountDetails = Static<typeof GenericBankAccountDetailsSchema>;

/** Wallet payment details (e-money or crypto wallet). */
export const WalletDetailsSchema = defineOpenObject({
  method: Type.Literal('WALLET'),
  ...commonPaymentProperties,
  walletType: optional(ShortTextSchema),
  walletId: optional(ShortTextSchema),
  name: optional(ShortTextSchema),
  walletPhoneNumber: optional(Type.String({ maxLength: 64 })),
  network: optional(ShortTextSchema),
  paymentChannel: optional(ShortTextSchema),
  transactionHash: optional(ShortTextSchema),
  walletBalance: optional(AmountSchema),
});
/** Wallet payment details. */
export type WalletDetails = Static<typeof WalletDetailsSchema>;

/** UPI payment details; `upiID` (wire name) is required. */
export const UpiDetailsSchema = defineOpenObject({
  method: Type.Literal('UPI'),
  ...commonPaymentProperties,
  upiID: IdSchema,
  bankProvider: optional(ShortTextSchema),
  interfaceProvider: optional(ShortTextSchema),
  name: optional(ShortTextSchema),
});
/** UPI payment details. */
export type UpiDetails = Static<typeof UpiDetailsSchema>;

/** M-Pesa payment details; short code, transaction type and phone number are required. */
export const MpesaDetailsSchema = defineOpenObject({
  method: Type.Literal('MPESA'),
  ...commonPaymentProperties,
  businessShortCode: IdSchema,
  transactionType: defineStringEnum(MPESA_TRANSACTION_TYPES),
  phoneNumber: Type.String({ minLength: 1, maxLength: 64 }),
  name: optional(ShortTextSchema),
});
/** M-Pesa payment details. */
export type MpesaDetails = Static<typeof MpesaDetailsSchema>;

/** Check (cheque) payment details. */
export const CheckDetailsSchema = defineOpenObject({
  method: Type.Literal('CHECK'),
  ...commonPaymentProperties,
  checkNumber: optional(ShortTextSchema),
  checkIdentifier: optional(ShortTextSchema),
  routingNumber: optional(ShortTextSchema),
  accountNumber: optional(ShortTextSchema),
  name: optional(ShortTextSchema),
  deliveryStatus: optional(ShortTextSchema),
  etaTimestamp: optional(TimestampSchema),
  shippingAddress: optional(AddressSchema),
});
/** Check payment details. */
export type CheckDetails = Static<typeof CheckDetailsSchema>;

/** Cash payment details. */
export const CashDetailsSchema = defineOpenObject({
  method: Type.Literal('CASH'),
  ...commonPaymentProperties,
  identifier: optional(ShortTextSchema),
  name: optional(ShortTextSchema),
});
/** Cash payment details. */
export type CashDetails = Static<typeof CashDetailsSchema>;

/** NPP (Australian New Payments Platform) details; `name` is a person's name object. */
export const NppDetailsSchema = defineOpenObject({
  method: Type.Literal('NPP'),
  ...commonPaymentProperties,
  accountNumber: optional(ShortTextSchema),
  bsb: optional(ShortTextSchema),
  payId: optional(ShortTextSchema),
  name: optional(ConsumerNameSchema),
  endToEndId: optional(ShortTextSchema),
  isInstant: optional(Type.Boolean()),
  bankName: optional(ShortTextSchema),
});
/** NPP payment details. */
export type NppDetails = Static<typeof NppDetailsSchema>;

const paymentDetailsVariants = [
  CardDetailsSchema,
  IbanDetailsSchema,
  AchDetailsSchema,
  SwiftDetailsSchema,
  GenericBankAccountDetailsSchema,
  WalletDetailsSchema,
  UpiDetailsSchema,
  MpesaDetailsSchema,
  CheckDetailsSchema,
  CashDetailsSchema,
  NppDetailsSchema,
] as const;

const PaymentDetailsUnion = Type.Union([...paymentDetailsVariants]);

/** Payment details of one side of a transaction: one of the eleven variants, chosen by `method`. */
export type PaymentDetails = Static<typeof PaymentDetailsUnion>;

/**
 * The payment-details union as `oneOf` + OpenAPI `discriminator` on `method`. With ajv's
 * `discriminator` option only the branch named by `method` is validated, so a bad field gives
 * errors of that branch only, and an unknown or missing `method` gives exactly one error.
 */
export const PaymentDetailsSchema: TUnsafe<PaymentDetails> = Type.Unsafe<PaymentDetails>({
  type: 'object',
  discriminator: { propertyName: 'method' },
  oneOf: [...paymentDetailsVariants],
});

/** The `method` values of {@link PaymentDetailsSchema}, in schema order (equal to `PAYMENT_METHODS` as a set). */
export const PAYMENT_DETAILS_METHODS: readonly string[] = paymentDetailsVariants.map((variant) => variant.properties.method.const);

// Keeps the variant list and the enum in step at compile time.
type MissingVariant = Exclude<(typeof PAYMENT_METHODS)[number], PaymentDetails['method']>;
const exhaustive: [MissingVariant] extends [never] ? true : false = true;
void exhaustive;
