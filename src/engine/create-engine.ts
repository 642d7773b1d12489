import type { SeriesEntry } from '../aggregation/aggregate-store.js';
import {
  SCHEMA_LIMITS,
  isIdText,
  BusinessUserSchema,
  CommentRequestSchema,
  ConsumerUserSchema,
  ListRequestSchema,
  PresignedUrlRequestSchema,
  TransactionEventSchema,
  TransactionSchema,
} from '../domain/index.js';
import type {
  BusinessUser,
  ConsumerUser,
  RiskLevel,
  Transaction,
  TransactionEvent,
} from '../domain/index.js';
import { createFixedRateProvider, type RateProvider } from '../domain/money.js';
import { TxmonError, isTxmonError, limitExceeded } from '../errors.js';
import { compileLogic } from '../logic/index.js';
import { createMemoryRepositories } from '../repositories/memory/index.js';
import type {
  Alert,
  AlertHit,
  Case,
  Comment,
  CommentFileLink,
  CommentTarget,
  MonitoringResult,
  Repositories,
  RuleInstance,
  StoredEvent,
  StoredRuleInstance,
  StoredList,
  ListSummary,
  StoredTransaction,
  StoredUser,
  TransactionOutcome,
  UserType,
  UserUpdate,
} from '../repositories/types.js';
import { compileHistoricalFilters, compileRuleFilters, hasActiveFilters, whitelistListIds } from '../rules/filters.js';
import { getRuleFiltersSchemaJson, type RuleFilters } from '../domain/schemas/rule-filters.js';
import { compileAggregationVariables, createCustomLogicRule } from '../rules/aggregation-variables.js';
import { createRuleRegistry } from '../rules/registry.js';
import {
  SERIES_NAMES,
  contributionRefsOf,
  contributionsOf,
  createDerivedSeries,
  type DerivedSeries,
  type SeriesName,
} from '../rules/series.js';
import type { AggregateNeed, AnyRuleDefinition, LookupNeed, MoneyContext, RuleDefinition, RuleUser, RuleView } from '../rules/types.js';
import { appendPointer, copySafeJson, copySafeJsonSized, createValidator, measureJsonSize } from '../validation/index.js';
import { applyTransactionEvent, assertNoReservedFields, foldTransactionEvents, initialTransaction } from './apply-event.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { cloneJson, deepFreeze } from '../domain/json.js';
import {
  planRuleInstances,
  evaluateRuleInstances,
  mergeCurrentContribution,
  type EvaluationInput,
  type InstanceOutcome,
  type PreparedInstance,
} from './evaluate.js';
import { DEFAULT_TRANSITIONS, type TransitionTable } from './lifecycle.js';
import { DEFAULT_ENGINE_LIMITS, assertSizeWithin, resolveEngineLimits, type EngineLimits } from './limits.js';
import { CUSTOM_RULE_ID, buildRuleInstance } from './rule-instances.js';
import { computeTransactionRisk, validateRiskConfiguration, type RiskFactor } from './risk.js';
import { DEFAULT_RISK_BANDS, nextCraScore, riskLevelScore, scoreToRiskLevel, type RiskBands } from '../domain/risk-score.js';
import { createUrlSigner, randomSecret } from './url-signer.js';

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

/** Options of {@link createEngine}; every one is optional. */
export interface EngineOptions {
  /** Persistence; default {@link createMemoryRepositories}(). */
  readonly repositories?: Repositories;
  /** Default: `Date.now`. */
  readonly clock?: Clock;
  /** Default: random UUIDs (alerts `A-…`, cases `C-…`). */
  readonly ids?: IdGenerator;
  /** Extra rules (templates) beside the library; ids must not clash. */
  readonly rules?: readonly AnyRuleDefinition[];
  /** Transaction lifecycle table; default {@link DEFAULT_TRANSITIONS}. */
  readonly transitions?: TransitionTable;
  /** Risk level for users without one, used to pick parameters and actions. Default `VERY_HIGH`. */
  readonly defaultRiskLevel?: RiskLevel;
  /** Currency in which windowed sums are kept. Default `USD`. */
  readonly baseCurrency?: string;
  /**
   * Aggregate series kept even when no active instance reads them (`'all'` = every built-in
   * series). By default a series is kept only while an active instance reads it, and filled from
   * the stored transactions when an instance starts reading it (D-125): keep series here to make
   * that fill unnecessary, e.g. when instances come and go over a long history.
   */
  readonly maintainSeries?: 'all' | readonly SeriesName[];
  /** Currency conversion; default the fixed, dated table of `createFixedRateProvider()`. */
  readonly rates?: RateProvider;
  /** Largest `fileSize` accepted by `createUpload`. Default 100,000,000 bytes. */
  readonly maxUploadBytes?: number;
  /** Lifetime of upload and download URLs. Default 15 minutes. */
  readonly urlTtlMs?: number;
  /** Prefix of upload/download URLs, e.g. `https://txmon.example.com/v1`. Default `''` (relative). */
  readonly publicBaseUrl?: string;
  /** Secret for URL signatures (≥ 16 bytes). Default: 32 random bytes per engine. */
  readonly urlSigningSecret?: Uint8Array;
  /**
   * Transaction risk factors (weighted average → `riskScoreDetails.trsScore`). Default: none, so
   * results carry no TRS and CRAs do not move until the host configures its risk model.
   */
  readonly riskFactors?: readonly RiskFactor[];
  /** Score bands of the five risk levels; default [0,20) [20,40) [40,60) [60,80) [80,100]. */
  readonly riskBands?: RiskBands;
  /** What clients may make this engine hold or compute; each absent limit keeps its default ({@link DEFAULT_ENGINE_LIMITS}). */
  readonly limits?: Partial<EngineLimits>;
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
  /** The repositories the engine runs on (for hosts and tests). */
  readonly repositories: Repositories;
}

const MAX_RETRIES = 5;

// Inputs pass copySafeJson (the JSON safety check and a deep copy in one pass) first, so these
// validators skip their own check.
const validateTransaction = createValidator(TransactionSchema, { what: 'transaction', safeJson: false });
const validateEvent = createValidator(TransactionEventSchema, { what: 'transaction event', safeJson: false });
const validateConsumer = createValidator(ConsumerUserSchema, { what: 'consumer user', safeJson: false });
const validateBusiness = createValidator(BusinessUserSchema, { what: 'business user', safeJson: false });
const validateComment = createValidator(CommentRequestSchema, { what: 'comment', safeJson: false });
const validateUpload = createValidator(PresignedUrlRequestSchema, { what: 'upload request', safeJson: false });
const validateListRequest = createValidator(ListRequestSchema, { what: 'list', safeJson: false });
const validateList = (input: unknown) => validateListRequest(copySafeJson(input));

function defaultIds(): IdGenerator {
  return {
    next(kind) {
      const uuid = globalThis.crypto.randomUUID();
      if (kind === 'alert') return `A-${uuid}`;
      if (kind === 'case') return `C-${uuid}`;
      return uuid;
    },
  };
}

