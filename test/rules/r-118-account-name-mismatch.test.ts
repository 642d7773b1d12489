import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/domain/index.js';
import type { StepCounter } from '../../src/rules/bounded-levenshtein.js';
import {
  findAccountNameMismatches,
  MAX_COMPARED_NAME_LENGTH,
  normalizeNameWords,
  r118AccountNameMismatch,
} from '../../src/rules/library/r-118-account-name-mismatch.js';
import type { MoneyContext, RuleCheckContext, RuleUser } from '../../src/rules/types.js';
import { hostileText } from '../arbitraries/hostile-text.js';
import { DAY, T0, errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;
type Engine = ReturnType<typeof engineFor>;

/**
 * R-118 boundary table, through the engine. Users: alice (consumer John David Smith), bob
 * (consumer Anna Meier), acme (business "Acme Trading Ltd"), nameless (consumer without a name),
 * ghost (never created: no profile). Each row sends one transaction with the given payment details.
 */

const card = (firstName: string, lastName?: string, middleName?: string) => ({
  method: 'CARD',
  nameOnCard: { firstName, ...(middleName !== undefined ? { middleName } : {}), ...(lastName !== undefined ? { lastName } : {}) },
});
const named = (method: string, name: string | undefined, extra: Record<string, unknown> = {}) => ({
  method,
  ...(name !== undefined ? { name } : {}),
  ...extra,
});

async function createUsers(engine: Engine, users: Record<string, Record<string, unknown>> = {}) {
  const base: Record<string, Record<string, unknown>> = {
    alice: { userDetails: { name: { firstName: 'John', middleName: 'David', lastName: 'Smith' } } },
    bob: { userDetails: { name: { firstName: 'Anna', lastName: 'Meier' } } },
    acme: { legalEntity: { companyGeneralDetails: { legalName: 'Acme Trading Ltd' } } },
    nameless: { userDetails: { countryOfResidence: 'DE' } },
    ...users,
  };
  for (const [userId, profile] of Object.entries(base)) await engine.createUser({ userId, createdTimestamp: T0 - DAY, ...profile });
}

interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  users?: Record<string, Record<string, unknown>>;
  origin?: string;
  destination?: string;
  originDetails?: Record<string, unknown>;
  destinationDetails?: Record<string, unknown>;
  directions: string[];
}

