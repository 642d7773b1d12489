/**
 * What the engine is to its callers: the `Engine` interface (every endpoint of
 * docs/wire-format.md#endpoints as an async method), the shapes it answers with, and the clock and
 * id ports it runs on.
 */
import type {
  BusinessUser,
  BusinessUserEvent,
  ConsumerUserEvent,
  ExecutedRuleResult,
  HitRuleDetails,
  CommentRequest,
  ConsumerUser,
  ListRequest,
  PresignedUrlRequest,
  RiskLevel,
  RuleInstanceRequest,
  Transaction,
  TransactionEvent,
  AlertListQuery,
  CaseListQuery,
  StatusChangeRequest,
  WorkflowUpdateRequest,
} from '../domain/index.js';
import type { Alert, Case, CommentTarget, CommentFileLink, ListSummary, MonitoringResult, RuleInstance, StoredList, UserType } from '../domain/entities.js';
import type { BatchResponse, Repositories } from './repositories.js';
import type { DecisionLogHead, DecisionLogReport } from '../domain/decision-log.js';
import type { OutboxConsumer, OutboxDeadLetter, RuleInstanceVersion } from './repositories.js';
import type { StoredOutboxMessage } from '../domain/outbox.js';
import type { AlertHitEvidence } from '../domain/schemas/responses.js';
import type { AuditLogPage, AuditLogQuery } from '../domain/schemas/audit.js';
import type { LibraryRuleId, LibraryRuleParameters } from '../rules/registry.js';
import type { RuleView } from '../rules/types.js';
import type { EvaluationStats } from './evaluation-stats.js';
export type { EvaluationStats } from './evaluation-stats.js';

/** A source of time (epoch ms). Inject a fixed clock in tests. */
export interface Clock {
  now(): number;
}

/*
 * What the engine's methods take: the types of the wire format's request schemas, so a typed host
 * gets completion and its mistakes at compile time. Every input is still checked at run time, as a
 * request from the HTTP API is: a caller without types (JavaScript, a cast, parsed JSON) gets a 4xx
 * TxmonError naming the field, never a crash. The schemas keep fields they do not name
 * (docs/wire-format.md#unknown-fields); pass such fields in an object that is not a fresh literal
 * (or cast), since TypeScript refuses unknown properties in literals.
 */

/** What {@link Engine.createTransaction} takes: a transaction (`TransactionSchema`). */
export type TransactionInput = Transaction;

/** Options of {@link Engine.verifyDecisionLog}. */
export interface VerifyDecisionLogOptions {
  /**
   * A head published earlier, outside the store (a report's `head`): the log must still pass
   * through it — entry `anchor.seq` with hash `anchor.hash` — which catches a chain rewritten whole.
   */
  readonly anchor?: DecisionLogHead;
}

/** What {@link Engine.createTransactionEvent} takes: a transaction event (`TransactionEventSchema`). */
export type TransactionEventInput = TransactionEvent;

/** What {@link Engine.createUser} takes: a consumer (`ConsumerUserSchema`) or business user (`BusinessUserSchema`). */
export type UserInput = ConsumerUser | BusinessUser;

/** What the comment methods take (`CommentRequestSchema`). */
export type CommentInput = CommentRequest;

/** What {@link Engine.createUpload} takes (`PresignedUrlRequestSchema`). */
export type UploadInput = PresignedUrlRequest;

/** What {@link Engine.putList} takes: the whole list (`ListRequestSchema`). */
export type ListInput = ListRequest;

type RuleInstanceFields = Omit<RuleInstanceRequest, 'ruleId' | 'parameters' | 'riskLevelParameters'>;

/**
 * A rule-instance request for library rule `K`, its parameters typed by the rule's
 * `parametersSchema`: a partial set, laid over the rule's defaults (`riskLevelParameters` too, per
 * level).
 */
export type LibraryRuleInstanceInput<K extends LibraryRuleId = LibraryRuleId> = {
  [Id in K]: RuleInstanceFields & {
    ruleId: Id;
    parameters?: Partial<LibraryRuleParameters[Id]>;
    riskLevelParameters?: Record<RiskLevel, Partial<LibraryRuleParameters[Id]>>;
  };
}[K];

/**
 * What {@link Engine.createRuleInstance} and {@link Engine.updateRuleInstance} take
 * (`RuleInstanceRequestSchema`): a library rule's instance with typed parameters, or any other
 * request — a host rule's id (`createEngine({ rules })`), custom `logic`, an update that leaves
 * `ruleId` out. Editors complete the library's rule ids and, once one is chosen, its parameters.
 *
 * @example
 * ```ts
 * await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10_000 } } });
 * await engine.createRuleInstance({ ruleId: 'ACME-1', parameters: { limit: 3 } }); // a host rule
 * ```
 */
