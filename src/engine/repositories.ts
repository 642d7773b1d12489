import type { AggregateQuery, AggregateValue, SeriesEntry, SeriesEntryRef } from '../aggregation/aggregate-store.js';
import type {
  AlertHit,
  StoredUser,
  UserUpdate,
  Alert,
  Case,
  Comment,
  CommentTarget,
  MonitoringResult,
  RuleInstance,
  StoredList,
  UserType,
  ListSummary,
  BusinessUser,
  ListSubtype,
  ConsumerUser,
  Transaction,
  TransactionEvent,
  ConsumerUserEvent,
  BusinessUserEvent,
  ExecutedRuleResult,
  HitRuleDetails,
  RiskLevel,
  CaseStatus,
  CasePriority,
  AlertWorkflowPatch,
  CaseWorkflowPatch,
  ResultAlert,
} from '../domain/index.js';
import { withResultAlerts } from '../domain/case-policy.js';
import { alertMessagesOf } from '../domain/outbox.js';
import type { UserRuleResults } from '../domain/entities.js';
import type { DecisionLogHead, DecisionLogRow } from '../domain/decision-log.js';
import type { OutboxMessage, StoredOutboxMessage } from '../domain/outbox.js';
import type { AuditEntityType, AuditAction, AuditEntry } from '../domain/schemas/audit.js';

/** A transaction as stored: its current state, the payload it was created with, and results. */
export interface StoredTransaction {
  /** The current transaction: the create payload with every event folded in. */
  transaction: Transaction;
  /** The create payload as received (for idempotent replays). */
  request: Transaction;
  /** The response returned by the create call (returned again on a replay). */
  createResult: MonitoringResult;
  /** The latest evaluation (create or newest event). */
  latestResult: MonitoringResult;
  /** Number of events stored for this transaction; also the arrival counter. */
  eventCount: number;
  /** Greatest event timestamp so far (`null` before the first event): an older event means a re-fold. */
  lastEventTimestamp: number | null;
  /** Optimistic-concurrency version, bumped by every write. */
  version: number;
}

/** A transaction event as stored. */
export interface StoredEvent {
  eventId: string;
  transactionId: string;
  /** The event as received, with `eventId` filled in when the client omitted it. */
  event: TransactionEvent & { eventId: string };
  /** Whether the client supplied the `eventId` (only then is the payload compared on replays). */
  clientEventId: boolean;
  /** Arrival order within the transaction (0, 1, 2, …). */
  arrival: number;
  /** The transaction after this event was folded in, as returned in the response. */
  transaction: Transaction;
  result: MonitoringResult;
}

/**
 * A rule instance as the repository keeps it: the instance without its counters, plus which of
 * the per-risk-level maps were derived from the plain fields (so an update of `parameters`
 * refreshes them) rather than given by the client.
 */
export interface StoredRuleInstance {
  instance: Omit<RuleInstance, 'runCount' | 'hitCount'>;
  derived: { riskLevelParameters: boolean; riskLevelActions: boolean; riskLevelsTriggersOnHit: boolean };
}

/** An upload slot issued by `createUpload`. */
export interface FileRecord {
  key: string;
  filename: string;
  fileSize: number;
  createdAt: number;
  expiresAt: number;
  /** Whether bytes were stored through the upload URL (once stored, they are never replaced). */
  uploaded: boolean;
  /** The number of bytes stored, once `uploaded`. */
  size?: number;
}

/**
 * Everything one transaction or one event writes, applied as ONE atomic step: the transaction and
 * its event, the replacement of its aggregate contributions, rule-instance counters, alerts and
 * cases, and user updates. A real database runs it in one transaction.
 */
export interface TransactionOutcome {
  transaction: StoredTransaction;
  /** `null` when the transaction must not exist yet (create); else the version read. */
  expectedVersion: number | null;
  event: StoredEvent | null;
  aggregates: { remove: SeriesEntryRef[]; add: SeriesEntry[] };
  counters: { instanceId: string; runs: number; hits: number }[];
  alertHits: AlertHit[];
  /** Users seen as parties (created as bare records when unknown). */
  seenUserIds: string[];
  userUpdates: UserUpdate[];
  now: number;
  /**
   * The decision's canonical text (`decisionText` of domain/decision-log.ts): appended to the
   * {@link DecisionLogRepository decision log} in the same atomic write as the rest of the outcome.
   */
  decision: string;
  /**
   * What the outcome reports to the host (`transactionMessagesOf` of domain/outbox.ts): appended to
   * the {@link OutboxRepository outbox} in the same atomic write, after the decision.
   */
  outbox?: readonly OutboxMessage[];
}

