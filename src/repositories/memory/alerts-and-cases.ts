import { decideAlertHit, type AlertHit } from '../../domain/index.js';
import type { Alert, Case, CaseRepository } from '../../engine/repositories.js';

/** Alerts and cases in memory: the read side of the port, and where an outcome's hits are stored. */
export interface MemoryAlertsAndCases {
  readonly repository: CaseRepository;
  /** Stores where a hit lands, as the domain's case policy decides. Constant time per hit. */
  applyAlertHit(hit: AlertHit, now: number): void;
}

/**
 * Up to this many listed transactions, whether an alert lists one already is answered by scanning
 * its list; past it, by a set built once. Either way a bounded amount of work per hit, and the many
 * alerts that list a few transactions keep no set.
 */
export const LISTED_SCAN_MAX = 16;

/** The open alert of an (instance, user), with what is needed to append to it in constant time. */
interface OpenAlert {
  readonly alert: Alert;
  /** The alert's transaction ids as a set, once it lists more than {@link LISTED_SCAN_MAX}. */
  listed: Set<string> | null;
}

export function createMemoryAlertsAndCases(): MemoryAlertsAndCases {
  const alerts = new Map<string, Alert>();
  const cases = new Map<string, Case>();
  // The latest alert of each (instance, user) and the latest case of each user, held directly:
  // a hit reads them without going through the id maps.
  const openAlertByInstanceUser = new Map<string, OpenAlert>();
  const openCaseByUser = new Map<string, Case>();

  function caseOf(caseId: string, userCase: Case | null): Case | undefined {
    return userCase !== null && userCase.caseId === caseId ? userCase : cases.get(caseId);
  }

  /** Lists `transactionId` in the open alert unless it is listed already. */
  function list(open: OpenAlert, transactionId: string): void {
    const ids = open.alert.entityDetails.transactionIds;
    if (open.listed !== null) {
      if (open.listed.has(transactionId)) return;
      open.listed.add(transactionId);
    } else {
      if (ids.includes(transactionId)) return;
      if (ids.length >= LISTED_SCAN_MAX) {
        open.listed = new Set(ids);
        open.listed.add(transactionId);
      }
    }
    ids.push(transactionId);
  }

  function applyAlertHit(hit: AlertHit, now: number): void {
    const key = `${hit.instanceId}\u0000${hit.userId}`;
    const open = openAlertByInstanceUser.get(key);
    const userCase = openCaseByUser.get(hit.userId) ?? null;
    const change = decideAlertHit(hit, open?.alert ?? null, userCase, now);
    if (change.kind === 'append') {
      // The policy appends only to the open alert it was given.
      const target = open as OpenAlert;
      list(target, change.transactionId);
      target.alert.updatedAt = change.at;
      const c = caseOf(change.caseId, userCase);
      if (c) c.updatedAt = change.at;
      return;
    }
    if (change.caseIsNew) {
      cases.set(change.case.caseId, change.case);
      openCaseByUser.set(hit.userId, change.case);
    } else {
      const c = caseOf(change.caseId, userCase) as Case;
      c.alertIds.push(change.alert.alertId);
      c.updatedAt = change.at;
      c.priority = change.casePriority;
    }
    alerts.set(change.alert.alertId, change.alert);
    const ids = change.alert.entityDetails.transactionIds;
    openAlertByInstanceUser.set(key, { alert: change.alert, listed: ids.length > LISTED_SCAN_MAX ? new Set(ids) : null });
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
