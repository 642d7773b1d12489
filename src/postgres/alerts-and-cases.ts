/**
 * Alerts and cases on PostgreSQL (written by the outcome and by workflow writes, read here); an
 * alert's transaction ids and a case's alert ids are rows of their own.
 */
import type { Alert, Case } from '../domain/entities.js';
import { MAX_PAGE_COUNT } from '../domain/workflow.js';
import { notFound } from '../errors.js';
import type { AlertPageQuery, CasePageQuery, CaseRepository, PageKey, StorePage, WorkflowSortKey } from '../engine/repositories.js';
import { runLast, type Database, type Sql } from './client.js';
import { insertAuditEntries } from './audit.js';
import { appendDecisionTexts } from './outcome.js';
import { appendOutbox } from './outbox.js';

/** The SQL of a sort key over the document column `doc` and id column `id` (ids and priorities compared bytewise, as the memory store compares them). */
function sortExpression(sortBy: WorkflowSortKey, doc: string, id: string): string {
  switch (sortBy) {
    case 'createdTimestamp':
      return `(${doc}->>'createdTimestamp')::float8`;
    case 'updatedAt':
      return `(${doc}->>'updatedAt')::float8`;
    case 'priority':
      return `(${doc}->>'priority') COLLATE "C"`;
    case 'id':
      return `${id} COLLATE "C"`;
  }
}

/** The SQL of a page query: `where` uses the first `filterParams` parameters, `keyset` those after. */
interface PageClauses {
  readonly where: string;
  readonly keyset: string;
  readonly order: string;
  readonly filterParams: number;
}

/** The WHERE conditions and ORDER BY of a page query; `params` grows with the conditions' values. */
function pageClauses(query: CasePageQuery, doc: string, id: string, statusField: string, params: unknown[], extra: string[]): PageClauses {
  const conditions = [...extra];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.statuses !== undefined) conditions.push(`${doc}->>'${statusField}' = ANY(${param(query.statuses)}::text[])`);
  if (query.priority !== undefined) conditions.push(`${doc}->>'priority' = ${param(query.priority)}`);
  if (query.createdFrom !== undefined) conditions.push(`(${doc}->>'createdTimestamp')::float8 >= ${param(query.createdFrom)}::float8`);
  if (query.createdTo !== undefined) conditions.push(`(${doc}->>'createdTimestamp')::float8 <= ${param(query.createdTo)}::float8`);
  const filterParams = params.length;
  const key = sortExpression(query.sortBy, doc, id);
  const dir = query.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const cmp = query.sortOrder === 'asc' ? '>' : '<';
  const after: PageKey | undefined = query.after;
  let keyset = '';
  if (after !== undefined) {
    if (query.sortBy === 'id') keyset = `${id} COLLATE "C" ${cmp} ${param(after.id)}::text COLLATE "C"`;
    else if (query.sortBy === 'priority')
      keyset = `(${key}, ${id} COLLATE "C") ${cmp} (${param(String(after.value))}::text COLLATE "C", ${param(after.id)}::text COLLATE "C")`;
    else keyset = `(${key}, ${id} COLLATE "C") ${cmp} (${param(Number(after.value))}::float8, ${param(after.id)}::text COLLATE "C")`;
  }
  const order = query.sortBy === 'id' ? `${id} COLLATE "C" ${dir}` : `${key} ${dir}, ${id} COLLATE "C" ${dir}`;
  return { where: conditions.length === 0 ? 'TRUE' : conditions.join(' AND '), keyset, order, filterParams };
}

/**
 * Alerts and cases over `sql`; `db` opens the transaction of a workflow write outside a unit of
 * work (`null` inside one, whose transaction it joins).
 */
