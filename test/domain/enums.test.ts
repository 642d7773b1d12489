import { describe, expect, test } from 'vitest';
import {
  PAYMENT_METHODS,
  RISK_LEVELS,
  RULE_ACTIONS,
  RULE_ACTION_SEVERITY,
  TRANSACTION_STATES,
  compareRuleActions,
  type RuleAction,
} from '../../src/domain/enums.js';

describe('RULE_ACTION_SEVERITY', () => {
  test('orders BLOCK > SUSPEND > FLAG > ALLOW', () => {
    const sorted = [...RULE_ACTIONS].sort((a, b) => RULE_ACTION_SEVERITY[b] - RULE_ACTION_SEVERITY[a]);
    expect(sorted).toEqual(['BLOCK', 'SUSPEND', 'FLAG', 'ALLOW']);
  });
});

describe('compareRuleActions', () => {
  test.each([
    { name: 'BLOCK is more severe than SUSPEND', input: ['BLOCK', 'SUSPEND'], expected: 1 },
    { name: 'FLAG is less severe than SUSPEND', input: ['FLAG', 'SUSPEND'], expected: -1 },
    { name: 'equal actions', input: ['ALLOW', 'ALLOW'], expected: 0 },
  ] satisfies { name: string; input: [RuleAction, RuleAction]; expected: number }[])('$name', ({ input, expected }) => {
    expect(Math.sign(compareRuleActions(input[0], input[1]))).toBe(expected);
  });
});

describe('enums', () => {
  test('risk levels are in ascending order', () => {
    expect(RISK_LEVELS).toEqual(['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH']);
  });
  test('transaction states follow docs/wire-format.md#enums', () => {
    expect(TRANSACTION_STATES).toEqual(['CREATED', 'PROCESSING', 'SENT', 'EXPIRED', 'DECLINED', 'SUSPENDED', 'REFUNDED', 'SUCCESSFUL', 'REVERSED']);
  });
  test('there are eleven payment methods', () => {
    expect(new Set(PAYMENT_METHODS).size).toBe(11);
  });
});
