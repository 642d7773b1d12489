import { Type, type Static } from '@sinclair/typebox';
import { SCHEMA_LIMITS, type ListSubtype, type Transaction } from '../../domain/index.js';
import { defineRule } from '../define-rule.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import type { LookupNeed, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    blacklistId: Type.String({
      minLength: 1,
      maxLength: SCHEMA_LIMITS.ID_MAX_LENGTH,
      title: 'Blacklist',
      description:
        'Id of the BLACKLIST (engine.putList) whose items are looked up; a whitelist of that id never matches. The list subtype decides which transaction value is checked: USER_ID, CARD_FINGERPRINT_NUMBER, IBAN_NUMBER, BIC, BANK_ACCOUNT_NUMBER, ACH_ACCOUNT_NUMBER, SWIFT_ACCOUNT_NUMBER, BANK_SWIFT_CODE, UPI_IDENTIFYING_NUMBER, IP_ADDRESS, DEVICE_IDENTIFIER or COUNTRY.',
    }),
  },
  { additionalProperties: false, title: 'R-132 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

type Side = 'origin' | 'destination';

/** A candidate value of one side: its list subtype, the value and its JSON Pointer in the transaction. */
interface Candidate {
  readonly subtype: ListSubtype;
  readonly value: string;
  readonly path: string;
}

/** One side's candidate values, by list subtype (only those the transaction carries). */
function candidates(transaction: Transaction, side: Side): Candidate[] {
  const out: Candidate[] = [];
  const add = (subtype: ListSubtype, value: unknown, path: string) => {
    if (typeof value === 'string' && value !== '') out.push({ subtype, value, path });
  };
  const origin = side === 'origin';
  add('USER_ID', origin ? transaction.originUserId : transaction.destinationUserId, `/${side}UserId`);
  const payment = (origin ? transaction.originPaymentDetails : transaction.destinationPaymentDetails) as Record<string, unknown> | undefined;
  const paymentPath = `/${side}PaymentDetails`;
  switch (payment?.['method']) {
    case 'CARD':
      add('CARD_FINGERPRINT_NUMBER', payment['cardFingerprint'], `${paymentPath}/cardFingerprint`);
      break;
    case 'IBAN':
      add('IBAN_NUMBER', payment['IBAN'], `${paymentPath}/IBAN`);
      add('BIC', payment['BIC'], `${paymentPath}/BIC`);
      break;
    case 'GENERIC_BANK_ACCOUNT':
      add('BANK_ACCOUNT_NUMBER', payment['accountNumber'], `${paymentPath}/accountNumber`);
      break;
    case 'ACH':
      add('ACH_ACCOUNT_NUMBER', payment['accountNumber'], `${paymentPath}/accountNumber`);
      break;
    case 'SWIFT':
      add('SWIFT_ACCOUNT_NUMBER', payment['accountNumber'], `${paymentPath}/accountNumber`);
      add('BANK_SWIFT_CODE', payment['swiftCode'], `${paymentPath}/swiftCode`);
      break;
    case 'UPI':
      add('UPI_IDENTIFYING_NUMBER', payment['upiID'], `${paymentPath}/upiID`);
      break;
    default:
      break;
  }
  const device = origin ? transaction.originDeviceData : transaction.destinationDeviceData;
  add('IP_ADDRESS', device?.ipAddress, `/${side}DeviceData/ipAddress`);
  add('DEVICE_IDENTIFIER', device?.deviceIdentifier, `/${side}DeviceData/deviceIdentifier`);
  add('COUNTRY', (origin ? transaction.originAmountDetails : transaction.destinationAmountDetails)?.country, `/${side}AmountDetails/country`);
  return out;
}

/** Subtypes whose values are account numbers: their evidence shows them masked, as R-129 does. */
const MASKED: ReadonlySet<ListSubtype> = new Set<ListSubtype>([
  'IBAN_NUMBER',
  'BANK_ACCOUNT_NUMBER',
  'ACH_ACCOUNT_NUMBER',
  'SWIFT_ACCOUNT_NUMBER',
  'UPI_IDENTIFYING_NUMBER',
]);

/**
 * The evidence of a match: the value (an account number masked, `****` plus its last 4 characters
 * when it has at least 8), where the transaction holds it (`path`), and the list: `limit` points at
 * the parameter naming it, `listId` is its id.
 */
function matchEvidence(direction: 'ORIGIN' | 'DESTINATION', match: Candidate, listId: string): RuleEvidence {
  const value = MASKED.has(match.subtype) ? (match.value.length >= 8 ? `****${match.value.slice(-4)}` : '****') : match.value;
  return {
    direction,
    kind: 'listedValue',
    field: match.subtype,
    path: match.path,
    value,
    comparison: 'in',
    limit: '/parameters/blacklistId',
    listId,
  } as RuleEvidence;
}

const SIDES: readonly Side[] = ['origin', 'destination'];

/**
 * R-132 Blacklist transaction related value: a value of the transaction — a user id, card
 * fingerprint, IBAN or BIC, account number, SWIFT code, UPI id, IP address, device identifier or
 * country — is on blacklist `blacklistId` (internal blacklists typology). The list's subtype
 * decides which value is checked (an IBAN list never matches a user id with the same text); values
 * compare exactly. A match on the sender's side hits ORIGIN, on the receiver's DESTINATION. An
 * unknown list, a WHITELIST, or a list of subtype STRING / CUSTOM never hits. Default action BLOCK.
 * Lists live in the list repository (`engine.putList`; in memory by default).
 */
export const r132BlacklistedTransactionValue = defineRule({
  id: 'R-132',
  name: 'Blacklist transaction related value',
  description: 'A value of the transaction (user id, card fingerprint, IBAN, account number, IP address, device id …) is on a blacklist.',
  descriptionTemplate: "The {{side}}'s {{what}} is on blacklist {{list}}.",
  parametersSchema: ParametersSchema,
  defaultParameters: {} as Parameters,
  defaultAction: 'BLOCK',
  defaultNature: 'FRAUD',
  checksFor: ['Blacklist'],
  types: ['Blacklist'],
  typologies: ['Internal blacklists'],
  series: [],
  lookups({ transaction, parameters }): LookupNeed[] {
    const out: LookupNeed[] = [];
    for (const side of SIDES) {
      for (const c of candidates(transaction, side))
        out.push({ name: `${side}:${c.subtype}`, listId: parameters.blacklistId, listType: 'BLACKLIST', subtype: c.subtype, value: c.value });
    }
    return out;
  },
  check({ transaction, parameters, lookups }): RuleHit[] {
    if (!lookups) return [];
    const hits: RuleHit[] = [];
    for (const side of SIDES) {
      const match = candidates(transaction, side).find((c) => lookups[`${side}:${c.subtype}`] === true);
      if (!match) continue;
      const direction = side === 'origin' ? 'ORIGIN' : 'DESTINATION';
      hits.push({
        direction,
        vars: { side: side === 'origin' ? 'sender' : 'receiver', what: WHAT[match.subtype], list: parameters.blacklistId },
        evidence: [matchEvidence(direction, match, parameters.blacklistId)],
      });
    }
    return hits;
  },
});

const WHAT: Readonly<Record<ListSubtype, string>> = {
  USER_ID: 'user id',
  CARD_FINGERPRINT_NUMBER: 'card fingerprint',
  IBAN_NUMBER: 'IBAN',
  BANK_ACCOUNT_NUMBER: 'bank account number',
  ACH_ACCOUNT_NUMBER: 'ACH account number',
  SWIFT_ACCOUNT_NUMBER: 'SWIFT account number',
  BIC: 'BIC',
  BANK_SWIFT_CODE: 'bank SWIFT code',
  UPI_IDENTIFYING_NUMBER: 'UPI id',
  IP_ADDRESS: 'IP address',
  DEVICE_IDENTIFIER: 'device identifier',
  COUNTRY: 'country',
  STRING: 'value',
  CUSTOM: 'value',
};
