/**
 * Transactions and their events on PostgreSQL: reads of the stored transaction (its body and latest
 * result kept only where they differ from their source), events, the scans (current transactions
 * for a new series; the history as received, for a backtest) and the outcome write (outcome.ts).
 */
import type { ResultAlert, Transaction, TransactionEvent } from '../domain/index.js';
import { outcomeNamingAlerts, type StoredEvent, type StoredTransaction, type TransactionRepository } from '../engine/repositories.js';
import type { UnitReads } from './unit.js';
import type { PartsWriter, ResultParts } from './result-parts.js';
import { allCreations, closingStatementsOf, saveCreations, saveOutcome } from './outcome.js';
import { prepared, runLast, type Database, type Sql } from './client.js';
import { bodyOf } from './rows.js';

/**
 * A stored transaction's row keeps `body` and `latest_result` only when they differ from their
 * source: the current event's (`current_event_id`) body and result, or — before any event — the
 * request as a new transaction starts it (see `bodyOf`) and the create result. These read
 * them whole.
 */
const TRANSACTION_BODY = 'coalesce(t.body, e.body, t.request)';
/** Whether the row left the body out before any event: the request stands in for it (see `bodyOf`). */
const INITIAL_BODY = 't.body IS NULL AND e.event_id IS NULL';
const TRANSACTION_COLUMNS = `t.version, t.event_count, t.last_event_timestamp, ${TRANSACTION_BODY} AS body, ${INITIAL_BODY} AS initial_body, t.request, t.create_result,
  coalesce(t.latest_result, e.result, t.create_result) AS latest_result`;
const TRANSACTION_FROM = 'txmon_transactions t LEFT JOIN txmon_events e ON e.event_id = t.current_event_id';
const GET_TRANSACTION_SQL = prepared(`SELECT ${TRANSACTION_COLUMNS} FROM ${TRANSACTION_FROM} WHERE t.transaction_id = $1`);
const GET_TRANSACTIONS_SQL = prepared(`SELECT t.transaction_id, ${TRANSACTION_COLUMNS} FROM ${TRANSACTION_FROM} WHERE t.transaction_id = ANY($1::text[])`);
/**
 * The history as received, in time order: create requests and events, by (timestamp, kind,
 * transaction id, arrival). Sorted by the server (no index serves it: a backtest reads it whole
 * and rarely, and an index would cost every write).
 */
const HISTORY_SQL = `SELECT kind, doc FROM (
    SELECT 0 AS kind, (request->>'timestamp')::float8 AS ts, transaction_id AS id, 0 AS arrival, request::json AS doc FROM txmon_transactions
    UNION ALL
    SELECT 1, (event->>'timestamp')::float8, transaction_id, arrival, event::json FROM txmon_events
  ) history
  WHERE ($1::float8 IS NULL OR ts >= $1::float8) AND ($2::float8 IS NULL OR ts <= $2::float8)
  ORDER BY ts, kind, id COLLATE "C", arrival`;
/** Scan pages of the stored transactions. */
const SCAN_PAGE = 500;

/**
 * The transactions over `sql`; `db` as in `repositoriesOn`, `root` the database itself (the history
 * scan reads outside any unit).
 */
