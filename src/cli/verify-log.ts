/**
 * `txmon verify-log`: verifies the decision log of a durable store, per tenant (see
 * `Engine.verifyDecisionLog`), printing one JSON line each; the exit code says whether every log
 * is intact. On PostgreSQL it runs beside serving processes; a PGlite directory is one process's at
 * a time (stop the server first).
 */
import { parseArgs } from 'node:util';
import { createEngine } from '../default-engine.js';
import type { DecisionLogHead } from '../domain/decision-log.js';
import type { Repositories } from '../engine/repositories.js';
import { durableStoreArgs, openForMaintenance, type DurableStoreArgs } from './store-args.js';
import { describeStore } from './stores.js';
import { UsageError } from './usage.js';

interface VerifyArgs extends DurableStoreArgs {
  readonly anchor: DecisionLogHead | undefined;
}

/** `--anchor <seq>:<hash>`: a head printed by an earlier run and kept elsewhere. */
function parseAnchor(text: string | undefined): DecisionLogHead | undefined {
  if (text === undefined) return undefined;
  const match = /^([1-9][0-9]{0,15}):([0-9a-f]{64})$/.exec(text);
  if (match === null) throw new UsageError('--anchor must be <seq>:<hash>, the head an earlier run printed (e.g. 41:9f86d0…, 64 hex digits)');
  return { seq: Number(match[1]), hash: match[2] as string };
}

function parseVerifyArgs(argv: readonly string[], env: NodeJS.ProcessEnv): VerifyArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: { store: { type: 'string' }, tenants: { type: 'string' }, anchor: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const where = durableStoreArgs(values, env, '--store memory keeps nothing between runs: there is no log to verify');
  if (values.anchor !== undefined && where.tenantIds.length > 1) throw new UsageError('--anchor names one log: use it with a single tenant');
  return { ...where, anchor: parseAnchor(values.anchor) };
}

/**
 * Runs `txmon verify-log`; each tenant's report is written as one JSON line to `out`.
 * @returns whether every tenant's log is intact
 * @throws UsageError for bad arguments; DirectoryLockedError when a server owns the PGlite
 *   directory; StoreStartError when the database cannot be reached
 */
export async function verifyLog(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  out: { write(line: string): void } = process.stdout,
): Promise<boolean> {
  const args = parseVerifyArgs(argv, env);
  const stores = await openForMaintenance(args);
  let intact = true;
  try {
    for (const tenantId of args.tenantIds) {
      const engine = createEngine({ repositories: stores.repositories.get(tenantId) as Repositories });
      const report = await engine.verifyDecisionLog(args.anchor === undefined ? {} : { anchor: args.anchor });
      intact &&= report.ok;
      out.write(`${JSON.stringify({ store: describeStore(args.store), tenant: tenantId, ...report })}\n`);
    }
  } finally {
    await stores.close();
  }
  return intact;
}
