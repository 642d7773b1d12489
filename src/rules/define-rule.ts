/**
 * Declaring a rule. {@link defineRule} checks what a rule declares when it is declared, and, in
 * development and test, also while it runs: every aggregate the rule plans must read a series the
 * rule declares for those parameters. The engine keeps only the series some active instance
 * declares, so a need on an undeclared series would read an empty series and silently never hit;
 * with this check it fails loudly instead. The registry holds a host's rules
 * (`createEngine({ rules })`) to the same checks.
 */
import { KindGuard, type Static, type TSchema } from '@sinclair/typebox';
import { CASE_PRIORITIES, RULE_ACTIONS, RULE_LABELS, RULE_NATURES, isIdText, isPlainObject, type RuleLabel } from '../domain/index.js';
import { configurationError, TxmonError } from '../errors.js';
import { collectSchemaErrors, interpretSchema, isWellFormedText } from '../validation/index.js';
import { SERIES_NAMES, type SeriesName } from './series.js';
import type { AggregateNeed, AnyRule, AnyRuleDefinition, AnyUserRuleDefinition, RuleDefinition, RulePlanContext, UserRuleDefinition } from './types.js';

/**
 * What {@link defineRule} takes: a {@link RuleDefinition} whose parameters are typed by its
 * `parametersSchema`, and in which `labels` (default none), `defaultCasePriority` (default `P1`)
 * and `series` (default none: a stateless rule) may be left out.
 */
export type RuleSpec<S extends TSchema> = Omit<RuleDefinition<Static<S>>, 'parametersSchema' | 'labels' | 'defaultCasePriority' | 'series'> & {
  /** TypeBox object schema (with titles and descriptions) of the instance `parameters`. */
  readonly parametersSchema: S;
  readonly labels?: readonly RuleLabel[];
  readonly defaultCasePriority?: RuleDefinition['defaultCasePriority'];
  /** Series the rule reads (see {@link RuleDefinition.series}); leave it out for a stateless rule. */
  readonly series?: readonly SeriesName[];
};

const NO_LABELS: readonly RuleLabel[] = Object.freeze([]);
const NO_SERIES: readonly SeriesName[] = Object.freeze([]);
/** Rules that {@link defineRule} returned: already checked, and already wrapped in development. */
const DEFINED = new WeakSet<object>();

/**
 * Declares a rule: fills in the defaults of {@link RuleSpec}, checks the declaration (see
 * {@link assertRuleDeclaration}) and returns the {@link RuleDefinition} to register, in the
 * library or with `createEngine({ rules })`.
 *
 * In development and test (`process.env.NODE_ENV !== 'production'`) the rule's `aggregates` is
 * wrapped: each need it plans must name a series the rule declares for those parameters
 * (`seriesFor(parameters)` when the rule has it, else `series`), or the plan throws. In production,
 * or where there is no `process`, the rule runs unwrapped.
 *
 * @throws TxmonError `INVALID_CONFIGURATION` naming the rule and the field when the declaration
 *   is wrong; in development, also from `aggregates` when a need names an undeclared series.
 * @example
 * ```ts
 * const ParametersSchema = Type.Object({ limit: Type.Integer({ minimum: 0, description: 'Hits above this.' }) }, { additionalProperties: false });
 * export const largeTransfers = defineRule({
 *   id: 'ACME-1',
 *   name: 'Large transfer',
 *   description: 'A transfer above a limit.',
 *   descriptionTemplate: 'Amount above {{limit}}.',
 *   parametersSchema: ParametersSchema,
 *   defaultParameters: { limit: 10_000 },
 *   defaultAction: 'FLAG',
 *   defaultNature: 'AML',
 *   checksFor: ['Transaction amount'],
 *   types: ['Volume'],
 *   typologies: ['Structuring'],
 *   check: ({ transaction, parameters }) =>
 *     (transaction.originAmountDetails?.transactionAmount ?? 0) > parameters.limit ? [{ direction: 'ORIGIN', vars: { limit: parameters.limit } }] : [],
 * });
 * ```
 */
