/**
 * The batch session's writer (batch-session.ts): writes run one after the other, those that wait
 * while one runs go together in the next, and after a failed write every write asked for fails
 * with its error, at once — none is left unsettled, and `settle` returns.
 */
import { describe, expect, it } from 'vitest';
import { TxmonError } from '../../../src/errors.js';
import { coalescingWriter, MAX_WRITE_RECORDS } from '../../../src/engine/services/batch-session.js';
import type { BatchSession, Repositories, TransactionOutcome } from '../../../src/engine/repositories.js';
import { buildOutcome, buildStoredTransaction, buildTransaction } from '../../../src/testing/index.js';

const outcomes = (prefix: string, n: number): TransactionOutcome[] =>
  Array.from({ length: n }, (_, i) => buildOutcome(buildStoredTransaction(buildTransaction(`${prefix}-${i}`, { origin: 'alice' })), null));

/** A session whose writes each wait for `release()`; what each write got, in order. */
function manualSession(failAt?: number) {
  const writes: string[][] = [];
  const releases: (() => void)[] = [];
  const session = {
    write: async (work: (repos: Repositories) => Promise<unknown>) => {
      const at = writes.length;
      const ids: string[] = [];
      writes.push(ids);
      await new Promise<void>((resolve) => releases.push(resolve));
      if (at === failAt) throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
      const repos = {
        transactions: {
          saveOutcomes: async (list: readonly TransactionOutcome[]) => {
            for (const o of list) ids.push(o.transaction.transaction.transactionId);
            return list.map(() => []);
          },
        },
      } as unknown as Repositories;
      return work(repos);
    },
  } as unknown as BatchSession;
  const release = async () => {
    (releases.shift() as () => void)();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { session, writes, release };
}

describe('the batch session writer', () => {
  it('writes the chunks that wait behind a running write together in the next one, in order, up to the cap', async () => {
    const { session, writes, release } = manualSession();
    const writer = coalescingWriter(session);
    const first = writer.write(outcomes('a', 2));
    const waiting = [writer.write(outcomes('b', 2)), writer.write(outcomes('c', 1)), writer.write(outcomes('d', MAX_WRITE_RECORDS))];
    await release();
    await release();
    await release();
    await Promise.all([first, ...waiting]);
    await writer.settle();
    // b and c together; d alone would pass the cap with them.
    expect(writes.map((w) => w.length)).toEqual([2, 3, MAX_WRITE_RECORDS]);
    expect(writes[1]).toEqual(['b-0', 'b-1', 'c-0']);
    const [b, c] = await Promise.all(waiting);
    // Each write asked for gets the alerts of its own outcomes.
    expect([b?.length, c?.length]).toEqual([2, 1]);
  });

  it('after a failed write fails every write asked for, waiting or new, and settles', async () => {
    const { session, writes, release } = manualSession(0);
    const writer = coalescingWriter(session);
    const failing = writer.write(outcomes('a', 1));
    const waiting = writer.write(outcomes('b', 1));
    failing.catch(() => undefined);
    waiting.catch(() => undefined);
    await release();
    await expect(failing).rejects.toMatchObject({ code: 'CONCURRENT_UPDATE' });
    await expect(waiting).rejects.toMatchObject({ code: 'CONCURRENT_UPDATE' });
    await expect(writer.write(outcomes('c', 1))).rejects.toMatchObject({ code: 'CONCURRENT_UPDATE' });
    await writer.settle();
    // Nothing after the failed write reached the session.
    expect(writes).toHaveLength(1);
  });
});
