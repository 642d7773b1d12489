/**
 * An engine on PGlite or PostgreSQL answers exactly what an engine on the memory repositories
 * answers. Seeded runs of {@link OPERATIONS_PER_RUN} operations — transactions (boundary amounts,
 * several users, countries and currencies, same-instant and late timestamps), events (amount and
 * state updates, late events, lifecycle violations), exact and conflicting replays of both, rule
 * instances of a dozen library rules and custom logic created, updated (mode, status, parameters,
 * filters) and deleted, users created and replaced, comments with and without files, blacklists and
 * whitelists that rules and filters read, and reads — go to both engines, built with identical
 * options (each its own fixed clock, advanced identically; sequential ids; the same risk factors).
 * Every answer must be deep-equal (the value, or the error's code and details), and so must the
 * whole state at the end. A run is named by its seed; `FC_SEED=<n>` replays run `<n>` alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CASE_PRIORITIES,
  DEFAULT_TRANSITIONS,
  KYC_STATUSES,
  RISK_LEVELS,
  RULE_ACTIONS,
  TRANSACTION_STATES,
  USER_STATES,
  isTxmonError,
  type CommentTarget,
  type Engine,
  type EngineOptions,
  type TransactionState,
} from '../../src/index.js';
import {
  TESTING_COUNTRIES,
  TESTING_HIGH_RISK_COUNTRIES,
  TESTING_USER_IDS,
  businessUserArbitrary,
  consumerUserArbitrary,
  transactionArbitrary,
} from '../../src/testing/arbitraries.js';
import { ADAPTER_TARGETS, type AdapterDatabase } from '../adapters.js';
import { DAY, HOUR, T0, testEngine } from '../helpers.js';

/** Operations of one seeded run. */
const OPERATIONS_PER_RUN = 1000;

/** The seeds of the runs: `FC_SEED` alone when set (to replay one run), else three fixed ones. */
const SEEDS: readonly number[] = process.env.FC_SEED?.trim() ? [Number(process.env.FC_SEED)] : [20250115, 424242, 7];

/** Options of both engines (the test engine adds the fixed clock, sequential ids and a signing secret). */
const ENGINE_OPTIONS: EngineOptions = {
  riskFactors: [
    {
      id: 'origin-country',
      parameter: 'originCountry',
      weight: 2,
      defaultRiskLevel: 'MEDIUM',
      mapping: [
        { values: [...TESTING_HIGH_RISK_COUNTRIES], riskLevel: 'VERY_HIGH' },
        { values: ['DE', 'FR', 'NL'], riskLevel: 'VERY_LOW' },
      ],
    },
    {
      id: 'origin-amount',
      parameter: 'originAmount',
      weight: 1,
      mapping: [
        { min: 0, max: 1000, currency: 'EUR', riskLevel: 'VERY_LOW' },
        { min: 1000, max: 10000, currency: 'EUR', riskLevel: 'MEDIUM' },
        { min: 10000, currency: 'EUR', riskLevel: 'VERY_HIGH' },
      ],
    },
  ],
};

/** The user pool of the transactions, plus a party never created as a user. */
const USERS = [...TESTING_USER_IDS, 'u-ghost'] as const;
const CURRENCIES = ['EUR', 'USD', 'GBP'] as const;
/** Amounts at the thresholds the instances use: exactly at, one minor unit below and above. */
const BOUNDARY_AMOUNTS = [0.01, 999, 999.99, 1000, 1000.01, 1999.99, 2000, 2000.01, 9999.99, 10000, 10000.01] as const;
/** Amounts that are awkward as doubles or as sums: sub-cent, 0.1 + 0.2, long and large decimals. */
const ODD_AMOUNTS = [0, 0.00000001, 0.1, 0.2, 0.3, 1234567.89, 12345.12345678, 1000000000000.01] as const;
/** Text with combining marks, an emoji, right-to-left script and a line separator. */
const ODD_TEXT = ['Cafe\u0301 – caf\u00e9', 'Zahlung \u{1F4B8}', '\u05e9\u05dc\u05d5\u05dd', 'line\u2028break', 'O\'Brien "quoted"'] as const;
const LIST_IDS = ['bl-users', 'bl-country', 'bl-iban', 'wl-users'] as const;

/* ------------------------------------------------------------------------------------------------
 * A seeded source of choices
 * ---------------------------------------------------------------------------------------------- */

/** mulberry32: a small, fast, seeded PRNG (the same seed gives the same run on every machine). */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    int,
    chance: (p: number): boolean => next() < p,
    pick<T>(items: readonly T[]): T {
      return items[int(0, items.length - 1)] as T;
    },
    /** A subset in the original order (empty allowed unless `min` says otherwise). */
    subset<T>(items: readonly T[], min = 0): T[] {
      for (;;) {
        const out = items.filter(() => next() < 0.4);
        if (out.length >= min) return out;
      }
    },
    /** One of `table`'s values, chosen with the given weights. */
    weighted<T>(table: readonly (readonly [number, T])[]): T {
      const total = table.reduce((s, [w]) => s + w, 0);
      let r = next() * total;
      for (const [w, v] of table) {
        r -= w;
        if (r < 0) return v;
      }
      return (table[table.length - 1] as readonly [number, T])[1];
    },
    /** One value of a fast-check arbitrary, drawn from a seed of this source. */
    draw<T>(arbitrary: fc.Arbitrary<T>): T {
      return fc.sample(arbitrary, { seed: int(0, 0x7fffffff), numRuns: 1 })[0] as T;
    },
  };
}
type Random = ReturnType<typeof createRandom>;

