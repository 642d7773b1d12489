/**
 * One transaction's or event's outcome as one SQL statement (`txmon_save_outcome`): the
 * transaction, its event, its series entries, counters, alert hits and user updates — the domain's
 * own policy (`decideAlertHit`, `applyOutcomeUsers`) applied to what the unit read first.
 */
import type { Alert, Case, StoredUser } from '../domain/entities.js';
import { addResultAlert, decideAlertHit, resultAlertOf, type AlertHit } from '../domain/case-policy.js';
import type { ResultAlert } from '../domain/schemas/results.js';
import type { Transaction } from '../domain/index.js';
import { applyOutcomeUsers, type UserUpdate } from '../domain/user-update.js';
import { isInitialTransaction } from '../engine/pipeline/apply-event.js';
import { outcomeNamingAlerts, type StoredTransaction, type TransactionOutcome } from '../engine/repositories.js';
import { assertSeriesEntries } from '../aggregation/checks.js';
import type { PartsWriter } from './result-parts.js';
import { creationEntriesOf, entryRowsOf } from './aggregates.js';
import { concurrentUpdate, json, sameJson } from './rows.js';
import { isUnitSql, prepared, sqlStateOf, type Sql, type Statement } from './client.js';
import { appendOutboxOf } from './outbox.js';

/** What the engine stores of one new alert: its transaction ids live in txmon_alert_transactions. */
function alertDocOf(alert: Alert): Record<string, unknown> {
  const { entityDetails, ...doc } = alert;
  return { ...doc, entityDetails: { type: entityDetails.type } };
}

/** What the alert and user policies of one outcome read (see `txmon_outcome_reads`). */
interface OutcomeReads {
  /** The last alert of (instance, user), by {@link pairKey}. */
  readonly alerts: Map<string, Alert>;
  /** The case each user last opened or joined (its latest alert's), by user id. */
  readonly cases: Map<string, Case>;
  /** The stored record of each user to update. */
  readonly users: Map<string, StoredUser>;
}

const pairKey = (instanceId: string, userId: string) => `${instanceId}\u0000${userId}`;
const OUTCOME_READS_SQL = prepared('SELECT * FROM txmon_outcome_reads($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])');

/**
 * Reads what the outcome's alert hits and user updates need, in one statement, after locking each
 * user they touch (so the decisions of concurrent outcomes of one user never interleave); none
 * when the outcome has neither.
 */
async function outcomeReadsOf(sql: Sql, hits: readonly AlertHit[], updates: readonly UserUpdate[], seenUserIds: readonly string[] = []): Promise<OutcomeReads> {
  const reads: OutcomeReads = { alerts: new Map(), cases: new Map(), users: new Map() };
  if (hits.length === 0 && updates.length === 0) return reads;
  // A user to group with is read (and locked) too: its case is where a new alert may go.
  const caseUsers = [...new Set(hits.flatMap((h) => (h.groupWithUserId === undefined ? [h.userId] : [h.userId, h.groupWithUserId])))];
  const updateUsers = [...new Set([...updates.map((u) => u.userId), ...seenUserIds])];
  const rows = await sql.query<{ r_kind: 'a' | 'c' | 'u'; r_instance_id: string | null; r_user_id: string; r_doc: unknown }>(OUTCOME_READS_SQL, [
    [...new Set([...caseUsers, ...updateUsers])],
    hits.map((h) => h.instanceId),
    hits.map((h) => h.userId),
    caseUsers,
    updateUsers,
  ]);
  for (const r of rows) {
    if (r.r_kind === 'a') reads.alerts.set(pairKey(r.r_instance_id as string, r.r_user_id), r.r_doc as Alert);
    else if (r.r_kind === 'c') reads.cases.set(r.r_user_id, r.r_doc as Case);
    else reads.users.set(r.r_user_id, r.r_doc as StoredUser);
  }
  return reads;
}

/** An alert hit and the time of the outcome that holds it. */
interface TimedHit {
  readonly hit: AlertHit;
  readonly now: number;
}

/**
 * Where the alert hits land, as the case policy decides them in order (a hit can land in an alert
 * or case an earlier hit of the same outcome opened), as the rows `txmon_save_outcome` writes: each
 * new case and alert in its final state, one patch per stored case and alert, and the rows that
 * link them, in order (`null` without hits); and, per hit in order, the alert it landed in as a
 * result names it (`named`).
 */
