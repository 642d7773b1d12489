/**
 * Consumer and business users (docs/wire-format.md#users). Typed for the fields txmon reads; every
 * other field of the Flagright user model is accepted as an unknown property and kept.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ACQUISITION_CHANNELS, BUSINESS_USER_SEGMENTS, CONSUMER_USER_SEGMENTS, KYC_STATUSES, PAYMENT_METHODS, RISK_LEVELS, USER_STATES } from '../enums.js';
import {
  ConsumerNameSchema,
  CountryCodeSchema,
  IdSchema,
  SCHEMA_LIMITS,
  ShortTextListSchema,
  ShortTextSchema,
  TagListSchema,
  TextSchema,
  TimestampSchema,
  defineFreeObject,
  defineOpenObject,
  defineStringEnum,
} from './common.js';
import { PaymentDetailsSchema } from './payment-details.js';

/** A risk level (see `RISK_LEVELS`). */
export const RiskLevelSchema = defineStringEnum(RISK_LEVELS);

/** A user account state (see `USER_STATES`). */
export const UserStateSchema = defineStringEnum(USER_STATES);

/** A KYC status (see `KYC_STATUSES`). */
export const KycStatusSchema = defineStringEnum(KYC_STATUSES);

/** A user's account state and why. */
export const UserStateDetailsSchema = defineOpenObject({
  state: UserStateSchema,
  reason: Type.Optional(TextSchema),
});
/** A user's account state and why. */
export type UserStateDetails = Static<typeof UserStateDetailsSchema>;

/** A user's KYC status and why. */
export const KycStatusDetailsSchema = defineOpenObject({
  status: Type.Optional(KycStatusSchema),
  reason: Type.Optional(TextSchema),
});
/** A user's KYC status and why. */
export type KycStatusDetails = Static<typeof KycStatusDetailsSchema>;

/** Personal details of a consumer user. `dateOfBirth` is a calendar date `YYYY-MM-DD`. */
export const UserDetailsSchema = defineOpenObject({
  name: Type.Optional(ConsumerNameSchema),
  dateOfBirth: Type.Optional(Type.String({ format: 'calendar-date' })),
  countryOfResidence: Type.Optional(CountryCodeSchema),
  countryOfNationality: Type.Optional(CountryCodeSchema),
  countryOfTaxResidence: Type.Optional(CountryCodeSchema),
  secondaryCountryOfNationality: Type.Optional(Type.Array(CountryCodeSchema, { maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS })),
  gender: Type.Optional(Type.String({ maxLength: 64 })),
  userCategory: Type.Optional(ShortTextSchema),
  placeOfBirth: Type.Optional(defineFreeObject()),
  alias: Type.Optional(ShortTextListSchema),
});
/** Personal details of a consumer user. */
export type UserDetails = Static<typeof UserDetailsSchema>;

const SavedPaymentDetailsSchema = Type.Array(PaymentDetailsSchema, { maxItems: SCHEMA_LIMITS.MAX_PARTY_ITEMS });

/** Fields shared by consumer and business users. */
const commonUserProperties = {
  userId: IdSchema,
  createdTimestamp: TimestampSchema,
  userStateDetails: Type.Optional(UserStateDetailsSchema),
  kycStatusDetails: Type.Optional(KycStatusDetailsSchema),
  riskLevel: Type.Optional(RiskLevelSchema),
  kycRiskLevel: Type.Optional(RiskLevelSchema),
  acquisitionChannel: Type.Optional(defineStringEnum(ACQUISITION_CHANNELS)),
  savedPaymentDetails: Type.Optional(SavedPaymentDetailsSchema),
  transactionLimits: Type.Optional(defineFreeObject()),
  tags: Type.Optional(TagListSchema),
};

/**
 * A consumer user (body of `POST /consumer/users`). `riskLevel` is the manual CRA override;
 * `kycRiskLevel` the manual KYC risk level.
 */
export const ConsumerUserSchema = defineOpenObject({
  ...commonUserProperties,
  userDetails: Type.Optional(UserDetailsSchema),
  userSegment: Type.Optional(defineStringEnum(CONSUMER_USER_SEGMENTS)),
  pepStatus: Type.Optional(Type.Array(defineFreeObject(), { maxItems: SCHEMA_LIMITS.MAX_LIST_ITEMS })),
});
/** A consumer user. */
export type ConsumerUser = Static<typeof ConsumerUserSchema>;