/* ------------------------------------------------------------------------------------------------
 * Rule-instance requests: a dozen library rules, custom logic, filters
 * ---------------------------------------------------------------------------------------------- */

type Json = Record<string, unknown>;

const windowOf = (r: Random): Json =>
  r.weighted<Json>([
    [3, { units: r.int(1, 6), granularity: 'hour' }],
    [2, { units: r.int(1, 2), granularity: 'day', rollingBasis: r.chance(0.5) }],
    [1, { units: r.int(20, 90), granularity: 'minute' }],
  ]);
const senderOf = (r: Random) => r.pick(['sending', 'all', 'none']);
const receiverOf = (r: Random) => r.pick(['receiving', 'all', 'none']);
const thresholdOf = (r: Random): Json =>
  r.weighted<Json>([
    [3, { USD: r.pick([1000, 2000, 10000]) }],
    [1, { EUR: r.pick([1000, 5000]), GBP: 800 }],
  ]);

/** Parameters of each library rule the runs use, sized so that the rules both hit and miss. */
const RULE_PARAMETERS: Readonly<Record<string, (r: Random) => Json>> = {
  'R-1': (r) => (r.chance(0.5) ? {} : { transactionAmountThreshold: thresholdOf(r) }),
  'R-2': (r) => ({ transactionAmountThreshold: thresholdOf(r) }),
  'R-3': (r) => ({ initialTransactions: r.int(0, 3) }),
  'R-5': (r) => ({ dormancyPeriodDays: r.int(1, 2), checkDirection: r.pick(['sending', 'all']) }),
  'R-14': (r) => ({ highRiskCountries: r.subset([...TESTING_HIGH_RISK_COUNTRIES, 'DE'], 1) }),
  'R-30': (r) => ({ transactionsLimit: r.int(0, 4), timeWindow: windowOf(r), checkSender: senderOf(r), checkReceiver: receiverOf(r) }),
  'R-69': (r) => ({
    transactionVolumeThreshold: thresholdOf(r),
    ...(r.chance(0.3) ? { transactionVolumeUpperThreshold: { USD: 50000 } } : {}),
    timeWindow: windowOf(r),
    checkSender: senderOf(r),
    checkReceiver: receiverOf(r),
    ...(r.chance(0.3) ? { initialTransactions: r.int(1, 3) } : {}),
  }),
  'R-117': (r) => ({ patterns: r.subset(['999.99', '000', '99', '0.01'], 1), ...(r.chance(0.5) ? { checkDecimal: r.chance(0.5) } : {}) }),
  'R-119': (r) => ({ transactionsLimit: r.int(0, 3), timeWindow: windowOf(r) }),
  'R-121': (r) => ({
    period1: { units: r.int(1, 3), granularity: 'hour', rollingBasis: true },
    period2: { units: r.int(1, 2), granularity: 'day', rollingBasis: true },
    multiplierThreshold: r.pick([100, 150, 200]),
    checkSender: senderOf(r),
    checkReceiver: receiverOf(r),
    ...(r.chance(0.5) ? { excludePeriod1: r.chance(0.5) } : {}),
    ...(r.chance(0.5) ? { transactionsNumberThreshold2: { min: r.int(0, 2) } } : {}),
  }),
  'R-126': (r) => ({
    transactionVolumeThreshold: { USD: r.pick([1000, 2000, 5000]) },
    timeWindow: windowOf(r),
    ...(r.chance(0.4) ? { transactionsLimit: r.int(0, 2) } : {}),
  }),
  'R-131': (r) => ({
    multiplierThreshold: r.int(0, 2),
    timeWindow1: { units: r.int(1, 2), granularity: 'hour', rollingBasis: true },
    timeWindow2: { units: r.int(6, 24), granularity: 'hour', rollingBasis: true },
    checkSender: senderOf(r),
    checkReceiver: receiverOf(r),
    ...(r.chance(0.3) ? { minTransactionsInTimeWindow2: r.int(0, 2) } : {}),
    ...(r.chance(0.3) ? { initialTransactions: r.int(1, 4) } : {}),
  }),
  'R-132': (r) => ({
    blacklistId: r.weighted([
      [8, r.pick(LIST_IDS)],
      [1, 'bl-missing'],
    ]),
  }),
  'TXM-2': (r) => ({ timeWindow: windowOf(r), maxHops: r.int(2, 4), maxTransfersPerAccount: r.pick([1, 2, 16]) }),
  'TXM-4': (r) => ({ timeWindow: windowOf(r), minIntermediaries: r.int(2, 3), maxTransfersPerAccount: r.pick([1, 2, 16]) }),
  // lastEntries lists through both stores: few entries read, loose percentages, so rounds complete.
  'TXM-1': (r) => ({
    minimumInflowAmount: { USD: r.pick([0.01, 1000]) },
    passThroughWindow: { units: r.int(1, 24), granularity: 'hour' },
    minimumOutflowPercentage: r.pick([1, 50, 80]),
    maximumOutflowPercentage: r.pick([100, 1000]),
    minimumRounds: r.int(1, 2),
    roundsWindow: windowOf(r),
    maxEntries: r.int(1, 5),
    ...(r.chance(0.5) ? { outflowTransactionTypes: ['TRANSFER', 'WITHDRAWAL', 'EXTERNAL_PAYMENT'] } : {}),
  }),
  'TXM-3': (r) => ({
    checkDirection: r.pick(['sending', 'receiving', 'all']),
    timeWindow: windowOf(r),
    historyTransactions: r.int(1, 4),
    minimumHistory: 1,
    aboveMultiplier: r.pick([1, 2, 2.5, null]),
    belowMultiplier: r.pick([1, 3]),
  }),
};
const LIBRARY_RULE_IDS = Object.keys(RULE_PARAMETERS);
/** Rules that read history, so historical filters apply to them. */
const STATEFUL_RULE_IDS = new Set(['R-1', 'R-3', 'R-5', 'R-30', 'R-69', 'R-119', 'R-121', 'R-126', 'R-131', 'TXM-1', 'TXM-2', 'TXM-3', 'TXM-4']);

