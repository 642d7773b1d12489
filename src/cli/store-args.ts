/**
 * The store and tenants of a one-shot maintenance command (`txmon prune`, `txmon verify-log`): the
 * `--store` option (or `TXMON_STORE`, or the default PGlite directory), a durable one only, and the
 * tenants of `--tenants`; and the store opened for work that may run long.
 */
import { readTenants } from './serve-args.js';
import { DEFAULT_STORE, DEFAULT_STORE_SETTINGS, StoreSpecError, openStores, parseStore, storeOfEnvironment, type StoreSpec } from './stores.js';
import { UsageError } from './usage.js';

/** A durable store and the tenants to work on. */
export interface DurableStoreArgs {
  readonly store: StoreSpec;
  readonly tenantIds: readonly string[];
  /** No tenants file: the one tenant `default`, in the store itself (no schema or subdirectory). */
  readonly single: boolean;
}

/**
 * The store and tenants named by `--store` and `--tenants`.
 * @throws UsageError for a store that cannot be parsed, or a memory store (`memoryRefusal` says why)
 */
export function durableStoreArgs(
  values: { readonly store?: string | undefined; readonly tenants?: string | undefined },
  env: NodeJS.ProcessEnv,
  memoryRefusal: string,
): DurableStoreArgs {
  let store: StoreSpec;
  try {
    store = parseStore(values.store ?? storeOfEnvironment(env) ?? DEFAULT_STORE);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (store.kind === 'memory') throw new UsageError(memoryRefusal);
  const tenantIds = values.tenants === undefined ? ['default'] : readTenants(values.tenants).map((t) => t.id);
  return { store, tenantIds, single: values.tenants === undefined };
}

/**
 * Opens the stores of `args` for one long statement or many: each statement bounded by an hour,
 * not by a request's bound.
 * @throws UsageError when the store's package is missing; DirectoryLockedError when a server owns
 *   the PGlite directory; StoreStartError when the database cannot be reached
 */
export async function openForMaintenance(args: DurableStoreArgs): Promise<Awaited<ReturnType<typeof openStores>>> {
  try {
    const settings = { ...DEFAULT_STORE_SETTINGS, statementTimeoutMs: 3_600_000 };
    return await openStores(args.store, args.tenantIds, { single: args.single, maxStoredBytes: 1, settings });
  } catch (error) {
    throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
  }
}
