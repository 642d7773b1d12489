/** The unit a user write runs in: the user's key, held as its transactions hold it. */
import { TxmonError, isTxmonError } from '../../errors.js';
import type { KeyedLock } from '../concurrency/keyed-lock.js';
import { RULE_INSTANCES_KEY, inStoreUnit } from '../concurrency/store-units.js';
import type { WriterGate } from '../concurrency/writer-gate.js';
import type { Repositories } from '../repositories.js';
import type { CallOptions } from '../types.js';

/** How often a write that lost a race with another writer of the same user is tried again. */
const MAX_RETRIES = 5;

/** What a user write runs on: the repositories and the locks users and transactions share. */
export interface UserUnitContext {
  readonly store: Repositories;
  readonly withLocks: KeyedLock;
  readonly gate: WriterGate;
}

/**
 * Runs `work` holding user `userId`'s key (`u:<userId>`, the key its transactions take): in this
 * process, then — on a store shared across processes — as one unit of the store, tried again whole
 * on `CONCURRENT_UPDATE`. A caller gone by the time its turn comes is not run (`CLIENT_GONE`).
 */
export function inUserUnit<T>(
  context: UserUnitContext,
  userId: string,
  options: CallOptions | undefined,
  work: (repos: Repositories) => Promise<T>,
): Promise<T> {
  const keys = [`u:${userId}`];
  return context.gate.shared(() =>
    context.withLocks(keys, async () => {
      if (options?.signal?.aborted === true) throw new TxmonError('CLIENT_GONE', 'The caller gave up before this call ran: nothing was written');
      for (let attempt = 0; ; attempt++) {
        try {
          return await inStoreUnit(context.store, keys, work, [RULE_INSTANCES_KEY], { userIds: [userId] });
        } catch (error) {
          if (isTxmonError(error) && error.code === 'CONCURRENT_UPDATE' && attempt < MAX_RETRIES) continue;
          throw error;
        }
      }
    }),
  );
}
