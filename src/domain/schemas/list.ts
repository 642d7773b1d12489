/**
 * Lists of values (blacklists and whitelists) that rules and filters check transactions against:
 * R-132 (a transaction value is in a blacklist) and the `whitelistUsers.listIds` filter.
 * Shapes follow the Flagright list types (`ListType` / `ListSubtype`, docs/wire-format.md#lists).
 */
import { Type, type Static } from '@sinclair/typebox';
import { ShortTextSchema, TextSchema, defineClosedObject, defineStringEnum } from './common.js';

/** List types. `FLAGRIGHT_LIBRARY` lists are the vendor's own and not accepted here. */
export const LIST_TYPES = ['BLACKLIST', 'WHITELIST'] as const;
/** What a list's items are; decides which transaction values are looked up in it. */
export const LIST_SUBTYPES = [
  'USER_ID',
  'CARD_FINGERPRINT_NUMBER',
  'IBAN_NUMBER',
  'BANK_ACCOUNT_NUMBER',
  'ACH_ACCOUNT_NUMBER',
  'SWIFT_ACCOUNT_NUMBER',
  'BIC',
  'BANK_SWIFT_CODE',
  'UPI_IDENTIFYING_NUMBER',
  'IP_ADDRESS',
  'DEVICE_IDENTIFIER',
  'COUNTRY',
  'STRING',
  'CUSTOM',
] as const;
/** One of {@link LIST_SUBTYPES}. */
export type ListSubtype = (typeof LIST_SUBTYPES)[number];

/** Largest number of items of one list (txmon's limit). */
export const MAX_LIST_ITEMS = 100_000;

/** Body of `putList`: the whole list (create or replace). */
export const ListRequestSchema = defineClosedObject({
  listType: defineStringEnum(LIST_TYPES),
  subtype: defineStringEnum(LIST_SUBTYPES),
  name: Type.Optional(ShortTextSchema),
  description: Type.Optional(TextSchema),
  items: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_LIST_ITEMS }),
});
/** Body of `putList`. */
export type ListRequest = Static<typeof ListRequestSchema>;
