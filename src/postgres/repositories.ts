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
} from '../repositories/types.js';
import { applyEntries, assertEntries, entriesOf, queryAggregates } from './aggregates.js';
import { databaseOf, type Database, type PostgresClient, type Sql } from './client.js';

/** Options of {@link createPostgresRepositories}. */
export interface PostgresRepositoriesOptions {
  /** A `pg` Pool (node-postgres) or a PGlite instance, migrated with `migrate(client)`. */
  readonly client: PostgresClient;
}

const concurrentUpdate = (what: string) => new TxmonError('CONCURRENT_UPDATE', `The ${what} was changed concurrently`);
const json = (value: unknown): string => JSON.stringify(value);
/** Scan pages of the stored transactions. */
const SCAN_PAGE = 500;

function transactionsOf(sql: Sql, db: Database | null): TransactionRepository {
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
      const rows = await sql.query<TxRow>(
        'SELECT version, event_count, last_event_timestamp, body, request, create_result, latest_result FROM txmon_transactions WHERE transaction_id = $1',
        [id],
      );
      const r = rows[0];
      if (!r) return null;
      return {
        transaction: r.body,
        request: r.request,
        createResult: r.create_result,
        latestResult: r.latest_result,
        eventCount: Number(r.event_count),
        lastEventTimestamp: r.last_event_timestamp === null ? null : Number(r.last_event_timestamp),
        version: Number(r.version),
      };
    },
    async listEvents(id) {
      return (await sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM txmon_events WHERE transaction_id = $1 ORDER BY arrival`, [id])).map(toEvent);
    },
    async getEvent(eventId) {
      const rows = await sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM txmon_events WHERE event_id = $1`, [eventId]);
      return rows[0] ? toEvent(rows[0]) : null;
    },
    async *scanTransactions() {
      let after = '0';
      for (;;) {
        const rows = await sql.query<{ seq: string; body: StoredTransaction['transaction'] }>(
          'SELECT seq::text AS seq, body FROM txmon_transactions WHERE seq > $1::bigint ORDER BY seq LIMIT $2',
          [after, SCAN_PAGE],
        );
        for (const row of rows) yield row.body;
        if (rows.length < SCAN_PAGE) return;
        after = (rows[rows.length - 1] as { seq: string }).seq;
      }
    },
    saveOutcome(outcome) {
      // One database transaction: inside a unit of work already, or its own.
      return db === null ? saveOutcome(sql, outcome) : db.transaction((tx) => saveOutcome(tx, outcome));
    },
  };
}

/** Stores the transaction (version-checked) and its event; `CONCURRENT_UPDATE` on a conflict. */
async function saveTransactionAndEvent(sql: Sql, outcome: TransactionOutcome): Promise<void> {
  const t = outcome.transaction;
  const id = t.transaction.transactionId;
  const values = [id, t.version, t.eventCount, t.lastEventTimestamp, json(t.transaction), json(t.request), json(t.createResult), json(t.latestResult)];
  const written =
    outcome.expectedVersion === null
      ? await sql.query(
          `INSERT INTO txmon_transactions (transaction_id, version, event_count, last_event_timestamp, body, request, create_result, latest_result)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb) ON CONFLICT (transaction_id) DO NOTHING RETURNING 1`,
          values,
        )
      : await sql.query(
          `UPDATE txmon_transactions SET version = $2, event_count = $3, last_event_timestamp = $4, body = $5::jsonb, request = $6::jsonb,
             create_result = $7::jsonb, latest_result = $8::jsonb WHERE transaction_id = $1 AND version = $9 RETURNING 1`,
          [...values, outcome.expectedVersion],
        );
  if (written.length === 0) throw concurrentUpdate('transaction');
  const e = outcome.event;
  if (e === null) return;
  const inserted = await sql.query(
    `INSERT INTO txmon_events (event_id, transaction_id, arrival, client_event_id, event, body, result)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb) ON CONFLICT (event_id) DO NOTHING RETURNING 1`,
    [e.eventId, e.transactionId, e.arrival, e.clientEventId, json(e.event), json(e.transaction), json(e.result)],
  );
  if (inserted.length === 0) throw concurrentUpdate('event id');
}

/** Adds the outcome's run and hit counts to the instances that exist. */
async function addCounters(sql: Sql, counters: TransactionOutcome['counters']): Promise<void> {
  if (counters.length === 0) return;
  const sums = new Map<string, { runs: number; hits: number }>();
  for (const c of counters) {
    const s = sums.get(c.instanceId) ?? { runs: 0, hits: 0 };
    s.runs += c.runs;
    s.hits += c.hits;
    sums.set(c.instanceId, s);
  }
  await sql.query(
    `UPDATE txmon_rule_instances r SET run_count = r.run_count + c.runs, hit_count = r.hit_count + c.hits
     FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(id, runs, hits) WHERE r.id = c.id`,
    [[...sums.keys()], [...sums.values()].map((s) => s.runs), [...sums.values()].map((s) => s.hits)],
  );
}

/**
 * Stores where each alert hit lands, as the case policy decides: the open alerts and cases the
 * hits may land in are read in one statement, the decisions made in order (a hit can land in an
 * alert or case an earlier hit of the same outcome opened), then written.
 */
