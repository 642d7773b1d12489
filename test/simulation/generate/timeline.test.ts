import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { createTimeline } from '../../../src/simulation/generate/timeline.js';
import type { DraftTransaction } from '../../../src/simulation/generate/types.js';

const draft = (timestamp: number, order: number): DraftTransaction =>
  ({ kind: 'transaction', timestamp, order, body: { type: 'TRANSFER', timestamp }, events: [], label: null }) as DraftTransaction;

describe('createTimeline', () => {
  test.prop([fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 })])('pops by timestamp, then drafting order', (timestamps) => {
    const timeline = createTimeline();
    for (const [order, t] of timestamps.entries()) timeline.push(draft(t, order));
    const out: [number, number][] = [];
    for (let next = timeline.pop(); next !== undefined; next = timeline.pop()) out.push([next.timestamp, next.order]);
    const expected = timestamps.map((t, order) => [t, order] as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(out).toEqual(expected);
    expect(timeline.size).toBe(0);
  });
});