const lastHours = (units: number) => ({ start: { units, granularity: 'hour' }, end: { units: 0, granularity: 'now' } });

/** Custom json-logic instances, some reading aggregation variables (with and without `filtersLogic`). */
const CUSTOM_LOGIC: readonly ((r: Random) => Json)[] = [
  (r) => ({ logic: { '>=': [{ var: 'transaction.originAmountDetails.transactionAmount' }, r.pick([1000, 5000])] } }),
  (r) => ({
    logic: { '>': [{ var: 'agg.n' }, r.int(1, 3)] },
    logicAggregationVariables: [
      {
        key: 'n',
        aggregationFunc: 'COUNT',
        userDirection: 'SENDER',
        transactionDirection: 'SENDING',
        timeWindow: lastHours(r.int(2, 12)),
        ...(r.chance(0.5) ? { filtersLogic: { '==': [{ var: 'transaction.type' }, 'TRANSFER'] } } : {}),
      },
    ],
  }),
  (r) => ({
    logic: { '>=': [{ var: 'agg.total' }, r.pick([2000, 10000])] },
    logicAggregationVariables: [
      {
        key: 'total',
        aggregationFunc: 'SUM',
        aggregationFieldKey: 'amount',
        userDirection: 'SENDER_OR_RECEIVER',
        transactionDirection: 'SENDING_RECEIVING',
        timeWindow: lastHours(24),
        ...(r.chance(0.5) ? { baseCurrency: 'EUR' } : {}),
        ...(r.chance(0.3) ? { filtersLogic: { in: [{ var: 'transaction.transactionState' }, ['SUCCESSFUL', 'SENT']] } } : {}),
      },
    ],
  }),
  (r) => ({
    logic: { or: [{ '>': [{ var: 'agg.peers' }, 1] }, { '>=': [{ var: 'agg.avg' }, 3000] }] },
    logicAggregationVariables: [
      {
        key: 'peers',
        aggregationFunc: 'UNIQUE_COUNT',
        aggregationFieldKey: 'destinationUserId',
        userDirection: 'SENDER',
        transactionDirection: 'SENDING',
        timeWindow: lastHours(r.int(3, 24)),
      },
      {
        key: 'avg',
        aggregationFunc: 'AVG',
        aggregationFieldKey: 'amount',
        userDirection: 'SENDER',
        transactionDirection: 'SENDING',
        timeWindow: lastHours(48),
        includeCurrentEntity: r.chance(0.5),
      },
    ],
  }),
];

function filtersOf(r: Random, stateful: boolean): Json {
  const options: (readonly [number, () => Json])[] = [
    [2, () => ({ transactionTypes: r.subset(['TRANSFER', 'DEPOSIT', 'WITHDRAWAL', 'EXTERNAL_PAYMENT', 'REFUND'], 1) })],
    [2, () => ({ whitelistUsers: { listIds: ['wl-users'] } })],
    [1, () => ({ whitelistUsers: { userIds: r.subset(TESTING_USER_IDS, 1) } })],
    [1, () => ({ originTransactionCountries: r.subset(TESTING_COUNTRIES, 1) })],
    [1, () => ({ userType: r.pick(['CONSUMER', 'BUSINESS']) })],
    [1, () => ({ kycStatus: r.subset(KYC_STATUSES, 1) })],
    [1, () => ({ transactionAmountRange: { USD: { min: 100, max: 10000 }, EUR: { min: 1000 } } })],
    [1, () => ({ transactionStates: r.subset(['CREATED', 'PROCESSING', 'SENT', 'SUCCESSFUL'], 1) })],
  ];
  if (stateful) {
    options.push([2, () => ({ transactionStatesHistorical: r.subset(['CREATED', 'PROCESSING', 'SENT', 'SUCCESSFUL'], 1) })]);
    options.push([1, () => ({ transactionTypesHistorical: ['TRANSFER'], transactionAmountRangeHistorical: { EUR: { min: 500 } } })]);
  }
  return r.weighted(options)();
}

