/**
 * Every closed vocabulary of the domain, as `as const` arrays (the JSON Schemas use them as
 * `enum`s) with a union type per array. Values and spelling follow docs/wire-format.md#enums.
 */

/**
 * Lifecycle states of a transaction (docs/wire-format.md#enums; the moves between them:
 * docs/wire-format.md#lifecycle). `CREATED` is the state after `POST /transactions`.
 */
export const TRANSACTION_STATES = ['CREATED', 'PROCESSING', 'SENT', 'EXPIRED', 'DECLINED', 'SUSPENDED', 'REFUNDED', 'SUCCESSFUL', 'REVERSED'] as const;
/** One of {@link TRANSACTION_STATES}. */
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/** Rule actions, least severe first (so the index order is the severity order). */
export const RULE_ACTIONS = ['ALLOW', 'FLAG', 'SUSPEND', 'BLOCK'] as const;
/** One of {@link RULE_ACTIONS}. */
export type RuleAction = (typeof RULE_ACTIONS)[number];

/**
 * Severity of each action: BLOCK > SUSPEND > FLAG > ALLOW (docs/wire-format.md#status). The overall
 * `status` of a monitoring result is the action with the highest severity among live hits.
 */
export const RULE_ACTION_SEVERITY: Readonly<Record<RuleAction, number>> = Object.freeze({
  ALLOW: 0,
  FLAG: 1,
  SUSPEND: 2,
  BLOCK: 3,
});

/** Risk levels in ascending order of risk. */
export const RISK_LEVELS = ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const;
/** One of {@link RISK_LEVELS}. */
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Nature of a rule (what kind of risk it looks for). */
export const RULE_NATURES = ['AML', 'FRAUD', 'CTF', 'SCREENING'] as const;
/** One of {@link RULE_NATURES}. */
export type RuleNature = (typeof RULE_NATURES)[number];

/** Labels a rule or instance can carry. */
export const RULE_LABELS = [
  'UNEXPECTED_BEHAVIOR',
  'ILLICIT_GAINS_CHECK',
  'RFI_TRIGGER',
  'EDD_TRIGGER',
  'KYC_TRIGGER',
  'SCAM',
  'ABUSE',
  'ACCOUNT_TAKEOVER',
  'DISPUTE',
  'SANCTIONS',
  'SANCTIONS_PEP',
  'SANCTIONS_PEP_ADVERSE_MEDIA',
  'SANCTIONS_MANUAL_REVIEW',
] as const;
/** One of {@link RULE_LABELS}. */
export type RuleLabel = (typeof RULE_LABELS)[number];

/** What a rule (template) or instance runs on. */
export const RULE_TYPES = ['TRANSACTION', 'USER', 'USER_ONGOING_SCREENING'] as const;
/** One of {@link RULE_TYPES}. */
export type RuleType = (typeof RULE_TYPES)[number];

/** `status` of a rule instance: only ACTIVE instances run. */
export const RULE_INSTANCE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
/** One of {@link RULE_INSTANCE_STATUSES}. */
export type RuleInstanceStatus = (typeof RULE_INSTANCE_STATUSES)[number];

/** `mode` of a rule instance: SHADOW instances run but never affect status, alerts or users. */
export const RULE_INSTANCE_MODES = ['LIVE', 'SHADOW'] as const;
/** One of {@link RULE_INSTANCE_MODES}. */
export type RuleInstanceMode = (typeof RULE_INSTANCE_MODES)[number];

/** Case and alert priorities, most urgent first. */
export const CASE_PRIORITIES = ['P1', 'P2', 'P3', 'P4'] as const;
/** One of {@link CASE_PRIORITIES}. */
export type CasePriority = (typeof CASE_PRIORITIES)[number];

/** Case and alert statuses. */
export const CASE_STATUSES = ['OPEN', 'CLOSED', 'REOPENED', 'IN_REVIEW', 'ESCALATED', 'IN_PROGRESS', 'ON_HOLD'] as const;
/** One of {@link CASE_STATUSES}. */
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** `triggersOnHit.usersToCheck`: which side(s) of a hit transaction a trigger updates. */
export const USER_DIRECTIONS = ['ALL', 'ORIGIN', 'DESTINATION'] as const;
/** One of {@link USER_DIRECTIONS}. */
export type UserDirection = (typeof USER_DIRECTIONS)[number];

/** Side of a transaction a rule hit is attributed to. */
export const RULE_HIT_DIRECTIONS = ['ORIGIN', 'DESTINATION'] as const;
/** One of {@link RULE_HIT_DIRECTIONS}. */
export type RuleHitDirection = (typeof RULE_HIT_DIRECTIONS)[number];

