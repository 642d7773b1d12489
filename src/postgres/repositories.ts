/**
 * The repositories of `txmon/postgres`: every port in SQL, over a `pg` Pool or a PGlite instance.
 * They store what the engine decides; the one policy applied here — where an alert hit lands, and
 * what a user update does — is the domain's own (`decideAlertHit`, `applyUserUpdate`), applied
 * inside the same database transaction as the rest of the outcome.
 */
import type { Alert, Case, Comment, CommentTarget, ListSummary, RuleInstance, StoredList, StoredUser } from '../domain/entities.js';
import { decideAlertHit, type AlertHit } from '../domain/case-policy.js';
import { applyUserUpdate, seenUser, type UserUpdate } from '../domain/user-update.js';
import { TxmonError } from '../errors.js';
import type {
  AggregateRepository,
  CaseRepository,
  CommentRepository,
  ExclusiveUnitOptions,
  FileRecord,
  FileRepository,
  ListRepository,
  Repositories,
  RuleInstanceRepository,
  StoredEvent,
  StoredRuleInstance,
  StoredTransaction,
  TransactionOutcome,
  TransactionRepository,
  UserRepository,
} from '../engine/repositories.js';
import { applyEntries, assertEntries, entriesOf, entryRowsOf, queryAggregates } from './aggregates.js';
import { databaseOf, prepared, sqlStateOf, type Database, type PostgresClient, type Sql, type Statement, type UnitSql } from './client.js';

/** Options of {@link createPostgresRepositories}. */
export interface PostgresRepositoriesOptions {
  /** A `pg` Pool (node-postgres) or a PGlite instance, migrated with `migrate(client)`. */
  readonly client: PostgresClient;
  /**
   * On a `pg` Pool: the schema to keep the data in (migrated with `migrate(client, { schema })`).
   * Several repository sets, one per schema, can share one pool: each connection's `search_path`
   * is set as it is taken, so the process's connections stay within the pool's `max`.
   */
  readonly schema?: string;
}

const concurrentUpdate = (what: string, cause?: unknown) => new TxmonError('CONCURRENT_UPDATE', `The ${what} was changed concurrently`, [], { cause });
const json = (value: unknown): string => JSON.stringify(value);
/** Whether two JSON values serialize alike (one object is always alike itself). */
const sameJson = (a: unknown, b: unknown): boolean => a === b || json(a) === json(b);
/**
 * A stored transaction's row keeps `body` and `latest_result` only when they differ from their
 * source: the current event's (`current_event_id`) body and result, or — before any event — the
 * request and the create result. These read them whole.
 */
const TRANSACTION_BODY = 'coalesce(t.body, e.body, t.request)';
const TRANSACTION_COLUMNS = `t.version, t.event_count, t.last_event_timestamp, ${TRANSACTION_BODY} AS body, t.request, t.create_result,
  coalesce(t.latest_result, e.result, t.create_result) AS latest_result`;
const TRANSACTION_FROM = 'txmon_transactions t LEFT JOIN txmon_events e ON e.event_id = t.current_event_id';
const GET_TRANSACTION_SQL = prepared(`SELECT ${TRANSACTION_COLUMNS} FROM ${TRANSACTION_FROM} WHERE t.transaction_id = $1`);
/** Scan pages of the stored transactions. */
const SCAN_PAGE = 500;