/**
 * `outcome` with the result it decided naming `alerts` (`withResultAlerts`): a creation's
 * `createResult`, an event's `result`, and the `latestResult` (the same object when it was the
 * same), and its `outbox` followed by what the alerts report (`alertMessagesOf`: opened, appended,
 * a case opened); `outcome` itself when `alerts` is empty. What a store writes of an outcome whose
 * hits landed in `alerts`.
 */
export function outcomeNamingAlerts(outcome: TransactionOutcome, alerts: readonly ResultAlert[]): TransactionOutcome {
  if (alerts.length === 0) return outcome;
  const t = outcome.transaction;
  const e = outcome.event;
  const decided = e === null ? t.createResult : e.result;
  const named = withResultAlerts(decided, alerts);
  const latestResult = t.latestResult === decided ? named : withResultAlerts(t.latestResult, alerts);
  return {
    ...outcome,
    transaction: { ...t, createResult: e === null ? named : t.createResult, latestResult },
    event: e === null ? null : { ...e, result: named },
    outbox: [...(outcome.outbox ?? []), ...alertMessagesOf(t.transaction.transactionId, e === null ? null : e.eventId, alerts, outcome.now)],
  };
}

/** Transactions and their events. */
export interface TransactionRepository {
  getTransaction(transactionId: string): Promise<StoredTransaction | null>;
  /** Several transactions at once, answers in the order of `transactionIds` (`null` for one not stored). */
  getTransactions(transactionIds: readonly string[]): Promise<(StoredTransaction | null)[]>;
  /** The transaction's events in arrival order. */
  listEvents(transactionId: string): Promise<StoredEvent[]>;
  getEvent(eventId: string): Promise<StoredEvent | null>;
  /**
   * Applies a {@link TransactionOutcome} atomically. Its alert hits land where the case policy
   * (`decideAlertHit`) puts them, applied to the alerts and cases stored when it runs; the result
   * this outcome decided is stored naming the alerts they landed in, as
   * {@link outcomeNamingAlerts} gives it — the event's `result` (an event) or the `createResult`
   * (a creation), and the `latestResult` — and those alerts are returned.
   * @returns the alerts the hits opened or were appended to, in hit order, each once (`[]` without alert hits)
   * @throws TxmonError `CONCURRENT_UPDATE` when the stored version differs from `expectedVersion`
   *   (or the transaction exists when `expectedVersion` is `null`, or the event id is taken).
   */
  saveOutcome(outcome: TransactionOutcome): Promise<ResultAlert[]>;
  /**
   * Applies `outcomes` as {@link saveOutcome} would one after the other, in order, as ONE atomic
   * step: each sees the alerts, cases and users the ones before it left (a later outcome's hit is
   * appended to the alert an earlier one opened). What a batch's chunk writes; a database writes
   * the creations among them set-based (one statement for the chunk).
   * @returns per outcome, in order, the alerts {@link saveOutcome} would return
   * @throws TxmonError `CONCURRENT_UPDATE` as {@link saveOutcome} for any of them: then none is stored
   */
  saveOutcomes(outcomes: readonly TransactionOutcome[]): Promise<ResultAlert[][]>;
  /**
   * Every stored transaction in its current state (events folded in), in any order — what the
   * engine reads to fill a new derived (filtered) aggregate series from history. Transactions
   * saved while the scan runs may or may not be included.
   */
  scanTransactions(): AsyncIterable<Transaction>;
  /**
   * The history as it was received — every create request and every event — in time order: by
   * timestamp, a transaction before its events at the same instant, then by transaction id and
   * arrival. Read from one consistent snapshot, without writing anything (a database adapter reads
   * it in a read-only transaction, so the store keeps serving). What a backtest replays.
   */
  scanHistory(range?: HistoryRange): AsyncIterable<HistoryOperation>;
}

/** Bounds of {@link TransactionRepository.scanHistory}, inclusive (epoch ms); absent: unbounded. */
export interface HistoryRange {
  readonly from?: number;
  readonly to?: number;
}

/** One operation of the stored history, as it was received (an event with its `eventId`, generated when the client gave none). */
export type HistoryOperation =
  | { readonly kind: 'transaction'; readonly operation: Transaction }
  | { readonly kind: 'event'; readonly operation: TransactionEvent & { eventId: string } };