function alertWritesOf(hits: readonly TimedHit[], reads: OutcomeReads): { rows: Record<string, unknown> | null; named: ResultAlert[] } {
  const named: ResultAlert[] = [];
  if (hits.length === 0) return { rows: null, named };
  const { alerts } = reads;
  // One current copy per case: several users (case grouping COUNTERPARTIES) may share a case, and a
  // decision must see the priority an earlier hit of this outcome gave it.
  const caseById = new Map<string, Case>();
  const caseIdOf = new Map<string, string>();
  for (const [userId, c] of reads.cases) {
    caseById.set(c.caseId, caseById.get(c.caseId) ?? c);
    caseIdOf.set(userId, c.caseId);
  }
  const caseOf = (userId: string | undefined) => (userId === undefined ? null : (caseById.get(caseIdOf.get(userId) ?? '') ?? null));
  const newCases = new Map<string, { userId: string; doc: Record<string, unknown> }>();
  const casePatches: Record<string, { updatedAt: number; priority?: string }> = {};
  const caseAlerts: [string, string][] = [];
  const newAlerts = new Map<string, { instanceId: string; userId: string; doc: Record<string, unknown> }>();
  const alertUpdates: Record<string, number> = {};
  const alertTransactions = new Map<string, [string, string]>();
  // A user rule's hit (no transaction) lists nothing.
  const link = (alertId: string, transactionId: string | null) => {
    if (transactionId !== null) alertTransactions.set(`${alertId}\u0000${transactionId}`, [alertId, transactionId]);
  };
  /** A change to a case: folded into it when this outcome creates it, else into its patch. */
  const patchCase = (caseId: string, patch: { updatedAt: number; priority?: string }) => {
    const created = newCases.get(caseId);
    if (created) Object.assign(created.doc, patch);
    else casePatches[caseId] = { ...casePatches[caseId], ...patch };
  };
  for (const { hit, now } of hits) {
    const change = decideAlertHit(hit, alerts.get(pairKey(hit.instanceId, hit.userId)) ?? null, caseOf(hit.userId), now, caseOf(hit.groupWithUserId));
    named.push(resultAlertOf(hit, change));
    if (change.kind === 'append') {
      const created = newAlerts.get(change.alertId);
      if (created) created.doc.updatedAt = change.at;
      else alertUpdates[change.alertId] = change.at;
      patchCase(change.caseId, { updatedAt: change.at });
      link(change.alertId, change.transactionId);
      continue;
    }
    if (change.caseIsNew) {
      const { alertIds: _alertIds, ...caseDoc } = change.case;
      newCases.set(change.case.caseId, { userId: hit.userId, doc: caseDoc });
      caseById.set(change.case.caseId, change.case);
    } else {
      patchCase(change.caseId, { updatedAt: change.at, priority: change.casePriority });
      const joined = caseById.get(change.caseId);
      if (joined) caseById.set(change.caseId, { ...joined, priority: change.casePriority, updatedAt: change.at });
    }
    // The alert's case is its user's case from now on (the read side finds it through the alert).
    caseIdOf.set(hit.userId, change.alert.caseId);
    caseAlerts.push([change.alert.caseId, change.alert.alertId]);
    newAlerts.set(change.alert.alertId, { instanceId: hit.instanceId, userId: hit.userId, doc: alertDocOf(change.alert) });
    link(change.alert.alertId, hit.transactionId);
    alerts.set(pairKey(hit.instanceId, hit.userId), change.alert);
  }
  const rows = {
    newCases: [...newCases].map(([caseId, c]) => [caseId, c.userId, c.doc]),
    casePatches,
    caseAlerts,
    newAlerts: [...newAlerts].map(([alertId, a]) => [alertId, a.instanceId, a.userId, a.doc]),
    alertUpdates,
    alertTransactions: [...alertTransactions.values()],
  };
  return { rows, named };
}

/** The entries to delete: those removed and not added again (an added entry replaces the stored one). */
function removedOf(remove: TransactionOutcome['aggregates']['remove'], add: readonly unknown[][]): string[][] {
  if (remove.length === 0) return [];
  const added = new Set(add.map((row) => `${row[0] as string}\u0000${row[1] as string}\u0000${row[2] as string}`));
  return remove.filter((r) => !added.has(`${r.series}\u0000${r.key}\u0000${r.id}`)).map((r) => [r.series, r.key, r.id]);
}

