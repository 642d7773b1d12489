import { decideAlertHit, type AlertHit } from '../../domain/index.js';
import { notFound } from '../../errors.js';
import type { MemoryAuditLog } from './audit.js';
import type { ByteBudget } from './budget.js';
import type { MemoryDecisions } from './decisions.js';
import type { Alert, Case, CaseRepository, CommentRepository } from '../../engine/repositories.js';
import { keyOf, pageOf } from './pages.js';
import type { MemoryRuleInstances } from './rule-instances.js';

/**
 * What the memory store keeps beside one transaction for alerts: the alerts that list it. A hit is
 * listed once per alert by looking here (a few entries at most, read with the transaction) rather
 * than in the alert, whose list grows with every hit.
 */
export interface AlertListing {
  /** The one alert, or the alerts (two or more), that list the transaction; `null`: none. */
  listedIn: Alert | Alert[] | null;
}

/** Whether `listing` names `alert`. */
function lists(listing: AlertListing, alert: Alert): boolean {
  const listedIn = listing.listedIn;
  return listedIn === alert || (Array.isArray(listedIn) && listedIn.includes(alert));
}

/** Adds `alert` to the alerts of `listing`. */
function addListing(listing: AlertListing, alert: Alert): void {
  const listedIn = listing.listedIn;
  if (listedIn === null) listing.listedIn = alert;
  else if (Array.isArray(listedIn)) listedIn.push(alert);
  else listing.listedIn = [listedIn, alert];
}

/** Alerts and cases in memory: the read side of the port, and where an outcome's hits are stored. */
export interface MemoryAlertsAndCases {
  readonly repository: CaseRepository;
  /**
   * Stores where a hit lands, as the domain's case policy decides; `listing` is the hit
   * transaction's (`null` for a user rule's hit, which lists no transaction). Constant time per
   * hit: nothing read grows with an alert or a case.
   */
  applyAlertHit(hit: AlertHit, now: number, listing: AlertListing | null): void;
}

/** Per user: the case it last opened or joined and, per instance, the latest alert, held directly. */
interface UserAlerts {
  openCase: Case | null;
  /** Keyed by instance id (a handful of instances hit one user). */
  readonly byInstance: Map<string, Alert>;
}

/**
 * Alerts and cases in memory. `comments`: where a workflow write's comments go (absent: a workflow
 * write with comments is refused, for stores built without one).
 */
/** What a memory store's workflow writes go through besides alerts and cases (absent in a bare store of alerts and cases). */
export interface WorkflowTargets {
  readonly comments: CommentRepository;
  readonly decisions: MemoryDecisions;
  readonly audit: MemoryAuditLog;
  readonly budget: ByteBudget;
}

/** A decision log entry's bytes against the budget: its text and the entry and hash kept for it. */
const DECISION_BYTES = 128;