function transactionsOf(sql: Sql, db: Database | null, reads: UnitReads | null): TransactionRepository {
  interface TxRow {
    version: number;
    event_count: number;
    last_event_timestamp: number | null;
    body: StoredTransaction['transaction'];
    request: StoredTransaction['request'];
    create_result: StoredTransaction['createResult'];
    latest_result: StoredTransaction['latestResult'];
  }
  interface EventRow {
    event_id: string;
    transaction_id: string;
    arrival: number;
    client_event_id: boolean;
    event: StoredEvent['event'];
    body: StoredEvent['transaction'];
    result: StoredEvent['result'];
  }
  const toEvent = (r: EventRow): StoredEvent => ({
    eventId: r.event_id,
    transactionId: r.transaction_id,
    event: r.event,
    clientEventId: r.client_event_id,
    arrival: Number(r.arrival),
    transaction: r.body,
    result: r.result,
  });
  const EVENT_COLUMNS = 'event_id, transaction_id, arrival, client_event_id, event, body, result';
  return {
    async getTransaction(id) {
      const prefetched = reads?.live ? reads.transaction : null;
      if (prefetched && prefetched.id === id && reads) {
        reads.transaction = null;
        reads.read = prefetched;
        return prefetched.value;
      }
      const rows = await sql.query<TxRow>(GET_TRANSACTION_SQL, [id]);
      const r = rows[0];
      const value: StoredTransaction | null = r
        ? {
            transaction: r.body,
            request: r.request,
            createResult: r.create_result,
            latestResult: r.latest_result,
            eventCount: Number(r.event_count),
            lastEventTimestamp: r.last_event_timestamp === null ? null : Number(r.last_event_timestamp),
            version: Number(r.version),
          }
        : null;
      if (reads) reads.read = { id, value };
      return value;
    },
    async listEvents(id) {
      return (await sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM txmon_events WHERE transaction_id = $1 ORDER BY arrival`, [id])).map(toEvent);
    },
    async getEvent(eventId) {
      const read = reads?.live ? reads.event : null;
      if (read && read.id === eventId && reads) {
        reads.event = null;
        return read.value;
      }
      const rows = await sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM txmon_events WHERE event_id = $1`, [eventId]);
      return rows[0] ? toEvent(rows[0]) : null;
    },
    async *scanTransactions() {
      let after = '0';
      for (;;) {
        const rows = await sql.query<{ seq: string; body: StoredTransaction['transaction'] }>(
          `SELECT t.seq::text AS seq, ${TRANSACTION_BODY} AS body FROM ${TRANSACTION_FROM} WHERE t.seq > $1::bigint ORDER BY t.seq LIMIT $2`,
          [after, SCAN_PAGE],
        );
        for (const row of rows) yield row.body;
        if (rows.length < SCAN_PAGE) return;
        after = (rows[rows.length - 1] as { seq: string }).seq;
      }
    },
    saveOutcome(outcome) {
      // What this unit read of the transaction: what the update leaves as it is.
      const read = reads?.read;
      const previous = read && read.id === outcome.transaction.transaction.transactionId ? read.value : null;
      if (reads) reads.live = false;
      // One database transaction: inside a unit of work already, or its own.
      return db === null ? saveOutcome(sql, outcome, previous) : db.transaction((tx) => saveOutcome(tx, outcome, null));
    },
  };
}

/** What the engine stores of one new alert: its transaction ids live in txmon_alert_transactions. */
function alertDocOf(alert: Alert): Record<string, unknown> {
  const { entityDetails, ...doc } = alert;
  return { ...doc, entityDetails: { type: entityDetails.type } };
}

