/**
 * The outbox on PostgreSQL (`txmon_outbox`, `txmon_outbox_consumers`, `txmon_outbox_dead_letters`;
 * migration 11). A write that carries messages appends them as its LAST statement (after the
 * decision log's append, when it has one), numbered from the counter row `outbox_seq` of
 * `txmon_meta`: the row's lock is held until COMMIT, so positions follow commit order and a reader
 * never sees a message numbered below one it has seen. Locks are taken audit counter, decision
 * log head, outbox counter, in that order, by every write: none waits for another in a cycle.
 *
 * Consumers take turns by lease (`claimConsumer`: one conditional upsert), so the processes of one
 * store deliver each message once in the normal case; a process that dies holding a lease leaves
 * it to run out, and its last message is delivered again (at least once).
 */
import type { OutboxMessage, OutboxMessageType, StoredOutboxMessage } from '../domain/outbox.js';
import type { OutboxConsumer, OutboxDeadLetter, OutboxRepository } from '../engine/repositories.js';
import { prepared, runLast, type Sql, type Statement } from './client.js';
import { json } from './rows.js';

const APPEND_SQL = prepared(`WITH n AS (UPDATE txmon_meta SET value = value + $2 WHERE name = 'outbox_seq' RETURNING value)
  INSERT INTO txmon_outbox (seq, type, entity_id, ts, data)
  SELECT n.value - $2 + e.ord, e.doc ->> 'type', e.doc ->> 'entityId', (e.doc ->> 'timestamp')::float8, e.doc -> 'data'
    FROM n, jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(doc, ord)`);

/** The append of `messages`, in order. */
export function appendOutboxOf(messages: readonly OutboxMessage[]): Statement {
  return { text: APPEND_SQL, params: [json(messages), messages.length] };
}

/**
 * Appends `messages` over `sql`, the transaction of the change they report, as its last statement:
 * in a unit, with COMMIT (after the decision log's append, deferred the same way).
 */
export async function appendOutbox(sql: Sql, messages: readonly OutboxMessage[] | undefined): Promise<void> {
  if (messages === undefined || messages.length === 0) return;
  await runLast(sql, appendOutboxOf(messages));
}

interface ConsumerRow {
  name: string;
  position: string | number;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  owner: string | null;
  lease_until: number;
  dead_letters: number;
}

const CONSUMER_COLUMNS = 'name, position, attempts, next_attempt_at, last_error, owner, lease_until, dead_letters';

function consumerOf(r: ConsumerRow): OutboxConsumer {
  return {
    name: r.name,
    position: Number(r.position),
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at === null ? null : Number(r.next_attempt_at),
    lastError: r.last_error,
    owner: r.owner,
    leaseUntil: Number(r.lease_until),
    deadLetters: Number(r.dead_letters),
  };
}

// Ordered by the column, not the text alias of the same name (text order would put 10 before 2).
const READ_SQL = prepared('SELECT o.seq::text AS seq, o.type, o.entity_id, o.ts, o.data FROM txmon_outbox o WHERE o.seq > $1 ORDER BY o.seq LIMIT $2');
const CLAIM_SQL = prepared(`INSERT INTO txmon_outbox_consumers AS c (name, position, owner, lease_until) VALUES ($1, $5::bigint, $2, $3::float8 + $4::float8)
  ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
    WHERE c.owner IS NULL OR c.owner = excluded.owner OR c.lease_until < $3::float8
  RETURNING ${CONSUMER_COLUMNS}`);

/** The outbox's reads and its consumers over `sql`. */
export function createPostgresOutbox(sql: Sql): OutboxRepository {
  return {
    async readOutbox(afterSeq, limit) {
      const rows = await sql.query<{ seq: string; type: OutboxMessageType; entity_id: string; ts: number; data: StoredOutboxMessage['data'] }>(READ_SQL, [
        afterSeq,
        limit,
      ]);
      return rows.map((r) => ({ seq: Number(r.seq), type: r.type, entityId: r.entity_id, timestamp: Number(r.ts), data: r.data }));
    },
    async outboxHead() {
      const rows = await sql.query<{ value: string | number }>(`SELECT value FROM txmon_meta WHERE name = 'outbox_seq'`);
      return Number(rows[0]?.value ?? 0);
    },
    async listConsumers() {
      return (await sql.query<ConsumerRow>(`SELECT ${CONSUMER_COLUMNS} FROM txmon_outbox_consumers ORDER BY name COLLATE "C"`)).map(consumerOf);
    },
    async getConsumer(name) {
      const rows = await sql.query<ConsumerRow>(`SELECT ${CONSUMER_COLUMNS} FROM txmon_outbox_consumers WHERE name = $1`, [name]);
      return rows[0] === undefined ? null : consumerOf(rows[0]);
    },
    async claimConsumer(name, owner, now, leaseMs, startAt) {
      const rows = await sql.query<ConsumerRow>(CLAIM_SQL, [name, owner, now, leaseMs, startAt]);
      return rows[0] === undefined ? null : consumerOf(rows[0]);
    },
    async advanceConsumer(name, owner, advance) {
      const dead = advance.deadLetter;
      const rows = await sql.query(
        `WITH holder AS (SELECT name FROM txmon_outbox_consumers WHERE name = $1 AND owner = $2 FOR UPDATE),
         dead AS (
           INSERT INTO txmon_outbox_dead_letters (consumer, seq, attempts, last_error, dead_at)
             SELECT $1, $9::bigint, $10::integer, $11::text, $12::float8 FROM holder WHERE $9::bigint IS NOT NULL
             ON CONFLICT (consumer, seq) DO NOTHING RETURNING 1),
         moved AS (
           UPDATE txmon_outbox_consumers SET
             position = CASE WHEN $3::bigint IS NULL THEN position ELSE greatest(position, $3::bigint) END,
             attempts = coalesce($4::integer, attempts),
             next_attempt_at = CASE WHEN $5::boolean THEN $6::float8 ELSE next_attempt_at END,
             last_error = CASE WHEN $7::boolean THEN $8::text ELSE last_error END,
             dead_letters = dead_letters + (SELECT count(*) FROM dead)
           WHERE name IN (SELECT name FROM holder) RETURNING name)
         SELECT name FROM moved`,
        [
          name,
          owner,
          advance.position ?? null,
          advance.attempts ?? null,
          advance.nextAttemptAt !== undefined,
          advance.nextAttemptAt ?? null,
          advance.lastError !== undefined,
          advance.lastError ?? null,
          dead?.seq ?? null,
          dead?.attempts ?? null,
          dead?.lastError ?? null,
          dead?.deadAt ?? null,
        ],
      );
      return rows.length > 0;
    },
    async releaseConsumer(name, owner) {
      await sql.query('UPDATE txmon_outbox_consumers SET lease_until = 0 WHERE name = $1 AND owner = $2', [name, owner]);
    },
    async listDeadLetters(name, afterSeq, limit) {
      const rows = await sql.query<{ consumer: string; seq: string; attempts: number; last_error: string; dead_at: number }>(
        'SELECT d.consumer, d.seq::text AS seq, d.attempts, d.last_error, d.dead_at FROM txmon_outbox_dead_letters d WHERE d.consumer = $1 AND d.seq > $2 ORDER BY d.seq LIMIT $3',
        [name, afterSeq, limit],
      );
      return rows.map(
        (r): OutboxDeadLetter => ({
          consumer: r.consumer,
          seq: Number(r.seq),
          attempts: Number(r.attempts),
          lastError: r.last_error,
          deadAt: Number(r.dead_at),
        }),
      );
    },
  };
}
