import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryRepositories } from '../../../src/index.js';
import { errorOf, fixedClock, sequentialIds, T0, testEngine } from '../../helpers.js';

const list = (items: string[]) => ({ listType: 'BLACKLIST' as const, subtype: 'USER_ID' as const, items });

describe('listAuditLog: what each change through the engine appends', () => {
  it('rule instances: create, update and delete, each one entry with the actor passed (else system) and only the changed fields', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance(
      { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 50 } } },
      { actor: 'alice@bank.example' },
    );
    await engine.updateRuleInstance(created.id, { parameters: { transactionAmountThreshold: { EUR: 500 } } }, { actor: 'bob@bank.example' });
    await engine.deleteRuleInstance(created.id);
    const { items, count } = await engine.listAuditLog({ entityType: 'RULE_INSTANCE' });
    expect(count).toBe(3);
    expect(items.map((e) => [e.action, e.entityId, e.actor])).toEqual([
      ['CREATE', created.id, 'alice@bank.example'],
      ['UPDATE', created.id, 'bob@bank.example'],
      ['DELETE', created.id, 'system'],
    ]);
    const [create, update, remove] = items;
    expect(create?.before).toEqual({});
    expect(create?.after).toMatchObject({ id: created.id, ruleId: 'R-2', version: 1, status: 'ACTIVE' });
    expect(create?.after).not.toHaveProperty('runCount');
    // Only what changed: the parameters (and their derived per-level copies) and the version.
    expect(Object.keys(update?.before ?? {}).sort()).toEqual(['parameters', 'riskLevelParameters', 'version']);
    expect(update?.before['parameters']).toEqual({ transactionAmountThreshold: { EUR: 50 } });
    expect(update?.after['parameters']).toEqual({ transactionAmountThreshold: { EUR: 500 } });
    expect(remove?.before).toMatchObject({ id: created.id, version: 2 });
    expect(remove?.after).toEqual({});
  });

  it('lists: create, an update of the items (itemsAdded / itemsRemoved with exact counts) and delete', async () => {
    const { engine } = testEngine();
    await engine.putList('l-1', list(['a', 'b']), { actor: 'ops' });
    await engine.putList('l-1', { ...list(['b', 'c', 'd']), name: 'Blocked' }, { actor: 'ops' });
    await engine.deleteList('l-1', { actor: 'ops' });
    const { items } = await engine.listAuditLog({ entityId: 'l-1' });
    expect(items.map((e) => [e.entityType, e.action])).toEqual([
      ['LIST', 'CREATE'],
      ['LIST', 'UPDATE'],
      ['LIST', 'DELETE'],
    ]);
    expect(items[0]?.after).toMatchObject({ listType: 'BLACKLIST', itemsAdded: ['a', 'b'], itemsAddedCount: 2 });
    expect(items[1]?.before).toEqual({ itemsRemoved: ['a'], itemsRemovedCount: 1 });
    expect(items[1]?.after).toEqual({ name: 'Blocked', itemsAdded: ['c', 'd'], itemsAddedCount: 2 });
    expect(items[2]?.before).toMatchObject({ name: 'Blocked', itemsRemoved: ['b', 'c', 'd'], itemsRemovedCount: 3 });
  });

  it('a list of 100,000 items: its entry names the first 100 added items and counts all of them', async () => {
    const { engine } = testEngine();
    await engine.putList('big', list(Array.from({ length: 100_000 }, (_, i) => `u-${i}`)));
    const [entry] = (await engine.listAuditLog({ entityId: 'big' })).items;
    expect(entry?.after['itemsAddedCount']).toBe(100_000);
    expect(entry?.after['itemsAdded']).toHaveLength(100);
  });

  it('users: create, a re-create that changes a field, a re-create that changes nothing (no entry), a user event that changes it, and a user batch', async () => {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'u-1', createdTimestamp: T0 }, { actor: 'crm' });
    await engine.createUser({ userId: 'u-1', createdTimestamp: T0, userDetails: { countryOfResidence: 'DE' } }, { actor: 'crm' });
    await engine.createUser({ userId: 'u-1', createdTimestamp: T0, userDetails: { countryOfResidence: 'DE' } }, { actor: 'crm' });
    await engine.createConsumerUserEvent(
      { userId: 'u-1', timestamp: T0 + 1, updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'FR' } } },
      { actor: 'kyc' },
    );
    await engine.createUserBatch({ data: [{ userId: 'u-2', createdTimestamp: T0 }] }, { actor: 'import' });
    const { items } = await engine.listAuditLog({ entityType: 'USER' });
    expect(items.map((e) => [e.entityId, e.action, e.actor])).toEqual([
      ['u-1', 'CREATE', 'crm'],
      ['u-1', 'UPDATE', 'crm'],
      ['u-1', 'UPDATE', 'kyc'],
      ['u-2', 'CREATE', 'import'],
    ]);
    expect(items[0]?.after).toEqual({ type: 'CONSUMER', userId: 'u-1', createdTimestamp: T0 });
    expect(items[1]?.before).toEqual({});
    expect(items[1]?.after).toEqual({ userDetails: { countryOfResidence: 'DE' } });
    expect(items[2]?.before).toEqual({ userDetails: { countryOfResidence: 'DE' } });
    expect(items[2]?.after).toEqual({ userDetails: { countryOfResidence: 'FR' } });
  });

  it('comments: one entry naming the comment, its target and its body', async () => {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'u-1', createdTimestamp: T0 });
    const comment = await engine.createUserComment('u-1', { body: 'Called the customer' }, { actor: 'analyst-7' });
    const { items } = await engine.listAuditLog({ entityType: 'COMMENT' });
    expect(items).toEqual([
      {
        auditId: expect.any(String),
        entityType: 'COMMENT',
        entityId: comment.commentId,
        action: 'CREATE',
        actor: 'analyst-7',
        timestamp: T0,
        before: {},
        after: { target: { kind: 'user', id: 'u-1' }, body: 'Called the customer', files: [], createdTimestamp: comment.createdTimestamp },
      },
    ]);
  });

  it('a refused change appends nothing: a 400, a 404, an over-budget store', async () => {
    const { engine } = testEngine();
    await errorOf(() => engine.createRuleInstance({ ruleId: 'R-404' }));
    await errorOf(() => engine.updateRuleInstance('ri-none', { status: 'INACTIVE' }));
    await errorOf(() => engine.deleteList('none'));
    await errorOf(() => engine.putList('l', { listType: 'NOPE' } as never));
    await errorOf(() => engine.createUserComment('nobody', { body: 'x' }));
    expect((await engine.listAuditLog()).count).toBe(0);
    // The store is full: the list is not stored, and neither is its entry.
    const small = createEngine({ repositories: createMemoryRepositories({ maxStoredBytes: 20_000 }), clock: fixedClock(), ids: sequentialIds() });
    const full = await errorOf(() => small.putList('l', list(Array.from({ length: 5_000 }, (_, i) => `item-${i}`))));
    expect(full.code).toBe('LIMIT_EXCEEDED');
    await expect(small.getList('l')).rejects.toMatchObject({ code: 'LIST_NOT_FOUND' });
    expect((await small.listAuditLog()).count).toBe(0);
  });

  it('an actor that is not a string of 1–256 characters is refused before anything is written', async () => {
    const { engine } = testEngine();
    for (const actor of ['', 'x'.repeat(257), 'a\nb', 42]) {
      expect((await errorOf(() => engine.putList('l', list(['a']), { actor } as never))).code).toBe('VALIDATION_FAILED');
    }
    expect((await engine.listAuditLog()).count).toBe(0);
  });
});

