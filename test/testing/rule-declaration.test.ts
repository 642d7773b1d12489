import { fc } from '@fast-check/vitest';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/domain/json.js';
import { LIBRARY_RULES } from '../../src/rules/registry.js';
import type { AnyRuleDefinition, RuleDefinition } from '../../src/rules/types.js';
import { checkRuleDeclaration } from '../../src/testing/index.js';
import { collectSchemaErrors } from '../../src/validation/index.js';
import { transactionArbitrary } from '../arbitraries/index.js';
import { schemaParametersArbitrary } from '../arbitraries/rule-parameters.js';

const SENDER = ['sending', 'all', 'none'] as const;
const RECEIVER = ['receiving', 'all', 'none'] as const;
const twoUsers = transactionArbitrary({ userIds: ['u-1', 'u-2'] });

/** The rule's defaults with the side checks (and R-131/R-130/R-77's `initialTransactions`) varied. */
function sideChecksArbitrary(rule: AnyRuleDefinition) {
  const properties = rule.parametersSchema.properties as Record<string, unknown>;
  return fc
    .record({
      checkSender: fc.constantFrom(...SENDER),
      checkReceiver: fc.constantFrom(...RECEIVER),
      checkDirection: fc.constantFrom('sending', 'receiving', 'all'),
      initialTransactions: fc.option(fc.nat(5), { nil: undefined }),
    })
    .map(({ checkSender, checkReceiver, checkDirection, initialTransactions }) => {
      const parameters: Record<string, unknown> = { ...(rule.defaultParameters as Record<string, unknown>) };
      // Each rule's own side parameters: checkSender / checkReceiver, or one checkDirection (TXM-3).
      if ('checkSender' in properties) parameters.checkSender = checkSender;
      if ('checkReceiver' in properties) parameters.checkReceiver = checkReceiver;
      if ('checkDirection' in properties) parameters.checkDirection = checkDirection;
      if (initialTransactions !== undefined && 'initialTransactions' in properties) parameters.initialTransactions = initialTransactions;
      return deepFreeze(parameters);
    });
}

/** The rule's defaults and their sender/receiver/history variants that the schema accepts. */
function variants(rule: RuleDefinition<Record<string, unknown>>): Record<string, unknown>[] {
  const base = rule.defaultParameters;
  const candidates = [
    base,
    { ...base, checkSender: 'all', checkReceiver: 'all' },
    { ...base, checkSender: 'none', checkReceiver: 'receiving' },
    { ...base, checkDirection: 'receiving' },
    { ...base, checkDirection: 'all' },
    { ...base, initialTransactions: 3 },
    { ...base, transactionsLimit: 0 },
  ];
  return candidates.filter((p) => collectSchemaErrors(rule.parametersSchema, p).length === 0);
}

describe('checkRuleDeclaration', () => {
  describe('library rules', () => {
    for (const rule of LIBRARY_RULES) {
      it(`${rule.id} declares what it reads, for parameters drawn from its schema and any transaction`, () => {
        checkRuleDeclaration(rule, { parameters: schemaParametersArbitrary(rule), numRuns: 40 });
      });
    }

    // Sender/receiver-aware rules choose their series by their side checks: every pair, with and without history.
    for (const rule of LIBRARY_RULES.filter((r) => r.seriesFor !== undefined)) {
      it(`${rule.id}: every planned need names a series that seriesFor returns, and seriesFor stays within the rule's series`, () => {
        checkRuleDeclaration(rule, { parameters: sideChecksArbitrary(rule), transactions: twoUsers, numRuns: 60 });
      });
    }

    // A rule declaring readsEntryValues: false lets the engine keep its series without entry values:
    // it must plan no distinct / countIn / sumIn need and no field.
    for (const rule of (LIBRARY_RULES as unknown as RuleDefinition<Record<string, unknown>>[]).filter((r) => r.readsEntryValues === false)) {
      it(`${rule.id} reads no entry values, as it declares, for its defaults and their side and history variants`, () => {
        checkRuleDeclaration(rule, { parameters: fc.constantFrom(...variants(rule)), transactions: twoUsers, numRuns: 100 });
      });
    }
  });

  describe('a wrong declaration', () => {
    const r30 = LIBRARY_RULES.find((r) => r.id === 'R-30') as AnyRuleDefinition;
    const r10 = LIBRARY_RULES.find((r) => r.id === 'R-10') as AnyRuleDefinition;
    const failure = (run: () => void): string => {
      try {
        run();
      } catch (error) {
        return String((error as Error).message);
      }
      throw new Error('expected checkRuleDeclaration to fail');
    };

    it('fails when seriesFor leaves out a series the needs read, naming the rule, the series and the seed', () => {
      // R-30 as a host rule whose seriesFor never names user-all.
      const broken = { ...r30, id: 'M-30', seriesFor: () => ['user-sending', 'user-receiving'] } as unknown as AnyRuleDefinition;
      const message = failure(() => checkRuleDeclaration(broken, { parameters: sideChecksArbitrary(r30), transactions: twoUsers, seed: 7 }));
      expect(message).toContain('checkRuleDeclaration(M-30)');
      expect(message).toContain('user-all');
      expect(message).toContain('seed: 7');
    });

    it('fails when seriesFor returns a series the rule does not declare', () => {
      const broken = {
        ...r30,
        id: 'M-30',
        seriesFor: (p: { checkSender: string }) => (p.checkSender === 'none' ? ['ip'] : ['user-sending', 'user-receiving', 'user-all']),
      } as unknown as AnyRuleDefinition;
      expect(failure(() => checkRuleDeclaration(broken, { parameters: sideChecksArbitrary(r30) }))).toContain('seriesFor(parameters) returned ip');
    });

    it('fails when a rule declaring readsEntryValues: false plans a distinct count', () => {
      const broken = { ...r10, id: 'M-10', readsEntryValues: false } as unknown as AnyRuleDefinition;
      expect(failure(() => checkRuleDeclaration(broken))).toContain('readsEntryValues: false');
    });

    it('fails when two needs of one plan share a name, or a need has no key', () => {
      const plan = (needs: (t: { originUserId?: string; timestamp: number }) => unknown[]) =>
        ({
          ...r30,
          id: 'M-30',
          seriesFor: undefined,
          aggregates: ({ transaction }: { transaction: { originUserId?: string; timestamp: number } }) => needs(transaction),
        }) as unknown as AnyRuleDefinition;
      const need = (key: string) => ({ name: 'n', series: 'user-sending', key, start: 0, end: 1, fn: 'count', includeCurrent: true });
      expect(failure(() => checkRuleDeclaration(plan(() => [need('u'), need('u')])))).toContain('two needs named "n"');
      expect(failure(() => checkRuleDeclaration(plan(() => [need('')])))).toContain('without a key');
    });

    it('fails when the parameters arbitrary draws parameters the rule refuses', () => {
      expect(failure(() => checkRuleDeclaration(r30, { parameters: fc.constant({ transactionsLimit: -1 }) }))).toContain('parameters the rule refuses');
    });

    it('refuses a declaration defineRule would refuse, with INVALID_CONFIGURATION', () => {
      const broken = { ...r30, id: 'M-30', parametersSchema: Type.String() } as unknown as AnyRuleDefinition;
      expect(() => checkRuleDeclaration(broken)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    });

    it('passes a correct declaration with its defaults only (no parameters arbitrary)', () => {
      expect(() => checkRuleDeclaration(r30)).not.toThrow();
    });
  });
});
