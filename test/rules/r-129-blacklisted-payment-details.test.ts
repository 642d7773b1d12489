import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/domain/index.js';
import type { StepCounter } from '../../src/rules/bounded-levenshtein.js';
import { findBlacklistedPaymentDetails } from '../../src/rules/library/r-129-blacklisted-payment-details.js';
import type { MoneyContext } from '../../src/rules/types.js';
import { hostileText } from '../arbitraries/hostile-text.js';
import { errorOf, testEngine, tx } from '../helpers.js';

const engineFor = () => testEngine().engine;

const IBAN_A = 'DE89370400440532013000';
const IBAN_B = 'GB29NWBK60161331926819';

const CARD = {
  method: 'CARD',
  cardFingerprint: 'fp_abc123',
  cardLast4Digits: '4242',
  cardExpiry: { month: 12, year: 2030 },
  nameOnCard: { firstName: 'Jane', lastName: 'Doe' },
};

/** Runs one transaction with the given payment details through an R-129 instance. */
async function run(parameters: Record<string, unknown>, origin?: Record<string, unknown>, destination?: Record<string, unknown>) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-129', parameters });
  const r = await engine.createTransaction(
    tx({
      ...(origin ? { originPaymentDetails: origin } : {}),
      ...(destination ? { destinationPaymentDetails: destination } : {}),
    }),
  );
  return { hit: r.hitRules[0], status: r.status, executed: r.executedRules[0] };
}

interface Row {
  name: string;
  parameters: Record<string, unknown>;
  origin?: Record<string, unknown>;
  destination?: Record<string, unknown>;
  directions: string[];
}

const ibans = (entries: Record<string, unknown>[]) => ({ blacklistedIBANPaymentDetails: entries });
const cards = (entries: Record<string, unknown>[]) => ({ blacklistedCardPaymentDetails: entries });
const accounts = (entries: Record<string, unknown>[]) => ({ blacklistedGenericBankAccountPaymentDetails: entries });

