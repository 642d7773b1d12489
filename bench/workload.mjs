/**
 * Deterministic benchmark workload: a realistic stream of transactions and transaction events,
 * and the 20 rule-instance configurations both pipelines run (15 stateless, 5 windowed).
 *
 * Everything here is a pure function of the seed (a small PRNG, never Math.random), so two runs
 * with the same options produce byte-identical streams.
 */

/** Simulated start: 31 Jan 2025 21:00 UTC, so the stream crosses into February and calendar-month windows reset. */
export const DEFAULT_START_TIME = Date.UTC(2025, 0, 31, 21, 0, 0);

/** Defaults of {@link generateWorkload}. */
export const WORKLOAD_DEFAULTS = Object.freeze({
  seed: 20250131,
  operations: 50_000,
  users: 2_000,
  startTime: DEFAULT_START_TIME,
  /** Mean simulated gap between two transactions (ms): 2.5 transactions per second. */
  meanGapMs: 400,
  /** Share of transactions followed by 1–2 events. */
  eventShare: 0.3,
});

/**
 * mulberry32: a tiny, fast, well-distributed 32-bit PRNG. Returns floats in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
export function createPrng(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- reference data -------------------------------------------------------------------------

const HOME_COUNTRIES = ['DE', 'FR', 'NL', 'ES', 'IT', 'AT', 'BE', 'IE', 'PT', 'FI', 'US', 'GB', 'SE', 'DK', 'PL', 'CH'];
const CURRENCY_OF = {
  DE: 'EUR',
  FR: 'EUR',
  NL: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  AT: 'EUR',
  BE: 'EUR',
  IE: 'EUR',
  PT: 'EUR',
  FI: 'EUR',
  US: 'USD',
  GB: 'GBP',
  SE: 'EUR',
  DK: 'EUR',
  PL: 'EUR',
  CH: 'EUR',
};
/** Counterparty countries abroad, a few of them on the high-risk lists of the instances. */
const ABROAD_COUNTRIES = ['US', 'GB', 'CA', 'AU', 'JP', 'SG', 'AE', 'TR', 'MX', 'BR', 'IN', 'CN', 'ZA', 'MA', 'TH'];
const HIGH_RISK_COUNTRIES = ['RU', 'IR', 'KP', 'SY', 'NG', 'VE', 'AF', 'MM', 'YE', 'UA', 'BY', 'HT', 'KE', 'VN'];
const BANKS = [
  { name: 'Sparkasse', bic: 'SPKADE2HXXX' },
  { name: 'BNP Paribas', bic: 'BNPAFRPPXXX' },
  { name: 'ING', bic: 'INGBNL2AXXX' },
  { name: 'Santander', bic: 'BSCHESMMXXX' },
  { name: 'Barclays', bic: 'BARCGB22XXX' },
  { name: 'Chase', bic: 'CHASUS33XXX' },
];
const MERCHANTS = [
  { name: 'Grocer', category: 'Groceries', mcc: '5411' },
  { name: 'Airline', category: 'Travel', mcc: '4511' },
  { name: 'Electronics', category: 'Electronics', mcc: '5732' },
  { name: 'Casino', category: 'Gambling', mcc: '7995' },
  { name: 'Crypto exchange', category: 'Financial', mcc: '6051' },
  { name: 'Restaurant', category: 'Food', mcc: '5812' },
];
const CARD_BRANDS = ['VISA', 'MASTERCARD', 'AMERICAN_EXPRESS'];
/** Rough FX for destination amounts (realism only; rules use the engine's rate table). */
const FX = { EUR: { EUR: 1, USD: 1.0354, GBP: 0.8279 }, USD: { EUR: 0.9658, USD: 1, GBP: 0.7995 }, GBP: { EUR: 1.2079, USD: 1.2507, GBP: 1 } };

// ---- helpers ---------------------------------------------------------------------------------

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function digits(rand, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String(Math.floor(rand() * 10));
  return s;
}