export type RuleInstanceInput =
  | LibraryRuleInstanceInput
  | (RuleInstanceFields & {
      // `string & {}` keeps the library ids offered for completion next to any other id.
      ruleId?: LibraryRuleId | (string & {});
      parameters?: Record<string, unknown>;
      riskLevelParameters?: Record<RiskLevel, Record<string, unknown>>;
    });

/** Kinds of ids the engine generates. */
export type IdKind = 'event' | 'ruleInstance' | 'alert' | 'case' | 'comment' | 'file' | 'batch' | 'audit';

/** A source of unique ids. Inject a deterministic one in tests. */
export interface IdGenerator {
  next(kind: IdKind): string;
}

/** What {@link Engine.ensureRuleInstance} did, and the stored instance with its counters. */
export interface EnsureRuleInstanceResult {
  readonly instance: RuleInstance;
  /** `CREATED` (absent before), `UPDATED` (a new version) or `UNCHANGED` (nothing written). */
  readonly change: 'CREATED' | 'UPDATED' | 'UNCHANGED';
}

/** Response of {@link Engine.createTransaction} (`POST /transactions`). */
export interface TransactionMonitoringResult extends MonitoringResult {
  transactionId: string;
}

/** Response of {@link Engine.createTransactionEvent} (`POST /events/transaction`). */
export interface TransactionEventMonitoringResult extends MonitoringResult {
  eventId: string;
  transaction: Transaction;
}

/** Response of {@link Engine.getTransaction}: the transaction with its latest result. */
export type TransactionWithRulesResult = Transaction & MonitoringResult;

/** Response of {@link Engine.getTransactionEvent}. */
export type TransactionEventWithRulesResult = TransactionEvent & { eventId: string } & MonitoringResult;

/** Response of {@link Engine.createUser}: the user rules run on the created user. */
export interface UserMonitoringResult {
  userId: string;
  executedRules: ExecutedRuleResult[];
  hitRules: HitRuleDetails[];
  riskScoreDetails?: { craRiskScore?: number; craRiskLevel?: RiskLevel };
}

/**
 * A user as {@link Engine.getUser} returns it: the profile plus its type, the results of its user
 * rules at its latest creation or event (absent for a user stored before txmon ran user rules), and its risk.
 */
export type UserView = (ConsumerUser | BusinessUser) & {
  type: UserType;
  executedRules?: ExecutedRuleResult[];
  hitRules?: HitRuleDetails[];
  riskScoreDetails?: { craRiskScore?: number; craRiskLevel?: RiskLevel };
};

/** A comment as returned, with download links. */
export interface CommentView {
  commentId: string;
  body: string;
  files: CommentFileLink[];
  createdTimestamp: number;
  updatedTimestamp: number;
}

/** An alert as {@link Engine.getAlert} returns it: with its comments, oldest first. */
export type AlertView = Alert & {
  comments: CommentView[];
  /** The evidence of its newest hits (at most `MAX_ALERT_VIEW_HITS`), newest first. */
  hits: AlertHitEvidence[];
  /** How many transactions the alert lists (`hits` shows the newest of them). */
  hitCount: number;
};

/** A case as {@link Engine.getCase} returns it: with its comments, oldest first. */
export type CaseView = Case & { comments: CommentView[] };

/**
 * One page of alerts or cases, in Flagright's shape. `next`, `prev` and `last` are opaque cursors
 * to pass as `start` (with the same `sortBy` and `sortOrder`); `''` when there is no such page.
 */
export interface WorkflowPage<T> {
  items: T[];
  /** Whether items follow this page (`next` reads them). */
  hasNext: boolean;
  /** Whether items precede this page (`prev` reads them). */
  hasPrev: boolean;
  next: string;
  prev: string;
  /** The last page (the last `pageSize` items), `''` when nothing matches. */
  last: string;
  /** How many items match the filters, on every page together. */
  count: number;
  pageSize: number;
}

/** What {@link Engine.listAlerts} takes: `GET /alerts`'s query (`AlertListQuerySchema`). */
export type AlertListInput = AlertListQuery;
/** What {@link Engine.listCases} takes: `GET /cases`'s query (`CaseListQuerySchema`). */
export type CaseListInput = CaseListQuery;
/** What the status change methods take: Flagright's `POST /cases/{caseId}/statuses` body (`StatusChangeRequestSchema`). */
export type StatusChangeInput = StatusChangeRequest;
/** What {@link Engine.updateAlert} and {@link Engine.updateCase} take (`WorkflowUpdateRequestSchema`). */
export type WorkflowUpdateInput = WorkflowUpdateRequest;

/** Options of the workflow's writes. */
export interface WorkflowOptions extends CallOptions {
  /** Who makes the change (1..200 characters), kept in `lastStatusChange.actor`; absent: unknown. */
  readonly actor?: string;
}

