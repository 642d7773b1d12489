/**
 * The query flags of the public API (the SDK sends them as `"true"` / `"false"`): each route takes
 * its own list; a flag of the API on a route that does not take it (or spelt in another case), a
 * flag with another value, or a flag given twice is refused with a 400 naming it, never silently
 * dropped. Other query parameters are ignored, as on every route (docs/decisions.md, "HTTP").
 */
import { invalidField } from '../errors.js';

/** The flags each route takes, by the engine method it calls. */
export const QUERY_FLAGS = {
  createTransaction: ['validateOriginUserId', 'validateDestinationUserId'],
  createUser: ['validateUserId', 'lockCraRiskLevel', 'lockKycRiskLevel'],
  createUserEvent: ['allowUserTypeConversion', 'lockCraRiskLevel', 'lockKycRiskLevel'],
} as const;

/** Every flag of the API, lower-cased: a name among them is a flag, wherever it is sent. */
const KNOWN_FLAGS: ReadonlySet<string> = new Set(
  Object.values(QUERY_FLAGS)
    .flat()
    .map((name) => name.toLowerCase()),
);

/** What a flag means, for the OpenAPI document. */
export const QUERY_FLAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  validateOriginUserId: '"true": refuse (400 at `/originUserId`) an origin user that was never created',
  validateDestinationUserId: '"true": refuse (400 at `/destinationUserId`) a destination user that was never created',
  validateUserId: '"true": refuse (400 at `/userId`) a userId that is already created instead of updating that user',
  allowUserTypeConversion: 'Only "false" is taken: an event never changes the user type, "true" is refused with a 400',
  lockCraRiskLevel: 'Only "false" is taken: txmon keeps no locked risk levels, "true" is refused with a 400',
  lockKycRiskLevel: 'Only "false" is taken: txmon keeps no locked risk levels, "true" is refused with a 400',
};

/**
 * The flags of `url` that `allowed` names, each `true` or `false`, when each is given once, with
 * value `"true"` or `"false"`, and no other flag of the API is given.
 * @throws TxmonError `VALIDATION_FAILED` naming the first parameter that is not
 */
export function queryFlags<N extends string>(url: URL, allowed: readonly N[]): Partial<Record<N, boolean>> {
  const out: Partial<Record<N, boolean>> = {};
  for (const [name, value] of url.searchParams) {
    if (!(allowed as readonly string[]).includes(name)) {
      if (!KNOWN_FLAGS.has(name.toLowerCase())) continue;
      throw invalidField(
        '',
        'not-allowed',
        `query parameter ${safeName(name)} is not taken by this route${allowed.length > 0 ? ` (it takes ${allowed.join(', ')})` : ''}`,
      );
    }
    if (Object.hasOwn(out, name)) throw invalidField('', 'duplicate', `query parameter ${name} is given more than once`);
    if (value !== 'true' && value !== 'false') throw invalidField('', 'enum', `query parameter ${name} must be "true" or "false"`);
    out[name as N] = value === 'true';
  }
  return out;
}

/** A client's parameter name in a message: printable ASCII, at most 64 characters. */
function safeName(name: string): string {
  const clean = name.replace(/[^\x21-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}
