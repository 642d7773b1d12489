import { describe, expect, it } from 'vitest';
import { createFixedRateProvider, type RateProvider } from '../../src/domain/money.js';
import { resolveMoneyContext } from '../../src/engine/options.js';
import { createEngine, isTxmonError } from '../../src/index.js';
import { T0, tx } from '../helpers.js';

function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    if (isTxmonError(e)) return e.toJSON();
    throw e;
  }
  throw new Error('expected INVALID_CONFIGURATION, but the call succeeded');
}

const noCurrencies: RateProvider = { rate: (from, to) => (from === to ? '1' : null) };

describe('createEngine money options (every configured currency and rate checked)', () => {
  const rows: { name: string; options: Record<string, unknown>; path: string; detail: string }[] = [
    { name: 'an unknown base currency', options: { baseCurrency: 'EURO' }, path: '/baseCurrency', detail: 'format' },
    { name: 'a lower-case base currency', options: { baseCurrency: 'eur' }, path: '/baseCurrency', detail: 'format' },
    { name: 'a base currency that is not a string', options: { baseCurrency: 978 }, path: '/baseCurrency', detail: 'format' },
    { name: 'a base currency outside the default table', options: { baseCurrency: 'BTC' }, path: '/baseCurrency', detail: 'not-found' },
    {
      name: 'a base currency outside a given table',
      options: { baseCurrency: 'JPY', rates: { USD: '1', EUR: '0.9' } },
      path: '/baseCurrency',
      detail: 'not-found',
    },
    {
      name: 'a base currency outside a fixed provider',
      options: { baseCurrency: 'JPY', rates: createFixedRateProvider({ USD: '1', EUR: '0.9' }) },
      path: '/baseCurrency',
      detail: 'not-found',
    },
    { name: 'a table with an unknown code', options: { rates: { USD: '1', XBT: '0.00001' } }, path: '/rates/XBT', detail: 'format' },
    { name: 'a table with a zero rate', options: { rates: { USD: '1', BTC: '0' } }, path: '/rates/BTC', detail: 'range' },
    { name: 'a table with a negative rate', options: { rates: { USD: '1', BTC: -1 } }, path: '/rates/BTC', detail: 'range' },
    { name: 'a table with a non-finite rate', options: { rates: { USD: '1', BTC: Number.NaN } }, path: '/rates/BTC', detail: 'range' },
    { name: 'a table with a rate that is no decimal', options: { rates: { USD: '1', BTC: '1/100000' } }, path: '/rates/BTC', detail: 'range' },
    { name: 'rates that are neither a provider nor a table', options: { rates: 'ecb' }, path: '/rates', detail: 'type' },
    { name: 'rates as an array', options: { rates: [['USD', '1']] }, path: '/rates', detail: 'type' },
    { name: 'a strict that is not a boolean', options: { strict: 'yes' }, path: '/strict', detail: 'type' },
    {
      name: "a risk factor's range currency without a rate",
      options: {
        riskFactors: [
          {
            id: 'amount',
            parameter: 'originAmount',
            weight: 1,
            mapping: [
              { riskLevel: 'LOW', min: 0, max: 1000, currency: 'EUR' },
              { riskLevel: 'HIGH', min: 1, currency: 'BTC' },
            ],
          },
        ],
      },
      path: '/riskFactors/0/mapping/1/currency',
      detail: 'not-found',
    },
  ];
  it.each(rows)('refuses $name with INVALID_CONFIGURATION at its path', ({ options, path, detail }) => {
    expect(refusal(() => createEngine(options))).toMatchObject({ code: 'INVALID_CONFIGURATION', status: 500, details: [{ path, code: detail }] });
  });

  it('accepts a table of rates and converts through it', async () => {
    const engine = createEngine({ baseCurrency: 'EUR', rates: { EUR: '1', BTC: '0.00001' }, clock: { now: () => T0 } });
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 50000 } } });
    const result = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'BTC' } }));
    expect(result.hitRules.map((r) => r.ruleId)).toEqual(['R-2']);
  });

  it('accepts a provider that does not list its currencies, whatever the base currency (a known code)', () => {
    expect(resolveMoneyContext({ baseCurrency: 'BTC', rates: noCurrencies }, 'createEngine')).toMatchObject({ baseCurrency: 'BTC' });
  });

  it('names the options under their place in another call', () => {
    expect(refusal(() => resolveMoneyContext({ baseCurrency: 'EURO' }, 'simulate', '/engine'))).toMatchObject({
      message: expect.stringMatching(/^simulate: /),
      details: [{ path: '/engine/baseCurrency' }],
    });
  });
});