/**
 * An id read from a path or an argument, under the same rule as an id in a body ({@link IdSchema}):
 * 1 to {@link SCHEMA_LIMITS.ID_MAX_LENGTH} characters counted as code points, well-formed text.
 */
function assertId(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || !isIdText(value)) {
    const message = `${what} must be 1 to ${SCHEMA_LIMITS.ID_MAX_LENGTH} characters of well-formed text`;
    throw new TxmonError('VALIDATION_FAILED', `Invalid request: ${message}`, [{ path: '', code: 'type', message }]);
  }
}

/**
 * Refuses any array inside `value` (checked JSON) with more than `max` items: `LIMIT_EXCEEDED`
 * (`maxParameterItems`) at the array's path.
 */
function assertListsWithin(value: unknown, path: string, max: number): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (value.length > max) throw limitExceeded('maxParameterItems', max, 'the items of this list', path);
    value.forEach((item, i) => assertListsWithin(item, `${path}/${i}`, max));
    return;
  }
  for (const [key, item] of Object.entries(value)) assertListsWithin(item, appendPointer(path, key), max);
}

/**
 * Serialises async work per key within this process. A call takes several keys, always acquired in
 * sorted order, so two calls can never wait for each other in a cycle. Uncontended (the usual case)
 * a key costs no allocation and no microtask hop; a contended caller waits in a FIFO queue.
 */
function createKeyedLock() {
  // key → waiters; a held key without waiters maps to the shared empty list (no allocation).
  const NO_WAITERS: (() => void)[] = [];
  const queues = new Map<string, (() => void)[]>();
  const acquire = (key: string): Promise<void> | undefined => {
    let queue = queues.get(key);
    if (queue === undefined) {
      queues.set(key, NO_WAITERS);
      return undefined;
    }
    if (queue === NO_WAITERS) {
      queue = [];
      queues.set(key, queue);
    }
    const waiters = queue;
    return new Promise<void>((resolve) => waiters.push(resolve));
  };
  const release = (key: string): void => {
    const queue = queues.get(key);
    const next = queue === undefined || queue === NO_WAITERS ? undefined : queue.shift();
    if (next) next();
    else queues.delete(key);
  };
  return async function withLocks<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    let held = 0;
    try {
      for (; held < keys.length; held++) {
        const wait = acquire(keys[held] as string);
        if (wait) await wait;
      }
      return await fn();
    } finally {
      for (let i = held - 1; i >= 0; i--) release(keys[i] as string);
    }
  };
}

/**
 * The lock keys of work on a transaction: the transaction and each of its users. Per-user keys
 * make concurrent transactions of one user evaluate one after the other, so each sees the
 * others in its windows (a split payment cannot slip under a volume rule by arriving in parallel).
 */
function lockKeys(transactionId: string, originUserId: string | undefined, destinationUserId: string | undefined): string[] {
  // 't' < 'u': the transaction key always sorts first, so only the user keys need ordering (no
  // Array#sort: it allocates a work array on every call).
  const keys = [`t\u0000${transactionId}`];
  const origin = originUserId ? `u\u0000${originUserId}` : null;
  const destination = destinationUserId && destinationUserId !== originUserId ? `u\u0000${destinationUserId}` : null;
  if (origin !== null && destination !== null) {
    if (origin < destination) keys.push(origin, destination);
    else keys.push(destination, origin);
  } else if (origin !== null) keys.push(origin);
  else if (destination !== null) keys.push(destination);
  return keys;
}

function toRuleUser(user: StoredUser | null | undefined, whitelists?: ReadonlySet<string>): RuleUser | null {
  if (!user) return null;
  const manual = (user.profile as { riskLevel?: RiskLevel } | null)?.riskLevel;
  const view: RuleUser = {
    userId: user.userId,
    type: user.type,
    profile: user.profile as Record<string, unknown> | null,
    riskLevel: manual ?? user.craRiskLevel ?? null,
    craScore: user.craScore,
  };
  return whitelists === undefined ? view : { ...view, whitelists };
}

function ignore(): void {}

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/**
 * The instance as the engine runs it: a copy whose parameters are frozen copies, so rules may cache
 * what they derive from them (e.g. parsed thresholds) by identity. The repository's own objects are
 * left as they are (an adapter may reuse or change them).
 */
function withFrozenParameters(stored: RuleInstance): RuleInstance {
  // Object.assign, not a spread plus new keys: one hidden class for every prepared instance.
  const copy: RuleInstance = Object.assign({}, stored);
  copy.parameters = deepFreeze(cloneJson(stored.parameters));
  if (stored.riskLevelParameters !== undefined) copy.riskLevelParameters = deepFreeze(cloneJson(stored.riskLevelParameters));
  return copy;
}

/**
 * The series `instance` reads: what its rule's `seriesFor` says for each of its parameter sets
 * (the base parameters and every per-risk-level set), or all of the rule's series when the rule
 * does not say or the instance has no parameters. Never more than the rule declares.
 */
export function seriesReadBy(rule: AnyRuleDefinition | null, instance: RuleInstance): readonly SeriesName[] {
  if (rule === null) return [];
  const seriesFor = rule.seriesFor;
  if (seriesFor === undefined || instance.parameters === undefined) return rule.series;
  const read = new Set<SeriesName>(seriesFor.call(rule, instance.parameters));
  const perLevel = instance.riskLevelParameters;
  if (perLevel !== undefined) {
    for (const level of Object.keys(perLevel) as (keyof typeof perLevel)[]) {
      const parameters = perLevel[level];
      if (parameters === undefined) continue;
      for (const series of seriesFor.call(rule, parameters)) read.add(series);
    }
  }
  return rule.series.filter((series) => read.has(series));
}

/** The result part of a response: the rule results are deeply frozen, so they are shared, not copied. */
function resultOf(result: MonitoringResult): MonitoringResult {
  if (result.riskScoreDetails) {
    return { executedRules: result.executedRules, hitRules: result.hitRules, status: result.status, riskScoreDetails: { ...result.riskScoreDetails } };
  }
  return { executedRules: result.executedRules, hitRules: result.hitRules, status: result.status };
}

