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
export type {
  Clock,
  CommentView,
  Engine,
  IdGenerator,
  IdKind,
  SignedFileAccess,
  TransactionEventMonitoringResult,
  TransactionEventWithRulesResult,
  TransactionMonitoringResult,
  TransactionWithRulesResult,
  UploadContentOptions,
  UploadSlot,
  SeriesPruneResult,
  UserMonitoringResult,
  UserView,
} from './engine/types.js';
export { DEFAULT_ENGINE_LIMITS } from './engine/limits.js';
export type { EngineLimits } from './engine/limits.js';

// Pure core
export {
  applyTransactionEvent,
  assertNoReservedFields,
  foldTransactionEvents,
  RESERVED_TRANSACTION_FIELDS,
  initialTransaction,
  orderEvents,
  IMMUTABLE_TRANSACTION_FIELDS,
} from './engine/pipeline/apply-event.js';
export type { ApplyEventOptions, SequencedEvent } from './engine/pipeline/apply-event.js';
export {
  ACTION_SEVERITY,
  aggregateNeedKey,
  collectAggregateNeeds,
  evaluateRuleInstances,
  mergeCurrentContribution,
  mostSevereAction,
  planRuleInstances,
  renderDescription,
  resolveSettings,
  selectRiskLevel,
} from './engine/pipeline/index.js';
export type {
  AggregateSnapshot,
  EvaluationInput,
  EvaluationPlan,
  EvaluationResult,
  InstancePlan,
  InstanceFilter,
  InstanceOutcome,
  PreparedInstance,
  ResolvedSettings,
} from './engine/pipeline/index.js';
export { DEFAULT_TRANSITIONS, isTransitionAllowed } from './engine/pipeline/lifecycle.js';
export { RISK_PARAMETERS, RiskFactorSchema, computeTransactionRisk, riskFactorLevel, validateRiskConfiguration } from './engine/pipeline/risk.js';
export { DEFAULT_RISK_BANDS, nextCraScore, riskLevelScore, scoreToRiskLevel } from './domain/risk-score.js';
export type { RiskFactor, RiskParameter, TransactionRisk } from './engine/pipeline/risk.js';
export type { RiskBands } from './domain/risk-score.js';
export type { TransitionTable } from './engine/pipeline/lifecycle.js';
export { buildRuleInstance, CUSTOM_RULE_ID } from './engine/instances/build-rule-instance.js';
export { cloneJson, deepFreeze } from './domain/json.js';

// Rules
export { createRuleRegistry, LIBRARY_RULES } from './rules/registry.js';
export type { RuleRegistry } from './rules/registry.js';
export { defineRule } from './rules/define-rule.js';
export type { RuleSpec } from './rules/define-rule.js';
export {
  contributionRefsOf,
  contributionsOf,
  createDerivedSeries,
  derivedContributionsOf,
  ENTRY_VALUE_FIELDS,
  pairKey,
  paymentIdentifier,
  SERIES_NAMES,
} from './rules/series.js';
export type { DerivedSeries, DerivedSeriesName, SeriesName } from './rules/series.js';
export { compileHistoricalFilters, compileRuleFilters, evaluateRuleFilters, filterIdOf, validateRuleFilters } from './rules/filters/index.js';
export type { CompiledHistoricalFilters, FilterDecision } from './rules/filters/index.js';
export { amountThresholdsSchema, AmountThresholdsSchema, CheckReceiverSchema, CheckSenderSchema, reachesThreshold, resolveThreshold } from './rules/parameters.js';
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

// Aggregation
export { createAggregateStore, computeAggregate } from './aggregation/aggregate-store.js';
export type {
  AggregateFunction,
  AggregateQuery,
  AggregateStore,
  AggregateValue,
  SeriesEntry,
  SeriesEntryRef,
} from './aggregation/aggregate-store.js';
export { createWindowIndex } from './aggregation/window-index.js';
export { describeTimeWindow, windowStart } from './aggregation/time-window.js';

// Custom logic
export { compileLogic, LOGIC_OPERATORS } from './logic/index.js';
export type { CompiledLogic, LogicData } from './logic/index.js';

// Domain, money and validation
export * from './domain/index.js';
export { assertSafeJson, createValidator, measureJsonSize, validateAgainstSchema } from './validation/index.js';

// Repositories
export { createMemoryRepositories, DEFAULT_MAX_STORED_BYTES } from './repositories/memory/index.js';
export type { MemoryRepositoriesOptions } from './repositories/memory/index.js';
export type * from './repositories/types.js';

// Errors
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
export { compileAggregationVariables } from './rules/aggregation-variables.js';
export type { CompiledAggregationVariable } from './rules/aggregation-variables.js';
