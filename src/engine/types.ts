/**
 * What the engine is to its callers: the `Engine` interface (every endpoint of the interface
 * document as an async method), the shapes it answers with, and the clock and id ports it runs on.
 */
import type { BusinessUser, ConsumerUser, RiskLevel, Transaction, TransactionEvent } from '../domain/index.js';
import type { Alert, Case, CommentFileLink, ListSummary, MonitoringResult, RuleInstance, StoredList, UserType } from '../domain/entities.js';
import type { Repositories } from '../repositories/types.js';
import type { RuleView } from '../rules/types.js';

/** A source of time (epoch ms). Inject a fixed clock in tests. */
export interface Clock {
  now(): number;
}

/** Kinds of ids the engine generates. */
export type IdKind = 'event' | 'ruleInstance' | 'alert' | 'case' | 'comment' | 'file';

/** A source of unique ids. Inject a deterministic one in tests. */
export interface IdGenerator {
  next(kind: IdKind): string;
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

/** Response of {@link Engine.createUser}. */
export interface UserMonitoringResult {
  userId: string;
  executedRules: [];
  hitRules: [];
  riskScoreDetails?: { craRiskScore?: number; craRiskLevel?: RiskLevel };
}

/** A user as {@link Engine.getUser} returns it: the profile plus its type and risk. */
export type UserView = (ConsumerUser | BusinessUser) & {
  type: UserType;
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

/** The txmon engine: every endpoint of the interface as an async method. */
export interface Engine {
  createTransaction(input: unknown): Promise<TransactionMonitoringResult>;
  getTransaction(transactionId: string): Promise<TransactionWithRulesResult>;
  createTransactionEvent(input: unknown): Promise<TransactionEventMonitoringResult>;
  getTransactionEvent(eventId: string): Promise<TransactionEventWithRulesResult>;
  createUser(input: unknown, options?: { type?: UserType }): Promise<UserMonitoringResult>;
  getUser(userId: string, options?: { type?: UserType }): Promise<UserView>;
  createUserComment(userId: string, input: unknown): Promise<CommentView>;
  createCaseComment(caseId: string, input: unknown): Promise<CommentView>;
  createAlertComment(alertId: string, input: unknown): Promise<CommentView>;
  createRuleInstance(input: unknown): Promise<RuleInstance>;
  getRuleInstance(id: string): Promise<RuleInstance>;
  listRuleInstances(): Promise<RuleInstance[]>;
  updateRuleInstance(id: string, input: unknown): Promise<RuleInstance>;
  deleteRuleInstance(id: string): Promise<void>;
  listRules(): Promise<RuleView[]>;
  getRule(ruleId: string): Promise<RuleView>;
  getRuleFiltersSchema(): Promise<Record<string, unknown>>;
  /**
   * Creates or replaces list `listId` (a blacklist or whitelist of one subtype) that R-132 and the
   * `whitelistUsers.listIds` filter look values up in. Items are de-duplicated.
   * @throws TxmonError `VALIDATION_FAILED` naming the path (`/items/3`, `/subtype` …)
   */
  putList(listId: string, input: unknown): Promise<StoredList>;
  /** @throws TxmonError `LIST_NOT_FOUND` */
  getList(listId: string): Promise<StoredList>;
  /** Every list, without items. */
  listLists(): Promise<ListSummary[]>;
  /** @throws TxmonError `LIST_NOT_FOUND` */
  deleteList(listId: string): Promise<void>;
  createUpload(input: unknown): Promise<UploadSlot>;
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
  listAlerts(): Promise<Alert[]>;
  getAlert(alertId: string): Promise<Alert>;
  listCases(): Promise<Case[]>;
  getCase(caseId: string): Promise<Case>;
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
  /** The repositories the engine runs on (for hosts and tests). */
  readonly repositories: Repositories;
}