/** A rule-instance request: a library rule (or custom logic) with random action, mode, status, alerts, filters and per-level maps. */
function ruleInstanceRequest(r: Random): { request: Json; ruleId: string } {
  const custom = r.chance(0.15);
  const ruleId = custom ? 'CUSTOM' : r.pick(LIBRARY_RULE_IDS);
  const build = RULE_PARAMETERS[ruleId];
  const request: Json = custom ? r.pick(CUSTOM_LOGIC)(r) : { ruleId, parameters: (build as (r: Random) => Json)(r) };
  if (r.chance(0.6)) request.action = r.pick(RULE_ACTIONS);
  if (r.chance(0.3)) request.mode = r.pick(['LIVE', 'SHADOW']);
  if (r.chance(0.1)) request.status = 'INACTIVE';
  request.alertCreationOnHit = r.chance(0.7);
  if (r.chance(0.3)) request.casePriority = r.pick(CASE_PRIORITIES);
  if (r.chance(0.2)) request.ruleNameAlias = r.pick(['Large transfer', 'Velocity check', 'Watch list']);
  if (r.chance(0.15)) {
    request.triggersOnHit = r.chance(0.5)
      ? { usersToCheck: r.pick(['ALL', 'ORIGIN', 'DESTINATION']), userStateDetails: { state: r.pick(USER_STATES), reason: 'Rule hit' } }
      : { usersToCheck: r.pick(['ALL', 'ORIGIN', 'DESTINATION']), kycStatusDetails: { status: r.pick(KYC_STATUSES), reason: 'Rule hit' } };
  }
  if (!custom && build !== undefined && r.chance(0.15)) {
    request.riskLevelParameters = Object.fromEntries(RISK_LEVELS.map((level) => [level, build(r)]));
  }
  if (r.chance(0.15)) request.riskLevelActions = Object.fromEntries(RISK_LEVELS.map((level) => [level, r.pick(RULE_ACTIONS)]));
  if (r.chance(0.25)) request.filters = filtersOf(r, !custom && STATEFUL_RULE_IDS.has(ruleId));
  return { request, ruleId };
}

/** A partial update of an instance of `ruleId`. */
function ruleInstanceUpdate(r: Random, ruleId: string): Json {
  const build = RULE_PARAMETERS[ruleId];
  return r.weighted<() => Json>([
    [3, () => ({ status: r.pick(['ACTIVE', 'INACTIVE']) })],
    [2, () => ({ mode: r.pick(['LIVE', 'SHADOW']) })],
    [3, () => (build !== undefined ? { parameters: build(r) } : ruleId === 'CUSTOM' ? r.pick(CUSTOM_LOGIC)(r) : {})],
    [2, () => ({ action: r.pick(RULE_ACTIONS), alertCreationOnHit: r.chance(0.5) })],
    [2, () => ({ filters: r.chance(0.3) ? {} : filtersOf(r, STATEFUL_RULE_IDS.has(ruleId)) })],
    // Read-only fields and unknown rules are refused alike on both sides.
    [1, () => (r.chance(0.5) ? { runCount: 5 } : { ruleId: 'R-404' })],
  ])();
}

/* ------------------------------------------------------------------------------------------------
 * Operations and what the generator knows of the run so far
 * ---------------------------------------------------------------------------------------------- */

/** What a call produced: its value, or the error's code and details. */
type Outcome = { ok: true; value: unknown } | { ok: false; code: string; details: unknown } | { ok: false; unexpected: string };

