/**
 * The repository conformance suite: one list of cases that every {@link Repositories}
 * implementation must pass (memory, Postgres, a host's own adapter). Runner-agnostic: each case is
 * `{ name, run }` and throws an `Error` on failure; {@link describeRepositoryConformance} registers
 * them with any `describe`/`it` pair.
 *
 * The semantics checked here are the contract of `src/engine/repositories.ts`; the in-memory
 * repositories are the reference implementation.
 */
import type { AggregateFunction, SeriesEntry } from '../aggregation/aggregate-store.js';
import { type AuditEntry, buildAuditEntry, MAX_AUDIT_COUNT, type ResultAlert, type Transaction } from '../domain/index.js';
import type {
  Alert,
  Case,
  FileRecord,
  PageKey,
  Repositories,
  StorePage,
  StoredBatch,
  StoredUser,
  StoredUserEvent,
  UserRuleResults,
  WorkflowSortKey,
} from '../engine/repositories.js';
import { TxmonError } from '../errors.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { appendDecisionLog, EMPTY_DECISION_LOG, entryText, statusDecisionOf } from '../domain/decision-log.js';
import type { OutboxMessage, OutboxMessageType } from '../domain/outbox.js';
import { assertEqual, assertRejectsWithCode, assertTrue } from './assert.js';
import {
  FIXTURE_T0,
  buildAlertHit,
  buildContributions,
  buildEventStep,
  buildMonitoringResult,
  buildOutcome,
  buildStoredRuleInstance,
  buildStoredTransaction,
  buildTransaction,
  refsOf,
} from './fixtures.js';

/** Creates a fresh, empty set of repositories (one per case). */
export type CreateRepositories = () => Repositories | Promise<Repositories>;

/** One conformance case: `run` resolves when the repositories conform, else rejects with an `Error`. */
export interface ConformanceCase {
  readonly name: string;
  run(): Promise<void>;
}

/** Options of {@link repositoryConformanceCases} and {@link describeRepositoryConformance}. */
export interface ConformanceOptions {
  /** Called after every case with the repositories it used (close pools, drop schemas…). */
  readonly dispose?: (repositories: Repositories) => void | Promise<void>;
}

/** The `describe`/`it` pair of a test runner (vitest, jest, `node:test`). */
export interface ConformanceRunner {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
}

type CaseBody = (repos: Repositories) => Promise<void>;

const CONCURRENT_UPDATE = 'CONCURRENT_UPDATE';
const SERIES = ['user-sending', 'user-receiving'] as const;

