import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from '../../domain/index.js';
import type { RuleDefinition, RuleHit, RuleUser } from '../types.js';
import { measureBoundedLevenshtein } from './r-24-blacklisted-reference.js';

const ParametersSchema = Type.Object(
  {
    allowedDistancePercentage: Type.Integer({
      minimum: 0,
      maximum: 100,
      title: 'Allowed distance (%)',
      description:
        "The rule hits when the Levenshtein distance between the user's name and the account holder's name on the payment method is more than this percentage of the longer name (in characters, after normalisation). 0 = the names must be equal.",
    }),
    ignoreEmptyName: Type.Optional(
      Type.Boolean({
        title: 'Ignore empty names',
        description:
          "When true, a side where only one of the two names is present (no account holder's name on the payment method, or no name in the user's profile) does not hit. When false or absent, it hits.",
      }),
    ),
  },
  { additionalProperties: false, title: 'R-118 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;
type Direction = 'ORIGIN' | 'DESTINATION';
type PaymentDetails = NonNullable<Transaction['originPaymentDetails']>;

/** Methods whose `name` is the account holder's name (a string). CARD and NPP carry a name object. */
const STRING_NAME_METHODS: ReadonlySet<string> = new Set(['IBAN', 'ACH', 'SWIFT', 'GENERIC_BANK_ACCOUNT', 'CHECK', 'UPI']);
/** Leading honorifics dropped before comparing (`Mr John Smith` is John Smith). */
const TITLES: ReadonlySet<string> = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'dame', 'mme', 'mlle', 'herr', 'frau']);
/** Apostrophes are dropped (`O'Brien` is `obrien`); every other non-letter, non-digit separates words. */
const APOSTROPHES = /['\u2019\u02bc`]/gu;
/** Combining marks on a Latin letter (accents); marks of other scripts (Devanagari vowel signs, kana voicing) are part of the letter. */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** A name, normalised: its words, and (for a person) the words without the middle names. */
interface NameForms {
  /** Normalised words joined by one space, as code points. Empty when there is no name. */
  readonly full: readonly string[];
  /** First and last word(s) only, or `null` when that is `full` or not applicable (businesses). */
  readonly short: readonly string[] | null;
}

/**
 * Words of a name: compatibility-decomposed (NFKD), accents (combining marks on Latin letters)
 * removed and other scripts recomposed (NFC),
 * lower-cased (locale-independent), apostrophes dropped, split on anything that is not a letter
 * or digit, leading honorifics dropped (while another word remains).
 */
export function normalizeNameWords(text: string): string[] {
  const words = text.normalize('NFKD').replace(LATIN_MARKS, '$1').normalize('NFC').toLowerCase().replace(APOSTROPHES, '').match(WORD) ?? [];
  let start = 0;
  while (start < words.length - 1 && TITLES.has(words[start] as string)) start += 1;
  return start === 0 ? words : words.slice(start);
}

function codePoints(words: readonly string[]): string[] {
  return Array.from(words.join(' '));
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A person's name object (`firstName`, `middleName`, `lastName`). */
function personForms(name: unknown): NameForms {
  if (typeof name !== 'object' || name === null) return { full: [], short: null };
  const record = name as Record<string, unknown>;
  const first = normalizeNameWords(textOf(record.firstName));
  const middle = normalizeNameWords(textOf(record.middleName));
  const last = normalizeNameWords(textOf(record.lastName));
  const full = normalizeNameWords([...first, ...middle, ...last].join(' '));
  const short = middle.length > 0 && first.length + last.length > 0 ? normalizeNameWords([...first, ...last].join(' ')) : null;
  return { full: codePoints(full), short: short === null ? null : codePoints(short) };
}

/** A name as one string: the short form is the first and the last word when there are 3 or more. */
function stringForms(name: unknown): NameForms {
  const words = normalizeNameWords(textOf(name));
  const short = words.length >= 3 ? [words[0] as string, words[words.length - 1] as string] : null;
  return { full: codePoints(words), short: short === null ? null : codePoints(short) };
}

/** The account holder's name on payment details, or `undefined` when the method carries none. */
function accountName(details: PaymentDetails | undefined): NameForms | undefined {
  if (!details) return undefined;
  if (details.method === 'CARD') return personForms(details.nameOnCard);
  if (details.method === 'NPP') return personForms(details.name);
  if (STRING_NAME_METHODS.has(details.method)) return stringForms((details as { name?: unknown }).name);
  return undefined;
}

/** The user's name from the stored profile, or `undefined` when there is no profile. */
function userName(user: RuleUser | null): { forms: NameForms; person: boolean } | undefined {
  if (!user?.profile || user.type === null) return undefined;
  if (user.type === 'CONSUMER') {
    const details = user.profile.userDetails as Record<string, unknown> | undefined;
    return { forms: personForms(details?.name), person: true };
  }
  const entity = user.profile.legalEntity as Record<string, unknown> | undefined;
  const general = entity?.companyGeneralDetails as Record<string, unknown> | undefined;
  const words = normalizeNameWords(textOf(general?.legalName));
  return { forms: { full: codePoints(words), short: null }, person: false };
}

/** `distance / length` of one compared pair (length = the longer name). */
interface Difference {
  readonly distance: number;
  readonly length: number;
}

/** The compared pairs: full names, and for persons also the names without middle names. */
function pairsOf(user: NameForms, account: NameForms, person: boolean): [readonly string[], readonly string[]][] {
  const pairs: [readonly string[], readonly string[]][] = [[user.full, account.full]];
  if (person && (user.short !== null || account.short !== null)) pairs.push([user.short ?? user.full, account.short ?? account.full]);
  return pairs;
}

/** `true` when some pair is within `percent` % (distance × 100 ≤ percent × longer length). */
function isWithin(pairs: readonly [readonly string[], readonly string[]][], percent: number): boolean {
  for (const [a, b] of pairs) {
    const length = Math.max(a.length, b.length);
    const bound = Math.floor((percent * length) / 100);
    const [longer, shorter] = a.length >= b.length ? [a, b] : [b, a];
    if (measureBoundedLevenshtein(longer, shorter, bound) <= bound) return true;
  }
  return false;
}

/** The smallest difference over the pairs (exact distances; only computed for a hit's description). */
function smallestDifference(pairs: readonly [readonly string[], readonly string[]][]): Difference {
  let best: Difference | null = null;
  for (const [a, b] of pairs) {
    const length = Math.max(a.length, b.length);
    const [longer, shorter] = a.length >= b.length ? [a, b] : [b, a];
    const distance = measureBoundedLevenshtein(longer, shorter, length);
    if (best === null || distance * best.length < best.distance * length) best = { distance, length };
  }
  return best as Difference;
}

/** A difference as a percentage with two decimals, rounded down. */
function formatDifference(d: Difference): string {
  const hundredths = Math.floor((d.distance * 10_000) / d.length);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}%`;
}

function checkSide(direction: Direction, user: RuleUser | null, details: PaymentDetails | undefined, parameters: Parameters): RuleHit | null {
  const profileName = userName(user);
  if (!profileName) return null;
  const account = accountName(details);
  if (!account) return null;
  const side = direction === 'ORIGIN' ? 'Sender' : 'Receiver';
  const method = (details as PaymentDetails).method;
  const userEmpty = profileName.forms.full.length === 0;
  const accountEmpty = account.full.length === 0;
  if (userEmpty && accountEmpty) return null;
  if (userEmpty || accountEmpty) {
    if (parameters.ignoreEmptyName === true) return null;
    const reason = accountEmpty ? 'the payment method has no account name' : "the user's profile has no name";
    return { direction, vars: { side, method, reason } };
  }
  const pairs = pairsOf(profileName.forms, account, profileName.person);
  if (isWithin(pairs, parameters.allowedDistancePercentage)) return null;
  const reason = `${formatDifference(smallestDifference(pairs))} different, more than the allowed ${parameters.allowedDistancePercentage}%`;
  return { direction, vars: { side, method, reason } };
}

/**
 * R-118 Account name doesn't match user name: the account holder's name on a side's payment
 * method differs from that side's user name (from the stored profile) by more than
 * `allowedDistancePercentage` % — payments through an account in someone else's name: money
 * mules, account takeover, stolen cards (a KYC / "third-party payment" red flag). Checks each side
 * with a stored user profile: the sender against the origin payment details (ORIGIN), the
 * receiver against the destination payment details (DESTINATION).
 *
 * Names: a consumer's `userDetails.name` (first, middle, last) and a business's
 * `legalEntity.companyGeneralDetails.legalName`; on the payment method `nameOnCard` (CARD), `name`
 * (NPP, a name object) or the `name` string of IBAN, ACH, SWIFT, GENERIC_BANK_ACCOUNT, CHECK and
 * UPI. Other methods (WALLET, whose name is the wallet's or merchant's, MPESA, CASH) and sides
 * without a user profile are not checked.
 *
 * Comparison: both names are normalised ({@link normalizeNameWords}: NFKD, diacritics removed,
 * lower case, apostrophes dropped, any other punctuation or whitespace run = one space, leading
 * honorifics dropped) and compared by Levenshtein distance over code points; the difference is
 * distance / length of the longer name, compared exactly in integers (distance × 100 >
 * percentage × length). For a consumer, the names without middle names (first and last words)
 * are compared too and the smaller difference counts. When exactly one of the two names is empty,
 * the side hits unless `ignoreEmptyName`; when both are, it does not.
 */
export const r118AccountNameMismatch: RuleDefinition<Parameters> = {
  id: 'R-118',
  name: "Account name doesn't match user name",
  description: "The account holder's name on the payment method does not match the user's name (Levenshtein distance above the allowed percentage).",
  descriptionTemplate: "{{side}}'s name does not match the account name on the {{method}} payment method: {{reason}}.",
  parametersSchema: ParametersSchema,
  defaultParameters: { allowedDistancePercentage: 30, ignoreEmptyName: false },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Payment details', 'User details'],
  types: ['Identity mismatch'],
  typologies: ['Money mules', 'Account takeover fraud', 'Card fraud'],
  series: [],
  check({ transaction, parameters, originUser, destinationUser }): RuleHit[] {
    const hits: RuleHit[] = [];
    const origin = checkSide('ORIGIN', originUser, transaction.originPaymentDetails, parameters);
    if (origin) hits.push(origin);
    const destination = checkSide('DESTINATION', destinationUser, transaction.destinationPaymentDetails, parameters);
    if (destination) hits.push(destination);
    return hits;
  },
};
