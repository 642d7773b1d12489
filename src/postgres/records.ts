/**
 * Users, comments, files and lists on PostgreSQL: each a table of documents beside the columns that
 * are queried.
 */
import type { Comment, CommentTarget, ListSummary, StoredList, StoredUser } from '../domain/entities.js';
import { TxmonError } from '../errors.js';
import type {
  BatchKind,
  BatchRepository,
  CommentRepository,
  StoredBatch,
  FileRecord,
  FileRepository,
  ListRepository,
  StoredUserEvent,
  UserRepository,
  UserRuleWrites,
  AuditWrites,
} from '../engine/repositories.js';
import { saveRuleEffects } from './outcome.js';
import { appendWriteLogs, logsAny, withAudit } from './audit.js';
import { concurrentUpdate, json } from './rows.js';
import type { UnitReads } from './unit.js';
import type { Database, Sql } from './client.js';

/** The part of a user record a save's rule results replace: `{ ruleResults }`, or nothing when none are given. */
function resultsOf(writes: UserRuleWrites): { ruleResults?: NonNullable<UserRuleWrites['ruleResults']> } {
  return writes.ruleResults === undefined ? {} : { ruleResults: writes.ruleResults };
}

/**
 * The users over `sql`; inside a unit, `reads` answers its first reads. `db` is the database when
 * `sql` is not inside a transaction: a user save with rule writes then opens its own, so the user,
 * the counters and the alerts commit together.
 */
export function createPostgresUsers(sql: Sql, db: Database | null, reads: UnitReads | null): UserRepository {
  /**
   * Runs `save` (the user's statement) and then the rule writes, in one database transaction; the
   * user save alone, as one statement, when there are none.
   */
  function withRuleWrites(writes: UserRuleWrites & AuditWrites, now: number, save: (tx: Sql) => Promise<StoredUser>): Promise<StoredUser> {
    const counters = writes.counters ?? [];
    const alertHits = writes.alertHits ?? [];
    if (counters.length === 0 && alertHits.length === 0 && !logsAny(writes)) return save(sql);
    const work = async (tx: Sql) => {
      const user = await save(tx);
      if (counters.length > 0 || alertHits.length > 0) await saveRuleEffects(tx, { counters, alertHits }, now);
      // Last: the audit and outbox counters' locks are held only for the COMMIT (see ./audit.ts).
      await appendWriteLogs(tx, writes);
      return user;
    };
    return db === null ? work(sql) : db.transaction(work);
  }
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
    async saveUserProfile({ userId, type, profile, now, ...writes }) {
      if (reads) reads.live = false;
      const results = resultsOf(writes);
      const created: StoredUser = { userId, type, profile, craScore: null, craRiskLevel: null, firstSeenAt: now, updatedAt: now, ...results };
      return withRuleWrites(writes, now, async (tx) => {
        const rows = await tx.query<{ record: StoredUser }>(
          `INSERT INTO txmon_users (user_id, record) VALUES ($1, $2::jsonb)
           ON CONFLICT (user_id) DO UPDATE SET record = txmon_users.record || jsonb_build_object('type', $3::text, 'profile', $4::jsonb, 'updatedAt', $5::float8) || $6::jsonb
           RETURNING record`,
          [userId, json(created), type, json(profile), now, json(results)],
        );
        return (rows[0] as { record: StoredUser }).record;
      });
    },
    async getUserEvent(eventId) {
      const rows = await sql.query<{ record: StoredUserEvent }>('SELECT record FROM txmon_user_events WHERE event_id = $1', [eventId]);
      return rows[0]?.record ?? null;
    },
    async listUserEvents(userId) {
      const rows = await sql.query<{ record: StoredUserEvent }>('SELECT record FROM txmon_user_events WHERE user_id = $1 ORDER BY arrival', [userId]);
      return rows.map((row) => row.record);
    },
    async saveUserEvent({ event, now, ...writes }) {
      if (reads) reads.live = false;
      const results = resultsOf(writes);
      const created: StoredUser = {
        userId: event.userId,
        type: event.type,
        profile: event.user,
        craScore: null,
        craRiskLevel: null,
        firstSeenAt: now,
        updatedAt: now,
        ...results,
      };
      // One statement: the event (nothing when its id or arrival is taken) and then the user; the
      // rule writes after it, in the same transaction (a conflict throws before them).
      return withRuleWrites(writes, now, async (tx) => {
        const rows = await tx.query<{ record: StoredUser }>(
          `WITH ev AS (
             INSERT INTO txmon_user_events (event_id, user_id, arrival, record) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT DO NOTHING RETURNING 1
           )
           INSERT INTO txmon_users (user_id, record) SELECT $2, $5::jsonb FROM ev
           ON CONFLICT (user_id) DO UPDATE SET record = txmon_users.record || jsonb_build_object('type', $6::text, 'profile', $7::jsonb, 'updatedAt', $8::float8) || $9::jsonb
           RETURNING record`,
          [event.eventId, event.userId, event.arrival, json(event), json(created), event.type, json(event.user), now, json(results)],
        );
        const row = rows[0];
        if (row === undefined) throw concurrentUpdate('user event');
        return row.record;
      });
    },
  };
}