/**
 * Creates a txmon engine. Everything is optional: with no options it runs on in-memory
 * repositories with the system clock and random ids.
 *
 * @throws TxmonError `INVALID_CONFIGURATION` for clashing rule ids or a short signing secret.
 * @example
 * ```ts
 * import { createEngine } from 'txmon';
 * const engine = createEngine();
 * await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
 * const result = await engine.createTransaction({ type: 'TRANSFER', transactionId: 't-1', timestamp: Date.now(),
 *   originUserId: 'u-1', originAmountDetails: { transactionAmount: 12000, transactionCurrency: 'EUR' } });
 * result.status; // 'SUSPEND'
 * ```
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const repos = options.repositories ?? createMemoryRepositories();
  const clock = options.clock ?? { now: () => Date.now() };
  const ids = options.ids ?? defaultIds();
  const registry = createRuleRegistry(options.rules ?? []);
  const transitions = options.transitions ?? DEFAULT_TRANSITIONS;
  const defaultRiskLevel: RiskLevel = options.defaultRiskLevel ?? 'VERY_HIGH';
  const money: MoneyContext = {
    rates: options.rates ?? createFixedRateProvider(),
    baseCurrency: options.baseCurrency ?? 'USD',
  };
  const maxUploadBytes = options.maxUploadBytes ?? 100_000_000;
  const urlTtlMs = options.urlTtlMs ?? 15 * 60 * 1000;
  const publicBaseUrl = (options.publicBaseUrl ?? '').replace(/\/+$/, '');
  if (options.urlSigningSecret !== undefined && options.urlSigningSecret.length < 16) {
    throw new TxmonError('INVALID_CONFIGURATION', 'createEngine: urlSigningSecret must have at least 16 bytes');
  }
  const signer = createUrlSigner(options.urlSigningSecret ?? randomSecret());
  const riskFactors = options.riskFactors ?? [];
  const riskBands = options.riskBands ?? DEFAULT_RISK_BANDS;
  validateRiskConfiguration(riskFactors, riskBands);
  const limits = resolveEngineLimits(options.limits);
  const withLocks = createKeyedLock();

  // ---- rule instances, prepared once per repository revision -------------------------------
  interface PreparedState {
    readonly revision: number;
    readonly active: PreparedInstance[];
    /** The built-in series kept: those the active instances read, plus `maintainSeries`. */
    readonly series: ReadonlySet<SeriesName>;
    /** The derived (filtered) series the active instances read. */
    readonly derived: readonly DerivedSeries[];
    /** Whitelist ids the active instances' `whitelistUsers.listIds` filters name. */
    readonly whitelistIds: readonly string[];
    /** Whether user-series entries carry their `values` (some active instance reads them). */
    readonly values: boolean;
  }
  /** What the active instances read. */
  interface Wanted {
    readonly bases: Set<SeriesName>;
    readonly derived: Map<string, DerivedSeries>;
    /** Whether some instance reading a series reads entry values (`RuleDefinition.readsEntryValues`). */
    values: boolean;
  }
  const alwaysKept: readonly SeriesName[] =
    options.maintainSeries === 'all' ? SERIES_NAMES : [...new Set(options.maintainSeries ?? [])];
  for (const name of alwaysKept) {
    if (!(SERIES_NAMES as readonly string[]).includes(name)) {
      throw new TxmonError('INVALID_CONFIGURATION', 'createEngine: maintainSeries names an unknown series');
    }
  }
  let prepared: PreparedState | null = null;
  let refreshing: Promise<PreparedState> | null = null;
  /** Series whose entries the aggregate repository holds (built-in and derived), by name. */
  const keptBases = new Set<SeriesName>();
  const keptDerived = new Map<string, DerivedSeries>();
  /**
   * Whether every kept entry carries its values. Entries are kept without them while no active
   * instance reads values; when one starts to, every kept series is refilled from history first.
   * Conservative: cleared whenever values stop being wanted, whenever this engine writes entries
   * without them, after a failed instance write, and when another engine changed the instances
   * (it may have written entries without values meanwhile), so it never claims more than is true.
   */
  let keptValues = true;
  /** The instance revision this engine's own last instance write produced (−1: none yet). */
  let ownRevision = -1;

  function prepare(stored: RuleInstance, wanted: Wanted): PreparedInstance {
    const instance = withFrozenParameters(stored);
    const filters = instance.filters as RuleFilters;
    const filter = hasActiveFilters(filters) ? compileRuleFilters(filters) : null;
    if (instance.ruleId === CUSTOM_RULE_ID) {
      const variables = compileAggregationVariables(instance.logicAggregationVariables, '/logicAggregationVariables');
      const compiled = compileLogic(instance.logic, {
        basePath: '/logic',
        aggregationVariableKeys: variables.map((v) => v.key),
        maxWork: limits.maxLogicWork,
      });
      if (variables.length === 0) return { instance, rule: null, logic: compiled, filter, seriesMap: null };
      // With aggregation variables, the logic runs as a rule: its needs are planned and queried like a library rule's.
      const custom = createCustomLogicRule(compiled, variables, {
        description: instance.ruleDescriptionAlias ?? 'Custom json-logic rule.',
        descriptionTemplate: 'Custom rule logic matched the transaction.',
      });
      // (Aggregation variables may count distinct values: they read entry values.)
      wanted.values = true;
      for (const v of variables) {
        if (v.derived) {
          if (!wanted.derived.has(v.derived.name)) wanted.derived.set(v.derived.name, v.derived);
        } else {
          wanted.bases.add(v.series);
        }
      }
      return { instance, rule: custom as unknown as RuleDefinition<unknown>, logic: null, filter, seriesMap: null };
    }
    const rule = registry.get(instance.ruleId) ?? null;
    if (rule !== null && rule.series.length > 0 && rule.readsEntryValues !== false) wanted.values = true;
    const historical = rule && rule.series.length > 0 ? compileHistoricalFilters(filters) : null;
    const reads = seriesReadBy(rule, instance);
    if (!historical) {
      for (const base of reads) wanted.bases.add(base);
      return { instance, rule, logic: null, filter, seriesMap: null };
    }
    const seriesMap = new Map<string, string>();
    for (const base of reads) {
      const d = createDerivedSeries(base, historical.id, historical.accepts);
      seriesMap.set(base, d.name);
      if (!wanted.derived.has(d.name)) wanted.derived.set(d.name, d);
    }
    return { instance, rule, logic: null, filter, seriesMap, historical: historical.accepts };
  }

  async function activeInstances(): Promise<PreparedState> {
    const revision = await repos.ruleInstances.revision();
    if (prepared && prepared.revision === revision) return prepared;
    // One refresh at a time; concurrent callers share it.
    refreshing ??= refresh(revision).finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  /** Prepares the ACTIVE instances of `list` and collects the series they read. */
  function prepareAll(list: readonly RuleInstance[]): { active: PreparedInstance[]; wanted: Wanted } {
    // Series kept for the host (`maintainSeries`) keep their values: the host may read them.
    const wanted: Wanted = { bases: new Set(alwaysKept), derived: new Map(), values: alwaysKept.length > 0 };
    const active = list.filter((i) => i.status === 'ACTIVE').map((i) => prepare(i, wanted));
    return { active, wanted };
  }

  /** Fills, in one scan of the stored transactions, the wanted series not kept yet (D-116, D-125). */
  async function fillMissing(wanted: Wanted): Promise<void> {
    // Entries kept without values cannot answer a value read: when values become wanted, every
    // wanted series is filled afresh (D-139).
    const refill = wanted.values && !keptValues;
    const newBases = new Set([...wanted.bases].filter((b) => refill || !keptBases.has(b)));
    const newDerived = [...wanted.derived.values()].filter((d) => refill || !keptDerived.has(d.name));
    if (newBases.size > 0 || newDerived.length > 0) {
      const filled = new Map<string, SeriesEntry[]>();
      for (const name of [...newBases, ...newDerived.map((d) => d.name)]) filled.set(name, []);
      for await (const transaction of repos.transactions.scanTransactions()) {
        for (const entry of contributionsOf(transaction, newBases, money, newDerived, wanted.values)) filled.get(entry.series)?.push(entry);
      }
      for (const [name, entries] of filled) await repos.aggregates.replaceSeries(name, entries);
      for (const b of newBases) keptBases.add(b);
      for (const d of newDerived) keptDerived.set(d.name, d);
    }
    // After a refill every wanted series has its values; a series kept beyond them was not
    // refilled and may lack them, so the flag is set only when no such series is kept.
    if (!wanted.values) keptValues = false;
    else if (refill) keptValues = keptOnly(newBases, newDerived, wanted);
  }

  /** Whether every kept series is one `wanted` names (or was just filled). */
  function keptOnly(filledBases: ReadonlySet<SeriesName>, filledDerived: readonly DerivedSeries[], wanted: Wanted): boolean {
    for (const base of keptBases) if (!wanted.bases.has(base) && !filledBases.has(base)) return false;
    for (const name of keptDerived.keys()) if (!wanted.derived.has(name) && !filledDerived.some((d) => d.name === name)) return false;
    return true;
  }

  /** Drops the kept series no wanted one names. */
  async function dropUnwanted(wanted: Wanted): Promise<void> {
    for (const base of [...keptBases]) {
      if (wanted.bases.has(base)) continue;
      await repos.aggregates.replaceSeries(base, []);
      keptBases.delete(base);
    }
    for (const name of [...keptDerived.keys()]) {
      if (wanted.derived.has(name)) continue;
      await repos.aggregates.replaceSeries(name, []);
      keptDerived.delete(name);
    }
  }

  /**
   * Prepares the active instances and brings the kept series in line with what they read: series
   * no longer read are dropped, newly read ones filled from history. Rule-instance writes of this
   * engine fill before they write (under the writer gate), so here a fill only happens when the
   * instances changed elsewhere (another engine on the same repositories) or after a restart.
   */
  async function refresh(revision: number): Promise<PreparedState> {
    // Instances changed by another engine on the same repositories: it may have kept entries
    // without values meanwhile (D-139), so a value reader refills rather than trusting them.
    if (revision !== ownRevision) keptValues = false;
    const { active, wanted } = prepareAll(await repos.ruleInstances.list());
    await dropUnwanted(wanted);
    await fillMissing(wanted);
    const whitelistIds = [...new Set(active.flatMap((p) => whitelistListIds(p.instance.filters as RuleFilters)))];
    const state: PreparedState = { revision, active, series: new Set(keptBases), derived: [...keptDerived.values()], whitelistIds, values: wanted.values };
    prepared = state;
    return state;
  }

  /**
   * A rule-instance create or update: under the writer gate, reconciles with the stored instances,
   * builds the instance (`build`, which may read the stored one), fills the series the instances
   * will read once it replaces (or joins) the stored list, then writes. A failed fill writes
   * nothing (the caller sees the error and the instance set is unchanged).
   */
  async function writeInstance(build: () => Promise<StoredRuleInstance> | StoredRuleInstance): Promise<RuleInstance> {
    return exclusive(async () => {
      // Another engine on the same repositories may have changed the instances (and dropped
      // series this engine still believes it keeps).
      await activeInstances();
      const stored = await build();
      const id = stored.instance.id;
      const list = await repos.ruleInstances.list();
      const current = list.find((i) => i.id === id);
      assertInstanceCounts(list, stored.instance);
      const next: RuleInstance = { ...stored.instance, runCount: current?.runCount ?? 0, hitCount: current?.hitCount ?? 0 };
      await fillMissing(prepareAll(current ? list.map((i) => (i.id === id ? next : i)) : [...list, next]).wanted);
      try {
        await repos.ruleInstances.put(stored);
      } catch (error) {
        // The series were filled for instances that were not written: the next call re-prepares
        // from the stored instances (dropping series they do not read), and trusts no values.
        prepared = null;
        keptValues = false;
        throw error;
      }
      ownRevision = await repos.ruleInstances.revision();
      return cloneJson((await repos.ruleInstances.get(id)) as RuleInstance);
    });
  }

  /** Refuses an instance write that would pass `maxRuleInstances` or `maxCustomLogicInstances`. */
  function assertInstanceCounts(list: readonly RuleInstance[], next: StoredRuleInstance['instance']): void {
    const others = list.filter((i) => i.id !== next.id);
    if (others.length + 1 > limits.maxRuleInstances) throw limitExceeded('maxRuleInstances', limits.maxRuleInstances, 'the rule instances');
    if (next.ruleId === CUSTOM_RULE_ID && others.filter((i) => i.ruleId === CUSTOM_RULE_ID).length + 1 > limits.maxCustomLogicInstances) {
      throw limitExceeded('maxCustomLogicInstances', limits.maxCustomLogicInstances, 'the custom-logic instances', '/logic');
    }
  }

  /**
   * Builds a rule instance from a request (see {@link buildRuleInstance}) within the limits: the
   * request within `maxRuleInstanceSize`, each list in its parameters within `maxParameterItems`.
   */
  function buildLimitedInstance(input: unknown, existing: StoredRuleInstance | null, id: string): StoredRuleInstance {
    const { copy: request, size } = copySafeJsonSized(input);
    const stored = buildRuleInstance(request, existing, { registry, now: clock.now(), id });
    assertSizeWithin(size, limits.maxRuleInstanceSize, 'maxRuleInstanceSize', 'the rule instance');
    if (typeof request === 'object' && request !== null) {
      const { parameters, riskLevelParameters } = request as { parameters?: unknown; riskLevelParameters?: unknown };
      assertListsWithin(parameters, '/parameters', limits.maxParameterItems);
      if (typeof riskLevelParameters === 'object' && riskLevelParameters !== null) {
        for (const [level, value] of Object.entries(riskLevelParameters)) assertListsWithin(value, `/riskLevelParameters/${level}`, limits.maxParameterItems);
      }
    }
    return stored;
  }

  // ---- writer gate: rule-instance writes wait for in-flight transactions and hold new ones ----
  // A new derived series is filled from the stored transactions; a transaction evaluated with
  // the old set of series while that happens would be missing from it.
  let inFlight = 0;
  let exclusiveHeld: Promise<void> | null = null;
  let onDrained: (() => void) | null = null;

  function leaveShared(): void {
    inFlight -= 1;
    if (inFlight === 0 && onDrained) onDrained();
  }

  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // Re-checked after every wake-up, and taken in the same turn: two writers never both pass.
    while (exclusiveHeld) await exclusiveHeld;
    let release!: () => void;
    exclusiveHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      while (inFlight > 0) {
        await new Promise<void>((resolve) => {
          onDrained = resolve;
        });
      }
      onDrained = null;
      const result = await fn();
      // Best effort: a failing refresh (e.g. dropping an unused series) is retried by the next call.
      await activeInstances().catch(() => undefined);
      return result;
    } finally {
      exclusiveHeld = null;
      release();
    }
  }

  // ---- the hot path: evaluate a transaction and build its outcome ---------------------------
  async function evaluate(transaction: Transaction, previous: Transaction | null) {
    // Both reads start before either is awaited (a database adapter serves them concurrently);
    // no Promise.all: on the memory repositories it costs more than the reads.
    const usersRead = Promise.resolve(repos.users.getUsers([transaction.originUserId ?? '', transaction.destinationUserId ?? '']));
    // Handled at once: a failed read is awaited (and rethrown) below, never an unhandled rejection
    // while the instances are still being read.
    usersRead.catch(ignore);
    const state = await activeInstances();
    const users = await usersRead;
    const originStored = transaction.originUserId ? users[0] : null;
    const destinationStored = transaction.destinationUserId ? users[1] : null;
    // List-backed whitelists named by the active filters: looked up before the filters run.
    let originLists: ReadonlySet<string> | undefined;
    let destinationLists: ReadonlySet<string> | undefined;
    if (state.whitelistIds.length > 0) {
      [originLists, destinationLists] = await whitelistsOf(state.whitelistIds, transaction.originUserId, transaction.destinationUserId);
    }
    const input: EvaluationInput = {
      transaction,
      instances: state.active,
      originUser: toRuleUser(originStored, originLists),
      destinationUser: toRuleUser(destinationStored, destinationLists),
      money,
      defaultRiskLevel,
    };
    const current = contributionsOf(transaction, state.series, money, state.derived, state.values);
    // Entries without values are about to be kept: a later value reader needs a refill first.
    if (!state.values && current.length > 0) keptValues = false;
    const plan = planRuleInstances(input);
    const needs = plan.needs;
    // Needs are valid queries (excludeId = this transaction): passed as they are; the values come
    // back aligned with them, and this transaction's current contribution is merged in place.
    const values = needs.length > 0 ? await repos.aggregates.query(needs) : [];
    for (let i = 0; i < needs.length; i++) {
      values[i] = mergeCurrentContribution(needs[i] as AggregateNeed, values[i] ?? null, current);
    }
    const evaluation = evaluateRuleInstances(plan, values, plan.lookups.length > 0 ? await answerLookups(plan.lookups) : undefined);
    const remove = previous ? contributionRefsOf(previous, state.series, state.derived) : [];

    const outcomes = evaluation.outcomes;
    const counters: TransactionOutcome['counters'] = new Array(outcomes.length);
    for (let i = 0; i < outcomes.length; i++) counters[i] = (outcomes[i] as InstanceOutcome).counter;
    const alertHits: AlertHit[] = [];
    const userUpdates: UserUpdate[] = [];
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i] as InstanceOutcome;
      if (!o.hit || o.isShadow) continue;
      for (const direction of o.hitDirections) {
        const userId = direction === 'ORIGIN' ? transaction.originUserId : transaction.destinationUserId;
        if (!userId) continue;
        if (o.instance.alertCreationOnHit) {
          alertHits.push({
            instanceId: o.instance.id,
            userId,
            direction,
            transactionId: transaction.transactionId,
            priority: o.instance.casePriority,
            ruleDetails: {
              id: o.instance.ruleId,
              name: o.instance.ruleNameAlias ?? registry.get(o.instance.ruleId)?.name ?? 'Custom rule',
              description: o.ruleDescription,
              instanceId: o.instance.id,
              action: o.action,
              nature: o.instance.nature,
            },
            newAlertId: ids.next('alert'),
            newCaseId: ids.next('case'),
          });
        }
        const t = o.triggersOnHit;
        const wanted = t?.usersToCheck ?? 'ALL';
        if (t && (t.userStateDetails || t.kycStatusDetails) && (wanted === 'ALL' || wanted === direction)) {
          const update: UserUpdate = { userId };
          if (t.userStateDetails) update.userStateDetails = { ...t.userStateDetails };
          if (t.kycStatusDetails) update.kycStatusDetails = { ...t.kycStatusDetails };
          userUpdates.push(update);
        }
      }
    }
    const seenUserIds: string[] = [];
    if (transaction.originUserId && !originStored) seenUserIds.push(transaction.originUserId);
    if (transaction.destinationUserId && !destinationStored && transaction.destinationUserId !== transaction.originUserId) {
      seenUserIds.push(transaction.destinationUserId);
    }
    const result: MonitoringResult = {
      executedRules: evaluation.executedRules,
      hitRules: evaluation.hitRules,
      status: evaluation.status,
    };
    const riskScoreDetails = scoreRisk(transaction, previous === null, input, originStored, destinationStored, userUpdates);
    if (riskScoreDetails) result.riskScoreDetails = riskScoreDetails;
    return { result, aggregates: { remove, add: current as SeriesEntry[] }, counters, alertHits, seenUserIds, userUpdates };
  }

  /** For each side's user, the ids of the whitelists (WHITELIST, USER_ID) among `listIds` that hold it. */
  async function whitelistsOf(listIds: readonly string[], origin: string | undefined, destination: string | undefined) {
    const originSet = new Set<string>();
    const destinationSet = new Set<string>();
    const probes = [origin, destination].map((userId) => ({ listType: 'WHITELIST' as const, subtype: 'USER_ID' as const, value: userId ?? '' }));
    for (const listId of listIds) {
      const [o, d] = await repos.lists.lookup(listId, probes);
      if (origin && o === true) originSet.add(listId);
      if (destination && d === true) destinationSet.add(listId);
    }
    return [originSet, destinationSet] as const;
  }

  /** Answers list lookups, one repository call per list, in the order of `lookups`. */
  async function answerLookups(lookups: readonly LookupNeed[]): Promise<boolean[]> {
    const byList = new Map<string, number[]>();
    lookups.forEach((l, i) => {
      const positions = byList.get(l.listId);
      if (positions) positions.push(i);
      else byList.set(l.listId, [i]);
    });
    const answers: boolean[] = new Array<boolean>(lookups.length).fill(false);
    for (const [listId, positions] of byList) {
      const found = await repos.lists.lookup(
        listId,
        positions.map((i) => {
          const l = lookups[i] as LookupNeed;
          return { listType: l.listType, subtype: l.subtype, value: l.value };
        }),
      );
      positions.forEach((position, j) => {
        answers[position] = found[j] === true;
      });
    }
    return answers;
  }

  /** The one atomic write of a create or an event. */
  function outcomeOf(
    transaction: StoredTransaction,
    expectedVersion: number | null,
    event: StoredEvent | null,
    out: Awaited<ReturnType<typeof evaluate>>,
  ): TransactionOutcome {
    return {
      transaction,
      expectedVersion,
      event,
      aggregates: out.aggregates,
      counters: out.counters,
      alertHits: out.alertHits,
      seenUserIds: out.seenUserIds,
      userUpdates: out.userUpdates,
      now: clock.now(),
    };
  }

  /**
   * `riskScoreDetails` (SPEC §3): the TRS of the configured factors, and each user's CRA — moved
   * by the TRS on a transaction's creation (events report it, so one transaction moves a CRA once);
   * a user with a manual `riskLevel` keeps it (score = its band's midpoint). Risk never depends on
   * rule instances, so shadow instances cannot change it (SPEC §5.7).
   */
  function scoreRisk(
    transaction: Transaction,
    isCreate: boolean,
    input: EvaluationInput,
    originStored: StoredUser | null | undefined,
    destinationStored: StoredUser | null | undefined,
    userUpdates: UserUpdate[],
  ): MonitoringResult['riskScoreDetails'] | undefined {
    const trs = riskFactors.length > 0
      ? computeTransactionRisk(transaction, riskFactors, { money, originUser: input.originUser, destinationUser: input.destinationUser, bands: riskBands })
      : null;
    const details: NonNullable<MonitoringResult['riskScoreDetails']> = {};
    if (trs) {
      details.trsScore = trs.trsScore;
      details.trsRiskLevel = trs.trsRiskLevel;
    }
    const side = (userId: string | undefined, stored: StoredUser | null | undefined, moves: boolean) => {
      if (!userId) return null;
      const manual = (stored?.profile as { riskLevel?: RiskLevel } | null | undefined)?.riskLevel;
      if (manual) return { score: riskLevelScore(manual, riskBands), level: manual };
      let score = stored?.craScore ?? null;
      if (trs && moves) {
        score = nextCraScore(score, trs.trsScore);
        userUpdates.push({ userId, craObservation: trs.trsScore, craBands: riskBands });
      }
      return score === null ? null : { score, level: scoreToRiskLevel(score, riskBands) };
    };
    const origin = side(transaction.originUserId, originStored, isCreate);
    const selfTransfer = transaction.destinationUserId === transaction.originUserId;
    const destination = selfTransfer ? origin : side(transaction.destinationUserId, destinationStored, isCreate);
    if (origin) {
      details.originUserCraRiskScore = origin.score;
      details.originUserCraRiskLevel = origin.level;
    }
    if (destination) {
      details.destinationUserCraRiskScore = destination.score;
      details.destinationUserCraRiskLevel = destination.level;
    }
    return Object.keys(details).length > 0 ? details : undefined;
  }

  async function withRetries<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (isTxmonError(error) && error.code === 'CONCURRENT_UPDATE' && attempt < MAX_RETRIES) continue;
        throw error;
      }
    }
  }

  // Explicit literals, not spreads: on Node 20 a spread-built object gets a fresh hidden class.
  function createResponse(stored: StoredTransaction): TransactionMonitoringResult {
    const r = stored.createResult;
    const out: TransactionMonitoringResult = {
      transactionId: stored.transaction.transactionId,
      executedRules: r.executedRules,
      hitRules: r.hitRules,
      status: r.status,
    };
    if (r.riskScoreDetails) out.riskScoreDetails = { ...r.riskScoreDetails };
    return out;
  }

  function eventResponse(stored: StoredEvent): TransactionEventMonitoringResult {
    const r = stored.result;
    const out: TransactionEventMonitoringResult = {
      eventId: stored.eventId,
      transaction: cloneJson(stored.transaction),
      executedRules: r.executedRules,
      hitRules: r.hitRules,
      status: r.status,
    };
    if (r.riskScoreDetails) out.riskScoreDetails = { ...r.riskScoreDetails };
    return out;
  }

  // ---- users ---------------------------------------------------------------------------------
  function userView(user: StoredUser): UserView {
    const view = { ...cloneJson(user.profile), type: user.type } as UserView;
    if (user.craScore !== null || user.craRiskLevel !== null) {
      view.riskScoreDetails = {
        ...(user.craScore !== null ? { craRiskScore: user.craScore } : {}),
        ...(user.craRiskLevel !== null ? { craRiskLevel: user.craRiskLevel } : {}),
      };
    }
    return view;
  }

  // ---- comments and files --------------------------------------------------------------------
  async function downloadLink(key: string): Promise<string> {
    const expiresAt = clock.now() + urlTtlMs;
    const signature = await signer.sign('download', key, expiresAt);
    return `${publicBaseUrl}/files/${encodeURIComponent(key)}?expires=${expiresAt}&signature=${signature}`;
  }

  async function commentView(comment: Comment): Promise<CommentView> {
    const files: CommentFileLink[] = [];
    for (const f of comment.files) files.push({ ...f, downloadLink: await downloadLink(f.s3Key) });
    return { commentId: comment.commentId, body: comment.body, files, createdTimestamp: comment.createdTimestamp, updatedTimestamp: comment.updatedTimestamp };
  }

  async function addComment(target: CommentTarget, targetExists: () => Promise<boolean>, input: unknown): Promise<CommentView> {
    assertId(target.id, `${target.kind} id`);
    const request = validateComment(copySafeJson(input));
    if (!(await targetExists())) {
      const code = target.kind === 'user' ? 'USER_NOT_FOUND' : target.kind === 'case' ? 'CASE_NOT_FOUND' : 'ALERT_NOT_FOUND';
      throw new TxmonError(code, `${target.kind} not found`);
    }
    const files: Comment['files'] = [];
    const requested = request.files ?? [];
    for (let i = 0; i < requested.length; i++) {
      const f = requested[i]!;
      const key = f.s3Key ?? f.key;
      const record = key === undefined ? null : await repos.files.getFile(key);
      const keyPath = `/files/${i}/${f.s3Key !== undefined ? 's3Key' : 'key'}`;
      if (!record || key === undefined) {
        throw new TxmonError('UNKNOWN_FILE_KEY', 'Invalid request: a file key was not issued by the upload call', [
          { path: keyPath, code: 'unknown-file-key', message: 'was not issued by POST /pre-signed-url' },
        ]);
      }
      // Evidence must exist as described: the bytes are uploaded and their count is the one given.
      if (!record.uploaded) {
        throw new TxmonError('UNKNOWN_FILE_KEY', 'Invalid request: a file was not uploaded yet', [
          { path: keyPath, code: 'not-uploaded', message: 'names a file whose bytes were not uploaded yet' },
        ]);
      }
      if (record.size !== f.size) {
        throw new TxmonError('VALIDATION_FAILED', 'Invalid request: a file size differs from the uploaded file', [
          { path: `/files/${i}/size`, code: 'size-mismatch', message: 'must equal the number of bytes uploaded' },
        ]);
      }
      files.push({ s3Key: key, filename: f.filename, size: f.size });
    }
    const now = clock.now();
    const created = request.createdTimestamp ?? now;
    const comment: Comment = { commentId: ids.next('comment'), body: request.body, files, createdTimestamp: created, updatedTimestamp: created };
    await repos.comments.addComment(target, comment);
    return commentView(comment);
  }

  async function checkedFile(access: SignedFileAccess, purpose: 'upload' | 'download') {
    const ok =
      typeof access === 'object' &&
      access !== null &&
      typeof access.key === 'string' &&
      typeof access.signature === 'string' &&
      (await signer.verify(purpose, access.key, Number(access.expiresAt), access.signature, clock.now()));
    if (!ok) throw new TxmonError('UNAUTHORIZED', 'The file URL is invalid or expired');
    const record = await repos.files.getFile(access.key);
    if (!record) throw new TxmonError('FILE_NOT_FOUND', 'file not found');
    return record;
  }

  const engine: Engine = {
    repositories: repos,

    async createTransaction(input) {
      const { copy, size } = copySafeJsonSized(input);
      const request = validateTransaction(copy);
      assertSizeWithin(size, limits.maxTransactionSize, 'maxTransactionSize', 'the transaction');
      assertNoReservedFields(request);
      const id = request.transactionId;
      // Shared side of the writer gate: re-checked after every wake-up, entered in the same turn.
      while (exclusiveHeld) await exclusiveHeld;
      inFlight += 1;
      try {
      return await withLocks(lockKeys(id, request.originUserId, request.destinationUserId), () =>
        withRetries(async () => {
          const existing = await repos.transactions.getTransaction(id);
          if (existing) {
            if (canonicalJson(existing.request) === canonicalJson(request)) return createResponse(existing);
            throw new TxmonError('TRANSACTION_ID_CONFLICT', 'A transaction with this transactionId exists with a different payload', [
              { path: '/transactionId', code: 'conflict', message: 'exists with a different payload' },
            ]);
          }
          const transaction = initialTransaction(request);
          const out = await evaluate(transaction, null);
          const stored: StoredTransaction = {
            transaction,
            request,
            createResult: out.result,
            latestResult: out.result,
            eventCount: 0,
            lastEventTimestamp: null,
            version: 1,
          };
          await repos.transactions.saveOutcome(outcomeOf(stored, null, null, out));
          return createResponse(stored);
        }),
      );
      } finally {
        leaveShared();
      }
    },

    async getTransaction(transactionId) {
      assertId(transactionId, 'transactionId');
      const stored = await repos.transactions.getTransaction(transactionId);
      if (!stored) throw new TxmonError('TRANSACTION_NOT_FOUND', 'transaction not found');
      return { ...cloneJson(stored.transaction), ...resultOf(stored.latestResult) };
    },

    async createTransactionEvent(input) {
      const { copy, size } = copySafeJsonSized(input);
      const request = validateEvent(copy);
      assertSizeWithin(size, limits.maxEventSize, 'maxEventSize', 'the transaction event');
      // Shared side of the writer gate: re-checked after every wake-up, entered in the same turn.
      while (exclusiveHeld) await exclusiveHeld;
      inFlight += 1;
      try {
      const clientEventId = request.eventId !== undefined;
      // The users are known once the transaction is read: read it, lock the transaction and its
      // users, and read again inside (user ids never change; a transaction created in between
      // makes one more round with its users' keys).
      let keys = lockKeys(request.transactionId, undefined, undefined);
      const peek = await repos.transactions.getTransaction(request.transactionId);
      if (peek) keys = lockKeys(request.transactionId, peek.transaction.originUserId, peek.transaction.destinationUserId);
      for (;;) {
        const result = await withLocks(keys, () =>
        withRetries(async (): Promise<TransactionEventMonitoringResult | string[]> => {
          if (request.eventId !== undefined) {
            const existing = await repos.transactions.getEvent(request.eventId);
            if (existing) {
              if (existing.clientEventId && canonicalJson(existing.event) === canonicalJson(request)) return eventResponse(existing);
              throw new TxmonError('EVENT_ID_CONFLICT', 'An event with this eventId exists with a different payload', [
                { path: '/eventId', code: 'conflict', message: 'exists with a different payload' },
              ]);
            }
          }
          const stored = await repos.transactions.getTransaction(request.transactionId);
          if (!stored) throw new TxmonError('TRANSACTION_NOT_FOUND', 'transaction not found', [
            { path: '/transactionId', code: 'not-found', message: 'names no transaction' },
          ]);
          const needed = lockKeys(request.transactionId, stored.transaction.originUserId, stored.transaction.destinationUserId);
          if (needed.length !== keys.length) return needed;
          if (stored.eventCount + 1 > limits.maxEventsPerTransaction) {
            throw limitExceeded('maxEventsPerTransaction', limits.maxEventsPerTransaction, 'the events of this transaction', '/transactionId');
          }
          // `request` is our own copy, so the generated id can be set on it (no spread).
          if (request.eventId === undefined) request.eventId = ids.next('event');
          const eventId = request.eventId;
          const event = request as typeof request & { eventId: string };
          let transaction: Transaction;
          if (stored.lastEventTimestamp === null || event.timestamp >= stored.lastEventTimestamp) {
            transaction = applyTransactionEvent(stored.transaction, event, { transitions });
          } else {
            // A late event: insert it in (timestamp, arrival) order and fold the whole history again.
            const history = await repos.transactions.listEvents(request.transactionId);
            const sequence = history.map((e) => ({ event: e.event, arrival: e.arrival }));
            sequence.push({ event, arrival: stored.eventCount });
            transaction = foldTransactionEvents(initialTransaction(stored.request), sequence, { transitions });
          }
          if (measureJsonSize(transaction) > limits.maxTransactionSize) {
            throw limitExceeded('maxTransactionSize', limits.maxTransactionSize, 'the transaction after this event', '/updatedTransactionAttributes');
          }
          const out = await evaluate(transaction, stored.transaction);
          const storedEvent: StoredEvent = {
            eventId,
            transactionId: request.transactionId,
            event,
            clientEventId,
            arrival: stored.eventCount,
            transaction,
            result: out.result,
          };
          const next: StoredTransaction = {
            transaction,
            request: stored.request,
            createResult: stored.createResult,
            latestResult: out.result,
            eventCount: stored.eventCount + 1,
            lastEventTimestamp: Math.max(stored.lastEventTimestamp ?? Number.NEGATIVE_INFINITY, event.timestamp),
            version: stored.version + 1,
          };
          await repos.transactions.saveOutcome(outcomeOf(next, stored.version, storedEvent, out));
          return eventResponse(storedEvent);
        }),
        );
        if (!Array.isArray(result)) return result;
        keys = result;
      }
      } finally {
        leaveShared();
      }
    },

    async getTransactionEvent(eventId) {
      assertId(eventId, 'eventId');
      const stored = await repos.transactions.getEvent(eventId);
      if (!stored) throw new TxmonError('EVENT_NOT_FOUND', 'transaction event not found');
      return { ...cloneJson(stored.event), ...resultOf(stored.result) };
    },

    async createUser(input, opts) {
      const requested = opts?.type;
      if (requested !== undefined && requested !== 'CONSUMER' && requested !== 'BUSINESS') {
        throw new TxmonError('VALIDATION_FAILED', 'Invalid request: user type must be CONSUMER or BUSINESS', [
          { path: '', code: 'enum', message: 'user type must be CONSUMER or BUSINESS' },
        ]);
      }
      const type: UserType =
        requested ?? (typeof input === 'object' && input !== null && 'legalEntity' in input ? 'BUSINESS' : 'CONSUMER');
      const copy = copySafeJson(input);
      const profile = type === 'BUSINESS' ? validateBusiness(copy) : validateConsumer(copy);
      // One intent-level write: the repository keeps the user's risk state (a concurrent
      // transaction may be moving its CRA right now).
      const user = await repos.users.saveUserProfile({ userId: profile.userId, type, profile, now: clock.now() });
      const result: UserMonitoringResult = { userId: user.userId, executedRules: [], hitRules: [] };
      const view = userView(user);
      if (view.riskScoreDetails) result.riskScoreDetails = view.riskScoreDetails;
      return result;
    },

    async getUser(userId, opts) {
      assertId(userId, 'userId');
      const user = await repos.users.getUser(userId);
      if (!user || user.type === null || (opts?.type !== undefined && opts.type !== user.type)) {
        throw new TxmonError('USER_NOT_FOUND', 'user not found');
      }
      return userView(user);
    },

    createUserComment(userId, input) {
      return addComment({ kind: 'user', id: userId }, async () => (await repos.users.getUser(userId)) !== null, input);
    },
    createCaseComment(caseId, input) {
      return addComment({ kind: 'case', id: caseId }, async () => (await repos.cases.getCase(caseId)) !== null, input);
    },
    createAlertComment(alertId, input) {
      return addComment({ kind: 'alert', id: alertId }, async () => (await repos.cases.getAlert(alertId)) !== null, input);
    },

    async createRuleInstance(input) {
      // Validated before the writer gate: a bad request never waits for in-flight transactions.
      const stored = buildLimitedInstance(input, null, ids.next('ruleInstance'));
      return writeInstance(() => stored);
    },

    async getRuleInstance(id) {
      assertId(id, 'rule instance id');
      const instance = await repos.ruleInstances.get(id);
      if (!instance) throw new TxmonError('RULE_INSTANCE_NOT_FOUND', 'rule instance not found');
      return cloneJson(instance);
    },

    async listRuleInstances() {
      return cloneJson(await repos.ruleInstances.list());
    },

    async updateRuleInstance(id, input) {
      assertId(id, 'rule instance id');
      return writeInstance(async () => {
        const existing = await repos.ruleInstances.getStored(id);
        if (!existing) throw new TxmonError('RULE_INSTANCE_NOT_FOUND', 'rule instance not found');
        return buildLimitedInstance(input, existing, id);
      });
    },

    async deleteRuleInstance(id) {
      assertId(id, 'rule instance id');
      await exclusive(async () => {
        if (!(await repos.ruleInstances.delete(id))) throw new TxmonError('RULE_INSTANCE_NOT_FOUND', 'rule instance not found');
        ownRevision = await repos.ruleInstances.revision();
      });
    },

    async listRules() {
      return registry.list().map((r) => registry.view(r));
    },

    async getRule(ruleId) {
      assertId(ruleId, 'ruleId');
      const rule = registry.get(ruleId);
      if (!rule) throw new TxmonError('RULE_NOT_FOUND', 'rule not found');
      return registry.view(rule);
    },

    async getRuleFiltersSchema() {
      return getRuleFiltersSchemaJson();
    },

    async putList(listId, input) {
      assertId(listId, 'listId');
      const request = validateList(input);
      const items = [...new Set(request.items)];
      if (items.length > limits.maxListItems) throw limitExceeded('maxListItems', limits.maxListItems, 'the items of this list', '/items');
      const now = clock.now();
      const existing = await repos.lists.getList(listId);
      if (existing === null && (await repos.lists.listLists()).length + 1 > limits.maxLists) {
        throw limitExceeded('maxLists', limits.maxLists, 'the lists');
      }
      const stored: StoredList = {
        listId,
        listType: request.listType,
        subtype: request.subtype,
        ...(request.name !== undefined ? { name: request.name } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        items,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      await repos.lists.putList(stored);
      return cloneJson(stored);
    },

    async getList(listId) {
      assertId(listId, 'listId');
      const list = await repos.lists.getList(listId);
      if (!list) throw new TxmonError('LIST_NOT_FOUND', 'list not found');
      return cloneJson(list);
    },

    async listLists() {
      return cloneJson(await repos.lists.listLists());
    },

    async deleteList(listId) {
      assertId(listId, 'listId');
      if (!(await repos.lists.deleteList(listId))) throw new TxmonError('LIST_NOT_FOUND', 'list not found');
    },

    async createUpload(input) {
      input = copySafeJson(input);
      const request = validateUpload(input);
      if (request.fileSize > maxUploadBytes) {
        throw new TxmonError('VALIDATION_FAILED', `Invalid request: fileSize must be at most ${maxUploadBytes}`, [
          { path: '/fileSize', code: 'maximum', message: `must be at most ${maxUploadBytes}` },
        ]);
      }
      const key = ids.next('file');
      const now = clock.now();
      const expiresAt = now + urlTtlMs;
      await repos.files.putFile({ key, filename: request.filename, fileSize: request.fileSize, createdAt: now, expiresAt, uploaded: false });
      const signature = await signer.sign('upload', key, expiresAt);
      return {
        key,
        url: `${publicBaseUrl}/uploads/${encodeURIComponent(key)}?expires=${expiresAt}&signature=${signature}`,
        method: 'PUT',
        expiresAt,
        fields: { key },
      };
    },

    async putUploadContent(access, content, opts) {
      const bytes = content instanceof Uint8Array;
      if (!bytes && !(typeof content === 'object' && content !== null && Symbol.asyncIterator in content)) {
        throw new TxmonError('VALIDATION_FAILED', 'Invalid request: the upload body must be bytes', [
          { path: '', code: 'type', message: 'must be a Uint8Array or an async iterable of them' },
        ]);
      }
      const record = await checkedFile(access, 'upload');
      if (record.uploaded) throw new TxmonError('FILE_ALREADY_UPLOADED', 'The upload URL was used already');
      const announced = bytes ? content.byteLength : opts?.declaredBytes;
      if (announced !== undefined && announced > record.fileSize) {
        throw new TxmonError('PAYLOAD_TOO_LARGE', 'The upload is larger than the fileSize announced');
      }
      await repos.files.putContent(record.key, bytes ? oneChunk(content) : content, record.fileSize);
    },

    async getFileContent(access) {
      const record = await checkedFile(access, 'download');
      const bytes = await repos.files.getContent(record.key);
      if (!bytes) throw new TxmonError('FILE_NOT_FOUND', 'file content not uploaded');
      return { filename: record.filename, bytes };
    },

    async listAlerts() {
      return cloneJson(await repos.cases.listAlerts());
    },
    async getAlert(alertId) {
      assertId(alertId, 'alertId');
      const alert = await repos.cases.getAlert(alertId);
      if (!alert) throw new TxmonError('ALERT_NOT_FOUND', 'alert not found');
      return cloneJson(alert);
    },
    async listCases() {
      return cloneJson(await repos.cases.listCases());
    },
    async getCase(caseId) {
      assertId(caseId, 'caseId');
      const c = await repos.cases.getCase(caseId);
      if (!c) throw new TxmonError('CASE_NOT_FOUND', 'case not found');
      return cloneJson(c);
    },
  };
  return engine;
}