function normal(rand) {
  // Box–Muller; 1 - rand() avoids log(0).
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** A log-normal amount with two decimals, capped. */
function amount(rand, median, sigma, cap) {
  const raw = Math.min(cap, median * Math.exp(sigma * normal(rand)));
  return Math.max(1, Math.round(raw * 100)) / 100;
}

/** Mostly everyday merchants; gambling and crypto (MCC 7995, 6051) about 3% each. */
function pickMerchant(rand) {
  const r = rand();
  if (r < 0.03) return MERCHANTS[3];
  if (r < 0.06) return MERCHANTS[4];
  return [MERCHANTS[0], MERCHANTS[1], MERCHANTS[2], MERCHANTS[5]][Math.floor(rand() * 4)];
}

function createUsers(rand, count) {
  const users = [];
  for (let i = 0; i < count; i++) {
    const country = rand() < 0.99 ? pick(rand, HOME_COUNTRIES) : pick(rand, HIGH_RISK_COUNTRIES);
    const currency = CURRENCY_OF[country] ?? (rand() < 0.5 ? 'EUR' : 'USD');
    const bank = pick(rand, BANKS);
    users.push({
      userId: `U-${String(i + 1).padStart(5, '0')}`,
      country,
      currency,
      iban: `${country}${digits(rand, 2)}${digits(rand, 18)}`,
      bank,
      cardFingerprint: `fp-${digits(rand, 12)}`,
      cardLast4: digits(rand, 4),
      cardFirst6: `4${digits(rand, 5)}`,
      cardBrand: pick(rand, CARD_BRANDS),
      cardIssuedCountry: rand() < 0.9 ? country : pick(rand, ABROAD_COUNTRIES),
      device: `dev-${digits(rand, 10)}`,
    });
  }
  // Zipf-like activity: a few heavy users (velocity hits), a long tail of occasional ones.
  const cumulative = new Float64Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    total += 1 / (i + 200);
    cumulative[i] = total;
  }
  return { users, cumulative, total };
}

function pickUser(rand, population, not) {
  for (;;) {
    const x = rand() * population.total;
    let lo = 0;
    let hi = population.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (population.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    const user = population.users[lo];
    if (user !== not) return user;
  }
}

function counterpartyCountry(rand, home) {
  const r = rand();
  if (r < 0.015) return pick(rand, HIGH_RISK_COUNTRIES);
  if (r < 0.3) return pick(rand, ABROAD_COUNTRIES);
  return home;
}

function ibanDetails(user, country) {
  return { method: 'IBAN', IBAN: user.iban, BIC: user.bank.bic, bankName: user.bank.name, name: `Account holder ${user.userId}`, country };
}

function cardDetails(user, merchant, merchantCountry, rand) {
  return {
    method: 'CARD',
    cardFingerprint: user.cardFingerprint,
    cardIssuedCountry: user.cardIssuedCountry,
    cardLast4Digits: user.cardLast4,
    cardFirst6Digits: user.cardFirst6,
    cardBrand: user.cardBrand,
    cardFunding: 'DEBIT',
    cardType: rand() < 0.3 ? 'VIRTUAL' : 'PHYSICAL',
    '3dsDone': rand() < 0.8,
    cardPresent: rand() < 0.4,
    merchantDetails: { id: `M-${merchant.mcc}`, category: merchant.category, MCC: merchant.mcc, country: merchantCountry },
  };
}

function deviceData(user, rand) {
  return {
    ipAddress: `10.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`,
    ipCountry: user.country,
    deviceIdentifier: user.device,
    operatingSystem: rand() < 0.6 ? 'Android' : 'iOS',
    appVersion: '4.12.0',
  };
}

function convert(value, from, to) {
  return Math.round(value * FX[from][to] * 100) / 100;
}

function createTransaction(rand, population, index, timestamp) {
  const transactionId = `T-${String(index + 1).padStart(7, '0')}`;
  const r = rand();
  const user = pickUser(rand, population, null);
  const base = { transactionId, timestamp, reference: `ref ${index + 1}`, tags: [{ key: 'channel', value: rand() < 0.7 ? 'app' : 'web' }] };
  if (r < 0.45) {
    // Peer-to-peer transfer between two users.
    const to = pickUser(rand, population, user);
    const value = amount(rand, 180, 1.2, 60_000);
    const toCountry = rand() < 0.9 ? to.country : counterpartyCountry(rand, to.country);
    return Object.assign(base, {
      type: 'TRANSFER',
      originUserId: user.userId,
      destinationUserId: to.userId,
      originAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: user.country },
      destinationAmountDetails: { transactionAmount: convert(value, user.currency, to.currency), transactionCurrency: to.currency, country: toCountry },
      originPaymentDetails: ibanDetails(user, user.country),
      destinationPaymentDetails: ibanDetails(to, toCountry),
      originDeviceData: deviceData(user, rand),
      productType: 'P2P',
    });
  }
  if (r < 0.68) {
    // Card payment to a merchant.
    const merchant = pickMerchant(rand);
    const where = counterpartyCountry(rand, user.country);
    const value = amount(rand, 45, 1.1, 25_000);
    return Object.assign(base, {
      type: 'EXTERNAL_PAYMENT',
      originUserId: user.userId,
      originAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: user.country },
      destinationAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: where },
      originPaymentDetails: cardDetails(user, merchant, where, rand),
      originDeviceData: deviceData(user, rand),
      productType: 'CARD',
    });
  }
  if (r < 0.82) {
    // Withdrawal to the user's external account.
    const value = amount(rand, 400, 1.1, 50_000);
    const where = rand() < 0.92 ? user.country : counterpartyCountry(rand, user.country);
    return Object.assign(base, {
      type: 'WITHDRAWAL',
      originUserId: user.userId,
      originAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: user.country },
      destinationAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: where },
      destinationPaymentDetails: ibanDetails(user, where),
      originDeviceData: deviceData(user, rand),
      productType: 'PAYOUT',
    });
  }
  if (r < 0.97) {
    // Deposit from an external bank: no origin user.
    const value = r < 0.835 ? Math.round(rand() * 99 + 1) / 100 : amount(rand, 600, 1.0, 55_000);
    const from = counterpartyCountry(rand, user.country);
    return Object.assign(base, {
      type: 'DEPOSIT',
      destinationUserId: user.userId,
      originAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: from },
      destinationAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: user.country },
      originPaymentDetails: { method: 'IBAN', IBAN: `${from}${digits(rand, 20)}`, BIC: 'EXTBANKXXXX', country: from },
      destinationPaymentDetails: ibanDetails(user, user.country),
      productType: 'TOPUP',
    });
  }
  // Merchant refund to the user.
  const merchant = pick(rand, MERCHANTS);
  const value = amount(rand, 40, 0.8, 5_000);
  return Object.assign(base, {
    type: 'REFUND',
    destinationUserId: user.userId,
    originAmountDetails: { transactionAmount: value, transactionCurrency: user.currency, country: user.country },
    originPaymentDetails: { method: 'GENERIC_BANK_ACCOUNT', name: merchant.name, country: user.country },
    productType: 'CARD',
  });
}