async function applyAlertHits(sql: Sql, hits: readonly AlertHit[], now: number): Promise<void> {
  if (hits.length === 0) return;
  const alerts = new Map<string, Alert>();
  const cases = new Map<string, Case>();
  const pairKey = (instanceId: string, userId: string) => `${instanceId}\u0000${userId}`;
  const rows = await sql.query<{ instance_id: string; user_id: string; doc: Alert }>(
    `SELECT DISTINCT ON (instance_id, user_id) instance_id, user_id, alert AS doc FROM txmon_alerts
       WHERE (instance_id, user_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY instance_id, user_id, seq DESC`,
    [hits.map((h) => h.instanceId), hits.map((h) => h.userId)],
  );
  const caseRows = await sql.query<{ k: string; doc: Case }>(
    `SELECT DISTINCT ON (user_id) user_id AS k, "case" AS doc FROM txmon_cases WHERE user_id = ANY($1::text[]) ORDER BY user_id, seq DESC`,
    [[...new Set(hits.map((h) => h.userId))]],
  );
  for (const r of rows) alerts.set(pairKey(r.instance_id, r.user_id), r.doc);
  for (const r of caseRows) cases.set(r.k, r.doc);
  for (const hit of hits) {
    const change = decideAlertHit(hit, alerts.get(pairKey(hit.instanceId, hit.userId)) ?? null, cases.get(hit.userId) ?? null, now);
    if (change.kind === 'append') {
      await sql.query('INSERT INTO txmon_alert_transactions (alert_id, transaction_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [change.alertId, change.transactionId]);
      await sql.query(`UPDATE txmon_alerts SET alert = jsonb_set(alert, '{updatedAt}', to_jsonb($2::float8)) WHERE alert_id = $1`, [change.alertId, change.at]);
      await sql.query(`UPDATE txmon_cases SET "case" = jsonb_set("case", '{updatedAt}', to_jsonb($2::float8)) WHERE case_id = $1`, [change.caseId, change.at]);
      continue;
    }
    const { alertId, entityDetails, ...alertDoc } = change.alert;
    if (change.caseIsNew) {
      const { alertIds: _alertIds, ...caseDoc } = change.case;
      await sql.query(`INSERT INTO txmon_cases (case_id, user_id, "case") VALUES ($1, $2, $3::jsonb)`, [change.case.caseId, hit.userId, json(caseDoc)]);
      cases.set(hit.userId, change.case);
    } else {
      await sql.query(
        `UPDATE txmon_cases SET "case" = "case" || jsonb_build_object('updatedAt', $2::float8, 'priority', $3::text) WHERE case_id = $1`,
        [change.caseId, change.at, change.casePriority],
      );
      const open = cases.get(hit.userId);
      if (open) cases.set(hit.userId, { ...open, priority: change.casePriority, updatedAt: change.at });
    }
    await sql.query('INSERT INTO txmon_case_alerts (case_id, alert_id) VALUES ($1, $2)', [change.alert.caseId, alertId]);
    await sql.query(`INSERT INTO txmon_alerts (alert_id, instance_id, user_id, alert) VALUES ($1, $2, $3, $4::jsonb)`, [
      alertId,
      hit.instanceId,
      hit.userId,
      json({ alertId, ...alertDoc, entityDetails: { type: entityDetails.type } }),
    ]);
    await sql.query('INSERT INTO txmon_alert_transactions (alert_id, transaction_id) VALUES ($1, $2)', [alertId, hit.transactionId]);
    alerts.set(pairKey(hit.instanceId, hit.userId), change.alert);
  }
}

/** Creates the parties not stored yet, then applies the user updates in order (read, applied, written back). */
async function applyUserChanges(sql: Sql, seenUserIds: readonly string[], updates: readonly UserUpdate[], now: number): Promise<void> {
  if (seenUserIds.length > 0) {
    await sql.query(
      'INSERT INTO txmon_users (user_id, record) SELECT * FROM unnest($1::text[], $2::jsonb[]) ON CONFLICT (user_id) DO NOTHING',
      [seenUserIds, seenUserIds.map((id) => json(seenUser(id, now)))],
    );
  }
  if (updates.length === 0) return;
  const ids = [...new Set(updates.map((u) => u.userId))];
  const rows = await sql.query<{ user_id: string; record: StoredUser }>('SELECT user_id, record FROM txmon_users WHERE user_id = ANY($1::text[])', [ids]);
  const users = new Map<string, StoredUser>(rows.map((r) => [r.user_id, r.record]));
  for (const update of updates) users.set(update.userId, applyUserUpdate(users.get(update.userId) ?? null, update, now));
  await sql.query(
    'INSERT INTO txmon_users (user_id, record) SELECT * FROM unnest($1::text[], $2::jsonb[]) ON CONFLICT (user_id) DO UPDATE SET record = excluded.record',
    [ids, ids.map((id) => json(users.get(id)))],
  );
}

/** Applies a whole outcome with `sql` (inside a database transaction). */
async function saveOutcome(sql: Sql, outcome: TransactionOutcome): Promise<void> {
  assertEntries(outcome.aggregates.add, null, '/add');
  await saveTransactionAndEvent(sql, outcome);
  await applyEntries(sql, outcome.aggregates.remove, outcome.aggregates.add);
  await addCounters(sql, outcome.counters);
  await applyAlertHits(sql, outcome.alertHits, outcome.now);
  await applyUserChanges(sql, outcome.seenUserIds, outcome.userUpdates, outcome.now);
}

function ruleInstancesOf(sql: Sql): RuleInstanceRepository {
  interface Row {
    stored: StoredRuleInstance;
    run_count: string | number;
    hit_count: string | number;
  }
  const withCounters = (r: Row): RuleInstance => ({ ...r.stored.instance, runCount: Number(r.run_count), hitCount: Number(r.hit_count) }) as RuleInstance;
  const bump = () => sql.query(`UPDATE txmon_meta SET value = value + 1 WHERE name = 'rule_instance_revision'`);
  return {
    async list() {
      return (await sql.query<Row>('SELECT stored, run_count, hit_count FROM txmon_rule_instances ORDER BY seq')).map(withCounters);
    },
    async get(id) {
      const rows = await sql.query<Row>('SELECT stored, run_count, hit_count FROM txmon_rule_instances WHERE id = $1', [id]);
      return rows[0] ? withCounters(rows[0]) : null;
    },
    async getStored(id) {
      const rows = await sql.query<Row>('SELECT stored FROM txmon_rule_instances WHERE id = $1', [id]);
      return rows[0]?.stored ?? null;
    },
    async put(stored) {
      await sql.query(
        'INSERT INTO txmon_rule_instances (id, stored) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET stored = excluded.stored',
        [stored.instance.id, json(stored)],
      );
      await bump();
    },
    async delete(id) {
      const rows = await sql.query('DELETE FROM txmon_rule_instances WHERE id = $1 RETURNING 1', [id]);
      if (rows.length === 0) return false;
      await bump();
      return true;
    },
    async revision() {
      const rows = await sql.query<{ value: string | number }>(`SELECT value FROM txmon_meta WHERE name = 'rule_instance_revision'`);
      return Number(rows[0]?.value ?? 0);
    },
  };
}

function usersOf(sql: Sql): UserRepository {
  return {
    async getUser(id) {
      const rows = await sql.query<{ record: StoredUser }>('SELECT record FROM txmon_users WHERE user_id = $1', [id]);
      return rows[0]?.record ?? null;
    },
    async getUsers(ids) {
      if (ids.length === 0) return [];
      const rows = await sql.query<{ user_id: string; record: StoredUser }>('SELECT user_id, record FROM txmon_users WHERE user_id = ANY($1::text[])', [[...ids]]);
      const found = new Map(rows.map((r) => [r.user_id, r.record]));
      return ids.map((id) => found.get(id) ?? null);
    },
    async putUser(user) {
      await sql.query('INSERT INTO txmon_users (user_id, record) VALUES ($1, $2::jsonb) ON CONFLICT (user_id) DO UPDATE SET record = excluded.record', [user.userId, json(user)]);
    },
    async saveUserProfile({ userId, type, profile, now }) {
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
      return (await sql.query<{ comment: Comment }>('SELECT comment FROM txmon_comments WHERE target_kind = $1 AND target_id = $2 ORDER BY seq', [target.kind, target.id])).map(
        (r) => r.comment,
      );
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
      await sql.query('INSERT INTO txmon_files (key, record) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET record = excluded.record', [record.key, json(record)]);
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
        const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)), size);
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
      await sql.query('INSERT INTO txmon_lists (list_id, list) VALUES ($1, $2::jsonb) ON CONFLICT (list_id) DO UPDATE SET list = excluded.list', [list.listId, json(doc)]);
      await sql.query('DELETE FROM txmon_list_items WHERE list_id = $1', [list.listId]);
      if (unique.length > 0) {
        await sql.query('INSERT INTO txmon_list_items (list_id, item, seq) SELECT $1, item, seq FROM unnest($2::text[]) WITH ORDINALITY AS x(item, seq)', [list.listId, unique]);
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
 * The repositories over `sql`. `db` is the database when `sql` is not inside a transaction (then
 * every multi-statement write opens its own); `null` inside a unit of work.
 */
function repositoriesOn(sql: Sql, db: Database | null, root: Database): Repositories {
  return {
    transactions: transactionsOf(sql, db),
    ruleInstances: ruleInstancesOf(sql),
    users: usersOf(sql),
    comments: commentsOf(sql),
    cases: casesOf(sql),
    files: filesOf(sql, db),
    aggregates: aggregatesOf(sql, db),
    lists: listsOf(sql),
    flags: { durable: true, sharedAcrossProcesses: true },
    async runExclusive(keys, work, options) {
      return root.transaction(async (tx) => {
        await tx.query('SELECT txmon_lock($1::text[], $2::text[])', [[...(options?.sharedKeys ?? [])], [...keys]]);
        return work(repositoriesOn(tx, null, root));
      });
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
  const db = databaseOf(options.client);
  return repositoriesOn(db, db, db);
}
