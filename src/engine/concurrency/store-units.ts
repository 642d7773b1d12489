/**
 * Units of work on a store shared by several engine processes: a transaction or an event runs as
 * one unit holding its transaction's and users' keys exclusively and the rule instances' key
 * shared; a rule-instance write holds the rule instances' key exclusively. On a store used by one
 * process only, the engine's own locks are enough and work runs directly.
 */
import type { Repositories, UnitPrefetch } from '../repositories.js';

/** The key every transaction unit holds shared and every rule-instance write holds exclusively. */
export const RULE_INSTANCES_KEY = 'txmon:rule-instances';

/**
 * Runs `work` on the store: as an exclusive unit of `keys` when the store is shared across
 * processes, else directly. `prefetch`: what `work` reads first (see `ExclusiveUnitOptions`).
 */
export function inStoreUnit<T>(
  repositories: Repositories,
  keys: readonly string[],
  work: (repositories: Repositories) => Promise<T>,
  sharedKeys: readonly string[] = [],
  prefetch?: UnitPrefetch,
): Promise<T> {
  if (!repositories.flags.sharedAcrossProcesses || repositories.runExclusive === undefined) return work(repositories);
  return repositories.runExclusive(keys, work, prefetch === undefined ? { sharedKeys } : { sharedKeys, prefetch });
}
