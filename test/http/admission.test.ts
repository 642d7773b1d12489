import { describe, expect, it } from 'vitest';
import { createAdmission } from '../../src/http/admission.js';
import { isTxmonError } from '../../src/index.js';

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'entered',
    (error: unknown) => (isTxmonError(error) ? error.code : String(error)),
  );

describe('createAdmission', () => {
  it('lets maxActive requests in at once; the next waits and enters, in arrival order, as turns are given back', async () => {
    const admission = createAdmission({ maxActive: 2, maxQueued: 10, maxWaitMs: 5_000 });
    expect([admission.tryEnter(), admission.tryEnter(), admission.tryEnter()]).toEqual([true, true, false]);
    const order: string[] = [];
    const first = admission.wait(() => false).then(() => order.push('first'));
    const second = admission.wait(() => false).then(() => order.push('second'));
    expect(admission.load).toEqual({ active: 2, queued: 2 });
    admission.leave();
    await first;
    admission.leave();
    await second;
    expect(order).toEqual(['first', 'second']);
    expect(admission.load).toEqual({ active: 2, queued: 0 });
    admission.leave();
    admission.leave();
    expect(admission.load).toEqual({ active: 0, queued: 0 });
  });

  it('refuses at once with OVERLOADED once maxQueued requests wait', async () => {
    const admission = createAdmission({ maxActive: 1, maxQueued: 2, maxWaitMs: 5_000 });
    admission.tryEnter();
    const waiting = [admission.wait(() => false), admission.wait(() => false)];
    expect(await codeOf(admission.wait(() => false))).toBe('OVERLOADED');
    admission.leave();
    admission.leave();
    await Promise.all(waiting);
  });

  it('refuses with OVERLOADED a request that waited maxWaitMs, and gives the next turn to the one behind it', async () => {
    const admission = createAdmission({ maxActive: 1, maxQueued: 5, maxWaitMs: 30 });
    admission.tryEnter();
    expect(await codeOf(admission.wait(() => false))).toBe('OVERLOADED');
    expect(admission.load).toEqual({ active: 1, queued: 0 });
    const later = admission.wait(() => false);
    admission.leave();
    expect(await codeOf(later)).toBe('entered');
  });

  it('does not run a request whose client has gone by its turn (CLIENT_GONE), and passes the turn on', async () => {
    const admission = createAdmission({ maxActive: 1, maxQueued: 5, maxWaitMs: 5_000 });
    admission.tryEnter();
    const gone = codeOf(admission.wait(() => true));
    const next = codeOf(admission.wait(() => false));
    admission.leave();
    expect(await gone).toBe('CLIENT_GONE');
    expect(await next).toBe('entered');
    expect(admission.load).toEqual({ active: 1, queued: 0 });
  });

  it('keeps a long queue first in, first out while it is drained and filled again', async () => {
    const admission = createAdmission({ maxActive: 1, maxQueued: 5_000, maxWaitMs: 60_000 });
    admission.tryEnter();
    const order: number[] = [];
    const waits = Array.from({ length: 3_000 }, (_, i) => admission.wait(() => false).then(() => order.push(i)));
    for (let i = 0; i < 3_000; i++) {
      admission.leave();
      await waits[i];
    }
    expect(order).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
  });

  it.each([{ maxActive: 0 }, { maxQueued: -1 }, { maxWaitMs: 1.5 }])('refuses the setting %o (INVALID_CONFIGURATION)', (setting) => {
    expect(() => createAdmission(setting)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
  });
});