describe('listAuditLog: filters and cursor pages', () => {
  async function engineWith(n: number) {
    const { engine } = testEngine();
    for (let i = 0; i < n; i++) await engine.putList(`l-${i}`, list([`v-${i}`]), { actor: i % 2 === 0 ? 'even' : 'odd' });
    return engine;
  }

  it('pages oldest first by default, newest first with descend; the last page has hasNext false; count is every match', async () => {
    const engine = await engineWith(5);
    const first = await engine.listAuditLog({ pageSize: 2 });
    expect([first.items.map((e) => e.entityId), first.hasNext, first.count, first.pageSize]).toEqual([['l-0', 'l-1'], true, 5, 2]);
    const second = await engine.listAuditLog({ pageSize: 2, start: first.next });
    const third = await engine.listAuditLog({ pageSize: 2, start: second.next });
    expect(second.items.map((e) => e.entityId)).toEqual(['l-2', 'l-3']);
    expect([third.items.map((e) => e.entityId), third.hasNext]).toEqual([['l-4'], false]);
    const newest = await engine.listAuditLog({ pageSize: 3, sortOrder: 'descend' });
    expect(newest.items.map((e) => e.entityId)).toEqual(['l-4', 'l-3', 'l-2']);
    expect((await engine.listAuditLog({ pageSize: 3, sortOrder: 'descend', start: newest.next })).items.map((e) => e.entityId)).toEqual(['l-1', 'l-0']);
    expect((await engine.listAuditLog({ actor: 'odd' })).items.map((e) => e.entityId)).toEqual(['l-1', 'l-3']);
    expect((await engine.listAuditLog({ action: 'DELETE' })).count).toBe(0);
  });

  it("the last page's next continues with entries written after it", async () => {
    const engine = await engineWith(2);
    const page = await engine.listAuditLog();
    expect([page.items.length, page.hasNext]).toEqual([2, false]);
    await engine.putList('later', list(['x']));
    expect((await engine.listAuditLog({ start: page.next })).items.map((e) => e.entityId)).toEqual(['later']);
  });

  test.prop([fc.integer({ min: 1, max: 5 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 })], { numRuns: 30 })(
    'pages never skip nor repeat an entry while entries are written between pages (any page size, any writes)',
    async (pageSize, writesBetween) => {
      const engine = await engineWith(3);
      let written = 3;
      const seen: string[] = [];
      let start: string | undefined;
      for (let i = 0; ; i++) {
        const page = await engine.listAuditLog({ pageSize, ...(start === undefined ? {} : { start }) });
        seen.push(...page.items.map((e) => e.entityId));
        start = page.next;
        if (!page.hasNext && i >= writesBetween.length) break;
        for (let k = 0; k < (writesBetween[i] ?? 0); k++) await engine.putList(`l-${written++}`, list(['x']));
      }
      expect(seen).toEqual(Array.from({ length: written }, (_, i) => `l-${i}`));
    },
  );

  it('refuses a cursor it did not issue, one issued for the other order, and unknown or out-of-range fields, naming them', async () => {
    const engine = await engineWith(3);
    const { next } = await engine.listAuditLog({ pageSize: 1 });
    for (const start of ['garbage!', 'eyJwIjoiMSJ9', btoa('{"p":-1,"o":"a"}'), btoa('{"p":1,"o":"a","x":1}').replace(/=+$/, ''), '%%%']) {
      const error = await errorOf(() => engine.listAuditLog({ start }));
      expect([error.code, error.details[0]?.path]).toEqual(['VALIDATION_FAILED', '/start']);
    }
    expect((await errorOf(() => engine.listAuditLog({ start: next, sortOrder: 'descend' }))).details[0]?.path).toBe('/start');
    expect((await errorOf(() => engine.listAuditLog({ pageSize: 101 }))).details[0]?.path).toBe('/pageSize');
    expect((await errorOf(() => engine.listAuditLog({ entityType: 'TRANSACTION' } as never))).details[0]?.path).toBe('/entityType');
    expect((await errorOf(() => engine.listAuditLog({ colour: 'red' } as never))).code).toBe('VALIDATION_FAILED');
  });
});
