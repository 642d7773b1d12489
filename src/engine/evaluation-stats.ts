/**
 * Counters of one engine's evaluations that a metrics exporter reads: the rule runs that could not
 * be evaluated (docs/wire-format.md#not-evaluated), by reason and by rule instance. In-process
 * and since the engine was created — the stored `runCount`/`hitCount` of an instance are the
 * durable counters; these are for monitoring the process.
 */
import { NOT_EVALUATED_REASONS, type NotEvaluatedReason, type ResultWarning } from '../domain/index.js';

/** Most rule instances counted one by one; runs of further instances count in `otherInstances`. */
export const MAX_COUNTED_INSTANCES = 10_000;

/** What {@link Engine.evaluationStats} answers (a snapshot, the host's to keep). */
export interface EvaluationStats {
  /**
   * Rule runs that could not be evaluated since the engine was created, counted once per
   * evaluation of a transaction or event — stored or, with `strict`, refused; shadow instances
   * included. An evaluation retried after a concurrent update counts again.
   */
  readonly notEvaluated: {
    readonly total: number;
    readonly byReason: Readonly<Record<NotEvaluatedReason, number>>;
    /** By rule instance id (at most {@link MAX_COUNTED_INSTANCES} ids). */
    readonly byInstance: Readonly<Record<string, number>>;
    /** Runs of instances beyond the first {@link MAX_COUNTED_INSTANCES} ids seen. */
    readonly otherInstances: number;
  };
}

/** The counters of one engine. */
export interface EvaluationCounters {
  /** Counts the warnings of one evaluation. */
  record(warnings: readonly ResultWarning[]): void;
  snapshot(): EvaluationStats;
}

/** Counters starting at zero. */
export function createEvaluationCounters(): EvaluationCounters {
  let total = 0;
  let otherInstances = 0;
  const byReason = Object.fromEntries(NOT_EVALUATED_REASONS.map((r) => [r, 0])) as Record<NotEvaluatedReason, number>;
  const byInstance = new Map<string, number>();
  return {
    record(warnings) {
      for (const w of warnings) {
        if (w.code !== 'RULE_NOT_EVALUATED') continue;
        total += 1;
        byReason[w.notEvaluated.reason] += 1;
        const seen = byInstance.get(w.ruleInstanceId);
        if (seen !== undefined) byInstance.set(w.ruleInstanceId, seen + 1);
        else if (byInstance.size < MAX_COUNTED_INSTANCES) byInstance.set(w.ruleInstanceId, 1);
        else otherInstances += 1;
      }
    },
    snapshot() {
      return { notEvaluated: { total, byReason: { ...byReason }, byInstance: Object.fromEntries(byInstance), otherInstances } };
    },
  };
}
