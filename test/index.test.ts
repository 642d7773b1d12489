/**
 * The package entries (src/index.ts, src/internals.ts): the root is the public API a host needs,
 * the building blocks are only in the unstable `txmon/internals`, which also re-exports the root.
 */
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as internals from '../src/internals.js';

const PUBLIC = [
  'createEngine',
  'createMemoryRepositories',
  'defineRule',
  'LIBRARY_RULE_IDS',
  'LIBRARY_RULES',
  'SERIES_NAMES',
  'windowStart',
  'TxmonError',
  'isTxmonError',
  'ERROR_CODES',
  'invalidField',
  'TransactionSchema',
  'RuleInstanceRequestSchema',
  'createFixedRateProvider',
  'DEFAULT_ENGINE_LIMITS',
  'DEFAULT_LATE_ARRIVAL_MS',
];
const BUILDING_BLOCKS = [
  'applyTransactionEvent',
  'foldTransactionEvents',
  'planRuleInstances',
  'collectAggregateNeeds',
  'evaluateRuleInstances',
  'aggregateNeedKey',
  'createAggregateStore',
  'createWindowIndex',
  'compileLogic',
  'compileRuleFilters',
  'compileHistoricalFilters',
  'compileAggregationVariables',
  'createRuleRegistry',
  'buildRuleInstance',
  'contributionsOf',
  'createValidator',
  'assertSafeJson',
  'decideAlertHit',
  'applyUserUpdate',
  'canonicalJson',
  'cloneJson',
  'deepFreeze',
];

describe('package entries', () => {
  it.each(PUBLIC)('the root exports %s', (name) => expect(root).toHaveProperty(name));
  it.each(BUILDING_BLOCKS)('only txmon/internals exports %s', (name) => {
    expect(root).not.toHaveProperty(name);
    expect(internals).toHaveProperty(name);
  });
  it('txmon/internals re-exports every export of the root', () => {
    for (const name of Object.keys(root)) expect(internals, name).toHaveProperty(name, (root as Record<string, unknown>)[name]);
  });
});
