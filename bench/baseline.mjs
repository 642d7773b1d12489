/**
 * The hand-written baseline: the work of the engine's hot path for the benchmark's rule instances
 * written as plain JavaScript — validate, apply the event, run each check as inline code over
 * per-user arrays, keep the windows, build the response, keep alerts and cases — with no rule
 * framework in between. It must answer exactly as the engine does (run.mjs checks every response,
 * the counters, the alerts and the cases), so the ratio engine / baseline measures what the
 * engine's generality costs.
 *
 * What it shares with the engine, on purpose:
 * - validation: the package's `createValidator(TransactionSchema | TransactionEventSchema)` (the
 *   same compiled ajv schema and JSON safety check), so validation costs the same;
 * - money: `toScaled` / `convertScaled` (one conversion into the base currency per side),
 *   `formatMoney`, `scaledToNumber` and `divideRounded` for description texts and custom-logic
 *   values, and `resolveThreshold` for the threshold semantics (at setup, to turn a threshold
 *   into an integer bound, and to word a hit);
 * - the rules' names, descriptions, default actions, natures, case priorities and default
 *   parameters (read from the registry at setup), and the lifecycle table `DEFAULT_TRANSITIONS`.
 *
 * What it writes by hand: the RFC 7396 merge; every check (R-1, R-2, R-9, R-10, R-14, R-27, R-30,
 * R-41, R-69, R-119, R-123, R-126, R-131, custom logic with and without aggregation variables) as
 * loops over per-user, per-pair and per-account arrays (binary search for the window edges, a
 * scan for sums and a Set for distinct counts, amounts as integers of 10^-8 base units in plain
 * numbers); custom logic as inline predicates (`logic: 'inline'`, the default) or through
 * json-logic-js `apply` (`logic: 'json-logic-js'`, a separately labelled comparison); the
 * response objects; alerts and cases as the memory repositories keep them (a hit appended to the
 * open alert of (instance, user) in O(1), a new alert in the user's open case or a new case), and
 * the results naming the alerts their hits opened or were appended to (`alerts`).
 *
 * What it skips, which the engine does: defensive copies of the input and of the results, per-key
 * locks, retries, the repository interface, planning and aggregate queries as data, byte budgets.
 * It assumes what the workloads guarantee (amounts with at most 2 decimals, sums below 2^53 units,
 * no self-transfers, events that never change a payment identifier) where the engine is exact for
 * any input: that difference is part of the ratio.
 */
import jsonLogic from 'json-logic-js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const SEVERITY = { ALLOW: 0, FLAG: 1, SUSPEND: 2, BLOCK: 3 };
const IMMUTABLE = ['transactionId', 'type', 'timestamp', 'originUserId', 'destinationUserId'];
const OPEN_STATUSES = new Set(['OPEN', 'REOPENED', 'IN_REVIEW', 'ESCALATED', 'IN_PROGRESS', 'ON_HOLD']);
const CUSTOM_TEXT = 'Custom rule logic matched the transaction.';
const CUSTOM_NOT_HIT_TEXT = 'Custom json-logic rule.';
const ORIGIN = 1;
const DESTINATION = 2;
const DIRECTIONS = [null, ['ORIGIN'], ['DESTINATION'], ['ORIGIN', 'DESTINATION']];

// ---- series: parallel arrays sorted by timestamp ---------------------------------------------

/**
 * One key's history: timestamps, ids, amounts (10^-8 base units, 0 without a rate), and per
 * entry the attributes the checks read (counterparty, counterparty country, type, whether the
 * structuring filter accepts it).
 */
