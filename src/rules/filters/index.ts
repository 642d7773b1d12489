/**
 * Rule-instance filters (docs/wire-format.md#filters).
 *
 * `filters` is a flat object keyed by filter name (schema: `RuleFiltersSchema` in `src/domain`).
 * Every key whose value is not empty (`undefined`, `[]`, `{}`, `''`, or an object whose members are
 * all empty) is a filter, and all filters must pass (AND). Three groups:
 * - transaction filters and user filters decide whether an instance runs for a transaction and
 *   which sides it may hit ({@link compileRuleFilters}, `compile.ts`);
 * - historical filters restrict which past transactions count in the instance's windowed
 *   aggregates ({@link compileHistoricalFilters}, `historical.ts`).
 *
 * {@link validateRuleFilters} (`validate.ts`) checks them first. The engine compiles each
 * instance's filters once and keeps the compiled functions.
 */
export { validateRuleFilters } from './validate.js';
export {
  compileRuleFilters,
  compileUserFilters,
  evaluateRuleFilters,
  hasActiveFilters,
  whitelistListIds,
  type CompiledRuleFilters,
  type FilterDecision,
  type RuleFilterContext,
} from './compile.js';
export { compileHistoricalFilters, filterIdOf, type CompiledHistoricalFilters } from './historical.js';
