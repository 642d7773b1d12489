import { decideAlertHit, type AlertHit } from '../../domain/index.js';
import type { Alert, Case, CaseRepository } from '../../engine/repositories.js';

/** Alerts and cases in memory: the read side of the port, and where an outcome's hits are stored. */
export interface MemoryAlertsAndCases {
  readonly repository: CaseRepository;
  /** Stores where a hit lands, as the domain's case policy decides. Constant time per hit. */
  applyAlertHit(hit: AlertHit, now: number): void;
}

export function createMemoryAlertsAndCases(): MemoryAlertsAndCases {
  const alerts = new Map<string, Alert>();
  const openAlertByInstanceUser = new Map<string, string>();
  /** Per alert, the transaction ids it lists: an appended hit is checked in constant time. */
  const transactionsOfAlert = new Map<string, Set<string>>();
  const cases = new Map<string, Case>();
  const openCaseByUser = new Map<string, string>();

  function applyAlertHit(hit: AlertHit, now: number): void {
    const key = `${hit.instanceId}\u0000${hit.userId}`;
    const openAlert = alerts.get(openAlertByInstanceUser.get(key) ?? '') ?? null;
    const userCase = cases.get(openCaseByUser.get(hit.userId) ?? '') ?? null;
    const change = decideAlertHit(hit, openAlert, userCase, now);
    if (change.kind === 'append') {
      const alert = alerts.get(change.alertId) as Alert;
      const listed = transactionsOfAlert.get(change.alertId) as Set<string>;
      if (!listed.has(change.transactionId)) {
        listed.add(change.transactionId);
        alert.entityDetails.transactionIds.push(change.transactionId);
      }
      alert.updatedAt = change.at;
      const c = cases.get(change.caseId);
      if (c) c.updatedAt = change.at;
      return;
    }
    if (change.caseIsNew) {
      cases.set(change.case.caseId, change.case);
      openCaseByUser.set(hit.userId, change.case.caseId);
    } else {
      const c = cases.get(change.caseId) as Case;
      c.alertIds.push(change.alert.alertId);
      c.updatedAt = change.at;
      c.priority = change.casePriority;
    }
    alerts.set(change.alert.alertId, change.alert);
    transactionsOfAlert.set(change.alert.alertId, new Set(change.alert.entityDetails.transactionIds));
    openAlertByInstanceUser.set(key, change.alert.alertId);
  }

  const repository: CaseRepository = {
    async getAlert(id) {
      return alerts.get(id) ?? null;
    },
    async listAlerts() {
      return [...alerts.values()];
    },
    async getCase(id) {
      return cases.get(id) ?? null;
    },
    async listCases() {
      return [...cases.values()];
    },
  };
  return { repository, applyAlertHit };
}
