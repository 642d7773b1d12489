/**
 * One rule set over a history: each transaction evaluated by the engine's own pipeline (plan, the
 * windows' values with the transaction's own part, evaluation, the outcome's writes, risk), with the
 * state an engine would keep for it — its users' risk and the states `triggersOnHit` sets, the alerts
 * and cases its hits open — and its counts. What is counted per transaction (distinct transactions
 * hit, labels) is settled by the caller when the transaction leaves the history's window.
 */
import type { AggregateStore, AggregateValue, SeriesEntry } from '../aggregation/aggregate-store.js';
import { decideAlertHit, type AlertHit, type CaseGrouping } from '../domain/case-policy.js';
import type { Alert, Case, RuleInstance, StoredUser } from '../domain/entities.js';
import { RULE_ACTIONS, type RuleAction, type Transaction } from '../domain/index.js';
import type { RiskBands } from '../domain/risk-score.js';
import { applyUserUpdate } from '../domain/user-update.js';
import type { RuleSet } from '../engine/instances/rule-set.js';
import { evaluateRuleInstances, mergeCurrentContribution, planRuleInstances, ruleUserOf, type InstanceOutcome } from '../engine/pipeline/index.js';
import { ruleOutcomeWrites } from '../engine/pipeline/outcome.js';
import { riskScoreDetailsOf, type RiskFactor } from '../engine/pipeline/risk.js';
import type { AggregateNeed, LookupNeed, MoneyContext } from '../rules/types.js';
import type { RiskLevel } from '../domain/index.js';

/** What every rule set of a simulation shares. */
export interface RunContext {
  readonly money: MoneyContext;
  readonly defaultRiskLevel: RiskLevel;
  readonly riskFactors: readonly RiskFactor[];
  readonly riskBands: RiskBands;
  /** Answers a list lookup (the simulation's lists). */
  readonly lookup: (lookup: { readonly listId: string; readonly listType: string; readonly subtype: string; readonly value: string }) => boolean;
  /** The users the host created and the parties seen so far (shared: what no rule set changes). */
  readonly users: Map<string, StoredUser>;
  /** Names of the library's and the host's rules, by id. */
  readonly ruleName: (ruleId: string) => string | undefined;
  /** How alerts are grouped into cases (the engine's `caseGrouping`). */
  readonly caseGrouping: CaseGrouping;
}

/** The counts of one instance. */
export interface InstanceCounts {
  runs: number;
  hits: number;
  alerts: number;
  readonly actions: Record<RuleAction, number>;
  readonly hitUsers: Set<string>;
}

/** One day's counts of a set. */
interface DayCounts {
  hits: number;
  alerts: number;
}

/** A rule set running over a history. */
export interface RuleSetRun {
  readonly ruleSet: RuleSet;
  /** The display name of an instance: its alias, its rule's name, or "Custom rule". */
  nameOf(instance: RuleInstance): string;
  readonly instances: readonly InstanceCounts[];
  readonly status: Record<RuleAction, number>;
  readonly days: Map<string, DayCounts>;
  readonly hitUsers: Set<string>;
  /** Evaluations with at least one hit. */
  hits: number;
  alerts: number;
  cases: number;
  /**
   * Evaluates `transaction` (after `now`'s operation) with the windows of `store` and its own
   * `current` entries; returns the positions (in `ruleSet.instances`) of the instances that hit.
   */
  evaluate(transaction: Transaction, current: readonly SeriesEntry[], store: AggregateStore, now: number, isCreate: boolean): readonly number[];
}

const NO_HITS: readonly number[] = Object.freeze([]);

function zeroActions(): Record<RuleAction, number> {
  return Object.fromEntries(RULE_ACTIONS.map((action) => [action, 0])) as Record<RuleAction, number>;
}

/** `YYYY-MM-DD` (UTC) of an epoch ms. */
export function dayOf(timestamp: number): string {
  return new Date(timestamp).toISOString().slice(0, 10);
}

/** The users a set's hits change (`triggersOnHit`, risk), over the users every set shares. */
function createUserView(shared: Map<string, StoredUser>) {
  const own = new Map<string, StoredUser>();
  return {
    get: (userId: string | undefined): StoredUser | null => (userId ? (own.get(userId) ?? shared.get(userId) ?? null) : null),
    set: (user: StoredUser) => void own.set(user.userId, user),
  };
}

/** The alerts and cases a set's hits open, as the case policy decides (one open alert per instance and user). */
function createAlertBook(counts: readonly InstanceCounts[], positionOf: ReadonlyMap<string, number>) {
  const openAlerts = new Map<string, Alert>();
  const cases = new Map<string, Case>();
  return {
    /** Lands `hit`; returns 1 when it opened an alert, 0 when it joined one, and whether it opened a case. */
    land(hit: AlertHit, now: number): { opened: number; newCase: number } {
      const key = `${hit.instanceId}\u0000${hit.userId}`;
      const groupCase = hit.groupWithUserId === undefined ? null : (cases.get(hit.groupWithUserId) ?? null);
      const change = decideAlertHit(hit, openAlerts.get(key) ?? null, cases.get(hit.userId) ?? null, now, groupCase);
      if (change.kind === 'append') return { opened: 0, newCase: 0 };
      openAlerts.set(key, change.alert);
      const position = positionOf.get(hit.instanceId);
      if (position !== undefined) (counts[position] as InstanceCounts).alerts += 1;
      if (change.caseIsNew) {
        cases.set(hit.userId, change.case);
        return { opened: 1, newCase: 1 };
      }
      // A user joining another's case makes it its own case from now on, as a repository does.
      if (change.joinsUser && groupCase !== null) cases.set(hit.userId, groupCase);
      return { opened: 1, newCase: 0 };
    },
  };
}

