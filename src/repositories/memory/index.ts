import { createAggregateStore } from '../../aggregation/aggregate-store.js';
import type { Repositories } from '../../engine/repositories.js';
import { TxmonError } from '../../errors.js';
import { createMemoryAggregates } from './aggregates.js';
import { createMemoryAuditLog } from './audit.js';
import { createMemoryAlertsAndCases } from './alerts-and-cases.js';
import { createByteBudget, DEFAULT_MAX_STORED_BYTES } from './budget.js';
import { createMemoryDecisions } from './decisions.js';
import { createMemoryBatches, createMemoryComments, createMemoryFiles, createMemoryLists, createMemoryUsers } from './records.js';
import { createMemoryRuleInstances } from './rule-instances.js';
import { createMemoryOutbox } from './outbox.js';
import { createMemoryTransactions } from './transactions.js';

export { DEFAULT_MAX_STORED_BYTES, storedBytesOf } from './budget.js';

/** Options of {@link createMemoryRepositories}. */
export interface MemoryRepositoriesOptions {
  /**
   * Most bytes the repositories may hold, as `storedBytesOf` counts them; a write past it
   * is refused with `LIMIT_EXCEEDED` (`maxStoredBytes`) and changes nothing. Default 256 MiB.
   * The heap holds a small multiple of this count (see docs/security.md).
   */
  readonly maxStoredBytes?: number;
}

/**
 * In-memory repositories: the default of `createEngine`, for tests, single-process services and
 * simulations. Every `TransactionOutcome` is applied in one synchronous step, so it is
 * atomic within the process. Not durable. Reads return the stored objects themselves, or for
 * transactions and events a new record over the stored parts (results and the create payload are
 * kept in a compact form, see ./packed.ts); no deep copy, for speed: treat them as read-only — the
 * engine copies at its own API boundary.
 *
 * @example
 * ```ts
 * const engine = createEngine({ repositories: createMemoryRepositories() });
 * ```
 */
export function createMemoryRepositories(options: MemoryRepositoriesOptions = {}): Repositories {
  const maxStoredBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
  if (!(Number.isSafeInteger(maxStoredBytes) && maxStoredBytes > 0)) {
    throw new TxmonError('INVALID_CONFIGURATION', 'createMemoryRepositories: maxStoredBytes must be a positive integer');
  }
  const budget = createByteBudget(maxStoredBytes);
  const aggregates = createAggregateStore();
  const outbox = createMemoryOutbox();
  const audit = createMemoryAuditLog(outbox);
  const ruleInstances = createMemoryRuleInstances(budget, audit);
  const comments = createMemoryComments(budget, audit);
  const decisions = createMemoryDecisions();
  const alertsAndCases = createMemoryAlertsAndCases({ comments, decisions, audit, budget });
  const users = createMemoryUsers(budget, { ruleInstances, alertsAndCases }, audit);
  return {
    flags: { durable: false, sharedAcrossProcesses: false, reportsStoreFaults: true },
    transactions: createMemoryTransactions({ budget, aggregates, ruleInstances, alertsAndCases, users, decisions, outbox }),
    ruleInstances: ruleInstances.repository,
    users: users.repository,
    comments,
    cases: alertsAndCases.repository,
    files: createMemoryFiles(budget),
    aggregates: createMemoryAggregates(aggregates),
    lists: createMemoryLists(budget, audit),
    batches: createMemoryBatches(budget),
    decisions: decisions.repository,
    audit: audit.repository,
    outbox: outbox.repository,
  };
}
