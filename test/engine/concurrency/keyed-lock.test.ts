import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
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
