/**
 * `createEngine`: the engine assembled from its services over one set of repositories. Each
 * concern has its own module: settings (`options.ts`), concurrency (`concurrency/`), the active
 * instances and the series they read (`instances/`), the hot path (`services/evaluate-transaction.ts`
 * over the pure pipeline), and the endpoints grouped by resource (`services/`).
 */
import type { Repositories } from './repositories.js';
import { guardRepositories } from './store-faults.js';
import { createKeyedLock } from './concurrency/keyed-lock.js';
import { createWriterGate } from './concurrency/writer-gate.js';
import { createInstanceSet } from './instances/instance-set.js';
import { createSeriesCatalog, createSharedSeriesCatalog } from './instances/series-catalog.js';
import { resolveEngineSettings, type EngineOptions } from './options.js';
import { createBatchService } from './services/batches.js';
import { createDecisionLogService } from './services/decision-log.js';
import { createCaseService } from './services/cases.js';
import { createCommentAndFileService, createCommentFiles } from './services/comments-and-files.js';
import { createTransactionEvaluator } from './services/evaluate-transaction.js';
import { createEvaluationCounters } from './evaluation-stats.js';
import { createListService } from './services/lists.js';
import { createOutboxService } from './services/outbox.js';
import { createAuditService } from './services/audit.js';
import { createRuleInstanceService } from './services/rule-instances.js';
import { createTransactionService } from './services/transactions.js';
import { createUserEventService } from './services/user-events.js';
import { createUserService } from './services/users.js';
import type { Engine } from './types.js';

export type { EngineOptions } from './options.js';
export type * from './types.js';

/**
 * Creates a txmon engine over `repositories` (the root entry's `createEngine` defaults them to the
 * memory repositories). Every other option is optional: the system clock, random ids, the rule
 * library, the default lifecycle, limits and risk model.
 *
 * @throws TxmonError `INVALID_CONFIGURATION` for clashing rule ids, a short signing secret, an
 *   unknown maintained series, bad risk factors or bands, a bad limit, or bad money options (an
 *   unknown `baseCurrency` or one without a rate, a bad rate table), naming the option's path.
 */
export function assembleEngine(given: Repositories, options: EngineOptions = {}): Engine {
  const repositories = guardRepositories(given);
  const settings = resolveEngineSettings(options, repositories);
  const gate = createWriterGate();
  const instances = createInstanceSet({
    repositories,
    catalog: repositories.flags.sharedAcrossProcesses ? createSharedSeriesCatalog(settings.money) : createSeriesCatalog(settings.money),
    gate,
    limits: settings.limits,
    maintainedSeries: settings.maintainedSeries,
    clock: settings.clock,
    lateArrivalMs: settings.lateArrivalMs,
    registry: settings.registry,
    maxLogicWork: settings.limits.maxLogicWork,
  });
  const counters = createEvaluationCounters();
  const evaluate = createTransactionEvaluator(settings, instances, counters);
  // One lock for transactions and users: a user's writes wait for its transactions and events.
  const withLocks = createKeyedLock(settings.limits.maxLockWaitMs);
  const { createTransactionChunks, applyTransactionEvent, ...transactions } = createTransactionService({
    settings,
    evaluate,
    withLocks,
    gate,
  });
  const users = createUserService({ settings, instances, withLocks, gate });
  const userEvents = createUserEventService({ settings, instances, withLocks, gate });
  return {
    repositories,
    ...transactions,
    ...users,
    ...userEvents,
    ...createBatchService(settings, { createTransactionChunks, applyTransactionEvent }, { ...users, ...userEvents }),
    ...createCommentAndFileService(settings),
    ...createRuleInstanceService(settings, instances),
    ...createListService(settings, withLocks),
    ...createCaseService({ settings, withLocks, commentFiles: createCommentFiles(settings) }),
    ...createDecisionLogService(settings),
    ...createAuditService(settings),
    ...createOutboxService(settings),
    pruneSeries: (options) => instances.prune(options?.dryRun === true),
    evaluationStats: () => counters.snapshot(),
    checkStore: async () => {
      await repositories.ping?.();
    },
  };
}