function byId<T>(items: readonly T[], id: (item: T) => string): T[] {
  return [...items].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

/** Everything observable about the given ids, deep-copied (so later writes cannot change it). */
async function captureState(
  repos: Repositories,
  ids: { transactionIds: readonly string[]; eventIds: readonly string[]; userIds: readonly string[] },
): Promise<unknown> {
  const aggregates: Record<string, readonly SeriesEntry[]> = {};
  for (const series of SERIES) {
    for (const key of ids.userIds) aggregates[`${series}/${key}`] = await repos.aggregates.listEntries(series, key);
  }
  return structuredClone({
    transactions: await Promise.all(ids.transactionIds.map((id) => repos.transactions.getTransaction(id))),
    eventLists: await Promise.all(ids.transactionIds.map((id) => repos.transactions.listEvents(id))),
    events: await Promise.all(ids.eventIds.map((id) => repos.transactions.getEvent(id))),
    instances: await repos.ruleInstances.listRuleInstances(),
    users: await repos.users.getUsers(ids.userIds),
    alerts: byId(await repos.cases.listAlerts(), (a: Alert) => a.alertId),
    cases: byId(await repos.cases.listCases(), (c: Case) => c.caseId),
    aggregates,
    decisions: await repos.decisions.readDecisions(0, 1_000),
    decisionHead: await repos.decisions.decisionHead(),
    outbox: await repos.outbox.readOutbox(0, 1_000),
    outboxHead: await repos.outbox.outboxHead(),
  });
}

/**
 * A store with one instance `ri-1`, transaction `t-1` (alice → bob, 100 EUR) created with a hit
 * (alert `A-1` in case `C-1` on alice) and one event `e-1` (version 2).
 */
async function seedOneTransaction(repos: Repositories) {
  await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
  const created = buildStoredTransaction(
    buildTransaction('t-1', { origin: 'alice', destination: 'bob', amount: 100 }),
    buildMonitoringResult(['ri-1'], ['ri-1']),
  );
  await repos.transactions.saveOutcome(
    buildOutcome(created, null, {
      aggregates: { remove: [], add: buildContributions(created.transaction) },
      counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
      alertHits: [buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1' })],
      seenUserIds: ['alice', 'bob'],
    }),
  );
  const step = buildEventStep(created, 'e-1', { state: 'PROCESSING', amount: 150 });
  await repos.transactions.saveOutcome(
    buildOutcome(step.transaction, 1, {
      event: step.event,
      aggregates: { remove: refsOf(buildContributions(created.transaction)), add: buildContributions(step.transaction.transaction) },
      counters: [{ instanceId: 'ri-1', runs: 1, hits: 0 }],
      now: FIXTURE_T0 + 1000,
    }),
  );
  return step.transaction;
}

/** An outcome for `t-1` that touches every part of the store (used to show a rejected one applies nothing). */
function buildRichEventOutcome(current: ReturnType<typeof buildEventStep>['transaction'], expectedVersion: number | null, eventId: string) {
  const step = buildEventStep(current, eventId, { state: 'SENT', amount: 999 });
  return buildOutcome(step.transaction, expectedVersion, {
    event: step.event,
    aggregates: { remove: refsOf(buildContributions(current.transaction)), add: buildContributions(step.transaction.transaction) },
    counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
    alertHits: [
      buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-x', caseId: 'C-x' }),
      buildAlertHit('ri-1', 'carol', 't-1', { alertId: 'A-y', caseId: 'C-y' }),
    ],
    seenUserIds: ['carol'],
    userUpdates: [
      { userId: 'alice', craScore: 90, craRiskLevel: 'VERY_HIGH' },
      { userId: 'dave', craScore: 10 },
    ],
    now: FIXTURE_T0 + 99_000,
  });
}

const OBSERVED = { transactionIds: ['t-1', 't-2'], eventIds: ['e-1', 'e-2', 'e-9'], userIds: ['alice', 'bob', 'carol', 'dave'] };

function storedUser(userId: string, extra: Partial<StoredUser> = {}): StoredUser {
  return {
    userId,
    type: 'CONSUMER',
    profile: { userId, createdTimestamp: FIXTURE_T0 - 86_400_000, userDetails: { name: { firstName: 'Ann' } } },
    craScore: null,
    craRiskLevel: null,
    firstSeenAt: FIXTURE_T0 - 86_400_000,
    updatedAt: FIXTURE_T0 - 86_400_000,
    ...extra,
  };
}

/** Stores transaction `t-<n>` of `userId` with one alert hit of `instanceId` on it, at `now`; returns the alerts saveOutcome names. */
async function seedHit(
  repos: Repositories,
  n: number,
  instanceId: string,
  userId: string,
  ids: { alertId: string; caseId: string; priority?: Alert['priority']; groupWithUserId?: string },
  now: number,
): Promise<ResultAlert[]> {
  const stored = buildStoredTransaction(buildTransaction(`t-${n}`, { origin: userId, destination: 'zed' }));
  return repos.transactions.saveOutcome(buildOutcome(stored, null, { alertHits: [buildAlertHit(instanceId, userId, `t-${n}`, ids)], now }));
}

/** The alert a result names (see `ResultAlert`). */
function named(
  alertId: string,
  caseId: string,
  ruleInstanceId: string,
  userId: string,
  action: ResultAlert['action'],
  direction: ResultAlert['direction'] = 'ORIGIN',
  caseOpened = false,
): ResultAlert {
  return caseOpened
    ? { alertId, caseId, ruleInstanceId, userId, direction, action, caseOpened: true }
    : { alertId, caseId, ruleInstanceId, userId, direction, action };
}

/** The (value, id) order of a page query, as the memory store (the reference) sorts. */
function referenceOrder<T extends { createdTimestamp: number; updatedAt: number; priority: string }>(
  items: readonly T[],
  id: (item: T) => string,
  sortBy: WorkflowSortKey,
  sortOrder: 'asc' | 'desc',
): string[] {
  const key = (x: T): [number | string, string] => [
    sortBy === 'createdTimestamp' ? x.createdTimestamp : sortBy === 'updatedAt' ? x.updatedAt : sortBy === 'priority' ? x.priority : id(x),
    id(x),
  ];
  const sign = sortOrder === 'asc' ? 1 : -1;
  return [...items]
    .sort((a, b) => {
      const [av, ai] = key(a);
      const [bv, bi] = key(b);
      if (av !== bv) return sign * (av < bv ? -1 : 1);
      return sign * (ai < bi ? -1 : ai > bi ? 1 : 0);
    })
    .map(id);
}

/** Every page of `read`, `limit` at a time, following each page's last item; the ids in order and the pages' [size, hasNext, count]. */
async function walkPages<T>(
  read: (after: PageKey | undefined) => Promise<StorePage<T>>,
  id: (item: T) => string,
  keyOfItem: (item: T) => PageKey,
): Promise<{ ids: string[]; pages: [number, boolean, number][] }> {
  const ids: string[] = [];
  const pages: [number, boolean, number][] = [];
  let after: PageKey | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await read(after);
    ids.push(...page.items.map(id));
    pages.push([page.items.length, page.hasNext, page.count]);
    const last = page.items.at(-1);
    if (!page.hasNext || last === undefined) break;
    after = keyOfItem(last);
  }
  return { ids, pages };
}

const SORT_KEYS: readonly WorkflowSortKey[] = ['createdTimestamp', 'updatedAt', 'priority', 'id'];

function pageKeyOf(item: { createdTimestamp: number; updatedAt: number; priority: string }, id: string, sortBy: WorkflowSortKey): PageKey {
  return {
    value: sortBy === 'createdTimestamp' ? item.createdTimestamp : sortBy === 'updatedAt' ? item.updatedAt : sortBy === 'priority' ? item.priority : id,
    id,
  };
}

const CASES: readonly { name: string; body: CaseBody }[] = [
  {
    name: 'flags declares durable and sharedAcrossProcesses as booleans, and a shared store provides runExclusive',
    async body(repos) {
      assertTrue(typeof repos.flags?.durable === 'boolean', 'flags.durable must be a boolean');
      assertTrue(typeof repos.flags?.sharedAcrossProcesses === 'boolean', 'flags.sharedAcrossProcesses must be a boolean');
      assertTrue(!repos.flags.sharedAcrossProcesses || typeof repos.runExclusive === 'function', 'a store shared across processes must provide runExclusive');
    },
  },
  {
    name: 'reads of unknown ids return null or an empty list',
    async body(repos) {
      assertEqual(await repos.transactions.getTransaction('nope'), null, 'getTransaction of an unknown id');
      assertEqual(await repos.transactions.listEvents('nope'), [], 'listEvents of an unknown transaction');
      assertEqual(await repos.transactions.getEvent('nope'), null, 'getEvent of an unknown id');
      assertEqual(await repos.ruleInstances.getRuleInstance('nope'), null, 'ruleInstances.get of an unknown id');
      assertEqual(await repos.ruleInstances.getStoredRuleInstance('nope'), null, 'ruleInstances.getStoredRuleInstance of an unknown id');
      assertEqual(await repos.ruleInstances.listRuleInstances(), [], 'ruleInstances.list of an empty store');
      assertEqual(await repos.users.getUser('nope'), null, 'getUser of an unknown id');
      assertEqual(await repos.users.getUsers([]), [], 'getUsers of no ids');
      assertEqual(await repos.cases.getAlert('nope'), null, 'getAlert of an unknown id');
      assertEqual(await repos.cases.getCase('nope'), null, 'getCase of an unknown id');
      assertEqual(await repos.cases.listAlerts(), [], 'listAlerts of an empty store');
      assertEqual(await repos.cases.listCases(), [], 'listCases of an empty store');
      assertEqual(await repos.comments.listComments({ kind: 'user', id: 'nope' }), [], 'listComments of an unknown target');
      assertEqual(await repos.files.getFile('nope'), null, 'getFile of an unknown key');
      assertEqual(await repos.files.getFileContent('nope'), null, 'getFileContent of an unknown key');
      assertEqual(await repos.aggregates.listEntries('user-sending', 'nope'), [], 'aggregates.listEntries of an unknown key');
    },
  },
  {
    name: 'saveOutcome of a create stores the transaction, and getTransaction returns it with no events',
    async body(repos) {
      const stored = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(buildOutcome(structuredClone(stored), null));
      assertEqual(await repos.transactions.getTransaction('t-1'), stored, 'getTransaction after a create');
      assertEqual(await repos.transactions.listEvents('t-1'), [], 'listEvents after a create');
    },
  },
  {
    name: 'saveOutcome of events stores them: listEvents in arrival order, getEvent by id, getTransaction at the latest version',
    async body(repos) {
      const created = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(buildOutcome(structuredClone(created), null));
      const first = buildEventStep(created, 'e-1', { state: 'PROCESSING', timestamp: FIXTURE_T0 + 5000 });
      await repos.transactions.saveOutcome(buildOutcome(structuredClone(first.transaction), 1, { event: structuredClone(first.event) }));
      // A late event (older timestamp) still comes after in arrival order.
      const second = buildEventStep(first.transaction, 'e-2', { state: 'SENT', amount: 120, timestamp: FIXTURE_T0 + 1000 });
      await repos.transactions.saveOutcome(buildOutcome(structuredClone(second.transaction), 2, { event: structuredClone(second.event) }));
      assertEqual(await repos.transactions.listEvents('t-1'), [first.event, second.event], 'listEvents after two events');
      assertEqual(await repos.transactions.getEvent('e-1'), first.event, 'getEvent of the first event');
      assertEqual(await repos.transactions.getEvent('e-2'), second.event, 'getEvent of the second event');
      const got = await repos.transactions.getTransaction('t-1');
      assertEqual(got, second.transaction, 'getTransaction after two events');
      assertEqual(got?.version, 3, 'version after a create and two events');
    },
  },
  {
    name: 'a create of an existing transaction (expectedVersion null) throws CONCURRENT_UPDATE and applies nothing',
    async body(repos) {
      await seedOneTransaction(repos);
      const before = await captureState(repos, OBSERVED);
      const again = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'carol', amount: 5 }));
      const outcome = buildRichEventOutcome(again, null, 'e-9');
      outcome.transaction = again;
      outcome.event = null;
      await assertRejectsWithCode(() => repos.transactions.saveOutcome(outcome), CONCURRENT_UPDATE, 'saveOutcome of a second create');
      assertEqual(await captureState(repos, OBSERVED), before, 'state after a rejected create');
    },
  },
  {
    name: 'an expectedVersion that differs from the stored version throws CONCURRENT_UPDATE and applies nothing',
    async body(repos) {
      const current = await seedOneTransaction(repos);
      const before = await captureState(repos, OBSERVED);
      for (const version of [current.version - 1, current.version + 1]) {
        await assertRejectsWithCode(
          () => repos.transactions.saveOutcome(buildRichEventOutcome(current, version, 'e-9')),
          CONCURRENT_UPDATE,
          `saveOutcome with expectedVersion ${version} (stored ${current.version})`,
        );
        assertEqual(await captureState(repos, OBSERVED), before, `state after a rejected outcome with expectedVersion ${version}`);
      }
    },
  },
  {
    name: 'an event outcome for a transaction that does not exist throws CONCURRENT_UPDATE and applies nothing',
    async body(repos) {
      await seedOneTransaction(repos);
      const before = await captureState(repos, OBSERVED);
      const ghost = buildStoredTransaction(buildTransaction('t-2', { origin: 'carol', destination: 'dave' }));
      const step = buildEventStep(ghost, 'e-9', { state: 'SENT' });
      const outcome = buildOutcome(step.transaction, 1, {
        event: step.event,
        aggregates: { remove: [], add: buildContributions(step.transaction.transaction) },
        counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
        alertHits: [buildAlertHit('ri-1', 'carol', 't-2', { alertId: 'A-y', caseId: 'C-y' })],
        seenUserIds: ['carol', 'dave'],
      });
      await assertRejectsWithCode(() => repos.transactions.saveOutcome(outcome), CONCURRENT_UPDATE, 'saveOutcome of an event on a missing transaction');
      assertEqual(await captureState(repos, OBSERVED), before, 'state after a rejected event on a missing transaction');
    },
  },
  {
    name: 'an event whose eventId is already stored throws CONCURRENT_UPDATE and applies nothing',
    async body(repos) {
      const current = await seedOneTransaction(repos);
      const other = buildStoredTransaction(buildTransaction('t-2', { origin: 'carol', destination: 'dave' }));
      await repos.transactions.saveOutcome(buildOutcome(other, null, { aggregates: { remove: [], add: buildContributions(other.transaction) } }));
      const before = await captureState(repos, OBSERVED);
      await assertRejectsWithCode(
        () => repos.transactions.saveOutcome(buildRichEventOutcome(current, current.version, 'e-1')),
        CONCURRENT_UPDATE,
        'saveOutcome with a duplicate eventId on the same transaction',
      );
      assertEqual(await captureState(repos, OBSERVED), before, 'state after a rejected duplicate eventId');
      const step = buildEventStep(other, 'e-1', { state: 'SENT' });
      await assertRejectsWithCode(
        () => repos.transactions.saveOutcome(buildOutcome(step.transaction, 1, { event: step.event, counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }] })),
        CONCURRENT_UPDATE,
        'saveOutcome with an eventId stored on another transaction',
      );
      assertEqual(await captureState(repos, OBSERVED), before, 'state after a rejected eventId of another transaction');
    },
  },
  {
    name: 'aggregate contributions are replaced by remove + add, never counted twice',
    async body(repos) {
      const created = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob', amount: 100 }));
      const firstEntries = buildContributions(created.transaction);
      await repos.transactions.saveOutcome(buildOutcome(created, null, { aggregates: { remove: [], add: firstEntries } }));
      assertEqual(await repos.aggregates.listEntries('user-sending', 'alice'), [firstEntries[0]], 'user-sending entries after the create');
      const step = buildEventStep(created, 'e-1', { amount: 250 });
      const secondEntries = buildContributions(step.transaction.transaction);
      await repos.transactions.saveOutcome(
        buildOutcome(step.transaction, 1, { event: step.event, aggregates: { remove: refsOf(firstEntries), add: secondEntries } }),
      );
      assertEqual(await repos.aggregates.listEntries('user-sending', 'alice'), [secondEntries[0]], 'user-sending entries after the update');
      assertEqual(await repos.aggregates.listEntries('user-receiving', 'bob'), [secondEntries[1]], 'user-receiving entries after the update');
      const window = { start: FIXTURE_T0 - 1, end: FIXTURE_T0 + 1 };
      assertEqual(
        await repos.aggregates.queryAggregates([
          { series: 'user-sending', key: 'alice', ...window, fn: 'count' },
          { series: 'user-sending', key: 'alice', ...window, fn: 'sum' },
        ]),
        [1, 25_000_000_000n],
        'count and sum after the update',
      );
    },
  },
  {
    name: 'removing a missing entry is ignored, and adding an entry with a held id replaces it',
    async body(repos) {
      const created = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob', amount: 100 }));
      await repos.transactions.saveOutcome(buildOutcome(created, null, { aggregates: { remove: [], add: buildContributions(created.transaction) } }));
      const replacement: SeriesEntry = {
        series: 'user-sending',
        key: 'alice',
        id: 't-1',
        timestamp: FIXTURE_T0 + 10,
        amount: 7n,
        values: { counterparty: 'bob' },
      };
      const step = buildEventStep(created, 'e-1');
      await repos.transactions.saveOutcome(
        buildOutcome(step.transaction, 1, {
          event: step.event,
          aggregates: { remove: [{ series: 'user-sending', key: 'nobody', id: 't-404' }], add: [replacement] },
        }),
      );
      assertEqual(await repos.aggregates.listEntries('user-sending', 'alice'), [replacement], 'entries after an upsert of a held id');
      assertEqual(await repos.aggregates.listEntries('user-sending', 'nobody'), [], 'entries of the key of a missing ref');
    },
  },
  {
    name: 'aggregates.listEntries are ordered by timestamp and queryAggregates answers every function over the closed window',
    async body(repos) {
      const t0 = FIXTURE_T0;
      const entries: SeriesEntry[] = [
        { series: 'user-sending', key: 'alice', id: 'c', timestamp: t0 + 20, amount: 300n, values: { counterparty: 'bob' } },
        { series: 'user-sending', key: 'alice', id: 'a', timestamp: t0, amount: 100n, values: { counterparty: 'bob' } },
        { series: 'user-sending', key: 'alice', id: 'b', timestamp: t0 + 10, amount: null, values: { counterparty: 'carol' } },
        { series: 'user-sending', key: 'alice', id: 'd', timestamp: t0 + 30, amount: -50n, values: { counterparty: '' } },
      ];
      const stored = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice' }));
      await repos.transactions.saveOutcome(buildOutcome(stored, null, { aggregates: { remove: [], add: entries } }));
      assertEqual(
        (await repos.aggregates.listEntries('user-sending', 'alice')).map((e) => e.id),
        ['a', 'b', 'c', 'd'],
        'entry ids in timestamp order',
      );
      const q = (
        start: number,
        end: number,
        fn: AggregateFunction,
        extra: { excludeId?: string; field?: string; values?: string[]; limit?: number; includeValue?: string } = {},
      ) => ({
        series: 'user-sending',
        key: 'alice',
        start,
        end,
        fn,
        ...extra,
      });
      const rows = [
        { name: 'count over [t0, t0+30] (both ends inclusive)', query: q(t0, t0 + 30, 'count'), expected: 4 },
        { name: 'count over [t0+1, t0+29] (just inside the ends)', query: q(t0 + 1, t0 + 29, 'count'), expected: 2 },
        { name: 'count with excludeId', query: q(t0, t0 + 30, 'count', { excludeId: 'c' }), expected: 3 },
        { name: 'count of an unknown key', query: { ...q(t0, t0 + 30, 'count'), key: 'nobody' }, expected: 0 },
        { name: 'sum skips null amounts', query: q(t0, t0 + 30, 'sum'), expected: 350n },
        { name: 'sum of an empty window', query: q(t0 + 1, t0 + 9, 'sum'), expected: 0n },
        { name: 'amountCount counts non-null amounts', query: q(t0, t0 + 30, 'amountCount'), expected: 3 },
        { name: 'min', query: q(t0, t0 + 30, 'min'), expected: -50n },
        { name: 'max with excludeId', query: q(t0, t0 + 30, 'max', { excludeId: 'c' }), expected: 100n },
        { name: 'min of an empty window', query: q(t0 + 11, t0 + 19, 'min'), expected: null },
        { name: 'distinct ignores empty values', query: q(t0, t0 + 30, 'distinct', { field: 'counterparty' }), expected: 2 },
        {
          name: 'distinct with includeValue adds a value not in the window',
          query: q(t0, t0 + 30, 'distinct', { field: 'counterparty', includeValue: 'dave' }),
          expected: 3,
        },
        { name: 'countIn counts entries whose value is listed', query: q(t0, t0 + 30, 'countIn', { field: 'counterparty', values: ['bob'] }), expected: 2 },
        {
          name: 'sumIn sums the amounts of entries whose value is listed',
          query: q(t0, t0 + 30, 'sumIn', { field: 'counterparty', values: ['bob', 'carol'] }),
          expected: 400n,
        },
        { name: 'latest is the timestamp of the last entry in the window', query: q(t0, t0 + 29, 'latest'), expected: t0 + 20 },
        { name: 'latest with excludeId skips it', query: q(t0, t0 + 29, 'latest', { excludeId: 'c' }), expected: t0 + 10 },
        { name: 'lastAmountCount of the last 2 entries (one has no amount)', query: q(t0, t0 + 20, 'lastAmountCount', { limit: 2 }), expected: 1 },
        { name: 'lastMin over the last 3 entries', query: q(t0, t0 + 30, 'lastMin', { limit: 3 }), expected: -50n },
        { name: 'lastMax over the last 2 entries before t0+30', query: q(t0, t0 + 29, 'lastMax', { limit: 2 }), expected: 300n },
        {
          name: 'lastEntries lists the last 2 entries oldest first, with their values and null amounts',
          query: q(t0, t0 + 20, 'lastEntries', { limit: 2 }),
          expected: [
            { id: 'b', timestamp: t0 + 10, amount: null, values: { counterparty: 'carol' } },
            { id: 'c', timestamp: t0 + 20, amount: 300n, values: { counterparty: 'bob' } },
          ],
        },
        {
          name: 'lastEntries with excludeId looks one further back',
          query: q(t0, t0 + 30, 'lastEntries', { limit: 2, excludeId: 'd' }),
          expected: [
            { id: 'b', timestamp: t0 + 10, amount: null, values: { counterparty: 'carol' } },
            { id: 'c', timestamp: t0 + 20, amount: 300n, values: { counterparty: 'bob' } },
          ],
        },
        { name: 'lastEntries of an empty window is an empty list', query: q(t0 + 11, t0 + 19, 'lastEntries', { limit: 5 }), expected: [] },
      ];
      const answers = await repos.aggregates.queryAggregates(rows.map((r) => r.query));
      for (const [i, row] of rows.entries()) assertEqual(answers[i], row.expected, `aggregates.queryAggregates: ${row.name}`);
    },
  },
  {
    name: 'queryAggregates cuts the last N entries inside a group of one timestamp by id, as the memory store orders them',
    async body(repos) {
      const t0 = FIXTURE_T0;
      const at = (id: string, timestamp: number, amount: bigint): SeriesEntry => ({
        series: 'user-sending',
        key: 'tied',
        id,
        timestamp,
        amount,
        values: { n: id },
      });
      // Ids inserted out of order; three share the latest instant.
      const entries = [at('r', t0 + 5, 30n), at('p', t0 + 5, 10n), at('s', t0 + 1, 40n), at('q', t0 + 5, 20n)];
      const stored = buildStoredTransaction(buildTransaction('t-tied', { origin: 'tied' }));
      await repos.transactions.saveOutcome(buildOutcome(stored, null, { aggregates: { remove: [], add: entries } }));
      const q = (fn: AggregateFunction, limit: number, excludeId?: string) => ({
        series: 'user-sending',
        key: 'tied',
        start: t0,
        end: t0 + 10,
        fn,
        limit,
        ...(excludeId === undefined ? {} : { excludeId }),
      });
      const rows = [
        { name: 'lastEntries limit 2 keeps the two highest ids of the tie', query: q('lastEntries', 2), expected: ['q', 'r'] },
        { name: 'lastEntries limit 1 keeps the highest id of the tie', query: q('lastEntries', 1), expected: ['r'] },
        { name: 'lastEntries limit 4 reaches past the tie', query: q('lastEntries', 4), expected: ['s', 'p', 'q', 'r'] },
        { name: 'lastEntries limit 2 without r', query: q('lastEntries', 2, 'r'), expected: ['p', 'q'] },
        { name: 'lastMin over the last 2 (q and r)', query: q('lastMin', 2), expected: 20n },
        { name: 'lastMax over the last 3 with r excluded (s, p, q)', query: q('lastMax', 3, 'r'), expected: 40n },
        { name: 'lastAmountCount over the last 2', query: q('lastAmountCount', 2), expected: 2 },
      ];
      const answers = await repos.aggregates.queryAggregates(rows.map((r) => r.query));
      for (const [i, row] of rows.entries()) {
        const answer = answers[i];
        const got = Array.isArray(answer) ? answer.map((e) => (e as { id: string }).id) : answer;
        assertEqual(got, row.expected, `aggregates.queryAggregates: ${row.name}`);
      }
    },
  },
  {
    name: 'queryAggregates answers the graph functions over several keys: shortest time-increasing path, shared source, capped edges',
    async body(repos) {
      const t0 = FIXTURE_T0;
      const edge = (key: string, id: string, at: number, to: string, series = 'user-sending'): SeriesEntry => ({
        series,
        key,
        id,
        timestamp: t0 + at,
        amount: 100n,
        values: to === '' ? {} : { counterparty: to },
      });
      // alice → bob → carol → alice (t0+10, +20, +30); bob → alice too late for a path via bob
      // first (t0+5 is before alice's edge); dave pays alice at t0+40 after his own unrelated edge.
      // Receiving side: erin and frank were both paid by gina before paying hal; ivy by gina after.
      const entries: SeriesEntry[] = [
        edge('alice', 'a1', 10, 'bob'),
        edge('bob', 'b0', 5, 'alice'),
        edge('bob', 'b1', 20, 'carol'),
        edge('bob', 'b2', 21, ''),
        edge('carol', 'c1', 30, 'alice'),
        edge('dave', 'd1', 40, 'alice'),
        edge('hal', 'r1', 50, 'erin', 'user-receiving'),
        edge('hal', 'r2', 51, 'frank', 'user-receiving'),
        edge('hal', 'r3', 52, 'ivy', 'user-receiving'),
        edge('erin', 'r4', 40, 'gina', 'user-receiving'),
        edge('frank', 'r5', 41, 'gina', 'user-receiving'),
        edge('ivy', 'r6', 60, 'gina', 'user-receiving'),
      ];
      const stored = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice' }));
      await repos.transactions.saveOutcome(buildOutcome(stored, null, { aggregates: { remove: [], add: entries } }));
      const hops = (key: string, values: string[], limit: number, fanOut: number, end = t0 + 100, excludeId?: string) => ({
        series: 'user-sending',
        key,
        start: t0,
        end,
        fn: 'hopsTo' as const,
        field: 'counterparty',
        values,
        limit,
        fanOut,
        ...(excludeId === undefined ? {} : { excludeId }),
      });
      const shared = (key: string, fanOut: number, includeValue?: string) => ({
        series: 'user-receiving',
        key,
        start: t0,
        end: t0 + 100,
        fn: 'sharedSource' as const,
        field: 'counterparty',
        fanOut,
        ...(includeValue === undefined ? {} : { includeValue }),
      });
      const rows = [
        { name: 'hopsTo: a three-edge cycle alice → bob → carol → alice', query: hops('alice', ['alice'], 3, 4), expected: 3 },
        { name: 'hopsTo: none within two edges', query: hops('alice', ['alice'], 2, 4), expected: 0 },
        { name: 'hopsTo: one edge straight to a target', query: hops('alice', ['bob'], 1, 4), expected: 1 },
        { name: 'hopsTo: the window end cuts the last edge', query: hops('alice', ['alice'], 3, 4, t0 + 29), expected: 0 },
        { name: 'hopsTo: an excluded entry is no edge', query: hops('alice', ['alice'], 3, 4, t0 + 100, 'b1'), expected: 0 },
        { name: "hopsTo: fanOut 1 keeps only bob's latest entry (no target), cutting the path", query: hops('alice', ['alice'], 3, 1), expected: 0 },
        { name: 'hopsTo: an unknown key has no path', query: hops('nobody', ['alice'], 3, 4), expected: 0 },
        { name: 'sharedSource: erin and frank both paid by gina earlier', query: shared('hal', 4), expected: 2 },
        { name: "sharedSource: includeValue adds a counterparty at the window's end", query: shared('hal', 4, 'ivy'), expected: 3 },
        { name: 'sharedSource: fanOut 2 keeps only frank and ivy', query: shared('hal', 2), expected: 1 },
      ];
      const answers = await repos.aggregates.queryAggregates(rows.map((r) => r.query));
      for (const [i, row] of rows.entries()) assertEqual(answers[i], row.expected, `aggregates.queryAggregates: ${row.name}`);
    },
  },
  {
    name: 'scanTransactions yields every stored transaction once, in its latest version',
    async body(repos) {
      const a = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', amount: 100 }));
      const b = buildStoredTransaction(buildTransaction('t-2', { origin: 'bob', amount: 200 }));
      await repos.transactions.saveOutcome(buildOutcome(a, null));
      await repos.transactions.saveOutcome(buildOutcome(b, null));
      const step = buildEventStep(a, 'e-1', { amount: 300 });
      await repos.transactions.saveOutcome(buildOutcome(step.transaction, 1, { event: step.event }));
      const seen: Transaction[] = [];
      for await (const t of repos.transactions.scanTransactions()) seen.push(t);
      seen.sort((x, y) => (x.transactionId < y.transactionId ? -1 : 1));
      assertEqual(seen, [step.transaction.transaction, b.transaction], 'scanned transactions');
    },
  },
  {
    name: 'scanHistory yields every create request and event as received, in time order (a transaction before its events at one instant), within a range',
    async body(repos) {
      const a = buildStoredTransaction(buildTransaction('t-b', { origin: 'alice', amount: 100, timestamp: FIXTURE_T0 + 5_000 }));
      const b = buildStoredTransaction(buildTransaction('t-a', { origin: 'bob', amount: 200, timestamp: FIXTURE_T0 + 5_000 }));
      const c = buildStoredTransaction(buildTransaction('t-c', { origin: 'carol', amount: 300, timestamp: FIXTURE_T0 }));
      await repos.transactions.saveOutcome(buildOutcome(a, null));
      await repos.transactions.saveOutcome(buildOutcome(b, null));
      await repos.transactions.saveOutcome(buildOutcome(c, null));
      // A late event (older than a's latest one) arrives second: it is listed by its timestamp.
      const first = buildEventStep(a, 'e-1', { amount: 150, timestamp: FIXTURE_T0 + 9_000 });
      await repos.transactions.saveOutcome(buildOutcome(first.transaction, 1, { event: first.event }));
      const late = buildEventStep(first.transaction, 'e-2', { amount: 160, timestamp: FIXTURE_T0 + 7_000 });
      await repos.transactions.saveOutcome(buildOutcome(late.transaction, 2, { event: late.event }));
      const seen: string[] = [];
      for await (const item of repos.transactions.scanHistory()) {
        seen.push(item.kind === 'transaction' ? `t:${item.operation.transactionId}` : `e:${item.operation.eventId}`);
      }
      assertEqual(seen, ['t:t-c', 't:t-a', 't:t-b', 'e:e-2', 'e:e-1'], 'history in time order');
      const firstSeen: unknown[] = [];
      for await (const item of repos.transactions.scanHistory()) firstSeen.push(item.operation);
      assertEqual(firstSeen[1], b.request, 'a create request as received');
      assertEqual(firstSeen[3], late.event.event, 'an event as received');
      const ranged: string[] = [];
      for await (const item of repos.transactions.scanHistory({ from: FIXTURE_T0 + 5_000, to: FIXTURE_T0 + 7_000 })) {
        ranged.push(item.kind === 'transaction' ? `t:${item.operation.transactionId}` : `e:${item.operation.eventId}`);
      }
      assertEqual(ranged, ['t:t-a', 't:t-b', 'e:e-2'], 'history within a range, both ends included');
    },
  },
  {
    name: 'replaceSeries replaces every key of one series atomically, leaves other series alone, and [] drops it',
    async body(repos) {
      const created = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob', amount: 100 }));
      await repos.transactions.saveOutcome(buildOutcome(created, null, { aggregates: { remove: [], add: buildContributions(created.transaction) } }));
      const sendingBefore = await repos.aggregates.listEntries('user-sending', 'alice');
      const series = 'user-sending~f1';
      const first: SeriesEntry[] = [
        { series, key: 'alice', id: 't-1', timestamp: FIXTURE_T0, amount: 1n },
        { series, key: 'carol', id: 't-9', timestamp: FIXTURE_T0 + 1, amount: null, values: { counterparty: 'bob' } },
      ];
      await repos.aggregates.replaceSeries(series, first);
      assertEqual(await repos.aggregates.listEntries(series, 'carol'), [first[1]], 'entries of the filled series');
      const second: SeriesEntry[] = [{ series, key: 'alice', id: 't-2', timestamp: FIXTURE_T0 + 2, amount: 5n }];
      await repos.aggregates.replaceSeries(series, second);
      assertEqual(await repos.aggregates.listEntries(series, 'alice'), second, 'entries after a replace (old ids gone)');
      assertEqual(await repos.aggregates.listEntries(series, 'carol'), [], 'a key absent from the replacement is emptied');
      const bad: SeriesEntry[] = [
        { series, key: 'x', id: 'ok', timestamp: FIXTURE_T0, amount: 1n },
        { series: 'user-sending', key: 'x', id: 'bad', timestamp: FIXTURE_T0, amount: 1n },
      ];
      await assertRejectsWithCode(() => repos.aggregates.replaceSeries(series, bad), 'VALIDATION_FAILED', 'replaceSeries with an entry of another series');
      assertEqual(await repos.aggregates.listEntries(series, 'alice'), second, 'a rejected replace changes nothing');
      await repos.aggregates.replaceSeries(series, []);
      assertEqual(await repos.aggregates.listEntries(series, 'alice'), [], 'entries after dropping the series');
      assertEqual(await repos.aggregates.listEntries('user-sending', 'alice'), sendingBefore, 'other series are untouched');
    },
  },
  {
    name: 'prune drops entries below each series horizon in every key, records the highest horizon, and a replace forgets it',
    async body(repos) {
      const entry = (series: string, key: string, id: string, at: number): SeriesEntry => ({ series, key, id, timestamp: FIXTURE_T0 + at, amount: 1n });
      const a = 'user-sending~p';
      const b = 'user-receiving~p';
      await repos.aggregates.replaceSeries(a, [
        entry(a, 'alice', 't-1', 0),
        entry(a, 'alice', 't-2', 10),
        entry(a, 'bob', 't-3', 5),
        entry(a, 'bob', 't-4', 20),
      ]);
      await repos.aggregates.replaceSeries(b, [entry(b, 'alice', 't-1', 0)]);
      assertEqual(await repos.aggregates.getRetentionHorizons(), new Map(), 'nothing pruned yet');
      assertEqual(await repos.aggregates.pruneSeries(new Map([[a, FIXTURE_T0 + 10]])), 2, 'entries dropped (below the horizon, not at it)');
      assertEqual(
        (await repos.aggregates.listEntries(a, 'alice')).map((e) => e.id),
        ['t-2'],
        'alice keeps the entry at the horizon',
      );
      assertEqual(
        (await repos.aggregates.listEntries(a, 'bob')).map((e) => e.id),
        ['t-4'],
        'every key is pruned',
      );
      assertEqual(
        (await repos.aggregates.listEntries(b, 'alice')).map((e) => e.id),
        ['t-1'],
        'a series not named is untouched',
      );
      assertEqual(await repos.aggregates.pruneSeries(new Map([[a, FIXTURE_T0]])), 0, 'a lower horizon drops nothing');
      assertEqual(await repos.aggregates.getRetentionHorizons(), new Map([[a, FIXTURE_T0 + 10]]), 'the highest horizon is kept');
      const [answer] = await repos.aggregates.queryAggregates([{ series: a, key: 'bob', start: FIXTURE_T0 + 10, end: FIXTURE_T0 + 30, fn: 'count' }]);
      assertEqual(answer, 1, 'a query from the horizon on is exact');
      await repos.aggregates.replaceSeries(a, [entry(a, 'alice', 't-1', 0)]);
      assertEqual(await repos.aggregates.getRetentionHorizons(), new Map(), 'a replaced series is whole again');
    },
  },
  {
    name: 'batches: putBatch stores a batch once per (kind, batchId) and answers the first one stored; getBatch reads it back, null for an unknown id or another kind',
    async body(repos) {
      const batch: StoredBatch = {
        kind: 'TRANSACTION',
        batchId: 'b-1',
        fingerprint: 'f-1',
        response: { status: 'PARTIAL_FAILURE', batchId: 'b-1', successful: 2, failed: 1, failedRecords: [{ id: 't-3', reasonCode: 'VALIDATION_FAILED' }] },
        recordIds: ['t-2', 't-1'],
        createdAt: FIXTURE_T0,
      };
      assertEqual(await repos.batches.getBatch('TRANSACTION', 'b-1'), null, 'getBatch before any putBatch');
      assertEqual(await repos.batches.putBatch(batch), batch, 'putBatch of a new batch returns it');
      assertEqual(await repos.batches.getBatch('TRANSACTION', 'b-1'), batch, 'getBatch after putBatch');
      const other = { ...batch, fingerprint: 'f-2', recordIds: ['t-9'], response: { status: 'SUCCESS' as const, batchId: 'b-1', successful: 1, failed: 0 } };
      assertEqual(await repos.batches.putBatch(other), batch, 'a second putBatch of the same kind and id returns the first');
      assertEqual(await repos.batches.getBatch('TRANSACTION', 'b-1'), batch, 'the first batch stays stored');
      assertEqual(await repos.batches.getBatch('TRANSACTION_EVENT', 'b-1'), null, 'another kind has its own ids');
      const events = { ...other, kind: 'TRANSACTION_EVENT' as const };
      assertEqual(await repos.batches.putBatch(events), events, 'the same id under another kind is another batch');
      assertEqual(await repos.batches.getBatch('TRANSACTION_EVENT', 'b-1'), events, 'getBatch of the other kind');
    },
  },
  {
    name: 'lists: putList/getList/listLists/deleteList, and lookupListItems answers by subtype and exact value, false for an unknown list',
    async body(repos) {
      const list = {
        listId: 'bl-1',
        listType: 'BLACKLIST' as const,
        subtype: 'USER_ID' as const,
        items: ['alice', 'bob'],
        createdAt: FIXTURE_T0,
        updatedAt: FIXTURE_T0,
      };
      await repos.lists.putList(list);
      assertEqual(await repos.lists.getList('bl-1'), list, 'getList after putList');
      assertEqual(await repos.lists.getList('nope'), null, 'getList of an unknown list');
      const { items: _items, ...summary } = list;
      assertEqual(await repos.lists.listLists(), [{ ...summary, itemCount: 2 }], 'listLists (item counts, not items)');
      assertEqual(
        await repos.lists.lookupListItems('bl-1', [
          { listType: 'BLACKLIST', subtype: 'USER_ID', value: 'alice' },
          { listType: 'BLACKLIST', subtype: 'USER_ID', value: 'Alice' },
          { listType: 'BLACKLIST', subtype: 'IBAN_NUMBER', value: 'bob' },
          { listType: 'WHITELIST', subtype: 'USER_ID', value: 'bob' },
          { listType: 'BLACKLIST', subtype: 'USER_ID', value: 'bob' },
        ]),
        [true, false, false, false, true],
        'lookup answers in probe order',
      );
      assertEqual(
        await repos.lists.lookupListItems('nope', [{ listType: 'BLACKLIST', subtype: 'USER_ID', value: 'alice' }]),
        [false],
        'lookupListItems in an unknown list',
      );
      await repos.lists.putList({ ...list, items: ['carol'], updatedAt: FIXTURE_T0 + 1 });
      assertEqual(
        await repos.lists.lookupListItems('bl-1', [{ listType: 'BLACKLIST', subtype: 'USER_ID', value: 'alice' }]),
        [false],
        'lookup after a replace',
      );
      assertEqual(await repos.lists.deleteList('bl-1'), true, 'deleteList of a stored list');
      assertEqual(await repos.lists.deleteList('bl-1'), false, 'deleteList again');
      assertEqual(await repos.lists.getList('bl-1'), null, 'getList after delete');
    },
  },
  {
    name: 'counters of successive outcomes add up on the instance (get and list)',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-2'));
      for (let i = 0; i < 3; i++) {
        const stored = buildStoredTransaction(buildTransaction(`t-${i}`, { origin: 'alice' }));
        await repos.transactions.saveOutcome(
          buildOutcome(stored, null, {
            counters: [
              { instanceId: 'ri-1', runs: 1, hits: i === 0 ? 1 : 0 },
              { instanceId: 'ri-2', runs: 1, hits: 1 },
            ],
          }),
        );
      }
      const one = await repos.ruleInstances.getRuleInstance('ri-1');
      assertEqual([one?.runCount, one?.hitCount], [3, 1], 'ri-1 [runCount, hitCount]');
      const list = await repos.ruleInstances.listRuleInstances();
      assertEqual(
        list.map((i) => [i.id, i.runCount, i.hitCount]),
        [
          ['ri-1', 3, 1],
          ['ri-2', 3, 3],
        ],
        'list() [id, runCount, hitCount]',
      );
    },
  },
  {
    name: 'concurrent outcomes on different transactions add up exactly and share one alert and case per (instance, user)',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      const n = 40;
      await Promise.all(
        Array.from({ length: n }, (_, i) => {
          const stored = buildStoredTransaction(buildTransaction(`t-${i}`, { origin: 'alice', destination: `bob-${i % 4}`, timestamp: FIXTURE_T0 + i }));
          return repos.transactions.saveOutcome(
            buildOutcome(stored, null, {
              aggregates: { remove: [], add: buildContributions(stored.transaction) },
              counters: [{ instanceId: 'ri-1', runs: 1, hits: i % 2 }],
              alertHits: i % 2 === 1 ? [buildAlertHit('ri-1', 'alice', `t-${i}`, { alertId: `A-${i}`, caseId: `C-${i}` })] : [],
              seenUserIds: ['alice', `bob-${i % 4}`],
              now: FIXTURE_T0 + i,
            }),
          );
        }),
      );
      const instance = await repos.ruleInstances.getRuleInstance('ri-1');
      assertEqual([instance?.runCount, instance?.hitCount], [n, n / 2], '[runCount, hitCount] after concurrent outcomes');
      const [count] = await repos.aggregates.queryAggregates([{ series: 'user-sending', key: 'alice', start: FIXTURE_T0, end: FIXTURE_T0 + n, fn: 'count' }]);
      assertEqual(count, n, 'user-sending count of alice after concurrent outcomes');
      const alerts = await repos.cases.listAlerts();
      assertEqual(alerts.length, 1, 'number of alerts for one (instance, user)');
      assertEqual(
        [...(alerts[0]?.entityDetails.transactionIds ?? [])].sort(),
        Array.from({ length: n / 2 }, (_, k) => `t-${2 * k + 1}`).sort(),
        'transaction ids of the shared alert',
      );
      const cases = await repos.cases.listCases();
      assertEqual(
        cases.map((c) => c.alertIds),
        [[alerts[0]?.alertId]],
        'one case holding the one alert',
      );
      const users = await repos.users.getUsers(['alice', 'bob-0', 'bob-3']);
      assertTrue(
        users.every((u) => u !== null && u.type === null),
        'every seen user exists as a bare record',
      );
    },
  },
  {
    name: 'counters naming an instance that does not exist are ignored',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-gone'));
      await repos.ruleInstances.deleteRuleInstance('ri-gone');
      const stored = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice' }));
      await repos.transactions.saveOutcome(
        buildOutcome(stored, null, {
          counters: [
            { instanceId: 'ri-1', runs: 1, hits: 1 },
            { instanceId: 'ri-gone', runs: 1, hits: 1 },
            { instanceId: 'ri-never', runs: 1, hits: 0 },
          ],
        }),
      );
      assertEqual(
        (await repos.ruleInstances.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]),
        [['ri-1', 1, 1]],
        'instances after counters of missing ones',
      );
      assertEqual(await repos.ruleInstances.getRuleInstance('ri-gone'), null, 'a deleted instance stays deleted');
      assertEqual(await repos.ruleInstances.getRuleInstance('ri-never'), null, 'a never-created instance is not created by counters');
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-gone'));
      const back = await repos.ruleInstances.getRuleInstance('ri-gone');
      assertEqual([back?.runCount, back?.hitCount], [0, 0], 'counters of a re-created instance start at 0');
    },
  },
  {
    name: 'ruleInstances putRuleInstance/getRuleInstance/getStoredRuleInstance/listRuleInstances/deleteRuleInstance: replace keeps counters and position, delete reports existence',
    async body(repos) {
      const a = buildStoredRuleInstance('ri-a');
      const b = buildStoredRuleInstance('ri-b');
      await repos.ruleInstances.putRuleInstance(structuredClone(a));
      await repos.ruleInstances.putRuleInstance(structuredClone(b));
      assertEqual(await repos.ruleInstances.getStoredRuleInstance('ri-a'), a, 'getStoredRuleInstance after put');
      assertEqual(await repos.ruleInstances.getRuleInstance('ri-a'), { ...a.instance, runCount: 0, hitCount: 0 }, 'get after put (counters 0)');
      const stored = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice' }));
      await repos.transactions.saveOutcome(buildOutcome(stored, null, { counters: [{ instanceId: 'ri-a', runs: 1, hits: 1 }] }));
      const a2 = buildStoredRuleInstance('ri-a', { threshold: 500, now: FIXTURE_T0 + 1 });
      a2.derived = { riskLevelParameters: false, riskLevelActions: true, riskLevelsTriggersOnHit: true };
      await repos.ruleInstances.putRuleInstance(structuredClone(a2));
      assertEqual(await repos.ruleInstances.getStoredRuleInstance('ri-a'), a2, 'getStoredRuleInstance after replace');
      assertEqual(await repos.ruleInstances.getRuleInstance('ri-a'), { ...a2.instance, runCount: 1, hitCount: 1 }, 'get after replace keeps counters');
      assertEqual(
        (await repos.ruleInstances.listRuleInstances()).map((i) => i.id),
        ['ri-a', 'ri-b'],
        'list keeps creation order after a replace',
      );
      assertEqual(await repos.ruleInstances.deleteRuleInstance('ri-a'), true, 'delete of an existing instance');
      assertEqual(await repos.ruleInstances.deleteRuleInstance('ri-a'), false, 'delete of a deleted instance');
      assertEqual(await repos.ruleInstances.getRuleInstance('ri-a'), null, 'get after delete');
      assertEqual(await repos.ruleInstances.getStoredRuleInstance('ri-a'), null, 'getStoredRuleInstance after delete');
      assertEqual(
        (await repos.ruleInstances.listRuleInstances()).map((i) => i.id),
        ['ri-b'],
        'list after delete',
      );
    },
  },
  {
    name: 'ruleInstances.listRuleInstanceVersions: every version put, newest first; a version put again is replaced; versions outlive a delete',
    async body(repos) {
      assertEqual(await repos.ruleInstances.listRuleInstanceVersions('ri-v'), [], 'no versions of an id never put');
      const v1 = buildStoredRuleInstance('ri-v', { threshold: 100 });
      const v2 = buildStoredRuleInstance('ri-v', { threshold: 200, version: 2, now: FIXTURE_T0 + 1 });
      await repos.ruleInstances.putRuleInstance(structuredClone(v1));
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-other', { threshold: 7 }));
      await repos.ruleInstances.putRuleInstance(structuredClone(v2));
      assertEqual(await repos.ruleInstances.listRuleInstanceVersions('ri-v'), [v2.instance, v1.instance], 'versions newest first');
      const v2again = buildStoredRuleInstance('ri-v', { threshold: 250, version: 2, now: FIXTURE_T0 + 2 });
      await repos.ruleInstances.putRuleInstance(structuredClone(v2again));
      assertEqual(await repos.ruleInstances.listRuleInstanceVersions('ri-v'), [v2again.instance, v1.instance], 'a version put again replaces it');
      await repos.ruleInstances.deleteRuleInstance('ri-v');
      assertEqual(await repos.ruleInstances.listRuleInstanceVersions('ri-v'), [v2again.instance, v1.instance], 'versions after a delete');
      assertEqual(
        (await repos.ruleInstances.listRuleInstanceVersions('ri-other')).map((v) => v.version),
        [1],
        'another instance has its own versions',
      );
    },
  },
  {
    name: 'audit: every auditing write (rule instance put/delete, list put/delete, user profile and event, comment) appends its entries in order; listAuditEntries filters, pages by seq both ways and counts',
    async body(repos) {
      const audit = (n: number, entityType: AuditEntry['entityType'], entityId: string, action: AuditEntry['action'], actor = 'alice') =>
        buildAuditEntry(
          { entityType, entityId, action, before: action === 'CREATE' ? null : { n: n - 1 }, after: action === 'DELETE' ? null : { n } },
          { auditId: `au-${n}`, actor, timestamp: FIXTURE_T0 + n },
        );
      const entries = [
        audit(1, 'RULE_INSTANCE', 'ri-a', 'CREATE'),
        audit(2, 'LIST', 'l-1', 'CREATE', 'bob'),
        audit(3, 'USER', 'u-1', 'CREATE'),
        audit(4, 'USER', 'u-1', 'UPDATE', 'bob'),
        audit(5, 'COMMENT', 'c-1', 'CREATE'),
        audit(6, 'LIST', 'l-1', 'DELETE'),
        audit(7, 'RULE_INSTANCE', 'ri-a', 'DELETE', 'bob'),
      ];
      const [e1, e2, e3, e4, e5, e6, e7] = entries as [AuditEntry, AuditEntry, AuditEntry, AuditEntry, AuditEntry, AuditEntry, AuditEntry];
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-a'), { audit: [e1] });
      await repos.lists.putList(
        { listId: 'l-1', listType: 'BLACKLIST', subtype: 'USER_ID', items: ['x'], createdAt: FIXTURE_T0, updatedAt: FIXTURE_T0 },
        { audit: [e2] },
      );
      await repos.users.saveUserProfile({
        userId: 'u-1',
        type: 'CONSUMER',
        profile: { userId: 'u-1', createdTimestamp: FIXTURE_T0 },
        now: FIXTURE_T0,
        audit: [e3],
      });
      await repos.users.saveUserEvent({
        event: {
          eventId: 'ue-1',
          userId: 'u-1',
          type: 'CONSUMER',
          event: { eventId: 'ue-1', userId: 'u-1', timestamp: FIXTURE_T0 + 1, updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'DE' } } },
          clientEventId: true,
          arrival: 0,
          user: { userId: 'u-1', createdTimestamp: FIXTURE_T0, userDetails: { countryOfResidence: 'DE' } },
          result: { executedRules: [], hitRules: [] },
        },
        now: FIXTURE_T0 + 1,
        audit: [e4],
      });
      await repos.comments.addComment(
        { kind: 'user', id: 'u-1' },
        { commentId: 'c-1', body: 'b', files: [], createdTimestamp: FIXTURE_T0, updatedTimestamp: FIXTURE_T0 },
        { audit: [e5] },
      );
      assertEqual(await repos.lists.deleteList('l-1', { audit: [e6] }), true, 'deleteList of a stored list');
      assertEqual(await repos.ruleInstances.deleteRuleInstance('ri-a', { audit: [e7] }), true, 'deleteRuleInstance of a stored instance');
      const all = await repos.audit.listAuditEntries({ order: 'ASC', limit: 100 });
      assertEqual(
        all.entries.map((e) => e.entry),
        entries,
        'every entry, as given, in the order written',
      );
      assertEqual(all.total, 7, 'total of all entries');
      const seqs = all.entries.map((e) => e.seq);
      assertTrue(
        seqs.every((seq, i) => Number.isSafeInteger(seq) && (i === 0 || seq > (seqs[i - 1] as number))),
        'seq grows with every entry',
      );
      const ids = async (
        query: Omit<Parameters<Repositories['audit']['listAuditEntries']>[0], 'order' | 'limit'> & { order?: 'ASC' | 'DESC'; limit?: number },
      ) => {
        const page = await repos.audit.listAuditEntries({ order: 'ASC', limit: 100, ...query });
        return [page.entries.map((e) => e.entry.auditId), page.total];
      };
      assertEqual(await ids({ entityType: 'USER' }), [['au-3', 'au-4'], 2], 'by entityType');
      assertEqual(await ids({ entityType: 'LIST', entityId: 'l-1' }), [['au-2', 'au-6'], 2], 'by entityType and entityId');
      assertEqual(await ids({ action: 'DELETE' }), [['au-6', 'au-7'], 2], 'by action');
      assertEqual(await ids({ actor: 'bob' }), [['au-2', 'au-4', 'au-7'], 3], 'by actor');
      assertEqual(await ids({ fromTimestamp: FIXTURE_T0 + 3, toTimestamp: FIXTURE_T0 + 5 }), [['au-3', 'au-4', 'au-5'], 3], 'by a timestamp range, inclusive');
      assertEqual(await ids({ actor: 'bob', order: 'DESC' }), [['au-7', 'au-4', 'au-2'], 3], 'newest first');
      assertEqual(await ids({ limit: 2 }), [['au-1', 'au-2'], 7], 'limit; total counts every match');
      assertEqual(await ids({ position: seqs[1] as number, limit: 2 }), [['au-3', 'au-4'], 7], 'ascending past a position');
      assertEqual(await ids({ position: seqs[4] as number, order: 'DESC', limit: 3 }), [['au-4', 'au-3', 'au-2'], 7], 'descending past a position');
      assertEqual(await ids({ position: seqs[6] as number }), [[], 7], 'nothing past the last entry');
      assertEqual(await ids({ entityId: 'nobody' }), [[], 0], 'no match');
      // An entry written after a read comes after every entry that read saw.
      const late = audit(8, 'RULE_INSTANCE', 'ri-b', 'CREATE');
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-b'), { audit: [late] });
      assertEqual(await ids({ position: seqs[6] as number }), [['au-8'], 8], 'a later write is past the last position read');
    },
  },
  {
    name: 'audit: a write that fails or changes nothing appends nothing (a taken user event, a delete of nothing); several entries of one write are appended together',
    async body(repos) {
      const entry = (n: number) =>
        buildAuditEntry(
          { entityType: 'USER', entityId: 'u-1', action: 'UPDATE', before: { n: 0 }, after: { n } },
          { auditId: `au-${n}`, actor: 'system', timestamp: FIXTURE_T0 },
        );
      await repos.users.saveUserProfile({ userId: 'u-1', type: 'CONSUMER', profile: { userId: 'u-1', createdTimestamp: FIXTURE_T0 }, now: FIXTURE_T0 });
      const event: StoredUserEvent = {
        eventId: 'ue-1',
        userId: 'u-1',
        type: 'CONSUMER',
        event: { eventId: 'ue-1', userId: 'u-1', timestamp: FIXTURE_T0 + 1, updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'DE' } } },
        clientEventId: true,
        arrival: 0,
        user: { userId: 'u-1', createdTimestamp: FIXTURE_T0, userDetails: { countryOfResidence: 'DE' } },
        result: { executedRules: [], hitRules: [] },
      };
      await repos.users.saveUserEvent({ event: structuredClone(event), now: FIXTURE_T0 + 1, audit: [entry(1), entry(2)] });
      await assertRejectsWithCode(
        () => repos.users.saveUserEvent({ event: structuredClone(event), now: FIXTURE_T0 + 2, audit: [entry(3)] }),
        CONCURRENT_UPDATE,
        'saveUserEvent of a taken event id',
      );
      assertEqual(await repos.lists.deleteList('l-none', { audit: [entry(4)] }), false, 'deleteList of nothing');
      assertEqual(await repos.ruleInstances.deleteRuleInstance('ri-none', { audit: [entry(5)] }), false, 'deleteRuleInstance of nothing');
      const page = await repos.audit.listAuditEntries({ order: 'ASC', limit: 100 });
      assertEqual(
        page.entries.map((e) => e.entry.auditId),
        ['au-1', 'au-2'],
        'only the entries of the write that happened',
      );
      assertEqual(page.total, 2, 'total');
    },
  },
  {
    name: 'audit: listAuditEntries counts matching entries up to MAX_AUDIT_COUNT and no further',
    async body(repos) {
      const entries = Array.from({ length: MAX_AUDIT_COUNT + 1 }, (_, n) =>
        buildAuditEntry(
          { entityType: 'LIST', entityId: 'l-1', action: 'UPDATE', before: { n }, after: { n: n + 1 } },
          { auditId: `au-${n}`, actor: 'a', timestamp: FIXTURE_T0 },
        ),
      );
      await repos.lists.putList(
        { listId: 'l-1', listType: 'BLACKLIST', subtype: 'USER_ID', items: [], createdAt: FIXTURE_T0, updatedAt: FIXTURE_T0 },
        { audit: entries },
      );
      const page = await repos.audit.listAuditEntries({ order: 'DESC', limit: 2 });
      assertEqual(
        [page.entries.map((e) => e.entry.auditId), page.total],
        [[`au-${MAX_AUDIT_COUNT}`, `au-${MAX_AUDIT_COUNT - 1}`], MAX_AUDIT_COUNT],
        'the newest two, and a total capped at MAX_AUDIT_COUNT',
      );
      assertEqual((await repos.audit.listAuditEntries({ order: 'ASC', limit: 1, actor: 'nobody' })).total, 0, 'a total of no match');
    },
  },
  {
    name: 'ruleInstances.revision changes on every put and delete and not on reads',
    async body(repos) {
      const seen = [await repos.ruleInstances.getRevision()];
      const expectChange = async (what: string) => {
        const r = await repos.ruleInstances.getRevision();
        assertTrue(!seen.includes(r), `revision must change after ${what} (got a value seen before)`);
        seen.push(r);
      };
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      await expectChange('a create');
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1', { threshold: 1 }));
      await expectChange('a replace');
      await repos.ruleInstances.listRuleInstances();
      await repos.ruleInstances.getRuleInstance('ri-1');
      await repos.ruleInstances.getStoredRuleInstance('ri-1');
      assertEqual(await repos.ruleInstances.getRevision(), seen.at(-1), 'revision after reads');
      await repos.ruleInstances.deleteRuleInstance('ri-1');
      await expectChange('a delete');
    },
  },
  {
    name: 'an alert hit creates an open alert in a new open case of the user',
    async body(repos) {
      const stored = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      const hit = buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1', priority: 'P3' });
      await repos.transactions.saveOutcome(buildOutcome(stored, null, { alertHits: [hit], now: FIXTURE_T0 + 5 }));
      const alert: Alert = {
        alertId: 'A-1',
        caseId: 'C-1',
        createdTimestamp: FIXTURE_T0 + 5,
        updatedAt: FIXTURE_T0 + 5,
        alertStatus: 'OPEN',
        priority: 'P3',
        userId: 'alice',
        direction: 'ORIGIN',
        entityDetails: { type: 'TRANSACTION', transactionIds: ['t-1'] },
        ruleDetails: hit.ruleDetails,
      };
      const theCase: Case = {
        caseId: 'C-1',
        createdTimestamp: FIXTURE_T0 + 5,
        updatedAt: FIXTURE_T0 + 5,
        caseStatus: 'OPEN',
        priority: 'P3',
        alertIds: ['A-1'],
        entityDetails: { type: 'USER', userId: 'alice' },
      };
      assertEqual(await repos.cases.getAlert('A-1'), alert, 'the new alert');
      assertEqual(await repos.cases.getCase('C-1'), theCase, 'the new case');
      assertEqual(await repos.cases.listAlerts(), [alert], 'listAlerts');
      assertEqual(await repos.cases.listCases(), [theCase], 'listCases');
    },
  },
  {
    name: 'getTransactions answers in the order asked, null for an unknown id',
    async body(repos) {
      const stored = await seedOneTransaction(repos);
      assertEqual(await repos.transactions.getTransactions(['nope', 't-1', 't-1']), [null, stored, stored], 'getTransactions of an unknown and a stored id');
      assertEqual(await repos.transactions.getTransactions([]), [], 'getTransactions of no ids');
    },
  },
  {
    name: 'saveOutcomes applies creations as saved one by one: a later hit appends to the alert an earlier one opened, a new alert joins its user case, a user seen then updated keeps when it was first seen',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-2'));
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob', amount: 100 }));
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'alice', destination: 'carol', amount: 200 }));
      const t3 = buildStoredTransaction(buildTransaction('t-3', { origin: 'bob', destination: 'alice', amount: 300 }));
      const alertsNamed = await repos.transactions.saveOutcomes([
        buildOutcome(structuredClone(t1), null, {
          aggregates: { remove: [], add: buildContributions(t1.transaction) },
          counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
          alertHits: [buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1' })],
          seenUserIds: ['alice', 'bob'],
        }),
        buildOutcome(structuredClone(t2), null, {
          aggregates: { remove: [], add: buildContributions(t2.transaction) },
          counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
          alertHits: [buildAlertHit('ri-1', 'alice', 't-2', { alertId: 'A-2', caseId: 'C-2' })],
          seenUserIds: ['carol'],
          now: FIXTURE_T0 + 10,
        }),
        buildOutcome(structuredClone(t3), null, {
          aggregates: { remove: [], add: buildContributions(t3.transaction) },
          counters: [
            { instanceId: 'ri-1', runs: 1, hits: 0 },
            { instanceId: 'ri-2', runs: 1, hits: 1 },
          ],
          alertHits: [buildAlertHit('ri-2', 'alice', 't-3', { alertId: 'A-3', caseId: 'C-3', priority: 'P1' })],
          userUpdates: [{ userId: 'carol', craScore: 40, craRiskLevel: 'MEDIUM' }],
          now: FIXTURE_T0 + 20,
        }),
      ]);
      const expectedAlerts = [
        [named('A-1', 'C-1', 'ri-1', 'alice', 'OPENED', 'ORIGIN', true)],
        [named('A-1', 'C-1', 'ri-1', 'alice', 'APPENDED')],
        [named('A-3', 'C-1', 'ri-2', 'alice', 'OPENED')],
      ];
      assertEqual(alertsNamed, expectedAlerts, 'the alerts saveOutcomes names per outcome (t-2 appends to the alert t-1 opened)');
      for (const [i, t] of [t1, t2, t3].entries()) {
        const result = { ...t.createResult, alerts: expectedAlerts[i] as ResultAlert[] };
        assertEqual(
          await repos.transactions.getTransaction(t.transaction.transactionId),
          { ...t, createResult: result, latestResult: result },
          `getTransaction(${t.transaction.transactionId}): its result names its alerts`,
        );
      }
      assertEqual(
        (await repos.aggregates.listEntries('user-sending', 'alice')).map((e) => e.id),
        ['t-1', 't-2'],
        'the series entries of alice as sender',
      );
      const alerts = byId(await repos.cases.listAlerts(), (a) => a.alertId);
      assertEqual(
        alerts.map((a) => [a.alertId, a.caseId, a.entityDetails.transactionIds, a.updatedAt]),
        [
          ['A-1', 'C-1', ['t-1', 't-2'], FIXTURE_T0 + 10],
          ['A-3', 'C-1', ['t-3'], FIXTURE_T0 + 20],
        ],
        'alerts [id, case, transactions, updatedAt]',
      );
      assertEqual(
        (await repos.cases.listCases()).map((c) => [c.caseId, c.alertIds, c.priority, c.updatedAt]),
        [['C-1', ['A-1', 'A-3'], 'P1', FIXTURE_T0 + 20]],
        'cases [id, alerts, priority, updatedAt]',
      );
      const [bob, carol] = await repos.users.getUsers(['bob', 'carol']);
      assertEqual([bob?.firstSeenAt, bob?.craScore], [FIXTURE_T0, null], 'bob [firstSeenAt, craScore]');
      assertEqual([carol?.firstSeenAt, carol?.updatedAt, carol?.craScore, carol?.craRiskLevel], [FIXTURE_T0 + 10, FIXTURE_T0 + 20, 40, 'MEDIUM'], 'carol');
      assertEqual(
        (await repos.ruleInstances.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]),
        [
          ['ri-1', 3, 2],
          ['ri-2', 1, 1],
        ],
        'instance counters',
      );
    },
  },
  {
    name: 'saveOutcome names where each alert hit landed, in hit order and each alert once, in what it returns and in the result it stores: a create result, an event result and the latest result',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-2'));
      const hitResult = buildMonitoringResult(['ri-1', 'ri-2'], ['ri-1', 'ri-2']);
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }), hitResult);
      const opened = await repos.transactions.saveOutcome(
        buildOutcome(structuredClone(t1), null, {
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1' }),
            buildAlertHit('ri-1', 'bob', 't-1', { alertId: 'A-2', caseId: 'C-2', direction: 'DESTINATION' }),
          ],
        }),
      );
      const openedNamed = [named('A-1', 'C-1', 'ri-1', 'alice', 'OPENED', 'ORIGIN', true), named('A-2', 'C-2', 'ri-1', 'bob', 'OPENED', 'DESTINATION', true)];
      assertEqual(opened, openedNamed, 'a create opening two alerts');
      const t1Result = { ...hitResult, alerts: openedNamed };
      assertEqual(await repos.transactions.getTransaction('t-1'), { ...t1, createResult: t1Result, latestResult: t1Result }, 'getTransaction(t-1)');

      // t-2 (a self-transfer of alice hit on both sides by ri-1, and by ri-2): appended to A-1 once, and a new alert in C-1.
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'alice', destination: 'alice' }), hitResult);
      const mixed = await repos.transactions.saveOutcome(
        buildOutcome(structuredClone(t2), null, {
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-2', { alertId: 'A-3', caseId: 'C-3' }),
            buildAlertHit('ri-1', 'alice', 't-2', { alertId: 'A-4', caseId: 'C-4', direction: 'DESTINATION' }),
            buildAlertHit('ri-2', 'alice', 't-2', { alertId: 'A-5', caseId: 'C-5', priority: 'P1' }),
          ],
          now: FIXTURE_T0 + 10,
        }),
      );
      const mixedNamed = [named('A-1', 'C-1', 'ri-1', 'alice', 'APPENDED'), named('A-5', 'C-1', 'ri-2', 'alice', 'OPENED')];
      assertEqual(mixed, mixedNamed, 'a create appending to an open alert (once for two hits) and opening one in the open case');
      assertEqual((await repos.transactions.getTransaction('t-2'))?.createResult.alerts, mixedNamed, 't-2 as stored');

      // An event on t-1 that hits again names the alerts it appended to; the create result keeps its own.
      const step = buildEventStep({ ...t1, createResult: t1Result, latestResult: t1Result }, 'e-1', { result: hitResult });
      const appended = await repos.transactions.saveOutcome(
        buildOutcome(structuredClone(step.transaction), 1, {
          event: structuredClone(step.event),
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-6', caseId: 'C-6' }),
            buildAlertHit('ri-1', 'bob', 't-1', { alertId: 'A-7', caseId: 'C-7', direction: 'DESTINATION' }),
          ],
          now: FIXTURE_T0 + 20,
        }),
      );
      const appendedNamed = [named('A-1', 'C-1', 'ri-1', 'alice', 'APPENDED'), named('A-2', 'C-2', 'ri-1', 'bob', 'APPENDED', 'DESTINATION')];
      assertEqual(appended, appendedNamed, 'an event appending to the alerts its create opened');
      const eventResult = { ...hitResult, alerts: appendedNamed };
      assertEqual(await repos.transactions.getEvent('e-1'), { ...step.event, result: eventResult }, 'getEvent(e-1)');
      assertEqual(
        await repos.transactions.getTransaction('t-1'),
        { ...step.transaction, createResult: t1Result, latestResult: eventResult },
        "getTransaction(t-1) after the event: the create result as created, the latest result the event's",
      );

      // An outcome without alert hits names none: its result is stored as given.
      const t3 = buildStoredTransaction(buildTransaction('t-3', { origin: 'alice', destination: 'bob' }), hitResult);
      assertEqual(await repos.transactions.saveOutcome(buildOutcome(structuredClone(t3), null)), [], 'an outcome without alert hits');
      assertEqual(await repos.transactions.getTransaction('t-3'), t3, 'getTransaction(t-3): no alerts named');
      assertEqual((await repos.cases.listAlerts()).length, 3, 'alerts stored');
    },
  },
  {
    name: 'the decision log: each saved outcome appends its decision, in the order saved, chained from the start as appendDecisionLog chains them',
    async body(repos) {
      assertEqual(await repos.decisions.decisionHead(), EMPTY_DECISION_LOG, 'the head of an empty log');
      assertEqual(await repos.decisions.readDecisions(0, 10), [], 'the rows of an empty log');
      await seedOneTransaction(repos);
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'carol', destination: 'dave' }), buildMonitoringResult(['ri-1'], ['ri-1']));
      const t3 = buildStoredTransaction(buildTransaction('t-3', { origin: 'dave', destination: 'carol' }));
      const batch = [buildOutcome(t2, null, { now: FIXTURE_T0 + 5_000 }), buildOutcome(t3, null, { now: FIXTURE_T0 + 6_000 })];
      await repos.transactions.saveOutcomes(batch);
      const rows = await repos.decisions.readDecisions(0, 10);
      const decisions = rows.map((r) => (JSON.parse(r.entry) as { decision: { transactionId: string; eventId?: string } }).decision);
      assertEqual(
        decisions.map((d) => [d.transactionId, d.eventId ?? null]),
        [
          ['t-1', null],
          ['t-1', 'e-1'],
          ['t-2', null],
          ['t-3', null],
        ],
        'the decisions in the order saved',
      );
      const expected = appendDecisionLog(
        EMPTY_DECISION_LOG,
        [...rows.slice(0, 2).map((r) => (JSON.parse(r.entry) as { decision: unknown }).decision), ...batch.map((o) => JSON.parse(o.decision))].map((d) =>
          canonicalJson(d),
        ),
      );
      assertEqual(rows, expected.rows, 'the stored rows: texts, previous hashes and SHA-256 hashes');
      assertEqual(await repos.decisions.decisionHead(), expected.head, 'the head');
      assertEqual(await repos.decisions.readDecisions(2, 1), expected.rows.slice(2, 3), 'a page after position 2');
    },
  },
  {
    name: 'the outbox: the messages of saved outcomes (with the alerts and cases their hits opened), audited writes and workflow writes, numbered from 1 in the order written; a refused write appends none',
    async body(repos) {
      assertEqual([await repos.outbox.outboxHead(), await repos.outbox.readOutbox(0, 10)], [0, []], 'an empty outbox');
      const message = (type: OutboxMessageType, entityId: string, n: number): OutboxMessage => ({
        type,
        entityId,
        timestamp: FIXTURE_T0 + n,
        data: { n, entityId },
      });
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'), { outbox: [message('RULE_INSTANCE_CHANGED', 'ri-1', 1)] });
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }), buildMonitoringResult(['ri-1'], ['ri-1']));
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, { outbox: [message('TRANSACTION_DECISION', 't-1', 2), message('USER_STATE_UPDATED', 'alice', 3)] }),
      );
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'carol', destination: 'dave' }));
      const t3 = buildStoredTransaction(buildTransaction('t-3', { origin: 'dave', destination: 'carol' }));
      await repos.transactions.saveOutcomes([buildOutcome(t2, null, { outbox: [message('TRANSACTION_DECISION', 't-2', 4)] }), buildOutcome(t3, null, {})]);
      const t4 = buildStoredTransaction(buildTransaction('t-4', { origin: 'erin', destination: 'dave' }));
      await assertRejectsWithCode(
        () => repos.transactions.saveOutcomes([buildOutcome(t4, null, { outbox: [message('TRANSACTION_DECISION', 't-4', 9)] }), buildOutcome(t1, null, {})]),
        'CONCURRENT_UPDATE',
        'a chunk with a transaction that exists',
      );
      await seedHit(repos, 5, 'ri-1', 'alice', { alertId: 'A-1', caseId: 'C-1' }, FIXTURE_T0 + 5);
      const close = { status: 'CLOSED' as const, reason: ['FALSE_POSITIVE' as const], timestamp: FIXTURE_T0 + 6 };
      await repos.cases.saveWorkflow({
        alerts: [{ alertId: 'A-1', patch: { alertStatus: 'CLOSED', lastStatusChange: close, closingReason: close, updatedAt: FIXTURE_T0 + 6 } }],
        comments: [],
        decisions: [statusDecisionOf('ALERT', 'A-1', 'OPEN', close, false)],
        outbox: [message('ALERT_STATUS_CHANGED', 'A-1', 6)],
      });
      await repos.ruleInstances.deleteRuleInstance('ri-nope', { outbox: [message('RULE_INSTANCE_CHANGED', 'ri-nope', 7)] });
      const stored = await repos.outbox.readOutbox(0, 100);
      assertEqual(
        stored.map((m) => [m.seq, m.type, m.entityId, m.timestamp, m.data]),
        [
          [1, 'RULE_INSTANCE_CHANGED', 'ri-1', FIXTURE_T0 + 1, { n: 1, entityId: 'ri-1' }],
          [2, 'TRANSACTION_DECISION', 't-1', FIXTURE_T0 + 2, { n: 2, entityId: 't-1' }],
          [3, 'USER_STATE_UPDATED', 'alice', FIXTURE_T0 + 3, { n: 3, entityId: 'alice' }],
          [4, 'TRANSACTION_DECISION', 't-2', FIXTURE_T0 + 4, { n: 4, entityId: 't-2' }],
          // What the store decided of the hit, reported in the same write (alertMessagesOf).
          [5, 'CASE_OPENED', 'C-1', FIXTURE_T0 + 5, { caseId: 'C-1', userId: 'alice', alertId: 'A-1', transactionId: 't-5' }],
          [
            6,
            'ALERT_OPENED',
            'A-1',
            FIXTURE_T0 + 5,
            { alertId: 'A-1', caseId: 'C-1', ruleInstanceId: 'ri-1', userId: 'alice', direction: 'ORIGIN', transactionId: 't-5' },
          ],
          [7, 'ALERT_STATUS_CHANGED', 'A-1', FIXTURE_T0 + 6, { n: 6, entityId: 'A-1' }],
        ],
        'the messages in the order written (none of the refused chunk, none of a delete of nothing)',
      );
      assertEqual(await repos.outbox.outboxHead(), 7, 'the head');
      assertEqual(
        (await repos.outbox.readOutbox(2, 2)).map((m) => m.seq),
        [3, 4],
        'a page after position 2',
      );
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-2'), {
        outbox: Array.from({ length: 8 }, (_, i) => message('RULE_INSTANCE_CHANGED', 'ri-2', 10 + i)),
      });
      assertEqual(
        (await repos.outbox.readOutbox(0, 100)).map((m) => m.seq),
        Array.from({ length: 15 }, (_, i) => i + 1),
        'positions past 9 in numeric order',
      );
    },
  },
  {
    name: 'outbox consumers: a lease is held by one owner until it runs out or is released; only the holder moves the position (never back) and records dead letters once',
    async body(repos) {
      const o = repos.outbox;
      assertEqual(await o.getConsumer('hook'), null, 'no consumer yet');
      const first = await o.claimConsumer('hook', 'p1', FIXTURE_T0, 1_000, 3);
      assertEqual(
        first,
        { name: 'hook', position: 3, attempts: 0, nextAttemptAt: null, lastError: null, owner: 'p1', leaseUntil: FIXTURE_T0 + 1_000, deadLetters: 0 },
        'created at its start position, held by p1',
      );
      assertEqual(await o.claimConsumer('hook', 'p2', FIXTURE_T0 + 500, 1_000, 0), null, 'p2 refused while the lease holds');
      assertEqual(await o.advanceConsumer('hook', 'p2', { position: 9 }), false, 'p2 cannot move it');
      assertEqual(await o.advanceConsumer('hook', 'p1', { position: 5, attempts: 0 }), true, 'p1 moves it');
      assertEqual(await o.advanceConsumer('hook', 'p1', { position: 4 }), true, 'a move back is accepted');
      assertEqual((await o.getConsumer('hook'))?.position, 5, 'but the position never goes back');
      await o.advanceConsumer('hook', 'p1', { attempts: 2, nextAttemptAt: FIXTURE_T0 + 700, lastError: 'HTTP 503' });
      const renewed = await o.claimConsumer('hook', 'p1', FIXTURE_T0 + 600, 1_000, 0);
      assertEqual(
        [renewed?.attempts, renewed?.nextAttemptAt, renewed?.lastError, renewed?.leaseUntil],
        [2, FIXTURE_T0 + 700, 'HTTP 503', FIXTURE_T0 + 1_600],
        'renewed by its holder, retry state kept',
      );
      const taken = await o.claimConsumer('hook', 'p2', FIXTURE_T0 + 1_601, 1_000, 0);
      assertEqual([taken?.owner, taken?.position], ['p2', 5], 'taken over once the lease ran out');
      const dead = { seq: 6, attempts: 3, lastError: 'HTTP 500', deadAt: FIXTURE_T0 + 1_700 };
      await o.advanceConsumer('hook', 'p2', { position: 6, attempts: 0, nextAttemptAt: null, lastError: null, deadLetter: dead });
      await o.advanceConsumer('hook', 'p2', { position: 6, deadLetter: dead });
      assertEqual(await o.listDeadLetters('hook', 0, 10), [{ consumer: 'hook', ...dead }], 'one dead letter');
      assertEqual(await o.listDeadLetters('hook', 6, 10), [], 'none after it');
      await o.releaseConsumer('hook', 'p2');
      assertEqual((await o.claimConsumer('hook', 'p1', FIXTURE_T0 + 1_701, 1_000, 0))?.owner, 'p1', 'free again once released');
      const listed = await o.listConsumers();
      assertEqual(
        listed.map((c) => [c.name, c.position, c.attempts, c.nextAttemptAt, c.lastError, c.deadLetters]),
        [['hook', 6, 0, null, null, 1]],
        'the consumer as listed',
      );
    },
  },
  {
    name: 'saveOutcomes with one transaction that exists throws CONCURRENT_UPDATE and applies none of them',
    async body(repos) {
      await seedOneTransaction(repos);
      const before = await captureState(repos, OBSERVED);
      const fresh = buildStoredTransaction(buildTransaction('t-2', { origin: 'carol', destination: 'dave' }));
      const again = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'carol', amount: 5 }));
      const rich = (t: typeof fresh, alertId: string) =>
        buildOutcome(structuredClone(t), null, {
          aggregates: { remove: [], add: buildContributions(t.transaction) },
          counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
          alertHits: [buildAlertHit('ri-1', 'carol', t.transaction.transactionId, { alertId, caseId: `C-${alertId}` })],
          seenUserIds: ['carol', 'dave'],
          userUpdates: [{ userId: 'alice', craScore: 90 }],
        });
      await assertRejectsWithCode(
        () => repos.transactions.saveOutcomes([rich(fresh, 'A-x'), rich(again, 'A-y')]),
        CONCURRENT_UPDATE,
        'saveOutcomes of a second create',
      );
      assertEqual(await captureState(repos, OBSERVED), before, 'state after rejected outcomes');
    },
  },
  {
    name: 'a later hit of the same (instance, user) appends its transaction id once to the open alert',
    async body(repos) {
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice' }));
      await repos.transactions.saveOutcome(buildOutcome(t1, null, { alertHits: [buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1' })] }));
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'alice' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t2, null, { alertHits: [buildAlertHit('ri-1', 'alice', 't-2', { alertId: 'A-2', caseId: 'C-2' })], now: FIXTURE_T0 + 50 }),
      );
      // An event re-evaluates t-2 and hits again: the id is already in the alert.
      const step = buildEventStep(t2, 'e-1');
      await repos.transactions.saveOutcome(
        buildOutcome(step.transaction, 1, {
          event: step.event,
          alertHits: [buildAlertHit('ri-1', 'alice', 't-2', { alertId: 'A-3', caseId: 'C-3' })],
          now: FIXTURE_T0 + 60,
        }),
      );
      const alerts = await repos.cases.listAlerts();
      assertEqual(
        alerts.map((a) => a.alertId),
        ['A-1'],
        'alert ids after three hits of one (instance, user)',
      );
      assertEqual(alerts[0]?.entityDetails.transactionIds, ['t-1', 't-2'], 'transaction ids of the alert');
      assertEqual([alerts[0]?.createdTimestamp, alerts[0]?.updatedAt], [FIXTURE_T0, FIXTURE_T0 + 60], 'alert [createdTimestamp, updatedAt]');
      const cases = await repos.cases.listCases();
      assertEqual(
        cases.map((c) => [c.caseId, c.alertIds, c.updatedAt]),
        [['C-1', ['A-1'], FIXTURE_T0 + 60]],
        'cases [id, alertIds, updatedAt]',
      );
    },
  },
  {
    name: "a hit of another instance on the same user adds a new alert to the user's open case and raises its priority",
    async body(repos) {
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, {
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1', priority: 'P3' }),
            buildAlertHit('ri-2', 'alice', 't-1', { alertId: 'A-2', caseId: 'C-2', priority: 'P1' }),
            buildAlertHit('ri-3', 'alice', 't-1', { alertId: 'A-3', caseId: 'C-3', priority: 'P4' }),
          ],
        }),
      );
      assertEqual(
        (await repos.cases.listCases()).map((c) => c.caseId),
        ['C-1'],
        'case ids',
      );
      const theCase = await repos.cases.getCase('C-1');
      assertEqual(theCase?.alertIds, ['A-1', 'A-2', 'A-3'], 'alert ids of the case, in creation order');
      assertEqual(theCase?.priority, 'P1', 'case priority after alerts of P3, P1, P4');
      for (const id of ['A-1', 'A-2', 'A-3']) assertEqual((await repos.cases.getAlert(id))?.caseId, 'C-1', `caseId of ${id}`);
    },
  },
  {
    name: 'a hit on another user creates a new alert and a new case for that user',
    async body(repos) {
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, {
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1' }),
            buildAlertHit('ri-1', 'bob', 't-1', { alertId: 'A-2', caseId: 'C-2', direction: 'DESTINATION' }),
          ],
        }),
      );
      const alert = await repos.cases.getAlert('A-2');
      assertEqual([alert?.userId, alert?.direction, alert?.caseId], ['bob', 'DESTINATION', 'C-2'], "bob's alert [userId, direction, caseId]");
      const theCase = await repos.cases.getCase('C-2');
      assertEqual([theCase?.entityDetails, theCase?.alertIds], [{ type: 'USER', userId: 'bob' }, ['A-2']], "bob's case [entityDetails, alertIds]");
      assertEqual((await repos.cases.getCase('C-1'))?.alertIds, ['A-1'], "alice's case is unchanged");
    },
  },
  {
    name: "a hit grouped with its counterparty joins the counterparty's open case, which then lists both users and is the user's case",
    async body(repos) {
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, { alertHits: [buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1', priority: 'P3' })] }),
      );
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'carol', destination: 'bob' }));
      const grouped = { alertId: 'A-2', caseId: 'C-2', priority: 'P2', direction: 'DESTINATION', groupWithUserId: 'alice' } as const;
      await repos.transactions.saveOutcome(buildOutcome(t2, null, { alertHits: [buildAlertHit('ri-1', 'bob', 't-2', grouped)], now: FIXTURE_T0 + 50 }));
      // bob's next alert (another instance, no counterparty with a case) lands in the case bob joined.
      const t3 = buildStoredTransaction(buildTransaction('t-3', { origin: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t3, null, { alertHits: [buildAlertHit('ri-2', 'bob', 't-3', { alertId: 'A-3', caseId: 'C-3' })], now: FIXTURE_T0 + 60 }),
      );
      const cases = await repos.cases.listCases();
      assertEqual(
        cases.map((c) => [c.caseId, c.alertIds, c.userIds, c.entityDetails.userId, c.priority, c.updatedAt]),
        [['C-1', ['A-1', 'A-2', 'A-3'], ['alice', 'bob'], 'alice', 'P2', FIXTURE_T0 + 60]],
        'cases [id, alertIds, userIds, entityDetails.userId, priority, updatedAt]',
      );
      assertEqual((await repos.cases.getCase('C-1'))?.userIds, ['alice', 'bob'], 'getCase userIds');
      assertEqual(
        (await repos.cases.listAlerts()).map((a) => [a.alertId, a.userId, a.caseId]),
        [
          ['A-1', 'alice', 'C-1'],
          ['A-2', 'bob', 'C-1'],
          ['A-3', 'bob', 'C-1'],
        ],
        'alerts [id, userId, caseId]',
      );
    },
  },
  {
    name: 'both sides of one outcome grouped with each other share one case: the first opens it, the second joins it',
    async body(repos) {
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, {
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1', priority: 'P3', groupWithUserId: 'bob' }),
            buildAlertHit('ri-1', 'bob', 't-1', { alertId: 'A-2', caseId: 'C-2', priority: 'P2', direction: 'DESTINATION', groupWithUserId: 'alice' }),
            // alice again (another instance) after bob joined: the case's priority is the one bob's alert raised, then alice's.
            buildAlertHit('ri-2', 'alice', 't-1', { alertId: 'A-3', caseId: 'C-3', priority: 'P1', groupWithUserId: 'bob' }),
            buildAlertHit('ri-3', 'bob', 't-1', { alertId: 'A-4', caseId: 'C-4', priority: 'P4', direction: 'DESTINATION', groupWithUserId: 'alice' }),
          ],
        }),
      );
      assertEqual(
        (await repos.cases.listCases()).map((c) => [c.caseId, c.alertIds, c.userIds, c.priority]),
        [['C-1', ['A-1', 'A-2', 'A-3', 'A-4'], ['alice', 'bob'], 'P1']],
        'cases [id, alertIds, userIds, priority]',
      );
    },
  },
  {
    name: "a user's own open case wins over its counterparty's, and a hit without a counterparty to group with opens a new case",
    async body(repos) {
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, {
          alertHits: [
            buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1' }),
            buildAlertHit('ri-1', 'bob', 't-1', { alertId: 'A-2', caseId: 'C-2', direction: 'DESTINATION' }),
          ],
        }),
      );
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(
        buildOutcome(t2, null, {
          alertHits: [
            buildAlertHit('ri-2', 'bob', 't-2', { alertId: 'A-3', caseId: 'C-3', direction: 'DESTINATION', groupWithUserId: 'alice' }),
            buildAlertHit('ri-2', 'carol', 't-2', { alertId: 'A-4', caseId: 'C-4', groupWithUserId: 'dave' }),
          ],
        }),
      );
      assertEqual(
        (await repos.cases.listCases()).map((c) => [c.caseId, c.alertIds, c.userIds ?? null]),
        [
          ['C-1', ['A-1'], null],
          ['C-2', ['A-2', 'A-3'], null],
          ['C-4', ['A-4'], null],
        ],
        'cases [id, alertIds, userIds]',
      );
    },
  },
  {
    name: 'seen users are created as bare records and never overwrite a stored user',
    async body(repos) {
      const alice = storedUser('alice', { craScore: 42, craRiskLevel: 'MEDIUM' });
      await repos.users.putUser(structuredClone(alice));
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      await repos.transactions.saveOutcome(buildOutcome(t1, null, { seenUserIds: ['alice', 'bob'], now: FIXTURE_T0 + 7 }));
      assertEqual(await repos.users.getUser('alice'), alice, 'a stored user after being seen');
      const bare: StoredUser = {
        userId: 'bob',
        type: null,
        profile: null,
        craScore: null,
        craRiskLevel: null,
        firstSeenAt: FIXTURE_T0 + 7,
        updatedAt: FIXTURE_T0 + 7,
      };
      assertEqual(await repos.users.getUser('bob'), bare, 'a user first seen in a transaction');
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'bob' }));
      await repos.transactions.saveOutcome(buildOutcome(t2, null, { seenUserIds: ['bob'], now: FIXTURE_T0 + 99 }));
      assertEqual(await repos.users.getUser('bob'), bare, 'a bare user seen again keeps firstSeenAt');
    },
  },
  {
    name: 'user updates set CRA on any user and state/KYC on created profiles only',
    async body(repos) {
      const alice = storedUser('alice');
      await repos.users.putUser(structuredClone(alice));
      const t1 = buildStoredTransaction(buildTransaction('t-1', { origin: 'alice', destination: 'bob' }));
      const now = FIXTURE_T0 + 11;
      await repos.transactions.saveOutcome(
        buildOutcome(t1, null, {
          seenUserIds: ['bob'],
          userUpdates: [
            {
              userId: 'alice',
              craScore: 81.5,
              craRiskLevel: 'VERY_HIGH',
              userStateDetails: { state: 'SUSPENDED', reason: 'Rule hit' },
              kycStatusDetails: { status: 'MANUAL_REVIEW', reason: 'Rule hit' },
            },
            { userId: 'bob', craScore: 30, userStateDetails: { state: 'BLOCKED', reason: 'Rule hit' } },
            { userId: 'carol', craRiskLevel: 'LOW' },
          ],
          now,
        }),
      );
      assertEqual(
        await repos.users.getUser('alice'),
        {
          ...alice,
          craScore: 81.5,
          craRiskLevel: 'VERY_HIGH',
          updatedAt: now,
          profile: {
            ...alice.profile,
            userStateDetails: { state: 'SUSPENDED', reason: 'Rule hit' },
            kycStatusDetails: { status: 'MANUAL_REVIEW', reason: 'Rule hit' },
          },
        },
        'a created user after an update',
      );
      assertEqual(
        await repos.users.getUser('bob'),
        { userId: 'bob', type: null, profile: null, craScore: 30, craRiskLevel: null, firstSeenAt: now, updatedAt: now },
        'a bare user after an update with state details',
      );
      assertEqual(
        await repos.users.getUser('carol'),
        { userId: 'carol', type: null, profile: null, craScore: null, craRiskLevel: 'LOW', firstSeenAt: now, updatedAt: now },
        'an unknown user after an update (created bare)',
      );
      const t2 = buildStoredTransaction(buildTransaction('t-2', { origin: 'alice' }));
      await repos.transactions.saveOutcome(buildOutcome(t2, null, { userUpdates: [{ userId: 'alice', craRiskLevel: 'HIGH' }], now: now + 1 }));
      const again = await repos.users.getUser('alice');
      assertEqual([again?.craScore, again?.craRiskLevel, again?.updatedAt], [81.5, 'HIGH', now + 1], 'an update without craScore keeps it');
    },
  },
  {
    name: 'users putUser/getUser/getUsers: replace on put, order preserved with nulls for unknown ids',
    async body(repos) {
      const u1 = storedUser('u-1');
      const u2 = storedUser('u-2', {
        type: 'BUSINESS',
        profile: { userId: 'u-2', createdTimestamp: FIXTURE_T0, legalEntity: { companyGeneralDetails: { legalName: 'Acme' } } },
      });
      await repos.users.putUser(structuredClone(u1));
      await repos.users.putUser(structuredClone(u2));
      assertEqual(await repos.users.getUser('u-2'), u2, 'getUser of a business user');
      assertEqual(await repos.users.getUsers(['u-2', 'missing', 'u-1', 'u-2']), [u2, null, u1, u2], 'getUsers keeps order and duplicates');
      const u1b = storedUser('u-1', { craScore: 5, updatedAt: FIXTURE_T0 + 1 });
      await repos.users.putUser(structuredClone(u1b));
      assertEqual(await repos.users.getUser('u-1'), u1b, 'getUser after a replacing put');
    },
  },
  {
    name: 'users saveUserProfile: creates, then replaces only profile and type, keeping risk state and firstSeenAt',
    async body(repos) {
      const profile = { userId: 'p-1', createdTimestamp: FIXTURE_T0 };
      const created = await repos.users.saveUserProfile({ userId: 'p-1', type: 'CONSUMER', profile: structuredClone(profile), now: FIXTURE_T0 });
      assertEqual(
        created,
        { userId: 'p-1', type: 'CONSUMER', profile, craScore: null, craRiskLevel: null, firstSeenAt: FIXTURE_T0, updatedAt: FIXTURE_T0 },
        'a new user',
      );
      // A transaction moves the CRA between the two profile writes.
      const t = buildStoredTransaction(buildTransaction('t-p', { origin: 'p-1' }));
      await repos.transactions.saveOutcome(buildOutcome(t, null, { userUpdates: [{ userId: 'p-1', craObservation: 90 }], now: FIXTURE_T0 + 1 }));
      const profile2 = { userId: 'p-1', createdTimestamp: FIXTURE_T0, riskLevel: 'LOW' as const };
      const saved = await repos.users.saveUserProfile({ userId: 'p-1', type: 'CONSUMER', profile: structuredClone(profile2), now: FIXTURE_T0 + 2 });
      assertEqual(
        [saved.profile, saved.craScore, saved.craRiskLevel, saved.firstSeenAt, saved.updatedAt],
        [profile2, 90, 'VERY_HIGH', FIXTURE_T0, FIXTURE_T0 + 2],
        'the profile is replaced, the CRA and firstSeenAt are kept',
      );
      assertEqual(await repos.users.getUser('p-1'), saved, 'getUser returns what saveUserProfile stored');
    },
  },
  {
    name: 'users saveUserEvent: stores the event and the profile in one step, keeping risk state; events read back by id and in arrival order',
    async body(repos) {
      const profile = { userId: 'e-1', createdTimestamp: FIXTURE_T0 };
      await repos.users.saveUserProfile({ userId: 'e-1', type: 'CONSUMER', profile: structuredClone(profile), now: FIXTURE_T0 });
      await repos.users.putUser({ ...((await repos.users.getUser('e-1')) as StoredUser), craScore: 40, craRiskLevel: 'MEDIUM' });
      const event = (arrival: number, country: string): StoredUserEvent => ({
        eventId: `ue-${arrival}`,
        userId: 'e-1',
        type: 'CONSUMER',
        event: {
          eventId: `ue-${arrival}`,
          userId: 'e-1',
          timestamp: FIXTURE_T0 + 10 - arrival,
          updatedConsumerUserAttributes: { userDetails: { countryOfResidence: country } },
        },
        clientEventId: arrival === 0,
        arrival,
        user: { ...profile, userDetails: { countryOfResidence: country } },
        result: { executedRules: [], hitRules: [], ...(arrival === 0 ? { riskScoreDetails: { craRiskScore: 40, craRiskLevel: 'MEDIUM' as const } } : {}) },
      });
      const first = event(0, 'DE');
      const second = event(1, 'FR');
      const saved = await repos.users.saveUserEvent({ event: structuredClone(first), now: FIXTURE_T0 + 1 });
      assertEqual(
        [saved.profile, saved.type, saved.craScore, saved.craRiskLevel, saved.firstSeenAt, saved.updatedAt],
        [first.user, 'CONSUMER', 40, 'MEDIUM', FIXTURE_T0, FIXTURE_T0 + 1],
        'the profile is replaced, the risk state and firstSeenAt are kept',
      );
      await repos.users.saveUserEvent({ event: structuredClone(second), now: FIXTURE_T0 + 2 });
      assertEqual((await repos.users.getUser('e-1'))?.profile, second.user, 'getUser after the second event');
      assertEqual(await repos.users.getUserEvent('ue-1'), second, 'getUserEvent');
      assertEqual(await repos.users.getUserEvent('ue-9'), null, 'getUserEvent of an unknown id');
      assertEqual(await repos.users.listUserEvents('e-1'), [first, second], 'listUserEvents in arrival order (not timestamp order)');
      assertEqual(await repos.users.listUserEvents('nobody'), [], 'listUserEvents of a user without events');
    },
  },
  {
    name: 'users saveUserProfile and saveUserEvent with rule writes: the user, the counters and a user alert (type USER, no transactions) are stored together; a later hit lands in the open alert',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-2'));
      const profile = { userId: 'r-1', createdTimestamp: FIXTURE_T0 };
      const results = (hit: boolean): UserRuleResults => ({
        executedRules: [{ ruleInstanceId: 'ri-1', ruleId: 'R-20', ruleName: 'n', ruleDescription: 'd', ruleAction: 'FLAG', ruleHit: hit }],
        hitRules: hit ? [{ ruleInstanceId: 'ri-1', ruleId: 'R-20', ruleName: 'n', ruleDescription: 'd', ruleAction: 'FLAG' }] : [],
      });
      const saved = await repos.users.saveUserProfile({
        userId: 'r-1',
        type: 'CONSUMER',
        profile: structuredClone(profile),
        now: FIXTURE_T0 + 5,
        ruleResults: results(true),
        counters: [
          { instanceId: 'ri-1', runs: 1, hits: 1 },
          { instanceId: 'ri-2', runs: 1, hits: 0 },
          { instanceId: 'ri-gone', runs: 1, hits: 1 },
        ],
        alertHits: [buildAlertHit('ri-1', 'r-1', null, { alertId: 'A-U1', caseId: 'C-U1', priority: 'P3' })],
      });
      assertEqual([saved.userId, saved.profile, saved.ruleResults], ['r-1', profile, results(true)], 'the user is stored with its rule results');
      const hit = buildAlertHit('ri-1', 'r-1', null, { alertId: 'A-U1', caseId: 'C-U1', priority: 'P3' });
      const alert: Alert = {
        alertId: 'A-U1',
        caseId: 'C-U1',
        createdTimestamp: FIXTURE_T0 + 5,
        updatedAt: FIXTURE_T0 + 5,
        alertStatus: 'OPEN',
        priority: 'P3',
        userId: 'r-1',
        direction: 'ORIGIN',
        entityDetails: { type: 'USER', transactionIds: [] },
        ruleDetails: hit.ruleDetails,
      };
      assertEqual(await repos.cases.listAlerts(), [alert], 'the user alert');
      assertEqual(
        (await repos.cases.listCases()).map((c) => [c.caseId, c.alertIds, c.entityDetails]),
        [['C-U1', ['A-U1'], { type: 'USER', userId: 'r-1' }]],
        'its case [id, alertIds, entityDetails]',
      );
      const event: StoredUserEvent = {
        eventId: 'ue-r1',
        userId: 'r-1',
        type: 'CONSUMER',
        event: { eventId: 'ue-r1', userId: 'r-1', timestamp: FIXTURE_T0 + 6 },
        clientEventId: true,
        arrival: 0,
        user: { ...profile, tags: [{ key: 't', value: 'v' }] },
        result: { executedRules: [], hitRules: [] },
      };
      await repos.users.saveUserEvent({
        event: structuredClone(event),
        now: FIXTURE_T0 + 9,
        counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
        alertHits: [buildAlertHit('ri-1', 'r-1', null, { alertId: 'A-U2', caseId: 'C-U2' })],
        ruleResults: results(false),
      });
      assertEqual(await repos.users.getUserEvent('ue-r1'), event, 'the event is stored');
      const after = await repos.users.getUser('r-1');
      assertEqual([after?.profile, after?.ruleResults], [event.user, results(false)], 'the profile and rule results after the event');
      await repos.users.saveUserProfile({ userId: 'r-1', type: 'CONSUMER', profile: structuredClone(profile), now: FIXTURE_T0 + 10 });
      assertEqual((await repos.users.getUser('r-1'))?.ruleResults, results(false), 'a save without rule results keeps the stored ones');
      const counts = (await repos.ruleInstances.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]);
      assertEqual(
        counts,
        [
          ['ri-1', 2, 2],
          ['ri-2', 1, 0],
        ],
        'counters [id, runs, hits] (an unknown instance is skipped)',
      );
      assertEqual(
        (await repos.cases.listAlerts()).map((a) => [a.alertId, a.entityDetails, a.createdTimestamp, a.updatedAt]),
        [['A-U1', { type: 'USER', transactionIds: [] }, FIXTURE_T0 + 5, FIXTURE_T0 + 9]],
        'the second hit lands in the open alert [id, entityDetails, createdTimestamp, updatedAt]',
      );
      assertEqual((await repos.cases.getCase('C-U1'))?.updatedAt, FIXTURE_T0 + 9, "the case's updatedAt");
    },
  },
  {
    name: 'users saveUserEvent with rule writes: a taken eventId throws CONCURRENT_UPDATE and writes neither counters nor alerts',
    async body(repos) {
      await repos.ruleInstances.putRuleInstance(buildStoredRuleInstance('ri-1'));
      const profile = { userId: 'r-2', createdTimestamp: FIXTURE_T0 };
      await repos.users.saveUserProfile({ userId: 'r-2', type: 'CONSUMER', profile: structuredClone(profile), now: FIXTURE_T0 });
      const event = (eventId: string, arrival: number): StoredUserEvent => ({
        eventId,
        userId: 'r-2',
        type: 'CONSUMER',
        event: { eventId, userId: 'r-2', timestamp: FIXTURE_T0 + arrival },
        clientEventId: true,
        arrival,
        user: profile,
        result: { executedRules: [], hitRules: [] },
      });
      await repos.users.saveUserEvent({ event: event('ue-r2', 0), now: FIXTURE_T0 + 1 });
      await assertRejectsWithCode(
        () =>
          repos.users.saveUserEvent({
            event: event('ue-r2', 1),
            now: FIXTURE_T0 + 2,
            counters: [{ instanceId: 'ri-1', runs: 1, hits: 1 }],
            alertHits: [buildAlertHit('ri-1', 'r-2', null, { alertId: 'A-R2', caseId: 'C-R2' })],
          }),
        CONCURRENT_UPDATE,
        'a taken eventId',
      );
      assertEqual(
        (await repos.ruleInstances.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]),
        [['ri-1', 0, 0]],
        'counters unchanged',
      );
      assertEqual(await repos.cases.listAlerts(), [], 'no alert');
      assertEqual(await repos.cases.listCases(), [], 'no case');
    },
  },
  {
    name: 'users saveUserEvent: a taken eventId or arrival throws CONCURRENT_UPDATE and writes nothing',
    async body(repos) {
      const profile = { userId: 'e-2', createdTimestamp: FIXTURE_T0 };
      await repos.users.saveUserProfile({ userId: 'e-2', type: 'CONSUMER', profile: structuredClone(profile), now: FIXTURE_T0 });
      const event = (eventId: string, arrival: number, tag: string): StoredUserEvent => ({
        eventId,
        userId: 'e-2',
        type: 'CONSUMER',
        event: { eventId, userId: 'e-2', timestamp: FIXTURE_T0 + arrival },
        clientEventId: true,
        arrival,
        user: { ...profile, tags: [{ key: 't', value: tag }] },
        result: { executedRules: [], hitRules: [] },
      });
      const stored = event('ue-a', 0, 'first');
      await repos.users.saveUserEvent({ event: structuredClone(stored), now: FIXTURE_T0 + 1 });
      const before = await repos.users.getUser('e-2');
      await assertRejectsWithCode(
        () => repos.users.saveUserEvent({ event: event('ue-a', 1, 'id taken'), now: FIXTURE_T0 + 2 }),
        CONCURRENT_UPDATE,
        'a taken eventId',
      );
      await assertRejectsWithCode(
        () => repos.users.saveUserEvent({ event: event('ue-b', 0, 'arrival taken'), now: FIXTURE_T0 + 3 }),
        CONCURRENT_UPDATE,
        'a taken arrival',
      );
      assertEqual(await repos.users.getUser('e-2'), before, 'the user is unchanged');
      assertEqual(await repos.users.listUserEvents('e-2'), [stored], 'no event was added');
      assertEqual(await repos.users.getUserEvent('ue-b'), null, 'the refused event is not stored');
    },
  },
  {
    name: 'comments are listed per target (kind and id) in insertion order',
    async body(repos) {
      const comment = (n: number) => ({
        commentId: `c-${n}`,
        body: `note ${n}`,
        files: n === 2 ? [{ s3Key: 'k-1', filename: 'a.pdf', size: 10 }] : [],
        createdTimestamp: FIXTURE_T0 + n,
        updatedTimestamp: FIXTURE_T0 + n,
      });
      await repos.comments.addComment({ kind: 'user', id: 'x' }, comment(1));
      await repos.comments.addComment({ kind: 'case', id: 'x' }, comment(2));
      await repos.comments.addComment({ kind: 'user', id: 'x' }, comment(3));
      await repos.comments.addComment({ kind: 'alert', id: 'y' }, comment(4));
      assertEqual(await repos.comments.listComments({ kind: 'user', id: 'x' }), [comment(1), comment(3)], 'comments of user x');
      assertEqual(await repos.comments.listComments({ kind: 'case', id: 'x' }), [comment(2)], 'comments of case x');
      assertEqual(await repos.comments.listComments({ kind: 'alert', id: 'x' }), [], 'comments of alert x');
      assertEqual(await repos.comments.listComments({ kind: 'alert', id: 'y' }), [comment(4)], 'comments of alert y');
    },
  },
  {
    name: 'files putFile/getFile and putFileContent/getFileContent round-trip, and putFileContent marks the file uploaded with its size',
    async body(repos) {
      const record: FileRecord = {
        key: 'f-1',
        filename: 'statement.pdf',
        fileSize: 5,
        createdAt: FIXTURE_T0,
        expiresAt: FIXTURE_T0 + 900_000,
        uploaded: false,
      };
      await repos.files.putFile({ ...record });
      assertEqual(await repos.files.getFile('f-1'), record, 'getFile after putFile');
      assertEqual(await repos.files.getFileContent('f-1'), null, 'getFileContent before an upload');
      const stored = await repos.files.putFileContent('f-1', chunksOf([1, 2], [3, 250, 0]), 5);
      assertEqual(stored, { ...record, uploaded: true, size: 5 }, 'the record putFileContent returns');
      assertEqual(await repos.files.getFileContent('f-1'), new Uint8Array([1, 2, 3, 250, 0]), 'getFileContent after putFileContent');
      assertEqual(await repos.files.getFile('f-1'), { ...record, uploaded: true, size: 5 }, 'getFile after putFileContent');
      assertEqual(await repos.files.getFile('f-2'), null, 'getFile of another key');
    },
  },
  {
    name: 'files putFileContent stores a slot once: a second upload is refused and the first bytes stay',
    async body(repos) {
      await repos.files.putFile({ key: 'f-1', filename: 'a.bin', fileSize: 3, createdAt: FIXTURE_T0, expiresAt: FIXTURE_T0 + 900_000, uploaded: false });
      await repos.files.putFileContent('f-1', chunksOf([1, 2]), 3);
      await assertRejectsWithCode(() => repos.files.putFileContent('f-1', chunksOf([9]), 3), 'FILE_ALREADY_UPLOADED', 'putContent of an uploaded slot');
      assertEqual(await repos.files.getFileContent('f-1'), new Uint8Array([1, 2]), 'getContent after a refused second upload');
      await assertRejectsWithCode(() => repos.files.putFileContent('nope', chunksOf([1]), 3), 'FILE_NOT_FOUND', 'putContent of an unknown slot');
    },
  },
  {
    name: 'files putFileContent past maxBytes or with failing content stores nothing, and the slot can be used again',
    async body(repos) {
      const record: FileRecord = { key: 'f-1', filename: 'a.bin', fileSize: 3, createdAt: FIXTURE_T0, expiresAt: FIXTURE_T0 + 900_000, uploaded: false };
      await repos.files.putFile({ ...record });
      await assertRejectsWithCode(() => repos.files.putFileContent('f-1', chunksOf([1, 2], [3, 4]), 3), 'PAYLOAD_TOO_LARGE', 'putContent past maxBytes');
      assertEqual(await repos.files.getFile('f-1'), record, 'getFile after an upload past maxBytes');
      assertEqual(await repos.files.getFileContent('f-1'), null, 'getContent after an upload past maxBytes');
      async function* failing(): AsyncIterable<Uint8Array> {
        yield new Uint8Array([1]);
        throw new TxmonError('VALIDATION_FAILED', 'The request body was cut off');
      }
      await assertRejectsWithCode(() => repos.files.putFileContent('f-1', failing(), 3), 'VALIDATION_FAILED', 'putContent of content that fails');
      assertEqual(await repos.files.getFile('f-1'), record, 'getFile after failing content');
      await repos.files.putFileContent('f-1', chunksOf([7, 8, 9]), 3);
      assertEqual(await repos.files.getFileContent('f-1'), new Uint8Array([7, 8, 9]), 'getContent after a retried upload');
    },
  },
  {
    name: 'saveWorkflow closing a case closes its open alerts with the case change, keeps a closed alert own close, keeps transactions and alert ids, and adds the comment',
    async body(repos) {
      await seedHit(repos, 1, 'ri-1', 'alice', { alertId: 'A-1', caseId: 'C-1' }, FIXTURE_T0 + 1);
      await seedHit(repos, 2, 'ri-2', 'alice', { alertId: 'A-2', caseId: 'C-x' }, FIXTURE_T0 + 2);
      const alertClose = { status: 'CLOSED' as const, reason: ['DUPLICATE' as const], timestamp: FIXTURE_T0 + 3 };
      await repos.cases.saveWorkflow({
        case: { caseId: 'C-1', patch: { updatedAt: FIXTURE_T0 + 3 } },
        alerts: [{ alertId: 'A-2', patch: { alertStatus: 'CLOSED', lastStatusChange: alertClose, closingReason: alertClose, updatedAt: FIXTURE_T0 + 3 } }],
        comments: [],
        decisions: [],
      });
      const caseClose = { status: 'CLOSED' as const, reason: ['FALSE_POSITIVE' as const], comment: 'done', actor: 'ana', timestamp: FIXTURE_T0 + 4 };
      const comment = { commentId: 'cm-1', body: 'done', files: [], createdTimestamp: FIXTURE_T0 + 4, updatedTimestamp: FIXTURE_T0 + 4 };
      await repos.cases.saveWorkflow({
        case: {
          caseId: 'C-1',
          patch: { caseStatus: 'CLOSED', lastStatusChange: caseClose, closingReason: caseClose, updatedAt: FIXTURE_T0 + 4 },
          openAlertsPatch: { alertStatus: 'CLOSED', lastStatusChange: caseClose, closingReason: caseClose, updatedAt: FIXTURE_T0 + 4 },
        },
        alerts: [],
        comments: [{ target: { kind: 'case', id: 'C-1' }, comment }],
        decisions: [statusDecisionOf('CASE', 'C-1', 'OPEN', caseClose, true)],
      });
      const c = await repos.cases.getCase('C-1');
      const logged = await repos.decisions.readDecisions(0, 100);
      assertEqual(
        logged.map((r) => (JSON.parse(r.entry) as { decision: { type: string } }).decision.type),
        ['TRANSACTION', 'TRANSACTION', 'CASE_STATUS'],
        'the decision log: the two results, then the case close',
      );
      assertEqual(logged.at(-1)?.entry, entryText(3, statusDecisionOf('CASE', 'C-1', 'OPEN', caseClose, true)), 'the case close entry');
      assertEqual([c?.caseStatus, c?.alertIds, c?.closingReason, c?.updatedAt], ['CLOSED', ['A-1', 'A-2'], caseClose, FIXTURE_T0 + 4], 'the closed case');
      const [a1, a2] = [await repos.cases.getAlert('A-1'), await repos.cases.getAlert('A-2')];
      assertEqual(
        [a1?.alertStatus, a1?.closingReason, a1?.entityDetails.transactionIds],
        ['CLOSED', caseClose, ['t-1']],
        'the open alert, closed with the case',
      );
      assertEqual([a2?.alertStatus, a2?.closingReason, a2?.updatedAt], ['CLOSED', alertClose, FIXTURE_T0 + 3], 'the alert closed before keeps its close');
      assertEqual(await repos.comments.listComments({ kind: 'case', id: 'C-1' }), [comment], 'the comment of the close');
    },
  },
  {
    name: 'after saveWorkflow closes an alert a hit opens a new alert in the open case; after it closes the case, a new case',
    async body(repos) {
      assertEqual(
        await seedHit(repos, 1, 'ri-1', 'alice', { alertId: 'A-1', caseId: 'C-1' }, FIXTURE_T0 + 1),
        [named('A-1', 'C-1', 'ri-1', 'alice', 'OPENED', 'ORIGIN', true)],
        'the alerts the first hit names',
      );
      const close = { status: 'CLOSED' as const, reason: ['FALSE_POSITIVE' as const], timestamp: FIXTURE_T0 + 2 };
      await repos.cases.saveWorkflow({
        alerts: [{ alertId: 'A-1', patch: { alertStatus: 'CLOSED', closingReason: close, updatedAt: FIXTURE_T0 + 2 } }],
        comments: [],
        decisions: [],
      });
      assertEqual(
        await seedHit(repos, 2, 'ri-1', 'alice', { alertId: 'A-2', caseId: 'C-2' }, FIXTURE_T0 + 3),
        [named('A-2', 'C-1', 'ri-1', 'alice', 'OPENED')],
        'a hit after the alert closed names the alert it opened',
      );
      assertEqual((await repos.cases.getCase('C-1'))?.alertIds, ['A-1', 'A-2'], 'the new alert joins the open case');
      await repos.cases.saveWorkflow({
        case: {
          caseId: 'C-1',
          patch: { caseStatus: 'CLOSED', updatedAt: FIXTURE_T0 + 4 },
          openAlertsPatch: { alertStatus: 'CLOSED', updatedAt: FIXTURE_T0 + 4 },
        },
        alerts: [],
        comments: [],
        decisions: [],
      });
      assertEqual(
        await seedHit(repos, 3, 'ri-1', 'alice', { alertId: 'A-3', caseId: 'C-3' }, FIXTURE_T0 + 5),
        [named('A-3', 'C-3', 'ri-1', 'alice', 'OPENED', 'ORIGIN', true)],
        'a hit after the case closed names the alert and the case it opened',
      );
      assertEqual(
        (await repos.transactions.getTransaction('t-3'))?.createResult.alerts,
        [named('A-3', 'C-3', 'ri-1', 'alice', 'OPENED', 'ORIGIN', true)],
        't-3 as stored',
      );
      const a3 = await repos.cases.getAlert('A-3');
      assertEqual(
        [a3?.caseId, a3?.alertStatus, a3?.entityDetails.transactionIds],
        ['C-3', 'OPEN', ['t-3']],
        'a hit after the close: a new alert in a new case',
      );
      assertEqual((await repos.cases.getAlert('A-2'))?.entityDetails.transactionIds, ['t-2'], 'the closed alert gets no hit');
    },
  },
  {
    name: 'saveWorkflow naming an unknown alert or case writes nothing',
    async body(repos) {
      await seedHit(repos, 1, 'ri-1', 'alice', { alertId: 'A-1', caseId: 'C-1' }, FIXTURE_T0 + 1);
      const before = structuredClone([await repos.cases.getAlert('A-1'), await repos.cases.getCase('C-1')]);
      const comment = { commentId: 'cm-1', body: 'x', files: [], createdTimestamp: FIXTURE_T0, updatedTimestamp: FIXTURE_T0 };
      await assertRejectsWithCode(
        () =>
          repos.cases.saveWorkflow({
            case: { caseId: 'C-1', patch: { caseStatus: 'ESCALATED', updatedAt: FIXTURE_T0 + 9 } },
            alerts: [
              { alertId: 'A-1', patch: { priority: 'P1', updatedAt: FIXTURE_T0 + 9 } },
              { alertId: 'A-nope', patch: { priority: 'P1', updatedAt: FIXTURE_T0 + 9 } },
            ],
            comments: [{ target: { kind: 'case', id: 'C-1' }, comment }],
            decisions: [statusDecisionOf('CASE', 'C-1', 'OPEN', { status: 'ESCALATED', timestamp: FIXTURE_T0 + 9 }, false)],
          }),
        'ALERT_NOT_FOUND',
        'an unknown alert',
      );
      await assertRejectsWithCode(
        () => repos.cases.saveWorkflow({ case: { caseId: 'C-nope', patch: { updatedAt: FIXTURE_T0 + 9 } }, alerts: [], comments: [], decisions: [] }),
        'CASE_NOT_FOUND',
        'an unknown case',
      );
      assertEqual([await repos.cases.getAlert('A-1'), await repos.cases.getCase('C-1')], before, 'the alert and case, unchanged');
      assertEqual(await repos.comments.listComments({ kind: 'case', id: 'C-1' }), [], 'no comment');
      assertEqual((await repos.decisions.decisionHead())?.seq, 1, 'no decision appended');
    },
  },
  {
    name: 'pageAlerts and pageCases walk every item once in (sort value, id) order for every sort key and order, with filters and counts',
    async body(repos) {
      const spec: [string, string, string, Alert['priority'], number][] = [
        ['A-c', 'ri-1', 'u1', 'P2', 30],
        ['A-a', 'ri-1', 'u2', 'P1', 10],
        ['A-e', 'ri-2', 'u1', 'P3', 10],
        ['A-b', 'ri-2', 'u3', 'P2', 20],
        ['A-d', 'ri-1', 'u4', 'P4', 20],
        ['A-f', 'ri-3', 'u2', 'P2', 10],
        ['A-g', 'ri-3', 'u5', 'P2', 10],
      ];
      for (const [i, [alertId, instanceId, userId, priority, at]] of spec.entries()) {
        await seedHit(repos, i, instanceId, userId, { alertId, caseId: `C-${alertId.slice(2)}`, priority }, FIXTURE_T0 + at);
      }
      // A later hit on A-b moves its updatedAt; one case is closed.
      await seedHit(repos, 9, 'ri-2', 'u3', { alertId: 'A-z', caseId: 'C-z' }, FIXTURE_T0 + 50);
      await repos.cases.saveWorkflow({
        case: { caseId: 'C-g', patch: { caseStatus: 'CLOSED', updatedAt: FIXTURE_T0 + 60 } },
        alerts: [],
        comments: [],
        decisions: [],
      });
      const alerts = await repos.cases.listAlerts();
      const cases = await repos.cases.listCases();
      for (const sortBy of SORT_KEYS) {
        for (const sortOrder of ['asc', 'desc'] as const) {
          const all = await walkPages(
            (after) => repos.cases.pageAlerts({ sortBy, sortOrder, limit: 2, ...(after === undefined ? {} : { after }) }),
            (a) => a.alertId,
            (a) => pageKeyOf(a, a.alertId, sortBy),
          );
          assertEqual(
            all.ids,
            referenceOrder(alerts, (a) => a.alertId, sortBy, sortOrder),
            `alerts by ${sortBy} ${sortOrder}`,
          );
          assertEqual(
            all.pages,
            [
              [2, true, 7],
              [2, true, 7],
              [2, true, 7],
              [1, false, 7],
            ],
            `alert pages by ${sortBy} ${sortOrder}`,
          );
          const filtered = await walkPages(
            (after) =>
              repos.cases.pageAlerts({
                sortBy,
                sortOrder,
                limit: 3,
                ruleInstanceId: 'ri-1',
                statuses: ['OPEN', 'ESCALATED'],
                ...(after === undefined ? {} : { after }),
              }),
            (a) => a.alertId,
            (a) => pageKeyOf(a, a.alertId, sortBy),
          );
          const expected = referenceOrder(
            alerts.filter((a) => a.ruleDetails.instanceId === 'ri-1'),
            (a) => a.alertId,
            sortBy,
            sortOrder,
          );
          assertEqual(filtered.ids, expected, `ri-1 alerts by ${sortBy} ${sortOrder}`);
          const casePages = await walkPages(
            (after) => repos.cases.pageCases({ sortBy, sortOrder, limit: 4, ...(after === undefined ? {} : { after }) }),
            (c) => c.caseId,
            (c) => pageKeyOf(c, c.caseId, sortBy),
          );
          assertEqual(
            casePages.ids,
            referenceOrder(cases, (c) => c.caseId, sortBy, sortOrder),
            `cases by ${sortBy} ${sortOrder}`,
          );
        }
      }
      const q = { sortBy: 'createdTimestamp' as const, sortOrder: 'asc' as const, limit: 100 };
      const ids = async (p: Promise<StorePage<Alert>>) => (await p).items.map((a) => a.alertId);
      assertEqual(await ids(repos.cases.pageAlerts({ ...q, userId: 'u2' })), ['A-a', 'A-f'], 'alerts of u2');
      assertEqual(await ids(repos.cases.pageAlerts({ ...q, priority: 'P2' })), ['A-f', 'A-g', 'A-b', 'A-c'], 'P2 alerts');
      assertEqual(
        await ids(repos.cases.pageAlerts({ ...q, createdFrom: FIXTURE_T0 + 20, createdTo: FIXTURE_T0 + 30 })),
        ['A-b', 'A-d', 'A-c'],
        'alerts created in [T+20, T+30]',
      );
      const caseIds = async (p: Promise<StorePage<Case>>) => (await p).items.map((c) => c.caseId);
      assertEqual(await caseIds(repos.cases.pageCases({ ...q, statuses: ['CLOSED'] })), ['C-g'], 'closed cases');
      assertEqual(await caseIds(repos.cases.pageCases({ ...q, userId: 'u1' })), ['C-c'], 'cases of u1');
      assertEqual((await repos.cases.pageCases({ ...q, limit: 1, userId: 'u2' })).count, 1, 'count of the cases of u2');
    },
  },
  {
    name: 'pageCases filters by a user that joined a case (case grouping COUNTERPARTIES)',
    async body(repos) {
      await seedHit(repos, 1, 'ri-1', 'alice', { alertId: 'A-1', caseId: 'C-1' }, FIXTURE_T0 + 1);
      await seedHit(repos, 2, 'ri-1', 'bob', { alertId: 'A-2', caseId: 'C-2', groupWithUserId: 'alice' }, FIXTURE_T0 + 2);
      const page = await repos.cases.pageCases({ sortBy: 'id', sortOrder: 'asc', limit: 10, userId: 'bob' });
      assertEqual([page.items.map((c) => [c.caseId, c.userIds]), page.count, page.hasNext], [[['C-1', ['alice', 'bob']]], 1, false], 'the case bob joined');
    },
  },
];