/** What the alert and user policies of one outcome read (see `txmon_outcome_reads`). */
interface OutcomeReads {
  /** The last alert of (instance, user), by {@link pairKey}. */
  readonly alerts: Map<string, Alert>;
  /** The last case of each user. */
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
async function outcomeReadsOf(sql: Sql, outcome: TransactionOutcome): Promise<OutcomeReads> {
  const reads: OutcomeReads = { alerts: new Map(), cases: new Map(), users: new Map() };
  const { alertHits: hits, userUpdates: updates } = outcome;
  if (hits.length === 0 && updates.length === 0) return reads;
  const caseUsers = [...new Set(hits.map((h) => h.userId))];
  const updateUsers = [...new Set(updates.map((u) => u.userId))];
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

/**
 * Where the alert hits land, as the case policy decides them in order (a hit can land in an alert
 * or case an earlier hit of the same outcome opened), as the rows `txmon_save_outcome` writes: each
 * new case and alert in its final state, one patch per stored case and alert, and the rows that
 * link them, in order; `null` without hits.
 */
function alertWritesOf(hits: readonly AlertHit[], reads: OutcomeReads, now: number): Record<string, unknown> | null {
  if (hits.length === 0) return null;
  const { alerts, cases } = reads;
  const newCases = new Map<string, { userId: string; doc: Record<string, unknown> }>();
  const casePatches: Record<string, { updatedAt: number; priority?: string }> = {};
  const caseAlerts: [string, string][] = [];
  const newAlerts = new Map<string, { instanceId: string; userId: string; doc: Record<string, unknown> }>();
  const alertUpdates: Record<string, number> = {};
  const alertTransactions = new Map<string, [string, string]>();
  const link = (alertId: string, transactionId: string) => alertTransactions.set(`${alertId}\u0000${transactionId}`, [alertId, transactionId]);
  /** A change to a case: folded into it when this outcome creates it, else into its patch. */
  const patchCase = (caseId: string, patch: { updatedAt: number; priority?: string }) => {
    const created = newCases.get(caseId);
    if (created) Object.assign(created.doc, patch);
    else casePatches[caseId] = { ...casePatches[caseId], ...patch };
  };
  for (const hit of hits) {
    const change = decideAlertHit(hit, alerts.get(pairKey(hit.instanceId, hit.userId)) ?? null, cases.get(hit.userId) ?? null, now);
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
      cases.set(hit.userId, change.case);
    } else {
      patchCase(change.caseId, { updatedAt: change.at, priority: change.casePriority });
      const open = cases.get(hit.userId);
      if (open) cases.set(hit.userId, { ...open, priority: change.casePriority, updatedAt: change.at });
    }
    caseAlerts.push([change.alert.caseId, change.alert.alertId]);
    newAlerts.set(change.alert.alertId, { instanceId: hit.instanceId, userId: hit.userId, doc: alertDocOf(change.alert) });
    link(change.alert.alertId, hit.transactionId);
    alerts.set(pairKey(hit.instanceId, hit.userId), change.alert);
  }
  return {
    newCases: [...newCases].map(([caseId, c]) => [caseId, c.userId, c.doc]),
    casePatches,
    caseAlerts,
    newAlerts: [...newAlerts].map(([alertId, a]) => [alertId, a.instanceId, a.userId, a.doc]),
    alertUpdates,
    alertTransactions: [...alertTransactions.values()],
  };
}

/** The users after the outcome's updates, applied in order by the domain's `applyUserUpdate`, as `[userId, record]` pairs. */
function userWritesOf(updates: readonly UserUpdate[], reads: OutcomeReads, now: number): [string, StoredUser][] {
  const users = reads.users;
  for (const update of updates) users.set(update.userId, applyUserUpdate(users.get(update.userId) ?? null, update, now));
  return [...new Set(updates.map((u) => u.userId))].map((id) => [id, users.get(id) as StoredUser]);
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
async function saveOutcome(sql: Sql, outcome: TransactionOutcome, previous: StoredTransaction | null): Promise<void> {
  assertEntries(outcome.aggregates.add, null, '/add');
  const reads = await outcomeReadsOf(sql, outcome);
  const alerts = alertWritesOf(outcome.alertHits, reads, outcome.now);
  const users = userWritesOf(outcome.userUpdates, reads, outcome.now);
  const t = outcome.transaction;
  const e = outcome.event;
  const add = entryRowsOf(outcome.aggregates.add);
  // Run and hit counts per instance, summed here (one counter row write per instance).
  const counters = new Map<string, [string, number, number]>();
  for (const c of outcome.counters) {
    const sum = counters.get(c.instanceId);
    if (sum) {
      sum[1] += c.runs;
      sum[2] += c.hits;
    } else counters.set(c.instanceId, [c.instanceId, c.runs, c.hits]);
  }
  // The row's body and latest result are left out (NULL) when equal to their source — the event's,
  // or the request and create result — and, on an update, the request and create result when
  // equal to those of the version read in this unit (`previous`). Stored documents travel as json
  // parameters of their own, beside the document of the rest.
  const source = e === null ? { eventId: null, body: t.request, result: t.createResult } : { eventId: e.eventId, body: e.transaction, result: e.result };
  const kept = outcome.expectedVersion !== null && previous !== null && previous.version === outcome.expectedVersion ? previous : null;
  const documents = [
    sameJson(t.transaction, source.body) ? null : json(t.transaction),
    kept !== null && sameJson(t.request, kept.request) ? null : json(t.request),
    kept !== null && sameJson(t.createResult, kept.createResult) ? null : json(t.createResult),
    sameJson(t.latestResult, source.result) ? null : json(t.latestResult),
    e === null ? null : json(e.event),
    e === null ? null : json(e.transaction),
    e === null ? null : json(e.result),
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
    counters: [...counters.values()],
    alerts,
    seen: outcome.seenUserIds.map((id) => [id, seenUser(id, outcome.now)]),
    users,
  };
  const save: Statement = { text: SAVE_OUTCOME_SQL, params: [json(doc), ...documents] };
  // In a unit the write travels with COMMIT (one round trip fewer).
  if (isUnitSql(sql)) return sql.defer(save);
  try {
    await sql.query(save.text, save.params);
  } catch (error) {
    throw conflictOf(error);
  }
}

/** `txmon_save_outcome`'s conflict (SQLSTATE TX409) as `CONCURRENT_UPDATE`; any other error as it is. */
function conflictOf(error: unknown): unknown {
  if (sqlStateOf(error) !== 'TX409') return error;
  return concurrentUpdate((error as Error).message === 'event id' ? 'event id' : 'transaction', error);
}

const SAVE_OUTCOME_SQL = prepared('SELECT txmon_save_outcome($1::jsonb, $2::json, $3::json, $4::json, $5::json, $6::json, $7::json, $8::json)');

const isUnitSql = (sql: Sql): sql is UnitSql => typeof (sql as UnitSql).defer === 'function';

function ruleInstancesOf(sql: Sql, reads: UnitReads | null): RuleInstanceRepository {
  interface Row {
    stored: StoredRuleInstance;
    run_count: string | number;
    hit_count: string | number;
  }
  const withCounters = (r: Row): RuleInstance => ({ ...r.stored.instance, runCount: Number(r.run_count), hitCount: Number(r.hit_count) }) as RuleInstance;
  // The instance's own counters (kept on replace) plus its counts in every shard.
  const SELECT_WITH_COUNTERS = `SELECT r.stored, r.run_count + coalesce(k.runs, 0) AS run_count, r.hit_count + coalesce(k.hits, 0) AS hit_count
    FROM txmon_rule_instances r
    LEFT JOIN LATERAL (SELECT sum(u.runs) AS runs, sum(u.hits) AS hits FROM txmon_instance_counters c, unnest(c.seqs, c.runs, c.hits) AS u(seq, runs, hits)
      WHERE u.seq = r.seq) AS k ON true`;
  const bump = () => {
    if (reads) reads.live = false;
    return sql.query(`UPDATE txmon_meta SET value = value + 1 WHERE name = 'rule_instance_revision'`);
  };
  return {
    async list() {
      return (await sql.query<Row>(`${SELECT_WITH_COUNTERS} ORDER BY r.seq`)).map(withCounters);
    },
    async get(id) {
      const rows = await sql.query<Row>(`${SELECT_WITH_COUNTERS} WHERE r.id = $1`, [id]);
      return rows[0] ? withCounters(rows[0]) : null;
    },
    async getStored(id) {
      const rows = await sql.query<Row>('SELECT stored FROM txmon_rule_instances WHERE id = $1', [id]);
      return rows[0]?.stored ?? null;
    },
    async put(stored) {
      await sql.query('INSERT INTO txmon_rule_instances (id, stored) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET stored = excluded.stored', [
        stored.instance.id,
        json(stored),
      ]);
      await bump();
    },
    async delete(id) {
      // The instance's counts go from the shards with it.
      const rows = await sql.query<{ seq: string }>(
        `WITH gone AS (DELETE FROM txmon_rule_instances WHERE id = $1 RETURNING seq),
           counters AS (UPDATE txmon_instance_counters c SET (seqs, runs, hits) = (
               SELECT coalesce(array_agg(u.seq ORDER BY u.seq), '{}'), coalesce(array_agg(u.runs ORDER BY u.seq), '{}'), coalesce(array_agg(u.hits ORDER BY u.seq), '{}')
                 FROM unnest(c.seqs, c.runs, c.hits) AS u(seq, runs, hits) WHERE u.seq <> gone.seq)
             FROM gone WHERE gone.seq = ANY(c.seqs))
         SELECT seq::text AS seq FROM gone`,
        [id],
      );
      if (rows.length === 0) return false;
      await bump();
      return true;
    },
    async revision() {
      if (reads?.live && reads.revision !== null) return reads.revision;
      const rows = await sql.query<{ value: string | number }>(`SELECT value FROM txmon_meta WHERE name = 'rule_instance_revision'`);
      return Number(rows[0]?.value ?? 0);
    },
  };
}

function usersOf(sql: Sql, reads: UnitReads | null): UserRepository {
  return {
    async getUser(id) {
      const rows = await sql.query<{ record: StoredUser }>('SELECT record FROM txmon_users WHERE user_id = $1', [id]);
      return rows[0]?.record ?? null;
    },
    async getUsers(ids) {
      if (ids.length === 0) return [];
      const read = reads?.live ? reads.users : null;
      if (read && reads && ids.every((id) => read.has(id))) {
        reads.users = null;
        return ids.map((id) => read.get(id) ?? null);
      }
      const rows = await sql.query<{ user_id: string; record: StoredUser }>('SELECT user_id, record FROM txmon_users WHERE user_id = ANY($1::text[])', [
        [...ids],
      ]);
      const found = new Map(rows.map((r) => [r.user_id, r.record]));
      return ids.map((id) => found.get(id) ?? null);
    },
    async putUser(user) {
      if (reads) reads.live = false;
      await sql.query('INSERT INTO txmon_users (user_id, record) VALUES ($1, $2::jsonb) ON CONFLICT (user_id) DO UPDATE SET record = excluded.record', [
        user.userId,
        json(user),
      ]);
    },
    async saveUserProfile({ userId, type, profile, now }) {
      if (reads) reads.live = false;
      const created: StoredUser = { userId, type, profile, craScore: null, craRiskLevel: null, firstSeenAt: now, updatedAt: now };
      const rows = await sql.query<{ record: StoredUser }>(
        `INSERT INTO txmon_users (user_id, record) VALUES ($1, $2::jsonb)
         ON CONFLICT (user_id) DO UPDATE SET record = txmon_users.record || jsonb_build_object('type', $3::text, 'profile', $4::jsonb, 'updatedAt', $5::float8)
         RETURNING record`,
        [userId, json(created), type, json(profile), now],
      );
      return (rows[0] as { record: StoredUser }).record;
    },
  };
}

function commentsOf(sql: Sql): CommentRepository {
  return {
    async addComment(target: CommentTarget, comment: Comment) {
      await sql.query('INSERT INTO txmon_comments (target_kind, target_id, comment) VALUES ($1, $2, $3::jsonb)', [target.kind, target.id, json(comment)]);
    },
    async listComments(target: CommentTarget) {
      return (
        await sql.query<{ comment: Comment }>('SELECT comment FROM txmon_comments WHERE target_kind = $1 AND target_id = $2 ORDER BY seq', [
          target.kind,
          target.id,
        ])
      ).map((r) => r.comment);
    },
  };
}

function casesOf(sql: Sql): CaseRepository {
  const ALERT_SQL = `SELECT a.alert || jsonb_build_object('entityDetails', jsonb_build_object('type', 'TRANSACTION', 'transactionIds',
      coalesce((SELECT jsonb_agg(t.transaction_id ORDER BY t.seq) FROM txmon_alert_transactions t WHERE t.alert_id = a.alert_id), '[]'::jsonb))) AS doc
    FROM txmon_alerts a`;
  const CASE_SQL = `SELECT c."case" || jsonb_build_object('alertIds',
      coalesce((SELECT jsonb_agg(x.alert_id ORDER BY x.seq) FROM txmon_case_alerts x WHERE x.case_id = c.case_id), '[]'::jsonb)) AS doc
    FROM txmon_cases c`;
  return {
    async getAlert(id) {
      return (await sql.query<{ doc: Alert }>(`${ALERT_SQL} WHERE a.alert_id = $1`, [id]))[0]?.doc ?? null;
    },
    async listAlerts() {
      return (await sql.query<{ doc: Alert }>(`${ALERT_SQL} ORDER BY a.seq`)).map((r) => r.doc);
    },
    async getCase(id) {
      return (await sql.query<{ doc: Case }>(`${CASE_SQL} WHERE c.case_id = $1`, [id]))[0]?.doc ?? null;
    },
    async listCases() {
      return (await sql.query<{ doc: Case }>(`${CASE_SQL} ORDER BY c.seq`)).map((r) => r.doc);
    },
  };
}

function filesOf(sql: Sql, db: Database | null): FileRepository {
  return {
    async putFile(record) {
      await sql.query('INSERT INTO txmon_files (key, record) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET record = excluded.record', [
        record.key,
        json(record),
      ]);
    },
    async getFile(key) {
      return (await sql.query<{ record: FileRecord }>('SELECT record FROM txmon_files WHERE key = $1', [key]))[0]?.record ?? null;
    },
    putContent(key, content, maxBytes) {
      // One transaction holding the slot's row: a second upload waits, then finds it uploaded;
      // a failed one leaves nothing and the slot free.
      const store = async (tx: Sql): Promise<FileRecord> => {
        const rows = await tx.query<{ record: FileRecord }>('SELECT record FROM txmon_files WHERE key = $1 FOR UPDATE', [key]);
        const slot = rows[0]?.record;
        if (!slot) throw new TxmonError('FILE_NOT_FOUND', 'file not found');
        if (slot.uploaded) throw new TxmonError('FILE_ALREADY_UPLOADED', 'The upload URL was used already');
        const chunks: Uint8Array[] = [];
        let size = 0;
        for await (const chunk of content) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new TxmonError('PAYLOAD_TOO_LARGE', `The upload is larger than ${maxBytes} bytes`);
          chunks.push(chunk);
        }
        const bytes = Buffer.concat(
          chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)),
          size,
        );
        const stored: FileRecord = { ...slot, uploaded: true, size };
        await tx.query('UPDATE txmon_files SET record = $2::jsonb, content = $3 WHERE key = $1', [key, json(stored), bytes]);
        return stored;
      };
      return db === null ? store(sql) : db.transaction(store);
    },
    async getContent(key) {
      const rows = await sql.query<{ content: Uint8Array | null }>('SELECT content FROM txmon_files WHERE key = $1', [key]);
      const content = rows[0]?.content ?? null;
      return content === null ? null : new Uint8Array(content);
    },
  };
}

