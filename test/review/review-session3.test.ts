/**
 * Review of the allocation work in 056c23e..c9b8e50 (shared check context, pre-sized result arrays,
 * `reachesThreshold`, for-in copies, duplicate keys by counting, string bodies with
 * `Buffer.byteLength`, per-millisecond log time, per-store query scratch arrays).
 * `BUG-n` tests fail while the bug is present; `CONTRACT-n` tests fail on a documented but breaking
 * change of a public contract; the others pin behaviour the review checked.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAggregateStore, computeAggregate, type AggregateQuery, type SeriesEntry } from '../../src/aggregation/aggregate-store.js';
import { serve } from '../../src/cli/serve.js';
import { createFixedRateProvider, formatMoney, toScaled } from '../../src/domain/money.js';
import { cloneJson } from '../../src/domain/json.js';
import { hasDuplicateKey } from '../../src/http/body.js';
import { createHttpHandler, toNodeListener } from '../../src/http/index.js';
import { createEngine, evaluateRuleInstances, planRuleInstances, type EvaluationInput, type PreparedInstance } from '../../src/index.js';
import { receiverReads, senderReads, sumAmounts, sumCounts, createSideNames, type SideRead } from '../../src/rules/kits/directions.js';
import { r1FirstTransaction } from '../../src/rules/library/r-1-first-transaction.js';
import { r2TransactionAmount } from '../../src/rules/library/r-2-transaction-amount.js';
import { r69MoneyFlowVolume } from '../../src/rules/library/r-69-money-flow-volume.js';
import { resolveThreshold } from '../../src/rules/parameters.js';
import { deepFreeze } from '../../src/domain/json.js';
import type { RuleCheckContext, RuleHit } from '../../src/rules/types.js';
import { copySafeJson } from '../../src/validation/safe-json.js';
import { T0, fixedClock, sequentialIds, tx } from '../helpers.js';

// ---------------------------------------------------------------------------------------------
// 1. One check context per evaluation; pre-sized executedRules / outcomes
// ---------------------------------------------------------------------------------------------

function instanceOf(id: string, extra: Record<string, unknown> = {}): PreparedInstance['instance'] {
  return {
    id,
    ruleId: `HOST-${id}`,
    parameters: { tag: id },
    action: 'FLAG',
    nature: 'AML',
    labels: [],
    mode: 'LIVE',
    status: 'ACTIVE',
    filters: {},
    ...extra,
  } as unknown as PreparedInstance['instance'];
}

interface Seen {
  readonly id: string;
  readonly parameters: unknown;
  readonly aggregateNames: string[];
  readonly currentCounts: unknown;
  readonly lookups: unknown;
  readonly hasLookupsKey: boolean;
}

/** A host rule recording what its check saw *during* the call (copies, not the context). */
function hostRule(id: string, seen: Seen[], options: { needs?: string[]; lookups?: string[]; hit?: boolean } = {}) {
  return {
    id: `HOST-${id}`,
    name: `Host ${id}`,
    description: `Host rule ${id}`,
    descriptionTemplate: `Host ${id} hit.`,
    series: [],
    ...(options.needs
      ? {
          aggregates: ({ transaction }: { transaction: { timestamp: number; originUserId?: string } }) =>
            (options.needs as string[]).map((name) => ({
              name,
              series: 'user-sending',
              key: transaction.originUserId ?? 'x',
              start: 0,
              end: transaction.timestamp,
              fn: 'count',
              includeCurrent: false,
            })),
        }
      : {}),
    ...(options.lookups
      ? { lookups: () => (options.lookups as string[]).map((name) => ({ name, listId: 'l-1', listType: 'BLACKLIST', subtype: 'USER_ID', value: 'v' })) }
      : {}),
    check(ctx: RuleCheckContext<unknown>): readonly RuleHit[] {
      seen.push({
        id,
        parameters: ctx.parameters,
        aggregateNames: Object.keys(ctx.aggregates),
        currentCounts: ctx.currentCounts,
        lookups: ctx.lookups === undefined ? undefined : { ...ctx.lookups },
        hasLookupsKey: ctx.lookups !== undefined,
      });
      return options.hit ? [{ direction: 'ORIGIN' }] : [];
    },
  };
}

