import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { measureBoundedLevenshtein, r24BlacklistedReference } from '../../src/rules/library/r-24-blacklisted-reference.js';
import { errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;

/** Runs one transaction with `reference` through an R-24 instance; returns the hit rule (or undefined) and the status. */
async function run(parameters: Record<string, unknown> | undefined, reference: string | undefined) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-24', ...(parameters ? { parameters } : {}) });
  const r = await engine.createTransaction(tx(reference === undefined ? {} : { reference }));
  return { hit: r.hitRules[0], status: r.status, executed: r.executedRules[0] };
}

interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  reference: string | undefined;
  /** The keyword named in the description, or null for no hit. */
  keyword: string | null;
}

const rows: Row[] = [
  { name: 'a default keyword as a word hits', reference: 'payment for bomb parts', keyword: 'bomb' },
  { name: 'matching is case-insensitive (reference upper case)', reference: 'Payment for BOMB parts', keyword: 'bomb' },
  { name: 'matching is case-insensitive (keyword upper case)', parameters: { keywords: ['Cocaine'] }, reference: 'cocaine delivery', keyword: 'Cocaine' },
  { name: 'a keyword inside a longer word does not hit (gun in begun)', reference: 'we have begun', keyword: null },
  { name: 'a keyword followed by punctuation hits', reference: 'isis, again', keyword: 'isis' },
  { name: 'an underscore separates words (not a letter or digit)', reference: 'ref_gun_42', keyword: 'gun' },
  { name: 'a keyword glued to digits is one word and does not hit', reference: 'gun42', keyword: null },
  { name: 'a clean reference does not hit', reference: 'rent for march', keyword: null },
  { name: 'no reference does not hit', reference: undefined, keyword: null },
  { name: 'an empty reference does not hit', reference: '', keyword: null },
  { name: 'non-Latin words are words (Cyrillic keyword)', parameters: { keywords: ['оружие'] }, reference: 'Оплата: ОРУЖИЕ.', keyword: 'оружие' },
  { name: 'full-width letters are folded (NFKC)', reference: 'ｂｏｍｂ', keyword: 'bomb' },
  { name: 'a phrase keyword matches the same words in a row, any separator', parameters: { keywords: ['dirty bomb'] }, reference: 'a Dirty-Bomb kit', keyword: 'dirty bomb' },
  { name: 'a phrase keyword does not match its words apart', parameters: { keywords: ['dirty bomb'] }, reference: 'dirty laundry, bomb', keyword: null },
  { name: 'the first keyword in list order is named when several match', parameters: { keywords: ['drugs', 'guns'] }, reference: 'guns and drugs', keyword: 'drugs' },
  // Fuzzy: 'weapons' has 7 letters; 30 % → bound ⌊2.1⌋ = 2.
  { name: 'fuzzy: distance 2 within a bound of 2 hits', parameters: { keywords: ['weapons'], allowedDistancePercentage: 30 }, reference: 'wepons4u wepaons', keyword: 'weapons' },
  { name: 'fuzzy: distance 3 over a bound of 2 does not hit', parameters: { keywords: ['weapons'], allowedDistancePercentage: 30 }, reference: 'wxpxnx', keyword: null },
  // 'bomb' (4 letters): 25 % → bound exactly 1; 24 % → bound 0.
  { name: 'fuzzy: exactly at the percentage (1/4 = 25 %) hits', parameters: { keywords: ['bomb'], allowedDistancePercentage: 25 }, reference: 'bomp', keyword: 'bomb' },
  { name: 'fuzzy: one percent below (24 %) does not hit', parameters: { keywords: ['bomb'], allowedDistancePercentage: 24 }, reference: 'bomp', keyword: null },
  { name: 'fuzzy 0 % is exact matching', parameters: { keywords: ['bomb'], allowedDistancePercentage: 0 }, reference: 'bombs', keyword: null },
  { name: 'fuzzy applies to phrases as a whole', parameters: { keywords: ['dirty bomb'], allowedDistancePercentage: 10 }, reference: 'dirty bomp', keyword: 'dirty bomb' },
];

