/**
 * User events (`POST /events/consumer/user`, `POST /events/business/user`): the user's attributes
 * patched as a JSON Merge Patch, like a transaction event's; a late event is folded in timestamp order.
 */
import type { UserType } from '../../domain/entities.js';
import { BusinessUserSchema, ConsumerUserSchema, type BusinessUser, type ConsumerUser } from '../../domain/index.js';
import { cloneJson } from '../../domain/json.js';
import { TxmonError, isTxmonError } from '../../errors.js';
import { createLazyValidator } from '../../validation/index.js';
import { mergeInto } from './apply-event.js';

/** Fields a user event can never change. */
export const IMMUTABLE_USER_FIELDS = ['userId', 'createdTimestamp'] as const;

/** A user event as the fold reads it: its timestamp, arrival and patch. */
export interface SequencedUserPatch {
  readonly timestamp: number;
  /** Arrival order among the user's events (0, 1, 2, …): the tie-break of equal timestamps. */
  readonly arrival: number;
  readonly patch: Record<string, unknown> | undefined;
}

const validateConsumer = createLazyValidator(ConsumerUserSchema, { what: 'consumer user event', safeJson: false });
const validateBusiness = createLazyValidator(BusinessUserSchema, { what: 'business user event', safeJson: false });

/** Where a user event's patch is in its body. */
export function userPatchPath(type: UserType): string {
  return type === 'BUSINESS' ? '/updatedBusinessUserAttributes' : '/updatedConsumerUserAttributes';
}

/**
 * Refuses a patch that changes an identity field of `profile`.
 * @throws TxmonError `IMMUTABLE_FIELD` at the field under the patch's path
 */
export function assertUserIdentityKept(profile: ConsumerUser | BusinessUser, patch: Record<string, unknown> | undefined, type: UserType): void {
  if (patch === undefined) return;
  for (const field of IMMUTABLE_USER_FIELDS) {
    if (field in patch && patch[field] !== (profile as Record<string, unknown>)[field]) {
      throw new TxmonError('IMMUTABLE_FIELD', `Invalid request: ${field} cannot be changed by an event`, [
        { path: `${userPatchPath(type)}/${field}`, code: 'immutable', message: 'cannot be changed by an event' },
      ]);
    }
  }
}

/**
 * The user after a new event: `patch` merged into `profile` (RFC 7396), then — for a late event,
 * one older than events already folded — the patches of those `later` events merged again in
 * (timestamp, arrival) order. A merge patch sets every node it names, so merging the later patches
 * again gives what folding all events in timestamp order gives. Pure: the inputs are not changed.
 *
 * @throws TxmonError `IMMUTABLE_FIELD` (400) when the patch changes `userId` or `createdTimestamp`
 * @throws TxmonError `VALIDATION_FAILED` (400) when the merged user is not a valid user of `type`
 *   (paths under the patch's field)
 */
export function applyUserPatch<P extends ConsumerUser | BusinessUser>(
  profile: P,
  patch: Record<string, unknown> | undefined,
  type: UserType,
  later: readonly SequencedUserPatch[] = [],
): P {
  assertUserIdentityKept(profile, patch, type);
  const next = cloneJson(profile) as Record<string, unknown>;
  if (patch !== undefined) mergeInto(next, patch);
  const ordered = [...later].sort((a, b) => a.timestamp - b.timestamp || a.arrival - b.arrival);
  for (const { patch: again } of ordered) if (again !== undefined) mergeInto(next, again);
  try {
    return (type === 'BUSINESS' ? validateBusiness(next) : validateConsumer(next)) as P;
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    const base = userPatchPath(type);
    const details = error.details.map((d) => ({ ...d, path: `${base}${d.path}` }));
    const first = details[0];
    throw new TxmonError('VALIDATION_FAILED', `Invalid user event: ${first ? `${first.path} ${first.message}` : 'the updated user is invalid'}`, details);
  }
}
