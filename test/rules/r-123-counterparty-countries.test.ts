import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { HOUR, T0, errorOf, testEngine } from '../helpers.js';

let n = 0;
/** alice sends to bob; the destination country is the counterparty country of alice. */
function send(at: number, destinationCountry: string | undefined, overrides: Record<string, unknown> = {}) {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `cc-${n}`,
    timestamp: at,
    originUserId: 'alice',
    destinationUserId: `shop-${n}`,
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'DE' },
    ...(destinationCountry === undefined
      ? {}
      : { destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: destinationCountry } }),
    ...overrides,
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const { engine } = testEngine();
  await engine.createRuleInstance({ ruleId: 'R-123', parameters: { checkReceiver: 'none', ...parameters } });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-123').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

describe('R-123 Too many counterparty countries', () => {
  const rows = [
    { name: 'two countries with limit 2 does not hit (strict >)', countries: ['FR', 'NL'], expected: [] },
    { name: 'a third distinct country hits', countries: ['FR', 'NL', 'AT'], expected: ['ORIGIN'] },
    { name: 'a repeated country does not count twice', countries: ['FR', 'NL', 'FR', 'NL'], expected: [] },
    { name: 'a transaction without a counterparty country adds none', countries: ['FR', 'NL', undefined], expected: [] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      let last: string[] = [];
      for (const [i, c] of row.countries.entries()) last = hitsOf(await engine.createTransaction(send(T0 + i, c)));
      expect(last).toEqual(row.expected);
    });
  }

  it('counts the window as a closed interval: a country exactly at the start counts, 1 ms earlier does not', async () => {
    for (const [offset, expected] of [
      [0, ['ORIGIN']],
      [-1, []],
    ] as const) {
      const engine = await engineWith();
      await engine.createTransaction(send(T0 - HOUR + offset, 'FR'));
      await engine.createTransaction(send(T0 - 10, 'NL'));
      expect(hitsOf(await engine.createTransaction(send(T0, 'AT')))).toEqual(expected);
    }
  });

  it("with checkSender 'all', received transactions count with their origin country", async () => {
    const engine = await engineWith({ transactionsLimit: 1 });
    await engine.createTransaction({
      ...send(T0, undefined),
      originUserId: 'x',
      destinationUserId: 'alice',
      originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'PL' },
    });
    expect(hitsOf(await engine.createTransaction(send(T0 + 1, 'FR')))).toEqual(['ORIGIN']);
  });

  it("with checkSender 'sending', received transactions do not count", async () => {
    const engine = await engineWith({ transactionsLimit: 1, checkSender: 'sending' });
    await engine.createTransaction({
      ...send(T0, undefined),
      originUserId: 'x',
      destinationUserId: 'alice',
      originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'PL' },
    });
    expect(hitsOf(await engine.createTransaction(send(T0 + 1, 'FR')))).toEqual([]);
  });

  it('an event on the current transaction does not count its country twice', async () => {
    const engine = await engineWith();
    await engine.createTransaction(send(T0, 'FR'));
    const t = send(T0 + 1, 'NL');
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
    expect(ev.hitRules).toEqual([]);
  });

  it('rejects a negative limit with INVALID_PARAMETERS at /parameters/transactionsLimit', async () => {
    const { engine } = testEngine();
    const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-123', parameters: { transactionsLimit: -1 } }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details[0]?.path).toBe('/parameters/transactionsLimit');
  });
});

describe('properties', () => {
  test.prop([fc.array(fc.constantFrom('FR', 'NL', 'AT', 'PL', 'ES', undefined), { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 5 })], {
    numRuns: 60,
  })('hits exactly when the distinct counterparty countries in the hour, this one included, exceed the limit', async (countries, limit) => {
    const engine = await engineWith({ transactionsLimit: limit });
    const seen = new Set<string>();
    for (const [i, c] of countries.entries()) {
      if (c !== undefined) seen.add(c);
      const r = await engine.createTransaction(send(T0 + i * 60_000, c));
      // All within one hour (30 transactions, a minute apart, at most 29 minutes).
      expect(hitsOf(r)).toEqual(seen.size > limit ? ['ORIGIN'] : []);
    }
  });
});
