import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;

/** Runs one transaction with the given origin amount through an R-117 instance. */
async function run(parameters: Record<string, unknown> | undefined, amount: number, currency = 'EUR', destinationAmount = amount) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-117', ...(parameters ? { parameters } : {}) });
  const r = await engine.createTransaction(
    tx({
      originAmountDetails: { transactionAmount: amount, transactionCurrency: currency },
      destinationAmountDetails: { transactionAmount: destinationAmount, transactionCurrency: currency },
    }),
  );
  return { hit: r.hitRules[0], status: r.status, executed: r.executedRules[0] };
}

interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  amount: number;
  currency?: string;
  /** The pattern named in the description, or null for no hit. */
  pattern: string | null;
}

const DECIMAL = (patterns: string[]) => ({ patterns, checkDecimal: true });
const INTEGER = (patterns: string[]) => ({ patterns, checkDecimal: false });

const rows: Row[] = [
  // checkDecimal: true — the full text with the currency's minor-unit decimals.
  { name: 'decimal: 1999.99 ends with 999.99', parameters: DECIMAL(['999.99']), amount: 1999.99, pattern: '999.99' },
  { name: 'decimal: exactly the pattern hits (999.99)', parameters: DECIMAL(['999.99']), amount: 999.99, pattern: '999.99' },
  { name: 'decimal: one minor unit below (999.98) does not hit', parameters: DECIMAL(['999.99']), amount: 999.98, pattern: null },
  { name: 'decimal: one minor unit above (1000.00) does not hit', parameters: DECIMAL(['999.99']), amount: 1000, pattern: null },
  { name: "decimal: 1999.9 EUR renders '1999.90' (minor unit) so '9.90' hits", parameters: DECIMAL(['9.90']), amount: 1999.9, pattern: '9.90' },
  { name: "decimal: 1999.9 EUR is not '…999.9' followed by nothing ('99.9' does not hit)", parameters: DECIMAL(['99.9']), amount: 1999.9, pattern: null },
  { name: "decimal: an integer EUR amount renders '.00' ('999' does not hit 1999)", parameters: DECIMAL(['999']), amount: 1999, pattern: null },
  { name: "decimal: '00' hits a whole EUR amount", parameters: DECIMAL(['00']), amount: 1999, pattern: '00' },
  { name: "decimal: JPY has no decimals, so '999' hits 1999 JPY", parameters: DECIMAL(['999']), amount: 1999, currency: 'JPY', pattern: '999' },
  { name: "decimal: KWD has 3 decimals, 1999.99 KWD renders '1999.990'", parameters: DECIMAL(['999.99']), amount: 1999.99, currency: 'KWD', pattern: null },
  { name: 'decimal: sub-minor-unit digits are kept exactly (0.125 EUR ends with 125)', parameters: DECIMAL(['125']), amount: 0.125, pattern: '125' },
  { name: 'decimal: no floating noise (0.1 + 0.2 style amounts render as sent)', parameters: DECIMAL(['0.30']), amount: 0.3, pattern: '0.30' },
  // checkDecimal false / omitted — integer parts only.
  { name: "integer: '999' hits 1999.50 (decimals ignored)", parameters: INTEGER(['999']), amount: 1999.5, pattern: '999' },
  { name: "integer: '999.99' acts as '999' and hits 1999.00", parameters: INTEGER(['999.99']), amount: 1999, pattern: '999.99' },
  { name: "integer: '999' does not hit 998.99", parameters: INTEGER(['999']), amount: 998.99, pattern: null },
  { name: "integer: '999' does not hit 1000", parameters: INTEGER(['999']), amount: 1000, pattern: null },
  { name: 'integer: checkDecimal omitted behaves as false', parameters: { patterns: ['999'] }, amount: 5999.01, pattern: '999' },
  { name: "defaults ('999.99', integer part only) hit 2999.10", amount: 2999.1, pattern: '999.99' },
  { name: 'defaults do not hit 2998.99', amount: 2998.99, pattern: null },
  { name: 'the first matching pattern in list order is named', parameters: INTEGER(['99', '999']), amount: 1999, pattern: '99' },
  { name: 'a zero amount hits pattern 0', parameters: INTEGER(['0']), amount: 0, pattern: '0' },
];