/** The events that follow a transaction: 1–2 state moves, occasionally correcting the amount. */
function planEvents(rand, transaction) {
  const events = [];
  let t = transaction.timestamp;
  const id = transaction.transactionId;
  const event = (transactionState, extra = {}) => {
    t += 200 + Math.floor(rand() * 5_000);
    events.push({ transactionId: id, eventId: `${id}-E${events.length + 1}`, timestamp: t, transactionState, ...extra });
  };
  const r = rand();
  if (r < 0.55) {
    event('PROCESSING');
    if (rand() < 0.9) event(rand() < 0.9 ? 'SUCCESSFUL' : 'DECLINED', { reason: 'settled' });
  } else if (r < 0.85) {
    event(rand() < 0.92 ? 'SUCCESSFUL' : 'DECLINED');
  } else {
    // An amount correction (fees, partial capture), then settlement.
    const old = transaction.originAmountDetails.transactionAmount;
    const corrected = Math.max(0.01, Math.round(old * (0.8 + rand() * 0.5) * 100) / 100);
    event('PROCESSING', {
      eventDescription: 'amount corrected',
      updatedTransactionAttributes: { originAmountDetails: { ...transaction.originAmountDetails, transactionAmount: corrected }, reference: `corrected ${id}` },
    });
    if (rand() < 0.7) event('SUCCESSFUL');
  }
  return events;
}

/**
 * @typedef {{ kind: 'transaction' | 'event', payload: Record<string, unknown> }} Operation
 * @typedef {{ seed?: number, operations?: number, users?: number, startTime?: number, meanGapMs?: number, eventShare?: number }} WorkloadOptions
 */

/**
 * The stream, one operation at a time: transactions with increasing timestamps, ~30% of them
 * followed (a few operations later) by 1–2 events. Deterministic in `seed`. Each payload is JSON
 * round-tripped, as a server would pass a parsed request body (shared hidden classes per shape, no
 * objects shared between operations). Lazy, so a long stream never sits in memory whole; `stats`
 * (filled as it goes) counts what was yielded.
 *
 * @param {WorkloadOptions} [options]
 * @param {Record<string, number>} [stats]
 * @returns {Generator<Operation>}
 */
