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
export type {
  Clock,
  CommentInput,
  CommentView,
  Engine,
  IdGenerator,
  IdKind,
  LibraryRuleInstanceInput,
  ListInput,
  RuleInstanceInput,
  SeriesPruneResult,
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
  UserMonitoringResult,
  UserView,
} from './engine/types.js';
export { DEFAULT_ENGINE_LIMITS } from './engine/limits.js';
export type { EngineLimits } from './engine/limits.js';
export { ACTION_SEVERITY } from './engine/pipeline/settings.js';
export { DEFAULT_TRANSITIONS } from './engine/pipeline/lifecycle.js';
export type { TransitionTable } from './engine/pipeline/lifecycle.js';
export { RISK_PARAMETERS, RiskFactorSchema } from './engine/pipeline/risk.js';
export type { RiskFactor, RiskParameter } from './engine/pipeline/risk.js';
export { CUSTOM_RULE_ID } from './engine/instances/build-rule-instance.js';
export { LOGIC_OPERATORS } from './logic/index.js';

// Rule-authoring kit: declare a rule, read windowed aggregates and list lookups, answer hits
export { defineRule } from './rules/define-rule.js';
export type { RuleSpec } from './rules/define-rule.js';
export { LIBRARY_RULE_IDS, LIBRARY_RULES } from './rules/registry.js';
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
  AnyRuleDefinition,
  LookupNeed,
  MoneyContext,
  RuleCheckContext,
  RuleDefinition,
  RuleHit,
  RulePlanContext,
  RuleUser,
  RuleView,
} from './rules/types.js';
export type { AggregateFunction, AggregateQuery, AggregateValue, SeriesEntry, SeriesEntryRef } from './aggregation/aggregate-store.js';
export { describeTimeWindow, windowStart } from './aggregation/time-window.js';

// Domain: the wire format's enums, code tables, schemas and entities; exact money; risk bands
export * from './domain/enums.js';
export * from './domain/codes.js';
export * from './domain/schemas/index.js';
export * from './domain/entities.js';
export * from './domain/money.js';
export { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './domain/time.js';
export { DEFAULT_RISK_BANDS } from './domain/risk-score.js';
export type { RiskBands } from './domain/risk-score.js';

// Repositories: the port an adapter implements, and the memory adapter
export { createMemoryRepositories, DEFAULT_MAX_STORED_BYTES } from './repositories/memory/index.js';
export type { MemoryRepositoriesOptions } from './repositories/memory/index.js';
export type * from './engine/repositories.js';

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