describe('R-24 blacklisted Tx reference field', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { hit, status, executed } = await run(row.parameters, row.reference);
      expect(executed).toMatchObject({ ruleId: 'R-24', ruleHit: row.keyword !== null, ruleAction: 'FLAG' });
      expect(status).toBe(row.keyword !== null ? 'FLAG' : 'ALLOW');
      if (row.keyword !== null) {
        expect(hit?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN', 'DESTINATION']);
        expect(hit?.ruleDescription).toBe(`Transaction reference contains the blacklisted keyword ${row.keyword}.`);
      } else {
        expect(hit).toBeUndefined();
      }
    });
  }

  it('names the keyword, never the rest of the reference, in the description', async () => {
    const { hit } = await run(undefined, 'IBAN DE89370400440532013000 for drugs, Jane Doe');
    expect(hit?.ruleDescription).toContain('drugs');
    expect(hit?.ruleDescription).not.toContain('DE89');
    expect(hit?.ruleDescription).not.toContain('Jane');
  });

  it('ships the documented default keywords', () => {
    expect(r24BlacklistedReference.defaultParameters.keywords).toEqual(['taliban', 'isis', 'bomb', 'drugs', 'weapons', 'terror', 'gun', 'explosives']);
  });

  it('handles a maximal reference against many fuzzy keywords', async () => {
    const keywords = Array.from({ length: 1000 }, (_, i) => `keyword${i}`);
    const reference = Array.from({ length: 400 }, (_, i) => `word${i}x`).join(' ').slice(0, 4096);
    const { hit } = await run({ keywords, allowedDistancePercentage: 10 }, reference);
    expect(hit).toBeUndefined();
  });

  const invalid = [
    { name: 'an empty keyword list', parameters: { keywords: [] }, path: '/parameters/keywords' },
    { name: 'an empty keyword', parameters: { keywords: [''] }, path: '/parameters/keywords/0' },
    { name: 'a keyword without letters or digits', parameters: { keywords: ['--'] }, path: '/parameters/keywords/0' },
    { name: 'a keyword over 32 characters', parameters: { keywords: ['a'.repeat(33)] }, path: '/parameters/keywords/0' },
    { name: 'more than 1000 keywords', parameters: { keywords: Array.from({ length: 1001 }, (_, i) => `k${i}`) }, path: '/parameters/keywords' },
    { name: 'a percentage above 100', parameters: { allowedDistancePercentage: 101 }, path: '/parameters/allowedDistancePercentage' },
    { name: 'a negative percentage', parameters: { allowedDistancePercentage: -1 }, path: '/parameters/allowedDistancePercentage' },
    { name: 'a fractional percentage', parameters: { allowedDistancePercentage: 12.5 }, path: '/parameters/allowedDistancePercentage' },
    { name: 'an unknown parameter', parameters: { keyword: ['x'] }, path: '/parameters/keyword' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-24', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('measureBoundedLevenshtein', () => {
  const cases = [
    { name: 'identical strings are at distance 0', a: 'bomb', b: 'bomb', bound: 2, expected: 0 },
    { name: 'one substitution', a: 'bomb', b: 'bomp', bound: 2, expected: 1 },
    { name: 'kitten → sitting is 3', a: 'kitten', b: 'sitting', bound: 5, expected: 3 },
    { name: 'over the bound returns bound + 1', a: 'kitten', b: 'sitting', bound: 2, expected: 3 },
    { name: 'length difference over the bound exits early', a: 'a', b: 'abcdef', bound: 2, expected: 3 },
    { name: 'empty vs word is its length', a: '', b: 'abc', bound: 5, expected: 3 },
    { name: 'code points, not UTF-16 units', a: '😀a', b: '😁a', bound: 3, expected: 1 },
    { name: 'a 32-code-point pattern (bit-parallel, top bit)', a: 'a'.repeat(31) + 'b', b: 'a'.repeat(32), bound: 5, expected: 1 },
    { name: 'a 33-code-point pattern (row recurrence)', a: 'a'.repeat(32) + 'b', b: 'a'.repeat(33), bound: 5, expected: 1 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(measureBoundedLevenshtein(Array.from(c.a), Array.from(c.b), c.bound)).toBe(c.expected);
    });
  }
});

describe('properties', () => {
  /** Plain unbounded Levenshtein, the textbook recurrence, as the oracle. */
  function levenshtein(a: string[], b: string[]): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i += 1) {
      for (let j = 1; j <= b.length; j += 1) {
        const row = d[i] as number[];
        const up = d[i - 1] as number[];
        row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
    }
    return (d[a.length] as number[])[b.length] as number;
  }

  // Up to 40 code points: patterns of ≤ 32 take the bit-parallel path, longer ones the row recurrence.
  const word = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é'), maxLength: 8 }), fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 40 }));

  test.prop([word, word, fc.nat({ max: 40 })], { numRuns: 300 })('the bounded distance equals min(distance, bound + 1)', (a, b, bound) => {
    const exact = levenshtein(Array.from(a), Array.from(b));
    expect(measureBoundedLevenshtein(Array.from(a), Array.from(b), bound)).toBe(Math.min(exact, bound + 1));
  });

  test.prop([fc.constantFrom('bomb', 'isis', 'Taliban', 'dirty bomb'), fc.array(fc.boolean(), { maxLength: 12 })], { numRuns: 30 })(
    'matching ignores the case of the reference',
    async (keyword, flips) => {
      const chars = Array.from(`pay ${keyword} now`);
      const mixed = chars.map((c, i) => (flips[i % Math.max(1, flips.length)] ? c.toUpperCase() : c.toLowerCase())).join('');
      const { hit } = await run({ keywords: [keyword] }, mixed);
      expect(hit?.ruleDescription).toContain(keyword);
    },
  );

  test.prop([fc.array(fc.constantFrom('rent', 'bomb', 'gun', 'food', 'isis'), { maxLength: 6 }), fc.constantFrom('rent', 'food', 'gun')], { numRuns: 30 })(
    'adding a keyword can only add hits',
    async (words, extra) => {
      const reference = words.join(' ');
      const before = await run({ keywords: ['bomb'] }, reference);
      const after = await run({ keywords: ['bomb', extra] }, reference);
      if (before.hit !== undefined) expect(after.hit).toBeDefined();
    },
  );
});
