import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { seriesReadBy } from '../../src/engine/instances/prepare-instance.js';
import { createFixedRateProvider } from '../../src/domain/money.js';
import type { RuleInstance } from '../../src/repositories/types.js';
import { sideSeries } from '../../src/rules/directions.js';
import { LIBRARY_RULES } from '../../src/rules/registry.js';
import { deepFreeze } from '../../src/domain/json.js';
import type { AnyRuleDefinition } from '../../src/rules/types.js';
import { transactionArbitrary } from '../arbitraries/index.js';

/**
 * `seriesFor` lets the engine keep only the series an instance's parameters read (D-145). If it
 * named too few, an instance would read a series nobody keeps and count nothing, silently: so
 * every need a rule plans, for any parameters and any transaction, must name one of them.
 */
const WITH_SERIES_FOR = LIBRARY_RULES.filter((r) => r.seriesFor !== undefined);
const SENDER = ['sending', 'all', 'none'] as const;
const RECEIVER = ['receiving', 'all', 'none'] as const;
const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };

/** The rule's defaults with the side checks (and R-131/R-130/R-77's `initialTransactions`) varied. */
function parametersArbitrary(rule: AnyRuleDefinition) {
  return fc
    .record({ checkSender: fc.constantFrom(...SENDER), checkReceiver: fc.constantFrom(...RECEIVER), initialTransactions: fc.option(fc.nat(5), { nil: undefined }) })
    .map(({ checkSender, checkReceiver, initialTransactions }) => {
      const parameters: Record<string, unknown> = { ...(rule.defaultParameters as Record<string, unknown>), checkSender, checkReceiver };
      if (initialTransactions !== undefined && 'initialTransactions' in rule.parametersSchema.properties) parameters.initialTransactions = initialTransactions;
      return deepFreeze(parameters);
    });
}

describe('seriesFor (D-145)', () => {
  it('is declared by every sender/receiver-aware library rule', () => {
    expect(WITH_SERIES_FOR.map((r) => r.id).sort()).toEqual(
      ['R-120', 'R-121', 'R-122', 'R-123', 'R-124', 'R-125', 'R-130', 'R-131', 'R-27', 'R-30', 'R-69', 'R-77'].sort(),
    );
  });

  it('sideSeries maps each check to its series', () => {
    expect(sideSeries('sending', 'receiving')).toEqual(['user-sending', 'user-receiving']);
    expect(sideSeries('all', 'all')).toEqual(['user-all']);
    expect(sideSeries('none', 'all')).toEqual(['user-all']);
    expect(sideSeries('sending', 'none')).toEqual(['user-sending']);
    expect(sideSeries('none', 'none')).toEqual([]);
    // A value validation would refuse: every user series, never fewer.
    expect(sideSeries('both' as never, 'none')).toEqual(['user-sending', 'user-receiving', 'user-all']);
  });

  for (const rule of WITH_SERIES_FOR) {
    test.prop([parametersArbitrary(rule), transactionArbitrary({ userIds: ['u-1', 'u-2'] })], { numRuns: 60 })(
      `${rule.id}: every planned need names a series that seriesFor returns, and seriesFor stays within the rule's series`,
      (parameters, transaction) => {
        const read = rule.seriesFor?.(parameters) ?? [];
        for (const series of read) expect(rule.series).toContain(series);
        const needs = rule.aggregates?.({ transaction, parameters, money } as never) ?? [];
        for (const need of needs) expect(read).toContain(need.series);
      },
    );
  }

  it('an instance reads the union over its per-risk-level parameter sets', () => {
    const r30 = LIBRARY_RULES.find((r) => r.id === 'R-30') as AnyRuleDefinition;
    const instance = {
      ruleId: 'R-30',
      parameters: { ...(r30.defaultParameters as object), checkSender: 'sending', checkReceiver: 'none' },
      riskLevelParameters: { VERY_HIGH: { ...(r30.defaultParameters as object), checkSender: 'none', checkReceiver: 'all' } },
    } as unknown as RuleInstance;
    expect(seriesReadBy(r30, instance)).toEqual(['user-sending', 'user-all']);
    // Without parameters (never after validation), every series of the rule.
    expect(seriesReadBy(r30, { ruleId: 'R-30' } as RuleInstance)).toEqual(r30.series);
    // A rule without seriesFor: all of its series.
    const r1 = LIBRARY_RULES.find((r) => r.id === 'R-1') as AnyRuleDefinition;
    expect(seriesReadBy(r1, { ruleId: 'R-1', parameters: {} } as unknown as RuleInstance)).toEqual(r1.series);
  });
});