function createSeries() {
  return { ts: [], id: [], amt: [], cp: [], cc: [], type: [], near: [] };
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

/** Index of the entry `id` at timestamp `t`, or -1. */
function findEntry(series, t, id) {
  if (series === null) return -1;
  for (let i = lowerBound(series.ts, t); i < series.ts.length && series.ts[i] === t; i++) {
    if (series.id[i] === id) return i;
  }
  return -1;
}

function setEntry(series, i, e) {
  series.amt[i] = e.amt;
  series.cp[i] = e.cp;
  series.cc[i] = e.cc;
  series.type[i] = e.type;
  series.near[i] = e.near;
}

/** Files entry `e` (new: inserted in timestamp order; `own` ≥ 0: replaced in place). */
function putEntry(series, own, t, id, e) {
  if (own >= 0) {
    setEntry(series, own, e);
    return;
  }
  const { ts } = series;
  const at = ts.length === 0 || ts[ts.length - 1] <= t ? ts.length : upperBound(ts, t);
  if (at === ts.length) {
    ts.push(t);
    series.id.push(id);
    series.amt.push(e.amt);
    series.cp.push(e.cp);
    series.cc.push(e.cc);
    series.type.push(e.type);
    series.near.push(e.near);
    return;
  }
  ts.splice(at, 0, t);
  series.id.splice(at, 0, id);
  series.amt.splice(at, 0, e.amt);
  series.cp.splice(at, 0, e.cp);
  series.cc.splice(at, 0, e.cc);
  series.type.splice(at, 0, e.type);
  series.near.splice(at, 0, e.near);
}

/** Entries in [start, end] other than `own`. */
function countIn(series, start, end, own) {
  if (series === null) return 0;
  const lo = lowerBound(series.ts, start);
  const hi = upperBound(series.ts, end);
  return hi - lo - (own >= lo && own < hi ? 1 : 0);
}

/** Sum of amounts in [start, end] other than `own`. */
function sumIn(series, start, end, own) {
  if (series === null) return 0;
  const { ts, amt } = series;
  let total = 0;
  for (let i = lowerBound(ts, start); i < ts.length && ts[i] <= end; i++) if (i !== own) total += amt[i];
  return total;
}

// ---- merge and transitions -----------------------------------------------------------------

function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A shallow copy with `transactionState` set. Not `{ ...object, transactionState }`: in Node 20
 * (V8 11.3) adding a property to a spread-made object in optimized code gives every result a new
 * hidden class; `Object.assign` keeps one.
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

// ---- windows ---------------------------------------------------------------------------------

function windowOf(tw) {
  const plural = tw.units === 1 ? '' : 's';
  if (tw.granularity === 'hour') return { start: (t) => t - tw.units * HOUR_MS, text: `${tw.units} hour${plural}`, lengthMs: tw.units * HOUR_MS };
  if (tw.granularity === 'day' && tw.rollingBasis)
    return { start: (t) => t - tw.units * DAY_MS, text: `${tw.units} day${plural}`, lengthMs: tw.units * DAY_MS };
  if (tw.granularity === 'month' && !tw.rollingBasis && tw.units === 1) {
    const cache = { from: 0, to: -1 };
    const start = (t) => {
      if (t >= cache.from && t < cache.to) return cache.from;
      const d = new Date(Math.floor(t));
      cache.from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      cache.to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      return cache.from;
    };
    return { start, text: '1 calendar month', lengthMs: null };
  }
  throw new Error(`baseline: time window ${JSON.stringify(tw)} not implemented`);
}

const sideName = (dir) => (dir === ORIGIN ? 'Sender' : 'Receiver');

// ---- the pipeline ---------------------------------------------------------------------------

/**
 * Creates the baseline for the given instances.
 *
 * @param {Record<string, any>} pkg the imported txmon package (validators, schemas, money
 *   functions, the rule registry, `DEFAULT_TRANSITIONS`).
 * @param {{ id: string, request: Record<string, any> }[]} configs the instance requests, in the
 *   order the engine was given them.
 * @param {{ logic?: 'inline' | 'json-logic-js', baseCurrency?: string, clock?: () => number }} [options]
 *   `clock`: the time alerts and cases are stamped with (default `Date.now`, like the engine's).
 */
export function createBaseline(pkg, configs, options = {}) {
  const slaHours = pkg.DEFAULT_SLA_HOURS;
  const withDueDate = (item) => (slaHours === undefined ? item : { ...item, slaDueTimestamp: item.createdTimestamp + slaHours[item.priority] * 3_600_000 });
  const validateTransaction = pkg.createValidator(pkg.TransactionSchema, { what: 'transaction' });
  const validateEvent = pkg.createValidator(pkg.TransactionEventSchema, { what: 'transaction event' });
  const transitions = {};
  for (const [from, tos] of Object.entries(pkg.DEFAULT_TRANSITIONS)) transitions[from] = new Set([from, ...tos]);
  const base = options.baseCurrency ?? 'USD';
  const money = { rates: pkg.createFixedRateProvider(), baseCurrency: base };
  const now = options.clock ?? Date.now;
  const registry = pkg.createRuleRegistry();
  const { toScaled, convertScaled, formatMoney, resolveThreshold, scaledToNumber, divideRounded } = pkg;
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
  /** The smallest base-currency total a volume threshold hits at, from the engine's threshold semantics, once. */
  const minTotalOf = (thresholds) => Number(smallest((u) => atOrAbove(resolveThreshold(thresholds, u, base, money, 0)), 2n ** 52n));
  const money$ = (units, at) => {
    const r = resolveThreshold({ [base]: 0 }, BigInt(units), base, money, at);
    return formatMoney(r.amount, r.currency);
  };

  /** A side's amount in base-currency 10^-8 units, as a plain number (exact below 2^53), or 0 without a rate. */
  function baseUnits(details, at) {
    if (details === undefined) return 0;
    const units = convertScaled(toScaled(details.transactionAmount), details.transactionCurrency, base, money.rates, at);
    return units === null ? 0 : Number(units);
  }

  // ---- what the instances read -------------------------------------------------------------
  const keeps = { sending: false, receiving: false, all: false, pair: false, payDest: false };
  const inlineLogic = (options.logic ?? 'inline') === 'inline';

  const checks = configs.map(({ id, request }) => {
    const isCustom = request.logic !== undefined;
    const ruleId = isCustom ? 'CUSTOM' : request.ruleId;
    const rule = isCustom ? null : registry.get(ruleId);
    const p = isCustom ? {} : { ...rule.defaultParameters, ...(request.parameters ?? {}) };
    const check = {
      id,
      ruleId,
      name: request.ruleNameAlias ?? rule?.name ?? 'Custom rule',
      description: rule?.description ?? request.ruleDescriptionAlias ?? CUSTOM_NOT_HIT_TEXT,
      action: request.action ?? rule?.defaultAction ?? 'FLAG',
      nature: request.nature ?? rule?.defaultNature ?? 'AML',
      labels: request.labels ?? (rule ? [...rule.labels] : []),
      priority: request.casePriority ?? rule?.defaultCasePriority ?? 'P1',
      alerts: request.alertCreationOnHit ?? true,
      run: null,
    };
    check.run = isCustom ? customCheck(request) : libraryCheck(ruleId, p);
    return check;
  });

  /** The check of a library rule: `(c) => null | { dirs, text }`. */
  function libraryCheck(ruleId, p) {
    switch (ruleId) {
      case 'R-2': {
        const thresholds = p.transactionAmountThreshold;
        // Per currency: the smallest amount in cents that hits (from the engine's threshold
        // semantics, computed once) and the threshold text.
        const perCurrency = new Map();
        const forCurrency = (currency) => {
          let entry = perCurrency.get(currency);
          if (entry === undefined) {
            const resolve = (cents) => resolveThreshold(thresholds, cents * 1_000_000n, currency, money, 0);
            const max = resolve(10n ** 15n);
            entry =
              max === null
                ? { minCents: Infinity, text: '' }
                : { minCents: Number(smallest((c) => atOrAbove(resolve(c)), 10n ** 15n)), text: formatMoney(max.threshold, max.currency) };
            perCurrency.set(currency, entry);
          }
          return entry;
        };
        return (c) => {
          const d = c.tx.originAmountDetails;
          if (d === undefined) return null;
          const e = forCurrency(d.transactionCurrency);
          if (c.originCents < e.minCents) return null;
          return {
            dirs: 3,
            text: `Transaction amount is ${formatMoney(toScaled(d.transactionAmount), d.transactionCurrency)}, at or above the threshold of ${e.text}.`,
          };
        };
      }
      case 'R-14': {
        const list = new Set(p.highRiskCountries);
        return (c) => {
          const o = c.tx.originAmountDetails?.country;
          const d = c.tx.destinationAmountDetails?.country;
          const oh = o !== undefined && list.has(o);
          const dh = d !== undefined && list.has(d);
          if (!oh && !dh) return null;
          const ot = oh ? `Origin country ${o} is a high-risk country.` : '';
          const dt = dh ? `Destination country ${d} is a high-risk country.` : '';
          return { dirs: (oh ? ORIGIN : 0) | (dh ? DESTINATION : 0), text: oh && dh ? `${ot} ${dt}` : ot || dt };
        };
      }
      case 'R-1': {
        keeps.sending = true;
        return (c) => {
          if (c.sending === null) return null;
          if (upperBound(c.sending.ts, c.at) - (c.sendingOwn >= 0 ? 1 : 0) !== 0) return null;
          const d = c.tx.originAmountDetails;
          const amount = d ? formatMoney(toScaled(d.transactionAmount), d.transactionCurrency) : 'no amount';
          return { dirs: ORIGIN, text: `First sending transaction of the user (${amount}).` };
        };
      }
      case 'R-30': {
        keeps.sending = keeps.receiving = true;
        const w = windowOf(p.timeWindow);
        const limit = p.transactionsLimit;
        return (c) => {
          const start = w.start(c.at);
          const texts = [];
          let dirs = 0;
          if (c.sending !== null) {
            const n = countIn(c.sending, start, c.at, c.sendingOwn) + 1;
            if (n > limit && n >= 2) {
              dirs |= ORIGIN;
              texts.push(`Sender made ${n} transactions in ${w.text}, more than the limit of ${limit}.`);
            }
          }
          if (c.receiving !== null) {
            const n = countIn(c.receiving, start, c.at, c.receivingOwn) + 1;
            if (n > limit && n >= 2) {
              dirs |= DESTINATION;
              texts.push(`Receiver made ${n} transactions in ${w.text}, more than the limit of ${limit}.`);
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      case 'R-69': {
        keeps.sending = keeps.receiving = true;
        const w = windowOf(p.timeWindow);
        const thresholds = p.transactionVolumeThreshold;
        const minTotal = minTotalOf(thresholds);
        const describe = (side, total, at) => {
          const r = resolveThreshold(thresholds, BigInt(total), base, money, at);
          return `${side} volume in ${w.text} is ${formatMoney(r.amount, r.currency)}, at or above ${formatMoney(r.threshold, r.currency)}.`;
        };
        return (c) => {
          const start = w.start(c.at);
          const texts = [];
          let dirs = 0;
          if (c.sending !== null) {
            const total = sumIn(c.sending, start, c.at, c.sendingOwn) + c.originEntry.amt;
            if (total >= minTotal) {
              dirs |= ORIGIN;
              texts.push(describe('Sender', total, c.at));
            }
          }
          if (c.receiving !== null) {
            const total = sumIn(c.receiving, start, c.at, c.receivingOwn) + c.destinationEntry.amt;
            if (total >= minTotal) {
              dirs |= DESTINATION;
              texts.push(describe('Receiver', total, c.at));
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      case 'R-10': {
        keeps.all = true;
        const w = windowOf(p.timeWindow);
        const limit = p.sendersCount;
        // Distinct counterparties of the user in the window, the current one included, never the user itself.
        const countSide = (series, own, start, end, user, current) => {
          const seen = new Set();
          if (series !== null) {
            const { ts, cp } = series;
            for (let i = lowerBound(ts, start); i < ts.length && ts[i] <= end; i++) if (i !== own && cp[i] !== undefined) seen.add(cp[i]);
          }
          if (current !== undefined) seen.add(current);
          return seen.size - (seen.has(user) ? 1 : 0);
        };
        return (c) => {
          const start = w.start(c.at);
          const texts = [];
          let dirs = 0;
          if (c.o !== undefined) {
            const n = countSide(c.allOrigin, c.allOriginOwn, start, c.at, c.o, c.d);
            if (n > limit) {
              dirs |= ORIGIN;
              texts.push(`Sender transacted with ${n} distinct counterparties in ${w.text}, more than the limit of ${limit}.`);
            }
          }
          if (c.d !== undefined) {
            const n = countSide(c.allDestination, c.allDestinationOwn, start, c.at, c.d, c.o);
            if (n > limit) {
              dirs |= DESTINATION;
              texts.push(`Receiver transacted with ${n} distinct counterparties in ${w.text}, more than the limit of ${limit}.`);
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      case 'R-9': {
        keeps.receiving = keeps.payDest = true;
        const w = windowOf(p.timeWindow);
        const limit = p.sendersCount;
        return (c) => {
          // The receiver, else the external account paid (its payment identifier).
          const series = c.d !== undefined ? c.receiving : c.payDestKey !== undefined ? c.payDest : undefined;
          if (series === undefined) return null;
          const own = c.d !== undefined ? c.receivingOwn : c.payDestOwn;
          const seen = new Set();
          if (series !== null) {
            const { ts, cp } = series;
            const start = w.start(c.at);
            for (let i = lowerBound(ts, start); i < ts.length && ts[i] <= c.at; i++) if (i !== own && cp[i] !== undefined) seen.add(cp[i]);
          }
          if (c.o !== undefined) seen.add(c.o);
          if (seen.size <= limit) return null;
          return { dirs: DESTINATION, text: `The receiver was paid by ${seen.size} distinct users in ${w.text}, more than the limit of ${limit}.` };
        };
      }
      case 'R-123': {
        keeps.all = true;
        if (p.checkSender !== 'all' || p.checkReceiver !== 'all') throw new Error('baseline: R-123 is written for checkSender and checkReceiver "all"');
        const w = windowOf(p.timeWindow);
        const limit = p.transactionsLimit;
        const countSide = (series, own, start, end, current) => {
          const seen = new Set();
          if (series !== null) {
            const { ts, cc } = series;
            for (let i = lowerBound(ts, start); i < ts.length && ts[i] <= end; i++) if (i !== own && cc[i] !== undefined) seen.add(cc[i]);
          }
          if (current !== undefined) seen.add(current);
          return seen.size;
        };
        return (c) => {
          const start = w.start(c.at);
          const texts = [];
          let dirs = 0;
          if (c.o !== undefined) {
            const n = countSide(c.allOrigin, c.allOriginOwn, start, c.at, c.tx.destinationAmountDetails?.country);
            if (n > limit) {
              dirs |= ORIGIN;
              texts.push(`Sender transacted with counterparties in ${n} countries in ${w.text}, more than the limit of ${limit}.`);
            }
          }
          if (c.d !== undefined) {
            const n = countSide(c.allDestination, c.allDestinationOwn, start, c.at, c.tx.originAmountDetails?.country);
            if (n > limit) {
              dirs |= DESTINATION;
              texts.push(`Receiver transacted with counterparties in ${n} countries in ${w.text}, more than the limit of ${limit}.`);
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      case 'R-119': {
        keeps.pair = true;
        const w = windowOf(p.timeWindow);
        const limit = p.transactionsLimit;
        return (c) => {
          if (c.pairKey === undefined) return null;
          const n = countIn(c.pair, w.start(c.at), c.at, c.pairOwn) + 1;
          if (n <= limit) return null;
          return { dirs: ORIGIN | DESTINATION, text: `The sender made ${n} transactions to this receiver in ${w.text}, more than the limit of ${limit}.` };
        };
      }
      case 'R-126': {
        keeps.pair = true;
        const w = windowOf(p.timeWindow);
        const thresholds = p.transactionVolumeThreshold;
        const minTotal = minTotalOf(thresholds);
        const limit = p.transactionsLimit;
        return (c) => {
          if (c.pairKey === undefined) return null;
          const start = w.start(c.at);
          if (limit !== undefined && countIn(c.pair, start, c.at, c.pairOwn) + 1 <= limit) return null;
          const total = sumIn(c.pair, start, c.at, c.pairOwn) + c.originEntry.amt;
          if (total < minTotal) return null;
          const r = resolveThreshold(thresholds, BigInt(total), base, money, c.at);
          return {
            dirs: ORIGIN | DESTINATION,
            text: `The sender sent ${formatMoney(r.amount, r.currency)} to this receiver in ${w.text}, at or above ${formatMoney(r.threshold, r.currency)}.`,
          };
        };
      }
      case 'R-27': {
        keeps.sending = keeps.receiving = true;
        if (p.checkSender !== 'sending' || p.checkReceiver !== 'receiving' || p.excludePeriod1 !== true || p.multiplierThreshold.currency !== base) {
          throw new Error(
            "baseline: R-27 is written for the sender's sent and the receiver's received transactions, excludePeriod1, a multiplier in the base currency",
          );
        }
        const w1 = windowOf(p.period1);
        const w2 = windowOf(p.period2);
        const percent = p.multiplierThreshold.value;
        const scaledPercent = toScaled(percent);
        const side = (dir, series, own, amount, at) => {
          const start1 = w1.start(at);
          const start2 = w2.start(at);
          const count1 = countIn(series, start1, at, own) + 1;
          const before = countIn(series, start2, at, own) + 1 - count1;
          if (before <= 0 || w2.lengthMs - w1.lengthMs <= 0) return null;
          const volume1 = sumIn(series, start1, at, own) + amount;
          const volumeBefore = sumIn(series, start2, at, own) + amount - volume1;
          if (volumeBefore <= 0) return null;
          // volume1 ≥ percent % of the volume before, exactly: volume1 × 100 × 10^8 ≥ percent (10^-8 units) × before.
          if (BigInt(volume1) * 10_000_000_000n < scaledPercent * BigInt(volumeBefore)) return null;
          const hundredths = (BigInt(volume1) * 10_000n) / BigInt(volumeBefore);
          const ratio = `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}%`;
          return `${sideName(dir)} volume in ${w1.text} (${money$(volume1, at)}) is ${ratio} of the volume in ${w2.text} (${money$(volumeBefore, at)}), at or above ${percent}%.`;
        };
        return (c) => {
          const texts = [];
          let dirs = 0;
          if (c.sending !== null) {
            const t = side(ORIGIN, c.sending, c.sendingOwn, c.originEntry.amt, c.at);
            if (t !== null) {
              dirs |= ORIGIN;
              texts.push(t);
            }
          }
          if (c.receiving !== null) {
            const t = side(DESTINATION, c.receiving, c.receivingOwn, c.destinationEntry.amt, c.at);
            if (t !== null) {
              dirs |= DESTINATION;
              texts.push(t);
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      case 'R-131': {
        keeps.all = true;
        if (p.checkSender !== 'all' || p.checkReceiver !== 'all' || p.initialTransactions !== undefined || p.minTransactionsInTimeWindow2 !== undefined) {
          throw new Error('baseline: R-131 is written for checkSender / checkReceiver "all" and no initialTransactions or minTransactionsInTimeWindow2');
        }
        const w1 = windowOf(p.timeWindow1);
        const w2 = windowOf(p.timeWindow2);
        const factor = p.multiplierThreshold;
        const min1 = p.minTransactionsInTimeWindow1 ?? 0;
        const side = (dir, series, own, at) => {
          const start1 = w1.start(at);
          const count1 = countIn(series, start1, at, own) + 1;
          const count2 = countIn(series, w2.start(at), at, own) + 1 - count1;
          if (count2 <= 0 || count1 < min1 || !(count1 > factor * count2)) return null;
          return `${sideName(dir)} made ${count1} transactions in ${w1.text}, more than ${factor} times the ${count2} in the rest of ${w2.text}.`;
        };
        return (c) => {
          if (!(w2.start(c.at) < w1.start(c.at))) return null;
          const texts = [];
          let dirs = 0;
          if (c.o !== undefined) {
            const t = side(ORIGIN, c.allOrigin, c.allOriginOwn, c.at);
            if (t !== null) {
              dirs |= ORIGIN;
              texts.push(t);
            }
          }
          if (c.d !== undefined) {
            const t = side(DESTINATION, c.allDestination, c.allDestinationOwn, c.at);
            if (t !== null) {
              dirs |= DESTINATION;
              texts.push(t);
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      case 'R-41': {
        keeps.sending = keeps.receiving = true;
        if (p.outflow3dsDonePercentageThreshold !== undefined || p.inflow3dsDonePercentageThreshold !== undefined)
          throw new Error('baseline: R-41 is written without 3DS guards');
        const w = windowOf(p.timeWindow);
        const outTypes = new Set(p.outflowTransactionTypes);
        const inTypes = new Set(p.inflowTransactionTypes);
        const atOrAboveInflow = p.outflowInflowComparator === 'GREATER_THAN_OR_EQUAL_TO';
        /** Sum and count of the entries in [start, end] other than `own` whose type is in `types`. */
        const flow = (series, own, start, end, types, out) => {
          out.sum = 0;
          out.count = 0;
          if (series === null) return;
          const { ts, amt, type } = series;
          for (let i = lowerBound(ts, start); i < ts.length && ts[i] <= end; i++) {
            if (i === own || !types.has(type[i])) continue;
            out.sum += amt[i];
            out.count += 1;
          }
        };
        const outflow = { sum: 0, count: 0 };
        const inflow = { sum: 0, count: 0 };
        const side = (dir, user, c) => {
          const start = w.start(c.at);
          const u = users.get(user);
          const sending = u?.sending ?? null;
          const receiving = u?.receiving ?? null;
          flow(sending, user === c.o ? c.sendingOwn : -1, start, c.at, outTypes, outflow);
          flow(receiving, user === c.d ? c.receivingOwn : -1, start, c.at, inTypes, inflow);
          // This transaction's own entries for that user.
          if (user === c.o && outTypes.has(c.tx.type)) {
            outflow.count += 1;
            outflow.sum += c.originEntry.amt;
          }
          if (user === c.d && inTypes.has(c.tx.type)) {
            inflow.count += 1;
            inflow.sum += c.destinationEntry.amt;
          }
          if (outflow.count === 0 || inflow.count === 0) return null;
          if (atOrAboveInflow ? outflow.sum < inflow.sum : outflow.sum > inflow.sum) return null;
          return `${sideName(dir)} outflow of ${formatMoney(BigInt(outflow.sum), base)} is ${atOrAboveInflow ? 'at or above' : 'at or below'} the inflow of ${formatMoney(BigInt(inflow.sum), base)} in ${w.text}.`;
        };
        return (c) => {
          const texts = [];
          let dirs = 0;
          if (c.o !== undefined && outTypes.has(c.tx.type)) {
            const t = side(ORIGIN, c.o, c);
            if (t !== null) {
              dirs |= ORIGIN;
              texts.push(t);
            }
          }
          if (c.d !== undefined && inTypes.has(c.tx.type)) {
            const t = side(DESTINATION, c.d, c);
            if (t !== null) {
              dirs |= DESTINATION;
              texts.push(t);
            }
          }
          return dirs === 0 ? null : { dirs, text: joinTexts(texts) };
        };
      }
      default:
        throw new Error(`baseline: rule ${ruleId} not implemented`);
    }
  }

  /** The check of a custom instance: its logic (inline or json-logic-js) over the transaction and its variables. */
  function customCheck(request) {
    const variables = aggregationVariablesOf(request.ruleNameAlias, request.logicAggregationVariables);
    if (variables !== null) keeps.sending = keeps.receiving = true;
    const logic = request.logic;
    const predicate = inlineLogic
      ? inlinePredicate(request.ruleNameAlias)
      : (tx, agg) => jsonLogic.truthy(jsonLogic.apply(logic, agg === undefined ? { transaction: tx } : { transaction: tx, agg }));
    return (c) => {
      if (!predicate(c.tx, variables === null ? undefined : variables(c))) return null;
      const o = c.o !== undefined || c.d === undefined;
      return { dirs: (o ? ORIGIN : 0) | (c.d !== undefined ? DESTINATION : 0), text: CUSTOM_TEXT };
    };
  }

  /**
   * The aggregation variables of the workload's custom instances, computed by hand for the sender
   * (every variable of these instances reads the SENDER, so the logic runs once); `null` without any.
   */
  function aggregationVariablesOf(alias, variables) {
    if (variables === undefined) return null;
    const sender = (c) => c.o !== undefined;
    switch (alias) {
      case 'Pass-through':
        // received7: the sender's received volume, sent7: its sent volume (this one included), 7 days.
        return (c) => {
          if (!sender(c)) return { received7: 0, sent7: 0 };
          const start = c.at - 7 * DAY_MS;
          const u = users.get(c.o);
          const received = sumIn(u?.receiving ?? null, start, c.at, -1);
          const sent = sumIn(c.sending, start, c.at, c.sendingOwn) + c.originEntry.amt;
          return { received7: scaledToNumber(BigInt(received)), sent7: scaledToNumber(BigInt(sent)) };
        };
      case 'Structuring':
        // nearThreshold: the sender's sent transactions of 9,000 to 9,999.99 (own amount) in 1 day.
        return (c) => {
          if (!sender(c)) return { nearThreshold: 0 };
          const s = c.sending;
          let n = c.originEntry.near ? 1 : 0;
          if (s !== null) for (let i = lowerBound(s.ts, c.at - DAY_MS); i < s.ts.length && s.ts[i] <= c.at; i++) if (i !== c.sendingOwn && s.near[i]) n += 1;
          return { nearThreshold: n };
        };
      case 'Fan-out':
        // payees: distinct receivers the sender paid in 30 days, this one included.
        return (c) => {
          if (!sender(c)) return { payees: 0 };
          const seen = new Set();
          const s = c.sending;
          if (s !== null)
            for (let i = lowerBound(s.ts, c.at - 30 * DAY_MS); i < s.ts.length && s.ts[i] <= c.at; i++)
              if (i !== c.sendingOwn && s.cp[i] !== undefined) seen.add(s.cp[i]);
          if (c.d !== undefined) seen.add(c.d);
          return { payees: seen.size };
        };
      case 'Amount spike':
        // max30 and avg30 of the sender's sent amounts in 30 days, this one included.
        return (c) => {
          if (!sender(c)) return { max30: null, avg30: null };
          const s = c.sending;
          let max = c.originEntry.amt;
          let sum = c.originEntry.amt;
          let n = 1;
          if (s !== null) {
            for (let i = lowerBound(s.ts, c.at - 30 * DAY_MS); i < s.ts.length && s.ts[i] <= c.at; i++) {
              if (i === c.sendingOwn) continue;
              if (s.amt[i] > max) max = s.amt[i];
              sum += s.amt[i];
              n += 1;
            }
          }
          return { max30: scaledToNumber(BigInt(max)), avg30: scaledToNumber(divideRounded(BigInt(sum), BigInt(n))) };
        };
      default:
        throw new Error(`baseline: no hand-written aggregation variables for custom instance "${alias}"`);
    }
  }

  const runs = new Array(checks.length).fill(0);
  const hits = new Array(checks.length).fill(0);

  // ---- state --------------------------------------------------------------------------------
  const users = new Map();
  const pairs = new Map();
  const payDests = new Map();
  const transactions = new Map();
  const events = new Map();
  const alerts = new Map();
  const cases = new Map();
  const openAlertByInstanceUser = new Map();
  const transactionsOfAlert = new Map();
  const openCaseByUser = new Map();
  let alertIds = 0;
  let caseIds = 0;

  function userOf(userId) {
    let u = users.get(userId);
    if (u === undefined) {
      u = {
        sending: keeps.sending ? createSeries() : null,
        receiving: keeps.receiving ? createSeries() : null,
        all: keeps.all ? createSeries() : null,
      };
      users.set(userId, u);
    }
    return u;
  }

  function seriesOf(map, key) {
    let s = map.get(key);
    if (s === undefined) {
      s = createSeries();
      map.set(key, s);
    }
    return s;
  }

  /** The structuring filter of the AML workload: an own amount of 9,000 to 9,999.99 (origin side). */
  const isNear = (tx) => {
    const a = tx.originAmountDetails?.transactionAmount;
    return a !== undefined && a >= 9000 && a < 10000;
  };

  /** What one side's entries carry (its amount, counterparty, counterparty country, type, filter). */
  function entryOf(tx, side) {
    const origin = side === ORIGIN;
    const own = origin ? (tx.originAmountDetails ?? tx.destinationAmountDetails) : (tx.destinationAmountDetails ?? tx.originAmountDetails);
    return {
      amt: baseUnits(own, tx.timestamp),
      cp: origin ? tx.destinationUserId : tx.originUserId,
      cc: origin ? tx.destinationAmountDetails?.country : tx.originAmountDetails?.country,
      type: tx.type,
      near: isNear(tx),
    };
  }

  /** The context of one evaluation: the transaction, its series and its own entries in them (after an event). */
  function contextOf(tx, update) {
    const o = tx.originUserId;
    const d = tx.destinationUserId;
    const uo = o !== undefined ? userOf(o) : null;
    const ud = d !== undefined ? userOf(d) : null;
    const at = tx.timestamp;
    const id = tx.transactionId;
    const own = (series) => (update ? findEntry(series, at, id) : -1);
    const c = {
      tx,
      at,
      o,
      d,
      sending: uo?.sending ?? null,
      receiving: ud?.receiving ?? null,
      allOrigin: uo?.all ?? null,
      allDestination: d !== o ? (ud?.all ?? null) : null,
      sendingOwn: -1,
      receivingOwn: -1,
      allOriginOwn: -1,
      allDestinationOwn: -1,
      pairKey: undefined,
      pair: null,
      pairOwn: -1,
      payDestKey: undefined,
      payDest: null,
      payDestOwn: -1,
      originEntry: o !== undefined ? entryOf(tx, ORIGIN) : null,
      destinationEntry: d !== undefined ? entryOf(tx, DESTINATION) : null,
      originCents: tx.originAmountDetails !== undefined ? Math.round(tx.originAmountDetails.transactionAmount * 100) : 0,
    };
    if (update) {
      c.sendingOwn = own(c.sending);
      c.receivingOwn = own(c.receiving);
      c.allOriginOwn = own(c.allOrigin);
      c.allDestinationOwn = own(c.allDestination);
    }
    if (keeps.pair && o !== undefined && d !== undefined) {
      c.pairKey = pkg.pairKey(o, d);
      c.pair = pairs.get(c.pairKey) ?? null;
      c.pairOwn = own(c.pair);
    }
    if (keeps.payDest) {
      c.payDestKey = pkg.paymentIdentifier(tx.destinationPaymentDetails);
      if (c.payDestKey !== undefined) {
        c.payDest = payDests.get(c.payDestKey) ?? null;
        c.payDestOwn = own(c.payDest);
      }
    }
    return c;
  }

  /**
   * Runs every check; the executed and hit rules, the status and the alert hits. Every instance is
   * at version 1: the workloads create their instances once and never update them.
   */
  function evaluate(tx, update) {
    const c = contextOf(tx, update);
    const executedRules = [];
    const hitRules = [];
    const alertHits = [];
    let status = 'ALLOW';
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i];
      const hit = check.run(c);
      runs[i] += 1;
      if (hit === null) {
        executedRules.push({
          ruleInstanceId: check.id,
          ruleInstanceVersion: 1,
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
        ruleInstanceVersion: 1,
        ruleId: check.ruleId,
        ruleName: check.name,
        ruleDescription: hit.text,
        ruleAction: check.action,
        ruleHit: true,
        ruleHitMeta: { hitDirections: [...directions] },
        nature: check.nature,
        labels: [...check.labels],
        isShadow: false,
      });
      hitRules.push({
        ruleInstanceId: check.id,
        ruleInstanceVersion: 1,
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
      if (check.alerts) {
        for (const direction of directions) {
          const userId = direction === 'ORIGIN' ? c.o : c.d;
          if (userId !== undefined) alertHits.push({ check, userId, direction, text: hit.text });
        }
      }
    }
    return { c, result: { executedRules, hitRules, status }, alertHits };
  }

  /** Files the transaction in its series (new) or updates its entries (after an event). */
  function record(c) {
    const { tx, at } = c;
    const id = tx.transactionId;
    if (c.o !== undefined) {
      const u = users.get(c.o);
      if (u.sending !== null) putEntry(u.sending, c.sendingOwn, at, id, c.originEntry);
      if (u.all !== null) putEntry(u.all, c.allOriginOwn, at, id, c.originEntry);
    }
    if (c.d !== undefined) {
      const u = users.get(c.d);
      if (u.receiving !== null) putEntry(u.receiving, c.receivingOwn, at, id, c.destinationEntry);
      if (u.all !== null && c.d !== c.o) putEntry(u.all, c.allDestinationOwn, at, id, c.destinationEntry);
    }
    if (c.pairKey !== undefined) putEntry(c.pair ?? seriesOf(pairs, c.pairKey), c.pairOwn, at, id, c.originEntry);
    if (c.payDestKey !== undefined) {
      const e = {
        amt: c.destinationEntry?.amt ?? baseUnits(tx.destinationAmountDetails ?? tx.originAmountDetails, at),
        cp: c.o,
        cc: undefined,
        type: tx.type,
        near: false,
      };
      putEntry(c.payDest ?? seriesOf(payDests, c.payDestKey), c.payDestOwn, at, id, e);
    }
  }

  /**
   * Lands each hit in an alert: the open alert of (instance, user), else a new one in the user's open
   * case or a new case. Returns the alerts as a result names them: in hit order, each once.
   */
  function fileAlertHits(alertHits, transactionId) {
    const named = [];
    if (alertHits.length === 0) return named;
    const at = now();
    const name = (alert, h, action, caseOpened = false) => {
      if (named.some((a) => a.alertId === alert.alertId)) return;
      const entry = { alertId: alert.alertId, caseId: alert.caseId, ruleInstanceId: h.check.id, userId: h.userId, direction: h.direction, action };
      named.push(caseOpened ? { ...entry, caseOpened: true } : entry);
    };
    for (const h of alertHits) {
      const key = `${h.check.id}\u0000${h.userId}`;
      const open = alerts.get(openAlertByInstanceUser.get(key));
      if (open !== undefined && OPEN_STATUSES.has(open.alertStatus)) {
        const listed = transactionsOfAlert.get(open.alertId);
        if (!listed.has(transactionId)) {
          listed.add(transactionId);
          open.entityDetails.transactionIds.push(transactionId);
        }
        open.updatedAt = at;
        const c = cases.get(open.caseId);
        if (c !== undefined) c.updatedAt = at;
        name(open, h, 'APPENDED');
        continue;
      }
      const userCase = cases.get(openCaseByUser.get(h.userId));
      const caseIsOpen = userCase !== undefined && OPEN_STATUSES.has(userCase.caseStatus);
      // Ids are drawn only when an alert (and, without an open case, a case) is opened.
      const alertId = `alert-${++alertIds}`;
      const caseId = caseIsOpen ? userCase.caseId : `case-${++caseIds}`;
      const alert = {
        alertId,
        caseId,
        createdTimestamp: at,
        updatedAt: at,
        alertStatus: 'OPEN',
        priority: h.check.priority,
        userId: h.userId,
        direction: h.direction,
        entityDetails: { type: 'TRANSACTION', transactionIds: [transactionId] },
        ruleDetails: { id: h.check.ruleId, name: h.check.name, description: h.text, instanceId: h.check.id, action: h.check.action, nature: h.check.nature },
      };
      if (caseIsOpen) {
        userCase.alertIds.push(alert.alertId);
        userCase.updatedAt = at;
        if (alert.priority < userCase.priority) userCase.priority = alert.priority;
      } else {
        const created = {
          caseId,
          createdTimestamp: at,
          updatedAt: at,
          caseStatus: 'OPEN',
          priority: alert.priority,
          alertIds: [alert.alertId],
          entityDetails: { type: 'USER', userId: h.userId },
        };
        cases.set(created.caseId, created);
        openCaseByUser.set(h.userId, created.caseId);
      }
      alerts.set(alert.alertId, alert);
      transactionsOfAlert.set(alert.alertId, new Set([transactionId]));
      openAlertByInstanceUser.set(key, alert.alertId);
      name(alert, h, 'OPENED', !caseIsOpen);
    }
    return named;
  }

  /** `result` naming `named` (absent when none), as the engine's results do. */
  function withAlerts(result, named) {
    return named.length === 0 ? result : { ...result, alerts: named };
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
    /** Drops the kept state (the harness calls it after a timed run). */
    dispose() {
      for (const m of [users, pairs, payDests, transactions, events, alerts, cases, openAlertByInstanceUser, transactionsOfAlert, openCaseByUser]) m.clear();
    },

    /** Per-instance run and hit counters, in instance order. */
    counters() {
      return checks.map((check, i) => ({ id: check.id, runs: runs[i], hits: hits[i] }));
    },

    /**
     * The alerts and the cases, in creation order (as the engine lists them), each with its due date
     * (creation plus the package's default SLA hours for its priority), as the engine adds it on read.
     */
    listAlerts: () => [...alerts.values()].map(withDueDate),
    listCases: () => [...cases.values()].map(withDueDate),

    async createTransaction(input) {
      const request = validateTransaction(input);
      const existing = transactions.get(request.transactionId);
      if (existing !== undefined) {
        if (JSON.stringify(existing.request) === JSON.stringify(request)) return { transactionId: request.transactionId, ...existing.createResult };
        throw requestError('TRANSACTION_ID_CONFLICT', 'different payload');
      }
      const tx = request.transactionState ? request : withState(request, 'CREATED');
      const evaluated = evaluate(tx, false);
      record(evaluated.c);
      const result = withAlerts(evaluated.result, fileAlertHits(evaluated.alertHits, tx.transactionId));
      transactions.set(tx.transactionId, { request, tx, createResult: result, latestResult: result, events: [], lastEventTimestamp: null });
      return { transactionId: tx.transactionId, ...result };
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
      const evaluated = evaluate(tx, true);
      record(evaluated.c);
      const result = withAlerts(evaluated.result, fileAlertHits(evaluated.alertHits, tx.transactionId));
      stored.tx = tx;
      stored.latestResult = result;
      stored.events.push(event);
      stored.lastEventTimestamp = Math.max(stored.lastEventTimestamp ?? -Infinity, event.timestamp);
      events.set(eventId, { event, result });
      return { eventId, transaction: tx, ...result };
    },
  };
}

/** A side's texts joined like the engine's descriptions: each once, by spaces. */
function joinTexts(texts) {
  return texts.length === 2 && texts[0] === texts[1] ? texts[0] : texts.join(' ');
}

/** The custom instances of the workloads as hand-written predicates (`logic: 'inline'`). */
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
      // biome-ignore lint/suspicious/noDoubleEquals: the custom rule's json-logic != (loose), written out
      return (tx) => tx.originAmountDetails?.country != tx.destinationAmountDetails?.country && amountOf(tx) >= 5000;
    case 'Card used outside its issuing country':
      // biome-ignore lint/suspicious/noDoubleEquals: the custom rule's json-logic != (loose), written out
      return (tx) => tx.originPaymentDetails?.method === 'CARD' && tx.originPaymentDetails.cardIssuedCountry != tx.originAmountDetails?.country;
    case 'Micro-deposit or high-risk merchant': {
      const mccs = ['7995', '6051'];
      return (tx) => (tx.type === 'DEPOSIT' && amountOf(tx) < 1) || mccs.includes(tx.originPaymentDetails?.merchantDetails?.MCC);
    }
    case 'Large GBP transaction':
      return (tx) => tx.originAmountDetails?.transactionCurrency === 'GBP' && amountOf(tx) > 7500;
    case 'Pass-through':
      return (_tx, agg) => agg.received7 > 10000 && agg.sent7 >= 0.9 * agg.received7;
    case 'Structuring':
      return (_tx, agg) => agg.nearThreshold >= 3;
    case 'Fan-out':
      return (_tx, agg) => agg.payees > 40;
    case 'Amount spike':
      return (_tx, agg) => agg.max30 > 5000 && agg.max30 > 10 * agg.avg30;
    default:
      throw new Error(`baseline: no inline predicate for custom instance "${alias}"`);
  }
}