function inputOf(instances: PreparedInstance[], transaction = tx({ timestamp: T0 })): EvaluationInput {
  return {
    transaction,
    instances,
    originUser: null,
    destinationUser: null,
    money: { rates: createFixedRateProvider(), baseCurrency: 'EUR' },
    defaultRiskLevel: 'VERY_HIGH',
  } as unknown as EvaluationInput;
}

describe('review: shared check context', () => {
  it('no rule sees another instance’s parameters, aggregates, currentCounts or lookups', () => {
    const seen: Seen[] = [];
    const a = hostRule('a', seen, { needs: ['na'], lookups: ['la'], hit: true });
    const b = hostRule('b', seen); // no needs, no lookups
    const c = hostRule('c', seen, { needs: ['nc'] });
    const d = hostRule('d', seen, { lookups: ['ld'] });
    const instances = [
      { instance: instanceOf('a'), rule: a, logic: null, filter: null, historical: () => false, seriesMap: null },
      { instance: instanceOf('b'), rule: b, logic: null, filter: null },
      { instance: instanceOf('c'), rule: c, logic: null, filter: null },
      { instance: instanceOf('d'), rule: d, logic: null, filter: null },
    ] as unknown as PreparedInstance[];
    const plan = planRuleInstances(inputOf(instances));
    const values = plan.needs.map(() => 3);
    const result = evaluateRuleInstances(plan, values, [true, false]);
    expect(seen.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(seen.map((s) => s.parameters)).toEqual([{ tag: 'a' }, { tag: 'b' }, { tag: 'c' }, { tag: 'd' }]);
    expect(seen.map((s) => s.aggregateNames)).toEqual([['na'], [], ['nc'], []]);
    expect(seen.map((s) => s.currentCounts)).toEqual([false, true, true, true]);
    expect(seen.map((s) => s.lookups)).toEqual([{ la: true }, undefined, undefined, { ld: false }]);
    expect(result.executedRules.map((r) => r.ruleHit)).toEqual([true, false, false, false]);
  });

  it('CONTRACT-1 (fixed: host rules get their own context, D-136) a host rule that keeps its context — e.g. a vi.fn() spy — sees its own instance’s values', async () => {
    // 056c23e reused one context object per evaluation for every rule, so whatever a host rule
    // kept (a spy's recorded call, a deferred log) showed the last instance's values. Only the
    // library rules share it now; a host rule gets its own context per call.
    const check = vi.fn((_ctx: RuleCheckContext<unknown>): readonly RuleHit[] => []);
    const hostRule = { ...r2TransactionAmount, id: 'HOST-SPY', name: 'Host spy', check };
    const engine = createEngine({ rules: [hostRule as never], clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(5) });
    await engine.createRuleInstance({ ruleId: 'HOST-SPY', parameters: { transactionAmountThreshold: { EUR: 1 } } });
    await engine.createRuleInstance({ ruleId: 'HOST-SPY', parameters: { transactionAmountThreshold: { EUR: 2 } } });
    await engine.createTransaction(tx({ timestamp: T0 }));
    expect(check).toHaveBeenCalledTimes(2);
    expect(check.mock.calls.map((c) => (c[0].parameters as { transactionAmountThreshold: unknown }).transactionAmountThreshold)).toEqual([{ EUR: 1 }, { EUR: 2 }]);
    expect(check.mock.calls[0]?.[0]).not.toBe(check.mock.calls[1]?.[0]);
  });

  it('a filtered-out instance leaves no hole: executed rules, outcomes and the JSON have no null', () => {
    const seen: Seen[] = [];
    const skip = () => ({ run: false, origin: true, destination: true });
    const onlyDestination = () => ({ run: true, origin: false, destination: true });
    const instances = [
      { instance: instanceOf('a'), rule: hostRule('a', seen, { hit: true }), logic: null, filter: null },
      { instance: instanceOf('b'), rule: hostRule('b', seen, { hit: true }), logic: null, filter: skip },
      // Hits ORIGIN only, but its filter keeps only the destination side: not a hit.
      { instance: instanceOf('c'), rule: hostRule('c', seen, { hit: true }), logic: null, filter: onlyDestination },
      { instance: instanceOf('d'), rule: hostRule('d', seen), logic: null, filter: skip },
    ] as unknown as PreparedInstance[];
    for (let round = 0; round < 3; round++) {
      const result = evaluateRuleInstances(inputOf(instances), []);
      expect(result.executedRules.map((r) => r.ruleInstanceId)).toEqual(['a', 'c']);
      expect(result.executedRules.map((r) => r.ruleHit)).toEqual([true, false]);
      expect(result.outcomes.map((o) => o.instance.id)).toEqual(['a', 'c']);
      expect(Object.keys(result.executedRules)).toEqual(['0', '1']);
      expect(Object.keys(result.outcomes)).toEqual(['0', '1']);
      expect(JSON.stringify(result)).not.toContain('null');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 2. reachesThreshold in R-1, R-2, R-69 agrees with the previous resolve-then-compare code
// ---------------------------------------------------------------------------------------------

const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'KWD', 'XXX'] as const;
const thresholdsArb = fc.dictionary(fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: 2_000_000 }).map((n) => n / 100), { maxKeys: 3 });

/** R-2 as it was before 056c23e. */
function oldR2(transaction: { originAmountDetails?: { transactionAmount: number; transactionCurrency: string }; timestamp: number }, thresholds: Record<string, number>, m: typeof money): RuleHit[] {
  const details = transaction.originAmountDetails;
  if (!details) return [];
  const resolved = resolveThreshold(thresholds, toScaled(details.transactionAmount), details.transactionCurrency, m, transaction.timestamp);
  if (!resolved || resolved.amount < resolved.threshold) return [];
  const vars = { amount: formatMoney(toScaled(details.transactionAmount), details.transactionCurrency), threshold: formatMoney(resolved.threshold, resolved.currency) };
  return [
    { direction: 'ORIGIN', vars },
    { direction: 'DESTINATION', vars },
  ];
}

const VOLUME = createSideNames('v');
const HISTORY = createSideNames('h');
/** R-69's check as it was before 056c23e. */
function oldR69(transaction: never, parameters: Record<string, any>, aggregates: Record<string, any>, m: typeof money): RuleHit[] {
  const hits: RuleHit[] = [];
  const t = transaction as { timestamp: number };
  const side = (direction: 'ORIGIN' | 'DESTINATION', volume: readonly SideRead[] | null, history: readonly SideRead[] | null) => {
    if (!volume) return;
    if (parameters.initialTransactions !== undefined && parameters.initialTransactions > 0) {
      if (sumCounts(aggregates, history ?? []) < parameters.initialTransactions) return;
    }
    const total = sumAmounts(aggregates, volume);
    const resolved = resolveThreshold(parameters.transactionVolumeThreshold, total, m.baseCurrency, m, t.timestamp);
    if (!resolved || resolved.amount < resolved.threshold) return;
    const upper = parameters.transactionVolumeUpperThreshold;
    if (upper && Object.keys(upper).length > 0) {
      const bound = resolveThreshold(upper, total, m.baseCurrency, m, t.timestamp);
      if (bound && bound.amount > bound.threshold) return;
    }
    hits.push({
      direction,
      vars: { side: direction === 'ORIGIN' ? 'Sender' : 'Receiver', window: '1 day', volume: formatMoney(resolved.amount, resolved.currency), threshold: formatMoney(resolved.threshold, resolved.currency) },
    });
  };
  side('ORIGIN', senderReads(transaction, parameters.checkSender, VOLUME), senderReads(transaction, parameters.checkSender, HISTORY));
  side('DESTINATION', receiverReads(transaction, parameters.checkReceiver, VOLUME), receiverReads(transaction, parameters.checkReceiver, HISTORY));
  return hits;
}

describe('review: reachesThreshold in the rules', () => {
  fcTest.prop([thresholdsArb, fc.integer({ min: 0, max: 3_000_000 }).map((n) => n / 100), fc.constantFrom(...CURRENCIES), fc.boolean(), fc.boolean()])(
    'R-2 hits and describes exactly as before (frozen or not, with or without an amount)',
    (thresholds, amount, currency, frozen, withAmount) => {
      const t = tx({ timestamp: T0, originAmountDetails: withAmount ? { transactionAmount: amount, transactionCurrency: currency } : undefined }) as never;
      const map = frozen ? deepFreeze({ ...thresholds }) : thresholds;
      const ctx = { transaction: t, parameters: { transactionAmountThreshold: map }, originUser: null, destinationUser: null, aggregates: {}, money };
      expect(r2TransactionAmount.check(ctx as never)).toEqual(oldR2(t, map, money));
    },
  );

  fcTest.prop([thresholdsArb, fc.integer({ min: 0, max: 3_000_000 }).map((n) => n / 100), fc.constantFrom(...CURRENCIES), fc.constantFrom(0, 1)])(
    'R-1 hits exactly as before',
    (thresholds, amount, currency, prior) => {
      const t = tx({ timestamp: T0, originAmountDetails: { transactionAmount: amount, transactionCurrency: currency } }) as never;
      const names = r1FirstTransaction.aggregates?.({ transaction: t, parameters: {} as never }) ?? [];
      const aggregates = Object.fromEntries(names.map((n) => [n.name, prior]));
      const ctx = { transaction: t, parameters: { transactionAmountThreshold: thresholds }, originUser: null, destinationUser: null, aggregates, money };
      const got = r1FirstTransaction.check(ctx as never);
      const resolved = resolveThreshold(thresholds, toScaled(amount), currency, money, T0);
      const old = prior !== 0 ? false : Object.keys(thresholds).length === 0 ? true : resolved !== null && resolved.amount >= resolved.threshold;
      expect(got.length > 0).toBe(old);
    },
  );

  fcTest.prop([
    fc.dictionary(fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: 2_000_000 }).map((n) => n / 100), { minKeys: 1, maxKeys: 3 }),
    fc.option(thresholdsArb, { nil: undefined }),
    fc.constantFrom('sending', 'all', 'none'),
    fc.constantFrom('receiving', 'all', 'none'),
    fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    fc.array(fc.bigInt({ min: 0n, max: 3_000_000_000_000_000n }), { minLength: 8, maxLength: 8 }),
    fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 8, maxLength: 8 }),
    fc.constantFrom('USD', 'EUR', 'JPY'),
  ])('R-69 (with upper thresholds and initial transactions) hits and describes exactly as before', (lower, upper, checkSender, checkReceiver, initialTransactions, sums, counts, base) => {
    const t = tx({ timestamp: T0 }) as never;
    const parameters = deepFreeze({
      transactionVolumeThreshold: lower,
      ...(upper !== undefined ? { transactionVolumeUpperThreshold: upper } : {}),
      timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
      checkSender,
      checkReceiver,
      ...(initialTransactions !== undefined ? { initialTransactions } : {}),
    });
    const needs = r69MoneyFlowVolume.aggregates?.({ transaction: t, parameters: parameters as never }) ?? [];
    const aggregates: Record<string, unknown> = {};
    needs.forEach((n, i) => (aggregates[n.name] = n.fn === 'sum' ? sums[i % 8] : counts[i % 8]));
    const m = { rates: createFixedRateProvider(), baseCurrency: base };
    const got = r69MoneyFlowVolume.check({ transaction: t, parameters, originUser: null, destinationUser: null, aggregates, money: m } as never);
    expect(got).toEqual(oldR69(t, parameters, aggregates, m));
  });
});

