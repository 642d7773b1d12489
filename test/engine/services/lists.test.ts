import { describe, expect, it } from 'vitest';
import { errorOf, testEngine, tx } from '../../helpers.js';

const dirsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

describe('putList', () => {
  it('accepts 100,000 items and refuses 100,001 at /items (counted before de-duplication); refuses forbidden keys; prototype-named items are plain values', async () => {
    const { engine } = testEngine();
    const many = Array.from({ length: 100_000 }, (_, i) => `u-${i}`);
    const stored = await engine.putList('big', { listType: 'BLACKLIST', subtype: 'USER_ID', items: many });
    expect(stored.items).toHaveLength(100_000);
    expect((await engine.putList('dup', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['a', 'b', 'a'] })).items).toEqual(['a', 'b']);
    const tooMany = await errorOf(() => engine.putList('big2', { listType: 'BLACKLIST', subtype: 'USER_ID', items: [...many, 'x'] }));
    expect(tooMany.code).toBe('VALIDATION_FAILED');
    expect(tooMany.details.some((d) => d.path.startsWith('/items'))).toBe(true);
    const polluted = await errorOf(() => engine.putList('p', JSON.parse('{"listType":"BLACKLIST","subtype":"USER_ID","items":[],"__proto__":{"x":1}}')));
    expect(polluted.code).toBe('VALIDATION_FAILED');
    await engine.putList('__proto__', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['constructor', '__proto__'] });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: '__proto__' } });
    expect(dirsOf(await engine.createTransaction(tx({ originUserId: 'constructor', destinationUserId: 'toString' })), 'R-132')).toEqual(['ORIGIN']);
    expect((await engine.listLists()).map((l) => l.listId).sort()).toEqual(['__proto__', 'big', 'dup']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
