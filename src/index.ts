/**
 * txmon — an embeddable, in-process transaction-monitoring rules engine.
 *
 * @example
 * ```ts
 * import { createEngine } from 'txmon';
 * const engine = createEngine();
 * await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
 * const { status, hitRules } = await engine.createTransaction({
 *   type: 'TRANSFER', transactionId: 'tx-1', timestamp: Date.now(), originUserId: 'alice',
 *   originAmountDetails: { transactionAmount: 15000, transactionCurrency: 'EUR' },
 * });
 * ```
 * @packageDocumentation
 */

// Engine
export { createEngine } from './default-engine.js';
export type { EngineOptions } from './engine/options.js';
export { DEFAULT_LATE_ARRIVAL_MS } from './engine/options.js';
// Recommended rule sets (docs/detection.md)
export { amlBaseline, DEFAULT_REPORTING_THRESHOLDS, FATF_CALL_FOR_ACTION, presets } from './engine/presets/aml-baseline.js';
export type { AmlBaselineOptions } from './engine/presets/aml-baseline.js';
export type {
  BatchMode,
  BatchOptions,
  BatchPageOptions,
  BatchTransactionEventMonitoringResults,
  BatchTransactionMonitoringResults,
  BatchUserResult,
  BatchUserResults,
  CallOptions,
  ChangeOptions,
  EnsureRuleInstanceResult,
  BusinessUserEventInput,
  ConsumerUserEventInput,
  CreateTransactionOptions,
  CreateUserOptions,
  Clock,
  CommentInput,
  CommentView,
  Engine,
  AlertView,
  CaseView,
  WorkflowPage,
  AlertListInput,
  CaseListInput,
  StatusChangeInput,
  WorkflowUpdateInput,
  WorkflowOptions,
  IdGenerator,
  IdKind,
  LibraryRuleInstanceInput,
  ListInput,
  RuleInstanceInput,
  SeriesPruneResult,
  EvaluationStats,
  VerifyDecisionLogOptions,
  OutboxApi,
  OutboxSubscribeOptions,
  OutboxSubscription,
  SignedFileAccess,
  TransactionEventInput,
  TransactionEventMonitoringResult,
  TransactionEventWithRulesResult,
  TransactionInput,
  TransactionMonitoringResult,
  TransactionWithRulesResult,
  UploadContentOptions,
  UploadInput,
  UploadSlot,
  UserInput,
  UserEventMonitoringResult,
  UserEventOptions,
  UserEventWithRulesResult,
  UserMonitoringResult,
  UserRulesResult,
  UserView,
} from './engine/types.js';
export { DEFAULT_ENGINE_LIMITS } from './engine/limits.js';
export { MAX_BATCH_RECORDS, MAX_BATCH_PAGE_SIZE } from './engine/services/batches.js';
export type { EngineLimits } from './engine/limits.js';
export { ACTION_SEVERITY } from './engine/pipeline/settings.js';
export { DEFAULT_TRANSITIONS } from './engine/pipeline/lifecycle.js';
export type { TransitionTable } from './engine/pipeline/lifecycle.js';
export { RISK_PARAMETERS, RiskFactorSchema } from './engine/pipeline/risk.js';
export type { RiskFactor, RiskParameter } from './engine/pipeline/risk.js';
export { CUSTOM_RULE_ID } from './engine/instances/build-rule-instance.js';
export { LOGIC_OPERATORS } from './logic/index.js';

// Rule-authoring kit: declare a rule, read windowed aggregates and list lookups, answer hits
export { defineRule, defineUserRule } from './rules/define-rule.js';
export type { RuleSpec, UserRuleSpec } from './rules/define-rule.js';
export { LIBRARY_RULE_IDS, LIBRARY_RULES, LIBRARY_USER_RULES } from './rules/registry.js';
export type { LibraryRuleId, LibraryRuleParameters } from './rules/registry.js';
export { pairKey, paymentIdentifier, SERIES_NAMES } from './rules/series.js';
export type { DerivedSeriesName, SeriesName } from './rules/series.js';
export {
  AmountThresholdsSchema,
  amountThresholdsSchema,
  CheckReceiverSchema,
  CheckSenderSchema,
  reachesThreshold,
  resolveThreshold,
} from './rules/parameters.js';
export type {
  AggregateNeed,
  AnyRule,
  AnyRuleDefinition,
  AnyUserRuleDefinition,
  LookupNeed,
  MoneyContext,
  RuleCheckContext,
  RuleDefinition,
  RuleHit,
  RulePlanContext,
  RuleUser,
  RuleView,
  UserRuleCheckContext,
  UserRuleDefinition,
  UserRuleHit,
} from './rules/types.js';
export type { AggregateFunction, AggregateQuery, AggregateValue, SeriesEntry, SeriesEntryRef } from './aggregation/aggregate-store.js';
export { describeTimeWindow, windowStart } from './aggregation/time-window.js';