/** Response of {@link Engine.createUpload} (`POST /pre-signed-url`). */
export interface UploadSlot {
  key: string;
  url: string;
  method: 'PUT';
  expiresAt: number;
  fields: { key: string };
}

/** Options of {@link Engine.putUploadContent}. */
export interface UploadContentOptions {
  /** The length the client announced (e.g. `content-length`): refused before reading when above the slot's `fileSize`. */
  readonly declaredBytes?: number;
}

/** Credentials of a signed upload or download URL. */
export interface SignedFileAccess {
  key: string;
  expiresAt: number;
  signature: string;
}

/** What {@link Engine.pruneSeries} did, per series held. */
export interface SeriesPruneResult {
  /** Whether this was a dry run (nothing dropped). */
  readonly dryRun: boolean;
  /** Entries dropped. */
  readonly removed: number;
  /**
   * Every series held, with the horizon its entries were (or would be) pruned before; `null` for a
   * series kept whole (read from the beginning, or kept for the host by `maintainSeries`).
   */
  readonly series: readonly { readonly name: string; readonly prunedBefore: number | null }[];
}

/** Options of a call that may wait for its turn (a transaction or an event of a busy user). */
export interface CallOptions {
  /**
   * The caller's interest: an `AbortSignal`, or anything with `aborted`. When it is aborted by the
   * time the call's turn comes (its users' locks are free), the call is not run: it rejects with
   * `CLIENT_GONE` and nothing is written. The HTTP handler passes its client's connection.
   */
  readonly signal?: { readonly aborted: boolean };
}

/**
 * Options of a call that changes what is stored through the API (a rule instance, a list, a user,
 * a comment): each such change appends an audit entry naming `actor` (docs/audit.md).
 */
export interface ChangeOptions {
  /**
   * Who makes the change, as the audit trail records it (1–256 characters): the host's user, e.g.
   * `'alice@bank.example'`. Absent: `'system'`. The HTTP handler passes the API key's tenant and label.
   */
  readonly actor?: string;
}

/** Options of {@link Engine.createTransaction}: the query flags of `POST /transactions`. */
export interface CreateTransactionOptions extends CallOptions {
  /** Refuse (400 at `/originUserId`) a transaction whose `originUserId` names no created user. */
  readonly validateOriginUserId?: boolean;
  /** Refuse (400 at `/destinationUserId`) a transaction whose `destinationUserId` names no created user. */
  readonly validateDestinationUserId?: boolean;
}

/** Options of {@link Engine.createUser}: the user's type and the query flags of `POST /consumer/users`. */
export interface CreateUserOptions extends CallOptions, ChangeOptions {
  /** The route's type; absent: `BUSINESS` for a body with `legalEntity`, else `CONSUMER`. */
  readonly type?: UserType;
  /** Refuse (400 at `/userId`) a user whose `userId` is already created, instead of updating it. */
  readonly validateUserId?: boolean;
  /** Only `false` is taken: txmon has no locked risk levels (`true` is refused with a 400). */
  readonly lockCraRiskLevel?: boolean;
  /** Only `false` is taken: txmon has no locked risk levels (`true` is refused with a 400). */
  readonly lockKycRiskLevel?: boolean;
}

/** What {@link Engine.createConsumerUserEvent} takes (`ConsumerUserEventSchema`). */
export type ConsumerUserEventInput = ConsumerUserEvent;
/** What {@link Engine.createBusinessUserEvent} takes (`BusinessUserEventSchema`). */
export type BusinessUserEventInput = BusinessUserEvent;

/** The rule results and risk of a user after an event. */
export interface UserRulesResult {
  executedRules: ExecutedRuleResult[];
  hitRules: HitRuleDetails[];
  riskScoreDetails?: { craRiskScore?: number; craRiskLevel?: RiskLevel };
}

/**
 * Response of a user event (`UserWithRulesResult` / `BusinessWithRulesResult`): the user after the
 * event with its rule results and risk.
 */
export type UserEventMonitoringResult = (ConsumerUser | BusinessUser) & UserRulesResult;

/** Response of the user-event reads: the event as sent (with its `eventId`) and its result. */
export type UserEventWithRulesResult = (ConsumerUserEvent | BusinessUserEvent) & { eventId: string } & UserRulesResult;

/** Options of the user-event creates: the query flags of `POST /events/consumer/user`. */
export interface UserEventOptions extends CallOptions, ChangeOptions {
  /** Only `false` is taken: an event never changes a user's type (`true` is refused with a 400). */
  readonly allowUserTypeConversion?: boolean;
  /** Only `false` is taken: txmon has no locked risk levels (`true` is refused with a 400). */
  readonly lockCraRiskLevel?: boolean;
  /** Only `false` is taken: txmon has no locked risk levels (`true` is refused with a 400). */
  readonly lockKycRiskLevel?: boolean;
}