export function* streamWorkload(options = {}, stats = {}) {
  const o = { ...WORKLOAD_DEFAULTS, ...options };
  const rand = createPrng(o.seed);
  const population = createUsers(rand, o.users);
  /** Pending events, each due at an operation index. */
  const pending = [];
  let clock = o.startTime;
  Object.assign(stats, { operations: 0, transactions: 0, events: 0, amountUpdates: 0, users: o.users, simulatedSeconds: 0 });
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
    clock += Math.max(1, Math.round(-Math.log(1 - rand()) * o.meanGapMs));
    const tx = createTransaction(rand, population, stats.transactions, clock);
    stats.operations += 1;
    stats.transactions += 1;
    stats.simulatedSeconds = Math.round((clock - o.startTime) / 1000);
    if (rand() < o.eventShare) {
      let at = stats.operations;
      for (const event of planEvents(rand, tx)) {
        at += 1 + Math.floor(rand() * 25);
        pending.push({ due: at, event });
      }
    }
    yield { kind: 'transaction', payload: JSON.parse(JSON.stringify(tx)) };
  }
}

/**
 * The whole stream of {@link streamWorkload} as an array, with its statistics.
 *
 * @param {WorkloadOptions} [options]
 * @returns {{ operations: Operation[], stats: Record<string, number> }}
 */
export function generateWorkload(options = {}) {
  const stats = {};
  const operations = [...streamWorkload(options, stats)];
  return { operations, stats };
}

/**
 * The 20 rule instances of the benchmark (engine request bodies, `POST /rule-instances`), each
 * with the id the engine will give it (`RI-1` … `RI-20`, from the benchmark's id generator).
 * 15 stateless (R-2, R-14, custom json-logic), 5 windowed (R-1, R-30 ×2, R-69 ×2). Every other
 * setting is the engine's default: `alertCreationOnHit` (true), actions, natures, case priorities.
 *
 * @param {{ alerts?: boolean }} [options] `alerts: false` sets `alertCreationOnHit: false` on every
 *   instance (to compare with figures taken without alerts); by default the request leaves it out.
 * @returns {{ id: string, request: Record<string, unknown> }[]}
 */
export function createInstanceConfigs(options = {}) {
  return numbered([...statelessRequests(), ...TODAY_WINDOWED], options);
}

/** Gives the requests their ids (`RI-1` …) and, with `alerts: false`, turns alert creation off. */
export function numbered(requests, options = {}) {
  const off = options.alerts === false ? { alertCreationOnHit: false } : {};
  return requests.map((request, i) => ({ id: `RI-${i + 1}`, request: { ...request, ...off } }));
}

const TODAY_WINDOWED = [
  { ruleId: 'R-1' },
  { ruleId: 'R-30', parameters: { transactionsLimit: 20, timeWindow: { units: 1, granularity: 'hour' } }, ruleNameAlias: 'Velocity 1 hour' },
  { ruleId: 'R-30', parameters: { transactionsLimit: 60, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } }, ruleNameAlias: 'Velocity 1 day' },
  { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 30000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } },
  {
    ruleId: 'R-69',
    parameters: { transactionVolumeThreshold: { EUR: 35000 }, timeWindow: { units: 1, granularity: 'month' } },
    ruleNameAlias: 'Monthly volume',
  },
];

/**
 * The dense workload's 22 instances: the 15 stateless ones of {@link createInstanceConfigs}, R-1,
 * and velocity and volume rules over windows up to 30 days with limits that a few hundred users
 * with weeks of history pass often (R-30 1 hour / 1 day / 30 days, R-69 1 day / 30 days /
 * calendar month).
 */
export function createDenseInstanceConfigs(options = {}) {
  return numbered(
    [
      ...statelessRequests(),
      { ruleId: 'R-1' },
      { ruleId: 'R-30', parameters: { transactionsLimit: 3, timeWindow: { units: 1, granularity: 'hour' } }, ruleNameAlias: 'Velocity 1 hour' },
      {
        ruleId: 'R-30',
        parameters: { transactionsLimit: 10, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
        ruleNameAlias: 'Velocity 1 day',
      },
      {
        ruleId: 'R-30',
        parameters: { transactionsLimit: 150, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } },
        ruleNameAlias: 'Velocity 30 days',
      },
      { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 5000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } },
      {
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { USD: 40000 }, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } },
        ruleNameAlias: 'Volume 30 days',
      },
      {
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { EUR: 30000 }, timeWindow: { units: 1, granularity: 'month' } },
        ruleNameAlias: 'Monthly volume',
      },
    ],
    options,
  );
}

/**
 * The hit-heavy workload's 20 instances: today's, with the five R-2 thresholds lowered so that most
 * transactions pass at least one (a loose candidate rule set, as a backtest tries), alerts on.
 */