// Pure core: the event fold, a rule set evaluated against a transaction and its windows, and the
// documented result — no engine, no repository (README, "Pure functions")
export { applyTransactionEvent, foldTransactionEvents, initialTransaction } from './engine/pipeline/apply-event.js';
export type { ApplyEventOptions, SequencedEvent } from './engine/pipeline/apply-event.js';
export { createRuleSet } from './engine/instances/rule-set.js';
export type { RuleSet, RuleSetOptions } from './engine/instances/rule-set.js';
export { evaluateRuleInstances, mergeCurrentContribution, monitoringResultOf, planRuleInstances } from './engine/pipeline/index.js';
export type { AggregateSnapshot, EvaluationInput, EvaluationPlan, EvaluationResult, InstanceOutcome, PreparedInstance } from './engine/pipeline/index.js';
export { runRuleSet } from './engine/run-rule-set.js';
export type { RunRuleSetInput, RunRuleSetResult } from './engine/run-rule-set.js';
export { createAggregateStore } from './aggregation/aggregate-store.js';
export type { AggregateStore } from './aggregation/aggregate-store.js';

// Backtesting: a history replayed through a baseline and a candidate rule set
export { simulate } from './simulation/simulate.js';
export type {
  DayReport,
  Detection,
  DetectionScore,
  SchemeScore,
  DiffCount,
  InstanceReport,
  RejectedOperation,
  RuleSetReport,
  SimulationDiff,
  SimulationEngineOptions,
  SimulationLabel,
  SimulationList,
  SimulationOptions,
  SimulationProgress,
  SimulationReport,
} from './simulation/types.js';