/** Rule instances and their run/hit counters. */
export interface RuleInstanceRepository {
  /** Every instance with its counters, in creation order. */
  listRuleInstances(): Promise<RuleInstance[]>;
  getRuleInstance(id: string): Promise<RuleInstance | null>;
  getStoredRuleInstance(id: string): Promise<StoredRuleInstance | null>;
  /**
   * Creates or replaces an instance (counters are kept on replace), and keeps `stored.instance` as
   * its version `stored.instance.version` (see {@link listRuleInstanceVersions}) in the same atomic step.
   */
  putRuleInstance(stored: StoredRuleInstance, writes?: AuditWrites): Promise<void>;
  /** @returns whether the instance existed (only then are `writes.audit` appended, in the same atomic step). */
  deleteRuleInstance(id: string, writes?: AuditWrites): Promise<boolean>;
  /** A number that changes whenever an instance is created, updated or deleted (for caches). */
  getRevision(): Promise<number>;
  /**
   * Every version of instance `id` ever stored by {@link putRuleInstance} (each `instance` as it
   * was put, keyed by its `version`; putting a version again replaces it), newest first; `[]` when
   * none. A deleted instance's versions stay.
   */
  listRuleInstanceVersions(id: string): Promise<RuleInstanceVersion[]>;
}

/** One version of a rule instance: its configuration as stored then (`version` and `updatedAt` say which and when). */
export type RuleInstanceVersion = StoredRuleInstance['instance'];

/** A user event as stored. */
export interface StoredUserEvent {
  eventId: string;
  userId: string;
  /** The route's type (a consumer event on `/events/consumer/user`, a business one on `/events/business/user`). */
  type: UserType;
  /** The event as received, with `eventId` filled in when the client omitted it. */
  event: (ConsumerUserEvent | BusinessUserEvent) & { eventId: string };
  /** Whether the client supplied the `eventId` (only then is the payload compared on replays). */
  clientEventId: boolean;
  /** Arrival order among the user's events (0, 1, 2, …). */
  arrival: number;
  /** The user's profile after this event was folded in, as returned in the response. */
  user: ConsumerUser | BusinessUser;
  /** The rules run on the user after this event, and the user's risk as it was then. */
  result: {
    executedRules: ExecutedRuleResult[];
    hitRules: HitRuleDetails[];
    riskScoreDetails?: { craRiskScore?: number; craRiskLevel?: RiskLevel };
  };
}

/**
 * What the user rules of a user creation or a user event write besides the user: applied in the
 * same atomic step as the user (see {@link UserRepository.saveUserProfile},
 * {@link UserRepository.saveUserEvent}), as a {@link TransactionOutcome} applies its own.
 */
export interface UserRuleWrites {
  /** Run and hit counts to add per rule instance (an instance that no longer exists is skipped). */
  counters?: { instanceId: string; runs: number; hits: number }[];
  /** Hits of user rules on the user (`transactionId` `null`), each landing where the case policy puts it. */
  alertHits?: AlertHit[];
  /** The user rules' results: stored as the user's `ruleResults` (replacing them); absent: kept. */
  ruleResults?: UserRuleResults;
}

/** Users. */
export interface UserRepository {
  getUser(userId: string): Promise<StoredUser | null>;
  getUsers(userIds: readonly string[]): Promise<(StoredUser | null)[]>;
  /** Creates or replaces a whole user record (seeding, migrations). The engine uses {@link saveUserProfile}. */
  putUser(user: StoredUser): Promise<void>;
  /**
   * The host created or updated a user: creates the record, or replaces only its `profile` and
   * `type` (and `updatedAt`), keeping txmon's risk state (`craScore`, `craRiskLevel`) and
   * `firstSeenAt` — atomically, so a concurrent CRA update is never lost. The user rules' counters
   * and alert hits, when given, are applied in the same atomic step. Returns the stored user.
   */
  saveUserProfile(
    update: { userId: string; type: UserType; profile: ConsumerUser | BusinessUser; now: number } & UserRuleWrites & AuditWrites,
  ): Promise<StoredUser>;
  /** A user event by id, `null` when none. */
  getUserEvent(eventId: string): Promise<StoredUserEvent | null>;
  /** The user's events in arrival order. */
  listUserEvents(userId: string): Promise<StoredUserEvent[]>;
  /**
   * Stores a user event and the user's profile after it as one atomic step: the event is added and
   * the profile and type replaced as by {@link saveUserProfile} (risk state and `firstSeenAt` kept),
   * and the user rules' counters and alert hits, when given, applied. Returns the stored user.
   * @throws TxmonError `CONCURRENT_UPDATE` when the event id is taken or the user already has an
   *   event of this `arrival` (nothing is written then)
   */
  saveUserEvent(outcome: { event: StoredUserEvent; now: number } & UserRuleWrites & AuditWrites): Promise<StoredUser>;
}

