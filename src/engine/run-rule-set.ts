/**
 * One transaction through a rule set, synchronously, over windows held in an `AggregateStore`: the
 * pure pipeline the engine runs (plan, the windows' values with the transaction's own part,
 * evaluation, the documented result), with the windows updated after. No engine, no repository, no
 * I/O: what a host's stream processor or a backtest runs per transaction.
 */
import type { AggregateStore } from '../aggregation/aggregate-store.js';
import type { MonitoringResult } from '../domain/entities.js';
import { createFixedRateProvider } from '../domain/money.js';
import type { RiskLevel, Transaction } from '../domain/index.js';
import { contributionRefsOf, contributionsOf } from '../rules/series.js';
import type { AggregateNeed, LookupNeed, MoneyContext, RuleUser } from '../rules/types.js';
import type { RuleSet } from './instances/rule-set.js';
import { evaluateRuleInstances, mergeCurrentContribution, monitoringResultOf, planRuleInstances, type EvaluationResult } from './pipeline/index.js';

/** What {@link runRuleSet} evaluates. */
export interface RunRuleSetInput {
  readonly ruleSet: RuleSet;
  /** The transaction as it is now: created, or after an event (see `applyTransactionEvent`). */
  readonly transaction: Transaction;
  /** Its state before the event being evaluated: its window entries are replaced, never counted twice. Absent on creation. */
  readonly previous?: Transaction | null;
  /** The windows: read for the rules' aggregates, then given this transaction's entries. */
  readonly store: AggregateStore;
  /** Currency conversion and the base currency of windowed sums. Default: the fixed rate table, USD. */
  readonly money?: MoneyContext;
  readonly originUser?: RuleUser | null;
  readonly destinationUser?: RuleUser | null;
  /** Risk level of users without one. Default `VERY_HIGH`. */
  readonly defaultRiskLevel?: RiskLevel;
  /** Answers a rule's list lookup (blacklists, whitelists). Default: nothing is listed. */
  readonly lists?: (lookup: LookupNeed) => boolean;
}

/** What {@link runRuleSet} answers. */
export interface RunRuleSetResult {
  /** The documented result (`executedRules`, `hitRules`, `status`), as the engine answers it. */
  readonly result: MonitoringResult;
  /** Every instance's outcome (hit, directions, action, level, description) besides. */
  readonly evaluation: EvaluationResult;
}

const DEFAULT_MONEY: MoneyContext = Object.freeze({ rates: createFixedRateProvider(), baseCurrency: 'USD' });

/**
 * Evaluates `transaction` against `ruleSet` with the windows of `store`, then writes its entries
 * into `store` (replacing those of `previous`). Deterministic: the same store, rule set and
 * transaction give the same result.
 *
 * @example
 * ```ts
 * const ruleSet = createRuleSet([{ ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } }]);
 * const store = createAggregateStore();
 * runRuleSet({ ruleSet, store, transaction: first }).result.status;  // 'ALLOW'
 * runRuleSet({ ruleSet, store, transaction: second }).result.status; // 'FLAG': two within the hour
 * ```
 */
export function runRuleSet(input: RunRuleSetInput): RunRuleSetResult {
  const { ruleSet, transaction, store } = input;
  const money = input.money ?? DEFAULT_MONEY;
  const current = contributionsOf(transaction, ruleSet.series, money, ruleSet.derived, ruleSet.readsValues);
  const plan = planRuleInstances({
    transaction,
    instances: ruleSet.prepared,
    originUser: input.originUser ?? null,
    destinationUser: input.destinationUser ?? null,
    money,
    defaultRiskLevel: input.defaultRiskLevel ?? 'VERY_HIGH',
    cache: ruleSet.cache,
  });
  const needs = plan.needs;
  const values = needs.length > 0 ? store.queryMany(needs) : [];
  for (let i = 0; i < needs.length; i++) values[i] = mergeCurrentContribution(needs[i] as AggregateNeed, values[i] ?? null, current);
  const lists = input.lists;
  const answers = plan.lookups.length > 0 ? plan.lookups.map((lookup) => lists?.(lookup) === true) : undefined;
  const evaluation = evaluateRuleInstances(plan, values, answers);
  const previous = input.previous ?? null;
  store.apply(previous === null ? [] : contributionRefsOf(previous, ruleSet.series, ruleSet.derived), current);
  return { result: monitoringResultOf(evaluation), evaluation };
}
