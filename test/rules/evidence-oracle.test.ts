/**
 * The evidence of every hit (`ruleHitMeta.evidence`, docs/evidence.md) against a brute-force
 * recount over the stored history: random transactions in any arrival order, some of them updated
 * by events (amounts, and in the second property the origin card), through the engine; after every
 * call, each evidence item's value, window, total and newest ids must equal what a plain scan of the
 * transactions sent so far gives. Velocity, volume and distinct counts by user, by pair, by payment
 * identifier and by IP address; the graph, anomaly and TXM rules recount in their own tests.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { HitRuleDetails, RuleEvidence } from '../../src/index.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';

const USERS = ['alice', 'bob', 'carol'] as const;
const MAX_IDS = 20;
const DAY_WINDOW = { units: 1, granularity: 'day', rollingBasis: true };

interface Sent {
  readonly id: string;
  at: number;
  readonly origin: string;
  readonly destination: string;
  amount: number;
}

/** One operation: a new transaction, or an event changing the amount of an earlier one. */
type Op = { kind: 'tx'; at: number; origin: number; destination: number; amount: number } | { kind: 'update'; which: number; amount: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('tx' as const),
      at: fc.integer({ min: 0, max: 20 * HOUR }),
      origin: fc.integer({ min: 0, max: 2 }),
      destination: fc.integer({ min: 0, max: 2 }),
      amount: fc.integer({ min: 1, max: 5000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), which: fc.nat(), amount: fc.integer({ min: 1, max: 5000 }) }) },
);

