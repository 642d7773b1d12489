/**
 * The active rule instances of one engine, prepared once per revision of the stored instances, and
 * the writes that change them. A write runs under the writer gate: it fills the series the new set
 * of instances will read before it stores the instance, so no transaction is evaluated against a
 * half-filled series.
 */
import type { RuleInstance } from '../../domain/entities.js';
import { cloneJson } from '../../domain/json.js';
import { limitExceeded } from '../../errors.js';
import type { AuditWrites, Repositories, StoredRuleInstance } from '../repositories.js';
import { whitelistListIds } from '../../rules/filters/index.js';
import type { DerivedSeries, SeriesName } from '../../rules/series.js';
import { RULE_INSTANCES_KEY, inStoreUnit } from '../concurrency/store-units.js';
import type { WriterGate } from '../concurrency/writer-gate.js';
import { createEvaluatorCache, type EvaluatorCache, type PreparedInstance, type PreparedUserInstance } from '../pipeline/index.js';
import type { EngineLimits } from '../limits.js';
import { CUSTOM_RULE_ID } from './build-rule-instance.js';
import { prepareActiveInstances, type PrepareContext } from './prepare-instance.js';
import { retentionHorizons, seriesReach, seriesToRefill } from './lookback.js';
import type { SeriesCatalog } from './series-catalog.js';
import type { Clock, SeriesPruneResult } from '../types.js';

/** The active instances as the engine runs them, for one revision of the stored instances. */
export interface ActiveInstances {
  readonly revision: number;
  readonly active: readonly PreparedInstance[];
  /** The active instances of user rules: run on user creation and user events only. */
  readonly users: readonly PreparedUserInstance[];
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
  /**
   * The active instances of the revision stored in `repositories` (default: the engine's), prepared
   * once per revision; concurrent callers share one refresh. Inside a unit of work, pass the unit's
   * repositories, so the revision read is the one the unit sees.
   */
  active(repositories?: Repositories): Promise<ActiveInstances>;
  /**
   * Creates or replaces an instance under the writer gate: `build` makes the stored instance (it may
   * read the stored one); the counts are checked, the series filled, then it is stored. Returns the
   * stored instance with its counters.
   */
  write(build: (repositories: Repositories) => Promise<StoredRuleInstance> | StoredRuleInstance, audit?: InstanceAudit): Promise<RuleInstance>;
  /**
   * Makes instance `id` match a wanted one under the writer gate, as one exclusive unit of a shared
   * store (so several processes ensuring the same instance take turns): `build` gets the stored
   * instance (`null`: none) and returns what to store, or `null` to leave it as it is. Returns the
   * stored instance with its counters and whether it was written.
   */
  ensure(
    id: string,
    build: (existing: StoredRuleInstance | null, repositories: Repositories) => Promise<StoredRuleInstance | null> | StoredRuleInstance | null,
    audit?: InstanceAudit,
  ): Promise<{ instance: RuleInstance; written: boolean }>;
  /** Deletes an instance under the writer gate; whether it existed. */
  remove(id: string, audit?: InstanceAudit): Promise<boolean>;
  /**
   * Drops the series entries no active instance can read any more (see `retentionHorizons`),
   * beside transactions in flight; instance writes wait for it. `dryRun`: only computes the horizons.
   */
  prune(dryRun: boolean): Promise<SeriesPruneResult>;
  /** Entries were written without their values: a later value reader needs a refill first. */
  noteEntriesWithoutValues(): void;
}

/**
 * The audit entries and outbox messages of an instance write or delete, from the instance before and
 * after it (`null`: absent), without counters: stored in the same atomic step as the instance.
 */
export type InstanceAudit = (before: StoredRuleInstance['instance'] | null, after: StoredRuleInstance['instance'] | null) => AuditWrites;

/** The instance without its counters. */
function withoutCounters(instance: RuleInstance): StoredRuleInstance['instance'] {
  const { runCount: _runs, hitCount: _hits, ...rest } = instance;
  return rest;
}

/** What {@link createInstanceSet} runs on. */
export interface InstanceSetContext extends PrepareContext {
  readonly repositories: Repositories;
  readonly catalog: SeriesCatalog;
  readonly gate: WriterGate;
  readonly limits: EngineLimits;
  readonly maintainedSeries: readonly SeriesName[];
  readonly clock: Clock;
  /** How much older than the clock a transaction may be and still see exact windows after a prune. */
  readonly lateArrivalMs: number;
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
  async function refresh(revision: number, repos: Repositories): Promise<ActiveInstances> {
    // Another engine may have written entries without values meanwhile: a value reader refills.
    if (revision !== ownRevision) catalog.distrustValues();
    const { active, users, wanted } = prepareActiveInstances(await repos.ruleInstances.listRuleInstances(), context.maintainedSeries, context);
    await catalog.onRefresh(wanted, repos);
    const kept = catalog.kept();
    const whitelistIds = [...new Set(active.flatMap((p) => whitelistListIds(p.instance.filters)))];
    // On a shared store every entry carries its values (see `RepositoryFlags.sharedAcrossProcesses`).
    const values = wanted.values || repos.flags.sharedAcrossProcesses;
    const state: ActiveInstances = { revision, active, users, series: kept.bases, derived: kept.derived, whitelistIds, values, cache: createEvaluatorCache() };
    prepared = state;
    return state;
  }