describe('R-117 transaction amount matches a pattern', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { hit, status, executed } = await run(row.parameters, row.amount, row.currency);
      expect(executed).toMatchObject({ ruleId: 'R-117', ruleHit: row.pattern !== null, ruleAction: 'FLAG' });
      expect(status).toBe(row.pattern !== null ? 'FLAG' : 'ALLOW');
      if (row.pattern !== null) {
        expect(hit?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN']);
        expect(hit?.ruleDescription).toContain(`matches the pattern ${row.pattern}.`);
      }
    });
  }

  it('renders the amount with its currency into the description', async () => {
    const { hit } = await run(DECIMAL(['999.99']), 1999.99);
    expect(hit?.ruleDescription).toBe('Transaction amount 1999.99 EUR matches the pattern 999.99.');
  });

  it('only the origin amount counts (destination matches, origin does not)', async () => {
    const { hit } = await run(INTEGER(['999']), 100, 'EUR', 1999);
    expect(hit).toBeUndefined();
  });

  it('no originAmountDetails does not hit', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-117', parameters: INTEGER(['0']) });
    const r = await engine.createTransaction(tx({ originAmountDetails: undefined }));
    expect(r.hitRules).toEqual([]);
  });

  const invalid = [
    { name: 'an empty pattern list', parameters: { patterns: [] }, path: '/parameters/patterns' },
    { name: 'an empty pattern', parameters: { patterns: [''] }, path: '/parameters/patterns/0' },
    { name: 'a pattern with a leading point', parameters: { patterns: ['.99'] }, path: '/parameters/patterns/0' },
    { name: 'a pattern with a trailing point', parameters: { patterns: ['99.'] }, path: '/parameters/patterns/0' },
    { name: 'a pattern with a comma', parameters: { patterns: ['999,99'] }, path: '/parameters/patterns/0' },
    { name: 'a pattern with a sign', parameters: { patterns: ['-1'] }, path: '/parameters/patterns/0' },
    { name: 'a pattern with 9 decimals', parameters: { patterns: ['1.123456789'] }, path: '/parameters/patterns/0' },
    { name: 'more than 100 patterns', parameters: { patterns: Array.from({ length: 101 }, (_, i) => String(i)) }, path: '/parameters/patterns' },
    { name: 'a non-boolean checkDecimal', parameters: { checkDecimal: 'yes' }, path: '/parameters/checkDecimal' },
    { name: 'an unknown parameter', parameters: { pattern: ['1'] }, path: '/parameters/pattern' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-117', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  const cents = fc.integer({ min: 0, max: 99_999_999 });
  const suffix = fc.stringMatching(/^[0-9]{1,4}$/);

  test.prop([cents, suffix, fc.boolean()], { numRuns: 40 })(
    'a hit with checkDecimal true implies a hit with the integer part of the same pattern',
    async (minor, digits, withPoint) => {
      const amount = minor / 100;
      const pattern = withPoint ? `${digits}.${String(minor % 100).padStart(2, '0')}` : digits;
      const decimal = await run(DECIMAL([pattern]), amount);
      if (decimal.hit !== undefined && pattern.includes('.')) {
        const integer = await run(INTEGER([pattern]), amount);
        expect(integer.hit).toBeDefined();
      }
    },
  );

  test.prop([cents], { numRuns: 40 })('the amount always matches its own rendered cents in decimal mode', async (minor) => {
    const amount = minor / 100;
    const { hit } = await run(DECIMAL([`${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`]), amount);
    expect(hit).toBeDefined();
  });
});
