import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { StepCounter } from '../../src/rules/bounded-levenshtein.js';
import {
  findBlacklistedKeyword,
  MAX_FUZZY_KEYWORD_WORDS,
  MAX_NORMALIZED_KEYWORD_LENGTH,
  MAX_SCREENED_REFERENCE_LENGTH,
  r24BlacklistedReference,
} from '../../src/rules/library/r-24-blacklisted-reference.js';
import { collectSchemaErrors } from '../../src/validation/index.js';
import { cutToCodePoints, hostileText } from '../arbitraries/hostile-text.js';
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
  {
    name: 'a phrase keyword matches the same words in a row, any separator',
    parameters: { keywords: ['dirty bomb'] },
    reference: 'a Dirty-Bomb kit',
    keyword: 'dirty bomb',
  },
  { name: 'a phrase keyword does not match its words apart', parameters: { keywords: ['dirty bomb'] }, reference: 'dirty laundry, bomb', keyword: null },
  {
    name: 'the first keyword in list order is named when several match',
    parameters: { keywords: ['drugs', 'guns'] },
    reference: 'guns and drugs',
    keyword: 'drugs',
  },
  // Fuzzy: 'weapons' has 7 letters; 30 % → bound ⌊2.1⌋ = 2.
  {
    name: 'fuzzy: distance 2 within a bound of 2 hits',
    parameters: { keywords: ['weapons'], allowedDistancePercentage: 30 },
    reference: 'wepons4u wepaons',
    keyword: 'weapons',
  },
  {
    name: 'fuzzy: distance 3 over a bound of 2 does not hit',
    parameters: { keywords: ['weapons'], allowedDistancePercentage: 30 },
    reference: 'wxpxnx',
    keyword: null,
  },
  // 'bomb' (4 letters): 25 % → bound exactly 1; 24 % → bound 0.
  {
    name: 'fuzzy: exactly at the percentage (1/4 = 25 %) hits',
    parameters: { keywords: ['bomb'], allowedDistancePercentage: 25 },
    reference: 'bomp',
    keyword: 'bomb',
  },
  { name: 'fuzzy: one percent below (24 %) does not hit', parameters: { keywords: ['bomb'], allowedDistancePercentage: 24 }, reference: 'bomp', keyword: null },
  { name: 'fuzzy 0 % is exact matching', parameters: { keywords: ['bomb'], allowedDistancePercentage: 0 }, reference: 'bombs', keyword: null },
  {
    name: 'fuzzy applies to phrases as a whole',
    parameters: { keywords: ['dirty bomb'], allowedDistancePercentage: 10 },
    reference: 'dirty bomp',
    keyword: 'dirty bomb',
  },
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
    const reference = Array.from({ length: 400 }, (_, i) => `word${i}x`)
      .join(' ')
      .slice(0, 4096);
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
    // U+FDFA is one character as written and 18 once normalised: twice is 37 > 32.
    { name: 'a keyword over 32 characters after NFKC normalisation', parameters: { keywords: ['\uFDFA\uFDFA'] }, path: '/parameters/keywords/0' },
    {
      name: 'a later keyword over the normalised limit, by its index',
      parameters: { keywords: ['a', 'b', 'c', 'bomb \uFDFA\uFDFA'] },
      path: '/parameters/keywords/3',
    },
    { name: 'a keyword of 32 ligatures (ﬃ → ffi)', parameters: { keywords: ['\uFB03'.repeat(11)] }, path: '/parameters/keywords/0' },
    {
      name: 'fuzzy keywords of more than 1000 words in all (501 two-word phrases)',
      parameters: { keywords: Array.from({ length: 501 }, (_, i) => `word${i} more`), allowedDistancePercentage: 50 },
      path: '/parameters/keywords',
    },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-24', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }

  it('names the normalised-length limit in the detail code', async () => {
    const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-24', parameters: { keywords: ['bomb', '\uFDFA\uFDFA'] } }));
    expect(e.details).toEqual([expect.objectContaining({ path: '/parameters/keywords/1', code: 'max-normalized-length' })]);
  });

  it('names the fuzzy-word limit in the detail code', async () => {
    const keywords = Array.from({ length: 501 }, (_, i) => `word${i} more`);
    const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-24', parameters: { keywords, allowedDistancePercentage: 50 } }));
    expect(e.details).toEqual([expect.objectContaining({ path: '/parameters/keywords', code: 'max-fuzzy-words' })]);
  });

  it('refuses an over-long keyword in one risk level, naming that level', async () => {
    const riskLevelParameters = {
      VERY_LOW: { keywords: ['bomb'] },
      LOW: { keywords: ['bomb'] },
      MEDIUM: { keywords: ['bomb'] },
      HIGH: { keywords: ['bomb', '\uFDFA\uFDFA'] },
      VERY_HIGH: { keywords: ['bomb'] },
    };
    const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-24', riskLevelParameters }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details.map((d) => d.path)).toEqual(['/riskLevelParameters/HIGH/keywords/1']);
  });

  it('refuses an update that adds an over-long keyword, and keeps the instance', async () => {
    const engine = engineFor();
    const instance = await engine.createRuleInstance({ ruleId: 'R-24' });
    const e = await errorOf(() => engine.updateRuleInstance(instance.id, { parameters: { keywords: ['bomb', 'gun', '\uFDFA\uFDFA'] } }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details.map((d) => d.path)).toEqual(['/parameters/keywords/2']);
    expect((await engine.getRuleInstance(instance.id))?.parameters).toEqual(instance.parameters);
  });

  const accepted = [
    { name: 'a keyword that normalises to 32 characters (U+FDFA is 18)', parameters: { keywords: [`\uFDFA ${'x'.repeat(13)}`] } },
    {
      name: '1000 one-word keywords matched fuzzily (1000 words)',
      parameters: { keywords: Array.from({ length: 1000 }, (_, i) => `word${i}`), allowedDistancePercentage: 100 },
    },
    {
      name: '500 two-word phrases matched fuzzily (1000 words)',
      parameters: { keywords: Array.from({ length: 500 }, (_, i) => `word${i} more`), allowedDistancePercentage: 50 },
    },
    // "ab cd ef" is 8 characters: at 12 % the allowed distance is ⌊0.96⌋ = 0, so they are matched exactly.
    {
      name: '400 three-word phrases matched exactly (they do not count)',
      parameters: { keywords: Array.from({ length: 400 }, (_, i) => `a${String(i).padStart(3, '0')} b c`), allowedDistancePercentage: 12 },
    },
  ];
  for (const row of accepted) {
    it(`accepts ${row.name}`, async () => {
      const instance = await engineFor().createRuleInstance({ ruleId: 'R-24', parameters: row.parameters });
      expect(instance.parameters).toMatchObject(row.parameters);
    });
  }

  it('counts phrases matched fuzzily once their allowed distance reaches 1 (three-word phrases at 13 %)', async () => {
    const keywords = Array.from({ length: 400 }, (_, i) => `a${String(i).padStart(3, '0')} b c`);
    const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-24', parameters: { keywords, allowedDistancePercentage: 13 } }));
    expect(e.details.map((d) => d.path)).toEqual(['/parameters/keywords']);
  });

  // U+FDFA normalises to 18 code points: 454 of them are 8172, 455 are 8190.
  const screening = [
    { name: 'a keyword inside the screened normalised length hits', reference: `${'\uFDFA'.repeat(454)} bomb`, keyword: 'bomb' },
    { name: 'a keyword past the screened normalised length does not hit', reference: `${'\uFDFA'.repeat(460)} bomb`, keyword: null },
    // 8172 + " xxxxxxxxxxxxxx" (15) + " " = 8188: "bomb" ends exactly at code point 8192.
    { name: 'a word ending exactly at the screened length hits', reference: `${'\uFDFA'.repeat(454)} ${'x'.repeat(14)} bomb ardment`, keyword: 'bomb' },
    { name: 'a word cut by the screened length is not matched by its head', reference: `${'\uFDFA'.repeat(454)} ${'x'.repeat(14)} bombardment`, keyword: null },
  ];
  for (const row of screening) {
    it(row.name, async () => {
      expect(findBlacklistedKeyword(row.reference, { keywords: ['bomb'] })).toBe(row.keyword);
      const { hit } = await run({ keywords: ['bomb'] }, row.reference);
      expect(hit !== undefined).toBe(row.keyword !== null);
    });
  }

  it('stays within the documented maximum work at the largest parameters the limits accept', () => {
    // 1000 fuzzy one-word keywords and a reference of distinct words, all of 8 letters: "aaaaa" and
    // three letters from disjoint alphabets. Every word is 3 edits from every keyword, one more
    // than the 25 % allows, and only the last letter tells: every keyword reads every word whole.
    const suffix = (alphabet: string, i: number) => Array.from({ length: 3 }, (_, d) => alphabet[Math.floor(i / 12 ** d) % 12]).join('');
    const keywords = Array.from({ length: 1000 }, (_, i) => `aaaaa${suffix('bcdefghijklm', i)}`);
    const reference = cutToCodePoints(Array.from({ length: 456 }, (_, i) => `aaaaa${suffix('nopqrstuvwxy', i)}`).join(' '), 4096);
    const parameters = { keywords, allowedDistancePercentage: 25 };
    expect(collectSchemaErrors(r24BlacklistedReference.parametersSchema, parameters)).toEqual([]);
    expect(r24BlacklistedReference.validateParameters?.(parameters)).toEqual([]);
    const counter: StepCounter = { steps: 0 };
    expect(findBlacklistedKeyword(reference, parameters, counter)).toBeNull();
    expect(counter.steps).toBeGreaterThan(1000 * 3000);
    expect(counter.steps).toBeLessThanOrEqual(documentedBound(parameters, reference));
    expect(documentedBound(parameters, 'x'.repeat(MAX_SCREENED_REFERENCE_LENGTH))).toBeLessThanOrEqual(MAX_STEPS);
  });
});

