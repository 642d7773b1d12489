/**
 * Validation of rule-instance `filters`: the schema (`RuleFiltersSchema` in `src/domain`), then the
 * checks that hold across fields (a range whose bounds are in the wrong order or empty).
 */
import { RuleFiltersSchema, toScaled, type Age, type RuleFilters } from '../../domain/index.js';
import { isJsonObject } from '../../domain/json.js';
import { invalidRequest, type ErrorDetail } from '../../errors.js';
import { appendPointer, assertSafeJson, collectSchemaErrors } from '../../validation/index.js';
import { toMinuteOfDay } from './compile.js';

/** Path prefix of every validation detail: filters live under `/filters` of a rule-instance request. */
const BASE_PATH = '/filters';

/** Age in comparable units: months for month/year, days for day. */
function ageBound(age: Age): { unit: 'day' | 'month'; value: number } {
  if (age.granularity === 'day') return { unit: 'day', value: age.units };
  return { unit: 'month', value: age.granularity === 'year' ? age.units * 12 : age.units };
}

/** Checks that hold across fields, on a value that already matches the schema. */
function collectSemanticErrors(filters: RuleFilters): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const key of ['transactionAmountRange', 'transactionAmountRangeHistorical'] as const) {
    const range = filters[key];
    if (range === undefined) continue;
    for (const currency of Object.keys(range)) {
      const bounds = range[currency];
      if (bounds?.min !== undefined && bounds.max !== undefined && toScaled(bounds.min) > toScaled(bounds.max)) {
        details.push({ path: `${appendPointer(`${BASE_PATH}/${key}`, currency)}/min`, code: 'range', message: 'must not be greater than max' });
      }
    }
  }
  for (const key of ['transactionTimeRange24hr', 'transactionTimeRangeHistorical24hr'] as const) {
    const time = filters[key];
    if (time?.startTime !== undefined && time.endTime !== undefined && toMinuteOfDay(time.startTime) === toMinuteOfDay(time.endTime)) {
      details.push({ path: `${BASE_PATH}/${key}/endTime`, code: 'range', message: 'must differ from startTime (the range would be empty)' });
    }
  }
  for (const key of ['userAgeRange', 'userCreationAgeRange'] as const) {
    const ages = filters[key];
    if (ages?.minAge === undefined || ages.maxAge === undefined) continue;
    const min = ageBound(ages.minAge);
    const max = ageBound(ages.maxAge);
    // Days and months are not comparable (months differ in length); such a pair is accepted.
    if (min.unit === max.unit && min.value > max.value) {
      details.push({ path: `${BASE_PATH}/${key}/minAge`, code: 'range', message: 'must not be greater than maxAge' });
    }
  }
  return details;
}

/**
 * Validates rule-instance `filters` against {@link RuleFiltersSchema}, then:
 * - `min > max` in an amount range, a time range whose start equals its end, or
 *   `minAge > maxAge` (same unit family) → code `range`.
 *
 * Empty values (`[]`, `{}`, `''`) are accepted everywhere and mean "no filter".
 *
 * @throws TxmonError `INVALID_FILTERS` (400) with details whose paths start with `/filters`,
 *   e.g. `/filters/foo` (code `additionalProperties`) for an unknown key. Never echoes values.
 */
export function validateRuleFilters(filters: unknown): asserts filters is RuleFilters {
  assertSafeJson(filters, { basePath: BASE_PATH, code: 'INVALID_FILTERS', what: 'filters' });
  const details = collectSchemaErrors(RuleFiltersSchema, filters, BASE_PATH);
  if (isJsonObject(filters)) {
    if (details.length === 0) details.push(...collectSemanticErrors(filters as RuleFilters));
  }
  if (details.length === 0) return;
  throw invalidRequest(details, 'filters', 'INVALID_FILTERS');
}
