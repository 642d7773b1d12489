/**
 * `txmon prune`: retention of windowed-aggregate entries on a durable store, one tenant after the
 * other (see `Engine.pruneSeries`). Transactions, events, alerts and cases are kept. On PostgreSQL it
 * runs beside serving processes; a PGlite directory is one process's at a time, so stop the server
 * first (or let `txmon serve --prune-every-hours` do it).
 */
import { parseArgs } from 'node:util';
import { createEngine } from '../default-engine.js';
import { DEFAULT_STORE, StoreSpecError, describeStore, openStore, parseStore, type StoreSpec } from './stores.js';
import { readTenants } from './serve.js';
import { UsageError } from './usage.js';

export { PRUNE_USAGE } from './usage.js';

interface PruneArgs {
  readonly store: StoreSpec;
  readonly tenantIds: readonly string[];
  readonly single: boolean;
  readonly lateArrivalMs: number | undefined;
  readonly dryRun: boolean;
}

function parsePruneArgs(argv: readonly string[], env: NodeJS.ProcessEnv): PruneArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      store: { type: 'string' },
      tenants: { type: 'string' },
      'late-arrival-ms': { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  let store: StoreSpec;
  try {
    store = parseStore(values.store ?? (env.TXMON_STORE?.trim() || DEFAULT_STORE));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (store.kind === 'memory') throw new UsageError('--store memory keeps nothing between runs: there is nothing to prune');
  const late = values['late-arrival-ms'];
  if (late !== undefined && !/^[0-9]{1,15}$/.test(late)) throw new UsageError('--late-arrival-ms must be a non-negative integer');
  const tenantIds = values.tenants === undefined ? ['default'] : readTenants(values.tenants).map((t) => t.id);
  return {
    store,
    tenantIds,
    single: values.tenants === undefined,
    lateArrivalMs: late === undefined ? undefined : Number(late),
    dryRun: values['dry-run'] ?? false,
  };
}

/** One tenant's prune, as the line printed for it. */
async function pruneTenant(args: PruneArgs, tenantId: string): Promise<Record<string, unknown>> {
  const opened = await openStore(args.store, tenantId, args.single, { maxStoredBytes: 1 });
  try {
    const engine = createEngine({ repositories: opened.repositories, ...(args.lateArrivalMs === undefined ? {} : { lateArrivalMs: args.lateArrivalMs }) });
    const result = await engine.pruneSeries({ dryRun: args.dryRun });
    const series = Object.fromEntries(result.series.map((s) => [s.name, s.prunedBefore === null ? 'kept whole' : new Date(s.prunedBefore).toISOString()]));
    return { tenant: tenantId, dryRun: result.dryRun, removed: result.removed, prunedBefore: series };
  } finally {
    await opened.close();
  }
}

/**
 * Runs `txmon prune`; each tenant's result is written as one JSON line to `out`.
 * @throws UsageError for bad arguments or a store that cannot be opened
 */
export async function prune(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, out: { write(line: string): void } = process.stdout): Promise<void> {
  const args = parsePruneArgs(argv, env);
  for (const tenantId of args.tenantIds) {
    try {
      out.write(`${JSON.stringify({ store: describeStore(args.store), ...(await pruneTenant(args, tenantId)) })}\n`);
    } catch (error) {
      throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
    }
  }
}
