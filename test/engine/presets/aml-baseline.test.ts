/**
 * `amlBaseline`: the shipped rule set is valid for the engine as it comes and under its options, and
 * its amount limits are the EUR figures converted at the default rates, two significant digits.
 */
import { describe, expect, it } from 'vitest';
import { amlBaseline, createEngine, DEFAULT_REPORTING_THRESHOLDS, FATF_CALL_FOR_ACTION } from '../../../src/index.js';

type Request = { ruleId: string; parameters: Record<string, unknown>; filters: Record<string, unknown> };
const requests = (options?: Parameters<typeof amlBaseline>[0]) => amlBaseline(options) as unknown as Request[];

describe('amlBaseline', () => {
  it('is accepted by the engine whole: every instance is created', async () => {
    const engine = createEngine({ baseCurrency: 'EUR' });
    for (const request of amlBaseline()) await engine.createRuleInstance(request);
    expect((await engine.listRuleInstances()).length).toBe(amlBaseline().length);
  });

  it('writes a pair of structuring instances per reporting threshold, with the band [90 %, 100 %) of it', () => {
    const structuring = requests().filter((r) => r.ruleId === 'R-7' || r.ruleId === 'R-8');
    expect(structuring.length).toBe(2 * Object.keys(DEFAULT_REPORTING_THRESHOLDS).length);
    const pln = requests({ reportingThresholds: { PLN: 40_000 } }).filter((r) => r.ruleId === 'R-7');
    expect(pln).toHaveLength(1);
    expect(pln[0]?.parameters.lowTransactionValues).toEqual({ PLN: { min: 36_000, max: 39_999.99 } });
    expect(pln[0]?.filters.transactionAmountRange).toEqual({ PLN: { min: 36_000, max: 39_999.99 } });
  });

  it('converts its EUR amount floors into each currency at the default rates, rounded to two significant digits', () => {
    const fanIn = requests({ currencies: ['EUR', 'USD', 'JPY', 'SEK'] }).find((r) => r.ruleId === 'R-9');
    // 300 EUR = 310.62 USD = 48,836 JPY = 3,438 SEK at the 2025-01-02 table.
    expect(fanIn?.filters.transactionAmountRange).toEqual({ EUR: { min: 300 }, USD: { min: 310 }, JPY: { min: 49_000 }, SEK: { min: 3_400 } });
  });

  it('takes its high-risk countries, action and dormancy period from the options', () => {
    const set = requests({ highRiskCountries: ['KP'], action: 'SUSPEND', dormancyDays: 120 });
    expect(set.find((r) => r.ruleId === 'R-77')?.parameters.highRiskCountries).toEqual(['KP']);
    expect(set.find((r) => r.ruleId === 'R-5')?.parameters.dormancyPeriodDays).toBe(120);
    expect(new Set(set.map((r) => (r as unknown as { action: string }).action))).toEqual(new Set(['SUSPEND']));
    expect(requests().find((r) => r.ruleId === 'R-77')?.parameters.highRiskCountries).toEqual([...FATF_CALL_FOR_ACTION]);
  });

  it('refuses a currency the default rate table lacks, naming it', () => {
    expect(() => amlBaseline({ currencies: ['EUR', 'XYZ'] })).toThrow(/XYZ/);
  });
});
