/**
 * `txmon/testing`: tools for testing txmon and what a host builds on it — fast-check arbitraries
 * for valid domain objects, the repository conformance suite every adapter must pass, and a
 * model-based check of a repository implementation. Needs the `fast-check` peer dependency; no
 * test runner is imported (pass your runner's `describe`/`it`).
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * import { createMemoryRepositories } from 'txmon';
 * import { checkRepositoriesAgainstModel, describeRepositoryConformance } from 'txmon/testing';
 *
 * describeRepositoryConformance('memory', () => createMemoryRepositories(), { describe, it });
 * it('behaves like the model', () => checkRepositoriesAgainstModel(() => createMemoryRepositories()));
 * ```
 * @packageDocumentation
 */

// Arbitraries
export {
  amountArbitrary,
  businessUserArbitrary,
  consumerUserArbitrary,
  eventSequenceArbitrary,
  paymentDetailsArbitrary,
  ruleInstanceRequestArbitrary,
  ruleParametersArbitrary,
  transactionArbitrary,
  transactionEventSequenceArbitrary,
  transactionsArbitrary,
  TESTING_AMOUNT_BOUNDARIES,
  TESTING_COUNTRIES,
  TESTING_CURRENCIES,
  TESTING_EPOCH_MS,
  TESTING_HIGH_RISK_COUNTRIES,
  TESTING_RULE_IDS,
  TESTING_SPAN_MS,
  TESTING_TRANSACTION_TYPES,
  TESTING_USER_IDS,
} from './arbitraries.js';
export type {
  EventSequenceOptions,
  RuleInstanceRequestArbitraryOptions,
  TestingRuleId,
  TransactionArbitraryOptions,
  TransactionsArbitraryOptions,
  TransactionWithEvents,
  UserArbitraryOptions,
} from './arbitraries.js';

// Repository conformance
export { describeRepositoryConformance, repositoryConformanceCases } from './conformance.js';
export type { ConformanceCase, ConformanceOptions, ConformanceRunner, CreateRepositories } from './conformance.js';
export { checkRepositoriesAgainstModel } from './model.js';
export type { ModelCheckOptions } from './model.js';

// Fixtures for adapter authors' own cases
export {
  FIXTURE_T0,
  buildAlertHit,
  buildContributions,
  buildEventStep,
  buildMonitoringResult,
  buildOutcome,
  buildStoredRuleInstance,
  buildStoredTransaction,
  buildTransaction,
  refsOf,
} from './fixtures.js';
export { assertEqual, findDifference } from './assert.js';
export { checkRuleDeclaration, type RuleDeclarationCheckOptions } from './rule-declaration.js';