export function createHitHeavyInstanceConfigs(options = {}) {
  const loose = [
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 400 } } },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 200 } }, action: 'FLAG', ruleNameAlias: 'Large USD-equivalent amount' },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { GBP: 100, EUR: 120 } }, action: 'FLAG' },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 1000 } }, action: 'BLOCK' },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 50, USD: 60 } }, action: 'ALLOW', labels: ['EDD_TRIGGER'] },
  ];
  return numbered([...loose, ...statelessRequests().slice(loose.length), ...TODAY_WINDOWED], options);
}

/** The 15 stateless requests shared by the today and dense workloads (R-2 ×5, R-14 ×4, custom ×6). */
function statelessRequests() {
  const amountVar = { var: 'transaction.originAmountDetails.transactionAmount' };
  const requests = [
    // ---- stateless: R-2 amount thresholds --------------------------------------------------
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 5000 } }, action: 'FLAG', ruleNameAlias: 'Large USD-equivalent amount' },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { GBP: 2500, EUR: 3000 } }, action: 'FLAG' },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 20000 } }, action: 'BLOCK' },
    { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 2000, USD: 2200 } }, action: 'ALLOW', labels: ['EDD_TRIGGER'] },
    // ---- stateless: R-14 country lists -------------------------------------------------------
    { ruleId: 'R-14', parameters: { highRiskCountries: ['KP', 'IR', 'MM'] }, action: 'BLOCK', ruleNameAlias: 'FATF call for action' },
    {
      ruleId: 'R-14',
      parameters: {
        highRiskCountries: [
          'DZ',
          'AO',
          'BG',
          'BF',
          'CM',
          'CI',
          'HR',
          'CD',
          'HT',
          'KE',
          'LA',
          'LB',
          'MC',
          'MZ',
          'NA',
          'NG',
          'NP',
          'ZA',
          'SS',
          'SY',
          'VE',
          'VN',
          'YE',
        ],
      },
      ruleNameAlias: 'FATF increased monitoring',
    },
    {
      ruleId: 'R-14',
      parameters: {
        highRiskCountries: ['AF', 'BB', 'BF', 'CM', 'CD', 'HT', 'JM', 'KP', 'ML', 'MZ', 'NG', 'PH', 'SN', 'ZA', 'SS', 'SY', 'TZ', 'TT', 'AE', 'VU', 'VN', 'YE'],
      },
    },
    { ruleId: 'R-14', parameters: { highRiskCountries: ['RU', 'BY', 'IR', 'KP', 'SY', 'CU'] }, action: 'SUSPEND', ruleNameAlias: 'Sanctioned jurisdiction' },
    // ---- stateless: custom json-logic --------------------------------------------------------
    {
      logic: { and: [{ '==': [{ var: 'transaction.type' }, 'WITHDRAWAL'] }, { '>': [amountVar, 2000] }] },
      ruleNameAlias: 'Large withdrawal',
    },
    {
      logic: { in: [{ var: 'transaction.originAmountDetails.country' }, ['RU', 'UA', 'BY', 'NG', 'VE']] },
      ruleNameAlias: 'Origin country watch list',
    },
    {
      logic: {
        and: [
          { '!=': [{ var: 'transaction.originAmountDetails.country' }, { var: 'transaction.destinationAmountDetails.country' }] },
          { '>=': [amountVar, 5000] },
        ],
      },
      ruleNameAlias: 'Large cross-border transaction',
      action: 'SUSPEND',
    },
    {
      logic: {
        and: [
          { '==': [{ var: 'transaction.originPaymentDetails.method' }, 'CARD'] },
          { '!=': [{ var: 'transaction.originPaymentDetails.cardIssuedCountry' }, { var: 'transaction.originAmountDetails.country' }] },
        ],
      },
      ruleNameAlias: 'Card used outside its issuing country',
    },
    {
      logic: {
        or: [
          { and: [{ '==': [{ var: 'transaction.type' }, 'DEPOSIT'] }, { '<': [amountVar, 1] }] },
          { in: [{ var: 'transaction.originPaymentDetails.merchantDetails.MCC' }, ['7995', '6051']] },
        ],
      },
      ruleNameAlias: 'Micro-deposit or high-risk merchant',
    },
    {
      logic: { and: [{ '==': [{ var: 'transaction.originAmountDetails.transactionCurrency' }, 'GBP'] }, { '>': [amountVar, 7500] }] },
      ruleNameAlias: 'Large GBP transaction',
      action: 'SUSPEND',
    },
  ];
  return requests;
}
