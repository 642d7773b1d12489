import type { RuleInstance, RuleInstanceRepository, StoredRuleInstance, TransactionOutcome } from '../../engine/repositories.js';
import { measureJsonSize } from '../../validation/index.js';
import type { MemoryAuditLog } from './audit.js';
import { RECORD_OVERHEAD, type ByteBudget } from './budget.js';

/** Rule instances in memory, with their run and hit counters. */
export interface MemoryRuleInstances {
  readonly repository: RuleInstanceRepository;
  /** Adds an outcome's runs and hits to the counters of the instances that still exist. */
  addCounters(counters: readonly TransactionOutcome['counters'][number][]): void;
}

export function createMemoryRuleInstances(budget: ByteBudget, audit: MemoryAuditLog): MemoryRuleInstances {
  const instances = new Map<string, StoredRuleInstance>();
  const counters = new Map<string, { runs: number; hits: number }>();
  /** Every version of every instance ever put, by id, newest last; kept when the instance goes. */
  const versions = new Map<string, StoredRuleInstance['instance'][]>();
  let revision = 0;
  let listCache: RuleInstance[] | null = null;

  function withCounters(stored: StoredRuleInstance): RuleInstance {
    const c = counters.get(stored.instance.id);
    return { ...stored.instance, runCount: c?.runs ?? 0, hitCount: c?.hits ?? 0 } as RuleInstance;
  }

  function addCounters(added: readonly TransactionOutcome['counters'][number][]): void {
    for (const c of added) {
      const cur = counters.get(c.instanceId);
      if (cur) {
        cur.runs += c.runs;
        cur.hits += c.hits;
      } else if (instances.has(c.instanceId)) {
        counters.set(c.instanceId, { runs: c.runs, hits: c.hits });
      }
    }
    if (added.length > 0) listCache = null;
  }

  const repository: RuleInstanceRepository = {
    async listRuleInstances() {
      if (!listCache) listCache = [...instances.values()].map(withCounters);
      return listCache;
    },
    async getRuleInstance(id) {
      const s = instances.get(id);
      return s ? withCounters(s) : null;
    },
    async getStoredRuleInstance(id) {
      return instances.get(id) ?? null;
    },
    async putRuleInstance(stored, writes) {
      const previous = instances.get(stored.instance.id);
      const history = versions.get(stored.instance.id) ?? [];
      const at = history.findIndex((v) => v.version === stored.instance.version);
      // The instance, its version and the audit entries: reserved together before anything changes.
      const size = RECORD_OVERHEAD + measureJsonSize(stored.instance);
      budget.reserve(2 * size + audit.sizeOf(writes));
      if (previous) budget.release(RECORD_OVERHEAD + measureJsonSize(previous.instance));
      if (at >= 0) budget.release(RECORD_OVERHEAD + measureJsonSize(history[at]));
      instances.set(stored.instance.id, stored);
      if (at >= 0) history[at] = stored.instance;
      else {
        history.push(stored.instance);
        history.sort((a, b) => a.version - b.version);
      }
      versions.set(stored.instance.id, history);
      audit.appendReserved(writes);
      if (!counters.has(stored.instance.id)) counters.set(stored.instance.id, { runs: 0, hits: 0 });
      revision += 1;
      listCache = null;
    },
    async deleteRuleInstance(id, writes) {
      const previous = instances.get(id);
      if (previous) budget.reserve(audit.sizeOf(writes));
      const existed = instances.delete(id);
      if (existed) audit.appendReserved(writes);
      if (previous) budget.release(RECORD_OVERHEAD + measureJsonSize(previous.instance));
      if (existed) {
        counters.delete(id);
        revision += 1;
        listCache = null;
      }
      return existed;
    },
    async getRevision() {
      return revision;
    },
    async listRuleInstanceVersions(id) {
      return [...(versions.get(id) ?? [])].reverse();
    },
  };
  return { repository, addCounters };
}
