import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { LIBRARY_RULES } from '../../src/rules/registry.js';
import type { RuleDefinition } from '../../src/rules/types.js';
import { collectSchemaErrors } from '../../src/validation/index.js';
import { transactionsArbitrary } from '../arbitraries/index.js';

/**
 * A rule declaring `readsEntryValues: false` lets the engine keep its series without entry values
 * (D-139); one that then asked for a value-reading aggregate would count wrongly. Every such rule
 * must plan no `distinct` / `countIn` / `sumIn` need and no `field`, for any transaction and for
 * its default parameters and their sender/receiver/history variants.
 */
const rules = (LIBRARY_RULES as unknown as RuleDefinition<Record<string, unknown>>[]).filter((r) => r.readsEntryValues === false);

function variants(rule: RuleDefinition<Record<string, unknown>>): Record<string, unknown>[] {
  const base = rule.defaultParameters;
  const candidates = [
    base,
    { ...base, checkSender: 'all', checkReceiver: 'all' },
    { ...base, checkSender: 'none', checkReceiver: 'receiving' },
    { ...base, initialTransactions: 3 },
    { ...base, transactionsLimit: 0 },
  ];
  return candidates.filter((p) => collectSchemaErrors(rule.parametersSchema, p).length === 0);
}

describe('rules that read no entry values', () => {
  it('include the counting and summing rules of the benchmark workload', () => {
    expect(rules.map((r) => r.id)).toEqual(expect.arrayContaining(['R-1', 'R-30', 'R-69']));
    // A rule reading distinct values must not be among them.
    expect(rules.map((r) => r.id)).not.toContain('R-10');
  });

  test.prop([transactionsArbitrary({ maxLength: 6, userIds: ['u-1', 'u-2'] })], { numRuns: 60 })(
    'plan no value-reading need for any transaction',
    (transactions) => {
      for (const rule of rules) {
        for (const parameters of variants(rule)) {
          for (const transaction of transactions) {
            for (const need of rule.aggregates?.({ transaction, parameters }) ?? []) {
              expect({ rule: rule.id, fn: need.fn, field: need.field }).toEqual({ rule: rule.id, fn: expect.not.stringMatching(/^(distinct|countIn|sumIn)$/), field: undefined });
            }
          }
        }
      }
    },
  );
});
