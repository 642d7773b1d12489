/**
 * The AML workload: a transaction graph in which every account pays a fixed set of tens of
 * counterparties, with the patterns AML rule sets look for (collection hubs paid by many accounts,
 * distributors paying many, bursts between one pair, near-threshold transfers, pass-through), and
 * the rule set that looks for them: 19 windowed instances (velocity, volume, fan-in / fan-out
 * distinct counts, counterparty countries, pair velocity and volume, past-period comparisons,
 * outflow against inflow, custom logic over aggregation variables) beside 4 stateless ones.
 *
 * Deterministic in the seed (the PRNG of workload.mjs); payloads are JSON round-tripped like parsed
 * request bodies; lazy (a generator), like the other streams.
 */
import { createPrng, numbered } from './workload.mjs';

/** Defaults of {@link streamAmlWorkload}. */
export const AML_DEFAULTS = Object.freeze({
  seed: 20250601,
  operations: 50_000,
  accounts: 1_500,
  /** 1 May 2025 00:00 UTC. */
  startTime: Date.UTC(2025, 4, 1),
  /** Simulated days the stream spans (a 30-day window fills up, then slides). */
  days: 35,
  /** Share of transactions followed by 1–2 events. */
  eventShare: 0.3,
});

const COUNTRIES = [
  { country: 'DE', currency: 'EUR' },
  { country: 'FR', currency: 'EUR' },
  { country: 'NL', currency: 'EUR' },
  { country: 'ES', currency: 'EUR' },
  { country: 'IT', currency: 'EUR' },
  { country: 'GB', currency: 'GBP' },
  { country: 'US', currency: 'USD' },
  { country: 'AE', currency: 'USD' },
  { country: 'TR', currency: 'EUR' },
  { country: 'NG', currency: 'USD' },
];
const FX = { EUR: { EUR: 1, USD: 1.0354, GBP: 0.8279 }, USD: { EUR: 0.9658, USD: 1, GBP: 0.7995 }, GBP: { EUR: 1.2079, USD: 1.2507, GBP: 1 } };
/** Accounts per community: most counterparties are found in one's own community. */
const COMMUNITY = 100;

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function digits(rand, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String(Math.floor(rand() * 10));
  return s;
}

function logNormal(rand, median, sigma, cap) {
  const normal = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return Math.max(1, Math.round(Math.min(cap, median * Math.exp(sigma * normal)) * 100)) / 100;
}

function convert(value, from, to) {
  return Math.round(value * FX[from][to] * 100) / 100;
}

/**
 * The accounts: home country and currency, IBAN, activity weight (Zipf-like), role, and the
 * counterparties each pays: 10–60 of them, mostly from its own community, often a hub; a
 * distributor pays 150.
 */
function createAccounts(rand, count) {
  const accounts = [];
  for (let i = 0; i < count; i++) {
    const home = rand() < 0.9 ? COUNTRIES[i % 5] : pick(rand, COUNTRIES);
    const r = rand();
    accounts.push({
      userId: `A-${String(i + 1).padStart(5, '0')}`,
      ...home,
      iban: `${home.country}${digits(rand, 20)}`,
      bic: `BANK${home.country}2XXXX`,
      // Roles: a few collection hubs (fan-in), distributors (fan-out), structurers and pass-through accounts.
      role: r < 0.01 ? 'hub' : r < 0.02 ? 'distributor' : r < 0.03 ? 'structurer' : r < 0.05 ? 'passThrough' : 'regular',
      weight: 1 / ((i % 500) + 20),
      payees: [],
    });
  }
  const hubs = accounts.filter((a) => a.role === 'hub');
  for (const [i, account] of accounts.entries()) {
    const wanted = account.role === 'distributor' ? 150 : 10 + Math.floor(rand() * 50);
    const community = Math.floor(i / COMMUNITY) * COMMUNITY;
    const payees = new Set();
    for (let tries = 0; payees.size < wanted && tries < wanted * 10; tries++) {
      const r = rand();
      const j = r < 0.7 ? community + Math.floor(rand() * COMMUNITY) : Math.floor(rand() * count);
      const payee = r > 0.93 && hubs.length > 0 ? pick(rand, hubs) : accounts[Math.min(j, count - 1)];
      if (payee !== account) payees.add(payee);
    }
    account.payees = [...payees];
  }
  let total = 0;
  const cumulative = new Float64Array(count);
  accounts.forEach((a, i) => {
    total += a.weight;
    cumulative[i] = total;
  });
  return { accounts, cumulative, total };
}