function listsOf(sql: Sql): ListRepository {
  type ListDoc = Omit<StoredList, 'items'>;
  return {
    async getList(listId) {
      const rows = await sql.query<{ list: ListDoc; items: string[] | null }>(
        'SELECT l.list, (SELECT array_agg(i.item ORDER BY i.seq) FROM txmon_list_items i WHERE i.list_id = l.list_id) AS items FROM txmon_lists l WHERE l.list_id = $1',
        [listId],
      );
      const r = rows[0];
      return r ? { ...r.list, items: r.items ?? [] } : null;
    },
    async listLists() {
      const rows = await sql.query<{ list: ListDoc; n: string | number }>(
        'SELECT l.list, (SELECT count(*) FROM txmon_list_items i WHERE i.list_id = l.list_id) AS n FROM txmon_lists l ORDER BY l.seq',
      );
      return rows.map((r): ListSummary => ({ ...r.list, itemCount: Number(r.n) }));
    },
    async putList(list) {
      const { items, ...doc } = list;
      const unique = [...new Set(items)];
      await sql.query('INSERT INTO txmon_lists (list_id, list) VALUES ($1, $2::jsonb) ON CONFLICT (list_id) DO UPDATE SET list = excluded.list', [
        list.listId,
        json(doc),
      ]);
      await sql.query('DELETE FROM txmon_list_items WHERE list_id = $1', [list.listId]);
      if (unique.length > 0) {
        await sql.query('INSERT INTO txmon_list_items (list_id, item, seq) SELECT $1, item, seq FROM unnest($2::text[]) WITH ORDINALITY AS x(item, seq)', [
          list.listId,
          unique,
        ]);
      }
    },
    async deleteList(listId) {
      await sql.query('DELETE FROM txmon_list_items WHERE list_id = $1', [listId]);
      return (await sql.query('DELETE FROM txmon_lists WHERE list_id = $1 RETURNING 1', [listId])).length > 0;
    },
    async lookup(listId, probes) {
      if (probes.length === 0) return [];
      const rows = await sql.query<{ list: ListDoc | null; found: boolean[] | null }>(
        `SELECT (SELECT list FROM txmon_lists WHERE list_id = $1) AS list,
                (SELECT array_agg(EXISTS (SELECT 1 FROM txmon_list_items i WHERE i.list_id = $1 AND i.item = p.v) ORDER BY p.n) FROM unnest($2::text[]) WITH ORDINALITY AS p(v, n)) AS found`,
        [listId, probes.map((p) => p.value)],
      );
      const r = rows[0];
      if (!r || r.list === null || r.found === null) return probes.map(() => false);
      const list = r.list;
      return probes.map((p, i) => p.listType === list.listType && p.subtype === list.subtype && r.found?.[i] === true);
    },
  };
}

