/**
 * `txmon/internals` — UNSTABLE. The pure pipeline, the aggregate store, the filter and custom-logic
 * compilers and the other building blocks the engine is made of, for benchmarks, tools and tests.
 * Anything here may change or disappear in any release, minor or patch; build on the root entry
 * (`txmon`) instead. Re-exports the whole root entry, so one import gives both.
 */
export * from './index.js';

// The event fold (pure)
export {
  applyTransactionEvent,
  assertNoReservedFields,
  foldTransactionEvents,
  IMMUTABLE_TRANSACTION_FIELDS,
  initialTransaction,
  orderEvents,
  RESERVED_TRANSACTION_FIELDS,
} from './engine/pipeline/apply-event.js';
export type { ApplyEventOptions, SequencedEvent } from './engine/pipeline/apply-event.js';

// The evaluation pipeline (pure)
export {
  aggregateNeedKey,
  collectAggregateNeeds,
  createEvaluatorCache,
  evaluateRuleInstances,
  mergeCurrentContribution,
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
  EvaluatorCache,
  InstanceFilter,
  InstanceOutcome,
  InstancePlan,
  PreparedInstance,
  ResolvedSettings,
} from './engine/pipeline/index.js';
export { isTransitionAllowed } from './engine/pipeline/lifecycle.js';
export { computeTransactionRisk, riskFactorLevel, validateRiskConfiguration } from './engine/pipeline/risk.js';
export type { TransactionRisk } from './engine/pipeline/risk.js';
export { buildRuleInstance } from './engine/instances/build-rule-instance.js';
export { assembleEngine } from './engine/create-engine.js';

// Domain policy and helpers
export * from './domain/canonical-json.js';
export * from './domain/json.js';
export * from './domain/time.js';
export * from './domain/risk-score.js';
export * from './domain/case-policy.js';
export * from './domain/user-update.js';

// Rules: the registry, series contributions, filters, aggregation variables
export { createRuleRegistry } from './rules/registry.js';
export type { RuleRegistry } from './rules/registry.js';
export { contributionRefsOf, contributionsOf, createDerivedSeries } from './rules/series.js';
export type { DerivedSeries } from './rules/series.js';
export { compileHistoricalFilters, compileRuleFilters, evaluateRuleFilters, filterIdOf, validateRuleFilters } from './rules/filters/index.js';
export type { CompiledHistoricalFilters, FilterDecision } from './rules/filters/index.js';
export { compileAggregationVariables } from './rules/aggregation-variables.js';
export type { CompiledAggregationVariable } from './rules/aggregation-variables.js';

// Aggregation
export { computeAggregate, createAggregateStore } from './aggregation/aggregate-store.js';
export type { AggregateStore } from './aggregation/aggregate-store.js';
export { createWindowIndex } from './aggregation/window-index.js';

// Custom logic
export { compileLogic } from './logic/index.js';
export type { CompiledLogic, LogicData } from './logic/index.js';

// Validation
export { assertSafeJson, createValidator, measureJsonSize, validateAgainstSchema } from './validation/index.js';
