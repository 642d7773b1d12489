/**
 * Alerts and cases: the reads (one item with its comments, pages with cursors) and the workflow
 * (status moves, priority and assignments) over the domain's rules in `domain/workflow.ts`. Every
 * write runs holding the keys of the users concerned (`u:<userId>`, as their transactions and
 * events hold them), so a hit on one of them lands wholly before a change or wholly after it.
 */
import {
  AlertListQuerySchema,
  CaseListQuerySchema,
  StatusChangeRequestSchema,
  WorkflowUpdateRequestSchema,
  openAlertsPatchOnCaseChange,
  decideStatusChange,
  slaDueTimestampOf,
  statusPatchOf,
  type AlertWorkflowPatch,
  type Assignment,
  type CaseWorkflowPatch,
  type StatusChange,
} from '../../domain/index.js';
import { MAX_ALERT_VIEW_HITS, type AlertHitEvidence } from '../../domain/schemas/responses.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import type { Alert, Case, Comment, CommentTarget } from '../../domain/entities.js';
import { statusDecisionOf } from '../../domain/decision-log.js';
import { type OutboxMessage, statusChangeMessageOf } from '../../domain/outbox.js';
import { actorOf as auditActorOf, auditEntryOf } from './audit.js';
import { cloneJson } from '../../domain/json.js';
import { TxmonError, invalidField, isTxmonError, notFound } from '../../errors.js';
import { copySafeJson, createLazyValidator } from '../../validation/index.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import { RULE_INSTANCES_KEY, inStoreUnit } from '../concurrency/store-units.js';
import type { EngineSettings } from '../options.js';
import type { CasePageQuery, PageKey, Repositories, StorePage, StoredTransaction, WorkflowSortKey, WorkflowWrite } from '../repositories.js';
import type { AlertListInput, CaseListInput, Engine, StatusChangeInput, WorkflowOptions, WorkflowPage, WorkflowUpdateInput } from '../types.js';
import { assertId } from './assert-id.js';
import type { CommentFiles } from './comments-and-files.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';

const validateStatusChange = createLazyValidator(StatusChangeRequestSchema, { what: 'status change', safeJson: false });
const validateUpdate = createLazyValidator(WorkflowUpdateRequestSchema, { what: 'update', safeJson: false });
const validateAlertQuery = createLazyValidator(AlertListQuerySchema, { what: 'alert query', safeJson: false });
const validateCaseQuery = createLazyValidator(CaseListQuerySchema, { what: 'case query', safeJson: false });

/** How often a write whose case gained a user while it waited is tried again with that user's key too. */
const MAX_KEY_RETRIES = 5;
/** How often a write that lost a race on a store shared by several processes is tried again. */
const MAX_CONFLICT_RETRIES = 5;
const DEFAULT_PAGE_SIZE = 20;

type CaseMethods = Pick<
  Engine,
  'listAlerts' | 'getAlert' | 'listCases' | 'getCase' | 'changeAlertStatus' | 'changeCaseStatus' | 'updateAlert' | 'updateCase' | 'listComments'
>;

/** What the alert and case service runs on. */
export interface CaseServiceContext {
  readonly settings: EngineSettings;
  /** The engine's lock of transactions and users. */
  readonly withLocks: KeyedLock;
  readonly commentFiles: CommentFiles;
}

/** The users whose hits can change case `c`: its first user and those that joined it. */
function usersOf(c: Case): string[] {
  return c.userIds ?? [c.entityDetails.userId];
}

/** Thrown inside a unit whose case gained a user since its keys were chosen: the unit is run again with them. */
class KeysChanged extends Error {
  constructor(readonly userIds: readonly string[]) {
    super('the case gained a user');
  }
}

/** The actor of `options`, checked. */
/** The actor a status change keeps (`lastStatusChange.actor`): the one the host named, if any (checked as the audit trail checks it). */
function namedActorOf(options: WorkflowOptions | undefined): string | undefined {
  const actor = auditActorOf(options);
  return options?.actor === undefined ? undefined : actor;
}

/** The filters alert and case pages share, as the page query names them. */
function sharedFilters(q: {
  readonly filterPriority?: Alert['priority'] | undefined;
  readonly filterAfterCreatedTimestamp?: number | undefined;
  readonly filterBeforeCreatedTimestamp?: number | undefined;
  readonly filterUserId?: string | undefined;
}): { priority?: Alert['priority']; createdFrom?: number; createdTo?: number; userId?: string } {
  return {
    ...(q.filterPriority === undefined ? {} : { priority: q.filterPriority }),
    ...(q.filterAfterCreatedTimestamp === undefined ? {} : { createdFrom: q.filterAfterCreatedTimestamp }),
    ...(q.filterBeforeCreatedTimestamp === undefined ? {} : { createdTo: q.filterBeforeCreatedTimestamp }),
    ...(q.filterUserId === undefined ? {} : { userId: q.filterUserId }),
  };
}

