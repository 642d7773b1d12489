/**
 * A property check of a rule's declaration: that the series and flags a rule declares cover what
 * its `aggregates` plans, for every parameter set and transaction it is given. The engine keeps
 * only the series an active instance declares, so a rule whose needs read an undeclared series
 * would count nothing there and silently never hit.
 */
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import type { Transaction } from '../domain/index.js';
import { assertRuleDeclaration } from '../rules/define-rule.js';
import type { AggregateNeed, RuleDefinition } from '../rules/types.js';
import { collectSchemaErrors } from '../validation/index.js';
import { transactionArbitrary } from './arbitraries.js';

/** Options of {@link checkRuleDeclaration}. */
export interface RuleDeclarationCheckOptions<P> {
  /**
   * Parameter sets to plan with. Default: the rule's `defaultParameters` only. Give one that varies
   * what chooses the series and the needs (side checks, optional history counts …); every set it
   * draws must be valid parameters of the rule.
   */
  readonly parameters?: Arbitrary<P>;
  /** Transactions to plan for. Default: `transactionArbitrary()`. */
  readonly transactions?: Arbitrary<Transaction>;
  /** Parameter sets and transactions tried. Default 100. */
  readonly numRuns?: number;
  /** fast-check seed, to replay a failure (its report prints the seed). Default: fast-check's global setting. */
  readonly seed?: number;
}

/** Aggregate functions that read entry values (the `field` of a need). */
const VALUE_FUNCTIONS: ReadonlySet<string> = new Set(['distinct', 'countIn', 'sumIn']);

/**
 * Checks a rule's declaration against what it does, for random parameters and transactions:
 * - the declaration itself, as `defineRule` checks it (ids, texts, known values, a schema that
 *   accepts the defaults, known series …);
 * - every parameter set drawn is valid (the schema and `validateParameters` accept it);
 * - `seriesFor(parameters)` lies within `series`;
 * - every need `aggregates` plans names a series that `seriesFor(parameters)` returns (`series`
 *   when the rule has no `seriesFor`), has a non-empty key, and a name no other need of the plan has;
 * - with `readsEntryValues: false`, no need reads entry values (`distinct`, `countIn`, `sumIn`,
 *   or a `field`).
 *
 * Runs with any test runner: it throws on the first failure, with fast-check's report (the seed,
 * and the parameters and transaction that broke the rule).
 *
 * @throws Error naming the rule and the broken promise; TxmonError `INVALID_CONFIGURATION` when the
 *   declaration itself is wrong.
 * @example
 * ```ts
 * import fc from 'fast-check';
 * import { checkRuleDeclaration } from 'txmon/testing';
 *
 * it('declares the series it reads', () => {
 *   checkRuleDeclaration(myRule, {
 *     parameters: fc.record({ limit: fc.nat(10), checkSender: fc.constantFrom('sending', 'all', 'none') }),
 *   });
 * });
 * ```
 */
export function checkRuleDeclaration<P>(rule: RuleDefinition<P>, options: RuleDeclarationCheckOptions<P> = {}): void {
  assertRuleDeclaration(rule, 'checkRuleDeclaration', { schema: true });
  const parameters = options.parameters ?? fc.constant(rule.defaultParameters);
  const transactions = options.transactions ?? transactionArbitrary();
  const fail = (problem: string): never => {
    throw new Error(`checkRuleDeclaration(${rule.id}): ${problem}`);
  };
  const property = fc.property(parameters, transactions, (p, transaction) => {
    const refused = collectSchemaErrors(rule.parametersSchema, p, '/parameters')[0] ?? rule.validateParameters?.(p)[0];
    if (refused !== undefined) fail(`the parameters arbitrary drew parameters the rule refuses (${refused.path || '/parameters'} ${refused.message})`);
    const declared = rule.series as readonly string[];
    const read: readonly string[] = rule.seriesFor === undefined ? declared : rule.seriesFor(p);
    for (const series of read) {
      if (!declared.includes(series)) fail(`seriesFor(parameters) returned ${series}, which series does not declare (${declared.join(', ') || 'none'})`);
    }
    const needs: readonly AggregateNeed[] = rule.aggregates?.({ transaction, parameters: p }) ?? [];
    const names = new Set<string>();
    needs.forEach((need, i) => {
      const which = `need ${i} (${need.fn})`;
      if (!read.includes(need.series)) {
        const source = rule.seriesFor === undefined ? 'series' : 'seriesFor(parameters)';
        fail(
          `aggregates planned ${which} on series ${String(need.series)}, which ${source} does not declare (${read.join(', ') || 'none'}): the engine would not keep it, and the need would count nothing`,
        );
      }
      if (typeof need.key !== 'string' || need.key === '') fail(`aggregates planned ${which} without a key`);
      if (names.has(need.name)) fail(`aggregates planned two needs named ${JSON.stringify(need.name)}: the check would read one value for both`);
      names.add(need.name);
      if (rule.readsEntryValues === false && (VALUE_FUNCTIONS.has(need.fn) || need.field !== undefined)) {
        fail(
          `aggregates planned ${which}, which reads entry values, but the rule declares readsEntryValues: false (the engine may keep its series without them)`,
        );
      }
    });
  });
  try {
    fc.assert(property, { numRuns: options.numRuns ?? 100, ...(options.seed === undefined ? {} : { seed: options.seed }) });
  } catch (error) {
    // fast-check's report names the seed and the counterexample; the broken promise leads.
    const cause = (error as { cause?: unknown }).cause;
    const reason = cause instanceof Error ? cause.message : undefined;
    if (reason === undefined || !(error instanceof Error) || error.message.includes(reason)) throw error;
    throw new Error(`${reason}\n${error.message}`, { cause });
  }
}