/** Words as R-24 splits text (see the rule's JSDoc). */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const wordsOf = (text: string): string[] => text.normalize('NFKC').toLowerCase().match(WORD) ?? [];

/**
 * The documented bound on the steps of one check with parameters the limits accept (every
 * keyword at most 32 code points once normalised, so one block per column), restated from the
 * rule's JSDoc: (L + 1) · (1 + 2·Σ_{n ∈ N} n + Σ_{fuzzy k} words(k)) + Σ_k (2·bound(k) + 2).
 */
function documentedBound(parameters: { keywords: string[]; allowedDistancePercentage?: number }, reference: string): number {
  const screened = Math.min(Array.from(reference.normalize('NFKC').toLowerCase()).length, MAX_SCREENED_REFERENCE_LENGTH);
  const percentage = parameters.allowedDistancePercentage ?? 0;
  const keywords = parameters.keywords.map(wordsOf).filter((words) => words.length > 0);
  let phraseLengths = 0;
  for (const n of new Set(keywords.map((words) => words.length))) phraseLengths += n;
  let fuzzy = 0;
  let perKeyword = 0;
  for (const words of keywords) {
    const length = Array.from(words.join(' ')).length;
    const bound = Math.floor((percentage * length) / 100);
    perKeyword += 2 * bound + 2;
    if (bound > 0) fuzzy += words.length;
  }
  return (screened + 1) * (1 + 2 * phraseLengths + fuzzy) + perKeyword;
}