const rows: Row[] = [
  { name: 'the same name on the card does not hit', originDetails: card('John', 'Smith', 'David'), directions: [] },
  { name: 'a different name on the card hits the sender side', originDetails: card('Maria', 'Gonzalez'), directions: ['ORIGIN'] },
  {
    name: 'case, diacritics and whitespace are ignored (0 % allowed)',
    parameters: { allowedDistancePercentage: 0 },
    originDetails: named('IBAN', '  JOHN   DAVÍD  SMÎTH '),
    directions: [],
  },
  {
    name: 'a leading honorific is ignored (0 % allowed)',
    parameters: { allowedDistancePercentage: 0 },
    originDetails: named('GENERIC_BANK_ACCOUNT', 'Mr. John David Smith'),
    directions: [],
  },
  {
    name: 'a missing middle name is ignored (0 % allowed)',
    parameters: { allowedDistancePercentage: 0 },
    originDetails: named('ACH', 'John Smith'),
    directions: [],
  },
  {
    name: 'a different middle name is ignored (0 % allowed)',
    parameters: { allowedDistancePercentage: 0 },
    originDetails: card('John', 'Smith', 'Peter'),
    directions: [],
  },
  {
    name: "an apostrophe is dropped (O'Neil = ONeil, 0 % allowed)",
    parameters: { allowedDistancePercentage: 0 },
    users: { alice: { userDetails: { name: { firstName: 'Sean', lastName: "O'Neil" } } } },
    originDetails: named('SWIFT', 'Sean ONeil'),
    directions: [],
  },
  { name: 'the same words in another order hit', originDetails: named('IBAN', 'Smith David John'), directions: ['ORIGIN'] },
  // "anna meier" (10 code points) vs "anne meyer": 2 substitutions = 20 %.
  {
    name: 'exactly at the allowed percentage does not hit (20 % of 10 characters)',
    parameters: { allowedDistancePercentage: 20 },
    origin: 'bob',
    originDetails: named('IBAN', 'Anne Meyer'),
    directions: [],
  },
  {
    name: 'one point below the difference hits (19 %)',
    parameters: { allowedDistancePercentage: 19 },
    origin: 'bob',
    originDetails: named('IBAN', 'Anne Meyer'),
    directions: ['ORIGIN'],
  },
  { name: 'one more edit over 30 % hits (4 of 10 = 40 %)', origin: 'bob', originDetails: named('IBAN', 'Anne Mayar'), directions: ['ORIGIN'] },
  { name: 'three edits of 10 is exactly 30 % and does not hit', origin: 'bob', originDetails: named('IBAN', 'Anne Mayer'), directions: [] },
  {
    name: 'the longer name is the length: "anna meier" vs "anna meierhofer" (5 of 15 = 33 %) hits',
    origin: 'bob',
    originDetails: named('IBAN', 'Anna Meierhofer'),
    directions: ['ORIGIN'],
  },
  { name: 'a business legal name matches its account name', origin: 'acme', originDetails: named('IBAN', 'ACME TRADING LTD.'), directions: [] },
  { name: 'a business account in another name hits', origin: 'acme', originDetails: named('IBAN', 'Globex Corporation'), directions: ['ORIGIN'] },
  {
    name: 'the receiver is checked against the destination payment details',
    destination: 'bob',
    destinationDetails: named('IBAN', 'Peter Miller'),
    directions: ['DESTINATION'],
  },
  {
    name: 'both sides hit when both mismatch',
    destination: 'bob',
    originDetails: card('Maria', 'Gonzalez'),
    destinationDetails: named('IBAN', 'Peter Miller'),
    directions: ['ORIGIN', 'DESTINATION'],
  },
  {
    name: 'the sender is not compared with the destination payment details',
    destinationDetails: named('IBAN', 'Peter Miller'),
    destination: 'ghost',
    directions: [],
  },
  { name: 'a user without a stored profile is not checked', origin: 'ghost', originDetails: card('Maria', 'Gonzalez'), directions: [] },
  { name: 'no payment details: not checked', directions: [] },
  { name: 'UPI account names are checked', originDetails: named('UPI', 'Maria Gonzalez', { upiID: 'maria@upi' }), directions: ['ORIGIN'] },
  { name: 'CHECK account names are checked', originDetails: named('CHECK', 'Maria Gonzalez'), directions: ['ORIGIN'] },
  { name: 'NPP name objects are checked', originDetails: { method: 'NPP', name: { firstName: 'Maria', lastName: 'Gonzalez' } }, directions: ['ORIGIN'] },
  { name: 'WALLET names (wallet or merchant names) are not checked', originDetails: named('WALLET', 'Maria Gonzalez'), directions: [] },
  { name: 'CASH is not checked', originDetails: named('CASH', 'Maria Gonzalez'), directions: [] },
  { name: 'no name on the card hits by default (ignoreEmptyName false)', originDetails: { method: 'CARD', cardFingerprint: 'fp' }, directions: ['ORIGIN'] },
  { name: 'a name of only punctuation is empty and hits by default', originDetails: named('IBAN', ' .- '), directions: ['ORIGIN'] },
  {
    name: 'no name on the card does not hit with ignoreEmptyName',
    parameters: { ignoreEmptyName: true },
    originDetails: { method: 'CARD', cardFingerprint: 'fp' },
    directions: [],
  },
  { name: 'a profile without a name hits by default', origin: 'nameless', originDetails: named('IBAN', 'Maria Gonzalez'), directions: ['ORIGIN'] },
  {
    name: 'a profile without a name does not hit with ignoreEmptyName',
    parameters: { ignoreEmptyName: true },
    origin: 'nameless',
    originDetails: named('IBAN', 'Maria Gonzalez'),
    directions: [],
  },
  { name: 'no name on either side does not hit', origin: 'nameless', originDetails: named('IBAN', undefined), directions: [] },
  { name: '100 % allowed never hits on two names', parameters: { allowedDistancePercentage: 100 }, originDetails: named('IBAN', 'Xy'), directions: [] },
  {
    name: '100 % allowed still hits on an empty name',
    parameters: { allowedDistancePercentage: 100 },
    originDetails: named('IBAN', ''),
    directions: ['ORIGIN'],
  },
  {
    name: 'names are compared on their first 256 normalised characters (0 % allowed)',
    parameters: { allowedDistancePercentage: 0 },
    users: { alice: { userDetails: { name: { firstName: 'x'.repeat(256), lastName: 'Smith' } } } },
    originDetails: card('x'.repeat(256), 'Jones'),
    directions: [],
  },
  {
    name: 'a difference inside the first 256 normalised characters still counts (0 % allowed)',
    parameters: { allowedDistancePercentage: 0 },
    users: { alice: { userDetails: { name: { firstName: 'x'.repeat(250), lastName: 'Smith' } } } },
    originDetails: card('x'.repeat(250), 'Jones'),
    directions: ['ORIGIN'],
  },
  {
    // U+FDFA is one character as written and 18 once normalised: 15 of them are 270 > 256.
    name: 'the cut applies after normalisation (ligatures that expand)',
    parameters: { allowedDistancePercentage: 0 },
    users: { alice: { userDetails: { name: { firstName: '\uFDFA'.repeat(15), lastName: 'Smith' } } } },
    originDetails: card('\uFDFA'.repeat(15), 'Jones'),
    directions: [],
  },
];

