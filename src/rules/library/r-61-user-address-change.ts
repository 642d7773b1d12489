import { Type } from '@sinclair/typebox';
import { canonicalJson } from '../../domain/canonical-json.js';
import { defineUserRule } from '../define-rule.js';
import type { UserRuleHit } from '../types.js';

const ParametersSchema = Type.Object({}, { additionalProperties: false, title: 'R-61 parameters' });

/**
 * The addresses of a profile as a set of canonical JSON texts: a consumer's
 * `contactDetails.addresses`, a business's `legalEntity.contactDetails.addresses`. No addresses
 * (the field absent, or not a list) is the empty set.
 */
export function addressSetOf(type: 'CONSUMER' | 'BUSINESS' | null, profile: Readonly<Record<string, unknown>> | null): Set<string> {
  if (profile === null) return new Set();
  const owner = type === 'BUSINESS' ? (profile['legalEntity'] as Record<string, unknown> | undefined) : profile;
  const contact = owner?.['contactDetails'] as { addresses?: unknown } | undefined;
  const addresses = contact?.addresses;
  return new Set(Array.isArray(addresses) ? addresses.map((a) => canonicalJson(a)) : []);
}

/**
 * R-61 User address change: the user's addresses differ from those of the version stored before
 * this creation or event — an address added, removed or changed in any field (compared as sets of
 * whole addresses: a reordering is no change; a first address where there was none is one). Never
 * hits on a user's first creation, nor on a profile created for a user only seen in transactions
 * (there is no earlier address to compare with).
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
    const after = addressSetOf(user.type, user.profile);
    const same = before.size === after.size && [...after].every((a) => before.has(a));
    return same ? null : { vars: { userId: user.userId } };
  },
});
