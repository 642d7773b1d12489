import { describe, expect, it } from 'vitest';
import { guardRepositories } from '../../src/engine/store-faults.js';
import { createMemoryRepositories, isTxmonError, TxmonError, type Repositories } from '../../src/index.js';

/** Memory repositories declared as a host's (no `reportsStoreFaults`), with `getTransaction` replaced. */
function hostStore(getTransaction: () => Promise<never>, runExclusive?: Repositories['runExclusive']): Repositories {
  const inner = createMemoryRepositories();
  return {
    ...inner,
    transactions: { ...inner.transactions, getTransaction },
    flags: { durable: true, sharedAcrossProcesses: runExclusive !== undefined },
    ...(runExclusive === undefined ? {} : { runExclusive }),
  };
}

describe('guardRepositories', () => {
  it('reports a host store’s own error as STORE_UNAVAILABLE, its cause kept', async () => {
    const cause = new Error('socket hang up');
    const guarded = guardRepositories(hostStore(() => Promise.reject(cause)));
    const error = await guarded.transactions.getTransaction('t-1').catch((e: unknown) => e);
    expect(isTxmonError(error) && error.code).toBe('STORE_UNAVAILABLE');
    expect((error as Error).cause).toBe(cause);
  });

  it('passes a TxmonError through unchanged, and a method that throws synchronously is reported too', async () => {
    const conflict = new TxmonError('CONCURRENT_UPDATE', 'lost a race');
    expect(
      await guardRepositories(hostStore(() => Promise.reject(conflict)))
        .transactions.getTransaction('t')
        .catch((e: unknown) => e),
    ).toBe(conflict);
    const sync = guardRepositories(
      hostStore(() => {
        throw new Error('not connected');
      }),
    );
    await expect(sync.transactions.getTransaction('t')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('leaves repositories that report their own faults as they are (no wrapper on the hot path)', () => {
    const memory = createMemoryRepositories();
    expect(guardRepositories(memory)).toBe(memory);
  });

  it("reports a unit's store failure, but passes on the engine's own error from inside the unit unchanged", async () => {
    const bug = new TypeError('the engine failed');
    const store = hostStore(
      () => Promise.reject(new Error('unreachable')),
      async (_keys, work) => work(createMemoryRepositories()),
    );
    const guarded = guardRepositories(store);
    expect(await guarded.runExclusive?.(['k'], () => Promise.reject(bug)).catch((e: unknown) => e)).toBe(bug);
    const failing = guardRepositories(
      hostStore(
        () => Promise.reject(new Error('x')),
        () => Promise.reject(new Error('deadlock detected')),
      ),
    );
    await expect(failing.runExclusive?.(['k'], async () => 1)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