export function defineRule<S extends TSchema>(spec: RuleSpec<S>): RuleDefinition<Static<S>> {
  const rule: RuleDefinition<Static<S>> = {
    ...spec,
    labels: spec.labels ?? NO_LABELS,
    defaultCasePriority: spec.defaultCasePriority ?? 'P1',
    series: spec.series ?? NO_SERIES,
  };
  const development = isDevelopment();
  assertRuleDeclaration(rule, 'defineRule', { schema: development });
  const defined = development ? withDeclaredSeriesCheck(rule) : rule;
  DEFINED.add(defined);
  return defined;
}

/** Whether `rule` is what {@link defineRule} returned (so it was checked, and wrapped in development). */
export function isDefinedRule(rule: unknown): boolean {
  return typeof rule === 'object' && rule !== null && DEFINED.has(rule);
}

/**
 * Whether the development checks are on: `process.env.NODE_ENV` is not `production`. Off where
 * there is no `process` (a bundle for a browser or an edge runtime).
 */
export function isDevelopment(): boolean {
  const env = typeof process === 'undefined' ? undefined : process.env;
  return env !== undefined && env.NODE_ENV !== 'production';
}

/** Options of {@link assertRuleDeclaration}. */
export interface RuleDeclarationAssertOptions {
  /**
   * Also check that `parametersSchema` accepts `defaultParameters`. This may compile the schema
   * (1–40 ms each) when walking it cannot decide, so {@link defineRule} does it in development only.
   */
  readonly schema: boolean;
}

/**
 * Checks a rule's declaration; `call` names the API in the error (`defineRule`, `createEngine`).
 * - `id`: a non-empty id of at most 256 characters (`R-<n>` for the library, any other for a host);
 * - `name`, `description`, `descriptionTemplate`: non-empty text;
 * - `defaultAction`, `defaultNature`, `labels`, `defaultCasePriority`: known values;
 * - `checksFor`, `types`, `typologies`: lists of non-empty text;
 * - `parametersSchema`: a TypeBox object schema; with `options.schema`, one that accepts
 *   `defaultParameters` (a plain object), save for required parameters left out of it: a parameter
 *   without a sensible default (a list id) is one every instance must give;
 * - `series`: known series names, each once; `aggregates` and `series` come together (a rule that
 *   plans needs reads series, a rule with series plans needs);
 * - `seriesFor(defaultParameters)` lies within `series`;
 * - `check` is a function; `aggregates`, `lookups`, `seriesFor`, `validateParameters` are when
 *   given; `readsEntryValues` is a boolean when given.
 *
 * @throws TxmonError `INVALID_CONFIGURATION` whose message names the rule and the field.
 */
export function assertRuleDeclaration(rule: unknown, call: string, options: RuleDeclarationAssertOptions): asserts rule is AnyRuleDefinition {
  if (typeof rule !== 'object' || rule === null) throw configurationError(call, 'a rule must be an object');
  const r = rule as Record<string, unknown>;
  if (r['type'] !== undefined && r['type'] !== 'TRANSACTION') {
    throw configurationError(call, 'a transaction rule has type TRANSACTION or none (declare a user rule with defineUserRule)');
  }
  const { id, fail, complete } = assertCommonDeclaration(r, call, options);
  for (const field of ['aggregates', 'lookups', 'seriesFor']) {
    const value = r[field];
    if (value !== undefined && typeof value !== 'function') throw fail(field, 'must be a function');
  }
  if (r['readsEntryValues'] !== undefined && typeof r['readsEntryValues'] !== 'boolean') throw fail('readsEntryValues', 'must be a boolean when given');
  const series = r['series'];
  if (!Array.isArray(series) || !series.every((s) => isOneOf(s, SERIES_NAMES)) || new Set(series).size !== series.length) {
    throw fail('series', `must list known series (${SERIES_NAMES.join(', ')}), each once`);
  }
  if ((r['aggregates'] === undefined) !== (series.length === 0)) {
    throw fail('series', 'and aggregates must come together: a rule that plans aggregates declares the series they read, and only such a rule declares series');
  }
  const defaults = r['defaultParameters'];
  const seriesFor = r['seriesFor'] as ((parameters: unknown) => readonly string[]) | undefined;
  if (seriesFor !== undefined && complete) {
    let read: unknown;
    try {
      read = seriesFor.call(rule, defaults);
    } catch (error) {
      // Unchecked defaults may lack what seriesFor reads: only checked, complete ones must work.
      if (!options.schema) return;
      // The host's error stays the cause (configurationError takes none).
      throw new TxmonError('INVALID_CONFIGURATION', `${call}: rule ${id}: seriesFor must not throw for defaultParameters`, [], { cause: error });
    }
    if (!Array.isArray(read) || !read.every((s) => series.includes(s))) throw fail('seriesFor', '(defaultParameters) must return a subset of series');
  }
}

