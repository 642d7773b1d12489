/**
 * The hand-written baseline: a plain-JS pipeline doing the same work as the engine's hot path for
 * the benchmark's 20 rule instances — validate, apply the event, run the 20 checks, keep the
 * windows, build the response — with no rule framework in between.
 *
 * What it shares with the engine, on purpose, so the ratio measures the engine's own overhead:
 * - validation: the package's exported `createValidator(TransactionSchema | TransactionEventSchema)`
 *   (same compiled ajv schema, same `assertSafeJson`), so validation cost is identical;
 * - the lifecycle table `DEFAULT_TRANSITIONS` and the rate table (read once at setup to derive
 *   integer thresholds; never on the hot path).
 *
 * What it does by hand: RFC 7396 merge by object spread; as inline code
 * over per-user arrays (binary search for the window edges, integer amounts in 10^-8 USD held in
 * plain numbers, thresholds pre-converted once); custom logic through json-logic-js `apply` (or,
 * with `logic: 'inline'`, as hand-written JS predicates); the response objects in the wire shape.
 *
 * What it deliberately skips, which the engine does: defensive copies of the input and of the
 * returned results, per-key locks, retries, the repository interface, alerts and cases.
 * It assumes amounts have at most 2 decimals (true of the workload); the engine is exact for any.
 */
import jsonLogic from 'json-logic-js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const SCALE = 100_000_000n;
const SEVERITY = { ALLOW: 0, FLAG: 1, SUSPEND: 2, BLOCK: 3 };
const IMMUTABLE = ['transactionId', 'type', 'timestamp', 'originUserId', 'destinationUserId'];

/** What the baseline knows about the five library rules (names, defaults, texts). */
const RULES = {
  'R-1': { name: 'First transaction of a user', description: 'First outgoing transaction of a user.', action: 'FLAG', nature: 'AML' },
  'R-2': { name: 'Transaction amount too high', description: 'Transaction amount is at or above a threshold.', action: 'SUSPEND', nature: 'AML' },
  'R-14': { name: 'High risk country', description: 'Origin or destination country of the transaction is a high-risk country.', action: 'FLAG', nature: 'AML' },
  'R-30': { name: 'High velocity user', description: 'A user makes more than the allowed number of transactions within a time window.', action: 'FLAG', nature: 'FRAUD' },
  'R-69': { name: 'Customer money flow is above the expected volume', description: "A user's transaction volume within a time window is at or above a threshold.", action: 'FLAG', nature: 'AML' },
};
const CUSTOM_TEXT = 'Custom rule logic matched the transaction.';

// ---- exact money helpers (setup and hit paths only) -----------------------------------------

function halfEvenDiv(n, d) {
  let q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice > d || (twice === d && q % 2n !== 0n)) q += n < 0n ? -1n : 1n;
  return q;
}