// ---------------------------------------------------------------------------------------------
// 3. for-in copies
// ---------------------------------------------------------------------------------------------

/** cloneJson as it was (Object.keys). */
function oldClone(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(oldClone);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = oldClone(v);
  }
  return out;
}

describe('review: for-in copies', () => {
  const samples = (): unknown[] => {
    const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: { c: 2 } });
    const arrayExtra = Object.assign([1, 2], { extra: 3 });
    const withHidden = { a: 1 };
    Object.defineProperty(withHidden, 'hidden', { value: 2, enumerable: false });
    return [
      { b: 1, 2: 'two', a: 2, 1: 'one', '-1': 'neg', '01': 'lead', toString: 't', hasOwnProperty: 'h', valueOf: 'v' },
      nullProto,
      { arr: arrayExtra },
      withHidden,
      { x: undefined, y: [undefined, 1] },
      { nested: [{ z: 1, y: 2 }, nullProto] },
    ];
  };

  it('cloneJson keeps the same own keys, values and key order as the Object.keys copy', () => {
    for (const s of samples()) {
      const copy = cloneJson(s);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(oldClone(s)));
      expect(Object.keys(copy as object)).toEqual(Object.keys(oldClone(s) as object));
    }
  });

  it('with an enumerable Object.prototype property (pollution), neither copy picks it up', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      for (const s of samples()) {
        const copy = cloneJson(s) as Record<string, unknown>;
        expect(Object.hasOwn(copy, 'polluted')).toBe(false);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(oldClone(s)));
      }
      const safe = copySafeJson({ a: 1, b: { c: 2 } }) as Record<string, unknown>;
      expect(Object.keys(safe)).toEqual(['a', 'b']);
      expect(Object.hasOwn(safe.b as object, 'polluted')).toBe(false);
      expect(copySafeJson(JSON.parse('{"polluted":5}'))).toEqual({ polluted: 5 });
    } finally {
      delete proto.polluted;
    }
  });

  it('copySafeJson still refuses an own "__proto__" key from JSON.parse, at any depth, and keeps integer-key order', () => {
    expect(() => copySafeJson(JSON.parse('{"__proto__":{"admin":true}}'))).toThrow(/forbidden key/);
    expect(() => copySafeJson(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toThrow(/forbidden key/);
    expect(() => copySafeJson(JSON.parse('{"constructor":{"prototype":{}}}'))).toThrow(/forbidden key/);
    const copy = copySafeJson(JSON.parse('{"b":1,"2":2,"a":3,"1":4}')) as object;
    expect(Object.keys(copy)).toEqual(['1', '2', 'b', 'a']);
    const nullProto = Object.assign(Object.create(null) as object, { z: 1, y: 2 });
    expect(Object.keys(copySafeJson(nullProto) as object)).toEqual(['z', 'y']);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Duplicate keys by counting; string bodies with Buffer.byteLength
// ---------------------------------------------------------------------------------------------

/** The set-based check as it was before 118ac88 (the reference). */
function oldHasDuplicateKey(text: string): boolean {
  const stack: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) stack.push(new Set());
    else if (c === 0x5b) stack.push(null);
    else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i += 1; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i += 1;
        } else if (d === 0x22) {
          break;
        }
      }
      const keys = stack[stack.length - 1];
      if (!keys) continue;
      let j = i + 1;
      while (j < text.length && (text[j] === ' ' || text[j] === '\n' || text[j] === '\r' || text[j] === '\t')) j++;
      if (text[j] !== ':') continue;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      if (keys.has(key)) return true;
      keys.add(key);
    }
  }
  return false;
}

