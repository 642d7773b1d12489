/**
 * The hand-written baseline: a plain-JS pipeline doing the same work as the engine's hot path for
 * the benchmark's 20 rule instances — validate, apply the event, run the 20 checks, keep the
 * windows, build the response — with no rule framework in between.
 *
 * What it shares with the engine, on purpose, so the ratio measures the engine's own overhead:
 * - validation: the package's exported `createValidator(TransactionSchema | TransactionEventSchema)`
 *   (same compiled ajv schema, same `assertSafeJson`), so validation cost is identical;
 * - money semantics: the exported `toScaled` / `convertScaled` (one conversion into the base
 *   currency per side, as any exact pipeline needs), `formatMoney` for description texts, and
 *   `resolveThreshold` at setup only, to turn each threshold into a precomputed integer bound;
 * - the lifecycle table `DEFAULT_TRANSITIONS`.
 *
 * What it does by hand: the RFC 7396 merge; as inline code over per-user
 * arrays (binary search for the window edges, integer amounts in 10^-8 base units held in plain
 * numbers, thresholds as precomputed integer bounds); custom logic through json-logic-js `apply`
 * (or, with `logic: 'inline'`, as hand-written JS predicates); the response objects in the wire shape.
 *
 * What it deliberately skips, which the engine does: defensive copies of the input and of the
 * returned results, per-key locks, retries, the repository interface, alerts and cases.
 * It assumes amounts have at most 2 decimals (true of the workload); the engine is exact for any.
 */
import jsonLogic from 'json-logic-js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
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
const CUSTOM_NOT_HIT_TEXT = 'Custom json-logic rule.';

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
  const money = { rates: pkg.createFixedRateProvider(), baseCurrency: base };
  const { toScaled, convertScaled, formatMoney, resolveThreshold } = pkg;
  /** Smallest x ≥ 0n with `hits(x)`, for a monotonic predicate; `hi` must hit. Setup only. */
  const smallest = (hits, hi) => {
    let lo = 0n;
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      if (hits(mid)) hi = mid;
      else lo = mid + 1n;
    }
    return lo;
  };
  const atOrAbove = (r) => r !== null && r.amount >= r.threshold;

  /** A side's amount in base-currency 10^-8 units, as a plain number (exact below 2^53), or null without a rate. */
  function baseUnits(details, at) {
    if (details === undefined) return null;
    const units = convertScaled(toScaled(details.transactionAmount), details.transactionCurrency, base, money.rates, at);
    return units === null ? null : Number(units);
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
      description: meta?.description ?? CUSTOM_NOT_HIT_TEXT,
      action: request.action ?? meta?.action ?? 'FLAG',
      nature: request.nature ?? meta?.nature ?? 'AML',
      labels: request.labels ?? [],
      run: null,
    };
    const p = request.parameters ?? {};
    switch (ruleId) {
      case 'R-2': {
        const thresholds = p.transactionAmountThreshold;
        // Per currency: the smallest amount in cents that hits (from the engine's own threshold
        // semantics, computed once) and the threshold text.
        const perCurrency = new Map();
        const forCurrency = (currency) => {
          let entry = perCurrency.get(currency);
          if (entry === undefined) {
            const resolve = (cents) => resolveThreshold(thresholds, cents * 1_000_000n, currency, money, 0);
            const max = resolve(10n ** 15n);
            entry = max === null ? { minCents: Infinity, text: '' } : { minCents: Number(smallest((c) => atOrAbove(resolve(c)), 10n ** 15n)), text: formatMoney(max.threshold, max.currency) };
            perCurrency.set(currency, entry);
          }
          return entry;
        };
        check.run = (c) => {
          const d = c.tx.originAmountDetails;
          if (d === undefined) return null;
          const e = forCurrency(d.transactionCurrency);
          if (c.originCents < e.minCents) return null;
          return { dirs: 3, text: `Transaction amount is ${formatMoney(toScaled(d.transactionAmount), d.transactionCurrency)}, at or above the threshold of ${e.text}.` };
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
          const amount = d ? formatMoney(toScaled(d.transactionAmount), d.transactionCurrency) : 'no amount';
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
        // The smallest base-currency total that hits, from the engine's threshold semantics, once.
        const minTotal = Number(smallest((u) => atOrAbove(resolveThreshold(thresholds, u, base, money, 0)), 2n ** 52n));
        const describe = (side, total, at) => {
          const r = resolveThreshold(thresholds, BigInt(total), base, money, at);
          return `${side} volume in ${w.text} is ${formatMoney(r.amount, r.currency)}, at or above ${formatMoney(r.threshold, r.currency)}.`;
        };
        check.run = (c) => {
          const end = c.tx.timestamp;
          const start = w.start(end);
          let dirs = 0;
          let text = '';
          if (c.sender !== null) {
            const total = sumIn(c.sender, start, end, c.senderOwn) + (c.sendAmount ?? 0);
            if (total >= minTotal) {
              dirs |= 1;
              text = describe('Sender', total, end);
            }
          }
          if (c.receiver !== null) {
            const total = sumIn(c.receiver, start, end, c.receiverOwn) + (c.receiveAmount ?? 0);
            if (total >= minTotal) {
              dirs |= 2;
              const t = describe('Receiver', total, end);
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
      sendAmount: sender !== null ? baseUnits(tx.originAmountDetails ?? tx.destinationAmountDetails, tx.timestamp) : null,
      receiveAmount: receiver !== null ? baseUnits(tx.destinationAmountDetails ?? tx.originAmountDetails, tx.timestamp) : null,
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
    /** Drops the kept state (the harness calls it after a timed run; see run.mjs `timeFreshSubject`). */
    dispose() {
      users.clear();
      transactions.clear();
      events.clear();
    },

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
