/**
 * The tests every two-period rule runs through the engine: its boundary
 * table, its description, its defaults and its refused parameters ({@link describeTwoPeriodRule}).
 * Each rule's file gives the rows and its own brute-force property. Not a test file.
 *
 * The engine's base currency is USD and amounts are in USD, so sums are exact. Period 1 is
 * usually [T0 − 1 day, T0] and period 2 [T0 − 3 days, T0] (with `excludePeriod1`,
 * [T0 − 3 days, T0 − 1 day)). Calendar rows: T0 is 12:00 UTC, so a calendar day has lasted 0.5
 * days and 3 calendar days 2.5 days.
 */
import { describe, expect, it } from 'vitest';
import type { AnyRuleDefinition } from '../../../src/rules/types.js';
import { DAY, T0, errorOf, testEngine, tx } from '../../helpers.js';

export const ONE_DAY = { units: 1, granularity: 'day', rollingBasis: true };
export const THREE_DAYS = { units: 3, granularity: 'day', rollingBasis: true };
export const CAL_1 = { units: 1, granularity: 'day' };
export const CAL_3 = { units: 3, granularity: 'day' };
/** Inside period 2, before period 1. */
export const P2 = T0 - 2 * DAY;
/** 00:00 UTC of T0's day. */
export const D0 = Date.UTC(2025, 0, 15);

/** A transaction before the current one: alice → bob unless the row names the parties. */
export interface Past {
  readonly at: number;
  /** In USD; absent: the default amount of `tx()`. */
  readonly amount?: number;
  readonly origin?: string;
  readonly destination?: string;
}

/** A row of a boundary table: parameters over the base, the past, the current transaction (alice → bob), the hit sides. */
export interface TwoPeriodRow {
  readonly name: string;
  readonly parameters?: Record<string, unknown>;
  readonly past: readonly Past[];
  /** Amount of the current transaction in USD; absent: the default amount of `tx()`. */
  readonly amount?: number;
  /** Time of the current transaction; default T0. */
  readonly now?: number;
  readonly directions: readonly string[];
}

/** `multiplierThreshold` as a `{ currency, value }` percentage in USD. */
export const pct = (value: number) => ({ multiplierThreshold: { currency: 'USD', value } });

/** An amount in USD on the origin side only (no destination amount to fall back on). */
export const usd = (amount: number) => ({
  originAmountDetails: { transactionAmount: amount, transactionCurrency: 'USD' },
  destinationAmountDetails: undefined,
});

const amountOf = (amount: number | undefined) => (amount === undefined ? {} : usd(amount));

/** What sets one two-period rule's tests apart (see {@link describeTwoPeriodRule}). */
export interface TwoPeriodRuleCase {
  readonly rule: AnyRuleDefinition;
  /** Parameters of every row, under the row's own. */
  readonly base: Record<string, unknown>;
  readonly rows: readonly TwoPeriodRow[];
  /** A hit and the description it renders. */
  readonly description: { readonly name: string; readonly past: readonly Past[]; readonly amount?: number; readonly text: string };
  /** What the rule's defaults must contain. */
  readonly defaults: { readonly name: string; readonly expected: Record<string, unknown> };
  /** Parameters the rule refuses, each with the path of a detail. */
  readonly invalid: readonly { readonly name: string; readonly parameters: Record<string, unknown>; readonly path: string }[];
}

/** The table-driven tests of one two-period rule (see the module comment). */
export function describeTwoPeriodRule(c: TwoPeriodRuleCase): void {
  const { rule } = c;
  const engineFor = () => testEngine().engine;
  describe(`${rule.id} ${rule.name}`, () => {
    for (const row of c.rows) {
      it(row.name, async () => {
        const engine = engineFor();
        await engine.createRuleInstance({ ruleId: rule.id, parameters: { ...c.base, ...row.parameters } });
        for (const p of row.past) {
          await engine.createTransaction(
            tx({ timestamp: p.at, originUserId: p.origin ?? 'alice', destinationUserId: p.destination ?? 'bob', ...amountOf(p.amount) }),
          );
        }
        const r = await engine.createTransaction(tx({ timestamp: row.now ?? T0, ...amountOf(row.amount) }));
        expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.directions);
      });
    }

    it(c.description.name, async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: rule.id, parameters: c.base });
      for (const p of c.description.past) await engine.createTransaction(tx({ timestamp: p.at, ...amountOf(p.amount) }));
      const r = await engine.createTransaction(tx({ timestamp: T0, ...amountOf(c.description.amount) }));
      expect(r.hitRules[0]?.ruleDescription).toBe(c.description.text);
    });

    it(c.defaults.name, () => {
      expect(rule.defaultParameters).toMatchObject(c.defaults.expected);
    });

    for (const row of c.invalid) {
      it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
        const engine = engineFor();
        const e = await errorOf(() => engine.createRuleInstance({ ruleId: rule.id, parameters: { ...c.base, ...row.parameters } }));
        expect(e.code).toBe('INVALID_PARAMETERS');
        expect(e.details.map((d) => d.path)).toContain(row.path);
      });
    }
  });
}