  async function active(repos: Repositories = repositories): Promise<ActiveInstances> {
    const revision = await repos.ruleInstances.getRevision();
    if (prepared && prepared.revision === revision) return prepared;
    // Outside a unit, concurrent callers share one refresh; inside one, the unit's view is used.
    if (repos !== repositories) return refresh(revision, repos);
    refreshing ??= refresh(revision, repos).finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  /**
   * Runs an instance write under the gate — as one exclusive unit of a shared store, holding the
   * rule instances' key — then refreshes (best effort: a failing refresh is retried by the next call).
   */
  async function exclusive<T>(fn: (repos: Repositories) => Promise<T>): Promise<T> {
    return gate.exclusive(async () => {
      const result = await inStoreUnit(repositories, [RULE_INSTANCES_KEY], fn);
      await active().catch(() => undefined);
      return result;
    });
  }

  /** Refills the series the `active` instances read further back than a prune left of them. */
  async function refillPruned(active: readonly PreparedInstance[], repos: Repositories): Promise<void> {
    const retained = await repos.aggregates.getRetentionHorizons();
    if (retained.size === 0) return;
    const stale = seriesToRefill(seriesReach(active), retained, context.clock.now(), context.lateArrivalMs);
    if (stale.length > 0) await catalog.refill(new Set(stale), repos);
  }

  function prune(dryRun: boolean): Promise<SeriesPruneResult> {
    const work = async (repos: Repositories): Promise<SeriesPruneResult> => {
      const state = await active(repos);
      const kept = catalog.kept();
      const horizons = retentionHorizons({
        reach: seriesReach(state.active),
        held: kept,
        maintained: context.maintainedSeries,
        now: context.clock.now(),
        lateArrivalMs: context.lateArrivalMs,
      });
      const removed = dryRun ? 0 : await repos.aggregates.pruneSeries(horizons);
      const names = [...kept.bases, ...kept.derived.map((d) => d.name)].sort();
      return { dryRun, removed, series: names.map((name) => ({ name, prunedBefore: horizons.get(name) ?? null })) };
    };
    // Beside transactions (readers), never beside an instance write: one could start reading further back.
    return gate.shared(() => inStoreUnit(repositories, [], work, [RULE_INSTANCES_KEY]));
  }

  /** Stores a built instance in `repos` (an exclusive unit), the series it reads filled first. */
  async function put(repos: Repositories, stored: StoredRuleInstance, audit: InstanceAudit | undefined): Promise<RuleInstance> {
    const id = stored.instance.id;
    const list = await repos.ruleInstances.listRuleInstances();
    const current = list.find((i) => i.id === id);
    assertInstanceCounts(list, stored.instance, context.limits);
    const written: RuleInstance = { ...stored.instance, runCount: current?.runCount ?? 0, hitCount: current?.hitCount ?? 0 };
    const after = current ? list.map((i) => (i.id === id ? written : i)) : [...list, written];
    const wantedBefore = prepareActiveInstances(list, context.maintainedSeries, context).wanted;
    const next = prepareActiveInstances(after, context.maintainedSeries, context);
    await catalog.beforeWrite(wantedBefore, next.wanted, repos);
    await refillPruned(next.active, repos);
    try {
      const writes = audit?.(current === undefined ? null : withoutCounters(current), stored.instance);
      await repos.ruleInstances.putRuleInstance(stored, writes ?? {});
    } catch (error) {
      // The series were filled for instances that were not stored: the next call re-prepares
      // from the stored instances (dropping series they do not read), and trusts no values.
      prepared = null;
      catalog.distrustValues();
      throw error;
    }
    ownRevision = await repos.ruleInstances.getRevision();
    return cloneJson((await repos.ruleInstances.getRuleInstance(id)) as RuleInstance);
  }

  return {
    active,
    prune,
    write(build, audit) {
      return exclusive(async (repos) => {
        // Another engine on the same repositories may have changed the instances (and dropped
        // series this engine still believes it holds).
        await active(repos);
        return put(repos, await build(repos), audit);
      });
    },
    ensure(id, build, audit) {
      return exclusive(async (repos) => {
        await active(repos);
        const stored = await build(await repos.ruleInstances.getStoredRuleInstance(id), repos);
        if (stored === null) return { instance: cloneJson((await repos.ruleInstances.getRuleInstance(id)) as RuleInstance), written: false };
        return { instance: await put(repos, stored, audit), written: true };
      });
    },
    remove(id, audit) {
      return exclusive(async (repos) => {
        const list = await repos.ruleInstances.listRuleInstances();
        const current = list.find((i) => i.id === id);
        const writes = current === undefined ? undefined : audit?.(withoutCounters(current), null);
        const existed = await repos.ruleInstances.deleteRuleInstance(id, writes ?? {});
        if (existed) {
          const before = prepareActiveInstances(list, context.maintainedSeries, context).wanted;
          const after = prepareActiveInstances(
            list.filter((i) => i.id !== id),
            context.maintainedSeries,
            context,
          ).wanted;
          // On a shared store a derived series no instance reads is dropped with the instance.
          if (repos.flags.sharedAcrossProcesses) await catalog.beforeWrite(before, after, repos);
          ownRevision = await repos.ruleInstances.getRevision();
        }
        return existed;
      });
    },
    noteEntriesWithoutValues() {
      catalog.distrustValues();
    },
  };
}