/**
 * Applies a whole outcome with `sql` (inside a database transaction): the reads the alert and user
 * policies need (one statement, only when the outcome has alert hits or user updates), then every
 * write in one statement, `txmon_save_outcome`, which raises SQLSTATE `TX409` on a version or
 * event-id conflict.
 */
export async function saveOutcome(
  sql: Sql,
  checked: TransactionOutcome,
  previous: StoredTransaction | null,
  parts: PartsWriter,
  appendDecision = true,
): Promise<ResultAlert[]> {
  assertSeriesEntries(checked.aggregates.add, '/add');
  const { effects, alerts } = await effectsOf(sql, [checked]);
  const named = alerts[0] as ResultAlert[];
  // The result is stored naming the alerts its hits landed in.
  const outcome = outcomeNamingAlerts(checked, named);
  const t = outcome.transaction;
  const e = outcome.event;
  const add = entryRowsOf(outcome.aggregates.add);
  // The row's body and latest result are left out (NULL) when equal to their source — the event's,
  // or the request and create result — and, on an update, the request and create result when
  // equal to those of the version read in this unit (`previous`). Stored documents travel as json
  // parameters of their own, beside the document of the rest.
  const source = e === null ? { eventId: null, body: t.request, result: t.createResult } : { eventId: e.eventId, body: e.transaction, result: e.result };
  const kept = outcome.expectedVersion !== null && previous !== null && previous.version === outcome.expectedVersion ? previous : null;
  const requestText = json(t.request);
  const documents = [
    e === null ? bodyTextOf(t.transaction, t.request, requestText) : sameJson(t.transaction, source.body) ? null : json(t.transaction),
    kept !== null && sameJson(t.request, kept.request) ? null : requestText,
    kept !== null && sameJson(t.createResult, kept.createResult) ? null : parts.textOf(t.createResult),
    sameJson(t.latestResult, source.result) ? null : parts.textOf(t.latestResult),
    e === null ? null : json(e.event),
    e === null ? null : json(e.transaction),
    e === null ? null : parts.textOf(e.result),
  ];
  const doc = {
    transaction: {
      id: t.transaction.transactionId,
      version: t.version,
      eventCount: t.eventCount,
      lastEventTimestamp: t.lastEventTimestamp,
      currentEventId: source.eventId,
    },
    expectedVersion: outcome.expectedVersion,
    event: e === null ? null : { eventId: e.eventId, transactionId: e.transactionId, arrival: e.arrival, clientEventId: e.clientEventId },
    remove: removedOf(outcome.aggregates.remove, add),
    add,
    ...effects,
  };
  const save: Statement = { text: SAVE_OUTCOME_SQL, params: [json(doc), ...documents] };
  await write(sql, parts.take(), save, appendDecision ? [outcome] : []);
  return named;
}

// The texts travel as one JSON array: escaped natively here, not element by element as an array literal.
const APPEND_DECISIONS_SQL = prepared(
  'SELECT txmon_append_decisions(ARRAY(SELECT x.d FROM json_array_elements_text($1::json) WITH ORDINALITY AS x(d, n) ORDER BY x.n))',
);

/** The decision log's append of `outcomes`' decisions, in order. */
export function appendDecisionsOf(outcomes: readonly TransactionOutcome[]): Statement {
  return appendDecisionTexts(outcomes.map((o) => o.decision));
}

/** The decision log's append of decision texts, in order: a write's last statement. */
export function appendDecisionTexts(decisions: readonly string[]): Statement {
  return { text: APPEND_DECISIONS_SQL, params: [json(decisions)] };
}

/**
 * The statements that end the write of `decided`: the decision log's append, then the outbox's
 * (when any of them reports something) — last, so the log's head and the outbox counter (which
 * serialise the appends of every process) are held for the commit only and never while waiting for
 * another lock.
 */
export function closingStatementsOf(decided: readonly TransactionOutcome[]): Statement[] {
  if (decided.length === 0) return [];
  const out = [appendDecisionsOf(decided)];
  const messages = decided.flatMap((o) => o.outbox ?? []);
  if (messages.length > 0) out.push(appendOutboxOf(messages));
  return out;
}

/**
 * Runs an outcome's write (after the result parts it names that may not be stored yet), then the
 * {@link closingStatementsOf} `decided`. In a unit they travel with COMMIT (one round trip fewer).
 */
