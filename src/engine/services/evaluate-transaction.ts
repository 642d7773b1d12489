/**
 * The hot path: one transaction (new, or updated by an event) evaluated against the active
 * instances — users and lists read, aggregates queried, the pure pipeline run — and everything its
 * outcome writes, ready for the repositories' one atomic `saveOutcome`.
 */
import type { SeriesEntry } from '../../aggregation/aggregate-store.js';
import type { MonitoringResult } from '../../domain/entities.js';
import type { ResultWarning, Transaction } from '../../domain/index.js';
import { TxmonError } from '../../errors.js';
import type { EvaluationCounters } from '../evaluation-stats.js';
import type { Repositories, TransactionOutcome } from '../repositories.js';
import { contributionRefsOf, contributionsOf } from '../../rules/series.js';
import type { AggregateNeed, LookupNeed } from '../../rules/types.js';
import {
  evaluateRuleInstances,
  mergeCurrentContribution,
  monitoringResultOf,
  planRuleInstances,
  type EvaluationInput,
  type InstanceOutcome,
} from '../pipeline/index.js';
import type { UnconvertedAmount } from '../pipeline/evaluate.js';
import type { ActiveInstances, InstanceSet } from '../instances/instance-set.js';
import type { EngineSettings } from '../options.js';
import { ruleOutcomeWrites } from '../pipeline/outcome.js';
import { ruleUserOf } from '../pipeline/rule-user.js';
import { riskScoreDetailsOf } from '../pipeline/risk.js';

/** What evaluating a transaction decides: its result and everything the outcome writes but the transaction itself. */
export type Evaluation = Pick<TransactionOutcome, 'aggregates' | 'counters' | 'alertHits' | 'seenUserIds' | 'userUpdates'> & {
  readonly result: MonitoringResult;
};

/**
 * Evaluates a transaction (`previous`: its state before an event, `null` on creation), reading
 * through `repositories` (the unit of work's, on a shared store); see {@link createTransactionEvaluator}.
 */
export type TransactionEvaluator = ((
  transaction: Transaction,
  previous: Transaction | null,
  repositories: Repositories,
  options?: EvaluationOptions,
) => Promise<Evaluation>) & {
  /**
   * Issues the reads an evaluation of a new `transaction` would issue and decides nothing (no id is
   * drawn). What a batch's chunk runs on repositories that note the reads, to fetch them for the
   * whole chunk at once.
   */
  readonly rehearse: (transaction: Transaction, repositories: Repositories) => Promise<void>;
};

/** Options of a {@link TransactionEvaluator}. */
export interface EvaluationOptions {
  /**
   * History import (a batch's `mode=IMPORT`): the transaction's series entries only — no rule is
   * run, so nothing is hit, counted, alerted or scored; its parties are recorded as seen.
   */
  readonly importOnly?: boolean;
}

/** The result stored for an imported transaction: no rule ran (one frozen object, so a reader can tell an import by identity). */
export const IMPORTED_RESULT: MonitoringResult = Object.freeze({
  executedRules: Object.freeze([]) as unknown as MonitoringResult['executedRules'],
  hitRules: Object.freeze([]) as unknown as MonitoringResult['hitRules'],
  status: 'ALLOW',
});

function ignore(): void {}

/** For each side's user, the ids of the whitelists (WHITELIST, USER_ID) among `listIds` that hold it. */
async function whitelistsOf(repositories: Repositories, listIds: readonly string[], origin: string | undefined, destination: string | undefined) {
  const originSet = new Set<string>();
  const destinationSet = new Set<string>();
  const probes = [origin, destination].map((userId) => ({ listType: 'WHITELIST' as const, subtype: 'USER_ID' as const, value: userId ?? '' }));
  for (const listId of listIds) {
    const [o, d] = await repositories.lists.lookupListItems(listId, probes);
    if (origin && o === true) originSet.add(listId);
    if (destination && d === true) destinationSet.add(listId);
  }
  return [originSet, destinationSet] as const;
}