/** Comments on users, cases and alerts. */
export interface CommentRepository {
  /** Stores `comment` on `target`, and appends `writes.audit` in the same atomic step. */
  addComment(target: CommentTarget, comment: Comment, writes?: AuditWrites): Promise<void>;
  listComments(target: CommentTarget): Promise<Comment[]>;
}

/** What alerts and cases are sorted by in a page: a time, the priority (`P1` first ascending), or the id alone. */
export type WorkflowSortKey = 'createdTimestamp' | 'updatedAt' | 'priority' | 'id';

/** Where a page starts: strictly after the item with this sort value and id (in the query's order). */
export interface PageKey {
  /** The item's sort value: a number for the times, `P1`…`P4` for priority, the id for `id`. */
  readonly value: number | string;
  readonly id: string;
}

/** The filters and order of a page of cases (each filter optional; absent: everything). */
export interface CasePageQuery {
  /** Any of these statuses. */
  readonly statuses?: readonly CaseStatus[];
  readonly priority?: CasePriority;
  /** `createdTimestamp >= createdFrom`. */
  readonly createdFrom?: number;
  /** `createdTimestamp <= createdTo`. */
  readonly createdTo?: number;
  /** Cases with an alert of this user (its first user, or one that joined it). */
  readonly userId?: string;
  /** The sort key; ties are broken by id, in the same direction. */
  readonly sortBy: WorkflowSortKey;
  readonly sortOrder: 'asc' | 'desc';
  /** Keyset: only items after this one in (sort value, id) order; absent: from the first. */
  readonly after?: PageKey;
  /** At most this many items (1..100). */
  readonly limit: number;
}

/** The filters and order of a page of alerts: those of cases, plus the rule instance. */
export interface AlertPageQuery extends CasePageQuery {
  /** Alerts of this rule instance. */
  readonly ruleInstanceId?: string;
  /** Alerts on this user. */
  readonly userId?: string;
}

/** One page as a store answers it. */
export interface StorePage<T> {
  /** Up to `limit` items after `after`, in the query's order. */
  readonly items: T[];
  /** Whether more items follow the last one. */
  readonly hasNext: boolean;
  /** How many items match the filters in all (every page, `after` ignored). */
  readonly count: number;
}

/**
 * A workflow change (a status move, a priority or assignment update) written as ONE atomic step:
 * the fields of each patch replace the stored ones (the others, and an alert's transactions or a
 * case's alerts, are kept), and the comments are added. The engine runs it holding the keys of the
 * users involved (`u:<userId>`, as their transactions do), so a concurrent hit lands wholly before
 * or wholly after it.
 */
export interface WorkflowWrite extends AuditWrites {
  /**
   * The case's patch and, when it closes the case, `openAlertsPatch`: applied to every alert of the
   * case that is not `CLOSED` when the write runs (an alert that joined the case a moment before
   * is closed with it; the store serialises this with the hits that add alerts to the case).
   */
  readonly case?: { readonly caseId: string; readonly patch: CaseWorkflowPatch; readonly openAlertsPatch?: AlertWorkflowPatch };
  readonly alerts: readonly { readonly alertId: string; readonly patch: AlertWorkflowPatch }[];
  readonly comments: readonly { readonly target: CommentTarget; readonly comment: Comment }[];
  /**
   * The status changes' decision texts (`statusDecisionOf`), appended to the decision log in the
   * same atomic write, last (as an outcome's decision is).
   */
  readonly decisions: readonly string[];
}

/** Alerts and cases (written through {@link TransactionRepository.saveOutcome}, and the user saves' {@link UserRuleWrites}). */
export interface CaseRepository {
  getAlert(alertId: string): Promise<Alert | null>;
  /** Every alert, in creation order. */
  listAlerts(): Promise<Alert[]>;
  getCase(caseId: string): Promise<Case | null>;
  /** Every case, in creation order. */
  listCases(): Promise<Case[]>;
  /**
   * One page of alerts (keyset: an item present when the first page was read is neither skipped nor
   * repeated by later pages while others are added, as long as its sort value does not change).
   */
  pageAlerts(query: AlertPageQuery): Promise<StorePage<Alert>>;
  /** One page of cases, as {@link pageAlerts}. */
  pageCases(query: CasePageQuery): Promise<StorePage<Case>>;
  /**
   * Applies a {@link WorkflowWrite} atomically: all of it, or nothing.
   * @throws TxmonError `ALERT_NOT_FOUND` / `CASE_NOT_FOUND` when a patched alert or case is not stored (nothing is written then)
   */
  saveWorkflow(write: WorkflowWrite): Promise<void>;
}