async function write(sql: Sql, parts: Statement | null, save: Statement, decided: readonly TransactionOutcome[]): Promise<void> {
  if (isUnitSql(sql)) {
    if (parts !== null) sql.defer(parts);
    sql.defer(save);
    for (const closing of closingStatementsOf(decided)) sql.deferToCommit(closing);
    return;
  }
  try {
    if (parts !== null) await sql.query(parts.text, parts.params);
    await sql.query(save.text, save.params);
    for (const closing of closingStatementsOf(decided)) await sql.query(closing.text, closing.params);
  } catch (error) {
    throw conflictOf(error);
  }
}

/**
 * What outcomes write besides their transactions, events and series entries, as
 * `txmon_save_effects` reads it (`effects`): one read for the alert and user policies of all of
 * them (after locking the users they touch), then the policies applied outcome by outcome, each
 * seeing what the ones before it decided — counters summed, alerts and cases, users seen (inserted
 * unless they exist) and updated (written whole); and per outcome, the alerts its hits landed in
 * (`alerts`, each once, in hit order).
 */
async function effectsOf(sql: Sql, outcomes: readonly TransactionOutcome[]) {
  const hits: TimedHit[] = [];
  const updates: UserUpdate[] = [];
  const seen = new Set<string>();
  for (const outcome of outcomes) {
    for (const hit of outcome.alertHits) hits.push({ hit, now: outcome.now });
    for (const update of outcome.userUpdates) updates.push(update);
    for (const id of outcome.seenUserIds) seen.add(id);
  }
  // A user seen by one outcome and updated by a later one is updated from what the first stored:
  // with several outcomes, the seen users are read too.
  const reads = await outcomeReadsOf(
    sql,
    hits.map((h) => h.hit),
    updates,
    outcomes.length > 1 && updates.length > 0 ? [...seen] : [],
  );
  const users = reads.users as Map<string, StoredUser | null>;
  const updated = new Set(updates.map((u) => u.userId));
  for (const outcome of outcomes) applyOutcomeUsers(users, outcome.seenUserIds, outcome.userUpdates, outcome.now);
  const seenRows: [string, StoredUser][] = [];
  for (const id of seen) if (!updated.has(id)) seenRows.push([id, users.get(id) as StoredUser]);
  const { rows, named } = alertWritesOf(hits, reads);
  // The hits are in outcome order: each outcome's are the next `alertHits.length` of them.
  const alerts: ResultAlert[][] = [];
  let next = 0;
  for (const outcome of outcomes) {
    const own: ResultAlert[] = [];
    for (let i = 0; i < outcome.alertHits.length; i++) addResultAlert(own, named[next++] as ResultAlert);
    alerts.push(own);
  }
  const effects = {
    counters: counterRowsOf(outcomes.flatMap((o) => o.counters)),
    alerts: rows,
    seen: seenRows,
    users: [...updated].map((id) => [id, users.get(id)]),
  };
  return { effects, alerts };
}

/** Run and hit counts per instance as `[instanceId, runs, hits]` rows, summed here (one counter row write per instance). */
function counterRowsOf(counts: readonly TransactionOutcome['counters'][number][]): [string, number, number][] {
  const counters = new Map<string, [string, number, number]>();
  for (const c of counts) {
    const sum = counters.get(c.instanceId);
    if (sum) {
      sum[1] += c.runs;
      sum[2] += c.hits;
    } else counters.set(c.instanceId, [c.instanceId, c.runs, c.hits]);
  }
  return [...counters.values()];
}

/** Whether every outcome creates a transaction (no event, no version to check): what {@link saveCreations} writes. */
export function allCreations(outcomes: readonly TransactionOutcome[]): boolean {
  return outcomes.every(
    (o) =>
      o.expectedVersion === null &&
      o.event === null &&
      o.aggregates.remove.length === 0 &&
      o.transaction.version === 1 &&
      o.transaction.eventCount === 0 &&
      o.transaction.lastEventTimestamp === null,
  );
}

/**
 * Applies outcomes that each create a transaction (see {@link allCreations}) as if saved one after
 * the other, with `sql` inside a database transaction, set-based: one read for the alert and user
 * policies of all of them (the domain's policies then applied outcome by outcome, each seeing what
 * the ones before it decided), and one write, `txmon_save_creations` — every transaction, series
 * entry, counter, alert, case and user of the chunk in a few multi-row statements. SQLSTATE `TX409`
 * when one of the transactions exists.
 */
