import { fc } from '@fast-check/vitest';
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertRuleDeclaration, defineRule, defineUserRule, isDefinedRule, isDevelopment } from '../../src/rules/define-rule.js';
import { CheckSenderSchema } from '../../src/rules/parameters.js';
import { LIBRARY_RULES, LIBRARY_USER_RULES } from '../../src/rules/registry.js';
import type { AggregateNeed, RuleDefinition, RulePlanContext, UserRuleCheckContext } from '../../src/rules/types.js';
import { checkRuleDeclaration } from '../../src/testing/index.js';
import { T0, errorOf, testEngine, tx } from '../helpers.js';

const ParametersSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 0, title: 'Limit', description: 'The rule hits above this many transactions.' }),
    checkSender: CheckSenderSchema,
  },
  { additionalProperties: false, title: 'ACME-1 parameters' },
);

type VelocityParameters = { limit: number; checkSender: 'sending' | 'all' | 'none' };

/** The needs of a velocity count: `user-sending`, or `user-all` with `checkSender: 'all'`. */
function planCount({ transaction, parameters }: RulePlanContext<VelocityParameters>): AggregateNeed[] {
  if (!transaction.originUserId || parameters.checkSender === 'none') return [];
  return [
    {
      name: 'count',
      series: parameters.checkSender === 'all' ? 'user-all' : 'user-sending',
      key: transaction.originUserId,
      start: Number.NEGATIVE_INFINITY,
      end: transaction.timestamp,
      fn: 'count',
      excludeId: transaction.transactionId,
      includeCurrent: true,
    },
  ];
}

/** A host's velocity rule, as written for `defineRule`; `changes` replaces fields. */
function spec(changes: Record<string, unknown> = {}) {
  return {
    id: 'ACME-1',
    name: 'Acme velocity',
    description: "A user's transactions of all time are more than a limit.",
    descriptionTemplate: 'More than {{limit}} transactions.',
    parametersSchema: ParametersSchema,
    defaultParameters: { limit: 10, checkSender: 'sending' },
    defaultAction: 'FLAG',
    defaultNature: 'FRAUD',
    checksFor: ['No. of transactions'],
    types: ['Velocity'],
    typologies: ['Money mules'],
    series: ['user-sending', 'user-all'],
    seriesFor: (p: VelocityParameters) => (p.checkSender === 'all' ? ['user-all'] : p.checkSender === 'sending' ? ['user-sending'] : []),
    readsEntryValues: false,
    aggregates: planCount,
    check: ({ parameters, aggregates }: { parameters: VelocityParameters; aggregates: Readonly<Record<string, unknown>> }) =>
      typeof aggregates['count'] === 'number' && aggregates['count'] > parameters.limit
        ? [{ direction: 'ORIGIN' as const, vars: { limit: parameters.limit } }]
        : [],
    ...changes,
  } as unknown as Parameters<typeof defineRule>[0];
}

const TRANSACTION = tx({ timestamp: T0 });
const plan = (rule: RuleDefinition<VelocityParameters>, parameters: VelocityParameters) => rule.aggregates?.({ transaction: TRANSACTION as never, parameters });