async function perform(engine: Engine, run: (engine: Engine) => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await run(engine) };
  } catch (e) {
    if (isTxmonError(e)) return { ok: false, code: e.code, details: e.details };
    return { ok: false, unexpected: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

interface Operation {
  /** What the operation is, for the failure message (kind and ids, never a whole payload). */
  readonly label: string;
  /** How far the clocks move before the call. */
  readonly advance: number;
  run(engine: Engine): Promise<unknown>;
  /** Updates what the generator knows from the (agreed) outcome. */
  after?(outcome: Outcome): void;
}

interface KnownTransaction {
  id: string;
  body: Json;
  timestamp: number;
  state: TransactionState;
  /** Greatest accepted event timestamp (`null` before the first event). */
  lastEventAt: number | null;
}

interface RunState {
  now: number;
  transactions: KnownTransaction[];
  events: { id: string; body: Json }[];
  instances: { id: string; ruleId: string }[];
  deletedInstanceIds: string[];
  ibans: Set<string>;
  fileKeys: { key: string; filename: string; size: number }[];
  /** Sequence numbers for ids the test chooses. */
  nextTransaction: number;
  nextEvent: number;
}

type EngineMethod = { [K in keyof Engine]: Engine[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof Engine];

/** A call of engine method `name` with a fresh copy of `args` for each engine. */
/** The generated payloads are plain JSON, possibly invalid on purpose: the engine checks them at run time. */
function call<K extends EngineMethod>(name: K, ...args: unknown[]): (engine: Engine) => Promise<unknown> {
  return (engine) => (engine[name] as (...a: unknown[]) => Promise<unknown>).apply(engine, structuredClone(args));
}

/** The same payload with its keys in reverse order (an exact replay: canonical JSON makes it equal). */
function reordered(body: Json): Json {
  return Object.fromEntries(Object.entries(structuredClone(body)).reverse());
}

function transactionBody(r: Random, s: RunState): Json {
  const rich = r.draw(
    transactionArbitrary({ from: s.now - 2 * DAY, to: s.now, userIds: USERS, currencies: CURRENCIES, initialStates: r.chance(0.2) }),
  ) as unknown as Json;
  const body: Json = { ...rich, transactionId: `tx-${s.nextTransaction++}` };
  const others = s.transactions;
  body.timestamp = r.weighted<() => number>([
    [6, () => s.now - r.int(0, 6 * HOUR)],
    [2, () => (others.length > 0 ? r.pick(others).timestamp : s.now)],
    [1, () => (others.length > 0 ? r.pick(others).timestamp + r.pick([-1, 1]) : s.now)],
    // Arrives late: older than much of what is stored.
    [1, () => s.now - r.int(1 * DAY, 6 * DAY)],
  ])();
  if (r.chance(0.45) && body.originAmountDetails !== undefined) {
    const amount = r.chance(0.8) ? r.pick(BOUNDARY_AMOUNTS) : r.pick(ODD_AMOUNTS);
    // Now and then a currency without decimals, or one the rate table cannot convert.
    const currency = r.weighted<string>([
      [20, r.pick(CURRENCIES)],
      [1, 'JPY'],
      [1, 'BTC'],
    ]);
    body.originAmountDetails = { ...(body.originAmountDetails as Json), transactionAmount: amount, transactionCurrency: currency };
    if (body.destinationAmountDetails !== undefined) {
      body.destinationAmountDetails = { ...(body.destinationAmountDetails as Json), transactionAmount: amount, transactionCurrency: currency };
    }
  }
  if (r.chance(0.05)) body.reference = r.pick(ODD_TEXT);
  for (const side of ['originPaymentDetails', 'destinationPaymentDetails']) {
    const details = body[side] as Json | undefined;
    if (details?.method === 'IBAN' && typeof details.IBAN === 'string') s.ibans.add(details.IBAN);
  }
  return body;
}

function eventPatch(r: Random): Json {
  return r.weighted<() => Json>([
    [
      4,
      () => ({
        originAmountDetails: {
          transactionAmount: r.chance(0.85) ? r.pick(BOUNDARY_AMOUNTS) : r.pick(ODD_AMOUNTS),
          transactionCurrency: r.pick(CURRENCIES),
          country: r.pick(TESTING_COUNTRIES),
        },
      }),
    ],
    [1, () => ({ destinationAmountDetails: { transactionAmount: r.pick(BOUNDARY_AMOUNTS), transactionCurrency: 'USD', country: r.pick(TESTING_COUNTRIES) } })],
    [1, () => ({ reference: r.chance(0.5) ? null : `ref-${r.int(0, 99)}`, tags: [{ key: 'channel', value: r.pick(['web', 'api']) }] })],
    [1, () => ({ originDeviceData: null, promotionCodeUsed: r.chance(0.5) })],
  ])();
}

/** An event for `t`: a lifecycle step (sometimes an illegal one), in order or late, sometimes with an update. */
function eventBody(r: Random, s: RunState, t: KnownTransaction, late: boolean): Json {
  const legal: TransactionState[] = [t.state, ...DEFAULT_TRANSITIONS[t.state]];
  const state = r.chance(0.9) ? r.pick(legal) : r.pick(TRANSACTION_STATES);
  const after = Math.max(t.timestamp, t.lastEventAt ?? t.timestamp);
  const timestamp = late && t.lastEventAt !== null ? r.int(t.timestamp, t.lastEventAt - 1) : after + r.int(1, 2 * HOUR);
  const body: Json = { transactionId: t.id, timestamp, transactionState: state };
  if (r.chance(0.92)) body.eventId = `ev-${s.nextEvent++}`;
  if (r.chance(0.4)) body.updatedTransactionAttributes = eventPatch(r);
  if (r.chance(0.1)) body.reason = 'Updated by the payment processor';
  return body;
}

function userBody(r: Random, userId: string): { body: Json; type: 'CONSUMER' | 'BUSINESS' } {
  const options = { userIds: [userId], from: T0 - 400 * DAY, to: T0 };
  if (r.chance(0.25)) return { body: r.draw(businessUserArbitrary(options)) as unknown as Json, type: 'BUSINESS' };
  return { body: r.draw(consumerUserArbitrary(options)) as unknown as Json, type: 'CONSUMER' };
}

function listBody(r: Random, s: RunState, listId: (typeof LIST_IDS)[number]): Json {
  const named = r.chance(0.5) ? { name: `List ${listId}`, description: 'Maintained by compliance' } : {};
  switch (listId) {
    case 'bl-users':
      return { listType: 'BLACKLIST', subtype: 'USER_ID', ...named, items: r.subset(USERS) };
    case 'bl-country':
      return { listType: 'BLACKLIST', subtype: 'COUNTRY', ...named, items: r.subset(TESTING_COUNTRIES) };
    case 'bl-iban':
      return { listType: 'BLACKLIST', subtype: 'IBAN_NUMBER', ...named, items: [...r.subset([...s.ibans].slice(-20)), 'DE00000000000000000000'] };
    case 'wl-users':
      // Duplicates are kept once, in first-seen order.
      return { listType: 'WHITELIST', subtype: 'USER_ID', ...named, items: [...r.subset(TESTING_USER_IDS), ...r.subset(TESTING_USER_IDS)] };
  }
}

/** Access to an upload slot from its URL (what the HTTP layer parses). */
function uploadAccess(slot: { key: string; url: string }) {
  const url = new URL(slot.url, 'http://txmon.test');
  return { key: slot.key, expiresAt: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature') ?? '' };
}

/**
 * The next operation, chosen from what the run knows (`memory` answers the generator's own
 * questions — which alerts and cases exist — without changing anything).
 */
async function nextOperation(r: Random, s: RunState, memory: Engine, step: number): Promise<Operation> {
  // Mostly minutes between requests; now and then a day or two (dormancy, day windows).
  const advance = r.weighted<() => number>([
    [20, () => r.int(0, 20 * 60_000)],
    [2, () => r.int(1, 3) * HOUR],
    [1, () => r.int(1, 2) * DAY + r.int(0, HOUR)],
  ])();
  s.now += advance;
  const op = (label: string, run: (engine: Engine) => Promise<unknown>, after?: (o: Outcome) => void): Operation =>
    after === undefined ? { label, advance, run } : { label, advance, run, after };

  // The first operations set the scene: lists and a handful of instances.
  if (step < LIST_IDS.length) {
    const listId = LIST_IDS[step] as (typeof LIST_IDS)[number];
    return op(`putList ${listId}`, call('putList', listId, listBody(r, s, listId)));
  }
  const seeding = step < LIST_IDS.length + 8;

  const txs = s.transactions;
  const kind = seeding
    ? 'createRuleInstance'
    : r.weighted<string>([
        [28, 'createTransaction'],
        [3, 'replayTransaction'],
        [2, 'conflictingTransaction'],
        [18, 'event'],
        [6, 'lateEvent'],
        [3, 'replayEvent'],
        [2, 'conflictingEvent'],
        [1, 'eventOfUnknownTransaction'],
        [6, 'createUser'],
        [4, 'createRuleInstance'],
        [4, 'updateRuleInstance'],
        [1, 'deleteRuleInstance'],
        [4, 'comment'],
        [1, 'commentWithFile'],
        [2, 'putList'],
        [1, 'deleteList'],
        [8, 'read'],
      ]);

  switch (kind) {
    case 'createTransaction': {
      const body = transactionBody(r, s);
      return op(`createTransaction ${String(body.transactionId)}`, call('createTransaction', body), (o) => {
        if (!o.ok) return;
        const state = (body.transactionState as TransactionState | undefined) ?? 'CREATED';
        txs.push({ id: body.transactionId as string, body, timestamp: body.timestamp as number, state, lastEventAt: null });
      });
    }
    case 'replayTransaction':
    case 'conflictingTransaction': {
      if (txs.length === 0) break;
      const t = r.pick(txs);
      if (kind === 'replayTransaction') return op(`replay createTransaction ${t.id}`, call('createTransaction', reordered(t.body)));
      const changed = { ...structuredClone(t.body), timestamp: (t.body.timestamp as number) + 1 };
      return op(`conflicting createTransaction ${t.id}`, call('createTransaction', changed));
    }
    case 'event':
    case 'lateEvent': {
      if (txs.length === 0) break;
      const t = r.pick(txs);
      const body = eventBody(r, s, t, kind === 'lateEvent');
      return op(
        `${kind === 'lateEvent' ? 'late ' : ''}createTransactionEvent ${t.id} ${String(body.eventId ?? '(no eventId)')}`,
        call('createTransactionEvent', body),
        (o) => {
          if (!o.ok) return;
          const value = o.value as { eventId: string; transaction: { transactionState?: TransactionState } };
          s.events.push({ id: value.eventId, body });
          t.state = value.transaction.transactionState ?? 'CREATED';
          t.lastEventAt = Math.max(t.lastEventAt ?? Number.NEGATIVE_INFINITY, body.timestamp as number);
        },
      );
    }
    case 'replayEvent':
    case 'conflictingEvent': {
      const withIds = s.events.filter((e) => e.body.eventId !== undefined);
      if (withIds.length === 0) break;
      const e = r.pick(withIds);
      if (kind === 'replayEvent') return op(`replay createTransactionEvent ${e.id}`, call('createTransactionEvent', reordered(e.body)));
      const changed = r.chance(0.5)
        ? { ...structuredClone(e.body), timestamp: (e.body.timestamp as number) + 1 }
        : { ...structuredClone(e.body), transactionId: r.pick(txs).id };
      return op(`conflicting createTransactionEvent ${e.id}`, call('createTransactionEvent', changed));
    }
    case 'eventOfUnknownTransaction':
      return op(
        'createTransactionEvent of an unknown transaction',
        call('createTransactionEvent', { transactionId: 'tx-unknown', eventId: `ev-${s.nextEvent++}`, timestamp: s.now, transactionState: 'SENT' }),
      );
    case 'createUser': {
      const userId = r.weighted([
        [10, r.pick(TESTING_USER_IDS)],
        [1, `u-new-${r.int(0, 9)}`],
      ]);
      const { body, type } = userBody(r, userId);
      return op(`createUser ${userId} ${type}`, call('createUser', body, { type }));
    }
    case 'createRuleInstance': {
      const { request, ruleId } = ruleInstanceRequest(r);
      return op(`createRuleInstance ${ruleId}`, call('createRuleInstance', request), (o) => {
        if (o.ok) s.instances.push({ id: (o.value as { id: string }).id, ruleId: (o.value as { ruleId: string }).ruleId });
      });
    }
    case 'updateRuleInstance': {
      if (s.instances.length === 0) break;
      const target = r.chance(0.95) || s.deletedInstanceIds.length === 0 ? r.pick(s.instances) : { id: r.pick(s.deletedInstanceIds), ruleId: 'R-2' };
      const update = ruleInstanceUpdate(r, target.ruleId);
      return op(`updateRuleInstance ${target.id} ${Object.keys(update).join(',')}`, call('updateRuleInstance', target.id, update), (o) => {
        const ruleId = o.ok ? (o.value as { ruleId: string }).ruleId : undefined;
        const known = s.instances.find((i) => i.id === target.id);
        if (known !== undefined && ruleId !== undefined) known.ruleId = ruleId;
      });
    }
    case 'deleteRuleInstance': {
      if (s.instances.length === 0) break;
      const index = r.int(0, s.instances.length - 1);
      const id = r.chance(0.9) || s.deletedInstanceIds.length === 0 ? (s.instances[index] as { id: string }).id : r.pick(s.deletedInstanceIds);
      return op(`deleteRuleInstance ${id}`, call('deleteRuleInstance', id), (o) => {
        if (!o.ok) return;
        s.instances = s.instances.filter((i) => i.id !== id);
        s.deletedInstanceIds.push(id);
      });
    }
    case 'comment': {
      const body: Json = { body: r.pick(['Checked ID', 'Escalated to compliance', 'False positive: salary', ...ODD_TEXT]) };
      if (r.chance(0.3)) body.createdTimestamp = s.now - r.int(0, DAY);
      const target = r.pick(['user', 'alert', 'case'] as const);
      if (target === 'user') {
        const userId = r.weighted([
          [8, r.pick(USERS)],
          [1, 'u-nobody'],
        ]);
        return op(`createUserComment ${userId}`, call('createUserComment', userId, body));
      }
      const ids = target === 'alert' ? (await memory.listAlerts()).map((a) => a.alertId) : (await memory.listCases()).map((c) => c.caseId);
      const id = ids.length > 0 && r.chance(0.9) ? r.pick(ids) : `${target}-999`;
      return target === 'alert'
        ? op(`createAlertComment ${id}`, call('createAlertComment', id, body))
        : op(`createCaseComment ${id}`, call('createCaseComment', id, body));
    }
    case 'commentWithFile': {
      // Upload a slot's bytes on each engine (the same key, URL and signature on both), then attach it.
      const filename = r.pick(['kyc.pdf', 'statement.csv']);
      const bytes = new Uint8Array(r.int(1, 16)).map((_, i) => (i * 31 + step) % 256);
      const userId = r.pick(TESTING_USER_IDS);
      return op(
        `upload ${filename} and createUserComment ${userId}`,
        async (e) => {
          const slot = await e.createUpload({ filename, fileSize: bytes.length });
          await e.putUploadContent(uploadAccess(slot), bytes);
          const comment = await e.createUserComment(userId, { body: 'Document attached', files: [{ s3Key: slot.key, filename, size: bytes.length }] });
          return { slot, comment };
        },
        (o) => {
          if (o.ok) s.fileKeys.push({ key: (o.value as { slot: { key: string } }).slot.key, filename, size: bytes.length });
        },
      );
    }
    case 'putList': {
      const listId = r.pick(LIST_IDS);
      return op(`putList ${listId}`, call('putList', listId, listBody(r, s, listId)));
    }
    case 'deleteList': {
      const listId = r.weighted([
        [5, r.pick(LIST_IDS)],
        [1, 'bl-missing'],
      ]);
      return op(`deleteList ${listId}`, call('deleteList', listId));
    }
    case 'read': {
      const txId = txs.length > 0 && r.chance(0.9) ? r.pick(txs).id : 'tx-unknown';
      const eventId = s.events.length > 0 && r.chance(0.9) ? r.pick(s.events).id : 'ev-unknown';
      const alerts = (await memory.listAlerts()).map((a) => a.alertId);
      const cases = (await memory.listCases()).map((c) => c.caseId);
      const instanceId = s.instances.length > 0 && r.chance(0.8) ? r.pick(s.instances).id : r.pick([...s.deletedInstanceIds, 'ruleInstance-999']);
      return r.weighted<() => Operation>([
        [4, () => op(`getTransaction ${txId}`, call('getTransaction', txId))],
        [2, () => op(`getTransactionEvent ${eventId}`, call('getTransactionEvent', eventId))],
        [
          3,
          () => {
            const u = r.weighted([
              [8, r.pick(USERS)],
              [1, 'u-nobody'],
            ]);
            return op(`getUser ${u}`, call('getUser', u));
          },
        ],
        [
          2,
          () => {
            const id = alerts.length > 0 ? r.pick(alerts) : 'alert-999';
            return op(`getAlert ${id}`, call('getAlert', id));
          },
        ],
        [
          2,
          () => {
            const id = cases.length > 0 ? r.pick(cases) : 'case-999';
            return op(`getCase ${id}`, call('getCase', id));
          },
        ],
        [2, () => op(`getRuleInstance ${instanceId}`, call('getRuleInstance', instanceId))],
        [1, () => op('listRuleInstances', (e) => e.listRuleInstances())],
        [1, () => op('listAlerts', (e) => e.listAlerts())],
        [1, () => op('listCases', (e) => e.listCases())],
        [1, () => op('listLists', (e) => e.listLists())],
        [
          1,
          () => {
            const id = r.weighted([
              [5, r.pick(LIST_IDS)],
              [1, 'bl-missing'],
            ]);
            return op(`getList ${id}`, call('getList', id));
          },
        ],
      ])();
    }
  }
  // Nothing to act on yet (no transaction, event or instance): create a transaction instead.
  const body = transactionBody(r, s);
  return op(`createTransaction ${String(body.transactionId)}`, call('createTransaction', body), (o) => {
    if (o.ok)
      txs.push({
        id: body.transactionId as string,
        body,
        timestamp: body.timestamp as number,
        state: (body.transactionState as TransactionState | undefined) ?? 'CREATED',
        lastEventAt: null,
      });
  });
}

/* ------------------------------------------------------------------------------------------------
 * The whole observable state at the end of a run
 * ---------------------------------------------------------------------------------------------- */

async function observableState(engine: Engine, s: RunState, seenUserIds: readonly string[]) {
  const answer = (run: (engine: Engine) => Promise<unknown>) => perform(engine, run);
  const alerts = await engine.listAlerts();
  const cases = await engine.listCases();
  const lists = await engine.listLists();
  const comments = async (target: CommentTarget) => ({ target, comments: await engine.repositories.comments.listComments(target) });
  return {
    ruleInstances: await engine.listRuleInstances(),
    deletedRuleInstances: await Promise.all(s.deletedInstanceIds.map((id) => answer((e) => e.getRuleInstance(id)))),
    alerts,
    alertsOneByOne: await Promise.all(alerts.map((a) => engine.getAlert(a.alertId))),
    cases,
    casesOneByOne: await Promise.all(cases.map((c) => engine.getCase(c.caseId))),
    transactions: await Promise.all(s.transactions.map((t) => engine.getTransaction(t.id))),
    events: await Promise.all(s.events.map((e) => engine.getTransactionEvent(e.id))),
    users: await Promise.all(seenUserIds.map((id) => answer((e) => e.getUser(id)))),
    lists,
    listsOneByOne: await Promise.all(LIST_IDS.map((id) => answer((e) => e.getList(id)))),
    comments: await Promise.all([
      ...seenUserIds.map((id) => comments({ kind: 'user', id })),
      ...alerts.map((a) => comments({ kind: 'alert', id: a.alertId })),
      ...cases.map((c) => comments({ kind: 'case', id: c.caseId })),
    ]),
    files: await Promise.all(s.fileKeys.map((f) => engine.repositories.files.getFile(f.key))),
  };
}

/* ------------------------------------------------------------------------------------------------
 * The runs
 * ---------------------------------------------------------------------------------------------- */

interface RunSummary {
  rejected: Record<string, number>;
  transactions: number;
  events: number;
  hits: number;
  alerts: number;
  cases: number;
  instances: number;
}

/** Runs one seeded sequence through a memory engine and an engine on fresh repositories of `db`, comparing every answer. */
async function runDifferential(seed: number, db: AdapterDatabase): Promise<RunSummary> {
  const memory = testEngine(ENGINE_OPTIONS);
  const other = testEngine({ ...ENGINE_OPTIONS, repositories: await db.fresh() });
  const r = createRandom(seed);
  const s: RunState = {
    now: memory.clock.now(),
    transactions: [],
    events: [],
    instances: [],
    deletedInstanceIds: [],
    ibans: new Set(),
    fileKeys: [],
    nextTransaction: 1,
    nextEvent: 1,
  };
  const summary: RunSummary = { rejected: {}, transactions: 0, events: 0, hits: 0, alerts: 0, cases: 0, instances: 0 };
  for (let step = 0; step < OPERATIONS_PER_RUN; step += 1) {
    const op = await nextOperation(r, s, memory.engine, step);
    memory.clock.advance(op.advance);
    other.clock.advance(op.advance);
    const expected = await perform(memory.engine, op.run);
    const actual = await perform(other.engine, op.run);
    const where = `seed=${seed}, step ${step}: ${op.label}`;
    // The memory engine must not fail unexpectedly either: both crashing alike would hide a bug.
    expect(expected, where).not.toHaveProperty('unexpected');
    expect(actual, where).toStrictEqual(expected);
    op.after?.(expected);
    if (!expected.ok && 'code' in expected) summary.rejected[expected.code] = (summary.rejected[expected.code] ?? 0) + 1;
    if (expected.ok && op.label.startsWith('createTransaction')) summary.hits += ((expected.value as { hitRules: unknown[] }).hitRules ?? []).length;
  }
  const seenUserIds = [...USERS, ...Array.from({ length: 10 }, (_, i) => `u-new-${i}`)];
  const expectedState = await observableState(memory.engine, s, seenUserIds);
  const actualState = await observableState(other.engine, s, seenUserIds);
  expect(actualState, `seed=${seed}: the state after ${OPERATIONS_PER_RUN} operations`).toStrictEqual(expectedState);
  summary.transactions = expectedState.transactions.length;
  summary.events = expectedState.events.length;
  summary.alerts = expectedState.alerts.length;
  summary.cases = expectedState.cases.length;
  summary.instances = expectedState.ruleInstances.length;
  return summary;
}

for (const target of ADAPTER_TARGETS.filter((t) => t.name !== 'memory')) {
  describe(`an engine on ${target.name} against an engine on memory`, () => {
    let db: AdapterDatabase;
    // Starting PGlite (a WebAssembly PostgreSQL) and migrating takes seconds on a busy machine.
    beforeAll(async () => {
      db = await target.open();
    }, 120_000);
    afterAll(async () => {
      await db?.close();
    }, 60_000);

    for (const seed of SEEDS) {
      it(`gives the same answer to each of ${OPERATIONS_PER_RUN} seeded operations and ends in the same state (seed=${seed}; replay with FC_SEED=${seed})`, async () => {
        const summary = await runDifferential(seed, db);
        // The run exercised what it claims to: hits, alerts, cases, and each kind of rejection.
        expect(summary.transactions).toBeGreaterThan(200);
        expect(summary.events).toBeGreaterThan(100);
        expect(summary.hits).toBeGreaterThan(0);
        expect(summary.alerts).toBeGreaterThan(0);
        expect(summary.cases).toBeGreaterThan(0);
        expect(summary.instances).toBeGreaterThan(0);
        expect(Object.keys(summary.rejected)).toEqual(expect.arrayContaining(['TRANSACTION_ID_CONFLICT', 'EVENT_ID_CONFLICT', 'INVALID_STATE_TRANSITION']));
      }, 300_000);
    }
  });
}