export function createPostgresAlertsAndCases(sql: Sql, db: Database | null = null): CaseRepository {
  // An alert's entity type is in its document (a user rule's alert: USER); older alerts have none: TRANSACTION.
  const ALERT_DOC = `a.alert || jsonb_build_object('entityDetails', jsonb_build_object('type', coalesce(a.alert->'entityDetails'->>'type', 'TRANSACTION'), 'transactionIds',
      coalesce((SELECT jsonb_agg(t.transaction_id ORDER BY t.seq) FROM txmon_alert_transactions t WHERE t.alert_id = a.alert_id), '[]'::jsonb)))`;
  const ALERT_SQL = `SELECT ${ALERT_DOC} AS doc FROM txmon_alerts a`;
  // A case's users are those of its alerts, in order of their first alert; listed only when there
  // are two or more (case grouping COUNTERPARTIES).
  const CASE_DOC = `c."case" || jsonb_build_object('alertIds',
      coalesce((SELECT jsonb_agg(x.alert_id ORDER BY x.seq) FROM txmon_case_alerts x WHERE x.case_id = c.case_id), '[]'::jsonb))
      || coalesce((SELECT jsonb_build_object('userIds', jsonb_agg(m.user_id ORDER BY m.first)) FROM (
          SELECT a.user_id, min(x.seq) AS first FROM txmon_case_alerts x JOIN txmon_alerts a ON a.alert_id = x.alert_id
            WHERE x.case_id = c.case_id GROUP BY a.user_id) AS m HAVING count(*) > 1), '{}'::jsonb)`;
  const CASE_SQL = `SELECT ${CASE_DOC} AS doc FROM txmon_cases c`;

  /** One page: the matching rows after the key (one more than the limit, to know whether more follow) and their count. */
  async function page<T>(from: string, docSql: string, clauses: PageClauses, params: unknown[], limit: number): Promise<StorePage<T>> {
    const countParams = params.slice(0, clauses.filterParams);
    const pageWhere = clauses.keyset === '' ? clauses.where : `${clauses.where} AND ${clauses.keyset}`;
    params.push(limit + 1);
    const rows = await sql.query<{ doc: T }>(
      `SELECT ${docSql} AS doc FROM ${from} WHERE ${pageWhere} ORDER BY ${clauses.order} LIMIT $${params.length}`,
      params,
    );
    // Counted up to MAX_PAGE_COUNT: a page's work stays bounded however many items match.
    const counted = await sql.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${clauses.where} LIMIT ${MAX_PAGE_COUNT}) AS matching`,
      countParams,
    );
    return { items: rows.slice(0, limit).map((r) => r.doc), hasNext: rows.length > limit, count: Number(counted[0]?.n ?? 0) };
  }

  async function inTransaction(work: (tx: Sql) => Promise<void>): Promise<void> {
    if (db === null) await work(sql);
    else await db.transaction(work);
  }

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
    async pageAlerts(query: AlertPageQuery) {
      const params: unknown[] = [];
      const extra: string[] = [];
      if (query.ruleInstanceId !== undefined) {
        params.push(query.ruleInstanceId);
        extra.push(`a.instance_id = $${params.length}`);
      }
      if (query.userId !== undefined) {
        params.push(query.userId);
        extra.push(`a.user_id = $${params.length}`);
      }
      const clauses = pageClauses(query, 'a.alert', 'a.alert_id', 'alertStatus', params, extra);
      return page<Alert>('txmon_alerts a', ALERT_DOC, clauses, params, query.limit);
    },
    async pageCases(query: CasePageQuery) {
      const params: unknown[] = [];
      const extra: string[] = [];
      if (query.userId !== undefined) {
        params.push(query.userId);
        extra.push(
          `EXISTS (SELECT 1 FROM txmon_case_alerts x JOIN txmon_alerts u ON u.alert_id = x.alert_id WHERE x.case_id = c.case_id AND u.user_id = $${params.length})`,
        );
      }
      const clauses = pageClauses(query, 'c."case"', 'c.case_id', 'caseStatus', params, extra);
      return page<Case>('txmon_cases c', CASE_DOC, clauses, params, query.limit);
    },
    async saveWorkflow(write) {
      await inTransaction(async (tx) => {
        // The case's lock, as the outcome that adds an alert to it takes it (after its users'):
        // an alert joins the case wholly before this write (and is closed with it) or after.
        const caseId = write.case?.caseId;
        if (caseId !== undefined) await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('txmon:case:' || $1::text, 0))`, [caseId]);
        if (write.case !== undefined) {
          const updated = await tx.query(`UPDATE txmon_cases SET "case" = "case" || $2::jsonb WHERE case_id = $1 RETURNING case_id`, [
            write.case.caseId,
            JSON.stringify(write.case.patch),
          ]);
          if (updated.length === 0) throw notFound('CASE_NOT_FOUND', 'case');
          if (write.case.openAlertsPatch !== undefined) {
            await tx.query(
              `UPDATE txmon_alerts a SET alert = a.alert || $2::jsonb FROM txmon_case_alerts x
                WHERE x.case_id = $1 AND a.alert_id = x.alert_id AND a.alert->>'alertStatus' <> 'CLOSED'`,
              [write.case.caseId, JSON.stringify(write.case.openAlertsPatch)],
            );
          }
        }
        if (write.alerts.length > 0) {
          const updated = await tx.query(
            `UPDATE txmon_alerts a SET alert = a.alert || p.patch FROM jsonb_each($1::jsonb) AS p(alert_id, patch)
              WHERE a.alert_id = p.alert_id RETURNING a.alert_id`,
            [JSON.stringify(Object.fromEntries(write.alerts.map((w) => [w.alertId, w.patch])))],
          );
          if (updated.length !== new Set(write.alerts.map((w) => w.alertId)).size) throw notFound('ALERT_NOT_FOUND', 'alert');
        }
        for (const { target, comment } of write.comments) {
          await tx.query('INSERT INTO txmon_comments (target_kind, target_id, comment) VALUES ($1, $2, $3::jsonb)', [
            target.kind,
            target.id,
            JSON.stringify(comment),
          ]);
        }
        await insertAuditEntries(tx, write.audit);
        // Last, as an outcome's (see closingStatementsOf): the log's head and the outbox counter are
        // held for the commit only.
        if (write.decisions.length > 0) {
          await runLast(tx, appendDecisionTexts(write.decisions));
        }
        await appendOutbox(tx, write.outbox);
      });
    },
  };
}