/** The evidence on `alert`'s side of the hit of its instance in `stored`'s results (none when not stored or not hit). */
function evidenceOf(stored: StoredTransaction | null, alert: Alert): readonly RuleEvidence[] {
  if (stored === null) return [];
  for (const result of [stored.latestResult, stored.createResult]) {
    const evidence = result.hitRules.find((h) => h.ruleInstanceId === alert.ruleDetails.instanceId)?.ruleHitMeta?.evidence;
    if (evidence !== undefined) return evidence.filter((e) => e.direction === alert.direction);
  }
  return [];
}

/** The engine's order (`asc`/`desc`) of a query's `sortOrder` (Flagright's `ascend`/`descend` too). */
function orderOf(sortOrder: string | undefined): 'asc' | 'desc' {
  return sortOrder === 'asc' || sortOrder === 'ascend' ? 'asc' : 'desc';
}

/** The alert and case methods of one engine. */
export function createCaseService(context: CaseServiceContext): CaseMethods {
  const { settings, withLocks, commentFiles } = context;
  const { repositories: store, clock, ids, slaHours } = settings;

  const withSla = <T extends Alert | Case>(item: T): T => ({ ...cloneJson(item), slaDueTimestamp: slaDueTimestampOf(item, slaHours) });

  async function commentsOf(target: CommentTarget): Promise<Awaited<ReturnType<CommentFiles['commentView']>>[]> {
    const views = [];
    for (const comment of await store.comments.listComments(target)) views.push(await commentFiles.commentView(comment));
    return views;
  }

  /**
   * Runs `work` holding the keys of `userIds` (and of any user its case gains meanwhile: `work`
   * throws {@link KeysChanged}), in this process and, on a store shared by several, as one unit.
   */
  async function lockedWrite<T>(
    userIds: readonly string[],
    options: WorkflowOptions | undefined,
    work: (repos: Repositories, held: ReadonlySet<string>) => Promise<T>,
  ): Promise<T> {
    let users = [...new Set(userIds)];
    for (let attempt = 0; ; attempt++) {
      const keys = users.map((u) => `u:${u}`).sort();
      const held = new Set(users);
      try {
        return await withLocks(keys, async () => {
          if (options?.signal?.aborted === true) throw new TxmonError('CLIENT_GONE', 'The caller gave up before this call ran: nothing was written');
          for (let conflict = 0; ; conflict++) {
            try {
              return await inStoreUnit(store, keys, (repos) => work(repos, held), [RULE_INSTANCES_KEY]);
            } catch (error) {
              if (isTxmonError(error) && error.code === 'CONCURRENT_UPDATE' && conflict < MAX_CONFLICT_RETRIES) continue;
              throw error;
            }
          }
        });
      } catch (error) {
        if (error instanceof KeysChanged && attempt < MAX_KEY_RETRIES) {
          users = [...new Set([...users, ...error.userIds])];
          continue;
        }
        if (error instanceof KeysChanged) throw new TxmonError('CONCURRENT_UPDATE', 'The case kept gaining users while this change waited; try again');
        throw error;
      }
    }
  }

  /** The case `caseId` read inside a unit holding `held`: its users must all be held. */
  async function heldCase(repos: Repositories, caseId: string, held: ReadonlySet<string>): Promise<Case> {
    const c = await repos.cases.getCase(caseId);
    if (!c) throw notFound('CASE_NOT_FOUND', 'case');
    const users = usersOf(c);
    if (users.some((u) => !held.has(u))) throw new KeysChanged(users);
    return c;
  }

  /** The comment a status change adds, when it has a comment or files. */
  async function statusComment(repos: Repositories, request: StatusChangeInput, change: StatusChange, from: string): Promise<Comment | null> {
    if (request.comment === undefined && (request.files ?? []).length === 0) return null;
    const files = await commentFiles.attachedFiles(request.files ?? [], repos.files);
    const body = request.comment ?? `Status changed: ${from} → ${change.status}`;
    return { commentId: ids.next('comment'), body, files, createdTimestamp: change.timestamp, updatedTimestamp: change.timestamp };
  }

  /** The assignments of a `PATCH`, each with its time (the request's, or now). */
  function assignmentsOf(request: WorkflowUpdateInput, now: number): Assignment[] | undefined {
    return request.assignments?.map((a) => {
      const out: Assignment = { assigneeEmail: a.assigneeEmail, timestamp: a.timestamp ?? now };
      if (a.assignedByEmail !== undefined) out.assignedByEmail = a.assignedByEmail;
      return out;
    });
  }

  /** A page of `read`, in Flagright's shape, from the query's cursor. */
  async function pageOf<T extends Alert | Case>(
    input: { start?: string; pageSize?: number; sortOrder?: string },
    sortBy: WorkflowSortKey,
    read: (q: Pick<CasePageQuery, 'sortOrder' | 'after' | 'limit'>) => Promise<StorePage<T>>,
    idOf: (item: T) => string,
  ): Promise<WorkflowPage<T>> {
    const sortOrder = orderOf(input.sortOrder);
    const limit = input.pageSize ?? DEFAULT_PAGE_SIZE;
    const cursor = input.start === undefined ? null : decodeCursor(input.start, sortBy, sortOrder);
    const keyOf = (item: T): PageKey => ({
      value:
        sortBy === 'createdTimestamp' ? item.createdTimestamp : sortBy === 'updatedAt' ? item.updatedAt : sortBy === 'priority' ? item.priority : idOf(item),
      id: idOf(item),
    });
    const reverse = sortOrder === 'asc' ? 'desc' : 'asc';
    let items: T[];
    let hasNext: boolean;
    let hasPrev: boolean;
    let count: number;
    if (cursor === null || cursor.direction === 'n') {
      const page = await read({ sortOrder, limit, ...(cursor === null ? {} : { after: cursor.key }) });
      ({ items, hasNext, count } = page);
      hasPrev = cursor !== null;
    } else {
      // Backwards: the items before the key (or the very last ones), read in the reverse order.
      const page = await read({ sortOrder: reverse, limit, ...(cursor.direction === 'p' ? { after: cursor.key } : {}) });
      items = page.items.reverse();
      count = page.count;
      hasPrev = page.hasNext;
      hasNext = cursor.direction === 'p';
    }
    const first = items[0];
    const lastItem = items.at(-1);
    const at = (direction: 'n' | 'p', key: PageKey) => encodeCursor({ direction, sortBy, sortOrder, key });
    const startKey = cursor !== null && cursor.direction !== 'l' ? cursor.key : undefined;
    return {
      items: items.map(withSla),
      hasNext,
      hasPrev,
      next: hasNext ? (lastItem !== undefined ? at('n', keyOf(lastItem)) : startKey !== undefined ? at('n', startKey) : '') : '',
      prev: hasPrev ? (first !== undefined ? at('p', keyOf(first)) : startKey !== undefined ? at('p', startKey) : '') : '',
      last: count > 0 ? encodeCursor({ direction: 'l', sortBy, sortOrder }) : '',
      count,
      pageSize: limit,
    };
  }

  async function listAlerts(input?: AlertListInput): Promise<Alert[] | WorkflowPage<Alert>> {
    if (input === undefined) return (await store.cases.listAlerts()).map(withSla);
    const q = validateAlertQuery(copySafeJson(input));
    const sortBy: WorkflowSortKey = q.sortBy === undefined ? 'createdTimestamp' : q.sortBy === 'alertId' ? 'id' : q.sortBy;
    return pageOf(
      q,
      sortBy,
      (p) =>
        store.cases.pageAlerts({
          ...p,
          sortBy,
          ...(q.filterAlertStatus === undefined ? {} : { statuses: q.filterAlertStatus }),
          ...(q.filterRuleInstanceId === undefined ? {} : { ruleInstanceId: q.filterRuleInstanceId }),
          ...sharedFilters(q),
        }),
      (a) => a.alertId,
    );
  }

  async function listCases(input?: CaseListInput): Promise<Case[] | WorkflowPage<Case>> {
    if (input === undefined) return (await store.cases.listCases()).map(withSla);
    const q = validateCaseQuery(copySafeJson(input));
    const sortBy: WorkflowSortKey = q.sortBy === undefined ? 'createdTimestamp' : q.sortBy === 'caseId' ? 'id' : q.sortBy;
    return pageOf(
      q,
      sortBy,
      (p) =>
        store.cases.pageCases({
          ...p,
          sortBy,
          ...(q.filterCaseStatus === undefined ? {} : { statuses: q.filterCaseStatus }),
          ...sharedFilters(q),
        }),
      (c) => c.caseId,
    );
  }

  /**
   * The evidence of an alert's hits: its newest {@link MAX_ALERT_VIEW_HITS} transactions, newest
   * first, each with the evidence on the alert's side of its instance's hit (from the transaction's
   * latest result, else its create result: an event may have made it hit again or not); one read.
   */
  async function hitsOf(alert: Alert): Promise<{ hits: AlertHitEvidence[]; hitCount: number }> {
    const ids = alert.entityDetails.transactionIds;
    const newest = ids.slice(-MAX_ALERT_VIEW_HITS).reverse();
    const stored = newest.length === 0 ? [] : await store.transactions.getTransactions(newest);
    const hits = newest.map((transactionId, i) => ({ transactionId, evidence: cloneJson([...evidenceOf(stored[i] ?? null, alert)]) }));
    return { hits, hitCount: ids.length };
  }

  /** A workflow write on alert `alertId` (`patchOf` decides its patch from the alert and its case), returning the alert after it. */
  async function writeAlert(
    alertId: string,
    options: WorkflowOptions | undefined,
    decide: (
      repos: Repositories,
      alert: Alert,
      c: Case | null,
      now: number,
    ) => Promise<{ patch: AlertWorkflowPatch; comment: Comment | null; decision?: string; message?: OutboxMessage }>,
  ): Promise<Alert> {
    assertId(alertId, 'alertId');
    const found = await store.cases.getAlert(alertId);
    if (!found) throw notFound('ALERT_NOT_FOUND', 'alert');
    return lockedWrite([found.userId], options, async (repos) => {
      const alert = await repos.cases.getAlert(alertId);
      if (!alert) throw notFound('ALERT_NOT_FOUND', 'alert');
      const c = await repos.cases.getCase(alert.caseId);
      const now = clock.now();
      const { patch, comment, decision, message } = await decide(repos, alert, c, now);
      const audit = auditEntryOf(settings, auditActorOf(options), {
        entityType: 'ALERT',
        entityId: alertId,
        action: decision === undefined ? 'UPDATE' : 'STATUS_CHANGE',
        before: { ...alert },
        after: { ...alert, ...patch },
      });
      const write: WorkflowWrite = {
        ...(c === null ? {} : { case: { caseId: c.caseId, patch: { updatedAt: now } } }),
        alerts: [{ alertId, patch }],
        comments: comment === null ? [] : [{ target: { kind: 'alert', id: alertId }, comment }],
        decisions: decision === undefined ? [] : [decision],
        audit: [audit],
        outbox: message === undefined ? [] : [message],
      };
      await repos.cases.saveWorkflow(write);
      return withSla((await repos.cases.getAlert(alertId)) as Alert);
    });
  }

  /** A workflow write on case `caseId`, returning the case after it. */
  async function writeCase(
    caseId: string,
    options: WorkflowOptions | undefined,
    decide: (
      repos: Repositories,
      c: Case,
      now: number,
    ) => Promise<{ patch: CaseWorkflowPatch; openAlertsPatch?: AlertWorkflowPatch; comment: Comment | null; decision?: string; message?: OutboxMessage }>,
  ): Promise<Case> {
    assertId(caseId, 'caseId');
    const found = await store.cases.getCase(caseId);
    if (!found) throw notFound('CASE_NOT_FOUND', 'case');
    return lockedWrite(usersOf(found), options, async (repos, held) => {
      const c = await heldCase(repos, caseId, held);
      const now = clock.now();
      const { patch, openAlertsPatch, comment, decision, message } = await decide(repos, c, now);
      // A close's entry is the case's; the alerts it closes with it are named by the case's alertIds.
      const audit = auditEntryOf(settings, auditActorOf(options), {
        entityType: 'CASE',
        entityId: caseId,
        action: decision === undefined ? 'UPDATE' : 'STATUS_CHANGE',
        before: { ...c },
        after: { ...c, ...patch },
      });
      await repos.cases.saveWorkflow({
        case: { caseId, patch, ...(openAlertsPatch === undefined ? {} : { openAlertsPatch }) },
        alerts: [],
        comments: comment === null ? [] : [{ target: { kind: 'case', id: caseId }, comment }],
        decisions: decision === undefined ? [] : [decision],
        audit: [audit],
        outbox: message === undefined ? [] : [message],
      });
      return withSla((await repos.cases.getCase(caseId)) as Case);
    });
  }

  return {
    listAlerts: listAlerts as Engine['listAlerts'],
    listCases: listCases as Engine['listCases'],
    async getAlert(alertId) {
      assertId(alertId, 'alertId');
      const alert = await store.cases.getAlert(alertId);
      if (!alert) throw notFound('ALERT_NOT_FOUND', 'alert');
      return { ...withSla(alert), comments: await commentsOf({ kind: 'alert', id: alertId }), ...(await hitsOf(alert)) };
    },
    async getCase(caseId) {
      assertId(caseId, 'caseId');
      const found = await store.cases.getCase(caseId);
      if (!found) throw notFound('CASE_NOT_FOUND', 'case');
      return { ...withSla(found), comments: await commentsOf({ kind: 'case', id: caseId }) };
    },

    async changeAlertStatus(alertId, input, options) {
      const request = validateStatusChange(copySafeJson(input));
      const actor = namedActorOf(options);
      return writeAlert(alertId, options, async (repos, alert, c, now) => {
        if (request.status === 'REOPENED' && alert.alertStatus === 'CLOSED' && c !== null && c.caseStatus === 'CLOSED') {
          const message = `${alert.alertStatus} → ${request.status} is not allowed while the alert's case is CLOSED: reopen the case first`;
          throw new TxmonError('INVALID_STATUS_MOVE', `Invalid status move: ${message}`, [{ path: '/status', code: 'transition', message }]);
        }
        const change = decideStatusChange(alert.alertStatus, request, now, actor);
        return {
          patch: { alertStatus: change.status, ...statusPatchOf(change), updatedAt: now },
          comment: await statusComment(repos, request, change, alert.alertStatus),
          decision: statusDecisionOf('ALERT', alertId, alert.alertStatus, change, false),
          message: statusChangeMessageOf('ALERT', alertId, alert.alertStatus, change, false),
        };
      });
    },

    async changeCaseStatus(caseId, input, options) {
      const request = validateStatusChange(copySafeJson(input));
      const actor = namedActorOf(options);
      return writeCase(caseId, options, async (repos, c, now) => {
        const change = decideStatusChange(c.caseStatus, request, now, actor);
        // Applied by the store to every alert of the case still open when it writes.
        const probe = openAlertsPatchOnCaseChange(change);
        return {
          patch: { caseStatus: change.status, ...statusPatchOf(change), updatedAt: now },
          ...(probe === null ? {} : { openAlertsPatch: probe }),
          comment: await statusComment(repos, request, change, c.caseStatus),
          decision: statusDecisionOf('CASE', caseId, c.caseStatus, change, probe !== null),
          message: statusChangeMessageOf('CASE', caseId, c.caseStatus, change, probe !== null),
        };
      });
    },

    async updateAlert(alertId, input, options) {
      const request = validateUpdate(copySafeJson(input));
      auditActorOf(options);
      return writeAlert(alertId, options, async (_repos, _alert, _c, now) => {
        const assignments = assignmentsOf(request, now);
        return {
          patch: {
            ...(request.priority === undefined ? {} : { priority: request.priority }),
            ...(assignments === undefined ? {} : { assignments }),
            updatedAt: now,
          },
          comment: null,
        };
      });
    },

    async updateCase(caseId, input, options) {
      const request = validateUpdate(copySafeJson(input));
      auditActorOf(options);
      return writeCase(caseId, options, async (_repos, _c, now) => {
        const assignments = assignmentsOf(request, now);
        return {
          patch: {
            ...(request.priority === undefined ? {} : { priority: request.priority }),
            ...(assignments === undefined ? {} : { assignments }),
            updatedAt: now,
          },
          comment: null,
        };
      });
    },

    async listComments(target) {
      const kind = (target as { kind?: unknown } | null)?.kind;
      if (kind !== 'user' && kind !== 'case' && kind !== 'alert') throw invalidField('/kind', 'enum', 'must be user, case or alert');
      const id = (target as { id?: unknown }).id;
      assertId(id, `${kind} id`);
      const exists =
        kind === 'user'
          ? (await store.users.getUser(id)) !== null
          : kind === 'case'
            ? (await store.cases.getCase(id)) !== null
            : (await store.cases.getAlert(id)) !== null;
      if (!exists) throw notFound(kind === 'user' ? 'USER_NOT_FOUND' : kind === 'case' ? 'CASE_NOT_FOUND' : 'ALERT_NOT_FOUND', kind);
      return commentsOf({ kind, id });
    },
  };
}