/** Upload slots and the bytes stored through them. */
export interface FileRepository {
  putFile(record: FileRecord): Promise<void>;
  getFile(key: string): Promise<FileRecord | null>;
  /**
   * Stores the bytes of upload slot `key` once, read from `content` as they arrive (so an adapter
   * can write them out without holding the whole file), and returns the slot as stored:
   * `uploaded: true` and `size`. All or nothing: when `content` fails or passes `maxBytes`, nothing
   * is stored and the slot can be used again.
   * @throws TxmonError `FILE_NOT_FOUND` for an unknown key; `FILE_ALREADY_UPLOADED` when the slot's
   *   bytes are stored or being stored; `PAYLOAD_TOO_LARGE` past `maxBytes`; or the error `content` throws.
   */
  putFileContent(key: string, content: AsyncIterable<Uint8Array>, maxBytes: number): Promise<FileRecord>;
  getFileContent(key: string): Promise<Uint8Array | null>;
}

/** Windowed aggregates (written through {@link TransactionRepository.saveOutcome}). */
export interface AggregateRepository {
  queryAggregates(queries: readonly AggregateQuery[]): Promise<AggregateValue[]>;
  /** Every entry of one series key, ordered (for conformance tests and brute-force checks). */
  listEntries(series: string, key: string): Promise<readonly SeriesEntry[]>;
  /**
   * Drops, for each series in `horizons`, every entry (of every key) whose timestamp is below the
   * series' horizon, and records that horizon (see {@link AggregateRepository.getRetentionHorizons});
   * returns how many entries went. Only windowed entries go: transactions are kept.
   */
  pruneSeries(horizons: ReadonlyMap<string, number>): Promise<number>;
  /**
   * For each series pruned since it was last replaced whole, the highest horizon passed to
   * {@link AggregateRepository.pruneSeries}: queries starting before it miss the pruned history.
   */
  getRetentionHorizons(): Promise<ReadonlyMap<string, number>>;
  /**
   * Atomically replaces every entry of `series` (all keys) with `entries` (each must name
   * `series`), and forgets its prune horizon; `[]` drops the series. Used to build and drop
   * derived (filtered) series, and to refill a pruned series whole.
   * @throws TxmonError `VALIDATION_FAILED` when an entry names another series or has a non-finite
   *   timestamp (nothing changes then)
   */
  replaceSeries(series: string, entries: readonly SeriesEntry[]): Promise<void>;
}

/** One value to look up in a list: found only when the list has this type and subtype and holds the value. */
export interface ListProbe {
  readonly listType: 'BLACKLIST' | 'WHITELIST';
  readonly subtype: ListSubtype;
  readonly value: string;
}

/** Blacklists and whitelists. */
export interface ListRepository {
  getList(listId: string): Promise<StoredList | null>;
  /** Every list without its items (with their count), in creation order. */
  listLists(): Promise<ListSummary[]>;
  /** Creates or replaces a whole list, and appends `writes.audit`, as one atomic step. */
  putList(list: StoredList, writes?: AuditWrites): Promise<void>;
  /** @returns whether the list existed (only then are `writes.audit` appended, in the same atomic step). */
  deleteList(listId: string, writes?: AuditWrites): Promise<boolean>;
  /**
   * For each probe, whether list `listId` exists, has the probe's list type and subtype and holds its value
   * (exact, case-sensitive). An unknown list answers `false` for every probe. Answers in probe order.
   */
  lookupListItems(listId: string, probes: readonly ListProbe[]): Promise<boolean[]>;
}

/** What a batch carries (each kind has its own batch ids): `POST /batch/transactions`, `/batch/events/transaction`, `/batch/consumer/users`, `/batch/business/users`. */
export type BatchKind = 'TRANSACTION' | 'TRANSACTION_EVENT' | 'CONSUMER_USER' | 'BUSINESS_USER' | 'CONSUMER_USER_EVENT' | 'BUSINESS_USER_EVENT';

