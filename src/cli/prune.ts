/**
 * `txmon prune`: retention of windowed-aggregate entries on a durable store, one tenant after the
 * other (see `Engine.pruneSeries`). Transactions, events, alerts and cases are kept. On PostgreSQL it
 * runs beside serving processes; a PGlite directory is one process's at a time (its lock refuses
 * prune while a server owns it), so stop the server first (or let `txmon serve --prune-every-hours`
 * do it).
 */
import { parseArgs } from 'node:util';
import { createEngine } from '../default-engine.js';
import type { Repositories } from '../engine/repositories.js';
import { durableStoreArgs, openForMaintenance, type DurableStoreArgs } from './store-args.js';
import { describeStore } from './stores.js';
import { UsageError } from './usage.js';

export { PRUNE_USAGE } from './usage.js';

interface PruneArgs extends DurableStoreArgs {
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
  const where = durableStoreArgs(values, env, '--store memory keeps nothing between runs: there is nothing to prune');
  const late = values['late-arrival-ms'];
  if (late !== undefined && !/^[0-9]{1,15}$/.test(late)) throw new UsageError('--late-arrival-ms must be a non-negative integer');
  return {
    ...where,
    lateArrivalMs: late === undefined ? undefined : Number(late),
    dryRun: values['dry-run'] ?? false,
  };
}

/** One tenant's prune, as the line printed for it. */
async function pruneTenant(args: PruneArgs, tenantId: string, repositories: Repositories): Promise<Record<string, unknown>> {
  const engine = createEngine({ repositories, ...(args.lateArrivalMs === undefined ? {} : { lateArrivalMs: args.lateArrivalMs }) });
  const result = await engine.pruneSeries({ dryRun: args.dryRun });
  const series = Object.fromEntries(result.series.map((s) => [s.name, s.prunedBefore === null ? 'kept whole' : new Date(s.prunedBefore).toISOString()]));
  return { tenant: tenantId, dryRun: result.dryRun, removed: result.removed, prunedBefore: series };
}

/**
 * Runs `txmon prune`; each tenant's result is written as one JSON line to `out`.
 * @throws UsageError for bad arguments; DirectoryLockedError when a server owns the PGlite
 *   directory; StoreStartError when the database cannot be reached
 */
export async function prune(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, out: { write(line: string): void } = process.stdout): Promise<void> {
  const args = parsePruneArgs(argv, env);
  // Dropping a long history is one statement that may take a while: bounded by an hour.
  const stores = await openForMaintenance(args);
  try {
    for (const tenantId of args.tenantIds) {
      const repositories = stores.repositories.get(tenantId) as Repositories;
      out.write(`${JSON.stringify({ store: describeStore(args.store), ...(await pruneTenant(args, tenantId, repositories)) })}\n`);
    }
  } finally {
    await stores.close();
  }
}
