import { describe, expect, it } from 'vitest';
import {
  buildAuditEntry,
  diffAuditFields,
  listItemChanges,
  MAX_AUDIT_LIST_ITEMS,
  MAX_AUDIT_SIDE_CHARS,
  MAX_AUDIT_VALUE_CHARS,
} from '../../src/domain/audit.js';

describe('diffAuditFields', () => {
  it.each([
    {
      name: 'a create: every field after, nothing before',
      before: null,
      after: { a: 1, b: [1] },
      expected: { before: {}, after: { a: 1, b: [1] }, omittedFields: [] },
    },
    { name: 'a delete: every field before, nothing after', before: { a: 1 }, after: null, expected: { before: { a: 1 }, after: {}, omittedFields: [] } },
    {
      name: 'an update: only the changed fields, a removed field absent after, an added one absent before',
      before: { same: { x: 1, y: 2 }, changed: 1, gone: 'g' },
      after: { same: { y: 2, x: 1 }, changed: 2, added: true },
      expected: { before: { changed: 1, gone: 'g' }, after: { changed: 2, added: true }, omittedFields: [] },
    },
    { name: 'no change', before: { a: [1, 2] }, after: { a: [1, 2] }, expected: { before: {}, after: {}, omittedFields: [] } },
  ])('$name', ({ before, after, expected }) => {
    expect(diffAuditFields(before, after)).toEqual(expected);
  });

  it('leaves out, naming it, a value over the value limit and the fields past the side limit; what it keeps stays within the limits', () => {
    const big = 'x'.repeat(MAX_AUDIT_VALUE_CHARS);
    const near = 'y'.repeat(MAX_AUDIT_VALUE_CHARS - 10);
    const after: Record<string, unknown> = { a: big, small: 1 };
    for (let i = 0; i < 6; i++) after[`f${i}`] = near;
    const diff = diffAuditFields({}, after);
    expect(diff.omittedFields).toContain('a');
    expect(diff.after['small']).toBe(1);
    expect(JSON.stringify(diff.after).length).toBeLessThanOrEqual(MAX_AUDIT_SIDE_CHARS + 200);
    expect(diff.omittedFields.length + Object.keys(diff.after).length).toBe(8);
    expect(diff.omittedFields.filter((f) => f.startsWith('f')).length).toBeGreaterThan(0);
  });

  it('returns copies: changing the result changes neither snapshot', () => {
    const after = { nested: { v: 1 } };
    const diff = diffAuditFields(null, after);
    (diff.after['nested'] as { v: number }).v = 2;
    expect(after.nested.v).toBe(1);
  });
});

describe('listItemChanges', () => {
  it('names removed and added items in list order, at most MAX_AUDIT_LIST_ITEMS, with exact counts', () => {
    expect(listItemChanges(['a', 'b'], ['b', 'c'])).toEqual({
      before: { itemsRemoved: ['a'], itemsRemovedCount: 1 },
      after: { itemsAdded: ['c'], itemsAddedCount: 1 },
    });
    expect(listItemChanges(['a'], ['a'])).toEqual({ before: {}, after: {} });
    const many = Array.from({ length: 250 }, (_, i) => `v${i}`);
    const changes = listItemChanges([], many);
    expect(changes.after['itemsAdded']).toEqual(many.slice(0, MAX_AUDIT_LIST_ITEMS));
    expect(changes.after['itemsAddedCount']).toBe(250);
  });
});

describe('buildAuditEntry', () => {
  it('builds the entry of a change, omittedFields only when a value was left out', () => {
    const context = { auditId: 'au-1', actor: 'alice', timestamp: 5 };
    expect(buildAuditEntry({ entityType: 'LIST', entityId: 'l', action: 'UPDATE', before: { n: 1 }, after: { n: 2 } }, context)).toEqual({
      auditId: 'au-1',
      entityType: 'LIST',
      entityId: 'l',
      action: 'UPDATE',
      actor: 'alice',
      timestamp: 5,
      before: { n: 1 },
      after: { n: 2 },
    });
    const entry = buildAuditEntry(
      { entityType: 'LIST', entityId: 'l', action: 'CREATE', before: null, after: { big: 'x'.repeat(MAX_AUDIT_VALUE_CHARS + 1) } },
      context,
    );
    expect([entry.after, entry.omittedFields]).toEqual([{}, ['big']]);
  });
});
