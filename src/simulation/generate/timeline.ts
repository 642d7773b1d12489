/**
 * Puts drafts in time order: a binary min-heap on (timestamp, drafting order). Drafts wait in it
 * only until their time comes, so memory holds about a day of transactions plus the events and
 * scheme payments still ahead, never the whole history.
 */
import type { Draft } from './types.js';

/** A min-heap of drafts ordered by timestamp, then by drafting order. */
export interface Timeline {
  readonly size: number;
  push(draft: Draft): void;
  /** The earliest draft, without removing it. */
  peek(): Draft | undefined;
  /** Removes and returns the earliest draft. */
  pop(): Draft | undefined;
}

function before(a: Draft, b: Draft): boolean {
  return a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.order < b.order);
}

/** Creates an empty timeline. */
export function createTimeline(): Timeline {
  const heap: Draft[] = [];
  const swap = (i: number, j: number) => {
    const t = heap[i] as Draft;
    heap[i] = heap[j] as Draft;
    heap[j] = t;
  };
  return {
    get size() {
      return heap.length;
    },
    push(draft) {
      heap.push(draft);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!before(heap[i] as Draft, heap[parent] as Draft)) break;
        swap(i, parent);
        i = parent;
      }
    },
    peek: () => heap[0],
    pop() {
      const top = heap[0];
      const last = heap.pop();
      if (top === undefined || last === undefined || heap.length === 0) return top;
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && before(heap[left] as Draft, heap[smallest] as Draft)) smallest = left;
        if (right < heap.length && before(heap[right] as Draft, heap[smallest] as Draft)) smallest = right;
        if (smallest === i) break;
        swap(i, smallest);
        i = smallest;
      }
      return top;
    },
  };
}