/** The answer to a batch (`BatchResponse` of the interface document). */
export interface BatchResponse {
  /** `SUCCESS` when every record was stored, `FAILURE` when none was, else `PARTIAL_FAILURE`. */
  status: 'SUCCESS' | 'PARTIAL_FAILURE' | 'FAILURE';
  batchId: string;
  successful: number;
  failed: number;
  /** The refused records, in batch order: the record's id (when it has a string one) and the error code. */
  failedRecords?: { id?: string; reasonCode: string }[];
  message?: string;
}

/** A processed batch as stored: what answers a replay of it and its `GET …/{batchId}`. */
export interface StoredBatch {
  kind: BatchKind;
  batchId: string;
  /** A digest of the request (mode and records): the same batch id with another digest is a conflict. */
  fingerprint: string;
  response: BatchResponse;
  /** The ids of the records stored (or replayed), in batch order, each once: what the results page through. */
  recordIds: string[];
  createdAt: number;
}

/** Processed batches. */
export interface BatchRepository {
  getBatch(kind: BatchKind, batchId: string): Promise<StoredBatch | null>;
  /**
   * Stores `batch` unless a batch of its kind and id is stored already, and returns the one stored
   * then (`batch`, or the earlier one: the first writer wins).
   */
  putBatch(batch: StoredBatch): Promise<StoredBatch>;
}

/**
 * The audit entries a write appends (docs/audit.md): every repository write that changes an entity
 * through the API takes them and stores them in the SAME atomic step as the change (memory: applied
 * together, after one budget reservation for both; SQL: in the same database transaction, after the
 * change's own statements). Entries get their place in the log (a sequence number, in the order the
 * writes commit) from the store. A write that fails appends nothing.
 */
export interface AuditWrites {
  /** Entries to append with the change, in order (built with `buildAuditEntry`). */
  readonly audit?: readonly AuditEntry[];
  /** Messages to append to the {@link OutboxRepository outbox} with the change, in order, last. */
  readonly outbox?: readonly OutboxMessage[];
}

/** An audit entry with its place in the log: a number that grows with every entry appended, in commit order. */
export interface StoredAuditEntry {
  readonly seq: number;
  readonly entry: AuditEntry;
}

/** What {@link AuditRepository.listAuditEntries} reads: every filter given must hold. */
export interface AuditEntryQuery {
  readonly entityType?: AuditEntityType;
  readonly entityId?: string;
  readonly action?: AuditAction;
  readonly actor?: string;
  /** `timestamp` ≥ this. */
  readonly fromTimestamp?: number;
  /** `timestamp` ≤ this. */
  readonly toTimestamp?: number;
  /** Only entries past this position: `seq` > it ascending, `seq` < it descending (absent: from the start). */
  readonly position?: number;
  readonly order: 'ASC' | 'DESC';
  /** Most entries to return (at least 1). */
  readonly limit: number;
}

/** The audit log (written through the {@link AuditWrites} of the writes that change entities). */
export interface AuditRepository {
  /**
   * The entries matching `query`'s filters past its position, in `seq` order (`order`), at most
   * `limit`; and `total`, how many entries match the filters wherever they are, counted up to
   * `MAX_AUDIT_COUNT` (10,000: a read never counts more). An entry written
   * after a read has a greater `seq` than every entry that read could see (the store numbers them
   * in commit order), so paging by `seq` never skips or repeats one.
   */
  listAuditEntries(query: AuditEntryQuery): Promise<{ entries: StoredAuditEntry[]; total: number }>;
}

/** Capabilities of a repository set, declared rather than guessed; the engine reads them. */
export interface RepositoryFlags {
  /** Data survives a restart of the process. */
  readonly durable: boolean;
  /**
   * Several engine processes may use the store at once. The repositories then provide
   * {@link Repositories.runExclusive}, and the engine runs every transaction, event and rule-instance
   * write as one exclusive unit of work through it — so N processes answer exactly what one
   * answers — and keeps every built-in aggregate series, with entry values, at all times (a series
   * filled on demand in one process could miss what another process writes meanwhile).
   */
  readonly sharedAcrossProcesses: boolean;
  /**
   * The repositories report their own faults: a store that cannot be reached or answers too late
   * rejects with a `TxmonError` (`STORE_UNAVAILABLE`, `STORE_TIMEOUT`), and any other error they
   * throw is a bug. txmon's memory and PostgreSQL repositories do. Without this flag the engine
   * reports any error a repository throws that is not a `TxmonError` as `STORE_UNAVAILABLE` (503,
   * the cause kept for the log).
   */
  readonly reportsStoreFaults?: boolean;
}

