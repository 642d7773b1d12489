/**
 * `txmon generate` as a library: a seeded generator of a labelled synthetic payment history —
 * customers with realistic normal behaviour and injected, labelled money-laundering typologies
 * (docs/typologies.md). Pure: no clock, no `Math.random`, no I/O; the same options give the same
 * records. Imports only from `src/domain/`.
 *
 * @example
 * ```ts
 * const data = createSyntheticData({ users: 1000, days: 30, seed: 42 });
 * for (const user of data.users()) save(user);
 * for (const record of data.history()) if (record.kind === 'transaction') replay(record.transaction); else replayEvent(record.event);
 * ```
 */
import type { BusinessUser, ConsumerUser, Transaction, TransactionEvent } from '../../domain/index.js';
import { DAY_MS } from '../../domain/index.js';
import { dayInfo } from './calendar.js';
import { createDrafter } from './drafting.js';
import { draftUserDay, type UserDayState } from './normal.js';
import { resolveGenerateOptions, type GenerateOptions, type ResolvedGenerateOptions } from './options.js';
import { createExternals, type Externals } from './parties.js';
import { drawPopulation, toUserRecord, type UserProfile } from './population.js';
import { STREAMS, createRandom, deriveSeed } from './random.js';
import { countSchemes, planSchemes, type SchemePlan } from './schemes.js';
import { createTimeline, type Timeline } from './timeline.js';
import { TYPOLOGY_MODULES } from './typologies/index.js';
import type { DraftEvent, DraftTransaction, HistoryRecord, LabelRow, Typology } from './types.js';

export {
  GenerateOptionsError,
  resolveGenerateOptions,
  DEFAULT_START,
  DEFAULT_MIN_SCHEMES,
  DEFAULT_TYPOLOGY_RATE,
  MIN_DAYS,
  MAX_DAYS,
  MAX_USERS,
  MIN_USERS_WITH_TYPOLOGIES,
} from './options.js';
export type { GenerateOptions, ResolvedGenerateOptions } from './options.js';
export { TYPOLOGIES } from './types.js';
export type { HistoryRecord, LabelRow, SchemeLabel, Typology } from './types.js';

/** A summary of one planned scheme. */
export interface SchemeSummary {
  readonly scheme: string;
  readonly typology: Typology;
  /** Its accounts' user ids, the key account first. */
  readonly userIds: readonly string[];
}

/** A generation run: its customers, its labels and its history (re-iterable: each call starts over). */
export interface SyntheticData {
  readonly options: ResolvedGenerateOptions;
  /** The schemes injected, in scheme-id order. */
  readonly schemes: readonly SchemeSummary[];
  /** Schemes per typology. */
  readonly schemeCounts: Readonly<Record<Typology, number>>;
  /** The user-level label rows (every account of every scheme), in scheme order. */
  readonly userLabels: readonly LabelRow[];
  /** The customers, as bodies of `POST /consumer/users` or `POST /business/users` (business users have `legalEntity`), by user id. */
  users(): Generator<ConsumerUser | BusinessUser>;
  /**
   * The history in time order (ties by drafting order): transactions, with their label when they
   * belong to a scheme, and their events, each after its transaction. Ids are given in this order
   * (`t-0000001`, `e-0000001`, …). Drafting is streamed: memory holds about a day of transactions.
   */
  history(): Generator<HistoryRecord>;
}

/**
 * Plans a run: draws the customers and deals out the schemes. Nothing is drafted until
 * {@link SyntheticData.history} is iterated.
 * @throws GenerateOptionsError naming the first wrong option
 */
export function createSyntheticData(options: GenerateOptions): SyntheticData {
  const resolved = resolveGenerateOptions(options);
  const externals = createExternals(resolved.seed);
  const profiles = drawPopulation(resolved.seed, resolved.users, resolved.start, resolved.days, externals);
  const plans = planSchemes(resolved, profiles);
  const userLabels: LabelRow[] = plans.flatMap((plan) => plan.accounts.map((p) => ({ level: 'user' as const, id: p.userId, ...plan.label })));
  return {
    options: resolved,
    schemes: plans.map((plan) => ({ scheme: plan.label.scheme, typology: plan.label.typology, userIds: plan.accounts.map((p) => p.userId) })),
    schemeCounts: countSchemes(plans),
    userLabels,
    *users() {
      for (const p of profiles) yield toUserRecord(p);
    },
    history: () => draftHistory(resolved, profiles, plans, externals),
  };
}

function formatId(prefix: string, n: number): string {
  return `${prefix}-${String(n).padStart(7, '0')}`;
}

function* draftHistory(
  options: ResolvedGenerateOptions,
  profiles: readonly UserProfile[],
  plans: readonly SchemePlan[],
  externals: Externals,
): Generator<HistoryRecord> {
  const end = options.start + options.days * DAY_MS;
  const timeline = createTimeline();
  const drafter = createDrafter();
  const push = (draft: DraftTransaction) => timeline.push(draft);
  for (const plan of plans) {
    const context = {
      random: createRandom(plan.seed),
      accounts: plan.accounts,
      label: plan.label,
      start: options.start,
      days: options.days,
      params: plan.params,
      drafter,
      externals,
      push,
    };
    TYPOLOGY_MODULES[plan.label.typology].draft(context);
  }
  const states: UserDayState[] = profiles.map((p) => ({
    random: createRandom(deriveSeed(options.seed, STREAMS.user, p.index)),
    travelUntil: -1,
    travelCountry: p.country,
  }));
  const normal = { profiles, externals, drafter, push };
  let transactions = 0;
  let events = 0;
  for (let index = 0; index < options.days; index++) {
    const day = dayInfo(options.start, index);
    for (const p of profiles) draftUserDay(normal, p, states[p.index] as UserDayState, day);
    const dayEnd = day.start + DAY_MS;
    for (let next = timeline.peek(); next !== undefined && next.timestamp < dayEnd; next = timeline.peek()) {
      timeline.pop();
      if (next.kind === 'transaction') {
        transactions += 1;
        next.transactionId = formatId('t', transactions);
        scheduleEvents(timeline, next, end, drafter.nextOrder);
        yield { kind: 'transaction', transaction: toTransaction(next), label: next.label };
      } else {
        events += 1;
        yield { kind: 'event', event: toEvent(next, formatId('e', events)) };
      }
    }
  }
}

/** Queues a written transaction's events that fall inside the history (later ones are left out, as a snapshot would). */
function scheduleEvents(timeline: Timeline, transaction: DraftTransaction, end: number, nextOrder: () => number): void {
  for (const spec of transaction.events) {
    if (spec.timestamp >= end) return;
    const event: DraftEvent = { kind: 'event', timestamp: spec.timestamp, order: nextOrder(), transaction, spec };
    timeline.push(event);
  }
}

function toTransaction(draft: DraftTransaction): Transaction {
  // `type` first, then the id, then the rest in drafting order: the same key order on every line.
  const { type, ...rest } = draft.body;
  return { type, transactionId: draft.transactionId as string, ...rest };
}

function toEvent(draft: DraftEvent, eventId: string): TransactionEvent {
  const { spec } = draft;
  return {
    transactionId: draft.transaction.transactionId as string,
    eventId,
    timestamp: spec.timestamp,
    transactionState: spec.transactionState,
    ...(spec.reason === undefined ? {} : { reason: spec.reason }),
    ...(spec.updatedTransactionAttributes === undefined ? {} : { updatedTransactionAttributes: spec.updatedTransactionAttributes }),
  };
}