/** The txmon engine: every endpoint of docs/wire-format.md#endpoints as an async method. */
/** How a batch's transactions and events are taken: monitored like single calls (default), or imported as history. */
export type BatchMode = 'MONITOR' | 'IMPORT';

/** Options of the batch calls ({@link Engine.createTransactionBatch} …). */
export interface BatchOptions extends CallOptions, ChangeOptions {
  /**
   * `MONITOR` (default): every record is monitored as a single call would be (rules, counters,
   * alerts, risk). `IMPORT`: history that fills the windows only — no rule runs, nothing is
   * counted, alerted or scored, the stored result is `ALLOW` with no rules (HTTP: `?mode=IMPORT`).
   */
  readonly mode?: BatchMode;
}

/** A page of a batch's results: `page` from 1 (default 1), `pageSize` 1 to 1,000 (default 100). */
export interface BatchPageOptions {
  readonly page?: number;
  readonly pageSize?: number;
}

/** `GET /batch/transactions/{batchId}`: the stored transactions' create results, in batch order. */
export interface BatchTransactionMonitoringResults {
  transactions: {
    transactionId: string;
    status: MonitoringResult['status'];
    riskScoreDetails?: MonitoringResult['riskScoreDetails'];
    hitRules: MonitoringResult['hitRules'];
    /** The alerts its hits opened or were appended to (absent: none). */
    alerts?: MonitoringResult['alerts'];
  }[];
  /** Stored records of the batch in all (every page). */
  totalCount: number;
}

/** `GET /batch/events/transaction/{batchId}`: the stored events as sent, each with its result, in batch order. */
export interface BatchTransactionEventMonitoringResults {
  transactionEvents: (TransactionEvent & {
    eventId: string;
    status: MonitoringResult['status'];
    riskScoreDetails?: MonitoringResult['riskScoreDetails'];
    hitRules: MonitoringResult['hitRules'];
    /** The alerts its hits opened or were appended to (absent: none). */
    alerts?: MonitoringResult['alerts'];
  })[];
  totalCount: number;
}

/**
 * `GET /batch/consumer/users/{batchId}` (`consumerUsers`) and `/batch/business/users/{batchId}`
 * (`businessUsers`): the batch's users as `getUser` shows them now, in batch order.
 */
export type BatchUserResults = { consumerUsers: BatchUserResult[]; totalCount: number } | { businessUsers: BatchUserResult[]; totalCount: number };

/** One user of a batch's results (the SDK's `BatchConsumerUserWithRulesResult`): the user as {@link Engine.getUser} returns it, with its executed rules but not its hit rules. */
export type BatchUserResult = Omit<UserView, 'hitRules'>;

/** One user event of a batch's results (the SDK's `BatchConsumerUserEventWithRulesResult`): the event as sent, its executed rules and risk. */
export type BatchUserEventResult = (ConsumerUserEvent | BusinessUserEvent) & { eventId: string } & Omit<UserRulesResult, 'hitRules'>;

/** The page of a user-event batch's results (`BatchConsumerUserEventsRulesResult` / `BatchBusinessUserEventsWithRulesResult`). */
export type BatchUserEventResults =
  | { consumerUserEvents: BatchUserEventResult[]; totalCount: number }
  | { businessUserEvents: BatchUserEventResult[]; totalCount: number };