/** Payment methods: the `method` discriminator of payment details. */
export const PAYMENT_METHODS = ['ACH', 'CARD', 'IBAN', 'UPI', 'GENERIC_BANK_ACCOUNT', 'MPESA', 'SWIFT', 'WALLET', 'CHECK', 'CASH', 'NPP'] as const;
/** One of {@link PAYMENT_METHODS}. */
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** KYC statuses of a user. */
export const KYC_STATUSES = ['SUCCESSFUL', 'FAILED', 'NOT_STARTED', 'IN_PROGRESS', 'EXPIRED', 'NEW', 'CANCELLED', 'MANUAL_REVIEW', 'EDD_IN_PROGRESS'] as const;
/** One of {@link KYC_STATUSES}. */
export type KycStatus = (typeof KYC_STATUSES)[number];

/** Account states of a user. */
export const USER_STATES = ['UNACCEPTABLE', 'TERMINATED', 'ACTIVE', 'DORMANT', 'CREATED', 'SUSPENDED', 'BLOCKED'] as const;
/** One of {@link USER_STATES}. */
export type UserState = (typeof USER_STATES)[number];

/** Card schemes. */
export const CARD_BRANDS = ['VISA', 'MASTERCARD', 'AMERICAN_EXPRESS', 'DISCOVER', 'UNIONPAY', 'RUPAY', 'JCB', 'DINERS_CLUB'] as const;
/** One of {@link CARD_BRANDS}. */
export type CardBrand = (typeof CARD_BRANDS)[number];

/** How a card is funded. */
export const CARD_FUNDINGS = ['CREDIT', 'DEBIT', 'PREPAID'] as const;
/** One of {@link CARD_FUNDINGS}. */
export type CardFunding = (typeof CARD_FUNDINGS)[number];

/** Card form factor. */
export const CARD_TYPES = ['VIRTUAL', 'PHYSICAL'] as const;
/** One of {@link CARD_TYPES}. */
export type CardType = (typeof CARD_TYPES)[number];

/** Card statuses. */
export const CARD_STATUSES = ['ACTIVE', 'FROZEN', 'BLOCKED', 'SUSPECTED_FRAUD', 'STOLEN', 'LOST', 'CLOSED', 'OTHER'] as const;
/** One of {@link CARD_STATUSES}. */
export type CardStatus = (typeof CARD_STATUSES)[number];

/** M-Pesa transaction types (wire spelling, PascalCase). */
export const MPESA_TRANSACTION_TYPES = ['CustomerPayBillOnline', 'CustomerBuyGoodsOnline', 'SalaryPayment', 'BusinessPayment', 'PromotionPayment'] as const;
/** One of {@link MPESA_TRANSACTION_TYPES}. */
export type MpesaTransactionType = (typeof MPESA_TRANSACTION_TYPES)[number];

/** How a user was acquired. */
export const ACQUISITION_CHANNELS = ['ORGANIC', 'PAID', 'REFERRAL', 'OFFLINE', 'GATHERING', 'UNKNOWN'] as const;
/** One of {@link ACQUISITION_CHANNELS}. */
export type AcquisitionChannel = (typeof ACQUISITION_CHANNELS)[number];

/** Segments of consumer users. */
export const CONSUMER_USER_SEGMENTS = ['RETAIL', 'PROFESSIONAL'] as const;
/** One of {@link CONSUMER_USER_SEGMENTS}. */
export type ConsumerUserSegment = (typeof CONSUMER_USER_SEGMENTS)[number];

/** Segments of business users. */
export const BUSINESS_USER_SEGMENTS = ['SOLE_PROPRIETORSHIP', 'LIMITED', 'SMB', 'SMALL', 'MEDIUM', 'LARGE', 'UNKNOWN'] as const;
/** One of {@link BUSINESS_USER_SEGMENTS}. */
export type BusinessUserSegment = (typeof BUSINESS_USER_SEGMENTS)[number];

/** Kind of counterparty behind payment details. */
export const COUNTERPARTY_TYPES = ['INDIVIDUAL', 'LEGAL_ENTITY'] as const;
/** One of {@link COUNTERPARTY_TYPES}. */
export type CounterpartyType = (typeof COUNTERPARTY_TYPES)[number];

/**
 * Compares two actions by severity.
 * @returns a negative number when `a` is less severe than `b`, 0 when equal, positive otherwise.
 */
export function compareRuleActions(a: RuleAction, b: RuleAction): number {
  return RULE_ACTION_SEVERITY[a] - RULE_ACTION_SEVERITY[b];
}