/** The documented maximum at the largest accepted parameters: 8193 · (1 + 2 · 136 + 1000) + 1000 · 66. */
const MAX_STEPS = (MAX_SCREENED_REFERENCE_LENGTH + 1) * (1 + 2 * 136 + MAX_FUZZY_KEYWORD_WORDS) + 1000 * (2 * MAX_NORMALIZED_KEYWORD_LENGTH + 2);

/** The plain definition of R-24's matching (every run, textbook distance): the oracle. */
function findKeywordPlainly(reference: string, parameters: { keywords: string[]; allowedDistancePercentage?: number }): string | null {
  const words = wordsOf(reference);
  for (const keyword of parameters.keywords) {
    const keywordWords = wordsOf(keyword);
    if (keywordWords.length === 0) continue;
    const target = Array.from(keywordWords.join(' '));
    const bound = Math.floor(((parameters.allowedDistancePercentage ?? 0) * target.length) / 100);
    for (let i = 0; i + keywordWords.length <= words.length; i += 1) {
      const run = Array.from(words.slice(i, i + keywordWords.length).join(' '));
      if (levenshtein(run, target) <= bound) return keyword;
    }
  }
  return null;
}

function levenshtein(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** Whether R-24 would accept these parameters: its schema, then its own limits. */
function isAccepted(parameters: { keywords: string[]; allowedDistancePercentage?: number }): boolean {
  if (collectSchemaErrors(r24BlacklistedReference.parametersSchema, parameters).length > 0) return false;
  return (r24BlacklistedReference.validateParameters?.(parameters) ?? []).length === 0;
}

describe('properties', () => {
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

  // Keywords: mostly plain words and phrases, sometimes hostile code points; references: the
  // keywords, altered copies of them and hostile text, so that fuzzy matching has work to do.
  const plainWord = fc.string({ unit: fc.constantFrom('a', 'b', 'o', 'm', 'б', 'α'), minLength: 1, maxLength: 10 });
  const keyword = fc
    .oneof(
      { weight: 3, arbitrary: fc.array(plainWord, { minLength: 1, maxLength: 4 }).map((words) => words.join(' ')) },
      { weight: 1, arbitrary: hostileText({ maxLength: 32, minLength: 1 }) },
      { weight: 1, arbitrary: fc.tuple(plainWord, hostileText({ maxLength: 4 })).map(([w, h]) => `${w}${h}`) },
    )
    .map((text) => cutToCodePoints(text, 32));
  const parametersArb = fc.record({
    keywords: fc.uniqueArray(keyword, { minLength: 1, maxLength: 12 }),
    allowedDistancePercentage: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 80, max: 100 })),
  });
  // Near misses: a keyword's normalised words with one letter, or every letter, replaced: as many
  // words and as long as the keyword, so that they fall within its length window.
  const nearMiss = (keyword: string, every: boolean) => {
    let replaced = false;
    return wordsOf(keyword)
      .map((word) =>
        Array.from(word)
          .map((c) => {
            if (!every && replaced) return c;
            replaced = true;
            return c === 'x' ? 'y' : 'x';
          })
          .join(''),
      )
      .join(' ');
  };
  const referenceFor = (keywords: readonly string[]) =>
    fc
      .array(
        fc.oneof(
          fc.constantFrom(...keywords),
          fc.tuple(fc.constantFrom(...keywords), fc.boolean()).map(([k, every]) => nearMiss(k, every)),
          fc.constantFrom(...keywords).map((k) => `${k}${k}`),
          hostileText({ maxLength: 600 }),
        ),
        { maxLength: 40 },
      )
      .map((parts) => cutToCodePoints(parts.join(' '), 4096));

  test.prop([parametersArb.chain((parameters) => fc.tuple(fc.constant(parameters), referenceFor(parameters.keywords)))], { numRuns: 150 })(
    'a check does at most the documented work for any reference, with any parameters the limits accept',
    ([parameters, reference]) => {
      if (!isAccepted(parameters)) return;
      const counter: StepCounter = { steps: 0 };
      findBlacklistedKeyword(reference, parameters, counter);
      expect(counter.steps).toBeLessThanOrEqual(documentedBound(parameters, reference));
      expect(documentedBound(parameters, 'x'.repeat(MAX_SCREENED_REFERENCE_LENGTH))).toBeLessThanOrEqual(MAX_STEPS);
    },
  );

  // Keywords that NFKC expands (up to 18 code points per character), near misses of them in the
  // reference and a high percentage: the case that once sent matching down a quadratic path.
  const expanding = fc.constantFrom('\uFDFA', '\uFDFB', '\uFDF2', '\uFB03', '\u3316', '\u337F', '\u2167', '\u3389', '\uFB2C');
  const expandingKeyword = fc
    .array(fc.oneof(expanding, fc.constantFrom('a', 'b', ' ')), { minLength: 1, maxLength: 32 })
    .map((units) => `${units.join('')}z`)
    .map((text) => cutToCodePoints(text, 32));
  const expandingCase = fc.uniqueArray(expandingKeyword, { minLength: 1, maxLength: 4 }).chain((keywords) =>
    fc.tuple(
      fc.record({ keywords: fc.constant(keywords), allowedDistancePercentage: fc.integer({ min: 50, max: 100 }) }),
      fc
        .array(
          fc.tuple(fc.constantFrom(...keywords), fc.boolean()).map(([k, every]) => nearMiss(k, every)),
          { minLength: 1, maxLength: 20 },
        )
        .map((parts) => cutToCodePoints(parts.join(' '), 4096)),
    ),
  );

  test.prop([expandingCase], { numRuns: 100 })(
    'keywords that normalisation expands are refused or matched within the documented work',
    ([parameters, reference]) => {
      if (!isAccepted(parameters)) return;
      const counter: StepCounter = { steps: 0 };
      findBlacklistedKeyword(reference, parameters, counter);
      expect(counter.steps).toBeLessThanOrEqual(documentedBound(parameters, reference));
    },
  );

  test.prop([fc.array(hostileText({ maxLength: 32, minLength: 1 }), { minLength: 1, maxLength: 8 })], { numRuns: 150 })(
    'the limits refuse exactly the keywords longer than 32 characters once normalised',
    (keywords) => {
      const parameters = { keywords: [...new Set(keywords)].filter((k) => /[\p{L}\p{N}]/u.test(k)) };
      if (parameters.keywords.length === 0) return;
      const details = r24BlacklistedReference.validateParameters?.(parameters) ?? [];
      const tooLong = parameters.keywords.flatMap((k, i) =>
        Array.from(wordsOf(k).join(' ')).length > MAX_NORMALIZED_KEYWORD_LENGTH ? [`/keywords/${i}`] : [],
      );
      expect(details.map((d) => d.path)).toEqual(tooLong);
    },
  );

  const smallWord = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'Á', '\u0301'), minLength: 1, maxLength: 6 });
  const separator = fc.constantFrom(' ', '-', ', ', '\u00A0');
  test.prop(
    [
      fc.uniqueArray(
        fc.array(smallWord, { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
        { minLength: 1, maxLength: 6 },
      ),
      fc.array(fc.tuple(smallWord, separator), { maxLength: 30 }),
      fc.integer({ min: 0, max: 100 }),
    ],
    { numRuns: 300 },
  )('names the same keyword as the plain definition over every run of words', (keywords, parts, percentage) => {
    const parameters = { keywords: keywords.filter((k) => /[\p{L}\p{N}]/u.test(k)), allowedDistancePercentage: percentage };
    if (parameters.keywords.length === 0) return;
    const reference = parts.map(([w, s]) => w + s).join('');
    expect(findBlacklistedKeyword(reference, parameters)).toBe(findKeywordPlainly(reference, parameters));
  });
});
