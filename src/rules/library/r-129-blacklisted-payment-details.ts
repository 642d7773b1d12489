import { Type, type Static } from '@sinclair/typebox';
import type { PaymentDetails } from '../../domain/index.js';
import type { StepCounter } from '../bounded-levenshtein.js';
import { defineRule } from '../define-rule.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import type { RuleCheckContext, RuleHit } from '../types.js';

/** Max entries of each blacklist. */
const MAX_ENTRIES = 10_000;

const IdentifierText = (title: string, description: string) => Type.String({ minLength: 1, maxLength: 64, title, description });

const IbanEntrySchema = Type.Object(
  {
    IBAN: IdentifierText('IBAN', 'Compared with spaces removed, case-insensitively.'),
    BIC: Type.Optional(
      IdentifierText('BIC', "When given, the payment's BIC must match too (spaces removed, case-insensitive; 'XXX' branch = 8-character BIC)."),
    ),
  },
  { additionalProperties: false, title: 'Blacklisted IBAN', description: 'An IBAN account, optionally with its BIC.' },
);

const CardEntrySchema = Type.Object(
  {
    cardFingerprint: Type.Optional(IdentifierText('Card fingerprint', 'Compared exactly.')),
    cardLast4Digits: Type.Optional(
      Type.String({
        pattern: '^[0-9]{4}$',
        'x-pattern-message': 'must be exactly 4 digits',
        title: 'Last 4 digits',
        description: 'Last four digits of the card number.',
      }),
    ),
    cardExpiry: Type.Optional(
      Type.Object(
        {
          month: Type.Integer({ minimum: 1, maximum: 12, title: 'Month', description: 'Expiry month, 1-12.' }),
          year: Type.Integer({ minimum: 1900, maximum: 9999, title: 'Year', description: 'Expiry year, four digits.' }),
        },
        { additionalProperties: false, title: 'Card expiry', description: 'Both month and year must equal the card’s.' },
      ),
    ),
    nameOnCard: Type.Optional(
      Type.Object(
        {
          firstName: Type.String({ minLength: 1, maxLength: 256, title: 'First name', description: 'Compared case-insensitively, whitespace collapsed.' }),
          lastName: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 256,
              title: 'Last name',
              description: 'When given, must match too (case-insensitive, whitespace collapsed).',
            }),
          ),
        },
        { additionalProperties: false, title: 'Name on card', description: 'Cardholder name.' },
      ),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'Blacklisted card',
    description: 'A card matches when every field given here equals the card’s; at least one field is required.',
  },
);

const GenericBankAccountEntrySchema = Type.Object(
  {
    accountNumber: IdentifierText('Account number', 'Compared with spaces and hyphens removed, case-insensitively.'),
    bankCode: Type.Optional(IdentifierText('Bank code', 'When given, must match too (spaces and hyphens removed, case-insensitive).')),
    accountType: Type.Optional(IdentifierText('Account type', 'When given, must match too (case-insensitive).')),
  },
  { additionalProperties: false, title: 'Blacklisted bank account', description: 'A generic bank account.' },
);