export function createPostgresTransactions(
  sql: Sql,
  db: Database | null,
  reads: UnitReads | null,
  root: Database,
  parts: ResultParts,
  unitParts: PartsWriter | null,
): TransactionRepository {
  interface TxRow {
    transaction_id?: string;
    version: number;
    event_count: number;
    last_event_timestamp: number | null;
    body: StoredTransaction['transaction'];
    initial_body: boolean;
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
  const storedOf = (r: TxRow): StoredTransaction => ({
    transaction: bodyOf(r.body, r.initial_body),
    request: r.request,
    createResult: r.create_result,
    latestResult: r.latest_result,
    eventCount: Number(r.event_count),
    lastEventTimestamp: r.last_event_timestamp === null ? null : Number(r.last_event_timestamp),
    version: Number(r.version),
  });
  const EVENT_COLUMNS = 'event_id, transaction_id, arrival, client_event_id, event, body, result';
  /** Rows with the result parts they name put back. */
  const txRows = async (rows: TxRow[]) => {
    await parts.expand(
      sql,
      rows.flatMap((r) => [r.create_result, r.latest_result]),
    );
    return rows;
  };
  const eventRows = async (rows: EventRow[]) => {
    await parts.expand(
      sql,
      rows.map((r) => r.result),
    );
    return rows;
  };
  /**
   * Runs a write: inside the unit (its parts stored with it), or as a database transaction of its
   * own, whose parts are known stored once it committed.
   */
  const writing = <T>(work: (tx: Sql, writer: PartsWriter) => Promise<T>): Promise<T> => {
    if (db === null) return work(sql, unitParts ?? parts.writer());
    return parts.committed((writer) => db.transaction((tx) => work(tx, writer)));
  };
  return {
    async getTransaction(id) {
      const prefetched = reads?.live ? reads.transaction : null;
      if (prefetched && prefetched.id === id && reads) {
        reads.transaction = null;
        reads.read = prefetched;
        return prefetched.value;
      }
      const rows = await txRows(await sql.query<TxRow>(GET_TRANSACTION_SQL, [id]));
      const value = rows[0] ? storedOf(rows[0]) : null;
      if (reads) reads.read = { id, value };
      return value;
    },
    async getTransactions(ids) {
      if (ids.length === 0) return [];
      const rows = await txRows(await sql.query<TxRow>(GET_TRANSACTIONS_SQL, [[...new Set(ids)]]));
      const byId = new Map(rows.map((r) => [r.transaction_id as string, storedOf(r)]));
      return ids.map((id) => byId.get(id) ?? null);
    },
    async listEvents(id) {
      return (await eventRows(await sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM txmon_events WHERE transaction_id = $1 ORDER BY arrival`, [id]))).map(
        toEvent,
      );
    },
    async getEvent(eventId) {
      const read = reads?.live ? reads.event : null;
      if (read && read.id === eventId && reads) {
        reads.event = null;
        return read.value;
      }
      const rows = await eventRows(await sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM txmon_events WHERE event_id = $1`, [eventId]));
      return rows[0] ? toEvent(rows[0]) : null;
    },
    async *scanTransactions() {
      let after = '0';
      for (;;) {
        const rows = await sql.query<{ seq: string; body: StoredTransaction['transaction']; initial_body: boolean }>(
          `SELECT t.seq::text AS seq, ${TRANSACTION_BODY} AS body, ${INITIAL_BODY} AS initial_body FROM ${TRANSACTION_FROM} WHERE t.seq > $1::bigint ORDER BY t.seq LIMIT $2`,
          [after, SCAN_PAGE],
        );
        for (const row of rows) yield bodyOf(row.body, row.initial_body);
        if (rows.length < SCAN_PAGE) return;
        after = (rows[rows.length - 1] as { seq: string }).seq;
      }
    },
    async *scanHistory(range) {
      interface HistoryRow {
        kind: number;
        doc: Transaction | (TransactionEvent & { eventId: string });
      }
      const pages = root.stream<HistoryRow>(HISTORY_SQL, [range?.from ?? null, range?.to ?? null], SCAN_PAGE);
      for await (const rows of pages) {
        for (const row of rows) {
          yield row.kind === 0
            ? { kind: 'transaction', operation: row.doc as Transaction }
            : { kind: 'event', operation: row.doc as TransactionEvent & { eventId: string } };
        }
      }
    },
    saveOutcome(outcome) {
      // What this unit read of the transaction: what the update leaves as it is.
      const read = reads?.read;
      const previous = read && read.id === outcome.transaction.transaction.transactionId ? read.value : null;
      if (reads) reads.live = false;
      // One database transaction: inside a unit of work already, or its own.
      return writing((tx, writer) => saveOutcome(tx, outcome, db === null ? previous : null, writer));
    },
    saveOutcomes(outcomes) {
      if (reads) reads.live = false;
      // Creations (a batch's chunk) set-based; anything else one outcome after the other.
      const save = async (tx: Sql, writer: PartsWriter): Promise<ResultAlert[][]> => {
        if (allCreations(outcomes)) return saveCreations(tx, outcomes, writer);
        // The decisions and outbox messages appended once, after every outcome (see closingStatementsOf).
        const alerts: ResultAlert[][] = [];
        for (const outcome of outcomes) alerts.push(await saveOutcome(tx, outcome, null, writer, false));
        // As written: each outcome's messages with those of the alerts its hits landed in.
        const written = outcomes.map((outcome, i) => outcomeNamingAlerts(outcome, alerts[i] as ResultAlert[]));
        for (const closing of closingStatementsOf(written)) await runLast(tx, closing);
        return alerts;
      };
      return writing(save);
    },
  };
}