/** Options of {@link Repositories.runExclusive}. */
export interface ExclusiveUnitOptions {
  /** Keys held shared: any number of units may hold one at once, but none while a unit holds it exclusively. */
  readonly sharedKeys?: readonly string[];
  /**
   * What the work reads first. A hint: the work still reads through the repositories, and an
   * adapter may ignore it; a database adapter reads these while taking the locks (one round trip)
   * and answers the work's first reads of them from there.
   */
  readonly prefetch?: UnitPrefetch;
}

/** See {@link ExclusiveUnitOptions.prefetch}. */
export interface UnitPrefetch {
  /** `transactions.getTransaction(transactionId)`. */
  readonly transactionId?: string;
  /** `transactions.getEvent(eventId)`. */
  readonly eventId?: string;
  /** `users.getUsers(userIds)`, with these ids. */
  readonly userIds?: readonly string[];
}

/**
 * The decision log (domain/decision-log.ts): one hash chain of every stored decision, appended to
 * by {@link TransactionRepository.saveOutcome} and `saveOutcomes` in the same atomic write as the
 * decision, in the order the writes commit (one chain for all processes of a shared store). Read
 * only to verify it.
 */
export interface DecisionLogRepository {
  /** The stored rows with a position above `afterSeq`, in position order, at most `limit`. */
  readDecisions(afterSeq: number, limit: number): Promise<DecisionLogRow[]>;
  /**
   * The position and hash of the last entry appended, as the store keeps them (updated in the same
   * write as each append); `null` when the store has lost its head record.
   */
  decisionHead(): Promise<DecisionLogHead | null>;
}

/**
 * A reader of the outbox: how far it has read and acknowledged, and — while it is delivering — who
 * holds it. One reader (a webhook, a host's subscription) is one consumer name; the processes
 * sharing a store take turns on it by lease.
 */
export interface OutboxConsumer {
  readonly name: string;
  /** The last position acknowledged (0: none). */
  readonly position: number;
  /** Failed attempts at the message after `position`. */
  readonly attempts: number;
  /** When the message after `position` may be tried again (epoch ms), `null` at once. */
  readonly nextAttemptAt: number | null;
  /** The last failure's text, `null` after a success. */
  readonly lastError: string | null;
  /** Who holds the lease, `null` when no one ever took it. */
  readonly owner: string | null;
  /** Until when (epoch ms) the lease holds. */
  readonly leaseUntil: number;
  /** How many messages were given up on (dead letters). */
  readonly deadLetters: number;
}

/** A message given up on by a consumer after its retries, with the last failure. */
export interface OutboxDeadLetter {
  readonly consumer: string;
  readonly seq: number;
  readonly attempts: number;
  readonly lastError: string;
  /** When it was given up on (epoch ms). */
  readonly deadAt: number;
}

/** How a lease holder moves its consumer on (see {@link OutboxRepository.advanceConsumer}). */
export interface OutboxAdvance {
  /** The new acknowledged position (never below the stored one). */
  readonly position?: number;
  readonly attempts?: number;
  readonly nextAttemptAt?: number | null;
  readonly lastError?: string | null;
  /** The message at `position` was given up on: recorded as a dead letter in the same write. */
  readonly deadLetter?: { readonly seq: number; readonly attempts: number; readonly lastError: string; readonly deadAt: number };
}

/**
 * The outbox (domain/outbox.ts): messages appended by the writes that carry them (`outbox` of
 * {@link TransactionOutcome} and {@link AuditWrites}) in the same atomic step, numbered in the order
 * the writes commit (on a shared store, one numbering for all processes: a reader never sees a
 * message numbered below one it has seen); and its consumers' positions, leases and dead letters.
 */
