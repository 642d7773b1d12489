/**
 * The engine's methods take the wire format's request types (checked by `npm run typecheck`: each
 * `@ts-expect-error` below must be an error) and still check every input at run time, so a caller
 * without types gets the same 4xx error a client of the HTTP API gets.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { LibraryRuleId, LibraryRuleParameters } from '../../src/rules/registry.js';
import { LIBRARY_RULE_IDS, LIBRARY_RULES } from '../../src/rules/registry.js';
import type { RuleInstanceInput, TransactionInput } from '../../src/engine/types.js';
import { T0, errorOf, testEngine } from '../helpers.js';

describe('Engine input types', () => {
  it('a transaction literal with a wrong value does not compile, and is refused at run time all the same', async () => {
    const { engine } = testEngine();
    // @ts-expect-error: a timestamp is a number of milliseconds
    const e = await errorOf(() => engine.createTransaction({ type: 'TRANSFER', transactionId: 't-1', timestamp: '2025-01-15' }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details[0]?.path).toBe('/timestamp');
  });

  it('a misspelt field does not compile', async () => {
    const { engine } = testEngine();
    // @ts-expect-error: originUserID is no field of a transaction (originUserId is)
    const input: TransactionInput = { type: 'TRANSFER', transactionId: 't-1', timestamp: T0, originUserID: 'alice' };
    // The wire format keeps unknown fields (docs/wire-format.md#unknown-fields): at run time it is
    // stored as sent.
    await engine.createTransaction(input);
    expect((await engine.getTransaction('t-1'))['originUserID' as keyof TransactionInput]).toBe('alice');
  });

  it('anything else from an untyped caller is a 4xx TxmonError, never a crash', async () => {
    const { engine } = testEngine();
    for (const input of [null, 42, 'tx', [], { transactionId: 1 }]) {
      const e = await errorOf(() => engine.createTransaction(input as unknown as TransactionInput));
      expect(e.status).toBe(400);
    }
    const e = await errorOf(() =>
      engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: 'lots' } } as unknown as RuleInstanceInput),
    );
    expect(e.code).toBe('INVALID_PARAMETERS');
  });

  it('library rule ids are a type, and each rule instance request may name one with its own parameters', () => {
    expectTypeOf<'R-2'>().toExtend<LibraryRuleId>();
    expectTypeOf<LibraryRuleParameters['R-2']>().toHaveProperty('transactionAmountThreshold');
    expectTypeOf<{ ruleId: 'R-2'; parameters: { transactionAmountThreshold: { EUR: number } } }>().toExtend<RuleInstanceInput>();
    // A host rule's id and parameters, and custom logic, are requests too.
    expectTypeOf<{ ruleId: 'ACME-1'; parameters: { limit: number } }>().toExtend<RuleInstanceInput>();
    expectTypeOf<{ logic: { '>': [number, number] } }>().toExtend<RuleInstanceInput>();
  });

  it('LIBRARY_RULE_IDS lists each library rule by its own id, in the order of LIBRARY_RULES', () => {
    expect(LIBRARY_RULE_IDS).toEqual(LIBRARY_RULES.map((rule) => rule.id));
  });
});