function aggregatesOf(sql: Sql, db: Database | null): AggregateRepository {
  return {
    query: (queries) => queryAggregates(sql, queries),
    entries: (series, key) => entriesOf(sql, series, key),
    replaceSeries(series, entries) {
      assertEntries(entries, series, '');
      const replace = async (tx: Sql) => {
        await tx.query('DELETE FROM txmon_series_entries WHERE series = $1', [series]);
        await tx.query('DELETE FROM txmon_series_retention WHERE series = $1', [series]);
        await applyEntries(tx, [], entries);
      };
      return db === null ? replace(sql) : db.transaction(replace);
    },
    prune(horizons) {
      const series = [...horizons.keys()];
      const at = series.map((s) => horizons.get(s) as number);
      const prune = async (tx: Sql) => {
        const rows = await tx.query<{ dropped: string }>(
          `WITH h AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS h(series, horizon)),
             kept AS (
               INSERT INTO txmon_series_retention (series, retained_from) SELECT series, horizon FROM h
               ON CONFLICT (series) DO UPDATE SET retained_from = GREATEST(txmon_series_retention.retained_from, excluded.retained_from)
             ),
             gone AS (DELETE FROM txmon_series_entries e USING h WHERE e.series = h.series AND e.ts < h.horizon RETURNING 1)
           SELECT count(*) AS dropped FROM gone`,
          [series, at],
        );
        return Number(rows[0]?.dropped ?? 0);
      };
      return db === null ? prune(sql) : db.transaction(prune);
    },
    async retainedFrom() {
      const rows = await sql.query<{ series: string; retained_from: number }>('SELECT series, retained_from FROM txmon_series_retention');
      return new Map(rows.map((r) => [r.series, Number(r.retained_from)]));
    },
  };
}

