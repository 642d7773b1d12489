/**
 * The active rule instances of one engine, prepared once per revision of the stored instances, and
 * the writes that change them. A write runs under the writer gate: it fills the series the new set
 * of instances will read before it stores the instance, so no transaction is evaluated against a
 * half-filled series.
 */
import type { RuleInstance } from '../../domain/entities.js';
import { cloneJson } from '../../domain/json.js';
import { limitExceeded } from '../../errors.js';
import type { Repositories, StoredRuleInstance } from '../../repositories/types.js';
import { whitelistListIds } from '../../rules/filters.js';
import type { DerivedSeries, SeriesName } from '../../rules/series.js';
import type { WriterGate } from '../concurrency/writer-gate.js';
import { createEvaluatorCache, type EvaluatorCache, type PreparedInstance } from '../pipeline/index.js';
import type { EngineLimits } from '../limits.js';
import { CUSTOM_RULE_ID } from './build-rule-instance.js';
import { prepareActiveInstances, type PrepareContext } from './prepare-instance.js';
import type { SeriesCatalog } from './series-catalog.js';

/** The active instances as the engine runs them, for one revision of the stored instances. */
export interface ActiveInstances {
  readonly revision: number;
  readonly active: readonly PreparedInstance[];
  /** The built-in series held: those the active instances read, plus the maintained ones. */
  readonly series: ReadonlySet<SeriesName>;
  /** The derived (filtered) series the active instances read. */
  readonly derived: readonly DerivedSeries[];
  /** Whitelist ids the active instances' `whitelistUsers.listIds` filters name. */
  readonly whitelistIds: readonly string[];
  /** Whether user-series entries carry their values (some active instance reads them). */
  readonly values: boolean;
  /** What the pipeline keeps between evaluations of these instances. */
  readonly cache: EvaluatorCache;
}

/** See {@link createInstanceSet}. */
export interface InstanceSet {
  /** The active instances of the stored revision (prepared once per revision; concurrent callers share one refresh). */
  active(): Promise<ActiveInstances>;
  /**
   * Creates or replaces an instance under the writer gate: `build` makes the stored instance (it may
   * read the stored one); the counts are checked, the series filled, then it is stored. Returns the
   * stored instance with its counters.
   */
  write(build: () => Promise<StoredRuleInstance> | StoredRuleInstance): Promise<RuleInstance>;
  /** Deletes an instance under the writer gate; whether it existed. */
  remove(id: string): Promise<boolean>;
  /** Entries were written without their values: a later value reader needs a refill first. */
  noteEntriesWithoutValues(): void;
}

/** What {@link createInstanceSet} runs on. */
export interface InstanceSetContext extends PrepareContext {
  readonly repositories: Repositories;
  readonly catalog: SeriesCatalog;
  readonly gate: WriterGate;
  readonly limits: EngineLimits;
  readonly maintainedSeries: readonly SeriesName[];
}

/** Refuses an instance write that would pass `maxRuleInstances` or `maxCustomLogicInstances`. */
function assertInstanceCounts(list: readonly RuleInstance[], next: StoredRuleInstance['instance'], limits: EngineLimits): void {
  const others = list.filter((i) => i.id !== next.id);
  if (others.length + 1 > limits.maxRuleInstances) throw limitExceeded('maxRuleInstances', limits.maxRuleInstances, 'the rule instances');
  if (next.ruleId === CUSTOM_RULE_ID && others.filter((i) => i.ruleId === CUSTOM_RULE_ID).length + 1 > limits.maxCustomLogicInstances) {
    throw limitExceeded('maxCustomLogicInstances', limits.maxCustomLogicInstances, 'the custom-logic instances', '/logic');
  }
}

/** The instance set of one engine. */
export function createInstanceSet(context: InstanceSetContext): InstanceSet {
  const { repositories, catalog, gate } = context;
  let prepared: ActiveInstances | null = null;
  let refreshing: Promise<ActiveInstances> | null = null;
  /** The revision this engine's own last instance write produced (−1: none yet). */
  let ownRevision = -1;

  /**
   * Prepares the active instances and brings the held series in line with what they read. This
   * engine's own writes fill before they store, so here a fill only happens when the instances
   * changed elsewhere (another engine on the same repositories) or after a restart.
   */
  async function refresh(revision: number): Promise<ActiveInstances> {
    // Another engine may have written entries without values meanwhile: a value reader refills.
    if (revision !== ownRevision) catalog.distrustValues();
    const { active, wanted } = prepareActiveInstances(await repositories.ruleInstances.list(), context.maintainedSeries, context);
    await catalog.drop(wanted);
    await catalog.fill(wanted);
    const kept = catalog.kept();
    const whitelistIds = [...new Set(active.flatMap((p) => whitelistListIds(p.instance.filters)))];
    const state: ActiveInstances = { revision, active, series: kept.bases, derived: kept.derived, whitelistIds, values: wanted.values, cache: createEvaluatorCache() };
    prepared = state;
    return state;
  }

  async function active(): Promise<ActiveInstances> {
    const revision = await repositories.ruleInstances.revision();
    if (prepared && prepared.revision === revision) return prepared;
    refreshing ??= refresh(revision).finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  /** Runs an instance write under the gate, then refreshes (best effort: a failing refresh is retried by the next call). */
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return gate.exclusive(async () => {
      const result = await fn();
      await active().catch(() => undefined);
      return result;
    });
  }

  return {
    active,
    write(build) {
      return exclusive(async () => {
        // Another engine on the same repositories may have changed the instances (and dropped
        // series this engine still believes it holds).
        await active();
        const stored = await build();
        const id = stored.instance.id;
        const list = await repositories.ruleInstances.list();
        const current = list.find((i) => i.id === id);
        assertInstanceCounts(list, stored.instance, context.limits);
        const next: RuleInstance = { ...stored.instance, runCount: current?.runCount ?? 0, hitCount: current?.hitCount ?? 0 };
        const after = current ? list.map((i) => (i.id === id ? next : i)) : [...list, next];
        await catalog.fill(prepareActiveInstances(after, context.maintainedSeries, context).wanted);
        try {
          await repositories.ruleInstances.put(stored);
        } catch (error) {
          // The series were filled for instances that were not stored: the next call re-prepares
          // from the stored instances (dropping series they do not read), and trusts no values.
          prepared = null;
          catalog.distrustValues();
          throw error;
        }
        ownRevision = await repositories.ruleInstances.revision();
        return cloneJson((await repositories.ruleInstances.get(id)) as RuleInstance);
      });
    },
    remove(id) {
      return exclusive(async () => {
        const existed = await repositories.ruleInstances.delete(id);
        if (existed) ownRevision = await repositories.ruleInstances.revision();
        return existed;
      });
    },
    noteEntriesWithoutValues() {
      catalog.distrustValues();
    },
  };
}