/** The comments on users, cases and alerts over `sql` (`db`: see {@link createPostgresUsers}). */
export function createPostgresComments(sql: Sql, db: Database | null): CommentRepository {
  return {
    async addComment(target: CommentTarget, comment: Comment, writes?: AuditWrites) {
      await withAudit(
        sql,
        db,
        writes,
        (tx) => tx.query('INSERT INTO txmon_comments (target_kind, target_id, comment) VALUES ($1, $2, $3::jsonb)', [target.kind, target.id, json(comment)]),
        true,
      );
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

/** Upload slots and their bytes over `sql` (`db` opens a transaction for an upload outside a unit). */
export function createPostgresFiles(sql: Sql, db: Database | null): FileRepository {
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
    putFileContent(key, content, maxBytes) {
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
    async getFileContent(key) {
      const rows = await sql.query<{ content: Uint8Array | null }>('SELECT content FROM txmon_files WHERE key = $1', [key]);
      const content = rows[0]?.content ?? null;
      return content === null ? null : new Uint8Array(content);
    },
  };
}

/**
 * Blacklists and whitelists over `sql`. `db` is the database when `sql` is not inside a
 * transaction: a write then opens its own (the list, its items and the audit entries commit together).
 */
export function createPostgresLists(sql: Sql, db: Database | null): ListRepository {
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
    async putList(list, writes) {
      const { items, ...doc } = list;
      const unique = [...new Set(items)];
      await withAudit(sql, db, writes, async (tx) => {
        await tx.query('INSERT INTO txmon_lists (list_id, list) VALUES ($1, $2::jsonb) ON CONFLICT (list_id) DO UPDATE SET list = excluded.list', [
          list.listId,
          json(doc),
        ]);
        await tx.query('DELETE FROM txmon_list_items WHERE list_id = $1', [list.listId]);
        if (unique.length > 0) {
          await tx.query('INSERT INTO txmon_list_items (list_id, item, seq) SELECT $1, item, seq FROM unnest($2::text[]) WITH ORDINALITY AS x(item, seq)', [
            list.listId,
            unique,
          ]);
        }
      });
    },
    async deleteList(listId, writes) {
      const run = async (tx: Sql) => {
        await tx.query('DELETE FROM txmon_list_items WHERE list_id = $1', [listId]);
        const existed = (await tx.query('DELETE FROM txmon_lists WHERE list_id = $1 RETURNING 1', [listId])).length > 0;
        if (existed) await appendWriteLogs(tx, writes);
        return existed;
      };
      return db === null ? run(sql) : db.transaction(run);
    },
    async lookupListItems(listId, probes) {
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

interface BatchRow {
  kind: BatchKind;
  batch_id: string;
  fingerprint: string;
  response: StoredBatch['response'];
  record_ids: string[];
  created_at: number;
}

const batchOf = (r: BatchRow): StoredBatch => ({
  kind: r.kind,
  batchId: r.batch_id,
  fingerprint: r.fingerprint,
  response: r.response,
  recordIds: r.record_ids,
  createdAt: Number(r.created_at),
});

/** Processed batches over `sql`: one row per (kind, batch id); the first insert wins. */
export function createPostgresBatches(sql: Sql): BatchRepository {
  const get = async (kind: BatchKind, batchId: string) => {
    const rows = await sql.query<BatchRow>('SELECT * FROM txmon_batches WHERE kind = $1 AND batch_id = $2', [kind, batchId]);
    return rows[0] === undefined ? null : batchOf(rows[0]);
  };
  return {
    getBatch: get,
    async putBatch(batch) {
      const rows = await sql.query<BatchRow>(
        `INSERT INTO txmon_batches (kind, batch_id, fingerprint, response, record_ids, created_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6)
         ON CONFLICT (kind, batch_id) DO NOTHING RETURNING *`,
        [batch.kind, batch.batchId, batch.fingerprint, json(batch.response), json(batch.recordIds), batch.createdAt],
      );
      if (rows[0] !== undefined) return batchOf(rows[0]);
      return (await get(batch.kind, batch.batchId)) ?? batch;
    },
  };
}