/** The transactions of `user` on one side in [start, end], newest first by (timestamp, id). */
function windowOf(sent: readonly Sent[], user: string, side: 'sending' | 'receiving' | 'all', start: number, end: number): Sent[] {
  return sent
    .filter((s) => s.at >= start && s.at <= end)
    .filter((s) => (side === 'sending' ? s.origin === user : side === 'receiving' ? s.destination === user : s.origin === user || s.destination === user))
    .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** Exact decimal text of a whole-cent amount sum, as evidence writes money (trailing zeros trimmed). */
function money(cents: number): string {
  const whole = Math.floor(cents / 100);
  const fraction = String(cents % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

describe('properties', () => {
  test.prop([fc.array(opArb, { minLength: 1, maxLength: 70, size: 'max' }), fc.integer({ min: 0, max: 3 }), fc.constantFrom('sending', 'all')], {
    numRuns: 40,
  })(
    'R-2, R-30, R-69, R-119, R-126 and R-9 evidence equals a recount of the stored history: value, window, total and the newest 20 ids',
    async (ops, limit, checkSender) => {
      const { engine } = testEngine({ baseCurrency: 'EUR' });
      const velocity = await engine.createRuleInstance({
        ruleId: 'R-30',
        parameters: { transactionsLimit: limit, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender, checkReceiver: 'receiving' },
      });
      const volume = await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: {
          transactionVolumeThreshold: { EUR: 3000 },
          timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
          checkSender,
          checkReceiver: 'receiving',
        },
      });
      const amount = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 4000 } } });
      const pairVelocity = await engine.createRuleInstance({ ruleId: 'R-119', parameters: { transactionsLimit: limit, timeWindow: DAY_WINDOW } });
      const pairVolume = await engine.createRuleInstance({
        ruleId: 'R-126',
        parameters: { transactionVolumeThreshold: { EUR: 3000 }, timeWindow: DAY_WINDOW },
      });
      const senders = await engine.createRuleInstance({ ruleId: 'R-9', parameters: { sendersCount: 1, timeWindow: DAY_WINDOW } });
      const sent: Sent[] = [];
      let n = 0;
      for (const op of ops) {
        let current: Sent;
        let result: { readonly hitRules: readonly HitRuleDetails[] };
        if (op.kind === 'tx') {
          n += 1;
          current = {
            id: `t${String(n).padStart(3, '0')}`,
            at: T0 + op.at,
            origin: USERS[op.origin] as string,
            destination: USERS[op.destination] as string,
            amount: op.amount,
          };
          const details = { transactionAmount: op.amount, transactionCurrency: 'EUR' };
          result = await engine.createTransaction(
            tx({
              transactionId: current.id,
              timestamp: current.at,
              originUserId: current.origin,
              destinationUserId: current.destination,
              originAmountDetails: details,
              destinationAmountDetails: details,
            }),
          );
          sent.push(current);
        } else {
          if (sent.length === 0) continue;
          current = sent[op.which % sent.length] as Sent;
          current.amount = op.amount;
          const details = { transactionAmount: op.amount, transactionCurrency: 'EUR' };
          result = await engine.createTransactionEvent({
            transactionId: current.id,
            timestamp: current.at + 1,
            transactionState: 'CREATED',
            updatedTransactionAttributes: { originAmountDetails: details, destinationAmountDetails: details },
          });
        }
        const end = current.at;
        const sideOf = (direction: string) => (direction === 'ORIGIN' ? (checkSender as 'sending' | 'all') : 'receiving');
        const userOf = (direction: string) => (direction === 'ORIGIN' ? current.origin : current.destination);
        for (const hit of result.hitRules) {
          const evidence = (hit.ruleHitMeta?.evidence ?? []) as RuleEvidence[];
          // Every side that hit has evidence, and only those sides.
          expect(new Set(evidence.map((e) => e.direction))).toEqual(new Set(hit.ruleHitMeta?.hitDirections));
          for (const e of evidence) {
            if (hit.ruleInstanceId === amount.id) {
              expect(e).toEqual({
                direction: e.direction,
                kind: 'amount',
                value: money(current.amount * 100),
                comparison: '>=',
                limit: '4000',
                currency: 'EUR',
              });
              continue;
            }
            const start = end - DAY;
            const pair = hit.ruleInstanceId === pairVelocity.id || hit.ruleInstanceId === pairVolume.id;
            const inside = pair
              ? windowOf(sent, current.origin, 'sending', start, end).filter((s) => s.destination === current.destination)
              : hit.ruleInstanceId === senders.id
                ? windowOf(sent, current.destination, 'receiving', start, end)
                : windowOf(sent, userOf(e.direction), sideOf(e.direction), start, end);
            const ids = inside.slice(0, MAX_IDS).map((s) => s.id);
            expect(e.window).toEqual({ start, end, units: 1, granularity: 'day', rolling: true });
            expect(e.transactionCount).toBe(inside.length);
            expect(e.transactionIds).toEqual(ids);
            const total = inside.reduce((sum, s) => sum + s.amount * 100, 0);
            if (hit.ruleInstanceId === velocity.id) {
              expect(e).toMatchObject({ kind: 'count', value: inside.length, comparison: '>', limit });
            } else if (hit.ruleInstanceId === pairVelocity.id) {
              expect(e).toMatchObject({ kind: 'pairCount', value: inside.length, comparison: '>', limit });
            } else if (hit.ruleInstanceId === pairVolume.id) {
              expect(e).toMatchObject({ kind: 'pairVolume', value: money(total), comparison: '>=', limit: '3000', currency: 'EUR' });
            } else if (hit.ruleInstanceId === senders.id) {
              const distinct = new Set(inside.map((s) => s.origin)).size;
              expect(e).toMatchObject({ kind: 'distinct', field: 'counterparty', value: distinct, comparison: '>', limit: 1 });
            } else {
              expect(hit.ruleInstanceId).toBe(volume.id);
              expect(e).toMatchObject({ kind: 'volume', value: money(total), comparison: '>=', limit: '3000', currency: 'EUR' });
            }
          }
        }
      }
    },
  );

  /** One operation: a new transaction with payment details, or an event changing an earlier one's amount and origin card. */
  type DetailOp =
    | { kind: 'tx'; at: number; origin: number; destination: number; amount: number; originCard: number; destinationCard: number; ip: number }
    | { kind: 'update'; which: number; amount: number; originCard: number };
  const detailOpArb: fc.Arbitrary<DetailOp> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('tx' as const),
        at: fc.integer({ min: 0, max: 20 * HOUR }),
        origin: fc.integer({ min: 0, max: 2 }),
        destination: fc.integer({ min: 0, max: 2 }),
        amount: fc.integer({ min: 1, max: 5000 }),
        originCard: fc.integer({ min: 0, max: 2 }),
        destinationCard: fc.integer({ min: 0, max: 2 }),
        ip: fc.integer({ min: 0, max: 1 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('update' as const),
        which: fc.nat(),
        amount: fc.integer({ min: 1, max: 5000 }),
        originCard: fc.integer({ min: 0, max: 2 }),
      }),
    },
  );
  interface Detailed extends Sent {
    originCard: string;
    readonly destinationCard: string;
    readonly ip: string;
  }
  const card = (fingerprint: string) => ({ method: 'CARD', cardFingerprint: fingerprint });
  /** Newest first by (timestamp, id). */
  const newestFirst = (a: Sent, b: Sent) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

  test.prop(
    [
      fc.array(detailOpArb, { minLength: 1, maxLength: 60, size: 'max' }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 3 }),
      fc.constantFrom('sending', 'all'),
    ],
    { numRuns: 30 },
  )(
    'R-10, R-94, R-52, R-53, R-55 and R-69 (with an upper bound and a history) evidence equals a recount of the stored history',
    async (ops, limit, threshold, initialTransactions, checkSender) => {
      const { engine } = testEngine({ baseCurrency: 'EUR' });
      const counterparties = await engine.createRuleInstance({ ruleId: 'R-10', parameters: { sendersCount: limit, timeWindow: DAY_WINDOW } });
      const identifier = await engine.createRuleInstance({
        ruleId: 'R-94',
        parameters: { threshold, timeWindow: DAY_WINDOW, checkSender: 'all', checkReceiver: 'all' },
      });
      const ipUsers = await engine.createRuleInstance({ ruleId: 'R-52', parameters: { uniqueUsersCountThreshold: limit, timeWindow: DAY_WINDOW } });
      const cardUsers = await engine.createRuleInstance({ ruleId: 'R-53', parameters: { uniqueUsersCountThreshold: limit, timeWindow: DAY_WINDOW } });
      const senderCards = await engine.createRuleInstance({
        ruleId: 'R-55',
        parameters: { uniquePaymentIdentifiersCountThreshold: limit, timeWindow: DAY_WINDOW },
      });
      const volume = await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: {
          transactionVolumeThreshold: { EUR: 3000 },
          transactionVolumeUpperThreshold: { EUR: 8000 },
          timeWindow: DAY_WINDOW,
          checkSender,
          checkReceiver: 'receiving',
          ...(initialTransactions > 0 ? { initialTransactions } : {}),
        },
      });
      const sent: Detailed[] = [];
      let n = 0;
      for (const op of ops) {
        let current: Detailed;
        let result: { readonly hitRules: readonly HitRuleDetails[] };
        if (op.kind === 'tx') {
          n += 1;
          current = {
            id: `t${String(n).padStart(3, '0')}`,
            at: T0 + op.at,
            origin: USERS[op.origin] as string,
            destination: USERS[op.destination] as string,
            amount: op.amount,
            originCard: `fp${op.originCard}`,
            destinationCard: `fp${op.destinationCard}`,
            ip: `10.0.0.${op.ip}`,
          };
          const details = { transactionAmount: op.amount, transactionCurrency: 'EUR' };
          result = await engine.createTransaction(
            tx({
              transactionId: current.id,
              timestamp: current.at,
              originUserId: current.origin,
              destinationUserId: current.destination,
              originAmountDetails: details,
              destinationAmountDetails: details,
              originPaymentDetails: card(current.originCard),
              destinationPaymentDetails: card(current.destinationCard),
              originDeviceData: { ipAddress: current.ip },
            }),
          );
          sent.push(current);
        } else {
          if (sent.length === 0) continue;
          current = sent[op.which % sent.length] as Detailed;
          current.amount = op.amount;
          current.originCard = `fp${op.originCard}`;
          const details = { transactionAmount: op.amount, transactionCurrency: 'EUR' };
          result = await engine.createTransactionEvent({
            transactionId: current.id,
            timestamp: current.at + 1,
            transactionState: 'CREATED',
            updatedTransactionAttributes: { originAmountDetails: details, destinationAmountDetails: details, originPaymentDetails: card(current.originCard) },
          });
        }
        const end = current.at;
        const start = end - DAY;
        const inWindow = sent.filter((s) => s.at >= start && s.at <= end).sort(newestFirst);
        const window = { start, end, units: 1, granularity: 'day', rolling: true };
        /** The window facts of `inside` (newest first): its total and newest 20 ids. */
        const facts = (inside: readonly Sent[]) => ({ window, transactionCount: inside.length, transactionIds: inside.slice(0, MAX_IDS).map((s) => s.id) });
        for (const hit of result.hitRules) {
          const evidence = (hit.ruleHitMeta?.evidence ?? []) as RuleEvidence[];
          expect(new Set(evidence.map((e) => e.direction))).toEqual(new Set(hit.ruleHitMeta?.hitDirections));
          const origin = evidence.some((e) => e.direction === 'ORIGIN');
          const destination = evidence.some((e) => e.direction === 'DESTINATION');
          const side = (direction: 'ORIGIN' | 'DESTINATION') => evidence.filter((e) => e.direction === direction);
          if (hit.ruleInstanceId === counterparties.id) {
            for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
              if (direction === 'ORIGIN' ? !origin : !destination) continue;
              const user = direction === 'ORIGIN' ? current.origin : current.destination;
              const inside = inWindow.filter((s) => s.origin === user || s.destination === user);
              const others = new Set(inside.map((s) => (s.origin === user ? s.destination : s.origin)).filter((u) => u !== user));
              expect(side(direction)).toEqual([
                { direction, kind: 'distinct', field: 'counterparty', value: others.size, comparison: '>', limit, ...facts(inside) },
              ]);
            }
          } else if (hit.ruleInstanceId === identifier.id) {
            for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
              if (direction === 'ORIGIN' ? !origin : !destination) continue;
              const fingerprint = direction === 'ORIGIN' ? current.originCard : current.destinationCard;
              // As an origin or as a destination: a transaction carrying it on both sides counts twice, and is listed once.
              const count = inWindow.filter((s) => s.originCard === fingerprint).length + inWindow.filter((s) => s.destinationCard === fingerprint).length;
              const inside = inWindow.filter((s) => s.originCard === fingerprint || s.destinationCard === fingerprint);
              expect(side(direction)).toEqual([
                {
                  direction,
                  kind: 'identifierCount',
                  value: count,
                  comparison: '>=',
                  limit: threshold,
                  window,
                  transactionCount: count,
                  transactionIds: inside.slice(0, MAX_IDS).map((s) => s.id),
                },
              ]);
            }
          } else if (hit.ruleInstanceId === ipUsers.id || hit.ruleInstanceId === cardUsers.id) {
            const inside =
              hit.ruleInstanceId === ipUsers.id ? inWindow.filter((s) => s.ip === current.ip) : inWindow.filter((s) => s.originCard === current.originCard);
            const users = new Set(inside.map((s) => s.origin)).size;
            expect(evidence).toEqual([{ direction: 'ORIGIN', kind: 'distinct', field: 'user', value: users, comparison: '>', limit, ...facts(inside) }]);
          } else if (hit.ruleInstanceId === senderCards.id) {
            const inside = inWindow.filter((s) => s.origin === current.origin);
            const cards = new Set(inside.map((s) => s.originCard)).size;
            expect(evidence).toEqual([{ direction: 'ORIGIN', kind: 'distinct', field: 'paymentId', value: cards, comparison: '>', limit, ...facts(inside) }]);
          } else if (hit.ruleInstanceId === volume.id) {
            for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
              if (direction === 'ORIGIN' ? !origin : !destination) continue;
              const user = direction === 'ORIGIN' ? current.origin : current.destination;
              const mode = direction === 'ORIGIN' ? (checkSender as 'sending' | 'all') : 'receiving';
              const inside = windowOf(sent, user, mode, start, end);
              const total = money(inside.reduce((sum, s) => sum + s.amount * 100, 0));
              const items: unknown[] = [
                { direction, kind: 'volume', value: total, comparison: '>=', limit: '3000', currency: 'EUR', ...facts(inside) },
                { direction, kind: 'volume', value: total, comparison: '<=', limit: '8000', currency: 'EUR', ...facts(inside) },
              ];
              if (initialTransactions > 0) {
                const history = windowOf(sent, user, mode, Number.NEGATIVE_INFINITY, end).length;
                items.push({ direction, kind: 'history', value: history, comparison: '>=', limit: initialTransactions });
              }
              expect(side(direction)).toEqual(items);
            }
          }
        }
        // No hit is missed: each rule hits exactly when the recount crosses its limit (checked on one rule per family).
        const r55 = inWindow.filter((s) => s.origin === current.origin);
        expect(result.hitRules.some((h) => h.ruleInstanceId === senderCards.id)).toBe(new Set(r55.map((s) => s.originCard)).size > limit);
      }
    },
  );
});