const ParametersSchema = Type.Object(
  {
    blacklistedIBANPaymentDetails: Type.Optional(
      Type.Array(IbanEntrySchema, {
        title: 'Blacklisted IBAN payment details',
        description: 'IBAN payment details (method IBAN) that hit.',
        maxItems: MAX_ENTRIES,
      }),
    ),
    blacklistedCardPaymentDetails: Type.Optional(
      Type.Array(CardEntrySchema, {
        title: 'Blacklisted card payment details',
        description: 'Card payment details (method CARD) that hit.',
        maxItems: MAX_ENTRIES,
      }),
    ),
    blacklistedGenericBankAccountPaymentDetails: Type.Optional(
      Type.Array(GenericBankAccountEntrySchema, {
        title: 'Blacklisted generic bank account payment details',
        description: 'Bank accounts (method GENERIC_BANK_ACCOUNT) that hit.',
        maxItems: MAX_ENTRIES,
      }),
    ),
  },
  { additionalProperties: false, title: 'R-129 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;
type CardEntry = Static<typeof CardEntrySchema>;

/** Uppercase, spaces removed (IBAN). */
function normalizeIban(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

/** Uppercase, spaces removed; an 11-character BIC of the primary office (`…XXX`) as its 8-character form. */
function normalizeBic(value: string): string {
  const bic = value.replace(/\s+/g, '').toUpperCase();
  return bic.length === 11 && bic.endsWith('XXX') ? bic.slice(0, 8) : bic;
}

/** Uppercase, spaces and hyphens removed (account numbers, bank codes). */
function normalizeAccount(value: string): string {
  return value.replace(/[\s-]+/g, '').toUpperCase();
}

/** Lower-cased, trimmed, inner whitespace collapsed (names, account types). */
function normalizeText(value: string): string {
  return value.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

interface AccountEntry {
  readonly bankCode: string | undefined;
  readonly accountType: string | undefined;
}

/** A card entry with its name on card normalised once. */
interface PreparedCard {
  readonly entry: CardEntry;
  /** Normalised last name the card must carry, or `undefined` when the entry gives none. */
  readonly lastName: string | undefined;
}

interface Prepared {
  /** Normalised IBAN → normalised BICs required (`null`: any BIC). */
  readonly ibans: ReadonlyMap<string, readonly (string | null)[]>;
  /** Card entries without a name on card: any card name can match them. */
  readonly unnamedCards: readonly PreparedCard[];
  /** Normalised first name on card → the entries giving it: only a card with that first name can match them. */
  readonly cardsByFirstName: ReadonlyMap<string, readonly PreparedCard[]>;
  /** Normalised account number → its entries. */
  readonly accounts: ReadonlyMap<string, readonly AccountEntry[]>;
}

const preparedCache = new WeakMap<object, Prepared>();

/** Indexes the blacklists once per parameters object. */
function prepare(parameters: Parameters): Prepared {
  const cached = preparedCache.get(parameters);
  if (cached !== undefined) return cached;
  const ibans = new Map<string, (string | null)[]>();
  for (const entry of parameters.blacklistedIBANPaymentDetails ?? []) {
    const key = normalizeIban(entry.IBAN);
    const list = ibans.get(key) ?? [];
    list.push(entry.BIC === undefined ? null : normalizeBic(entry.BIC));
    ibans.set(key, list);
  }
  const accounts = new Map<string, AccountEntry[]>();
  for (const entry of parameters.blacklistedGenericBankAccountPaymentDetails ?? []) {
    const key = normalizeAccount(entry.accountNumber);
    const list = accounts.get(key) ?? [];
    list.push({
      bankCode: entry.bankCode === undefined ? undefined : normalizeAccount(entry.bankCode),
      accountType: entry.accountType === undefined ? undefined : normalizeText(entry.accountType),
    });
    accounts.set(key, list);
  }
  const unnamedCards: PreparedCard[] = [];
  const cardsByFirstName = new Map<string, PreparedCard[]>();
  for (const entry of parameters.blacklistedCardPaymentDetails ?? []) {
    const name = entry.nameOnCard;
    const card: PreparedCard = { entry, lastName: name?.lastName === undefined ? undefined : normalizeText(name.lastName) };
    if (name === undefined) {
      unnamedCards.push(card);
      continue;
    }
    const key = normalizeText(name.firstName);
    const list = cardsByFirstName.get(key);
    if (list === undefined) cardsByFirstName.set(key, [card]);
    else list.push(card);
  }
  const prepared: Prepared = { ibans, unnamedCards, cardsByFirstName, accounts };
  preparedCache.set(parameters, prepared);
  return prepared;
}

/** `****` plus the last 4 characters, only when the identifier is at least 8 long (else fully masked). */
function maskIdentifier(value: string): string {
  return value.length >= 8 ? `****${value.slice(-4)}` : '****';
}

type CardPayment = Extract<PaymentDetails, { method: 'CARD' }>;

/**
 * Whether every field the entry gives equals the card's (a field the card lacks never matches).
 * The first name on card already matched (the entry was found by it, or it gives none).
 */
function matchesCard(card: PreparedCard, payment: CardPayment, lastName: string | undefined): boolean {
  const entry = card.entry;
  if (entry.cardFingerprint !== undefined && entry.cardFingerprint !== payment.cardFingerprint) return false;
  if (entry.cardLast4Digits !== undefined && entry.cardLast4Digits !== payment.cardLast4Digits) return false;
  if (entry.cardExpiry !== undefined) {
    const expiry = payment.cardExpiry;
    if (expiry?.month !== entry.cardExpiry.month || expiry.year !== entry.cardExpiry.year) return false;
  }
  return card.lastName === undefined || card.lastName === lastName;
}

/** `normalize(value)`, adding the UTF-16 length of `value` to `counter`. */
function normalizeCounted(normalize: (value: string) => string, value: string, counter: StepCounter | undefined): string {
  if (counter !== undefined) counter.steps += value.length;
  return normalize(value);
}

/**
 * Whether the card is blacklisted: the entries without a name on card and those giving the card's
 * first name are its only candidates, so the names on the card are normalised once and no entry
 * with another first name is read.
 */
function isCardBlacklisted(payment: CardPayment, prepared: Prepared, counter: StepCounter | undefined): boolean {
  const name = payment.nameOnCard;
  let named: readonly PreparedCard[] = [];
  let lastName: string | undefined;
  if (name !== undefined && prepared.cardsByFirstName.size > 0) {
    named = prepared.cardsByFirstName.get(normalizeCounted(normalizeText, name.firstName, counter)) ?? [];
    if (named.length > 0 && name.lastName !== undefined) lastName = normalizeCounted(normalizeText, name.lastName, counter);
  }
  for (const candidates of [prepared.unnamedCards, named]) {
    for (const card of candidates) {
      if (counter !== undefined) counter.steps += 1;
      if (matchesCard(card, payment, lastName)) return true;
    }
  }
  return false;
}

/** The masked identifier of the blacklisted details, or `null` when they are not blacklisted. */
function findMatch(details: PaymentDetails, prepared: Prepared, counter: StepCounter | undefined): string | null {
  switch (details.method) {
    case 'IBAN': {
      if (details.IBAN === undefined) return null;
      const iban = normalizeCounted(normalizeIban, details.IBAN, counter);
      const bics = prepared.ibans.get(iban);
      if (bics === undefined) return null;
      const bic = details.BIC === undefined ? undefined : normalizeCounted(normalizeBic, details.BIC, counter);
      const hit = bics.some((b) => {
        if (counter !== undefined) counter.steps += 1;
        return b === null || b === bic;
      });
      return hit ? maskIdentifier(iban) : null;
    }
    case 'CARD': {
      if (!isCardBlacklisted(details, prepared, counter)) return null;
      return details.cardLast4Digits === undefined ? '****' : `****${details.cardLast4Digits}`;
    }
    case 'GENERIC_BANK_ACCOUNT': {
      if (details.accountNumber === undefined) return null;
      const account = normalizeCounted(normalizeAccount, details.accountNumber, counter);
      const entries = prepared.accounts.get(account);
      if (entries === undefined) return null;
      const bankCode = details.bankCode === undefined ? undefined : normalizeCounted(normalizeAccount, details.bankCode, counter);
      const accountType = details.accountType === undefined ? undefined : normalizeCounted(normalizeText, details.accountType, counter);
      const hit = entries.some((e) => {
        if (counter !== undefined) counter.steps += 1;
        return (e.bankCode === undefined || e.bankCode === bankCode) && (e.accountType === undefined || e.accountType === accountType);
      });
      return hit ? maskIdentifier(account) : null;
    }
    default:
      return null;
  }
}

/** The list parameter that holds blacklisted payment details of each method R-129 checks. */
const LIST_PARAMETER: Readonly<Record<string, string>> = {
  IBAN: 'blacklistedIBANPaymentDetails',
  CARD: 'blacklistedCardPaymentDetails',
  GENERIC_BANK_ACCOUNT: 'blacklistedGenericBankAccountPaymentDetails',
};

/** The hit of one side: its evidence is the masked identifier (never the full one) and the list it is on. */
function paymentHit(direction: 'ORIGIN' | 'DESTINATION', method: string, identifier: string): RuleHit {
  const evidence = {
    direction,
    kind: 'paymentDetails',
    method,
    value: identifier,
    comparison: 'in',
    limit: `/parameters/${LIST_PARAMETER[method] as string}`,
  } as RuleEvidence;
  return { direction, vars: { side: direction === 'ORIGIN' ? 'Origin' : 'Destination', method, identifier }, evidence: [evidence] };
}

/**
 * R-129's check as a pure function (see {@link r129BlacklistedPaymentDetails}), adding its work to
 * `counter`: the UTF-16 length of every payment-details string it normalises and one step per
 * blacklist entry it reads. Per side that is at most the length of the side's identifier fields
 * (IBAN and BIC; account number, bank code and account type; first and last name on card) plus
 * the entries with that identifier — for a card, the card entries without a name on card and those
 * with its first name: never more than the list's 10,000 entries, and never a normalisation per
 * entry.
 */
export function findBlacklistedPaymentDetails(context: RuleCheckContext<Parameters>, counter?: StepCounter): RuleHit[] {
  const { transaction, parameters } = context;
  const prepared = prepare(parameters);
  const hits: RuleHit[] = [];
  const origin = transaction.originPaymentDetails;
  const originMatch = origin === undefined ? null : findMatch(origin, prepared, counter);
  if (origin !== undefined && originMatch !== null) {
    hits.push(paymentHit('ORIGIN', origin.method, originMatch));
  }
  const destination = transaction.destinationPaymentDetails;
  const destinationMatch = destination === undefined ? null : findMatch(destination, prepared, counter);
  if (destination !== undefined && destinationMatch !== null) {
    hits.push(paymentHit('DESTINATION', destination.method, destinationMatch));
  }
  return hits;
}

/**
 * R-129 Blacklisted payment details: the origin or destination payment instrument is on a
 * configured blacklist — IBAN accounts (optionally with BIC), card tuples (fingerprint, last 4
 * digits, expiry, name on card) or generic bank accounts — e.g. instruments tied to confirmed
 * fraud, mule accounts or chargebacks. Origin details hit the sender side, destination details the
 * receiver side.
 *
 * Normalisation: IBANs uppercase with spaces removed; BICs likewise, an 11-character `…XXX` BIC
 * equal to its 8-character form; account numbers and bank codes uppercase with spaces and hyphens
 * removed; names and account types case-insensitive with whitespace collapsed; fingerprints, last 4
 * digits and expiry exactly. An entry's optional fields narrow it: when given they must match, and
 * a payment lacking such a field does not match. Descriptions show the method and a masked
 * identifier (`****` + last 4 characters, or only `****` for identifiers shorter than 8 characters
 * and cards without last 4 digits) — never a full account number.
 *
 * Cost: every blacklist is normalised and indexed once per parameters object; a check normalises
 * each identifier of the payment details once and reads only the entries its identifier (or, for
 * cards, its first name on card) selects, plus the card entries without a name (see
 * {@link findBlacklistedPaymentDetails}).
 */
export const r129BlacklistedPaymentDetails = defineRule({
  id: 'R-129',
  name: 'Blacklisted payment details',
  description: 'Origin or destination payment details are on a blacklist.',
  descriptionTemplate: '{{side}} payment details ({{method}} {{identifier}}) are blacklisted.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    blacklistedIBANPaymentDetails: [],
    blacklistedCardPaymentDetails: [],
    blacklistedGenericBankAccountPaymentDetails: [],
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Payment details'],
  types: ['Blacklist'],
  typologies: ['Account takeover', 'Money mules', 'Card fraud'],
  series: [],
  check(context): RuleHit[] {
    return findBlacklistedPaymentDetails(context);
  },
});