/** 10^-8 units → `12.50 EUR` (trailing zeros trimmed, at least two decimals), as the engine prints money. */
function formatUnits(units, currency) {
  const v = BigInt(units);
  const whole = v / SCALE;
  let fraction = (v % SCALE).toString().padStart(8, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${whole}.${fraction} ${currency}`;
}

/** A 2-decimal amount as the engine prints it. */
function formatAmount(value, currency) {
  return `${value.toFixed(2)} ${currency}`;
}

// ---- per-user window series -----------------------------------------------------------------

function createSeries() {
  return { ts: [], amt: [], id: [] };
}

/** First index with ts >= t. */
function lowerBound(ts, t) {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index with ts > t. */
function upperBound(ts, t) {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the entry of `id` at timestamp `t`, or -1. */
function findEntry(series, t, id) {
  for (let i = lowerBound(series.ts, t); i < series.ts.length && series.ts[i] === t; i++) {
    if (series.id[i] === id) return i;
  }
  return -1;
}

function insertEntry(series, t, amount, id) {
  const { ts } = series;
  if (ts.length === 0 || ts[ts.length - 1] <= t) {
    ts.push(t);
    series.amt.push(amount);
    series.id.push(id);
    return;
  }
  const at = upperBound(ts, t);
  ts.splice(at, 0, t);
  series.amt.splice(at, 0, amount);
  series.id.splice(at, 0, id);
}

/** Entries in [start, end] other than `own` (an index or -1). */
function countIn(series, start, end, own) {
  const lo = lowerBound(series.ts, start);
  const hi = upperBound(series.ts, end);
  return hi - lo - (own >= lo && own < hi ? 1 : 0);
}

/** Sum of amounts in [start, end] other than `own`. */
function sumIn(series, start, end, own) {
  const { ts, amt } = series;
  let i = lowerBound(ts, start);
  let total = 0;
  for (; i < ts.length && ts[i] <= end; i++) if (i !== own) total += amt[i];
  return total;
}

// ---- merge and transitions -----------------------------------------------------------------

function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A shallow copy with `transactionState` set. Not `{ ...object, transactionState }`: in Node 20
 * (V8 11.3) adding a property to a spread-made object in optimized code gives every result a new
 * hidden class (see README, "A V8 pitfall"); `Object.assign` keeps one.
 */
function withState(object, state) {
  const out = Object.assign({}, object);
  out.transactionState = state;
  return out;
}

/** RFC 7396 merge into a new object; the inputs are not changed. */
function mergePatch(target, patch) {
  const out = Object.assign({}, target);
  for (const key in patch) {
    const value = patch[key];
    if (value === null) delete out[key];
    else if (isPlainObject(value)) out[key] = mergePatch(isPlainObject(out[key]) ? out[key] : {}, value);
    else out[key] = value;
  }
  return out;
}

function requestError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

// ---- the pipeline ---------------------------------------------------------------------------

/**
 * Creates the baseline pipeline for the given instances.
 *
 * @param {Record<string, any>} pkg the imported txmon package (its `createValidator`, schemas,
 *   `DEFAULT_TRANSITIONS`, `createFixedRateProvider` and `parseDecimal` are used).
 * @param {{ id: string, request: Record<string, any> }[]} configs from `createInstanceConfigs()`.
 * @param {{ logic?: 'json-logic-js' | 'inline', baseCurrency?: string }} [options]
 */
export function createBaseline(pkg, configs, options = {}) {
  const validateTransaction = pkg.createValidator(pkg.TransactionSchema, { what: 'transaction' });
  const validateEvent = pkg.createValidator(pkg.TransactionEventSchema, { what: 'transaction event' });
  const transitions = {};
  for (const [from, tos] of Object.entries(pkg.DEFAULT_TRANSITIONS)) transitions[from] = new Set([from, ...tos]);
  const base = options.baseCurrency ?? 'USD';
  const rates = pkg.createFixedRateProvider();
  /** rate × 10^8 as a bigint, exactly as the engine rounds it. */
  const scaledRate = (from, to) => {
    const r = rates.rate(from, to, 0);
    return r === null ? null : pkg.parseDecimal(r);
  };
  const convertUnits = (units, from, to) => {
    if (from === to) return units;
    const r = scaledRate(from, to);
    return r === null ? null : halfEvenDiv(units * r, SCALE);
  };
  /** Smallest x ≥ 0 (bigint) with f(x) ≥ target, f monotonic; `hi` must satisfy it. */
  const smallest = (f, target, hi) => {
    let lo = 0n;
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      const v = f(mid);
      if (v !== null && v >= target) hi = mid;
      else lo = mid + 1n;
    }
    return lo;
  };

  // Per-currency factor to base units: cents × r / 100 (half-even), exact in doubles for the workload's amounts.
  const toBaseRate = new Map();
  function baseUnits(details) {
    if (details === undefined) return null;
    const cents = Math.round(details.transactionAmount * 100);
    const currency = details.transactionCurrency;
    if (currency === base) return cents * 1_000_000;
    let r = toBaseRate.get(currency);
    if (r === undefined) {
      const s = scaledRate(currency, base);
      r = s === null ? null : Number(s);
      toBaseRate.set(currency, r);
    }
    if (r === null) return null;
    const p = cents * r;
    let q = Math.floor(p / 100);
    const rem = p - q * 100;
    if (rem > 50 || (rem === 50 && q % 2 === 1)) q += 1;
    return q;
  }

  // ---- the checks, prepared once ----------------------------------------------------------
  const monthCache = { from: 0, to: -1, start: 0 };
  function monthStart(t) {
    if (t >= monthCache.from && t < monthCache.to) return monthCache.start;
    const d = new Date(Math.floor(t));
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth();
    monthCache.from = Date.UTC(y, m, 1);
    monthCache.to = Date.UTC(y, m + 1, 1);
    monthCache.start = monthCache.from;
    return monthCache.start;
  }
  function windowOf(tw) {
    if (tw.granularity === 'hour') return { start: (t) => t - tw.units * HOUR_MS, text: `${tw.units} hour${tw.units === 1 ? '' : 's'}` };
    if (tw.granularity === 'day' && tw.rollingBasis) return { start: (t) => t - tw.units * DAY_MS, text: `${tw.units} day${tw.units === 1 ? '' : 's'}` };
    if (tw.granularity === 'month' && !tw.rollingBasis && tw.units === 1) return { start: monthStart, text: '1 calendar month' };
    throw new Error(`baseline: time window ${JSON.stringify(tw)} not implemented`);
  }

  const inlineLogic = options.logic === 'inline';
  const checks = configs.map(({ id, request }) => {
    const ruleId = request.logic !== undefined ? 'CUSTOM' : request.ruleId;
    const meta = RULES[ruleId];
    const check = {
      id,
      ruleId,
      name: request.ruleNameAlias ?? meta?.name ?? 'Custom rule',
      description: meta?.description ?? CUSTOM_TEXT,
      action: request.action ?? meta?.action ?? 'FLAG',
      nature: request.nature ?? meta?.nature ?? 'AML',
      labels: request.labels ?? [],
      run: null,
    };
    const p = request.parameters ?? {};
    switch (ruleId) {
      case 'R-2': {
        const thresholds = p.transactionAmountThreshold;
        const first = Object.keys(thresholds)[0];
        // Per currency: the smallest amount in cents that hits, and the threshold text.
        const perCurrency = new Map();
        const forCurrency = (currency) => {
          let entry = perCurrency.get(currency);
          if (entry !== undefined) return entry;
          if (thresholds[currency] !== undefined) {
            const thr = BigInt(Math.round(thresholds[currency] * 100)) * 1_000_000n;
            entry = { minCents: Math.round(thresholds[currency] * 100), text: formatUnits(thr, currency) };
          } else {
            const thr = BigInt(Math.round(thresholds[first] * 100)) * 1_000_000n;
            const cents = smallest((c) => convertUnits(c * 1_000_000n, currency, first), thr, 10n ** 15n);
            entry = { minCents: Number(cents), text: formatUnits(thr, first) };
          }
          perCurrency.set(currency, entry);
          return entry;
        };
        check.run = (c) => {
          const d = c.tx.originAmountDetails;
          if (d === undefined) return null;
          const e = forCurrency(d.transactionCurrency);
          if (c.originCents < e.minCents) return null;
          return { dirs: 3, text: `Transaction amount is ${formatAmount(d.transactionAmount, d.transactionCurrency)}, at or above the threshold of ${e.text}.` };
        };
        break;
      }
      case 'R-14': {
        const list = new Set(p.highRiskCountries);
        check.run = (c) => {
          const o = c.tx.originAmountDetails?.country;
          const d = c.tx.destinationAmountDetails?.country;
          const oh = o !== undefined && list.has(o);
          const dh = d !== undefined && list.has(d);
          if (!oh && !dh) return null;
          const ot = oh ? `Origin country ${o} is a high-risk country.` : '';
          const dt = dh ? `Destination country ${d} is a high-risk country.` : '';
          return { dirs: (oh ? 1 : 0) | (dh ? 2 : 0), text: oh && dh ? `${ot} ${dt}` : ot || dt };
        };
        break;
      }
      case 'R-1': {
        check.run = (c) => {
          if (c.sender === null) return null;
          if (upperBound(c.sender.ts, c.tx.timestamp) - (c.senderOwn >= 0 ? 1 : 0) !== 0) return null;
          const d = c.tx.originAmountDetails;
          const amount = d ? formatAmount(d.transactionAmount, d.transactionCurrency) : 'no amount';
          return { dirs: 1, text: `First sending transaction of the user (${amount}).` };
        };
        break;
      }
      case 'R-30': {
        const w = windowOf(p.timeWindow);
        const limit = p.transactionsLimit;
        check.run = (c) => {
          const end = c.tx.timestamp;
          const start = w.start(end);
          let dirs = 0;
          let text = '';
          if (c.sender !== null) {
            const n = countIn(c.sender, start, end, c.senderOwn) + 1;
            if (n > limit && n >= 2) {
              dirs |= 1;
              text = `Sender made ${n} transactions in ${w.text}, more than the limit of ${limit}.`;
            }
          }
          if (c.receiver !== null) {
            const n = countIn(c.receiver, start, end, c.receiverOwn) + 1;
            if (n > limit && n >= 2) {
              dirs |= 2;
              const t = `Receiver made ${n} transactions in ${w.text}, more than the limit of ${limit}.`;
              text = text ? `${text} ${t}` : t;
            }
          }
          return dirs === 0 ? null : { dirs, text };
        };
        break;
      }
      case 'R-69': {
        const w = windowOf(p.timeWindow);
        const thresholds = p.transactionVolumeThreshold;
        const currency = thresholds[base] !== undefined ? base : Object.keys(thresholds)[0];
        const thr = BigInt(Math.round(thresholds[currency] * 100)) * 1_000_000n;
        // The smallest base-currency total that hits, converted once.
        const minTotal = currency === base ? Number(thr) : Number(smallest((u) => convertUnits(u, base, currency), thr, 2n ** 60n));
        const thrText = formatUnits(thr, currency);
        const describe = (side, total) =>
          `${side} volume in ${w.text} is ${formatUnits(convertUnits(BigInt(total), base, currency), currency)}, at or above ${thrText}.`;
        check.run = (c) => {
          const end = c.tx.timestamp;
          const start = w.start(end);
          let dirs = 0;
          let text = '';
          if (c.sender !== null) {
            const total = sumIn(c.sender, start, end, c.senderOwn) + (c.sendAmount ?? 0);
            if (total >= minTotal) {
              dirs |= 1;
              text = describe('Sender', total);
            }
          }
          if (c.receiver !== null) {
            const total = sumIn(c.receiver, start, end, c.receiverOwn) + (c.receiveAmount ?? 0);
            if (total >= minTotal) {
              dirs |= 2;
              const t = describe('Receiver', total);
              text = text ? `${text} ${t}` : t;
            }
          }
          return dirs === 0 ? null : { dirs, text };
        };
        break;
      }
      case 'CUSTOM': {
        const logic = request.logic;
        const predicate = inlineLogic ? inlinePredicate(request.ruleNameAlias) : (tx) => jsonLogic.truthy(jsonLogic.apply(logic, { transaction: tx }));
        check.run = (c) => {
          if (!predicate(c.tx)) return null;
          const o = c.tx.originUserId !== undefined || c.tx.destinationUserId === undefined;
          return { dirs: (o ? 1 : 0) | (c.tx.destinationUserId !== undefined ? 2 : 0), text: CUSTOM_TEXT };
        };
        break;
      }
      default:
        throw new Error(`baseline: rule ${ruleId} not implemented`);
    }
    return check;
  });

  const runs = new Array(checks.length).fill(0);
  const hits = new Array(checks.length).fill(0);

  // ---- state --------------------------------------------------------------------------------
  const users = new Map();
  const transactions = new Map();
  const events = new Map();

  function userOf(userId) {
    let u = users.get(userId);
    if (u === undefined) {
      u = { sending: createSeries(), receiving: createSeries() };
      users.set(userId, u);
    }
    return u;
  }

  const DIRECTIONS = [null, ['ORIGIN'], ['DESTINATION'], ['ORIGIN', 'DESTINATION']];

  /** Runs the 20 checks; `update` when re-evaluating a stored transaction after an event. */
  function evaluate(tx, update) {
    const sender = tx.originUserId !== undefined ? userOf(tx.originUserId).sending : null;
    const receiver = tx.destinationUserId !== undefined ? userOf(tx.destinationUserId).receiving : null;
    const c = {
      tx,
      sender,
      receiver,
      senderOwn: update && sender !== null ? findEntry(sender, tx.timestamp, tx.transactionId) : -1,
      receiverOwn: update && receiver !== null ? findEntry(receiver, tx.timestamp, tx.transactionId) : -1,
      sendAmount: sender !== null ? baseUnits(tx.originAmountDetails ?? tx.destinationAmountDetails) : null,
      receiveAmount: receiver !== null ? baseUnits(tx.destinationAmountDetails ?? tx.originAmountDetails) : null,
      originCents: tx.originAmountDetails !== undefined ? Math.round(tx.originAmountDetails.transactionAmount * 100) : 0,
    };
    const executedRules = [];
    const hitRules = [];
    let status = 'ALLOW';
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i];
      const hit = check.run(c);
      runs[i] += 1;
      if (hit === null) {
        executedRules.push({
          ruleInstanceId: check.id,
          ruleId: check.ruleId,
          ruleName: check.name,
          ruleDescription: check.description,
          ruleAction: check.action,
          ruleHit: false,
          nature: check.nature,
          labels: [...check.labels],
          isShadow: false,
        });
        continue;
      }
      hits[i] += 1;
      const directions = DIRECTIONS[hit.dirs];
      executedRules.push({
        ruleInstanceId: check.id,
        ruleId: check.ruleId,
        ruleName: check.name,
        ruleDescription: hit.text,
        ruleAction: check.action,
        ruleHit: true,
        nature: check.nature,
        labels: [...check.labels],
        isShadow: false,
        ruleHitMeta: { hitDirections: [...directions] },
      });
      hitRules.push({
        ruleInstanceId: check.id,
        ruleId: check.ruleId,
        ruleName: check.name,
        ruleDescription: hit.text,
        ruleAction: check.action,
        ruleHitMeta: { hitDirections: [...directions] },
        nature: check.nature,
        labels: [...check.labels],
        isShadow: false,
      });
      if (SEVERITY[check.action] > SEVERITY[status]) status = check.action;
    }
    return { c, result: { executedRules, hitRules, status } };
  }

  /** Files the transaction in its windows (new) or updates its amounts (after an event). */
  function record(c) {
    const { tx } = c;
    if (c.sender !== null) {
      if (c.senderOwn >= 0) c.sender.amt[c.senderOwn] = c.sendAmount ?? 0;
      else insertEntry(c.sender, tx.timestamp, c.sendAmount ?? 0, tx.transactionId);
    }
    if (c.receiver !== null) {
      if (c.receiverOwn >= 0) c.receiver.amt[c.receiverOwn] = c.receiveAmount ?? 0;
      else insertEntry(c.receiver, tx.timestamp, c.receiveAmount ?? 0, tx.transactionId);
    }
  }

  function applyEvent(tx, event) {
    const from = tx.transactionState ?? 'CREATED';
    const to = event.transactionState;
    const patch = event.updatedTransactionAttributes;
    if (patch !== undefined) {
      for (const f of IMMUTABLE) if (f in patch && patch[f] !== tx[f]) throw requestError('IMMUTABLE_FIELD', `${f} cannot be changed`);
      if ('transactionState' in patch && patch.transactionState !== to) throw requestError('IMMUTABLE_FIELD', 'transactionState');
    }
    if (!transitions[from]?.has(to)) throw requestError('INVALID_STATE_TRANSITION', `${from} → ${to}`);
    const next = patch !== undefined ? mergePatch(tx, patch) : Object.assign({}, tx);
    next.transactionState = to;
    return next;
  }

  return {
    /** Per-instance run and hit counters, in instance order. */
    counters() {
      return checks.map((check, i) => ({ id: check.id, runs: runs[i], hits: hits[i] }));
    },

    async createTransaction(input) {
      const request = validateTransaction(input);
      const existing = transactions.get(request.transactionId);
      if (existing !== undefined) {
        if (JSON.stringify(existing.request) === JSON.stringify(request)) return { transactionId: request.transactionId, ...existing.createResult };
        throw requestError('TRANSACTION_ID_CONFLICT', 'different payload');
      }
      const tx = request.transactionState ? request : withState(request, 'CREATED');
      const { c, result } = evaluate(tx, false);
      record(c);
      transactions.set(tx.transactionId, { request, tx, createResult: result, latestResult: result, events: [], lastEventTimestamp: null });
      return { transactionId: tx.transactionId, executedRules: result.executedRules, hitRules: result.hitRules, status: result.status };
    },

    async createTransactionEvent(input) {
      const request = validateEvent(input);
      if (request.eventId !== undefined && events.has(request.eventId)) throw requestError('EVENT_ID_CONFLICT', 'replay not implemented');
      const stored = transactions.get(request.transactionId);
      if (stored === undefined) throw requestError('TRANSACTION_NOT_FOUND', 'transaction not found');
      const eventId = request.eventId ?? `event-${events.size + 1}`;
      const event = request.eventId !== undefined ? request : Object.assign({ eventId }, request);
      let tx;
      if (stored.lastEventTimestamp === null || event.timestamp >= stored.lastEventTimestamp) {
        tx = applyEvent(stored.tx, event);
      } else {
        // A late event: fold all events again in (timestamp, arrival) order.
        const all = [...stored.events, event].map((e, arrival) => ({ e, arrival }));
        all.sort((a, b) => a.e.timestamp - b.e.timestamp || a.arrival - b.arrival);
        tx = stored.request.transactionState ? stored.request : withState(stored.request, 'CREATED');
        for (const { e } of all) tx = applyEvent(tx, e);
      }
      const { c, result } = evaluate(tx, true);
      record(c);
      stored.tx = tx;
      stored.latestResult = result;
      stored.events.push(event);
      stored.lastEventTimestamp = Math.max(stored.lastEventTimestamp ?? -Infinity, event.timestamp);
      events.set(eventId, { event, result });
      return { eventId, transaction: tx, executedRules: result.executedRules, hitRules: result.hitRules, status: result.status };
    },
  };
}

/** The custom instances of the workload as hand-written predicates (`logic: 'inline'`). */
function inlinePredicate(alias) {
  const amountOf = (tx) => tx.originAmountDetails?.transactionAmount;
  switch (alias) {
    case 'Large withdrawal':
      return (tx) => tx.type === 'WITHDRAWAL' && amountOf(tx) > 2000;
    case 'Origin country watch list': {
      const list = ['RU', 'UA', 'BY', 'NG', 'VE'];
      return (tx) => list.includes(tx.originAmountDetails?.country);
    }
    case 'Large cross-border transaction':
      return (tx) => tx.originAmountDetails?.country != tx.destinationAmountDetails?.country && amountOf(tx) >= 5000; // eslint-disable-line eqeqeq
    case 'Card used outside its issuing country':
      return (tx) => tx.originPaymentDetails?.method === 'CARD' && tx.originPaymentDetails.cardIssuedCountry != tx.originAmountDetails?.country; // eslint-disable-line eqeqeq
    case 'Micro-deposit or high-risk merchant': {
      const mccs = ['7995', '6051'];
      return (tx) => (tx.type === 'DEPOSIT' && amountOf(tx) < 1) || mccs.includes(tx.originPaymentDetails?.merchantDetails?.MCC);
    }
    case 'Large GBP transaction':
      return (tx) => tx.originAmountDetails?.transactionCurrency === 'GBP' && amountOf(tx) > 7500;
    default:
      throw new Error(`baseline: no inline predicate for custom instance "${alias}"`);
  }
}