export interface OutboxRepository {
  /** The messages with a position above `afterSeq`, in position order, at most `limit`. */
  readOutbox(afterSeq: number, limit: number): Promise<StoredOutboxMessage[]>;
  /** The last position appended (0 when none). */
  outboxHead(): Promise<number>;
  /** Every consumer, by name. */
  listConsumers(): Promise<OutboxConsumer[]>;
  getConsumer(name: string): Promise<OutboxConsumer | null>;
  /**
   * Takes or renews the lease of consumer `name` (created at position `startAt` when unknown) for
   * `owner` until `now + leaseMs`: granted when no one holds it, its lease ran out before `now`, or
   * `owner` holds it. Returns the consumer when granted, `null` when another owner holds it.
   */
  claimConsumer(name: string, owner: string, now: number, leaseMs: number, startAt: number): Promise<OutboxConsumer | null>;
  /**
   * Applies `advance` to consumer `name` when `owner` holds its lease (else nothing, `false`), with
   * the dead letter it names in the same atomic step.
   */
  advanceConsumer(name: string, owner: string, advance: OutboxAdvance): Promise<boolean>;
  /** Ends `owner`'s lease of `name` (another may take it at once). */
  releaseConsumer(name: string, owner: string): Promise<void>;
  /** Consumer `name`'s dead letters with a position above `afterSeq`, in position order, at most `limit`. */
  listDeadLetters(name: string, afterSeq: number, limit: number): Promise<OutboxDeadLetter[]>;
}

/** The persistence a txmon engine runs on. */
export interface Repositories {
  readonly transactions: TransactionRepository;
  readonly ruleInstances: RuleInstanceRepository;
  readonly users: UserRepository;
  readonly comments: CommentRepository;
  readonly cases: CaseRepository;
  readonly files: FileRepository;
  readonly aggregates: AggregateRepository;
  readonly lists: ListRepository;
  readonly batches: BatchRepository;
  readonly decisions: DecisionLogRepository;
  readonly audit: AuditRepository;
  readonly outbox: OutboxRepository;
  readonly flags: RepositoryFlags;
  /**
   * One round trip to the store (a database's `SELECT 1`): resolves when it answers, rejects when it
   * is unreachable. What a readiness check (`/readyz`) asks; absent for a store in the process.
   */
  ping?(): Promise<void>;
  /**
   * Runs `work` as one unit: all its reads and writes go through the repositories it receives and
   * commit together (or not at all when it throws), while it holds `keys` exclusively — against
   * every other unit of every process on the same store — and `options.sharedKeys` shared. Keys
   * are taken in a fixed order, so units never deadlock. Required when
   * `flags.sharedAcrossProcesses`; absent otherwise.
   */
  runExclusive?<T>(keys: readonly string[], work: (repositories: Repositories) => Promise<T>, options?: ExclusiveUnitOptions): Promise<T>;
  /**
   * Opens a {@link BatchSession}: keys held across several writes, so a batch can keep what it
   * read of its users between its chunks and write one chunk while it evaluates the next. Optional
   * (a store shared across processes without it runs a batch as one unit per chunk); resolves to
   * `null` when the store cannot open one now (e.g. a pool of one connection).
   */
  openBatchSession?(): Promise<BatchSession | null>;
}

/**
 * Keys held by one batch across several writes, against every unit and session of every process.
 * Its reads see what is committed; its writes run one after the other, each one atomic write of
 * its own; `close` lets every key go (so does the end of the process).
 */
export interface BatchSession {
  /**
   * Takes `keys` (exclusively) and `sharedKeys` (shared), waiting for them. Call it only while
   * holding no key of this session but shared ones taken the same way: then it cannot deadlock.
   */
  lock(keys: readonly string[], sharedKeys?: readonly string[]): Promise<void>;
  /**
   * Takes `keys` exclusively without waiting: `true` when all were free (now held), `false` when
   * one was not (then none of them is held). Never call it for a key this session holds.
   */
  tryLock(keys: readonly string[]): Promise<boolean>;
  /** Lets `keys` go (keys this session holds, each once). */
  unlock(keys: readonly string[]): Promise<void>;
  /** Reads of committed data (a write of this session is seen once its promise resolved). */
  readonly reads: Repositories;
  /**
   * Runs `work` as one atomic write (its reads see the writes before it); writes run in the order
   * they are asked for, beside the session's reads. It holds no key of its own: the session's keys
   * are what stands between it and other writers.
   */
  write<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Lets every key go and returns the connections; after a failure, drops them. Idempotent. */
  close(failed?: boolean): Promise<void>;
}

export type {
  Alert,
  Case,
  Comment,
  CommentFileLink,
  CommentTarget,
  ListSummary,
  MonitoringResult,
  RuleInstance,
  StoredList,
  UserType,
} from '../domain/entities.js';
export type { StoredUser, UserRuleResults } from '../domain/entities.js';
export type { AlertHit } from '../domain/case-policy.js';
export type { UserUpdate } from '../domain/user-update.js';
export type { OutboxMessage, OutboxMessageType, StoredOutboxMessage } from '../domain/outbox.js';