export function createMemoryAlertsAndCases(targets?: WorkflowTargets): MemoryAlertsAndCases {
  const alerts = new Map<string, Alert>();
  const cases = new Map<string, Case>();
  // One lookup by user id finds both what a hit lands in: no key is built per hit, and the
  // instance ids are the same strings every time (found without comparing their text).
  const byUser = new Map<string, UserAlerts>();

  function caseOf(caseId: string, userCase: Case | null): Case | undefined {
    return userCase !== null && userCase.caseId === caseId ? userCase : cases.get(caseId);
  }

  /** Adds `userId` to the users of `c` (once: a user may come back to a case it had left). */
  function joinCase(c: Case, userId: string): void {
    if (c.userIds === undefined) c.userIds = [c.entityDetails.userId, userId];
    else if (!c.userIds.includes(userId)) c.userIds.push(userId);
  }

  function applyAlertHit(hit: AlertHit, now: number, listing: AlertListing | null): void {
    let user = byUser.get(hit.userId);
    if (user === undefined) {
      user = { openCase: null, byInstance: new Map() };
      byUser.set(hit.userId, user);
    }
    const open = user.byInstance.get(hit.instanceId) ?? null;
    const userCase = user.openCase;
    const groupCase = hit.groupWithUserId === undefined ? null : (byUser.get(hit.groupWithUserId)?.openCase ?? null);
    const change = decideAlertHit(hit, open, userCase, now, groupCase);
    if (change.kind === 'append') {
      // The policy appends only to the open alert it was given.
      const alert = open as Alert;
      // A transaction that hits again (after an event) is listed once.
      if (change.transactionId !== null && listing !== null && !lists(listing, alert)) {
        addListing(listing, alert);
        alert.entityDetails.transactionIds.push(change.transactionId);
      }
      alert.updatedAt = change.at;
      const c = caseOf(change.caseId, userCase);
      if (c) c.updatedAt = change.at;
      return;
    }
    if (change.caseIsNew) {
      cases.set(change.case.caseId, change.case);
      user.openCase = change.case;
    } else {
      const c = (change.joinsUser ? groupCase : caseOf(change.caseId, userCase)) as Case;
      c.alertIds.push(change.alert.alertId);
      c.updatedAt = change.at;
      c.priority = change.casePriority;
      if (change.joinsUser) joinCase(c, hit.userId);
      user.openCase = c;
    }
    alerts.set(change.alert.alertId, change.alert);
    user.byInstance.set(hit.instanceId, change.alert);
    if (listing !== null) addListing(listing, change.alert);
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
    async pageAlerts(query) {
      const { statuses, priority, createdFrom, createdTo, ruleInstanceId, userId } = query;
      const matching = [...alerts.values()].filter(
        (a) =>
          (statuses === undefined || statuses.includes(a.alertStatus)) &&
          (priority === undefined || a.priority === priority) &&
          (createdFrom === undefined || a.createdTimestamp >= createdFrom) &&
          (createdTo === undefined || a.createdTimestamp <= createdTo) &&
          (ruleInstanceId === undefined || a.ruleDetails.instanceId === ruleInstanceId) &&
          (userId === undefined || a.userId === userId),
      );
      return pageOf(matching, (a) => keyOf(a, a.alertId, query.sortBy), query);
    },
    async pageCases(query) {
      const { statuses, priority, createdFrom, createdTo, userId } = query;
      const matching = [...cases.values()].filter(
        (c) =>
          (statuses === undefined || statuses.includes(c.caseStatus)) &&
          (priority === undefined || c.priority === priority) &&
          (createdFrom === undefined || c.createdTimestamp >= createdFrom) &&
          (createdTo === undefined || c.createdTimestamp <= createdTo) &&
          (userId === undefined || c.entityDetails.userId === userId || (c.userIds?.includes(userId) ?? false)),
      );
      return pageOf(matching, (c) => keyOf(c, c.caseId, query.sortBy), query);
    },
    async saveWorkflow(write) {
      // Everything is checked before anything changes; the comments (which may refuse, past the
      // store's byte budget) go first, then the patches, in one synchronous step.
      const c = write.case === undefined ? undefined : cases.get(write.case.caseId);
      if (write.case !== undefined && c === undefined) throw notFound('CASE_NOT_FOUND', 'case');
      const patched = write.alerts.map((w) => alerts.get(w.alertId));
      if (patched.some((a) => a === undefined)) throw notFound('ALERT_NOT_FOUND', 'alert');
      if (targets === undefined) {
        if (write.comments.length > 0 || write.decisions.length > 0 || (write.audit?.length ?? 0) > 0 || (write.outbox?.length ?? 0) > 0)
          throw new Error('createMemoryAlertsAndCases: a workflow write with comments, decisions or audit entries needs the store around it');
      } else {
        // The audit entries' and decisions' bytes first, then the comments (each reserving its own):
        // a refusal of either leaves nothing written and nothing reserved.
        const bytes = targets.audit.sizeOf(write) + write.decisions.reduce((sum, d) => sum + d.length + DECISION_BYTES, 0);
        targets.budget.reserve(bytes);
        try {
          for (const { target, comment } of write.comments) await targets.comments.addComment(target, comment);
        } catch (error) {
          targets.budget.release(bytes);
          throw error;
        }
      }
      if (c !== undefined && write.case !== undefined) {
        Object.assign(c, structuredClone(write.case.patch));
        const closing = write.case.openAlertsPatch;
        if (closing !== undefined) {
          for (const id of c.alertIds) {
            const a = alerts.get(id);
            if (a !== undefined && a.alertStatus !== 'CLOSED') Object.assign(a, structuredClone(closing));
          }
        }
      }
      for (const [i, w] of write.alerts.entries()) Object.assign(patched[i] as Alert, structuredClone(w.patch));
      if (targets !== undefined) {
        targets.audit.appendReserved(write);
        if (write.decisions.length > 0) targets.decisions.append(write.decisions);
      }
    },
  };
  return { repository, applyAlertHit };
}

/** What a rule outcome writes besides its transaction or user: counters, alerts and cases. */
export interface RuleOutcomeTargets {
  readonly ruleInstances: MemoryRuleInstances;
  readonly alertsAndCases: MemoryAlertsAndCases;
}

/**
 * Applies the rule writes of an outcome — a transaction's or a user's — in one synchronous step:
 * the instances' counters, then each alert hit where the case policy puts it (`listingOf` gives the
 * listing of a hit transaction; a user rule's hit has none).
 */
export function applyRuleOutcome(
  targets: RuleOutcomeTargets,
  counters: readonly { instanceId: string; runs: number; hits: number }[],
  alertHits: readonly AlertHit[],
  now: number,
  listingOf: (transactionId: string) => AlertListing,
): void {
  targets.ruleInstances.addCounters(counters);
  for (const hit of alertHits) targets.alertsAndCases.applyAlertHit(hit, now, hit.transactionId === null ? null : listingOf(hit.transactionId));
}
