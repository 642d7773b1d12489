import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';

/**
 * R-30 boundary table, through the engine. Every row sends `past` transactions first (in the
 * given order), then the current one, and checks the current one's hit directions. The window is
 * the closed interval [start, end] with end = the current transaction's timestamp
 * (src/aggregation/time-window.ts): an entry exactly at start is in, 1 ms before it is out.
 */

const ROLLING_HOUR = { units: 1, granularity: 'hour', rollingBasis: true };
const CALENDAR_DAY = { units: 1, granularity: 'day' };
const TWO_CALENDAR_DAYS = { units: 2, granularity: 'day', rollingBasis: false };
/** Midnight UTC of T0's day (T0 is 12:00 UTC). */
const D0 = Date.UTC(2025, 0, 15);

interface Past {
  at: number;
  origin?: string | undefined;
  destination?: string | undefined;
}

interface Row {
  name: string;
  limit: number;
  timeWindow?: Record<string, unknown>;
  checkSender?: string;
  checkReceiver?: string;
  past: Past[];
  /** Absolute timestamp of the current transaction (alice → bob); default T0. */
  now?: number;
  directions: string[];
}

const rows: Row[] = [
  { name: 'the first transaction never hits, even with limit 0', limit: 0, past: [], directions: [] },
  { name: 'the second transaction hits with limit 0 (2 > 0)', limit: 0, past: [{ at: T0 - 1 }], directions: ['ORIGIN'] },
  { name: 'a count equal to the limit does not hit (strict >)', limit: 2, past: [{ at: T0 - 2 }], directions: [] },
  { name: 'a count of limit + 1 hits', limit: 2, past: [{ at: T0 - 2 }, { at: T0 - 1 }], directions: ['ORIGIN'] },
  { name: 'rolling hour: an entry exactly at the window start is IN', limit: 1, timeWindow: ROLLING_HOUR, past: [{ at: T0 - HOUR }], directions: ['ORIGIN'] },
  { name: 'rolling hour: an entry 1 ms before the window start is OUT', limit: 1, timeWindow: ROLLING_HOUR, past: [{ at: T0 - HOUR - 1 }], directions: [] },
  {
    name: 'an entry with the same timestamp as the current one (window end) is IN',
    limit: 1,
    timeWindow: ROLLING_HOUR,
    past: [{ at: T0 }],
    directions: ['ORIGIN'],
  },
  {
    name: 'a transaction after the current one (arrived earlier) is OUT: the window ends at the current timestamp',
    limit: 1,
    timeWindow: ROLLING_HOUR,
    past: [{ at: T0 + 1 }],
    directions: [],
  },
  {
    name: 'fractional timestamps: an entry exactly at a fractional window start is IN',
    limit: 1,
    timeWindow: ROLLING_HOUR,
    past: [{ at: T0 + 0.25 - HOUR }],
    now: T0 + 0.25,
    directions: ['ORIGIN'],
  },
  {
    name: 'fractional timestamps: an entry 0.5 ms before the window start is OUT',
    limit: 1,
    timeWindow: ROLLING_HOUR,
    past: [{ at: T0 - HOUR - 0.5 }],
    directions: [],
  },
  { name: 'calendar day: an entry at 00:00:00.000 UTC of the same day is IN', limit: 1, timeWindow: CALENDAR_DAY, past: [{ at: D0 }], directions: ['ORIGIN'] },
  { name: 'calendar day: an entry at 23:59:59.999 UTC of the previous day is OUT', limit: 1, timeWindow: CALENDAR_DAY, past: [{ at: D0 - 1 }], directions: [] },
  {
    name: 'calendar day: a current transaction exactly at 00:00 UTC does not see 1 ms earlier',
    limit: 1,
    timeWindow: CALENDAR_DAY,
    past: [{ at: D0 - 1 }],
    now: D0,
    directions: [],
  },
  {
    name: 'calendar day: a current transaction at 23:59:59.999 UTC still sees 00:00 of the same day',
    limit: 1,
    timeWindow: CALENDAR_DAY,
    past: [{ at: D0 }],
    now: D0 + DAY - 1,
    directions: ['ORIGIN'],
  },
  { name: '2 calendar days: 00:00 UTC of the previous day is IN', limit: 1, timeWindow: TWO_CALENDAR_DAYS, past: [{ at: D0 - DAY }], directions: ['ORIGIN'] },
  { name: '2 calendar days: 1 ms before the previous day is OUT', limit: 1, timeWindow: TWO_CALENDAR_DAYS, past: [{ at: D0 - DAY - 1 }], directions: [] },
  {
    name: "checkSender 'sending': a transaction the sender received does not count",
    limit: 1,
    checkSender: 'sending',
    checkReceiver: 'none',
    past: [{ at: T0 - 1, origin: 'carol', destination: 'alice' }],
    directions: [],
  },
  {
    name: "checkSender 'all': a transaction the sender received counts",
    limit: 1,
    checkSender: 'all',
    checkReceiver: 'none',
    past: [{ at: T0 - 1, origin: 'carol', destination: 'alice' }],
    directions: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'receiving': the receiver's received transactions count",
    limit: 1,
    checkSender: 'none',
    checkReceiver: 'receiving',
    past: [{ at: T0 - 1, origin: 'carol', destination: 'bob' }],
    directions: ['DESTINATION'],
  },
  {
    name: "checkReceiver 'none': the receiver side never hits",
    limit: 0,
    checkSender: 'none',
    checkReceiver: 'none',
    past: [
      { at: T0 - 2, origin: 'carol', destination: 'bob' },
      { at: T0 - 1, origin: 'dave', destination: 'bob' },
    ],
    directions: [],
  },
  {
    name: "checkReceiver 'receiving': a transaction the receiver sent does not count",
    limit: 1,
    checkSender: 'none',
    checkReceiver: 'receiving',
    past: [{ at: T0 - 1, origin: 'bob', destination: 'carol' }],
    directions: [],
  },
  {
    name: "checkReceiver 'all': a transaction the receiver sent counts",
    limit: 1,
    checkSender: 'none',
    checkReceiver: 'all',
    past: [{ at: T0 - 1, origin: 'bob', destination: 'carol' }],
    directions: ['DESTINATION'],
  },
  {
    name: 'both sides over the limit hit both sides',
    limit: 1,
    checkSender: 'sending',
    checkReceiver: 'receiving',
    past: [{ at: T0 - 1 }],
    directions: ['ORIGIN', 'DESTINATION'],
  },
  {
    name: "other users' transactions do not count",
    limit: 0,
    past: [{ at: T0 - 1, origin: 'carol', destination: 'dave' }],
    directions: [],
  },
];