/** The same rule as a complete definition, as a host passes it to createEngine({ rules }) without defineRule. */
const definition = (changes: Record<string, unknown> = {}) => ({ ...spec(changes), labels: [], defaultCasePriority: 'P1' });

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('defineRule', () => {
  it('fills in no labels, priority P1 and no series, and keeps every other field', () => {
    const rule = defineRule({
      ...spec(),
      series: undefined,
      seriesFor: undefined,
      aggregates: undefined,
      readsEntryValues: undefined,
    } as never) as RuleDefinition<VelocityParameters>;
    expect(rule.labels).toEqual([]);
    expect(rule.defaultCasePriority).toBe('P1');
    expect(rule.series).toEqual([]);
    expect(rule.id).toBe('ACME-1');
    expect(rule.parametersSchema).toBe(ParametersSchema);
    expect(isDefinedRule(rule)).toBe(true);
    expect(isDefinedRule({ ...rule })).toBe(false);
  });

  it('keeps given labels and priority', () => {
    const rule = defineRule(spec({ labels: ['SCAM'], defaultCasePriority: 'P3' }));
    expect(rule.labels).toEqual(['SCAM']);
    expect(rule.defaultCasePriority).toBe('P3');
  });

  it('accepts a host id and a library id, and defaults without a required parameter that has no default', () => {
    expect(() => defineRule(spec({ id: 'host:velocity/1' }))).not.toThrow();
    expect(() => defineRule(spec({ id: 'R-999' }))).not.toThrow();
    expect(() => defineRule(spec({ defaultParameters: { checkSender: 'sending' } }))).not.toThrow();
  });

  const wrong: { name: string; changes: Record<string, unknown>; field: string }[] = [
    { name: 'an empty id', changes: { id: '' }, field: 'id' },
    { name: 'an id with surrounding spaces', changes: { id: ' ACME-1' }, field: 'id' },
    { name: 'an id longer than 256 characters', changes: { id: 'A'.repeat(257) }, field: 'id' },
    { name: 'an empty name', changes: { name: '  ' }, field: 'name' },
    { name: 'no description', changes: { description: undefined }, field: 'description' },
    { name: 'an empty description template', changes: { descriptionTemplate: '' }, field: 'descriptionTemplate' },
    { name: 'an unknown action', changes: { defaultAction: 'ALERT' }, field: 'defaultAction' },
    { name: 'an unknown nature', changes: { defaultNature: 'TAX' }, field: 'defaultNature' },
    { name: 'an unknown label', changes: { labels: ['URGENT'] }, field: 'labels' },
    { name: 'an unknown case priority', changes: { defaultCasePriority: 'P0' }, field: 'defaultCasePriority' },
    { name: 'an empty typology', changes: { typologies: [''] }, field: 'typologies' },
    { name: 'checksFor that is not a list', changes: { checksFor: 'amount' }, field: 'checksFor' },
    { name: 'no check', changes: { check: undefined }, field: 'check' },
    { name: 'aggregates that is not a function', changes: { aggregates: [] }, field: 'aggregates' },
    { name: 'readsEntryValues that is not a boolean', changes: { readsEntryValues: 'no' }, field: 'readsEntryValues' },
    { name: 'an unknown series', changes: { series: ['user-sending', 'user-everything'] }, field: 'series' },
    { name: 'a series named twice', changes: { series: ['user-sending', 'user-sending'] }, field: 'series' },
    { name: 'aggregates without series', changes: { series: [], seriesFor: undefined }, field: 'series' },
    { name: 'series without aggregates', changes: { aggregates: undefined }, field: 'series' },
    { name: 'a parameters schema that is not a TypeBox object', changes: { parametersSchema: { type: 'object' } }, field: 'parametersSchema' },
    { name: 'defaults that are not an object', changes: { defaultParameters: [] }, field: 'defaultParameters' },
    { name: 'defaults the schema refuses', changes: { defaultParameters: { limit: -1, checkSender: 'sending' } }, field: 'defaultParameters' },
    {
      name: 'defaults with an unknown parameter',
      changes: { defaultParameters: { limit: 1, checkSender: 'sending', extra: true } },
      field: 'defaultParameters',
    },
    { name: 'seriesFor of the defaults outside series', changes: { seriesFor: () => ['ip'] }, field: 'seriesFor' },
    {
      name: 'seriesFor that throws for the defaults',
      changes: {
        seriesFor: () => {
          throw new TypeError('no');
        },
      },
      field: 'seriesFor',
    },
  ];
  for (const row of wrong) {
    it(`refuses ${row.name}: INVALID_CONFIGURATION naming the rule and ${row.field}`, () => {
      let error: unknown;
      try {
        defineRule(spec(row.changes));
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      const message = (error as Error).message;
      expect(message).toMatch(/^defineRule: /);
      if (row.field !== 'id') expect(message).toContain(`rule ACME-1: ${row.field}`);
    });
  }

  describe('in development and test', () => {
    it('is on when NODE_ENV is not production', () => {
      expect(isDevelopment()).toBe(true);
      vi.stubEnv('NODE_ENV', 'production');
      expect(isDevelopment()).toBe(false);
    });

    it('returns the needs of a correct declaration unchanged', () => {
      const rule = defineRule(spec()) as RuleDefinition<VelocityParameters>;
      for (const checkSender of ['sending', 'all', 'none'] as const) {
        expect(plan(rule, { limit: 1, checkSender })).toEqual(planCount({ transaction: TRANSACTION as never, parameters: { limit: 1, checkSender } }));
      }
    });

    it('throws when a need names a series seriesFor does not return for those parameters', () => {
      const rule = defineRule(spec({ seriesFor: () => ['user-sending'] })) as RuleDefinition<VelocityParameters>;
      expect(plan(rule, { limit: 1, checkSender: 'sending' })).toHaveLength(1);
      expect(() => plan(rule, { limit: 1, checkSender: 'all' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    });

    it('throws when a need names a series the rule does not declare (no seriesFor)', () => {
      const rule = defineRule(spec({ series: ['user-sending'], seriesFor: undefined })) as RuleDefinition<VelocityParameters>;
      expect(() => plan(rule, { limit: 1, checkSender: 'all' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    });

    it('throws when seriesFor returns a series the rule does not declare', () => {
      const rule = defineRule(
        spec({ seriesFor: (p: VelocityParameters) => (p.checkSender === 'all' ? ['ip'] : ['user-sending']) }),
      ) as RuleDefinition<VelocityParameters>;
      expect(() => plan(rule, { limit: 1, checkSender: 'all' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    });
  });

  it('in production, runs the declared aggregates unwrapped', () => {
    vi.stubEnv('NODE_ENV', 'production');
    const rule = defineRule(spec({ seriesFor: () => ['user-sending'] })) as RuleDefinition<VelocityParameters>;
    expect(rule.aggregates).toBe(planCount);
    expect(plan(rule, { limit: 1, checkSender: 'all' })).toHaveLength(1);
  });
});

describe('assertRuleDeclaration', () => {
  it('passes every library rule, its schema accepting its defaults', () => {
    for (const rule of LIBRARY_RULES) expect(() => assertRuleDeclaration(rule, 'test', { schema: true })).not.toThrow();
  });

  it('every library rule was declared with defineRule', () => {
    expect(LIBRARY_RULES.filter((rule) => !isDefinedRule(rule)).map((rule) => rule.id)).toEqual([]);
  });
});

describe('a host rule whose needs read a series it does not declare', () => {
  // seriesFor forgets user-all, which the needs read with checkSender 'all': an engine keeping only
  // the declared series would count nothing for it.
  const changes = { seriesFor: (p: VelocityParameters) => (p.checkSender === 'none' ? [] : ['user-sending']) };
  const parameters = fc.record({ limit: fc.nat(5), checkSender: fc.constantFrom('sending' as const, 'all' as const, 'none' as const) });

  it('is caught by defineRule when it plans', () => {
    const rule = defineRule(spec(changes)) as RuleDefinition<VelocityParameters>;
    expect(() => plan(rule, { limit: 0, checkSender: 'all' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
  });

  it('is caught by the registry of createEngine({ rules }) when a transaction is evaluated', async () => {
    const { engine } = testEngine({ rules: [definition(changes) as never] });
    await engine.createRuleInstance({ ruleId: 'ACME-1', parameters: { limit: 0, checkSender: 'all' } });
    const e = await errorOf(() => engine.createTransaction(tx({ timestamp: T0 })));
    expect(e.code).toBe('INVALID_CONFIGURATION');
  });

  it('is caught by checkRuleDeclaration, also in production', () => {
    vi.stubEnv('NODE_ENV', 'production');
    expect(() => checkRuleDeclaration(definition(changes) as never, { parameters })).toThrow(/user-all/);
    expect(() => checkRuleDeclaration(definition() as never, { parameters })).not.toThrow();
  });
});

describe('defineUserRule', () => {
  const NoParameters = Type.Object({}, { additionalProperties: false });
  const spec = {
    id: 'ACME-U1',
    name: 'Consumer without a date of birth',
    description: 'A consumer user without a date of birth.',
    descriptionTemplate: 'User {{userId}} has no date of birth.',
    parametersSchema: NoParameters,
    defaultParameters: {},
    defaultAction: 'SUSPEND' as const,
    defaultNature: 'AML' as const,
    checksFor: ['User details'],
    types: ['KYC'],
    typologies: [],
    check: ({ user }: UserRuleCheckContext<Record<string, never>>) =>
      user.type === 'CONSUMER' && (user.profile['userDetails'] as { dateOfBirth?: string } | undefined)?.dateOfBirth === undefined
        ? { vars: { userId: user.userId } }
        : null,
  };

  it('fills in type USER, no labels and priority P1; the library user rules were declared with it', () => {
    const rule = defineUserRule(spec);
    expect(rule).toMatchObject({ type: 'USER', labels: [], defaultCasePriority: 'P1', id: 'ACME-U1' });
    expect(isDefinedRule(rule)).toBe(true);
    expect(LIBRARY_USER_RULES.map((r) => [r.id, r.type, isDefinedRule(r)])).toEqual([
      ['R-20', 'USER', true],
      ['R-61', 'USER', true],
    ]);
  });

  it.each([
    { name: 'a series', changes: { series: ['user-sending'] }, field: 'series' },
    { name: 'an aggregates planner', changes: { aggregates: () => [] }, field: 'aggregates' },
    { name: 'a lookups planner', changes: { lookups: () => [] }, field: 'lookups' },
    { name: 'no check', changes: { check: undefined }, field: 'check' },
    { name: 'an unknown action', changes: { defaultAction: 'WARN' }, field: 'defaultAction' },
  ])('refuses $name with INVALID_CONFIGURATION naming the field', ({ changes, field }) => {
    const error = (() => {
      try {
        defineUserRule({ ...spec, ...changes } as never);
      } catch (e) {
        return e as { code: string; message: string };
      }
      return null;
    })();
    expect(error?.code).toBe('INVALID_CONFIGURATION');
    expect(error?.message).toContain(field);
  });

  it('a transaction rule declared with type USER is refused by defineRule', () => {
    expect(() => defineRule({ type: 'USER' } as never)).toThrow(/defineUserRule/);
  });

  it("a host's user rule runs through createEngine({ rules }) on user creation, never on a transaction", async () => {
    const { engine } = testEngine({ rules: [defineUserRule(spec)] });
    expect(await engine.getRule('ACME-U1')).toMatchObject({ id: 'ACME-U1', type: 'USER', stateful: false });
    const instance = await engine.createRuleInstance({ ruleId: 'ACME-U1' });
    expect(instance).toMatchObject({ type: 'USER', action: 'SUSPEND' });
    const created = await engine.createUser({ userId: 'no-dob', createdTimestamp: T0, userDetails: { countryOfResidence: 'DE' } });
    expect(created.hitRules).toEqual([
      expect.objectContaining({ ruleId: 'ACME-U1', ruleAction: 'SUSPEND', ruleDescription: 'User no-dob has no date of birth.' }),
    ]);
    const transaction = await engine.createTransaction(tx({ originUserId: 'no-dob' }));
    expect(transaction.executedRules).toEqual([]);
    expect(await engine.getRuleInstance(instance.id)).toMatchObject({ runCount: 1, hitCount: 1 });
  });
});