async function run(row: Pick<Row, 'parameters' | 'users' | 'origin' | 'destination' | 'originDetails' | 'destinationDetails'>) {
  const engine = engineFor();
  await createUsers(engine, row.users);
  await engine.createRuleInstance({ ruleId: 'R-118', parameters: row.parameters ?? {} });
  return engine.createTransaction(
    tx({
      originUserId: row.origin ?? 'alice',
      destinationUserId: row.destination ?? 'ghost',
      ...(row.originDetails ? { originPaymentDetails: row.originDetails } : {}),
      ...(row.destinationDetails ? { destinationPaymentDetails: row.destinationDetails } : {}),
    }),
  );
}

describe("R-118 Account name doesn't match user name", () => {
  for (const row of rows) {
    it(row.name, async () => {
      const r = await run(row);
      expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.directions);
    });
  }

  it('names the side, the method and the difference, never the names, in the description', async () => {
    const r = await run({ origin: 'bob', originDetails: named('IBAN', 'Anne Mayar') });
    expect(r.hitRules[0]?.ruleDescription).toBe(
      "Sender's name does not match the account name on the IBAN payment method: 40.00% different, more than the allowed 30%.",
    );
  });

  it('reports the smaller difference of the full and the first-and-last names', async () => {
    // "john david smith" vs "jon peter smith": full 6 of 16; "john smith" vs "jon smith": 1 of 10 = 10 %.
    const r = await run({ parameters: { allowedDistancePercentage: 5 }, originDetails: card('Jon', 'Smith', 'Peter') });
    expect(r.hitRules[0]?.ruleDescription).toContain('10.00% different, more than the allowed 5%');
  });

  it('says which name is missing', async () => {
    const r = await run({ origin: 'nameless', destination: 'bob', originDetails: named('IBAN', 'Maria'), destinationDetails: { method: 'CARD' } });
    expect(r.hitRules[0]?.ruleDescription).toContain("the user's profile has no name");
    const receiver = await run({ destination: 'bob', destinationDetails: { method: 'CARD' } });
    expect(receiver.hitRules[0]?.ruleDescription).toBe(
      "Receiver's name does not match the account name on the CARD payment method: the payment method has no account name.",
    );
  });

  it('uses the source defaults (docs/wire-format.md#rule-library)', () => {
    expect(r118AccountNameMismatch.defaultParameters).toEqual({ allowedDistancePercentage: 30, ignoreEmptyName: false });
  });

  const invalid = [
    { name: 'a percentage above 100', parameters: { allowedDistancePercentage: 101 }, path: '/parameters/allowedDistancePercentage' },
    { name: 'a negative percentage', parameters: { allowedDistancePercentage: -1 }, path: '/parameters/allowedDistancePercentage' },
    { name: 'a fractional percentage', parameters: { allowedDistancePercentage: 30.5 }, path: '/parameters/allowedDistancePercentage' },
    { name: 'a non-boolean ignoreEmptyName', parameters: { allowedDistancePercentage: 30, ignoreEmptyName: 'yes' }, path: '/parameters/ignoreEmptyName' },
    { name: 'an unknown parameter', parameters: { allowedDistancePercentage: 30, checkDirection: 'all' }, path: '/parameters/checkDirection' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-118', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }

  it('takes the default 30 % when allowedDistancePercentage is omitted', async () => {
    const within = await run({ parameters: { ignoreEmptyName: true }, origin: 'bob', originDetails: named('IBAN', 'Anne Mayer') });
    const over = await run({ parameters: { ignoreEmptyName: true }, origin: 'bob', originDetails: named('IBAN', 'Anne Mayar') });
    expect([within.hitRules.length, over.hitRules.length]).toEqual([0, 1]);
  });
});

describe('normalizeNameWords', () => {
  const cases = [
    { name: 'lower-cases and splits on whitespace runs', input: '  JOHN \t Smith ', expected: ['john', 'smith'] },
    { name: 'removes diacritics', input: 'Zoë Ångström-Núñez', expected: ['zoe', 'angstrom', 'nunez'] },
    { name: 'drops apostrophes', input: "D’Arcy O'Neil", expected: ['darcy', 'oneil'] },
    { name: 'drops leading honorifics', input: 'Mrs. Dr. Jane Doe', expected: ['jane', 'doe'] },
    { name: 'keeps an honorific that is the only word', input: 'Mr', expected: ['mr'] },
    { name: 'keeps a title-like word after the first name', input: 'Jane Miss', expected: ['jane', 'miss'] },
    { name: 'folds compatibility characters (full-width)', input: 'ＪＯＨＮ', expected: ['john'] },
    { name: 'gives no words for punctuation only', input: ' .-, ', expected: [] },
    { name: 'expands compatibility ligatures (U+FDFA is four words)', input: '\uFDFA', expected: ['صلى', 'الله', 'عليه', 'وسلم'] },
    { name: 'removes an accent separated from its letter by an apostrophe', input: "O'\u0301Brien", expected: ['obrien'] },
    { name: 'composes after lower-casing (Greek iota with dialytika and tonos)', input: '\u03AA\u0301', expected: ['\u0390'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(normalizeNameWords(c.input)).toEqual(c.expected);
    });
  }
});

describe('properties', () => {
  /** Plain Levenshtein over code points (the textbook recurrence), the oracle. */
  function levenshtein(a: string, b: string): number {
    const x = Array.from(a);
    const y = Array.from(b);
    let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
    for (let i = 1; i <= x.length; i++) {
      const current = [i];
      for (let j = 1; j <= y.length; j++) {
        current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1));
      }
      previous = current;
    }
    return previous[y.length] as number;
  }

  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'n', 'o'), minLength: 1, maxLength: 12 });

  const nameField = hostileText({ maxLength: 256 });
  const personName = fc.record({ firstName: nameField, middleName: nameField, lastName: nameField }, { requiredKeys: ['firstName'] });
  const consumer = personName.map((name): RuleUser => ({ userId: 'u', type: 'CONSUMER', profile: { userDetails: { name } }, riskLevel: null, craScore: null }));
  const business = hostileText({ maxLength: 512 }).map(
    (legalName): RuleUser => ({
      userId: 'u',
      type: 'BUSINESS',
      profile: { legalEntity: { companyGeneralDetails: { legalName } } },
      riskLevel: null,
      craScore: null,
    }),
  );
  const paymentDetails = fc.oneof(
    personName.map((nameOnCard) => ({ method: 'CARD', nameOnCard })),
    personName.map((name) => ({ method: 'NPP', name })),
    fc.tuple(fc.constantFrom('IBAN', 'ACH', 'SWIFT', 'GENERIC_BANK_ACCOUNT', 'CHECK', 'UPI'), nameField).map(([method, name]) => ({ method, name })),
  );

  /** 2 sides × 2 pairs × (pattern + ⌈256/32⌉ · 256 block steps): R-118's documented bound. */
  const MAX_STEPS = 2 * 2 * (MAX_COMPARED_NAME_LENGTH + Math.ceil(MAX_COMPARED_NAME_LENGTH / 32) * MAX_COMPARED_NAME_LENGTH);

  test.prop([fc.oneof(consumer, business), fc.oneof(consumer, business), paymentDetails, paymentDetails, fc.integer({ min: 0, max: 100 })], { numRuns: 100 })(
    'a transaction costs at most 9,216 distance steps, whatever the names hold',
    (originUser, destinationUser, origin, destination, percent) => {
      const context: RuleCheckContext<{ allowedDistancePercentage: number }> = {
        transaction: { originPaymentDetails: origin, destinationPaymentDetails: destination } as unknown as Transaction,
        parameters: { allowedDistancePercentage: percent },
        originUser,
        destinationUser,
        aggregates: {},
        money: {} as MoneyContext,
      };
      const counter: StepCounter = { steps: 0 };
      findAccountNameMismatches(context, counter);
      expect(MAX_STEPS).toBe(9216);
      expect(counter.steps).toBeLessThanOrEqual(MAX_STEPS);
    },
  );

  test.prop([hostileText({ maxLength: 256 })], { numRuns: 300 })('normalising a normalised name changes nothing (so each name is normalised once)', (text) => {
    const words = normalizeNameWords(text);
    expect(normalizeNameWords(words.join(' '))).toEqual(words);
  });

  test.prop([word, word, fc.integer({ min: 0, max: 100 })], { numRuns: 60 })(
    'a one-word name hits exactly when distance × 100 > percentage × longer length',
    async (userName, accountName, percent) => {
      const r = await run({
        parameters: { allowedDistancePercentage: percent },
        users: { alice: { userDetails: { name: { firstName: userName } } } },
        originDetails: named('IBAN', accountName),
      });
      const expected = levenshtein(userName, accountName) * 100 > percent * Math.max(userName.length, accountName.length);
      expect(r.hitRules.length > 0).toBe(expected);
    },
  );

  const decorate = fc.constantFrom(
    (s: string) => s.toUpperCase(),
    (s: string) => ` \t ${s}  `,
    (s: string) => s.replace(/a/g, 'á').replace(/o/g, 'ö'),
    (s: string) => `Mr ${s}`,
  );
  test.prop([word, word, fc.integer({ min: 0, max: 100 }), decorate], { numRuns: 40 })(
    'case, diacritics, extra whitespace and a leading honorific never change the outcome',
    async (userName, accountName, percent, change) => {
      const users = { alice: { userDetails: { name: { firstName: userName } } } };
      const plain = await run({ parameters: { allowedDistancePercentage: percent }, users, originDetails: named('IBAN', accountName) });
      const decorated = await run({ parameters: { allowedDistancePercentage: percent }, users, originDetails: named('IBAN', change(accountName)) });
      expect(decorated.hitRules.length).toBe(plain.hitRules.length);
    },
  );
});

/** The hit directions of rule `id` in a result. */
const ruleHits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

describe('R-118 unusual Unicode', () => {
  async function hitOf(firstName: string, accountName: string): Promise<string[]> {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-118', parameters: { allowedDistancePercentage: 0 } });
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, userDetails: { name: { firstName } } });
    const result = await engine.createTransaction(tx({ originPaymentDetails: { method: 'UPI', upiID: 'alice@bank', name: accountName } }));
    return ruleHits(result, 'R-118');
  }

  it('Devanagari vowel signs are letters, not accents: रीना (Reena) ≠ राना (Rana) at 0 %', async () => {
    expect(await hitOf('रीना', 'राना')).toEqual(['ORIGIN']);
  });

  it('Japanese voicing marks change the name: ガトウ (Gatō) ≠ カトウ (Katō) at 0 %', async () => {
    expect(await hitOf('ガトウ', 'カトウ')).toEqual(['ORIGIN']);
  });

  it('Latin accents are ignored at 0 % (José = JOSE)', async () => {
    expect(await hitOf('José', 'JOSE')).toEqual([]);
  });
});