/**
 * What a unit of work read while taking its locks (`txmon_unit_start`, from the hints in
 * `ExclusiveUnitOptions.prefetch`): each answers the unit's first read of the same thing, once.
 * `live` turns false at the unit's first write of any of them; every read goes to the database then.
 */
interface UnitReads {
  live: boolean;
  /** The transaction the unit last read (prefetched or not), whatever `live` says. */
  read: { readonly id: string; readonly value: StoredTransaction | null } | null;
  revision: number | null;
  transaction: { readonly id: string; readonly value: StoredTransaction | null } | null;
  event: { readonly id: string; readonly value: StoredEvent | null } | null;
  users: Map<string, StoredUser | null> | null;
}

/** A row of `txmon_unit_start`: what `r_kind` says, in generic columns. */
interface UnitStartRow {
  r_kind: 'r' | 't' | 'e' | 'u';
  r_id: string | null;
  r_n1: string | number | null;
  r_n2: string | number | null;
  r_ts: number | null;
  r_flag: boolean | null;
  r_d1: unknown;
  r_d2: unknown;
  r_d3: unknown;
  r_d4: unknown;
}

/** The statement that takes a unit's locks and reads what it will read first. */
function unitStartOf(keys: readonly string[], options: ExclusiveUnitOptions | undefined): Statement {
  const hint = options?.prefetch;
  return {
    text: 'SELECT * FROM txmon_unit_start($1::text[], $2::text[], $3::text, $4::text, $5::text[])',
    params: [[...(options?.sharedKeys ?? [])], [...keys], hint?.transactionId ?? null, hint?.eventId ?? null, hint?.userIds ? [...new Set(hint.userIds)] : []],
  };
}

