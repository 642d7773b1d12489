import { fc, test } from '@fast-check/vitest';
import { describe, expect, it, vi } from 'vitest';
import { createKeyedLock } from '../../../src/engine/concurrency/keyed-lock.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createKeyedLock', () => {
  it('runs work on one key one at a time, in arrival order', async () => {
    const withLocks = createKeyedLock();
    const log: string[] = [];
    const job = (name: string) =>
      withLocks(['k'], async () => {
        log.push(`start ${name}`);
        await tick();
        log.push(`end ${name}`);
      });
    await Promise.all([job('a'), job('b'), job('c')]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs work on different keys side by side', async () => {
    const withLocks = createKeyedLock();
    let running = 0;
    let most = 0;
    const job = (key: string) =>
      withLocks([key], async () => {
        running += 1;
        most = Math.max(most, running);
        await tick();
        running -= 1;
      });
    await Promise.all([job('a'), job('b')]);
    expect(most).toBe(2);
  });

  it('refuses with OVERLOADED a call that waited maxWaitMs for its keys, leaves its place, and runs the next caller', async () => {
    const withLocks = createKeyedLock(30);
    let release!: () => void;
    const holding = withLocks(['k'], () => new Promise<void>((resolve) => (release = resolve)));
    const late = withLocks(['k'], async () => 'late');
    await expect(late).rejects.toMatchObject({ code: 'OVERLOADED' });
    const next = withLocks(['k'], async () => 'next');
    release();
    await holding;
    expect(await next).toBe('next');
    // The abandoned waiter held nothing: the key is free afterwards.
    expect(await withLocks(['k'], async () => 'free')).toBe('free');
  });

  it('bounds the wait of a call on several keys in all, not per key', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const withLocks = createKeyedLock(60);
      const releases: (() => void)[] = [];
      const hold = (key: string) => withLocks([key], () => new Promise<void>((resolve) => releases.push(resolve)));
      const held = [hold('a'), hold('b')];
      let outcome = 'waiting';
      const both = withLocks(['a', 'b'], async () => 'both').then(
        () => (outcome = 'ran'),
        (error: { code?: string }) => (outcome = error.code ?? 'error'),
      );
      await vi.advanceTimersByTimeAsync(40);
      releases[0]?.();
      // a was handed over after 40 ms; b is waited for until the call's one deadline, at 60 ms.
      await vi.advanceTimersByTimeAsync(19);
      expect(outcome).toBe('waiting');
      await vi.advanceTimersByTimeAsync(1);
      await both;
      expect(outcome).toBe('OVERLOADED');
      releases[1]?.();
      await Promise.all(held);
    } finally {
      vi.useRealTimers();
    }
  });

  it('releases the keys when the work throws', async () => {
    const withLocks = createKeyedLock();
    await expect(withLocks(['k', 'l'], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withLocks(['k', 'l'], async () => 'next')).toBe('next');
  });

  describe('properties', () => {
    test.prop([fc.array(fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 })])(
      'calls holding sorted key sets all finish, and no key is ever held twice at once',
      async (keySets) => {
        const withLocks = createKeyedLock();
        const holders = new Map<string, number>();
        let overlap = false;
        await Promise.all(
          keySets.map((keys) =>
            withLocks([...keys].sort(), async () => {
              for (const k of keys) {
                holders.set(k, (holders.get(k) ?? 0) + 1);
                if ((holders.get(k) ?? 0) > 1) overlap = true;
              }
              await tick();
              for (const k of keys) holders.set(k, (holders.get(k) ?? 1) - 1);
            }),
          ),
        );
        expect(overlap).toBe(false);
      },
    );
  });
});
