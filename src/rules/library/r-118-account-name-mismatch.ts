import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from '../../domain/index.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import { measureBoundedLevenshtein, type StepCounter } from '../bounded-levenshtein.js';
import { defineRule } from '../define-rule.js';
import { percentOf } from '../kits/side-counts.js';
import type { RuleCheckContext, RuleHit, RuleUser } from '../types.js';

/**
 * Code points of a normalised name that are compared: the schema's limit on one name field. NFKD
 * can expand one character into up to 18 (U+FDFA), and a person's name joins three fields, so
 * without it a name could reach 13,824 code points and one comparison about 2,900 times the work
 * of two 256-code-point names.
 */
export const MAX_COMPARED_NAME_LENGTH = 256;

const ParametersSchema = Type.Object(
  {
    allowedDistancePercentage: Type.Integer({
      minimum: 0,
      maximum: 100,
      title: 'Allowed distance (%)',
      description: `The rule hits when the Levenshtein distance between the user's name and the account holder's name on the payment method is more than this percentage of the longer name (in characters, after normalisation; each normalised name is compared on its first ${MAX_COMPARED_NAME_LENGTH} characters). 0 = the names must be equal.`,
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
  /**
   * Normalised words joined by one space, as code points, cut to the first
   * {@link MAX_COMPARED_NAME_LENGTH}. Empty when there is no name.
   */
  readonly full: readonly number[];
  /** First and last word(s) only (cut the same way), or `null` when that is `full` or not applicable (businesses). */
  readonly short: readonly number[] | null;
}

/**
 * Words of a name: compatibility-decomposed (NFKD), apostrophes dropped, accents (combining
 * marks on Latin letters) removed, lower-cased (locale-independent) and recomposed (NFC, which
 * keeps the marks of other scripts on their letters), split on anything that is not a letter or
 * digit, leading honorifics dropped (while another word remains).
 *
 * The steps run in this order so that normalising the output again changes nothing: apostrophes
 * go before accents, so an apostrophe between a letter and an accent cannot leave the accent
 * behind, and lower-casing goes before composition, because the lower case of a composed
 * character need not be composed (Greek capital iota with dialytika, then tonos).
 */
export function normalizeNameWords(text: string): string[] {
  return dropTitles(text.normalize('NFKD').replace(APOSTROPHES, '').replace(LATIN_MARKS, '$1').toLowerCase().normalize('NFC').match(WORD) ?? []);
}

/**
 * Drops leading honorifics while another word remains. Applied to words that are already
 * normalised, it gives what {@link normalizeNameWords} of their join gives (normalisation is
 * idempotent on its output), so a name is normalised once.
 */
function dropTitles(words: string[]): string[] {
  let start = 0;
  while (start < words.length - 1 && TITLES.has(words[start] as string)) start += 1;
  return start === 0 ? words : words.slice(start);
}

/** The words joined by one space, as code points, cut to the first {@link MAX_COMPARED_NAME_LENGTH}. */
function codePoints(words: readonly string[]): number[] {
  const out: number[] = [];
  for (const word of words) {
    if (out.length > 0) {
      if (out.length === MAX_COMPARED_NAME_LENGTH) break;
      out.push(0x20);
    }
    for (const c of word) {
      if (out.length === MAX_COMPARED_NAME_LENGTH) return out;
      out.push(c.codePointAt(0) as number);
    }
  }
  return out;
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
  const full = dropTitles([...first, ...middle, ...last]);
  const short = middle.length > 0 && first.length + last.length > 0 ? dropTitles([...first, ...last]) : null;
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
function pairsOf(user: NameForms, account: NameForms, person: boolean): [readonly number[], readonly number[]][] {
  const pairs: [readonly number[], readonly number[]][] = [[user.full, account.full]];
  if (person && (user.short !== null || account.short !== null)) pairs.push([user.short ?? user.full, account.short ?? account.full]);
  return pairs;
}

/**
 * The smallest difference over the pairs, each pair measured once (exactly: a distance never
 * exceeds the longer length, so that is the bound).
 */
function smallestDifference(pairs: readonly [readonly number[], readonly number[]][], counter: StepCounter | undefined): Difference {
  let best: Difference | null = null;
  for (const [a, b] of pairs) {
    const length = Math.max(a.length, b.length);
    const distance = measureBoundedLevenshtein(a, b, length, counter);
    if (best === null || distance * best.length < best.distance * length) best = { distance, length };
  }
  return best as Difference;
}

/** A difference as a percentage with two decimals, rounded down. */
function formatDifference(d: Difference): string {
  const hundredths = Math.floor((d.distance * 10_000) / d.length);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}%`;
}

function checkSide(
  direction: Direction,
  user: RuleUser | null,
  details: PaymentDetails | undefined,
  parameters: Parameters,
  counter: StepCounter | undefined,
): RuleHit | null {
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
    // The name that is empty (its normalised length 0); the other is not copied (personal data).
    const evidence = {
      direction,
      kind: 'nameLength',
      field: accountEmpty ? 'accountName' : 'userName',
      method,
      value: 0,
      comparison: '=',
      limit: 0,
    } as RuleEvidence;
    return { direction, vars: { side, method, reason }, evidence: [evidence] };
  }
  const difference = smallestDifference(pairsOf(profileName.forms, account, profileName.person), counter);
  // Exact in integers: distance / length ≤ percentage / 100 ⇔ distance × 100 ≤ percentage × length.
  if (difference.distance * 100 <= parameters.allowedDistancePercentage * difference.length) return null;
  const reason = `${formatDifference(difference)} different, more than the allowed ${parameters.allowedDistancePercentage}%`;
  // The rule's exact comparison: distance > allowed % of the longer name's length (an exact
  // decimal), over the closest pair; the names themselves are not copied (personal data).
  const evidence = {
    direction,
    kind: 'nameDistance',
    method,
    value: difference.distance,
    comparison: '>',
    limit: percentOf(parameters.allowedDistancePercentage, difference.length),
    length: difference.length,
  } as RuleEvidence;
  return { direction, vars: { side, method, reason }, evidence: [evidence] };
}

/**
 * R-118's check as a pure function (see {@link r118AccountNameMismatch}), adding its work to
 * `counter`: the block steps of the Levenshtein distance ({@link measureBoundedLevenshtein}) of
 * each compared pair. At most 2 sides × 2 pairs, each of two names of at most
 * {@link MAX_COMPARED_NAME_LENGTH} = 256 code points: 4 × (256 + ⌈256/32⌉ · 256) = 9,216 steps per
 * transaction, whatever the names hold. Normalising a name is linear in its length (NFKD emits at
 * most 18 code points per character, UAX #15), and each name field is normalised once.
 */
export function findAccountNameMismatches(context: RuleCheckContext<Parameters>, counter?: StepCounter): RuleHit[] {
  const { transaction, parameters, originUser, destinationUser } = context;
  const hits: RuleHit[] = [];
  const origin = checkSide('ORIGIN', originUser, transaction.originPaymentDetails, parameters, counter);
  if (origin) hits.push(origin);
  const destination = checkSide('DESTINATION', destinationUser, transaction.destinationPaymentDetails, parameters, counter);
  if (destination) hits.push(destination);
  return hits;
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
 * honorifics dropped), cut to their first {@link MAX_COMPARED_NAME_LENGTH} code points (the
 * schema's limit on one name field; only text that NFKD expands, such as U+FDFA, or a long middle
 * name reaches it) and compared by Levenshtein distance over code points; the difference is
 * distance / length of the longer name, compared exactly in integers (distance × 100 >
 * percentage × length). For a consumer, the names without middle names (first and last words)
 * are compared too and the smaller difference counts. When exactly one of the two names is empty,
 * the side hits unless `ignoreEmptyName`; when both are, it does not.
 *
 * Cost: at most 4 distances between names of at most 256 code points per transaction, each
 * bit-parallel in ⌈256/32⌉ block steps per code point (see {@link findAccountNameMismatches}).
 */
export const r118AccountNameMismatch = defineRule({
  id: 'R-118',
  name: "Account name doesn't match user name",
  description: "The account holder's name on the payment method does not match the user's name (Levenshtein distance above the allowed percentage).",
  descriptionTemplate: "{{side}}'s name does not match the account name on the {{method}} payment method: {{reason}}.",
  parametersSchema: ParametersSchema,
  defaultParameters: { allowedDistancePercentage: 30, ignoreEmptyName: false },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Payment details', 'User details'],
  types: ['Identity mismatch'],
  typologies: ['Money mules', 'Account takeover fraud', 'Card fraud'],
  series: [],
  check(context): RuleHit[] {
    return findAccountNameMismatches(context);
  },
});