/** What a unit read while taking its locks, from the rows of {@link unitStartOf}. */
function unitReadsOf(rows: readonly UnitStartRow[], options: ExclusiveUnitOptions | undefined): UnitReads {
  const hint = options?.prefetch;
  const reads: UnitReads = {
    live: true,
    read: null,
    revision: null,
    transaction: hint?.transactionId === undefined ? null : { id: hint.transactionId, value: null },
    event: hint?.eventId === undefined ? null : { id: hint.eventId, value: null },
    users: hint?.userIds ? new Map(hint.userIds.map((id) => [id, null])) : null,
  };
  for (const r of rows) {
    if (r.r_kind === 'r') reads.revision = Number(r.r_n1);
    else if (r.r_kind === 't') {
      reads.transaction = {
        id: r.r_id as string,
        value: {
          transaction: r.r_d1 as StoredTransaction['transaction'],
          request: r.r_d2 as StoredTransaction['request'],
          createResult: r.r_d3 as StoredTransaction['createResult'],
          latestResult: r.r_d4 as StoredTransaction['latestResult'],
          eventCount: Number(r.r_n2),
          lastEventTimestamp: r.r_ts === null ? null : Number(r.r_ts),
          version: Number(r.r_n1),
        },
      };
    } else if (r.r_kind === 'e') {
      reads.event = {
        id: r.r_id as string,
        value: {
          eventId: r.r_id as string,
          transactionId: r.r_d4 as string,
          event: r.r_d1 as StoredEvent['event'],
          clientEventId: r.r_flag === true,
          arrival: Number(r.r_n1),
          transaction: r.r_d2 as StoredEvent['transaction'],
          result: r.r_d3 as StoredEvent['result'],
        },
      };
    } else reads.users?.set(r.r_id as string, r.r_d1 as StoredUser);
  }
  return reads;
}

