/**
 * The step from an evaluation to the documented response: the executed and hit rules, the status
 * and, when the risk model scored the transaction, its risk details — the `MonitoringResult` that
 * `POST /transactions` and `POST /events/transaction` answer with.
 */
import type { MonitoringResult } from '../../domain/entities.js';
import type { ResultWarning, RiskScoreDetails } from '../../domain/index.js';
import type { EvaluationResult } from './evaluate.js';

/**
 * The documented result of an evaluation (its rule results are the evaluation's frozen objects,
 * shared, not copied), with its `warnings` when there are any. Pure.
 *
 * @example
 * ```ts
 * const { executedRules, hitRules, status } = monitoringResultOf(evaluateRuleInstances(plan, values));
 * ```
 */
export function monitoringResultOf(evaluation: EvaluationResult, riskScoreDetails?: RiskScoreDetails): MonitoringResult {
  const result: MonitoringResult = { executedRules: evaluation.executedRules, hitRules: evaluation.hitRules, status: evaluation.status };
  if (riskScoreDetails !== undefined) result.riskScoreDetails = riskScoreDetails;
  if (evaluation.warnings.length > 0) result.warnings = evaluation.warnings as ResultWarning[];
  return result;
}