/**
 * Checks a user rule's declaration as {@link assertRuleDeclaration} checks a transaction rule's
 * shared fields (id, texts, defaults, schema, `check`, `validateParameters`); `type` must be
 * `USER`, and a user rule declares no series, aggregates or lookups (it reads only the user).
 *
 * @throws TxmonError `INVALID_CONFIGURATION` whose message names the rule and the field.
 */
export function assertUserRuleDeclaration(rule: unknown, call: string, options: RuleDeclarationAssertOptions): asserts rule is AnyUserRuleDefinition {
  if (typeof rule !== 'object' || rule === null) throw configurationError(call, 'a rule must be an object');
  const r = rule as Record<string, unknown>;
  if (r['type'] !== 'USER') throw configurationError(call, 'a user rule has type USER');
  const { fail } = assertCommonDeclaration(r, call, options);
  for (const field of ['series', 'aggregates', 'lookups', 'seriesFor', 'readsEntryValues']) {
    if (r[field] !== undefined) throw fail(field, 'is not part of a user rule (it reads only the user)');
  }
}

/**
 * The checks both kinds of rule share: id, texts, action, nature, priority, labels, lists,
 * `check` and `validateParameters`, `parametersSchema` and (with `options.schema`) its acceptance
 * of `defaultParameters`. Returns the id, the error maker, and whether the defaults are complete
 * (every required parameter has one).
 */