export interface Engine {
  /**
   * `POST /transactions`. A rule that could not be evaluated is marked on its executed rule and
   * warned in `warnings` (docs/wire-format.md#not-evaluated).
   * @throws TxmonError `RULE_NOT_EVALUATED` (422) on an engine created with `strict: true` when a live
   *   rule could not be evaluated; nothing is stored.
   */
  createTransaction(input: TransactionInput, options?: CreateTransactionOptions): Promise<TransactionMonitoringResult>;
  getTransaction(transactionId: string): Promise<TransactionWithRulesResult>;
  /** `POST /events/transaction`. @throws TxmonError `RULE_NOT_EVALUATED` as {@link Engine.createTransaction}. */
  createTransactionEvent(input: TransactionEventInput, options?: CallOptions): Promise<TransactionEventMonitoringResult>;
  getTransactionEvent(eventId: string): Promise<TransactionEventWithRulesResult>;
  /**
   * `POST /batch/transactions`: up to 10,000 transactions (`{ batchId?, data }`), each checked and
   * monitored on its own in timestamp order; a refused record is listed in `failedRecords` and
   * the others go on. Idempotent on `batchId` and on each `transactionId`.
   * @throws TxmonError `VALIDATION_FAILED` for a malformed body, `LIMIT_EXCEEDED` past 10,000
   *   records (`/data`), `BATCH_ID_CONFLICT` for a known `batchId` with another body, a store fault
   */
  createTransactionBatch(input: unknown, options?: BatchOptions): Promise<BatchResponse>;
  /** @throws TxmonError `BATCH_NOT_FOUND`, `VALIDATION_FAILED` for a bad page */
  getTransactionBatch(batchId: string, options?: BatchPageOptions): Promise<BatchTransactionMonitoringResults>;
  /** `POST /batch/events/transaction`: as {@link Engine.createTransactionBatch}, for events. */
  createTransactionEventBatch(input: unknown, options?: BatchOptions): Promise<BatchResponse>;
  /** @throws TxmonError `BATCH_NOT_FOUND`, `VALIDATION_FAILED` for a bad page */
  getTransactionEventBatch(batchId: string, options?: BatchPageOptions): Promise<BatchTransactionEventMonitoringResults>;
  /** `POST /batch/consumer/users` (`type` CONSUMER, default) and `/batch/business/users`: each record as `createUser`. */
  createUserBatch(input: unknown, options?: BatchOptions & { type?: UserType }): Promise<BatchResponse>;
  /** @throws TxmonError `BATCH_NOT_FOUND`, `VALIDATION_FAILED` for a bad page */
  getUserBatch(batchId: string, options?: BatchPageOptions & { type?: UserType }): Promise<BatchUserResults>;
  /**
   * `POST /batch/events/consumer/user` (`type` CONSUMER, default) and `/batch/events/business/user`:
   * each record as {@link Engine.createConsumerUserEvent} / {@link Engine.createBusinessUserEvent},
   * in timestamp order; a refused record is listed with its `eventId` (else its `userId`).
   */
  createUserEventBatch(input: unknown, options?: BatchOptions & { type?: UserType }): Promise<BatchResponse>;
  /** @throws TxmonError `BATCH_NOT_FOUND`, `VALIDATION_FAILED` for a bad page */
  getUserEventBatch(batchId: string, options?: BatchPageOptions & { type?: UserType }): Promise<BatchUserEventResults>;
  createUser(input: UserInput, options?: CreateUserOptions): Promise<UserMonitoringResult>;
  getUser(userId: string, options?: { type?: UserType }): Promise<UserView>;
  /** `POST /events/consumer/user`: patches a consumer user (merge patch, `eventId` idempotent, late events folded in timestamp order). */
  createConsumerUserEvent(input: ConsumerUserEventInput, options?: UserEventOptions): Promise<UserEventMonitoringResult>;
  /** `POST /events/business/user`: as {@link Engine.createConsumerUserEvent} for a business user. */
  createBusinessUserEvent(input: BusinessUserEventInput, options?: UserEventOptions): Promise<UserEventMonitoringResult>;
  /** `GET /events/consumer/user/{eventId}`. */
  getConsumerUserEvent(eventId: string): Promise<UserEventWithRulesResult>;
  /** `GET /events/business/user/{eventId}`. */
  getBusinessUserEvent(eventId: string): Promise<UserEventWithRulesResult>;
  createUserComment(userId: string, input: CommentInput, options?: ChangeOptions): Promise<CommentView>;
  createCaseComment(caseId: string, input: CommentInput, options?: ChangeOptions): Promise<CommentView>;
  createAlertComment(alertId: string, input: CommentInput, options?: ChangeOptions): Promise<CommentView>;
  createRuleInstance(input: RuleInstanceInput, options?: ChangeOptions): Promise<RuleInstance>;
  getRuleInstance(id: string): Promise<RuleInstance>;
  listRuleInstances(): Promise<RuleInstance[]>;
  updateRuleInstance(id: string, input: RuleInstanceInput, options?: ChangeOptions): Promise<RuleInstance>;
  /**
   * Makes rule instance `id` exist as `input` describes it, as a creation would build it: created
   * with that id when absent, replaced (a new version) when its configuration differs, left alone
   * (no new version, no audit entry) when it is the same. Idempotent, and safe when several
   * processes on one store ensure the same instance at once (they take turns under the writer
   * lock). `txmon serve --config` ensures the file's instances with it (actor `config`).
   * @throws TxmonError as {@link Engine.createRuleInstance} does
   * @example
   * ```ts
   * const { change } = await engine.ensureRuleInstance('big-transfers', { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
   * change; // 'CREATED', then 'UNCHANGED' on every later call with the same input
   * ```
   */
  ensureRuleInstance(id: string, input: RuleInstanceInput, options?: ChangeOptions): Promise<EnsureRuleInstanceResult>;
  deleteRuleInstance(id: string, options?: ChangeOptions): Promise<void>;
  /**
   * `GET /rule-instances/{id}/versions` (txmon's addition): every version of rule instance `id`,
   * **newest first** — each the instance's configuration as it was stored then, without counters
   * (`version` says which, `updatedAt` when it was made). A deleted instance's versions stay readable.
   * @throws TxmonError `RULE_INSTANCE_NOT_FOUND` when no version of `id` was ever stored
   */
  getRuleInstanceVersions(id: string): Promise<RuleInstanceVersion[]>;
  listRules(): Promise<RuleView[]>;
  getRule(ruleId: string): Promise<RuleView>;
  getRuleFiltersSchema(): Promise<Record<string, unknown>>;
  /**
   * Creates or replaces list `listId` (a blacklist or whitelist of one subtype) that R-132 and the
   * `whitelistUsers.listIds` filter look values up in. Items are de-duplicated.
   * @throws TxmonError `VALIDATION_FAILED` naming the path (`/items/3`, `/subtype` …)
   */
  putList(listId: string, input: ListInput, options?: ChangeOptions): Promise<StoredList>;
  /** @throws TxmonError `LIST_NOT_FOUND` */
  getList(listId: string): Promise<StoredList>;
  /** Every list, without items. */
  listLists(): Promise<ListSummary[]>;
  /** @throws TxmonError `LIST_NOT_FOUND` */
  deleteList(listId: string, options?: ChangeOptions): Promise<void>;
  /**
   * `GET /audit-log` (txmon's addition): the audit trail (docs/audit.md), filtered by entity type
   * and id, action, actor and a timestamp range (inclusive), in pages of `pageSize` (default 20, at
   * most 100) oldest first (`sortOrder: 'descend'`: newest first). Pass a page's `next` as `start`
   * for the entries after it: entries written meanwhile are never skipped nor repeated.
   * @throws TxmonError `VALIDATION_FAILED` naming the field (`/start` for a cursor this log did not issue)
   */
  listAuditLog(query?: AuditLogQuery): Promise<AuditLogPage>;
  createUpload(input: UploadInput): Promise<UploadSlot>;
  /**
   * Stores the bytes of an upload slot (the embedded upload URL's target), once. The signature is
   * checked before a byte of `content` is read; an iterable is consumed chunk by chunk, so the
   * bytes reach the file repository as they arrive.
   * @throws TxmonError `UNAUTHORIZED` (bad or expired URL), `FILE_ALREADY_UPLOADED` (the slot holds
   *   bytes already), `PAYLOAD_TOO_LARGE` (more bytes than the slot's `fileSize`, or `declaredBytes` more)
   */
  putUploadContent(access: SignedFileAccess, content: Uint8Array | AsyncIterable<Uint8Array>, options?: UploadContentOptions): Promise<void>;
  /** Reads a file through a signed download link. */
  getFileContent(access: SignedFileAccess): Promise<{ filename: string; bytes: Uint8Array }>;
  /** Every alert, in creation order, each with its `slaDueTimestamp` (for small stores and tests: prefer a page). */
  listAlerts(): Promise<Alert[]>;
  /**
   * One page of alerts (`GET /alerts`): filtered, sorted (default `createdTimestamp` `desc`, ties by
   * id), `pageSize` (default 20, at most 100) at a time. Cursor pages: an alert present when the
   * first page was read is neither skipped nor repeated while new alerts arrive (unless its sort
   * value changes meanwhile: a hit moves `updatedAt`).
   * @throws TxmonError `VALIDATION_FAILED` naming the field (`/pageSize`, `/start` …)
   * @example
   * ```ts
   * let page = await engine.listAlerts({ filterAlertStatus: ['OPEN'], pageSize: 50 });
   * while (page.hasNext) page = await engine.listAlerts({ filterAlertStatus: ['OPEN'], pageSize: 50, start: page.next });
   * ```
   */
  listAlerts(query: AlertListInput): Promise<WorkflowPage<Alert>>;
  /** An alert with its comments (their files with signed links) and due date. @throws TxmonError `ALERT_NOT_FOUND` */
  getAlert(alertId: string): Promise<AlertView>;
  /** Every case, in creation order (for small stores and tests: prefer a page). */
  listCases(): Promise<Case[]>;
  /** One page of cases (`GET /cases`), as {@link Engine.listAlerts}. */
  listCases(query: CaseListInput): Promise<WorkflowPage<Case>>;
  /** A case with its comments (their files with signed links) and due date. @throws TxmonError `CASE_NOT_FOUND` */
  getCase(caseId: string): Promise<CaseView>;
  /**
   * Moves an alert to another status (`POST /alerts/{alertId}/statuses`), as the table of allowed
   * moves allows (docs/alerts-and-cases.md#status-moves); a close needs a reason. A `comment` (with
   * `files`) is added to the alert's comments in the same atomic write. Runs in turn with the hits
   * on the alert's user: a hit lands wholly before the change or after it (then, after a close, in a
   * new alert).
   * @throws TxmonError `INVALID_STATUS_MOVE` naming the move (also `CLOSED → REOPENED` while the
   *   alert's case is closed), `VALIDATION_FAILED` at `/reason`, `/otherReason` …, `ALERT_NOT_FOUND`
   * @example
   * ```ts
   * await engine.changeAlertStatus('A-1', { status: 'CLOSED', reason: ['FALSE_POSITIVE'], comment: 'Salary' }, { actor: 'ana@bank.example' });
   * ```
   */
  changeAlertStatus(alertId: string, input: StatusChangeInput, options?: WorkflowOptions): Promise<Alert>;
  /**
   * Moves a case to another status (`POST /cases/{caseId}/statuses`), as {@link Engine.changeAlertStatus}.
   * Closing a case closes each of its alerts not closed yet, with the same reason, in the same
   * atomic write; a hit afterwards opens a new alert in a new case.
   * @throws TxmonError `INVALID_STATUS_MOVE`, `VALIDATION_FAILED`, `CASE_NOT_FOUND`
   * @example
   * ```ts
   * await engine.changeCaseStatus('C-1', { status: 'CLOSED', reason: ['OTHER'], otherReason: 'Customer left' });
   * ```
   */
  changeCaseStatus(caseId: string, input: StatusChangeInput, options?: WorkflowOptions): Promise<Case>;
  /**
   * `PATCH /alerts/{alertId}`: replaces the fields given — `priority`, `assignments` (each
   * assignment's `timestamp` defaults to now). The due date follows the priority.
   * @throws TxmonError `VALIDATION_FAILED` naming the field, `ALERT_NOT_FOUND`
   * @example
   * ```ts
   * await engine.updateAlert('A-1', { priority: 'P1', assignments: [{ assigneeEmail: 'ana@bank.example' }] });
   * ```
   */
  updateAlert(alertId: string, input: WorkflowUpdateInput, options?: WorkflowOptions): Promise<Alert>;
  /** `PATCH /cases/{caseId}`, as {@link Engine.updateAlert}. @throws TxmonError `VALIDATION_FAILED`, `CASE_NOT_FOUND` */
  updateCase(caseId: string, input: WorkflowUpdateInput, options?: WorkflowOptions): Promise<Case>;
  /**
   * The comments on a user, a case or an alert (`GET /users|cases|alerts/{id}/comments`), oldest
   * first, each file with a signed download link valid `urlTtlMs` from now.
   * @throws TxmonError `USER_NOT_FOUND`, `CASE_NOT_FOUND`, `ALERT_NOT_FOUND`
   * @example
   * ```ts
   * const comments = await engine.listComments({ kind: 'case', id: 'C-1' });
   * ```
   */
  listComments(target: CommentTarget): Promise<CommentView[]>;
  /**
   * Retention: drops the windowed-aggregate entries no active instance can read any more — per
   * series, those older than the clock minus `lateArrivalMs` minus the furthest back an instance
   * reads it (a series no instance reads keeps `lateArrivalMs`; one read from the beginning, or
   * maintained for the host, is kept whole). Transactions, events, alerts and cases are never
   * pruned. Runs beside transactions; an instance that later reads further back refills the series
   * from the stored transactions when it is written. Run it regularly (e.g. daily): each run then
   * drops a day's entries.
   *
   * @example
   * ```ts
   * const { removed, series } = await engine.pruneSeries();
   * const preview = await engine.pruneSeries({ dryRun: true }); // horizons only
   * ```
   */
  pruneSeries(options?: { readonly dryRun?: boolean }): Promise<SeriesPruneResult>;
  /**
   * One round trip to the store (`repositories.ping`; nothing for a store in the process): what a
   * readiness check asks.
   * @throws TxmonError `STORE_UNAVAILABLE` or `STORE_TIMEOUT` when the store does not answer.
   * @example
   * ```ts
   * const ready = await engine.checkStore().then(() => true, () => false);
   * ```
   */
  checkStore(): Promise<void>;
  /**
   * Counters of this engine's evaluations since it was created, for a metrics exporter: the rule
   * runs that could not be evaluated (`executedRules[i].notEvaluated`), in all, by reason and by
   * rule instance (docs/wire-format.md#not-evaluated). In-process, never stored.
   * @example
   * ```ts
   * const { notEvaluated } = engine.evaluationStats();
   * if (notEvaluated.byReason.NO_RATE > 0) console.warn('amounts without a rate', notEvaluated.byInstance);
   * ```
   */
  evaluationStats(): EvaluationStats;
  /**
   * Reads the whole decision log — every stored transaction and event result, chained by SHA-256 in
   * the order they were stored (docs/audit.md) — page by page in bounded memory, and reports the
   * number of entries, the head they lead to, and the first entry that was edited, removed,
   * inserted or moved, if any. With `anchor` (a head kept outside the store since an earlier
   * verification) it also catches a chain rewritten whole.
   *
   * @example
   * ```ts
   * const report = await engine.verifyDecisionLog();
   * if (!report.ok) console.error(report.firstInvalid); // { seq: 41, problem: 'EDITED', message: … }
   * publish(report.head); // keep it elsewhere; later: engine.verifyDecisionLog({ anchor: published })
   * ```
   */
  verifyDecisionLog(options?: VerifyDecisionLogOptions): Promise<DecisionLogReport>;
  /**
   * The outbox (docs/webhooks.md): what the host may act on — results other than `ALLOW`, user
   * states and KYC statuses set by rules, alert and case status changes, rule instance changes —
   * each written in the same atomic write as the change, numbered in commit order. Read it from a
   * position, or `subscribe` a named consumer that delivers each message at least once, in order.
   *
   * @example
   * ```ts
   * const sub = engine.outbox.subscribe('suspensions', async (message) => {
   *   if (message.type === 'TRANSACTION_DECISION') await holdPayment(message.data.transactionId);
   * });
   * // … on shutdown:
   * await sub.stop();
   * ```
   */
  readonly outbox: OutboxApi;
  /** The repositories the engine runs on (for hosts and tests). */
  readonly repositories: Repositories;
}