/**
 * The repositories over `sql`. `db` is the database when `sql` is not inside a transaction (then
 * every multi-statement write opens its own); `null` inside a unit of work, whose first reads
 * `reads` answers.
 */
function repositoriesOn(sql: Sql, db: Database | null, root: Database, reads: UnitReads | null): Repositories {
  return {
    transactions: transactionsOf(sql, db, reads),
    ruleInstances: ruleInstancesOf(sql, reads),
    users: usersOf(sql, reads),
    comments: commentsOf(sql),
    cases: casesOf(sql),
    files: filesOf(sql, db),
    aggregates: aggregatesOf(sql, db),
    lists: listsOf(sql),
    flags: { durable: true, sharedAcrossProcesses: true, reportsStoreFaults: true },
    ping: () => root.ping(),
    async runExclusive(keys, work, options) {
      try {
        return await root.unit(unitStartOf(keys, options), (tx, rows) =>
          work(repositoriesOn(tx, null, root, unitReadsOf(rows as unknown as UnitStartRow[], options))),
        );
      } catch (error) {
        // The outcome's write travels with COMMIT: its conflict surfaces here.
        throw conflictOf(error);
      }
    },
  };
}

/**
 * Repositories on PostgreSQL or PGlite (one SQL dialect): durable, and shared safely by any number
 * of engine processes (`flags.sharedAcrossProcesses`): every transaction's outcome is one SQL
 * transaction, run by the engine as a unit holding advisory locks on the transaction and its users.
 * Run {@link migrate} first.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import { createEngine } from 'txmon';
 * import { createPostgresRepositories, migrate } from 'txmon/postgres';
 * const client = new PGlite('./txmon-data');
 * await migrate(client);
 * const engine = createEngine({ repositories: createPostgresRepositories({ client }) });
 * ```
 */
export function createPostgresRepositories(options: PostgresRepositoriesOptions): Repositories {
  const db = databaseOf(options.client, options.schema === undefined ? {} : { schema: options.schema });
  return repositoriesOn(db, db, db, null);
}