function assertCommonDeclaration(
  r: Record<string, unknown>,
  call: string,
  options: RuleDeclarationAssertOptions,
): { id: string; fail: (field: string, problem: string) => TxmonError; complete: boolean } {
  const id = r['id'];
  if (typeof id !== 'string' || !isIdText(id) || !isWellFormedText(id) || id.trim() !== id) {
    throw configurationError(call, 'a rule needs an id: 1 to 256 characters, without surrounding spaces');
  }
  const fail = (field: string, problem: string) => configurationError(call, `rule ${id}: ${field} ${problem}`);
  for (const field of ['name', 'description', 'descriptionTemplate']) {
    if (!isText(r[field])) throw fail(field, 'must be non-empty text');
  }
  if (!isOneOf(r['defaultAction'], RULE_ACTIONS)) throw fail('defaultAction', `must be one of ${RULE_ACTIONS.join(', ')}`);
  if (!isOneOf(r['defaultNature'], RULE_NATURES)) throw fail('defaultNature', `must be one of ${RULE_NATURES.join(', ')}`);
  if (!isOneOf(r['defaultCasePriority'], CASE_PRIORITIES)) throw fail('defaultCasePriority', `must be one of ${CASE_PRIORITIES.join(', ')}`);
  if (!Array.isArray(r['labels']) || !r['labels'].every((label) => isOneOf(label, RULE_LABELS))) throw fail('labels', 'must list known rule labels');
  for (const field of ['checksFor', 'types', 'typologies']) {
    const list = r[field];
    if (!Array.isArray(list) || !list.every(isText)) throw fail(field, 'must be a list of non-empty text');
  }
  for (const field of ['check', 'validateParameters']) {
    const value = r[field];
    if ((field === 'check' || value !== undefined) && typeof value !== 'function') throw fail(field, 'must be a function');
  }
  const schema = r['parametersSchema'];
  if (!KindGuard.IsObject(schema)) throw fail('parametersSchema', 'must be a TypeBox object schema (Type.Object)');
  const defaults = r['defaultParameters'];
  if (typeof defaults !== 'object' || defaults === null || Array.isArray(defaults) || !isPlainObject(defaults)) {
    throw fail('defaultParameters', 'must be a plain object');
  }
  let complete = true;
  if (options.schema && interpretSchema(schema, defaults, { ignoreTopLevelRequired: true }) === 'accepted') {
    // Accepted but for required parameters left out: decided without compiling the schema, which
    // would cost every import of txmon tens of ms per library rule. ajv decides (and words the
    // error) whenever the walk is not sure of acceptance.
    const required = (schema as { required?: readonly string[] }).required ?? [];
    complete = required.every((name) => (defaults as Record<string, unknown>)[name] !== undefined);
  } else if (options.schema) {
    const errors = collectSchemaErrors(schema, defaults, '/defaultParameters');
    // A required parameter left out of the defaults has no default: every instance must give it.
    const missing = errors.filter((e) => e.code === 'required' && /^\/defaultParameters\/[^/]+$/.test(e.path));
    if (missing.length < errors.length) {
      const first = errors.find((e) => !missing.includes(e)) as { path: string; message: string };
      throw fail('defaultParameters', `must be accepted by parametersSchema: ${first.path} ${first.message}`);
    }
    complete = missing.length === 0;
  }
  return { id, fail, complete };
}

/**
 * `rule` with its `aggregates` checked on every call: each need must name a series that
 * `seriesFor(parameters)` returns (else `series`), and `seriesFor` must stay within `series`.
 * The same object when the rule plans no aggregates. A copy otherwise (a plain object keeps its
 * own fields; any other object is the prototype of the copy).
 */
export function withDeclaredSeriesCheck<P>(rule: RuleDefinition<P>): RuleDefinition<P> {
  const planned = rule.aggregates;
  if (planned === undefined) return rule;
  const plan: (context: RulePlanContext<P>) => readonly AggregateNeed[] = planned;
  const declared: ReadonlySet<string> = new Set(rule.series);
  const seriesFor = rule.seriesFor;
  // Parameters are frozen by the engine and planned for on every transaction: one set per object.
  const readByParameters = new WeakMap<object, ReadonlySet<string>>();
  const readable = (parameters: P): ReadonlySet<string> => {
    if (seriesFor === undefined) return declared;
    const key = typeof parameters === 'object' && parameters !== null ? (parameters as object) : null;
    const known = key === null ? undefined : readByParameters.get(key);
    if (known !== undefined) return known;
    const read = new Set<string>(seriesFor.call(rule, parameters));
    for (const series of read) {
      if (!declared.has(series)) throw configurationError(`rule ${rule.id}`, `seriesFor(parameters) returned ${series}, which series does not declare`);
    }
    if (key !== null) readByParameters.set(key, read);
    return read;
  };
  function aggregates(this: unknown, context: RulePlanContext<P>): readonly AggregateNeed[] {
    const needs = plan.call(this, context);
    if (needs.length === 0) return needs;
    const read = readable(context.parameters);
    for (let i = 0; i < needs.length; i++) {
      const need = needs[i] as AggregateNeed;
      if (!read.has(need.series)) {
        const source = seriesFor === undefined ? 'series' : 'seriesFor(parameters)';
        throw configurationError(
          `rule ${rule.id}`,
          `aggregates planned need ${i} (${need.fn}) on series ${String(need.series)}, which ${source} does not declare (it declares ${[...read].join(', ') || 'none'})`,
        );
      }
    }
    return needs;
  }
  if (isPlainObject(rule)) return { ...rule, aggregates };
  return Object.create(rule as object, { aggregates: { value: aggregates, enumerable: true } }) as RuleDefinition<P>;
}

