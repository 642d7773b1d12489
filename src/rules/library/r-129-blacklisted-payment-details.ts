import { Type, type Static } from '@sinclair/typebox';
import type { PaymentDetails } from '../../domain/index.js';
import type { RuleDefinition, RuleHit } from '../types.js';

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
      Type.String({ pattern: '^[0-9]{4}$', 'x-pattern-message': 'must be exactly 4 digits', title: 'Last 4 digits', description: 'Last four digits of the card number.' }),
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
            Type.String({ minLength: 1, maxLength: 256, title: 'Last name', description: 'When given, must match too (case-insensitive, whitespace collapsed).' }),
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

interface Prepared {
  /** Normalised IBAN → normalised BICs required (`null`: any BIC). */
  readonly ibans: ReadonlyMap<string, readonly (string | null)[]>;
  readonly cards: readonly CardEntry[];
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
  const prepared: Prepared = { ibans, cards: parameters.blacklistedCardPaymentDetails ?? [], accounts };
  preparedCache.set(parameters, prepared);
  return prepared;
}

/** `****` plus the last 4 characters, only when the identifier is at least 8 long (else fully masked). */
function maskIdentifier(value: string): string {
  return value.length >= 8 ? `****${value.slice(-4)}` : '****';
}

type CardPayment = Extract<PaymentDetails, { method: 'CARD' }>;

/** Whether every field the entry gives equals the card's (a field the card lacks never matches). */
function matchesCard(entry: CardEntry, card: CardPayment): boolean {
  if (entry.cardFingerprint !== undefined && entry.cardFingerprint !== card.cardFingerprint) return false;
  if (entry.cardLast4Digits !== undefined && entry.cardLast4Digits !== card.cardLast4Digits) return false;
  if (entry.cardExpiry !== undefined) {
    const expiry = card.cardExpiry;
    if (expiry?.month !== entry.cardExpiry.month || expiry.year !== entry.cardExpiry.year) return false;
  }
  if (entry.nameOnCard !== undefined) {
    const name = card.nameOnCard;
    if (name === undefined || normalizeText(name.firstName) !== normalizeText(entry.nameOnCard.firstName)) return false;
    if (entry.nameOnCard.lastName !== undefined) {
      if (name.lastName === undefined || normalizeText(name.lastName) !== normalizeText(entry.nameOnCard.lastName)) return false;
    }
  }
  return true;
}

/** The masked identifier of the blacklisted details, or `null` when they are not blacklisted. */
function findMatch(details: PaymentDetails, prepared: Prepared): string | null {
  switch (details.method) {
    case 'IBAN': {
      if (details.IBAN === undefined) return null;
      const iban = normalizeIban(details.IBAN);
      const bics = prepared.ibans.get(iban);
      if (bics === undefined) return null;
      const bic = details.BIC === undefined ? undefined : normalizeBic(details.BIC);
      return bics.some((b) => b === null || b === bic) ? maskIdentifier(iban) : null;
    }
    case 'CARD': {
      const card = details;
      if (!prepared.cards.some((entry) => matchesCard(entry, card))) return null;
      return card.cardLast4Digits === undefined ? '****' : `****${card.cardLast4Digits}`;
    }
    case 'GENERIC_BANK_ACCOUNT': {
      if (details.accountNumber === undefined) return null;
      const account = normalizeAccount(details.accountNumber);
      const entries = prepared.accounts.get(account);
      if (entries === undefined) return null;
      const bankCode = details.bankCode === undefined ? undefined : normalizeAccount(details.bankCode);
      const accountType = details.accountType === undefined ? undefined : normalizeText(details.accountType);
      const hit = entries.some(
        (e) => (e.bankCode === undefined || e.bankCode === bankCode) && (e.accountType === undefined || e.accountType === accountType),
      );
      return hit ? maskIdentifier(account) : null;
    }
    default:
      return null;
  }
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
 */
export const r129BlacklistedPaymentDetails: RuleDefinition<Parameters> = {
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
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Payment details'],
  types: ['Blacklist'],
  typologies: ['Account takeover', 'Money mules', 'Card fraud'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const prepared = prepare(parameters);
    const hits: RuleHit[] = [];
    const origin = transaction.originPaymentDetails;
    const originMatch = origin === undefined ? null : findMatch(origin, prepared);
    if (origin !== undefined && originMatch !== null) {
      hits.push({ direction: 'ORIGIN', vars: { side: 'Origin', method: origin.method, identifier: originMatch } });
    }
    const destination = transaction.destinationPaymentDetails;
    const destinationMatch = destination === undefined ? null : findMatch(destination, prepared);
    if (destination !== undefined && destinationMatch !== null) {
      hits.push({ direction: 'DESTINATION', vars: { side: 'Destination', method: destination.method, identifier: destinationMatch } });
    }
    return hits;
  },
};