describe('R-30 high velocity user', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-30',
        parameters: {
          transactionsLimit: row.limit,
          timeWindow: row.timeWindow ?? ROLLING_HOUR,
          checkSender: row.checkSender ?? 'sending',
          checkReceiver: row.checkReceiver ?? 'none',
        },
      });
      for (const p of row.past) {
        await engine.createTransaction(tx({ timestamp: p.at, originUserId: p.origin ?? 'alice', destinationUserId: p.destination ?? 'bob' }));
      }
      const r = await engine.createTransaction(tx({ timestamp: row.now ?? T0 }));
      const hit = row.directions.length > 0;
      expect(r.executedRules[0]).toMatchObject({ ruleId: 'R-30', ruleHit: hit });
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.directions);
      expect(r.status).toBe(hit ? 'FLAG' : 'ALLOW');
    });
  }

  it('counts an updated past transaction once, however many events it had', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 2, timeWindow: ROLLING_HOUR, checkSender: 'sending', checkReceiver: 'none' },
    });
    const past = tx({ timestamp: T0 - 10 });
    await engine.createTransaction(past);
    for (const [i, state] of (['PROCESSING', 'SENT', 'SUCCESSFUL'] as const).entries()) {
      await engine.createTransactionEvent({ transactionId: past.transactionId, timestamp: T0 - 9 + i, transactionState: state });
    }
    // past + current = 2, not > 2.
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(r.hitRules).toEqual([]);
  });

  it('an event of a past transaction counts the transaction itself once (count includes it, never twice)', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 1, timeWindow: ROLLING_HOUR, checkSender: 'sending', checkReceiver: 'none' },
    });
    const only = tx({ timestamp: T0 });
    await engine.createTransaction(only);
    // Re-running the only transaction of alice: count = 1 (itself), no earlier one → no hit.
    const r = await engine.createTransactionEvent({ transactionId: only.transactionId, timestamp: T0 + 1, transactionState: 'SENT' });
    expect(r.hitRules).toEqual([]);
  });

  it("a self-transfer as the user's only transaction never hits, even with checkSender 'all' (no earlier transaction exists)", async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 1, timeWindow: ROLLING_HOUR, checkSender: 'all', checkReceiver: 'all' },
    });
    const r = await engine.createTransaction(tx({ timestamp: T0, originUserId: 'solo', destinationUserId: 'solo' }));
    expect(r.hitRules).toEqual([]);
  });

  it('renders count, window and limit into the description', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 1, timeWindow: ROLLING_HOUR, checkSender: 'sending', checkReceiver: 'none' },
    });
    await engine.createTransaction(tx({ timestamp: T0 - 1 }));
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(r.hitRules[0]?.ruleDescription).toBe('Sender made 2 transactions in 1 hour, more than the limit of 1.');
  });
});