/** JSON text of a string with some characters written as \uXXXX or short escapes. */
function spelled(s: string, mask: number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const hex = c.toString(16).padStart(4, '0');
    if ((mask >> i % 30) & 1) out += `\\u${(mask >> 30) & 1 ? hex.toUpperCase() : hex}`;
    else out += JSON.stringify(s[i]).slice(1, -1);
  }
  return `${out}"`;
}

const wsArb = fc.constantFrom('', ' ', '\n', '\t\r ', '  \n');
const keyArb = fc.oneof(fc.constantFrom('', 'a', '__proto__', 'constructor', '":', '\\', '"', 'é', '😀', '0', '00', '1', '4294967295', 'length', 'toString'), fc.string({ maxLength: 4 }));
/** Random JSON text with objects whose keys are spelled variously, sometimes the same key twice. */
const textArb: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom('1', 'null', '"x\\":y"', '"{\\"a\\":1}"', '":"', '[]', '{}'), tie('object'), tie('array')),
  array: fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${(items as string[]).join(',')}]`),
  object: fc
    .array(fc.tuple(keyArb, fc.nat(), wsArb, wsArb, tie('value')), { maxLength: 4 })
    .map((entries) => `{${(entries as [string, number, string, string, string][]).map(([k, mask, w1, w2, v]) => `${w1}${spelled(k, mask)}${w2}:${w1}${v}${w2}`).join(',')}}`),
})).value as fc.Arbitrary<string>;

describe('review: duplicate keys by counting', () => {
  fcTest.prop([textArb], { numRuns: 3000 })('agrees with the set-based check on any valid JSON text', (text) => {
    JSON.parse(text); // valid
    expect(hasDuplicateKey(text)).toBe(oldHasDuplicateKey(text));
  });

  const rows: { text: string; expected: boolean }[] = [
    { text: '{"__proto__":1,"a":2}', expected: false },
    { text: '{"__proto__":{"x":1},"\\u005f_proto__":{"x":1}}', expected: true },
    { text: '{"":1,"\\u0000":2}', expected: false },
    { text: '{"":1,"":2}', expected: true },
    { text: '{"\\"":1,"\\u0022":2}', expected: true },
    { text: '{"\\/":1,"/":2}', expected: true },
    { text: '{"\\ud83d\\ude00":1,"😀":2}', expected: true },
    { text: '{"\\ud800":1,"\\udc00":2}', expected: false },
    { text: '{"a":"\\\\","b":"\\\\\\":"}', expected: false },
    { text: '{"1":1,"01":2,"1.0":3}', expected: false },
    { text: '{"a":{"a":{"a":1}},"b":[{"a":1,"b":2}]}', expected: false },
    { text: '{"x":{"a":1,"a":1},"x":{"a":1}}', expected: true },
    { text: '"\\"a\\":1"', expected: false },
  ];
  it.each(rows)('$text → $expected', ({ text, expected }) => {
    expect(hasDuplicateKey(text)).toBe(expected);
    expect(oldHasDuplicateKey(text)).toBe(expected);
  });

  it('with Object.prototype polluted (enumerable), counts only own keys', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      expect(hasDuplicateKey('{"a":1,"b":{"c":[{"d":1}]}}')).toBe(false);
      expect(hasDuplicateKey('{"polluted":1}')).toBe(false);
      expect(hasDuplicateKey('{"a":1,"a":2}')).toBe(true);
    } finally {
      delete proto.polluted;
    }
  });
});

const KEY = 'review-s3-key-0123456789abcdef';

/**
 * One keep-alive connection: each request is sent after the previous response was read in full,
 * framed by its content-length in bytes. A wrong length shows as a timeout (too long) or as
 * garbage before the next status line (too short).
 */
function keepAlive(port: number) {
  const socket = connect(port, '127.0.0.1');
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | null = null;
  socket.on('data', (d: Buffer) => {
    buffered = Buffer.concat([buffered, d]);
    waiting?.();
  });
  const frame = (): { status: number; body: string } | null => {
    const headEnd = buffered.indexOf('\r\n\r\n', 0, 'latin1');
    if (headEnd < 0) return null;
    const head = buffered.subarray(0, headEnd).toString('latin1');
    if (!head.startsWith('HTTP/1.1 ')) throw new Error(`bad framing: ${JSON.stringify(buffered.subarray(0, 60).toString('utf8'))}`);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < headEnd + 4 + length) return null;
    const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    buffered = buffered.subarray(headEnd + 4 + length);
    return { status: Number(head.slice(9, 12)), body };
  };
  return {
    send(request: string): Promise<{ status: number; body: string }> {
      socket.write(request);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no complete response; have ${JSON.stringify(buffered.toString('utf8').slice(0, 200))}`)), 2_000);
        waiting = () => {
          try {
            const f = frame();
            if (f === null) return;
            clearTimeout(timer);
            waiting = null;
            resolve(f);
          } catch (error) {
            clearTimeout(timer);
            reject(error as Error);
          }
        };
        waiting();
      });
    },
    close: () => socket.destroy(),
  };
}