/** Options of {@link OutboxApi.subscribe}. */
export interface OutboxSubscribeOptions {
  /** Where a consumer that does not exist yet starts: after this position (default 0: every message), or `'end'`: after the newest. */
  readonly startAt?: number | 'end';
  /**
   * Retries of a message whose handler throws: after `attempts` failures the next try waits
   * `min(maxDelayMs, initialDelayMs × 2^(attempts − 1))`; after `maxAttempts` failures the message
   * becomes a dead letter and the consumer moves on. Defaults 1 s, 1 h, 18 (about 7 hours of retries).
   */
  readonly retry?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number; readonly maxAttempts?: number };
  /** How long a turn on the consumer lasts without renewal (default 30 s): a process that dies keeps it this long. */
  readonly leaseMs?: number;
  /** How often an idle consumer looks for new messages (default 250 ms). */
  readonly pollMs?: number;
  /** This reader's name on the lease (default a random UUID). */
  readonly owner?: string;
  /** Told of a store fault in the loop (it goes on after a pause). */
  readonly onError?: (error: unknown) => void;
  /** Told of each failed attempt that will be tried again (a metric of delivery failures, a log line). */
  readonly onRetry?: (retry: { consumer: string; seq: number; attempts: number; lastError: string; nextAttemptAt: number }) => void;
  /** Told of each message given up on. */
  readonly onDeadLetter?: (deadLetter: OutboxDeadLetter) => void;
}