/** Answers list lookups, one repository call per list, in the order of `lookups`. */
async function answerLookups(repositories: Repositories, lookups: readonly LookupNeed[]): Promise<boolean[]> {
  const byList = new Map<string, number[]>();
  lookups.forEach((l, i) => {
    const positions = byList.get(l.listId);
    if (positions) positions.push(i);
    else byList.set(l.listId, [i]);
  });
  const answers: boolean[] = new Array<boolean>(lookups.length).fill(false);
  for (const [listId, positions] of byList) {
    const found = await repositories.lists.lookupListItems(
      listId,
      positions.map((i) => {
        const l = lookups[i] as LookupNeed;
        return { listType: l.listType, subtype: l.subtype, value: l.value };
      }),
    );
    positions.forEach((position, j) => {
      answers[position] = found[j] === true;
    });
  }
  return answers;
}

/**
 * The current transaction's amount that has no rate into the base currency, when one of its series
 * entries was left without an amount (`null` when none was, or when the transaction has no amount
 * to convert there).
 */
function unconvertedAmountOf(transaction: Transaction, current: readonly SeriesEntry[], money: EngineSettings['money']): UnconvertedAmount | null {
  let entries: SeriesEntry[] | null = null;
  for (const entry of current) {
    if (entry.amount !== null) continue;
    if (entries === null) entries = [];
    entries.push(entry);
  }
  if (entries === null) return null;
  const sides = [
    ['/originAmountDetails/transactionAmount', transaction.originAmountDetails],
    ['/destinationAmountDetails/transactionAmount', transaction.destinationAmountDetails],
  ] as const;
  for (const [path, details] of sides) {
    if (details === undefined || details.transactionCurrency === money.baseCurrency) continue;
    if (money.rates.rate(details.transactionCurrency, money.baseCurrency, transaction.timestamp) !== null) continue;
    return { note: Object.freeze({ reason: 'NO_RATE', currency: details.transactionCurrency, to: money.baseCurrency, path }), entries };
  }
  return null;
}

/**
 * The refusal of a strict engine (`RULE_NOT_EVALUATED`, 422) for the live instances among
 * `warnings`, or `null` when every not-evaluated instance is a shadow one (a shadow instance never
 * changes the outcome). One detail per instance, at its amount's path when known.
 */
export function strictRefusalOf(warnings: readonly ResultWarning[]): TxmonError | null {
  const live = warnings.filter((w) => w.isShadow !== true);
  const first = live[0];
  if (first === undefined) return null;
  const more = live.length > 1 ? ` (and ${live.length - 1} more)` : '';
  return new TxmonError(
    'RULE_NOT_EVALUATED',
    `${first.message}${more} Nothing was stored (strict).`,
    live.map((w) => ({ path: w.notEvaluated.path ?? '', code: 'not-evaluated', message: w.message })),
  );
}

