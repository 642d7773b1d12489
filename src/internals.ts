/**
 * `txmon/internals` — UNSTABLE. The building blocks the engine is made of beyond the root's pure
 * core — the planner's helpers, the aggregate index, the filter and custom-logic compilers, domain
 * policy, the rule registry — for benchmarks, tools and tests. Anything here may change or
 * disappear in any release, minor or patch; build on the root entry (`txmon`) instead, whose pure
 * core (event fold, rule sets, plan, evaluation, result) is stable. Re-exports the whole root entry,
 * so one import gives both.
 */
export * from './index.js';

// The event fold's parts (the fold itself is on the root)
export { assertNoReservedFields, IMMUTABLE_TRANSACTION_FIELDS, orderEvents, RESERVED_TRANSACTION_FIELDS } from './engine/pipeline/apply-event.js';

// The evaluation pipeline's parts (plan, evaluate and the result are on the root)
export { aggregateNeedKey, collectAggregateNeeds, createEvaluatorCache, renderDescription, resolveSettings, selectRiskLevel } from './engine/pipeline/index.js';
export type { EvaluatorCache, InstanceFilter, InstancePlan, ResolvedSettings } from './engine/pipeline/index.js';
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
export { computeAggregate } from './aggregation/aggregate-store.js';
export { createWindowIndex } from './aggregation/window-index.js';

// Custom logic
export { compileLogic } from './logic/index.js';
export type { CompiledLogic, LogicData } from './logic/index.js';

// Validation
export { assertSafeJson, createValidator, measureJsonSize, validateAgainstSchema } from './validation/index.js';

// Detection: a rule set measured on a generated, labelled history (docs/detection.md)
export { DETECTION_ENGINE, DETECTION_SIZES, measureDetection, renderDetectionTable } from './simulation/detection.js';
export type { DetectionOptions, DetectionTable, TypologyDetection } from './simulation/detection.js';
