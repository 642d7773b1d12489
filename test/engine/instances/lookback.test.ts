/**
 * How far back instances read each series, and the retention horizons and refills that follow
 * (src/engine/instances/lookback.ts).
 */
import { describe, expect, it } from 'vitest';
import { LIBRARY_RULES, compileHistoricalFilters, type PreparedInstance, type RuleInstance } from '../../../src/internals.js';
import { retentionHorizons, seriesReach, seriesToRefill } from '../../../src/engine/instances/lookback.js';
import { DAY, HOUR } from '../../helpers.js';

const ruleOf = (id: string) => LIBRARY_RULES.find((r) => r.id === id) as PreparedInstance['rule'];

function prepared(
  ruleId: string,
  parameters: Record<string, unknown>,
  extra: Partial<RuleInstance> = {},
  seriesMap: ReadonlyMap<string, string> | null = null,
): PreparedInstance {
  const rule = ruleOf(ruleId) as NonNullable<PreparedInstance['rule']>;
  const instance = { id: `ri-${ruleId}`, ruleId, parameters: { ...(rule.defaultParameters as object), ...parameters }, ...extra } as RuleInstance;
  return { instance, rule, logic: null, filter: null, seriesMap };
}

const rolling = (units: number, granularity: string) => ({ units, granularity, rollingBasis: true });

describe('seriesReach', () => {
  it('a rolling window reaches its length plus a day, on each series the rule reads for its parameters', () => {
    const reach = seriesReach([prepared('R-30', { timeWindow: rolling(3, 'day'), checkSender: 'sending', checkReceiver: 'none' })]);
    expect(reach).toEqual(new Map([['user-sending', 4 * DAY]]));
  });

  it('a calendar month reaches the longest month plus a day', () => {
    const reach = seriesReach([
      prepared('R-30', { timeWindow: { units: 1, granularity: 'month', rollingBasis: false }, checkSender: 'sending', checkReceiver: 'none' }),
    ]);
    const reached = reach.get('user-sending') as number;
    expect(reached).toBeGreaterThanOrEqual(31 * DAY);
    expect(reached).toBeLessThanOrEqual(32 * DAY);
  });

  it('a rule reading from the beginning (R-1, first transaction) reaches back forever', () => {
    expect(seriesReach([prepared('R-1', {})]).get('user-sending')).toBe(Number.POSITIVE_INFINITY);
  });

  it('the longest of every instance and of every risk level parameters counts', () => {
    const reach = seriesReach([
      prepared('R-30', { timeWindow: rolling(1, 'day'), checkSender: 'sending', checkReceiver: 'none' }, {
        riskLevelParameters: { HIGH: { transactionsLimit: 1, timeWindow: rolling(10, 'day'), checkSender: 'sending', checkReceiver: 'none' } },
      } as unknown as Partial<RuleInstance>),
      prepared('R-69', { timeWindow: rolling(2, 'hour'), checkSender: 'sending', checkReceiver: 'none' }),
    ]);
    expect(reach.get('user-sending')).toBe(11 * DAY);
  });

  it('an instance with historical filters reaches on its derived series, not the base one', () => {
    const derived = `user-sending~${compileHistoricalFilters({ transactionTypesHistorical: ['TRANSFER'] })?.id as string}`;
    const reach = seriesReach([
      prepared('R-30', { timeWindow: rolling(1, 'day'), checkSender: 'sending', checkReceiver: 'none' }, {}, new Map([['user-sending', derived]])),
    ]);
    expect(reach).toEqual(new Map([[derived, 2 * DAY]]));
  });

  it('a rule without aggregates reaches nothing', () => {
    expect(seriesReach([prepared('R-2', {})])).toEqual(new Map());
  });
});

describe('retentionHorizons', () => {
  const now = Date.UTC(2025, 5, 1);
  const held = { bases: new Set(['user-sending', 'user-receiving', 'user-all'] as const), derived: [] };
  it('a read series keeps its reach plus the late-arrival margin; an unread one the margin; one read forever and a maintained one are not pruned', () => {
    const horizons = retentionHorizons({
      reach: new Map([
        ['user-sending', 2 * DAY],
        ['user-all', Number.POSITIVE_INFINITY],
      ]),
      held,
      maintained: [],
      now,
      lateArrivalMs: HOUR,
    });
    expect(horizons).toEqual(
      new Map([
        ['user-sending', now - HOUR - 2 * DAY],
        ['user-receiving', now - HOUR],
      ]),
    );
    expect(retentionHorizons({ reach: new Map(), held, maintained: ['user-receiving'], now, lateArrivalMs: 0 }).has('user-receiving')).toBe(false);
  });
});

describe('seriesToRefill', () => {
  const now = Date.UTC(2025, 5, 1);
  it('names a pruned series an instance now reads further back than what is left, and only those', () => {
    const retained = new Map([
      ['user-sending', now - 10 * DAY],
      ['user-receiving', now - 10 * DAY],
      ['ip', now - DAY],
    ]);
    const reach = new Map([
      ['user-sending', 30 * DAY],
      ['user-receiving', 5 * DAY],
    ]);
    expect(seriesToRefill(reach, retained, now, 0)).toEqual(['user-sending']);
    // The late-arrival margin counts as reach.
    expect(seriesToRefill(reach, retained, now, 6 * DAY).sort()).toEqual(['user-receiving', 'user-sending']);
  });
});