/** A running consumer (see {@link OutboxApi.subscribe}). */
export interface OutboxSubscription {
  readonly name: string;
  readonly owner: string;
  /** Looks for new messages now instead of at the next poll. */
  wake(): void;
  /** Stops after the message in hand (its position saved when delivered) and gives up the lease. */
  stop(): Promise<void>;
}

/** `engine.outbox`: see {@link Engine.outbox}. */
export interface OutboxApi {
  /**
   * The messages after position `after` (default 0), at most `limit` (default 100, at most 1,000),
   * in position order, and the newest position (`head`).
   */
  read(options?: { after?: number; limit?: number }): Promise<{ messages: StoredOutboxMessage[]; head: number }>;
  /** The newest position (0 when empty). */
  head(): Promise<number>;
  /** Every consumer with its position, retry state and lease. */
  listConsumers(): Promise<OutboxConsumer[]>;
  /** @throws TxmonError `CONSUMER_NOT_FOUND` */
  getConsumer(name: string): Promise<OutboxConsumer>;
  /**
   * Moves consumer `name` (created when unknown) to `position` — never back — for a reader that
   * reads with `read` and keeps its own pace.
   * @throws TxmonError `CONCURRENT_UPDATE` while a subscription holds the consumer
   */
  acknowledge(name: string, position: number, options?: { owner?: string }): Promise<void>;
  /** Consumer `name`'s dead letters after position `after`, at most `limit`. */
  listDeadLetters(name: string, options?: { after?: number; limit?: number }): Promise<OutboxDeadLetter[]>;
  /**
   * Runs consumer `name`: each message after its position goes to `handler`, one at a time, in
   * order; the position moves when the handler resolves; a throw retries the message with back-off
   * (see {@link OutboxSubscribeOptions.retry}), then makes it a dead letter. Processes sharing a
   * store take turns by lease: one delivers at a time.
   */
  subscribe(name: string, handler: (message: StoredOutboxMessage) => unknown, options?: OutboxSubscribeOptions): OutboxSubscription;
}
