import { Type, type Static } from '@sinclair/typebox';
import { defineRule } from '../define-rule.js';
import { listedEvidence } from '../kits/evidence.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    merchantNames: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 256,
        pattern: '\\S',
        'x-pattern-message': 'must contain a non-whitespace character',
      }),
      {
        title: 'Blacklisted wallet names',
        description:
          "Names of receivers' wallets to flag. Matching is exact after trimming, Unicode NFC normalisation and lower-casing (no fuzzy or partial matching). An empty list never hits.",
        maxItems: 10000,
      },
    ),
  },
  { additionalProperties: false, title: 'R-13 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

/**
 * The comparison form of a wallet name: NFC-normalised (composed and decomposed accents are the
 * same name), trimmed, lower-cased with the locale-independent `toLowerCase`. Inner whitespace,
 * punctuation and diacritics are kept: this is an exact match, not a fuzzy one.
 */
function normalizeName(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}

// Normalised name → the list entry as configured (rendered as evidence), once per parameters object.
const nameMaps = new WeakMap<object, ReadonlyMap<string, string>>();

function blacklistedNames(parameters: Parameters): ReadonlyMap<string, string> {
  let map = nameMaps.get(parameters);
  if (!map) {
    const built = new Map<string, string>();
    for (const entry of parameters.merchantNames) {
      const key = normalizeName(entry);
      // The first of several entries with the same comparison form is the one shown.
      if (key !== '' && !built.has(key)) built.set(key, entry.trim());
    }
    map = built;
    nameMaps.set(parameters, map);
  }
  return map;
}

/**
 * R-13 Blacklisted receiver's wallet name: the destination payment details are a wallet
 * (`method: WALLET`) whose `name` is on the blacklist — payments to known scam, gambling or
 * fraudulent merchants' wallets (an authorised-push-payment / merchant-fraud typology). Only the
 * receiver side hits. Matching is exact after trimming, NFC normalisation and lower-casing; the
 * description shows the list entry as configured, not the transaction's spelling. The default
 * list is empty, and an empty list never hits.
 *
 * Cost: the list is normalised into a map once per parameters object; a check normalises the
 * wallet name once (NFC emits at most 3 code points per character, UAX #15; the name is at most
 * 256 characters) and looks it up once, whatever the list's length.
 */
export const r13BlacklistedWalletName = defineRule({
  id: 'R-13',
  name: "Blacklisted receiver's wallet name",
  description:
    "Receiver's wallet name is on a blacklist (exact match, ignoring case and surrounding spaces). The default list is empty: the rule never hits until names are configured.",
  descriptionTemplate: "Receiver's wallet name matches blacklisted name {{merchantName}}.",
  parametersSchema: ParametersSchema,
  defaultParameters: { merchantNames: [] },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ["Receiver's wallet name"],
  types: ['Merchant monitoring'],
  typologies: ['Scams', 'Fraudulent merchants'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const details = transaction.destinationPaymentDetails;
    if (details?.method !== 'WALLET' || details.name === undefined) return [];
    const names = blacklistedNames(parameters);
    if (names.size === 0) return [];
    const entry = names.get(normalizeName(details.name));
    if (entry === undefined) return [];
    return [{ direction: 'DESTINATION', vars: { merchantName: entry }, evidence: [listedEvidence('DESTINATION', 'walletName', entry, 'merchantNames')] }];
  },
});