const rows: Row[] = [
  // IBAN
  {
    name: 'IBAN: a listed origin IBAN hits the sender side',
    parameters: ibans([{ IBAN: IBAN_A }]),
    origin: { method: 'IBAN', IBAN: IBAN_A },
    directions: ['ORIGIN'],
  },
  {
    name: 'IBAN: a listed destination IBAN hits the receiver side',
    parameters: ibans([{ IBAN: IBAN_A }]),
    destination: { method: 'IBAN', IBAN: IBAN_A },
    directions: ['DESTINATION'],
  },
  {
    name: 'IBAN: listed on both sides hits both',
    parameters: ibans([{ IBAN: IBAN_A }, { IBAN: IBAN_B }]),
    origin: { method: 'IBAN', IBAN: IBAN_B },
    destination: { method: 'IBAN', IBAN: IBAN_A },
    directions: ['ORIGIN', 'DESTINATION'],
  },
  {
    name: 'IBAN: compared without spaces and case-insensitively',
    parameters: ibans([{ IBAN: 'de89 3704 0044 0532 0130 00' }]),
    origin: { method: 'IBAN', IBAN: 'DE89 3704 0044 0532 0130 00' },
    directions: ['ORIGIN'],
  },
  {
    name: 'IBAN: one character off does not hit',
    parameters: ibans([{ IBAN: IBAN_A }]),
    origin: { method: 'IBAN', IBAN: 'DE89370400440532013001' },
    directions: [],
  },
  {
    name: 'IBAN: with a BIC, the same BIC hits',
    parameters: ibans([{ IBAN: IBAN_A, BIC: 'COBADEFFXXX' }]),
    origin: { method: 'IBAN', IBAN: IBAN_A, BIC: 'cobadeff xxx' },
    directions: ['ORIGIN'],
  },
  {
    name: "IBAN: an 11-character 'XXX' BIC equals its 8-character form",
    parameters: ibans([{ IBAN: IBAN_A, BIC: 'COBADEFFXXX' }]),
    origin: { method: 'IBAN', IBAN: IBAN_A, BIC: 'COBADEFF' },
    directions: ['ORIGIN'],
  },
  {
    name: 'IBAN: with a BIC, another BIC does not hit',
    parameters: ibans([{ IBAN: IBAN_A, BIC: 'COBADEFFXXX' }]),
    origin: { method: 'IBAN', IBAN: IBAN_A, BIC: 'DEUTDEFF' },
    directions: [],
  },
  {
    name: 'IBAN: with a BIC, a payment without BIC does not hit',
    parameters: ibans([{ IBAN: IBAN_A, BIC: 'COBADEFF' }]),
    origin: { method: 'IBAN', IBAN: IBAN_A },
    directions: [],
  },
  {
    name: 'IBAN: an entry without BIC hits any BIC',
    parameters: ibans([{ IBAN: IBAN_A }]),
    origin: { method: 'IBAN', IBAN: IBAN_A, BIC: 'DEUTDEFF' },
    directions: ['ORIGIN'],
  },
  {
    name: 'IBAN: payment details without an IBAN do not hit',
    parameters: ibans([{ IBAN: IBAN_A }]),
    origin: { method: 'IBAN', BIC: 'DEUTDEFF' },
    directions: [],
  },
  {
    name: 'IBAN: the same account number under another method does not hit',
    parameters: ibans([{ IBAN: IBAN_A }]),
    origin: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: IBAN_A },
    directions: [],
  },
  // CARD
  { name: 'card: fingerprint alone hits', parameters: cards([{ cardFingerprint: 'fp_abc123' }]), origin: CARD, directions: ['ORIGIN'] },
  { name: 'card: fingerprint is compared exactly (case matters)', parameters: cards([{ cardFingerprint: 'FP_ABC123' }]), origin: CARD, directions: [] },
  {
    name: 'card: last 4 and expiry together hit',
    parameters: cards([{ cardLast4Digits: '4242', cardExpiry: { month: 12, year: 2030 } }]),
    destination: CARD,
    directions: ['DESTINATION'],
  },
  {
    name: 'card: every given field must match (expiry month differs)',
    parameters: cards([{ cardLast4Digits: '4242', cardExpiry: { month: 11, year: 2030 } }]),
    origin: CARD,
    directions: [],
  },
  {
    name: 'card: a field the card lacks does not match',
    parameters: cards([{ cardFingerprint: 'fp_abc123' }]),
    origin: { method: 'CARD', cardLast4Digits: '4242' },
    directions: [],
  },
  {
    name: 'card: name on card matches case-insensitively, whitespace collapsed',
    parameters: cards([{ nameOnCard: { firstName: ' JANE ', lastName: 'doe' } }]),
    origin: CARD,
    directions: ['ORIGIN'],
  },
  { name: 'card: first name only matches any last name', parameters: cards([{ nameOnCard: { firstName: 'Jane' } }]), origin: CARD, directions: ['ORIGIN'] },
  {
    name: 'card: a different last name does not match',
    parameters: cards([{ nameOnCard: { firstName: 'Jane', lastName: 'Roe' } }]),
    origin: CARD,
    directions: [],
  },
  {
    name: 'card: an IBAN payment never matches a card entry',
    parameters: cards([{ cardLast4Digits: '3000' }]),
    origin: { method: 'IBAN', IBAN: IBAN_A },
    directions: [],
  },
  // GENERIC_BANK_ACCOUNT
  {
    name: 'account: account number alone hits',
    parameters: accounts([{ accountNumber: '12345678' }]),
    origin: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '12345678', bankCode: '001' },
    directions: ['ORIGIN'],
  },
  {
    name: 'account: spaces and hyphens are ignored',
    parameters: accounts([{ accountNumber: '1234-5678' }]),
    destination: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '1234 5678' },
    directions: ['DESTINATION'],
  },
  {
    name: 'account: a given bank code must match',
    parameters: accounts([{ accountNumber: '12345678', bankCode: '002' }]),
    origin: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '12345678', bankCode: '001' },
    directions: [],
  },
  {
    name: 'account: a given account type matches case-insensitively',
    parameters: accounts([{ accountNumber: '12345678', accountType: 'savings' }]),
    origin: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '12345678', accountType: 'SAVINGS' },
    directions: ['ORIGIN'],
  },
  {
    name: 'account: a given account type the payment lacks does not match',
    parameters: accounts([{ accountNumber: '12345678', accountType: 'savings' }]),
    origin: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '12345678' },
    directions: [],
  },
  {
    name: 'account: the same number under ACH does not hit',
    parameters: accounts([{ accountNumber: '12345678' }]),
    origin: { method: 'ACH', accountNumber: '12345678' },
    directions: [],
  },
  // General
  { name: 'defaults (empty lists) never hit', parameters: {}, origin: CARD, destination: { method: 'IBAN', IBAN: IBAN_A }, directions: [] },
  { name: 'no payment details do not hit', parameters: ibans([{ IBAN: IBAN_A }]), directions: [] },
];

