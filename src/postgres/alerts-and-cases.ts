/**
 * Alerts and cases on PostgreSQL (written by the outcome, read here); an alert's transaction ids and a
 * case's alert ids are rows of their own.
 */
import type { Alert, Case } from '../domain/entities.js';
import type { CaseRepository } from '../engine/repositories.js';
import type { Sql } from './client.js';

/** Alerts and cases over `sql` (read here; the outcome writes them). */
export function createPostgresAlertsAndCases(sql: Sql): CaseRepository {
  // An alert's entity type is in its document (a user rule's alert: USER); older alerts have none: TRANSACTION.
  const ALERT_SQL = `SELECT a.alert || jsonb_build_object('entityDetails', jsonb_build_object('type', coalesce(a.alert->'entityDetails'->>'type', 'TRANSACTION'), 'transactionIds',
      coalesce((SELECT jsonb_agg(t.transaction_id ORDER BY t.seq) FROM txmon_alert_transactions t WHERE t.alert_id = a.alert_id), '[]'::jsonb))) AS doc
    FROM txmon_alerts a`;
  // A case's users are those of its alerts, in order of their first alert; listed only when there
  // are two or more (case grouping COUNTERPARTIES).
  const CASE_SQL = `SELECT c."case" || jsonb_build_object('alertIds',
      coalesce((SELECT jsonb_agg(x.alert_id ORDER BY x.seq) FROM txmon_case_alerts x WHERE x.case_id = c.case_id), '[]'::jsonb))
      || coalesce((SELECT jsonb_build_object('userIds', jsonb_agg(m.user_id ORDER BY m.first)) FROM (
          SELECT a.user_id, min(x.seq) AS first FROM txmon_case_alerts x JOIN txmon_alerts a ON a.alert_id = x.alert_id
            WHERE x.case_id = c.case_id GROUP BY a.user_id) AS m HAVING count(*) > 1), '{}'::jsonb) AS doc
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