// Domain: the wire format's enums, code tables, schemas and entities; exact money; risk bands
export {
  ACQUISITION_CHANNELS,
  BUSINESS_USER_SEGMENTS,
  CARD_BRANDS,
  CARD_FUNDINGS,
  CARD_STATUSES,
  CARD_TYPES,
  CASE_PRIORITIES,
  CASE_STATUSES,
  compareRuleActions,
  CONSUMER_USER_SEGMENTS,
  COUNTERPARTY_TYPES,
  KYC_STATUSES,
  MPESA_TRANSACTION_TYPES,
  PAYMENT_METHODS,
  RISK_LEVELS,
  RULE_ACTION_SEVERITY,
  RULE_ACTIONS,
  RULE_HIT_DIRECTIONS,
  RULE_INSTANCE_MODES,
  RULE_INSTANCE_STATUSES,
  RULE_LABELS,
  RULE_NATURES,
  RULE_TYPES,
  TRANSACTION_STATES,
  USER_DIRECTIONS,
  USER_STATES,
} from './domain/enums.js';
export type {
  AcquisitionChannel,
  BusinessUserSegment,
  CardBrand,
  CardFunding,
  CardStatus,
  CardType,
  CasePriority,
  CaseStatus,
  ConsumerUserSegment,
  CounterpartyType,
  KycStatus,
  MpesaTransactionType,
  PaymentMethod,
  RiskLevel,
  RuleAction,
  RuleHitDirection,
  RuleInstanceMode,
  RuleInstanceStatus,
  RuleLabel,
  RuleNature,
  RuleType,
  TransactionState,
  UserDirection,
  UserState,
} from './domain/enums.js';
export {
  COUNTRY_CODES,
  CRYPTO_CODES,
  CURRENCY_CODES,
  CURRENCY_EXPONENTS,
  currencyExponent,
  isCountryCode,
  isCurrencyCode,
} from './domain/codes.js';
export {
  AchDetailsSchema,
  AddressSchema,
  AgeSchema,
  AGGREGATION_FUNCTIONS,
  AGGREGATION_TRANSACTION_DIRECTIONS,
  AGGREGATION_USER_DIRECTIONS,
  AggregationVariableSchema,
  AmountBoundsSchema,
  AmountSchema,
  BusinessUserSchema,
  BusinessUserEventSchema,
  CardDetailsSchema,
  CardExpirySchema,
  CardMerchantDetailsSchema,
  CashDetailsSchema,
  CheckDetailsSchema,
  CommentFileSchema,
  CommentRequestSchema,
  CompanyGeneralDetailsSchema,
  CompanyRegistrationDetailsSchema,
  ConsumerNameSchema,
  ConsumerUserSchema,
  ConsumerUserEventSchema,
  CountryCodeSchema,
  CurrencyCodeSchema,
  DEFAULT_FISCAL_YEAR_START,
  defineClosedObject,
  defineFreeObject,
  defineOpenObject,
  defineStringEnum,
  DeviceDataSchema,
  ExecutedLogicVarsSchema,
  ExecutedRuleResultSchema,
  ExternalLinksSchema,
  FilenameSchema,
  FileSizeSchema,
  FILTER_LIMITS,
  GenericBankAccountDetailsSchema,
  getRuleFiltersSchemaJson,
  HISTORICAL_FILTER_KEYS,
  HitRuleDetailsSchema,
  IbanDetailsSchema,
  IdListSchema,
  IdSchema,
  isIdText,
  KycStatusDetailsSchema,
  KycStatusSchema,
  LegalEntitySchema,
  LIST_SUBTYPES,
  LIST_TYPES,
  ListRequestSchema,
  MAX_LIST_ITEMS,
  MAX_LOGIC_AGGREGATION_VARIABLES,
  MAX_TIME_WINDOW_UNITS,
  MpesaDetailsSchema,
  NppDetailsSchema,
  OriginFundsInfoSchema,
  PAYMENT_DETAILS_METHODS,
  PaymentDetailsSchema,
  PaymentFiltersSchema,
  PresignedUrlRequestSchema,
  RiskLevelRecordSchema,
  RiskLevelSchema,
  RiskScoreDetailsSchema,
  ResultAlertSchema,
  RULE_INSTANCE_READ_ONLY_FIELDS,
  RuleActionSchema,
  RuleFiltersSchema,
  RuleHitDirectionSchema,
  RuleHitMetaSchema,
  RuleEvidenceSchema,
  EvidenceWindowSchema,
  EVIDENCE_COMPARISONS,
  NOT_EVALUATED_REASONS,
  RuleNotEvaluatedSchema,
  ResultWarningSchema,
  MAX_EVIDENCE_TRANSACTION_IDS,
  RuleInstanceRequestSchema,
  RuleInstanceSchema,
  RuleInstanceVersionSchema,
  SCHEMA_LIMITS,
  ShortTextListSchema,
  ShortTextSchema,
  SwiftDetailsSchema,
  TagListSchema,
  TagSchema,
  TextSchema,
  TIME_WINDOW_GRANULARITIES,
  TimeOfDaySchema,
  TimestampSchema,
  TimeWindowSchema,
  TRANSACTION_FILTER_KEYS,
  TransactionAmountDetailsSchema,
  TransactionEventMonitoringResultSchema,
  TransactionEventSchema,
  TransactionMonitoringResultSchema,
  TransactionSchema,
  TransactionStateSchema,
  TransactionUpdatableSchema,
  TransactionUpdatePatchSchema,
  TriggersOnHitSchema,
  UpiDetailsSchema,
  USER_FILTER_KEYS,
  UserDetailsSchema,
  UserStateDetailsSchema,
  UserStateSchema,
  UserUpdatePatchSchema,
  WalletDetailsSchema,
} from './domain/schemas/index.js';
export type {
  AchDetails,
  Address,
  Age,
  AggregationVariable,
  Amount,
  AmountBounds,
  BusinessUser,
  CardDetails,
  CardExpiry,
  CardMerchantDetails,
  CashDetails,
  CheckDetails,
  CommentFile,
  CommentRequest,
  CompanyGeneralDetails,
  CompanyRegistrationDetails,
  ConsumerName,
  ConsumerUser,
  ConsumerUserEvent,
  DeviceData,
  ExecutedLogicVars,
  ExecutedRuleResult,
  GenericBankAccountDetails,
  HitRuleDetails,
  IbanDetails,
  KycStatusDetails,
  LegalEntity,
  ListRequest,
  ListSubtype,
  MpesaDetails,
  NppDetails,
  OriginFundsInfo,
  PaymentDetails,
  PaymentFilters,
  PresignedUrlRequest,
  RiskScoreDetails,
  ResultAlert,
  RuleFilters,
  RuleHitMeta,
  RuleEvidence,
  EvidenceWindow,
  NotEvaluatedReason,
  RuleNotEvaluated,
  ResultWarning,
  RuleInstanceReadOnlyField,
  RuleInstanceRequest,
  SwiftDetails,
  Tag,
  TagsFilter,
  TimeOfDay,
  TimeWindow,
  TimeWindowGranularity,
  Transaction,
  TransactionAmountDetails,
  TransactionEvent,
  BusinessUserEvent,
  TransactionUpdatable,
  TransactionUpdatePatch,
  TriggersOnHit,
  UpiDetails,
  UserDetails,
  UserStateDetails,
  WalletDetails,
} from './domain/schemas/index.js';
export type {
  Alert,
  Case,
  Comment,
  CommentFileLink,
  CommentTarget,
  ListSummary,
  MonitoringResult,
  RuleInstance,
  StoredList,
  StoredUser,
  UserType,
} from './domain/entities.js';
export { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES, AuditEntrySchema, AuditLogPageSchema, AuditLogQuerySchema, MAX_AUDIT_COUNT } from './domain/schemas/audit.js';
export type { AuditAction, AuditEntityType, AuditEntry, AuditLogPage, AuditLogQuery } from './domain/schemas/audit.js';
export {
  convertAtRate,
  convertScaled,
  createFixedRateProvider,
  DEFAULT_RATES_DATE,
  DEFAULT_USD_RATES,
  divideRounded,
  formatMoney,
  MONEY_SCALE,
  MONEY_SCALE_DIGITS,
  parseDecimal,
  RATE_DIGITS,
  roundToMinorUnit,
  scaledToDecimal,
  scaledToNumber,
  toScaled,
} from './domain/money.js';
export type { RateProvider, RateTable } from './domain/money.js';
export { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './domain/time.js';
export { DEFAULT_RISK_BANDS } from './domain/risk-score.js';
export type { RiskBands } from './domain/risk-score.js';
export type { AlertHit, CaseGrouping } from './domain/case-policy.js';
// The alert and case workflow (docs/alerts-and-cases.md)
export { DEFAULT_SLA_HOURS, MAX_PAGE_COUNT, STATUS_MOVES, isAllowedMove } from './domain/workflow.js';
export type { AlertWorkflowPatch, CaseWorkflowPatch, SlaHours } from './domain/workflow.js';
export {
  AlertListQuerySchema,
  CaseListQuerySchema,
  CLOSING_REASONS,
  StatusChangeRequestSchema,
  WorkflowUpdateRequestSchema,
} from './domain/schemas/workflow.js';
export type {
  AlertListQuery,
  Assignment,
  CaseListQuery,
  ClosingReason,
  StatusChange,
  StatusChangeRequest,
  WorkflowUpdateRequest,
} from './domain/schemas/workflow.js';
export type { UserUpdate } from './domain/user-update.js';

// Repositories: the port an adapter implements, and the memory adapter
export { createMemoryRepositories, DEFAULT_MAX_STORED_BYTES } from './repositories/memory/index.js';
export type { MemoryRepositoriesOptions } from './repositories/memory/index.js';
export type {
  AggregateRepository,
  BatchKind,
  BatchRepository,
  BatchResponse,
  BatchSession,
  CaseRepository,
  CommentRepository,
  DecisionLogRepository,
  OutboxAdvance,
  OutboxConsumer,
  OutboxDeadLetter,
  OutboxRepository,
  ExclusiveUnitOptions,
  FileRecord,
  FileRepository,
  ListProbe,
  ListRepository,
  Repositories,
  RepositoryFlags,
  RuleInstanceRepository,
  RuleInstanceVersion,
  AuditEntryQuery,
  AuditRepository,
  AuditWrites,
  StoredAuditEntry,
  StoredBatch,
  StoredEvent,
  StoredRuleInstance,
  StoredTransaction,
  StoredUserEvent,
  TransactionOutcome,
  TransactionRepository,
  UnitPrefetch,
  AlertPageQuery,
  CasePageQuery,
  PageKey,
  StorePage,
  WorkflowSortKey,
  WorkflowWrite,
  UserRepository,
  UserRuleResults,
  UserRuleWrites,
} from './engine/repositories.js';
// What a host adapter stores of an outcome whose alert hits landed: its result naming the alerts
export { outcomeNamingAlerts } from './engine/repositories.js';

// The decision log: what a host adapter appends (`TransactionOutcome.decision`) and a verification reports
export { appendDecisionLog, EMPTY_DECISION_LOG } from './domain/decision-log.js';
export { OUTBOX_MESSAGE_TYPES } from './domain/outbox.js';
export type { OutboxMessage, OutboxMessageType, StoredOutboxMessage } from './domain/outbox.js';
export type { DecisionLogHead, DecisionLogProblem, DecisionLogReport, DecisionLogRow } from './domain/decision-log.js';

// Errors: one table of codes, the error class and its constructors
export {
  ERROR_CODES,
  TXMON_DETAIL_CODES,
  TxmonError,
  configurationError,
  conflict,
  invalidField,
  invalidRequest,
  isTxmonError,
  limitExceeded,
  notFound,
} from './errors.js';
export type { DetailCode, ErrorCode, ErrorDetail, InvalidRequestCode, SchemaKeyword, TxmonDetailCode } from './errors.js';