/** Sequential ids for the alerts and cases a simulation opens: deterministic. */
function sequentialIds() {
  let n = 0;
  return { next: (kind: string) => `${kind}-${++n}` };
}

/** The answers of a plan's list lookups. */
function answerLookups(lookups: readonly LookupNeed[], lookup: RunContext['lookup']): boolean[] | undefined {
  if (lookups.length === 0) return undefined;
  return lookups.map((need) => lookup(need));
}

/** The whitelists among `ids` that hold `userId`. */
function whitelistsOf(ids: readonly string[], userId: string | undefined, lookup: RunContext['lookup']): ReadonlySet<string> {
  const held = new Set<string>();
  if (!userId) return held;
  for (const listId of ids) if (lookup({ listId, listType: 'WHITELIST', subtype: 'USER_ID', value: userId })) held.add(listId);
  return held;
}

/** A rule set ready to run over a history. */
export function createRuleSetRun(ruleSet: RuleSet, context: RunContext): RuleSetRun {
  const instances: InstanceCounts[] = ruleSet.instances.map(() => ({ runs: 0, hits: 0, alerts: 0, actions: zeroActions(), hitUsers: new Set<string>() }));
  const positionOf = new Map(ruleSet.instances.map((instance, position) => [instance.id, position]));
  const users = createUserView(context.users);
  const book = createAlertBook(instances, positionOf);
  const ids = sequentialIds();
  const nameOf = (instance: RuleInstance) => instance.ruleNameAlias ?? context.ruleName(instance.ruleId) ?? 'Custom rule';
  const ruleNameOf = (o: InstanceOutcome) => nameOf(o.instance);
  const run: RuleSetRun = {
    ruleSet,
    nameOf,
    instances,
    status: zeroActions(),
    days: new Map(),
    hitUsers: new Set(),
    hits: 0,
    alerts: 0,
    cases: 0,
    evaluate(transaction, current, store, now, isCreate) {
      const origin = users.get(transaction.originUserId);
      const destination = users.get(transaction.destinationUserId);
      const whitelisted = ruleSet.whitelistIds.length > 0;
      const originUser = ruleUserOf(origin, whitelisted ? whitelistsOf(ruleSet.whitelistIds, transaction.originUserId, context.lookup) : undefined);
      const destinationUser = ruleUserOf(
        destination,
        whitelisted ? whitelistsOf(ruleSet.whitelistIds, transaction.destinationUserId, context.lookup) : undefined,
      );
      const plan = planRuleInstances({
        transaction,
        instances: ruleSet.prepared,
        originUser,
        destinationUser,
        money: context.money,
        defaultRiskLevel: context.defaultRiskLevel,
        cache: ruleSet.cache,
      });
      const needs = plan.needs;
      const values: AggregateValue[] = needs.length > 0 ? store.queryMany(needs) : [];
      for (let i = 0; i < needs.length; i++) values[i] = mergeCurrentContribution(needs[i] as AggregateNeed, values[i] ?? null, current);
      const evaluation = evaluateRuleInstances(plan, values, answerLookups(plan.lookups, context.lookup));
      run.status[evaluation.status] += 1;
      const hit = countOutcomes(evaluation.outcomes, transaction, positionOf, instances, run.hitUsers);
      const writes = ruleOutcomeWrites(transaction, evaluation.outcomes, { origin, destination }, ruleNameOf, ids, context.caseGrouping);
      let opened = 0;
      for (const alertHit of writes.alertHits) {
        const landed = book.land(alertHit, now);
        opened += landed.opened;
        run.cases += landed.newCase;
      }
      if (context.riskFactors.length > 0) {
        const risk = riskScoreDetailsOf(transaction, {
          factors: context.riskFactors,
          bands: context.riskBands,
          money: context.money,
          originUser,
          destinationUser,
          originStored: origin,
          destinationStored: destination,
          isCreate,
        });
        for (const observation of risk.observations) writes.userUpdates.push(observation);
      }
      for (const update of writes.userUpdates) users.set(applyUserUpdate(users.get(update.userId), update, now));
      if (hit.length > 0 || opened > 0) {
        const day = dayOf(now);
        let counts = run.days.get(day);
        if (counts === undefined) {
          counts = { hits: 0, alerts: 0 };
          run.days.set(day, counts);
        }
        if (hit.length > 0) counts.hits += 1;
        counts.alerts += opened;
      }
      if (hit.length > 0) run.hits += 1;
      run.alerts += opened;
      return hit;
    },
  };
  return run;
}

/** Counts the outcomes' runs, hits, actions and hit users; returns the positions of the instances that hit. */
function countOutcomes(
  outcomes: readonly InstanceOutcome[],
  transaction: Transaction,
  positionOf: ReadonlyMap<string, number>,
  instances: InstanceCounts[],
  setUsers: Set<string>,
): readonly number[] {
  const hit: number[] = [];
  for (const outcome of outcomes) {
    const position = positionOf.get(outcome.instance.id);
    if (position === undefined) continue;
    const counts = instances[position] as InstanceCounts;
    counts.runs += 1;
    if (!outcome.hit) continue;
    counts.hits += 1;
    if (!outcome.isShadow) counts.actions[outcome.action] += 1;
    const directions = outcome.hitDirections.length > 0 ? outcome.hitDirections : (['ORIGIN'] as const);
    for (const direction of directions) {
      const userId = direction === 'ORIGIN' ? transaction.originUserId : transaction.destinationUserId;
      if (!userId) continue;
      counts.hitUsers.add(userId);
      setUsers.add(userId);
    }
    hit.push(position);
  }
  return hit.length === 0 ? NO_HITS : hit;
}
