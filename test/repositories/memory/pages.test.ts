/** Keyset pages in memory (src/repositories/memory/pages.ts): the count stops at MAX_PAGE_COUNT. */
import { describe, expect, it } from 'vitest';
import { MAX_PAGE_COUNT } from '../../../src/domain/workflow.js';
import { pageOf } from '../../../src/repositories/memory/pages.js';

describe('memory pages', () => {
  it('counts the matching items up to MAX_PAGE_COUNT, and pages them all in key order', () => {
    const items = Array.from({ length: MAX_PAGE_COUNT + 5 }, (_, i) => ({ id: `a-${String(i).padStart(6, '0')}`, at: i }));
    const page = pageOf(items, (item) => ({ value: item.at, id: item.id }), { sortOrder: 'desc', limit: 3 });
    expect(page.count).toBe(MAX_PAGE_COUNT);
    expect(page.items.map((i) => i.at)).toEqual([MAX_PAGE_COUNT + 4, MAX_PAGE_COUNT + 3, MAX_PAGE_COUNT + 2]);
    expect(pageOf(items.slice(0, 7), (item) => ({ value: item.at, id: item.id }), { sortOrder: 'asc', limit: 3 }).count).toBe(7);
  });
});