describe('review: string bodies and content-length', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  it('responses with multi-byte text (aliases, descriptions, ids) keep keep-alive framing intact', async () => {
    const engine = createEngine({ clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(3) });
    await engine.createRuleInstance({
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 1 } },
      ruleNameAlias: 'Überweisung zu groß 🚀 — 大額',
      ruleDescriptionAlias: 'Betrag {{amount}} ≥ {{threshold}} ✓ 😀',
    } as never);
    const server = createServer(toNodeListener(createHttpHandler({ engine, apiKeys: [KEY], unauthenticatedRateLimit: null })));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    const post = (id: string) => {
      const body = JSON.stringify(tx({ transactionId: id, timestamp: T0, reference: 'ü€😀' }));
      return `POST /transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n\r\n`;
    const connection = keepAlive(port);
    try {
      const responses = [];
      for (const request of [post('tx-é-1'), get('/transactions/tx-%C3%A9-1'), post('tx-😀-2'), get('/rule-instances'), get('/nope-%C3%BC'), get('/transactions/tx-%F0%9F%98%80-2')]) {
        responses.push(await connection.send(request));
      }
      expect(responses.map((r) => r.status)).toEqual([201, 200, 201, 200, 404, 200]);
      for (const r of responses) expect(() => JSON.parse(r.body)).not.toThrow();
      expect(responses[0]?.body).toContain('Überweisung zu groß 🚀 — 大額');
      expect(responses[0]?.body).toContain('✓ 😀');
    } finally {
      connection.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Request-log time
// ---------------------------------------------------------------------------------------------

describe('review: request-log time', () => {
  afterEach(() => vi.restoreAllMocks());

  it('each line’s time is exactly pino’s isoTime for the Date.now() of that line, also across ms changes and clock steps back', async () => {
    const lines: string[] = [];
    let now = Date.UTC(2025, 0, 1, 0, 0, 0, 999);
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const server = await serve(['--port', '0', '--api-key', KEY], {}, { write: (line: string) => void lines.push(line) });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const times: number[] = [now];
      for (const next of [now, now + 1, now + 1, now - 5_000, 253402300800000, 0, now]) {
        now = next;
        times.push(next);
        expect((await fetch(`${url}/rules`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
      }
      const parsed = lines.map((l) => JSON.parse(l) as { time: string; msg: string });
      const requestTimes = parsed.filter((p) => p.msg === 'request').map((p) => p.time);
      const expected = times.slice(1).map((t) => {
        now = t;
        return (JSON.parse(`{${pino.stdTimeFunctions.isoTime().slice(1)}}`) as { time: string }).time;
      });
      expect(requestTimes).toEqual(expected);
      expect(parsed[0]?.time).toBe(new Date(times[0] as number).toISOString());
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 6. queryMany scratch arrays
// ---------------------------------------------------------------------------------------------

describe('review: queryMany scratch arrays', () => {
  const entries: SeriesEntry[] = [];
  for (let k = 0; k < 12; k++) {
    for (let i = 0; i < 5; i++) entries.push({ series: 'user-sending', key: `u${k}`, id: `t${k}-${i}`, timestamp: 1000 + i * 10 + k, amount: BigInt((k + 1) * 100 + i) });
  }
  const q = (key: string, fn: AggregateQuery['fn'] = 'sum'): AggregateQuery => ({ series: 'user-sending', key, start: 0, end: 10_000, fn }) as AggregateQuery;

  it('a batch that throws half-way does not change the answers of later batches (also after writes)', () => {
    const store = createAggregateStore();
    store.apply([], entries);
    const bad = { series: 'user-sending', key: 'u1', start: 0, end: 10, fn: 'bogus' } as unknown as AggregateQuery;
    expect(() => store.queryMany([q('u0'), q('u1'), bad, q('u2')])).toThrow();
    // A write between batches: u1 gets a new entry, u0 disappears.
    const added: SeriesEntry = { series: 'user-sending', key: 'u1', id: 'new', timestamp: 2000, amount: 7n };
    store.apply(entries.filter((e) => e.key === 'u0'), [added]);
    const all = [...entries.filter((e) => e.key !== 'u0'), added];
    const batch = [q('u0'), q('u1'), q('u2'), q('u1', 'count'), q('u0', 'count')];
    expect(store.queryMany(batch)).toEqual(batch.map((x) => computeAggregate(all, x)));
  });

  it('BUG-1 (fixed) a batch re-entered while it records a (series, key) pair must not answer a later query with another series’ index', () => {
    // queryMany pushes the pair into the store's three scratch arrays one field at a time, reading
    // q.key between the pushes. A batch that starts in between (here from a getter; any synchronous
    // call back into the store) empties the arrays, so the series, key and index columns end up
    // misaligned: (user-receiving, u4) then hits the cached index of (user-sending, u4).
    const store = createAggregateStore();
    const receiving: SeriesEntry[] = [
      { series: 'user-receiving', key: 'u4', id: 'r1', timestamp: 1000, amount: 1n },
      { series: 'user-receiving', key: 'u5', id: 'r2', timestamp: 1000, amount: 2n },
    ];
    store.apply([], [...entries, ...receiving]);
    const at = (series: string, key: string): AggregateQuery => ({ series, key, start: 0, end: 10_000, fn: 'sum' }) as AggregateQuery;
    let reads = 0;
    const reentrant = {
      series: 'user-sending',
      get key() {
        reads += 1;
        // 1st read: the cache scan (one cached pair), 2nd: the index lookup, 3rd: the push.
        if (reads === 3) store.queryMany([at('user-receiving', 'zz')]);
        return 'u4';
      },
      start: 0,
      end: 10_000,
      fn: 'sum',
    } as unknown as AggregateQuery;
    const batch = [at('user-sending', 'u0'), reentrant, at('user-receiving', 'u5'), at('user-receiving', 'u4')];
    const got = store.queryMany(batch);
    const all = [...entries, ...receiving];
    expect(got).toEqual([at('user-sending', 'u0'), at('user-sending', 'u4'), at('user-receiving', 'u5'), at('user-receiving', 'u4')].map((x) => computeAggregate(all, x)));
  });

  it('a re-entrant batch (a query whose key getter runs another batch) still answers every query right', () => {
    const store = createAggregateStore();
    store.apply([], entries);
    let inner: unknown[] | null = null;
    const reentrant = {
      series: 'user-sending',
      get key() {
        if (inner === null) inner = store.queryMany([q('u9'), q('u10'), q('u11'), q('u3')]);
        return 'u4';
      },
      start: 0,
      end: 10_000,
      fn: 'sum',
    } as unknown as AggregateQuery;
    const batch = [q('u0'), q('u1'), reentrant, q('u0'), q('u1'), q('u3'), q('u4'), q('u9'), q('u5'), q('u6'), q('u7'), q('u8'), q('u2')];
    const got = store.queryMany(batch);
    const keys = ['u0', 'u1', 'u4', 'u0', 'u1', 'u3', 'u4', 'u9', 'u5', 'u6', 'u7', 'u8', 'u2'];
    expect(got).toEqual(keys.map((k) => computeAggregate(entries, q(k))));
    expect(inner).toEqual(['u9', 'u10', 'u11', 'u3'].map((k) => computeAggregate(entries, q(k))));
  });
});