/**
 * What {@link defineUserRule} takes: a {@link UserRuleDefinition} whose parameters are typed by its
 * `parametersSchema`, in which `type`, `labels` (default none) and `defaultCasePriority` (default
 * `P1`) may be left out.
 */
export type UserRuleSpec<S extends TSchema> = Omit<UserRuleDefinition<Static<S>>, 'type' | 'parametersSchema' | 'labels' | 'defaultCasePriority'> & {
  readonly type?: 'USER';
  /** TypeBox object schema (with titles and descriptions) of the instance `parameters`. */
  readonly parametersSchema: S;
  readonly labels?: readonly RuleLabel[];
  readonly defaultCasePriority?: UserRuleDefinition['defaultCasePriority'];
};

/**
 * Declares a user rule (`type: 'USER'`): run on user creation and on every user event against the
 * user after the change and before it (`check({ user, previousUser, parameters })`), never on a
 * transaction. Fills in the defaults of {@link UserRuleSpec} and checks the declaration (see
 * {@link assertUserRuleDeclaration}).
 *
 * @throws TxmonError `INVALID_CONFIGURATION` naming the rule and the field when the declaration is wrong.
 * @example
 * ```ts
 * export const minors = defineUserRule({
 *   id: 'ACME-U1',
 *   name: 'Consumer without a date of birth',
 *   description: 'A consumer user without a date of birth.',
 *   descriptionTemplate: 'User {{userId}} has no date of birth.',
 *   parametersSchema: Type.Object({}, { additionalProperties: false }),
 *   defaultParameters: {},
 *   defaultAction: 'FLAG',
 *   defaultNature: 'AML',
 *   checksFor: ['User details'],
 *   types: ['KYC'],
 *   typologies: [],
 *   check: ({ user }) => (user.type === 'CONSUMER' && (user.profile.userDetails as { dateOfBirth?: string } | undefined)?.dateOfBirth === undefined ? { vars: { userId: user.userId } } : null),
 * });
 * ```
 */
export function defineUserRule<S extends TSchema>(spec: UserRuleSpec<S>): UserRuleDefinition<Static<S>> {
  const rule: UserRuleDefinition<Static<S>> = {
    ...spec,
    type: 'USER',
    labels: spec.labels ?? NO_LABELS,
    defaultCasePriority: spec.defaultCasePriority ?? 'P1',
  };
  assertUserRuleDeclaration(rule, 'defineUserRule', { schema: isDevelopment() });
  DEFINED.add(rule);
  return rule;
}

/** Whether `rule` is a user rule (`type: 'USER'`); a rule without `type` is a transaction rule. */
export function isUserRule(rule: { readonly type?: string }): rule is AnyUserRuleDefinition {
  return rule.type === 'USER';
}

/**
 * The rule a registry holds for a host's rule: checked as {@link defineRule} (or, for a user rule,
 * {@link defineUserRule}) checks, and a transaction rule wrapped in development.
 */
export function prepareHostRule(rule: unknown): AnyRule {
  const development = isDevelopment();
  if (typeof rule === 'object' && rule !== null && isUserRule(rule as { type?: string })) {
    assertUserRuleDeclaration(rule, 'createEngine', { schema: development });
    return rule;
  }
  assertRuleDeclaration(rule, 'createEngine', { schema: development });
  return isDefinedRule(rule) || !development ? rule : withDeclaredSeriesCheck(rule);
}

/** A short prefix for the need names of rule `id` (`R-27` → `r27`): keeps rules' needs apart in logs. */
export function needNamePrefix(id: string): string {
  return id.toLowerCase().replace('-', '');
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value.trim().length > 0;
}

function isOneOf<T extends string>(value: unknown, values: readonly T[]): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}
