/**
 * The pure pipeline of one evaluation: plan (risk level, filters, settings, needs), the current
 * transaction's contribution, evaluate (checks and results), describe (templates), and what is
 * kept between evaluations (the evaluator cache).
 */
export { ACTION_SEVERITY, resolveSettings, selectRiskLevel, type ResolvedSettings } from './settings.js';
export {
  aggregateNeedKey,
  collectAggregateNeeds,
  planRuleInstances,
  type AggregateSnapshot,
  type EvaluationInput,
  type EvaluationPlan,
  type InstanceFilter,
  type InstancePlan,
  type PreparedInstance,
} from './plan.js';
export { mergeCurrentContribution } from './current-contribution.js';
export { evaluateRuleInstances, type CounterIncrement, type EvaluationResult, type InstanceOutcome } from './evaluate.js';
export { renderDescription } from './describe.js';
export { monitoringResultOf } from './result.js';
export { ruleUserOf } from './rule-user.js';
export { createEvaluatorCache, type EvaluatorCache } from './evaluator-cache.js';
export { evaluateUserRuleInstances, type PreparedUserInstance, type UserEvaluationInput } from './evaluate-user.js';
