/**
 * What the instance-set and series-catalogue tests share: instance requests over rolling windows
 * and readers of a result's hits.
 */
import { compileHistoricalFilters } from '../../../src/internals.js';

export const WINDOW = { units: 30, granularity: 'day', rollingBasis: true };
export const R30 = { ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' } };

/** The result of a call, or the code of the error it threw. */
export async function attempt<T>(fn: () => Promise<T>): Promise<T | string> {
  try {
    return await fn();
  } catch (error) {
    return String((error as { code?: string }).code ?? error);
  }
}

/** The sorted rule ids of a result's hits (an error code as is). */
export function hitIds(r: unknown): string[] {
  if (typeof r === 'string') return [r];
  return (r as { hitRules: { ruleId: string }[] }).hitRules.map((h) => h.ruleId).sort();
}

/** The rule ids of a result's hits, in result order. */
export const hitRuleIds = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.map((h) => h.ruleId);

/** The hit directions of rule `id` in a result. */
export const ruleHits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** R-30 on the sender over a rolling day: more than `limit` sent transactions (this one included) hit. */
export function velocity(limit = 1, extra: Record<string, unknown> = {}) {
  return {
    ruleId: 'R-30',
    parameters: { transactionsLimit: limit, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' },
    ...extra,
  };
}

/** {@link velocity} with historical (or other) filters. */
export function filtered(filters: Record<string, unknown>, extra: Record<string, unknown> = {}, limit = 1) {
  return velocity(limit, { filters, ...extra });
}

export const TRANSFERS = { transactionTypesHistorical: ['TRANSFER'] };
export const derivedName = (base: string, filters: Record<string, unknown>) => `${base}~${compileHistoricalFilters(filters)?.id as string}`;
