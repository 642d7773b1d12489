import { describe, expect, it } from 'vitest';
import { createWriterGate } from '../../../src/engine/concurrency/writer-gate.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createWriterGate', () => {
  it('runs readers side by side', async () => {
    const gate = createWriterGate();
    let running = 0;
    let most = 0;
    const reader = () =>
      gate.shared(async () => {
        running += 1;
        most = Math.max(most, running);
        await tick();
        running -= 1;
      });
    await Promise.all([reader(), reader(), reader()]);
    expect(most).toBe(3);
  });

  it('a writer waits for the readers in flight, and holds back readers that come while it waits or runs', async () => {
    const gate = createWriterGate();
    const log: string[] = [];
    const first = gate.shared(async () => {
      log.push('reader 1 start');
      await tick();
      await tick();
      log.push('reader 1 end');
    });
    const writer = gate.exclusive(async () => {
      log.push('writer start');
      await tick();
      log.push('writer end');
    });
    const second = gate.shared(async () => {
      log.push('reader 2');
    });
    await Promise.all([first, writer, second]);
    expect(log).toEqual(['reader 1 start', 'reader 1 end', 'writer start', 'writer end', 'reader 2']);
  });

  it('never lets two writers overlap', async () => {
    const gate = createWriterGate();
    let writing = 0;
    let overlap = false;
    const writer = () =>
      gate.exclusive(async () => {
        writing += 1;
        if (writing > 1) overlap = true;
        await tick();
        writing -= 1;
      });
    await Promise.all([writer(), writer(), writer()]);
    expect(overlap).toBe(false);
  });

  it('opens the gate again when a writer or a reader throws', async () => {
    const gate = createWriterGate();
    await expect(gate.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.shared(async () => Promise.reject(new Error('bang')))).rejects.toThrow('bang');
    expect(await gate.exclusive(async () => 'written')).toBe('written');
    expect(await gate.shared(async () => 'read')).toBe('read');
  });
});
