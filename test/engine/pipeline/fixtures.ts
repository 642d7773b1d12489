/** Prepared instances and evaluation inputs for the pure pipeline's tests (plan, evaluate, settings). */
import {
  CUSTOM_RULE_ID,
  buildRuleInstance,
  compileLogic,
  compileRuleFilters,
  createFixedRateProvider,
  createRuleRegistry,
  type AggregateSnapshot,
  type EvaluationInput,
  type InstanceFilter,
  type PreparedInstance,
  type RiskLevel,
  type RuleAction,
  type RuleFilters,
  type RuleInstance,
  type RuleUser,
  type Transaction,
} from '../../../src/internals.js';
import { T0 } from '../../helpers.js';

const registry = createRuleRegistry();
export const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
let nextId = 0;

/** A prepared instance built the way the engine builds it (validated request → stored instance → compiled parts). */
export function prepare(request: Record<string, unknown>): PreparedInstance {
  nextId += 1;
  const stored = buildRuleInstance(request, null, { registry, now: T0, id: `ri-${nextId}` });
  const instance = { ...stored.instance, runCount: 0, hitCount: 0 } as RuleInstance;
  const custom = instance.ruleId === CUSTOM_RULE_ID;
  const compiled = compileRuleFilters(instance.filters as RuleFilters);
  return {
    instance,
    rule: custom ? null : (registry.get(instance.ruleId) ?? null),
    logic: custom ? compileLogic(instance.logic, { basePath: '/logic', aggregationVariableKeys: [] }) : null,
    filter: compiled.active ? (compiled as unknown as InstanceFilter) : null,
  };
}

export function transaction(overrides: Record<string, unknown> = {}): Transaction {
  return {
    type: 'TRANSFER',
    transactionId: 'tx-1',
    timestamp: T0,
    originUserId: 'alice',
    destinationUserId: 'bob',
    transactionState: 'CREATED',
    originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'FR' },
    ...overrides,
  } as Transaction;
}

export function user(userId: string, riskLevel: RiskLevel | null): RuleUser {
  return { userId, type: 'CONSUMER', profile: { userId }, riskLevel, craScore: null };
}

export function input(instances: PreparedInstance[], overrides: Partial<EvaluationInput> = {}): EvaluationInput {
  return { transaction: transaction(), instances, originUser: null, destinationUser: null, money, defaultRiskLevel: 'VERY_HIGH', ...overrides };
}

export const EMPTY: AggregateSnapshot = new Map();

/** An R-14 instance that hits the sender (origin country DE) or misses (list without DE/FR). */
export function r14(hit: boolean, action: RuleAction, mode: 'LIVE' | 'SHADOW' = 'LIVE'): PreparedInstance {
  return prepare({ ruleId: 'R-14', parameters: { highRiskCountries: hit ? ['DE'] : ['IR'] }, action, mode });
}