describe('R-129 blacklisted payment details', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { hit, status, executed } = await run(row.parameters, row.origin, row.destination);
      const isHit = row.directions.length > 0;
      expect(executed).toMatchObject({ ruleId: 'R-129', ruleHit: isHit, ruleAction: 'FLAG' });
      expect(status).toBe(isHit ? 'FLAG' : 'ALLOW');
      if (isHit) expect(hit?.ruleHitMeta?.hitDirections).toEqual(row.directions);
    });
  }

  const descriptionRows = [
    {
      name: 'an IBAN shows only its last 4 characters',
      parameters: ibans([{ IBAN: IBAN_A }]),
      origin: { method: 'IBAN', IBAN: IBAN_A },
      expected: 'Origin payment details (IBAN ****3000) are blacklisted.',
      hidden: '370400440532',
    },
    {
      name: 'a card shows its last 4 digits',
      parameters: cards([{ cardFingerprint: 'fp_abc123' }]),
      origin: CARD,
      expected: 'Origin payment details (CARD ****4242) are blacklisted.',
      hidden: 'fp_abc123',
    },
    {
      name: 'a card without last 4 digits is fully masked',
      parameters: cards([{ cardFingerprint: 'fp_abc123' }]),
      origin: { method: 'CARD', cardFingerprint: 'fp_abc123' },
      expected: 'Origin payment details (CARD ****) are blacklisted.',
      hidden: 'fp_abc123',
    },
    {
      name: 'a short account number (< 8 characters) is fully masked',
      parameters: accounts([{ accountNumber: '1234567' }]),
      origin: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '1234567' },
      expected: 'Origin payment details (GENERIC_BANK_ACCOUNT ****) are blacklisted.',
      hidden: '4567',
    },
  ];
  for (const row of descriptionRows) {
    it(`description: ${row.name}`, async () => {
      const { hit } = await run(row.parameters, row.origin);
      expect(hit?.ruleDescription).toBe(row.expected);
      expect(hit?.ruleDescription).not.toContain(row.hidden);
    });
  }

  const invalid = [
    { name: 'an IBAN entry without IBAN', parameters: ibans([{ BIC: 'COBADEFF' }]), path: '/parameters/blacklistedIBANPaymentDetails/0/IBAN' },
    { name: 'an empty IBAN', parameters: ibans([{ IBAN: '' }]), path: '/parameters/blacklistedIBANPaymentDetails/0/IBAN' },
    { name: 'an unknown IBAN entry field', parameters: ibans([{ IBAN: IBAN_A, iban: IBAN_A }]), path: '/parameters/blacklistedIBANPaymentDetails/0/iban' },
    { name: 'an empty card entry', parameters: cards([{}]), path: '/parameters/blacklistedCardPaymentDetails/0' },
    {
      name: 'last 4 digits that are not 4 digits',
      parameters: cards([{ cardLast4Digits: '424' }]),
      path: '/parameters/blacklistedCardPaymentDetails/0/cardLast4Digits',
    },
    {
      name: 'an expiry month of 13',
      parameters: cards([{ cardExpiry: { month: 13, year: 2030 } }]),
      path: '/parameters/blacklistedCardPaymentDetails/0/cardExpiry/month',
    },
    { name: 'an expiry without year', parameters: cards([{ cardExpiry: { month: 1 } }]), path: '/parameters/blacklistedCardPaymentDetails/0/cardExpiry/year' },
    {
      name: 'a name on card without first name',
      parameters: cards([{ nameOnCard: { lastName: 'Doe' } }]),
      path: '/parameters/blacklistedCardPaymentDetails/0/nameOnCard/firstName',
    },
    {
      name: 'an account entry without account number',
      parameters: accounts([{ bankCode: '001' }]),
      path: '/parameters/blacklistedGenericBankAccountPaymentDetails/0/accountNumber',
    },
    { name: 'a list that is not an array', parameters: { blacklistedIBANPaymentDetails: IBAN_A }, path: '/parameters/blacklistedIBANPaymentDetails' },
    { name: 'an unknown parameter', parameters: { blacklistedWallets: [] }, path: '/parameters/blacklistedWallets' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-129', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  const ibanArb = fc.stringMatching(/^[A-Z]{2}[0-9]{2}[A-Z0-9]{8,20}$/);

  test.prop([fc.uniqueArray(ibanArb, { minLength: 1, maxLength: 5 }), ibanArb, ibanArb], { numRuns: 30 })(
    'adding an entry to the IBAN list can only add hits',
    async (list, origin, destination) => {
      const payment = (iban: string) => ({ method: 'IBAN', IBAN: iban });
      const before = await run(ibans(list.slice(1).map((IBAN) => ({ IBAN }))), payment(origin), payment(destination));
      const after = await run(ibans(list.map((IBAN) => ({ IBAN }))), payment(origin), payment(destination));
      for (const d of before.hit?.ruleHitMeta?.hitDirections ?? []) expect(after.hit?.ruleHitMeta?.hitDirections).toContain(d);
    },
  );

  test.prop([ibanArb, fc.array(fc.boolean(), { minLength: 1, maxLength: 34 }), fc.array(fc.nat({ max: 34 }), { maxLength: 5 })], { numRuns: 30 })(
    'an IBAN hits whatever its case and spacing',
    async (iban, lower, spaces) => {
      let variant = Array.from(iban, (c, i) => (lower[i % lower.length] ? c.toLowerCase() : c)).join('');
      for (const at of spaces) variant = `${variant.slice(0, at)} ${variant.slice(at)}`;
      const { hit } = await run(ibans([{ IBAN: iban }]), { method: 'IBAN', IBAN: variant });
      expect(hit?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN']);
    },
  );

  const name = hostileText({ maxLength: 256, minLength: 1 });
  const cardEntry = fc.record(
    { cardFingerprint: fc.constantFrom('fp1', 'fp2'), nameOnCard: fc.record({ firstName: name, lastName: name }, { requiredKeys: ['firstName'] }) },
    { requiredKeys: [] },
  );
  const cardPayment = fc.record({
    method: fc.constant('CARD'),
    cardFingerprint: fc.constantFrom('fp1', 'fp2'),
    nameOnCard: fc.record({ firstName: name, lastName: name }),
  });

  /** Per side: the UTF-16 length of the names on the card (each normalised once) plus every card entry read. */
  const documentedBound = (cards: readonly unknown[], payments: readonly { nameOnCard: { firstName: string; lastName: string } }[]) =>
    payments.reduce((sum, p) => sum + p.nameOnCard.firstName.length + p.nameOnCard.lastName.length + cards.length, 0);

  test.prop([fc.array(cardEntry, { maxLength: 40 }), cardPayment, cardPayment], { numRuns: 100 })(
    'a card check normalises each name on the card once and reads each card entry at most once, whatever the names hold',
    (cards, origin, destination) => {
      const counter: StepCounter = { steps: 0 };
      findBlacklistedPaymentDetails(
        {
          transaction: { originPaymentDetails: origin, destinationPaymentDetails: destination } as unknown as Transaction,
          parameters: { blacklistedCardPaymentDetails: cards },
          originUser: null,
          destinationUser: null,
          aggregates: {},
          money: {} as MoneyContext,
        },
        counter,
      );
      expect(counter.steps).toBeLessThanOrEqual(documentedBound(cards, [origin, destination]));
    },
  );

  // Names on the card are often an entry's names, as written or upper-cased and padded.
  const cardsAndPayment = fc.array(cardEntry, { minLength: 1, maxLength: 20 }).chain((cards) => {
    const names = cards.flatMap((c) => (c.nameOnCard === undefined ? [] : [c.nameOnCard.firstName, c.nameOnCard.lastName ?? c.nameOnCard.firstName]));
    const variant = fc.constantFrom(
      (t: string) => t,
      (t: string) => ` ${t.toUpperCase()}  `,
    );
    const pick =
      names.length === 0
        ? name
        : fc.oneof(
            name,
            fc.tuple(fc.constantFrom(...names), variant).map(([t, f]) => f(t)),
          );
    const payment = fc.record({
      method: fc.constant('CARD'),
      cardFingerprint: fc.constantFrom('fp1', 'fp2'),
      nameOnCard: fc.record({ firstName: pick, lastName: pick }),
    });
    return fc.tuple(fc.constant(cards), payment);
  });

  test.prop([cardsAndPayment], { numRuns: 200 })(
    'a card hits exactly when some entry matches every field it gives (names compared after normalisation)',
    ([cards, payment]) => {
      const text = (value: string) => value.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
      const expected = cards.some(
        (entry) =>
          (entry.cardFingerprint === undefined || entry.cardFingerprint === payment.cardFingerprint) &&
          (entry.nameOnCard === undefined ||
            (text(entry.nameOnCard.firstName) === text(payment.nameOnCard.firstName) &&
              (entry.nameOnCard.lastName === undefined || text(entry.nameOnCard.lastName) === text(payment.nameOnCard.lastName)))),
      );
      const hits = findBlacklistedPaymentDetails({
        transaction: { originPaymentDetails: payment } as unknown as Transaction,
        parameters: { blacklistedCardPaymentDetails: cards },
        originUser: null,
        destinationUser: null,
        aggregates: {},
        money: {} as MoneyContext,
      });
      expect(hits.length > 0).toBe(expected);
    },
  );
});