/** The evaluator of one engine; `counters` count its rule runs that could not be evaluated. */
export function createTransactionEvaluator(settings: EngineSettings, instances: InstanceSet, counters?: EvaluationCounters): TransactionEvaluator {
  const { money, registry } = settings;
  const ruleNameOf = (o: InstanceOutcome) => o.instance.ruleNameAlias ?? registry.get(o.instance.ruleId)?.name ?? 'Custom rule';

  /**
   * What an evaluation reads before it decides: the active instances, the parties and their
   * whitelists, and the plan (with the aggregate queries and list lookups it needs).
   */
  async function readAndPlan(transaction: Transaction, repositories: Repositories) {
    // Both reads start before either is awaited (a database adapter serves them concurrently);
    // no Promise.all: on the memory repositories it costs more than the reads. The users' read is
    // handled at once, so a failure is rethrown below, never an unhandled rejection meanwhile.
    const usersRead = Promise.resolve(repositories.users.getUsers([transaction.originUserId ?? '', transaction.destinationUserId ?? '']));
    usersRead.catch(ignore);
    const state = await instances.active(repositories);
    const users = await usersRead;
    const originStored = transaction.originUserId ? users[0] : null;
    const destinationStored = transaction.destinationUserId ? users[1] : null;
    // List-backed whitelists named by the active filters are looked up before the filters run.
    let originLists: ReadonlySet<string> | undefined;
    let destinationLists: ReadonlySet<string> | undefined;
    if (state.whitelistIds.length > 0) {
      [originLists, destinationLists] = await whitelistsOf(repositories, state.whitelistIds, transaction.originUserId, transaction.destinationUserId);
    }
    const input: EvaluationInput = {
      transaction,
      instances: state.active,
      originUser: ruleUserOf(originStored, originLists),
      destinationUser: ruleUserOf(destinationStored, destinationLists),
      money,
      defaultRiskLevel: settings.defaultRiskLevel,
      cache: state.cache,
    };
    return { state, originStored, destinationStored, input, plan: planRuleInstances(input) };
  }

  /** The transaction's current contribution: its series entries. */
  function currentOf(transaction: Transaction, state: ActiveInstances): SeriesEntry[] {
    const current = contributionsOf(transaction, state.series, money, state.derived, state.values);
    if (!state.values && current.length > 0) instances.noteEntriesWithoutValues();
    return current;
  }

  const evaluate = async function evaluate(transaction, previous, repositories, options) {
    if (options?.importOnly === true) return importOutcome(transaction, previous, repositories);
    const { state, originStored, destinationStored, input, plan } = await readAndPlan(transaction, repositories);
    const current = currentOf(transaction, state);
    const needs = plan.needs;
    // Needs are valid queries (they exclude this transaction): the values come back aligned with
    // them, and this transaction's current contribution is merged in place.
    const values = needs.length > 0 ? await repositories.aggregates.queryAggregates(needs) : [];
    for (let i = 0; i < needs.length; i++) values[i] = mergeCurrentContribution(needs[i] as AggregateNeed, values[i] ?? null, current);
    const unconverted = current.length > 0 ? unconvertedAmountOf(transaction, current, money) : null;
    const evaluation = evaluateRuleInstances(plan, values, plan.lookups.length > 0 ? await answerLookups(repositories, plan.lookups) : undefined, unconverted);
    if (evaluation.warnings.length > 0) {
      counters?.record(evaluation.warnings);
      const refusal = settings.strict ? strictRefusalOf(evaluation.warnings) : null;
      if (refusal !== null) throw refusal;
    }
    const writes = ruleOutcomeWrites(
      transaction,
      evaluation.outcomes,
      { origin: originStored, destination: destinationStored },
      ruleNameOf,
      settings.ids,
      settings.caseGrouping,
    );
    const risk = riskScoreDetailsOf(transaction, {
      factors: settings.riskFactors,
      bands: settings.riskBands,
      money,
      originUser: input.originUser,
      destinationUser: input.destinationUser,
      originStored,
      destinationStored,
      isCreate: previous === null,
    });
    const result = monitoringResultOf(evaluation, risk.details);
    for (const observation of risk.observations) writes.userUpdates.push(observation);
    const remove = previous ? contributionRefsOf(previous, state.series, state.derived) : [];
    return { result, aggregates: { remove, add: current as SeriesEntry[] }, ...writes };
  } as TransactionEvaluator;

  /**
   * Issues the reads an evaluation of `transaction` would issue (users, lists, the aggregate
   * queries of its plan, the list lookups) and decides nothing: what a batch's chunk runs on
   * repositories that note them, to fetch the chunk's reads in a few round trips.
   */
  const rehearse = async (transaction: Transaction, repositories: Repositories): Promise<void> => {
    const { plan } = await readAndPlan(transaction, repositories);
    if (plan.needs.length > 0) await repositories.aggregates.queryAggregates(plan.needs);
    if (plan.lookups.length > 0) await answerLookups(repositories, plan.lookups);
  };
  return Object.assign(evaluate, { rehearse });

  /** What an imported transaction writes: its series entries, and its parties as seen users. */
  async function importOutcome(transaction: Transaction, previous: Transaction | null, repositories: Repositories): Promise<Evaluation> {
    const state = await instances.active(repositories);
    const current = currentOf(transaction, state);
    const { originUserId: origin, destinationUserId: destination } = transaction;
    const [originStored, destinationStored] = await repositories.users.getUsers([origin ?? '', destination ?? '']);
    const seenUserIds: string[] = [];
    if (origin && !originStored) seenUserIds.push(origin);
    if (destination && !destinationStored && destination !== origin) seenUserIds.push(destination);
    const remove = previous ? contributionRefsOf(previous, state.series, state.derived) : [];
    return { result: IMPORTED_RESULT, aggregates: { remove, add: current as SeriesEntry[] }, counters: [], alertHits: [], seenUserIds, userUpdates: [] };
  }
}
