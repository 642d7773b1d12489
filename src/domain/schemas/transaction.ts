/**
 * Transaction, its updatable part and the transaction event (docs/wire-format.md#transaction,
 * #updatable-fields and #transaction-event).
 */
import { Type, type Static } from '@sinclair/typebox';
import { TRANSACTION_STATES } from '../enums.js';
import {
  DeviceDataSchema,
  ExternalLinksSchema,
  IdListSchema,
  IdSchema,
  SCHEMA_LIMITS,
  ShortTextSchema,
  TagListSchema,
  TextSchema,
  TimestampSchema,
  TransactionAmountDetailsSchema,
  defineFreeObject,
  defineOpenObject,
  defineStringEnum,
} from './common.js';
import { PaymentDetailsSchema } from './payment-details.js';

/** A transaction state (see `TRANSACTION_STATES`). */
export const TransactionStateSchema = defineStringEnum(TRANSACTION_STATES);

/** Source of funds / wealth behind the origin side. */
export const OriginFundsInfoSchema = defineOpenObject({
  sourceOfFunds: Type.Optional(ShortTextSchema),
  sourceOfWealth: Type.Optional(ShortTextSchema),
});
/** Source of funds / wealth behind the origin side. */
export type OriginFundsInfo = Static<typeof OriginFundsInfoSchema>;

/** The fields an event may change (everything but identity and state). */
const updatableProperties = {
  originAmountDetails: Type.Optional(TransactionAmountDetailsSchema),
  destinationAmountDetails: Type.Optional(TransactionAmountDetailsSchema),
  originPaymentDetails: Type.Optional(PaymentDetailsSchema),
  destinationPaymentDetails: Type.Optional(PaymentDetailsSchema),
  originFundsInfo: Type.Optional(OriginFundsInfoSchema),
  corporateEntity: Type.Optional(defineFreeObject()),
  relatedTransactionIds: Type.Optional(IdListSchema),
  productType: Type.Optional(ShortTextSchema),
  promotionCodeUsed: Type.Optional(Type.Boolean()),
  reference: Type.Optional(TextSchema),
  originDeviceData: Type.Optional(DeviceDataSchema),
  destinationDeviceData: Type.Optional(DeviceDataSchema),
  metadata: Type.Optional(defineFreeObject()),
  tags: Type.Optional(TagListSchema),
  jurisdiction: Type.Optional(ShortTextSchema),
  externalLinks: Type.Optional(ExternalLinksSchema),
};

/**
 * A transaction (request body of `POST /transactions`). Required: `type`, `transactionId`,
 * `timestamp`. Unknown properties are kept, at the top level and in nested known objects.
 */
export const TransactionSchema = defineOpenObject({
  type: Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH }),
  transactionId: IdSchema,
  timestamp: TimestampSchema,
  originUserId: Type.Optional(IdSchema),
  destinationUserId: Type.Optional(IdSchema),
  transactionState: Type.Optional(TransactionStateSchema),
  ...updatableProperties,
});
/** A transaction. */
export type Transaction = Static<typeof TransactionSchema>;

/**
 * `updatedTransactionAttributes` of an event: the transaction minus `type`, `transactionId`,
 * `timestamp`, `originUserId`, `destinationUserId` and `transactionState`, all optional. Unknown
 * properties pass this schema; the engine rejects identity fields that try to change
 * (`IMMUTABLE_FIELD`).
 */
export const TransactionUpdatableSchema = defineOpenObject(updatableProperties);
/** The updatable part of a transaction. */
export type TransactionUpdatable = Static<typeof TransactionUpdatableSchema>;

/**
 * `updatedTransactionAttributes` of an event: a JSON Merge Patch (RFC 7396) of
 * {@link TransactionUpdatableSchema} — nested objects may be partial and `null` removes a field —
 * so it is only checked to be an object here. The merged transaction is validated against
 * `TransactionSchema` by `applyTransactionEvent`, with paths under `/updatedTransactionAttributes`.
 */
export const TransactionUpdatePatchSchema = Type.Record(Type.String(), Type.Unknown(), {
  title: 'Transaction update (JSON Merge Patch)',
  description:
    'A JSON Merge Patch of the updatable transaction fields (TransactionUpdatable): objects merge, arrays replace, null removes. The merged transaction must be valid.',
});
/** A merge patch of the updatable transaction fields. */
export type TransactionUpdatePatch = Static<typeof TransactionUpdatePatchSchema>;

/** A transaction event (request body of `POST /events/transaction`). */
export const TransactionEventSchema = defineOpenObject({
  transactionState: TransactionStateSchema,
  timestamp: TimestampSchema,
  transactionId: IdSchema,
  eventId: Type.Optional(IdSchema),
  reason: Type.Optional(TextSchema),
  eventDescription: Type.Optional(TextSchema),
  updatedTransactionAttributes: Type.Optional(TransactionUpdatePatchSchema),
  metaData: Type.Optional(DeviceDataSchema),
  externalLinks: Type.Optional(ExternalLinksSchema),
});
/** A transaction event. */
export type TransactionEvent = Static<typeof TransactionEventSchema>;