/** Content that arrives in the given chunks, as an upload does. */
async function* chunksOf(...chunks: number[][]): AsyncIterable<Uint8Array> {
  for (const chunk of chunks) yield new Uint8Array(chunk);
}

/**
 * The conformance cases, each bound to a fresh repositories instance from `createRepositories`.
 * Runner-agnostic: call `run()` and treat a rejection as a failure.
 *
 * @example
 * ```ts
 * import test from 'node:test';
 * import { repositoryConformanceCases } from 'txmon/testing';
 * for (const c of repositoryConformanceCases(() => createMyRepositories())) test(c.name, () => c.run());
 * ```
 */
export function repositoryConformanceCases(createRepositories: CreateRepositories, options: ConformanceOptions = {}): ConformanceCase[] {
  return CASES.map(({ name, body }) => ({
    name,
    async run() {
      const repos = await createRepositories();
      try {
        await body(repos);
      } finally {
        await options.dispose?.(repos);
      }
    },
  }));
}

/**
 * Registers every conformance case as one test inside a `describe(name)` block of any runner
 * with a `describe`/`it` pair (vitest, jest, `node:test`).
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * import { createMemoryRepositories } from 'txmon';
 * import { describeRepositoryConformance } from 'txmon/testing';
 * describeRepositoryConformance('memory', () => createMemoryRepositories(), { describe, it });
 * ```
 */
export function describeRepositoryConformance(
  name: string,
  createRepositories: CreateRepositories,
  runner: ConformanceRunner,
  options: ConformanceOptions = {},
): void {
  const cases = repositoryConformanceCases(createRepositories, options);
  runner.describe(name, () => {
    for (const c of cases) runner.it(c.name, () => c.run());
  });
}