function pickAccount(rand, population) {
  const x = rand() * population.total;
  let lo = 0;
  let hi = population.cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (population.cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return population.accounts[lo];
}

function iban(account) {
  return { method: 'IBAN', IBAN: account.iban, BIC: account.bic, name: `Holder ${account.userId}`, country: account.country };
}

function transfer(index, timestamp, from, to, value, rand) {
  return {
    transactionId: `X-${String(index + 1).padStart(7, '0')}`,
    type: 'TRANSFER',
    timestamp,
    originUserId: from.userId,
    destinationUserId: to.userId,
    originAmountDetails: { transactionAmount: value, transactionCurrency: from.currency, country: from.country },
    destinationAmountDetails: { transactionAmount: convert(value, from.currency, to.currency), transactionCurrency: to.currency, country: to.country },
    originPaymentDetails: iban(from),
    destinationPaymentDetails: iban(to),
    reference: `inv ${digits(rand, 6)}`,
  };
}

/** One activity of an account: one or several transactions at consecutive instants. */
function activity(rand, population, index, clock) {
  const account = pickAccount(rand, population);
  const r = rand();
  if (r < 0.1) {
    // A deposit from an external bank (pass-through accounts receive large ones).
    const value = account.role === 'passThrough' ? logNormal(rand, 6000, 0.5, 40_000) : logNormal(rand, 800, 1.0, 30_000);
    const from = pick(rand, COUNTRIES);
    return [
      {
        transactionId: `X-${String(index + 1).padStart(7, '0')}`,
        type: 'DEPOSIT',
        timestamp: clock,
        destinationUserId: account.userId,
        originAmountDetails: { transactionAmount: value, transactionCurrency: account.currency, country: from.country },
        destinationAmountDetails: { transactionAmount: value, transactionCurrency: account.currency, country: account.country },
        originPaymentDetails: { method: 'IBAN', IBAN: `${from.country}${digits(rand, 20)}`, BIC: 'EXTBANKXXXX', country: from.country },
        destinationPaymentDetails: iban(account),
      },
    ];
  }
  if (r < 0.2) {
    // A withdrawal to one of a few external accounts (payment-destination keys shared by many users).
    const value = account.role === 'passThrough' ? logNormal(rand, 5000, 0.4, 40_000) : logNormal(rand, 600, 1.0, 30_000);
    const external = Math.floor(rand() * 40);
    return [
      {
        transactionId: `X-${String(index + 1).padStart(7, '0')}`,
        type: 'WITHDRAWAL',
        timestamp: clock,
        originUserId: account.userId,
        originAmountDetails: { transactionAmount: value, transactionCurrency: account.currency, country: account.country },
        destinationAmountDetails: { transactionAmount: value, transactionCurrency: account.currency, country: COUNTRIES[external % COUNTRIES.length].country },
        originPaymentDetails: iban(account),
        destinationPaymentDetails: { method: 'IBAN', IBAN: `EXT${String(external).padStart(20, '0')}`, BIC: 'EXTBANKXXXX', country: 'DE' },
      },
    ];
  }
  if (r < 0.23) {
    // A burst: several transfers to one counterparty within minutes (pair velocity and volume).
    const to = pick(rand, account.payees);
    const n = 3 + Math.floor(rand() * 6);
    const out = [];
    for (let k = 0; k < n; k++) out.push(transfer(index + k, clock + k * 20_000, account, to, logNormal(rand, 1500, 0.6, 20_000), rand));
    return out;
  }
  const to = pick(rand, account.payees);
  const value =
    account.role === 'structurer' && rand() < 0.6
      ? Math.round((9000 + rand() * 999) * 100) / 100
      : account.role === 'passThrough'
        ? logNormal(rand, 3000, 0.5, 40_000)
        : logNormal(rand, 250, 1.1, 40_000);
  return [transfer(index, clock, account, to, value, rand)];
}

/** 1–2 events of a transaction: state moves, one in ten correcting the amount first. */
function planEvents(rand, transaction) {
  const events = [];
  let t = transaction.timestamp;
  const id = transaction.transactionId;
  const event = (transactionState, extra = {}) => {
    t += 1_000 + Math.floor(rand() * 60_000);
    events.push({ transactionId: id, eventId: `${id}-E${events.length + 1}`, timestamp: t, transactionState, ...extra });
  };
  const r = rand();
  if (r < 0.1) {
    const old = transaction.originAmountDetails.transactionAmount;
    const corrected = Math.max(0.01, Math.round(old * (0.8 + rand() * 0.5) * 100) / 100);
    event('PROCESSING', { updatedTransactionAttributes: { originAmountDetails: { ...transaction.originAmountDetails, transactionAmount: corrected } } });
    event('SUCCESSFUL');
  } else if (r < 0.6) {
    event('PROCESSING');
    event(rand() < 0.93 ? 'SUCCESSFUL' : 'DECLINED');
  } else {
    event(rand() < 0.95 ? 'SUCCESSFUL' : 'DECLINED');
  }
  return events;
}

/**
 * The AML stream, one operation at a time (see the module comment); `stats` counts what was yielded.
 *
 * @param {Partial<typeof AML_DEFAULTS>} [options]
 * @param {Record<string, number>} [stats]
 * @returns {Generator<import('./workload.mjs').Operation>}
 */
export function* streamAmlWorkload(options = {}, stats = {}) {
  const o = { ...AML_DEFAULTS, ...options };
  const rand = createPrng(o.seed);
  const population = createAccounts(rand, o.accounts);
  // About 0.6 activities per operation (events and bursts make up the rest).
  const meanGapMs = (o.days * 86_400_000) / (o.operations * 0.6);
  const pending = [];
  let clock = o.startTime;
  Object.assign(stats, { operations: 0, transactions: 0, events: 0, amountUpdates: 0, users: o.accounts, simulatedSeconds: 0 });
  const queue = [];
  while (stats.operations < o.operations) {
    const due = pending.findIndex((p) => p.due <= stats.operations);
    if (due >= 0) {
      const [p] = pending.splice(due, 1);
      stats.operations += 1;
      stats.events += 1;
      if (p.event.updatedTransactionAttributes) stats.amountUpdates += 1;
      yield { kind: 'event', payload: JSON.parse(JSON.stringify(p.event)) };
      continue;
    }
    if (queue.length === 0) {
      clock += Math.max(1, Math.round(-Math.log(1 - rand()) * meanGapMs));
      queue.push(...activity(rand, population, stats.transactions, clock));
      clock = Math.max(clock, queue[queue.length - 1].timestamp);
    }
    const tx = queue.shift();
    stats.operations += 1;
    stats.transactions += 1;
    stats.simulatedSeconds = Math.round((tx.timestamp - o.startTime) / 1000);
    if (rand() < o.eventShare) {
      let at = stats.operations;
      for (const event of planEvents(rand, tx)) {
        at += 1 + Math.floor(rand() * 40);
        pending.push({ due: at, event });
      }
    }
    yield { kind: 'transaction', payload: JSON.parse(JSON.stringify(tx)) };
  }
}

const DAY = (units) => ({ units, granularity: 'day', rollingBasis: true });

/**
 * The AML rule set (engine request bodies with ids `RI-1` …): 4 stateless instances
 * and 19 windowed ones, every setting but the parameters left to the engine's defaults (alerts on).
 * The windowed ones, by family:
 * - velocity and volume: R-30 1 / 7 days, R-69 1 / 30 days;
 * - fan-out / fan-in distinct counts: R-10 7 / 30 days (counterparties of a user), R-9 7 / 30 days
 *   (senders paying one receiver or one external account), R-123 (counterparty countries, 30 days);
 * - pair velocity and volume: R-119 (1 day), R-126 (7 days);
 * - past-period comparisons: R-27 (volume, 7 days against the 23 before, 500 %), R-131 (count, 1 day
 *   against the 6 before);
 * - outflow against inflow: R-41 (withdrawals at or above deposits and received transfers, 30 days);
 * - custom logic over aggregation variables: pass-through (SUM received and sent, 7 days),
 *   structuring (COUNT of near-threshold transfers through a filtered series, 1 day), fan-out
 *   (UNIQUE_COUNT of payees, 30 days), spike (AVG against MAX, 30 days), and the first-transaction
 *   rule R-1.
 */
export function createAmlInstanceConfigs(options = {}) {
  return numbered(
    [
      { ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 15000 } } },
      { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 9000, GBP: 8000 } }, action: 'FLAG', ruleNameAlias: 'Reporting threshold' },
      { ruleId: 'R-14', parameters: { highRiskCountries: ['NG'] }, ruleNameAlias: 'High-risk corridor' },
      { ruleId: 'R-14', parameters: { highRiskCountries: ['KP', 'IR', 'MM'] }, action: 'BLOCK', ruleNameAlias: 'FATF call for action' },
      { ruleId: 'R-1' },
      { ruleId: 'R-30', parameters: { transactionsLimit: 12, timeWindow: DAY(1) }, ruleNameAlias: 'Velocity 1 day' },
      { ruleId: 'R-30', parameters: { transactionsLimit: 40, timeWindow: DAY(7) }, ruleNameAlias: 'Velocity 7 days' },
      { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 20000 }, timeWindow: DAY(1) }, ruleNameAlias: 'Volume 1 day' },
      { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 120000 }, timeWindow: DAY(30) }, ruleNameAlias: 'Volume 30 days' },
      { ruleId: 'R-10', parameters: { sendersCount: 25, timeWindow: DAY(7) }, ruleNameAlias: 'Counterparties 7 days' },
      { ruleId: 'R-10', parameters: { sendersCount: 50, timeWindow: DAY(30) }, ruleNameAlias: 'Counterparties 30 days' },
      { ruleId: 'R-9', parameters: { sendersCount: 15, timeWindow: DAY(7) }, ruleNameAlias: 'Senders to one party 7 days' },
      { ruleId: 'R-9', parameters: { sendersCount: 40, timeWindow: DAY(30) }, ruleNameAlias: 'Senders to one party 30 days' },
      { ruleId: 'R-123', parameters: { transactionsLimit: 9, timeWindow: DAY(30), checkSender: 'all', checkReceiver: 'all' } },
      { ruleId: 'R-119', parameters: { transactionsLimit: 4, timeWindow: DAY(1) } },
      { ruleId: 'R-126', parameters: { transactionVolumeThreshold: { USD: 15000 }, timeWindow: DAY(7), transactionsLimit: 2 } },
      {
        ruleId: 'R-27',
        parameters: {
          period1: DAY(7),
          period2: DAY(30),
          multiplierThreshold: { currency: 'USD', value: 500 },
          checkSender: 'sending',
          checkReceiver: 'receiving',
          excludePeriod1: true,
        },
      },
      {
        ruleId: 'R-131',
        parameters: {
          multiplierThreshold: 3,
          timeWindow1: DAY(1),
          timeWindow2: DAY(7),
          checkSender: 'all',
          checkReceiver: 'all',
          minTransactionsInTimeWindow1: 5,
        },
      },
      {
        ruleId: 'R-41',
        parameters: {
          timeWindow: DAY(30),
          outflowTransactionTypes: ['WITHDRAWAL'],
          inflowTransactionTypes: ['DEPOSIT', 'TRANSFER'],
          outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO',
        },
      },
      {
        ruleNameAlias: 'Pass-through',
        logic: { and: [{ '>': [{ var: 'agg.received7' }, 10000] }, { '>=': [{ var: 'agg.sent7' }, { '*': [0.9, { var: 'agg.received7' }] }] }] },
        logicAggregationVariables: [
          {
            key: 'received7',
            aggregationFunc: 'SUM',
            aggregationFieldKey: 'amount',
            userDirection: 'SENDER',
            transactionDirection: 'RECEIVING',
            timeWindow: { start: DAY(7), end: { units: 0, granularity: 'now' } },
          },
          {
            key: 'sent7',
            aggregationFunc: 'SUM',
            aggregationFieldKey: 'amount',
            userDirection: 'SENDER',
            transactionDirection: 'SENDING',
            timeWindow: { start: DAY(7), end: { units: 0, granularity: 'now' } },
          },
        ],
      },
      {
        ruleNameAlias: 'Structuring',
        logic: { '>=': [{ var: 'agg.nearThreshold' }, 3] },
        logicAggregationVariables: [
          {
            key: 'nearThreshold',
            aggregationFunc: 'COUNT',
            userDirection: 'SENDER',
            transactionDirection: 'SENDING',
            timeWindow: { start: DAY(1), end: { units: 0, granularity: 'now' } },
            filtersLogic: {
              and: [
                { '>=': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 9000] },
                { '<': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 10000] },
              ],
            },
          },
        ],
      },
      {
        ruleNameAlias: 'Fan-out',
        logic: { '>': [{ var: 'agg.payees' }, 40] },
        logicAggregationVariables: [
          {
            key: 'payees',
            aggregationFunc: 'UNIQUE_COUNT',
            aggregationFieldKey: 'destinationUserId',
            userDirection: 'SENDER',
            transactionDirection: 'SENDING',
            timeWindow: { start: DAY(30), end: { units: 0, granularity: 'now' } },
          },
        ],
      },
      {
        ruleNameAlias: 'Amount spike',
        logic: { and: [{ '>': [{ var: 'agg.max30' }, 5000] }, { '>': [{ var: 'agg.max30' }, { '*': [10, { var: 'agg.avg30' }] }] }] },
        logicAggregationVariables: [
          {
            key: 'max30',
            aggregationFunc: 'MAX',
            aggregationFieldKey: 'amount',
            userDirection: 'SENDER',
            transactionDirection: 'SENDING',
            timeWindow: { start: DAY(30), end: { units: 0, granularity: 'now' } },
          },
          {
            key: 'avg30',
            aggregationFunc: 'AVG',
            aggregationFieldKey: 'amount',
            userDirection: 'SENDER',
            transactionDirection: 'SENDING',
            timeWindow: { start: DAY(30), end: { units: 0, granularity: 'now' } },
          },
        ],
      },
    ],
    options,
  );
}
