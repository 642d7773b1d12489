import { Type } from '@sinclair/typebox';
import { canonicalJson } from '../../domain/canonical-json.js';
import type { RuleEvidence } from '../../domain/index.js';
import { defineUserRule } from '../define-rule.js';
import type { UserRuleHit } from '../types.js';

const ParametersSchema = Type.Object({}, { additionalProperties: false, title: 'R-61 parameters' });

/** The JSON Pointer of a profile's address list: a consumer's, or a business's under its legal entity. */
function addressesPath(type: 'CONSUMER' | 'BUSINESS' | null): string {
  return type === 'BUSINESS' ? '/legalEntity/contactDetails/addresses' : '/contactDetails/addresses';
}

/** A profile's addresses as canonical JSON texts, in their order (empty when absent or not a list). */
function addressListOf(type: 'CONSUMER' | 'BUSINESS' | null, profile: Readonly<Record<string, unknown>> | null): string[] {
  if (profile === null) return [];
  const owner = type === 'BUSINESS' ? (profile['legalEntity'] as Record<string, unknown> | undefined) : profile;
  const contact = owner?.['contactDetails'] as { addresses?: unknown } | undefined;
  const addresses = contact?.addresses;
  return Array.isArray(addresses) ? addresses.map((a) => canonicalJson(a)) : [];
}

/**
 * The addresses of a profile as a set of canonical JSON texts: a consumer's
 * `contactDetails.addresses`, a business's `legalEntity.contactDetails.addresses`. No addresses
 * (the field absent, or not a list) is the empty set.
 */
export function addressSetOf(type: 'CONSUMER' | 'BUSINESS' | null, profile: Readonly<Record<string, unknown>> | null): Set<string> {
  return new Set(addressListOf(type, profile));
}

/**
 * R-61 User address change: the user's addresses differ from those of the version stored before
 * this creation or event — an address added, removed or changed in any field (compared as sets of
 * whole addresses: a reordering is no change; a first address where there was none is one). Never
 * hits on a user's first creation, nor on a profile created for a user only seen in transactions
 * (there is no earlier address to compare with). Its evidence counts the distinct addresses added
 * and removed and gives the positions of the added ones in the new list, never an address.
 */
export const r61UserAddressChange = defineUserRule({
  id: 'R-61',
  name: 'User address change',
  description: "User's address changed compared with the previous version of the user.",
  descriptionTemplate: 'User {{userId}} changed address.',
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ["User's address"],
  types: ['Account activity'],
  typologies: ['Account takeover fraud'],
  check({ user, previousUser }): UserRuleHit | null {
    if (previousUser === null || previousUser.profile === null) return null;
    const before = addressSetOf(previousUser.type, previousUser.profile);
    const list = addressListOf(user.type, user.profile);
    const after = new Set(list);
    const same = before.size === after.size && [...after].every((a) => before.has(a));
    if (same) return null;
    // Positions in the new list of the addresses the previous version did not have; the addresses
    // themselves are not copied (personal data: the user holds them).
    const added: number[] = [];
    for (let i = 0; i < list.length; i++) if (!before.has(list[i] as string)) added.push(i);
    let removed = 0;
    for (const address of before) if (!after.has(address)) removed += 1;
    return {
      vars: { userId: user.userId },
      evidence: [
        {
          direction: 'ORIGIN',
          kind: 'addressChange',
          path: addressesPath(user.type),
          value: added.length + removed,
          comparison: '>',
          limit: 0,
          added,
          removed,
          addressCount: after.size,
          previousAddressCount: before.size,
        } as RuleEvidence,
      ],
    };
  },
});