/** General details of a business; `legalName` optional here (txmon does not need it). */
export const CompanyGeneralDetailsSchema = defineOpenObject({
  legalName: Type.Optional(Type.String({ maxLength: 512 })),
  businessIndustry: Type.Optional(ShortTextListSchema),
  mainProductsServicesSold: Type.Optional(ShortTextListSchema),
  userSegment: Type.Optional(defineStringEnum(BUSINESS_USER_SEGMENTS)),
  userRegistrationStatus: Type.Optional(ShortTextSchema),
  tags: Type.Optional(TagListSchema),
});
/** General details of a business. */
export type CompanyGeneralDetails = Static<typeof CompanyGeneralDetailsSchema>;

/** Registration details of a business. */
export const CompanyRegistrationDetailsSchema = defineOpenObject({
  registrationIdentifier: Type.Optional(ShortTextSchema),
  registrationCountry: Type.Optional(CountryCodeSchema),
  taxIdentifier: Type.Optional(ShortTextSchema),
  legalEntityType: Type.Optional(ShortTextSchema),
  dateOfRegistration: Type.Optional(ShortTextSchema),
  tags: Type.Optional(TagListSchema),
});
/** Registration details of a business. */
export type CompanyRegistrationDetails = Static<typeof CompanyRegistrationDetailsSchema>;

/** The legal entity behind a business user; `companyGeneralDetails` is required. */
export const LegalEntitySchema = defineOpenObject({
  companyGeneralDetails: CompanyGeneralDetailsSchema,
  companyFinancialDetails: Type.Optional(defineFreeObject()),
  companyRegistrationDetails: Type.Optional(CompanyRegistrationDetailsSchema),
  reasonForAccountOpening: Type.Optional(ShortTextListSchema),
  sourceOfFunds: Type.Optional(ShortTextListSchema),
  contactDetails: Type.Optional(defineFreeObject()),
});
/** The legal entity behind a business user. */
export type LegalEntity = Static<typeof LegalEntitySchema>;

/** A business user (body of `POST /business/users`). */
export const BusinessUserSchema = defineOpenObject({
  ...commonUserProperties,
  legalEntity: LegalEntitySchema,
  shareHolders: Type.Optional(Type.Array(defineFreeObject(), { maxItems: SCHEMA_LIMITS.MAX_PARTY_ITEMS })),
  directors: Type.Optional(Type.Array(defineFreeObject(), { maxItems: SCHEMA_LIMITS.MAX_PARTY_ITEMS })),
  allowedPaymentMethods: Type.Optional(Type.Array(defineStringEnum(PAYMENT_METHODS), { uniqueItems: true, maxItems: PAYMENT_METHODS.length })),
  mccDetails: Type.Optional(defineFreeObject()),
});
/** A business user. */
export type BusinessUser = Static<typeof BusinessUserSchema>;

/** A JSON Merge Patch of a user's fields (`updatedConsumerUserAttributes` / `updatedBusinessUserAttributes`). */
export const UserUpdatePatchSchema = Type.Record(Type.String(), Type.Unknown(), {
  title: 'User update (JSON Merge Patch)',
  description:
    'A JSON Merge Patch of the user: objects merge, arrays replace, null removes; userId and createdTimestamp cannot change. The merged user must be valid.',
});

const userEventProperties = {
  timestamp: TimestampSchema,
  userId: IdSchema,
  eventId: Type.Optional(IdSchema),
  reason: Type.Optional(TextSchema),
  eventDescription: Type.Optional(TextSchema),
};

/** A consumer user event (request body of `POST /events/consumer/user`). */
export const ConsumerUserEventSchema = defineOpenObject({
  ...userEventProperties,
  updatedConsumerUserAttributes: Type.Optional(UserUpdatePatchSchema),
});
/** A consumer user event. */
export type ConsumerUserEvent = Static<typeof ConsumerUserEventSchema>;

/** A business user event (request body of `POST /events/business/user`). */
export const BusinessUserEventSchema = defineOpenObject({
  ...userEventProperties,
  updatedBusinessUserAttributes: Type.Optional(UserUpdatePatchSchema),
});
/** A business user event. */
export type BusinessUserEvent = Static<typeof BusinessUserEventSchema>;