export async function saveCreations(sql: Sql, checked: readonly TransactionOutcome[], parts: PartsWriter): Promise<ResultAlert[][]> {
  if (checked.length === 0) return [];
  const adds: TransactionOutcome['aggregates']['add'] = [];
  for (const outcome of checked) {
    assertSeriesEntries(outcome.aggregates.add, '/add');
    for (const entry of outcome.aggregates.add) adds.push(entry);
  }
  const { effects, alerts } = await effectsOf(sql, checked);
  // Each result is stored naming the alerts its hits landed in.
  const outcomes = checked.map((outcome, i) => outcomeNamingAlerts(outcome, alerts[i] as ResultAlert[]));
  const entries = creationEntriesOf(adds);
  const doc = { remove: [], add: [], new: entries.rows, vals: entries.vals, ...effects };
  const save: Statement = { text: SAVE_CREATIONS_SQL, params: [json(doc), ...transactionColumnsOf(outcomes, parts)] };
  await write(sql, parts.take(), save, outcomes);
  return alerts;
}

/**
 * The new transactions' columns, each as ONE json array text joined from each document's JSON
 * (never escaped again, as array parameters would be): ids, bodies, requests, create results and
 * latest results; a body `null` when it is the request as a new transaction starts it (see
 * {@link bodyTextOf}), a latest result `null` when it is the create result.
 */
function transactionColumnsOf(outcomes: readonly TransactionOutcome[], parts: PartsWriter): string[] {
  const columns: string[][] = [[], [], [], [], []];
  const [ids, bodies, requests, created, latest] = columns as [string[], string[], string[], string[], string[]];
  for (const { transaction: t } of outcomes) {
    const request = json(t.request);
    const result = parts.textOf(t.createResult);
    const latestResult = t.latestResult === t.createResult ? result : parts.textOf(t.latestResult);
    ids.push(json(t.transaction.transactionId));
    bodies.push(bodyTextOf(t.transaction, t.request, request) ?? 'null');
    requests.push(request);
    created.push(result);
    latest.push(latestResult === result ? 'null' : latestResult);
  }
  return columns.map((column) => `[${column.join(',')}]`);
}

/**
 * The JSON text a row keeps of a transaction's body before any event: `null` when it is the request
 * as a new transaction starts it ({@link isInitialTransaction}: its state defaulted, or the
 * request's own state), which reads put back from the request (see transactions.ts); else its own.
 */
function bodyTextOf(body: Transaction, request: Transaction, requestText: string): string | null {
  if (isInitialTransaction(body, request)) return null;
  const text = json(body);
  return request.transactionState && text === requestText ? null : text;
}

const SAVE_CREATIONS_SQL = prepared('SELECT txmon_save_creations($1::jsonb, $2::json, $3::json, $4::json, $5::json, $6::json)');

/**
 * Writes what the user rules of a user creation or user event decided — the instances' run and hit
 * counts and the alert hits on the user — with `sql` inside the database transaction of the user's
 * save: the alert policy's reads (locking the user, as an outcome does), the domain's
 * `decideAlertHit` applied hit by hit, and one `txmon_save_effects` with the counter and alert rows
 * (the same rows and statement a transaction's outcome writes).
 */
export async function saveRuleEffects(
  sql: Sql,
  writes: { readonly counters: readonly TransactionOutcome['counters'][number][]; readonly alertHits: readonly AlertHit[] },
  now: number,
): Promise<void> {
  if (writes.counters.length === 0 && writes.alertHits.length === 0) return;
  const reads = await outcomeReadsOf(sql, writes.alertHits, []);
  const alerts = alertWritesOf(
    writes.alertHits.map((hit) => ({ hit, now })),
    reads,
  ).rows;
  const doc = { remove: [], add: [], counters: counterRowsOf(writes.counters), alerts, seen: [], users: [] };
  await sql.query(SAVE_EFFECTS_SQL, [json(doc)]);
}

const SAVE_EFFECTS_SQL = prepared('SELECT txmon_save_effects($1::jsonb)');

/** `txmon_save_outcome`'s conflict (SQLSTATE TX409) as `CONCURRENT_UPDATE`; any other error as it is. */
export function conflictOf(error: unknown): unknown {
  if (sqlStateOf(error) !== 'TX409') return error;
  return concurrentUpdate((error as Error).message === 'event id' ? 'event id' : 'transaction', error);
}

const SAVE_OUTCOME_SQL = prepared('SELECT txmon_save_outcome($1::jsonb, $2::json, $3::json, $4::json, $5::json, $6::json, $7::json, $8::json)');
