/**
 * Why a rule could not be evaluated on a transaction — an amount without a rate, a custom rule's
 * logic that failed — and the one place such a failure is noted while a rule's check runs.
 *
 * A check that cannot decide does not hit; without a note that would be a false negative no one
 * sees. The money kits and the logic runtime note the failure here; the engine takes the note
 * after each check (one read when there is none) and marks the executed rule
 * (`executedRules[i].notEvaluated`, docs/wire-format.md#not-evaluated). Checks are synchronous,
 * so a note taken right after a check belongs to that check.
 */
import type { RuleNotEvaluated } from './schemas/results.js';

let pending: RuleNotEvaluated | null = null;

/**
 * Notes that the running check cannot convert an amount from `currency` into `to` (no rate). The
 * first note of a check is kept. Called by the money kits where a conversion finds no rate.
 */
export function noteNoRate(currency: string, to: string): void {
  pending ??= { reason: 'NO_RATE', currency, to };
}

/** Notes that the running check's custom logic failed (`LOGIC_ERROR` or `LOGIC_WORK_BUDGET`). */
export function noteLogicFailure(reason: 'LOGIC_ERROR' | 'LOGIC_WORK_BUDGET'): void {
  pending ??= { reason };
}

/**
 * The note of the check that just ran, or `null`, and clears it: what the engine calls after each
 * check (and before a run of checks, to drop notes made outside one).
 */
export function takeNotEvaluated(): RuleNotEvaluated | null {
  const note = pending;
  if (note !== null) pending = null;
  return note;
}
