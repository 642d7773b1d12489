import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { T0, errorOf, testEngine, tx, type ListInput } from '../helpers.js';

type Engine = ReturnType<typeof testEngine>['engine'];

const CARD = { method: 'CARD', cardFingerprint: 'fp-123' };
const IBAN = { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' };
const SWIFT = { method: 'SWIFT', accountNumber: '998877', swiftCode: 'BARCGB22' };

async function engineWith(subtype: ListInput['subtype'], items: string[]): Promise<Engine> {
  const { engine } = testEngine();
  await engine.putList('bl-1', { listType: 'BLACKLIST', subtype, items });
  await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl-1' } });
  return engine;
}

async function hitsOf(engine: Engine, overrides: Record<string, unknown>) {
  const r = await engine.createTransaction(tx(overrides));
  return { directions: r.hitRules.flatMap((h) => h.ruleHitMeta?.hitDirections ?? []), status: r.status, description: r.hitRules[0]?.ruleDescription };
}

describe('R-132 Blacklist transaction related value', () => {
  const rows: { name: string; subtype: ListInput['subtype']; items: string[]; transaction: Record<string, unknown>; directions: string[] }[] = [
    { name: 'sender user id listed → ORIGIN', subtype: 'USER_ID', items: ['alice'], transaction: {}, directions: ['ORIGIN'] },
    { name: 'receiver user id listed → DESTINATION', subtype: 'USER_ID', items: ['bob'], transaction: {}, directions: ['DESTINATION'] },
    { name: 'both user ids listed → both', subtype: 'USER_ID', items: ['alice', 'bob'], transaction: {}, directions: ['ORIGIN', 'DESTINATION'] },
    { name: 'user ids compare exactly (case-sensitive)', subtype: 'USER_ID', items: ['Alice'], transaction: {}, directions: [] },
    {
      name: 'card fingerprint on the origin card',
      subtype: 'CARD_FINGERPRINT_NUMBER',
      items: ['fp-123'],
      transaction: { originPaymentDetails: CARD },
      directions: ['ORIGIN'],
    },
    { name: 'IBAN of the receiver', subtype: 'IBAN_NUMBER', items: [IBAN.IBAN], transaction: { destinationPaymentDetails: IBAN }, directions: ['DESTINATION'] },
    { name: 'BIC of the receiver', subtype: 'BIC', items: [IBAN.BIC], transaction: { destinationPaymentDetails: IBAN }, directions: ['DESTINATION'] },
    { name: 'SWIFT account and code', subtype: 'BANK_SWIFT_CODE', items: ['BARCGB22'], transaction: { originPaymentDetails: SWIFT }, directions: ['ORIGIN'] },
    {
      name: 'IP address of the sender device',
      subtype: 'IP_ADDRESS',
      items: ['10.0.0.1'],
      transaction: { originDeviceData: { ipAddress: '10.0.0.1' } },
      directions: ['ORIGIN'],
    },
    {
      name: 'device identifier of the receiver device',
      subtype: 'DEVICE_IDENTIFIER',
      items: ['dev-9'],
      transaction: { destinationDeviceData: { deviceIdentifier: 'dev-9' } },
      directions: ['DESTINATION'],
    },
    { name: 'country of the receiver amount (FR)', subtype: 'COUNTRY', items: ['FR'], transaction: {}, directions: ['DESTINATION'] },
    {
      name: 'a list of another subtype never matches the same text (USER_ID text in an IBAN list)',
      subtype: 'IBAN_NUMBER',
      items: ['alice'],
      transaction: {},
      directions: [],
    },
    { name: 'STRING lists never match', subtype: 'STRING', items: ['alice', 'bob', 'FR'], transaction: {}, directions: [] },
    {
      name: 'a card fingerprint list does not match an IBAN payment',
      subtype: 'CARD_FINGERPRINT_NUMBER',
      items: [IBAN.IBAN],
      transaction: { originPaymentDetails: IBAN },
      directions: [],
    },
  ];
  it.each(rows)('$name', async ({ subtype, items, transaction, directions }) => {
    const engine = await engineWith(subtype, items);
    expect((await hitsOf(engine, transaction)).directions).toEqual(directions);
  });

  it('blocks by default and names side, value kind and list in the description (never the value)', async () => {
    const engine = await engineWith('IBAN_NUMBER', [IBAN.IBAN]);
    const r = await hitsOf(engine, { originPaymentDetails: IBAN });
    expect(r.status).toBe('BLOCK');
    expect(r.description).toBe("The sender's IBAN is on blacklist bl-1.");
    expect(r.description).not.toContain(IBAN.IBAN);
  });

  it('an unknown list never hits; a list created later is used from then on; a deleted one no longer', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl-late' } });
    expect((await hitsOf(engine, {})).directions).toEqual([]);
    await engine.putList('bl-late', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    expect((await hitsOf(engine, {})).directions).toEqual(['ORIGIN']);
    await engine.putList('bl-late', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['carol'] });
    expect((await hitsOf(engine, {})).directions).toEqual([]);
    await engine.putList('bl-late', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    await engine.deleteList('bl-late');
    expect((await hitsOf(engine, {})).directions).toEqual([]);
  });

  const badParameters: { name: string; parameters: unknown; path: string }[] = [
    { name: 'no blacklistId', parameters: {}, path: '/parameters/blacklistId' },
    { name: 'empty blacklistId', parameters: { blacklistId: '' }, path: '/parameters/blacklistId' },
    { name: 'unknown parameter', parameters: { blacklistId: 'x', listId: 'y' }, path: '/parameters/listId' },
  ];
  it.each(badParameters)('refuses $name (INVALID_PARAMETERS naming the path)', async ({ parameters, path }) => {
    const error = await errorOf(() => testEngine().engine.createRuleInstance({ ruleId: 'R-132', parameters: parameters as never }));
    expect(error.code).toBe('INVALID_PARAMETERS');
    expect(error.details.map((d) => d.path)).toContain(path);
  });

  test.prop(
    [fc.uniqueArray(fc.constantFrom('alice', 'bob', 'carol', 'dave'), { maxLength: 4 }), fc.constantFrom('alice', 'carol'), fc.constantFrom('bob', 'dave')],
    {
      numRuns: 25,
    },
  )('hits exactly the sides whose user id is listed', async (items, origin, destination) => {
    const engine = await engineWith('USER_ID', items);
    const expected = [...(items.includes(origin) ? ['ORIGIN'] : []), ...(items.includes(destination) ? ['DESTINATION'] : [])];
    expect((await hitsOf(engine, { originUserId: origin, destinationUserId: destination, timestamp: T0 })).directions).toEqual(expected);
  });
});

describe('engine lists (putList, getList, listLists, deleteList)', () => {
  it('stores a list with unique items, keeps createdAt on replace, lists without items', async () => {
    const { engine, clock } = testEngine();
    const first = await engine.putList('l-1', { listType: 'WHITELIST', subtype: 'USER_ID', name: 'VIPs', items: ['a', 'b', 'a'] });
    expect(first).toMatchObject({ listId: 'l-1', listType: 'WHITELIST', subtype: 'USER_ID', name: 'VIPs', items: ['a', 'b'] });
    clock.advance(1000);
    const second = await engine.putList('l-1', { listType: 'WHITELIST', subtype: 'USER_ID', items: ['c'] });
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.updatedAt).toBe(first.updatedAt + 1000);
    expect((await engine.getList('l-1')).items).toEqual(['c']);
    const { items: _items, ...summary } = second;
    expect(await engine.listLists()).toEqual([{ ...summary, itemCount: 1 }]);
  });

  const bad: { name: string; input: unknown; path: string }[] = [
    { name: 'unknown subtype', input: { listType: 'BLACKLIST', subtype: 'EMAIL', items: [] }, path: '/subtype' },
    { name: 'vendor list type', input: { listType: 'FLAGRIGHT_LIBRARY', subtype: 'USER_ID', items: [] }, path: '/listType' },
    { name: 'empty item', input: { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['ok', ''] }, path: '/items/1' },
    { name: 'items missing', input: { listType: 'BLACKLIST', subtype: 'USER_ID' }, path: '/items' },
    { name: 'unknown field', input: { listType: 'BLACKLIST', subtype: 'USER_ID', items: [], owner: 'x' }, path: '/owner' },
  ];
  it.each(bad)('refuses $name (400 VALIDATION_FAILED naming the path; nothing stored)', async ({ input, path }) => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.putList('l-1', input as never));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.status).toBe(400);
    expect(error.details.map((d) => d.path)).toContain(path);
    expect(await engine.listLists()).toEqual([]);
  });

  it('404 LIST_NOT_FOUND for an unknown list on get and delete', async () => {
    const { engine } = testEngine();
    expect((await errorOf(() => engine.getList('nope'))).code).toBe('LIST_NOT_FOUND');
    expect((await errorOf(() => engine.deleteList('nope'))).status).toBe(404);
  });
});

describe('whitelistUsers.listIds filter (list-backed whitelists)', () => {
  async function setup() {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - 1 });
    await engine.createUser({ userId: 'bob', createdTimestamp: T0 - 1 });
    await engine.createRuleInstance({
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 10 } },
      filters: { whitelistUsers: { listIds: ['vip'] } },
    });
    return engine;
  }
  const directionsOf = async (engine: Engine) =>
    (await engine.createTransaction(tx({ timestamp: T0 }))).hitRules.flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

  it('a side whose user is on the whitelist is not hit; the other side still is', async () => {
    const engine = await setup();
    expect(await directionsOf(engine)).toEqual(['ORIGIN', 'DESTINATION']);
    await engine.putList('vip', { listType: 'WHITELIST', subtype: 'USER_ID', items: ['alice'] });
    expect(await directionsOf(engine)).toEqual(['DESTINATION']);
    await engine.putList('vip', { listType: 'WHITELIST', subtype: 'USER_ID', items: ['alice', 'bob'] });
    expect(await directionsOf(engine)).toEqual([]);
  });

  const ignored: { name: string; list: ListInput }[] = [
    { name: 'a BLACKLIST with that id', list: { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice', 'bob'] } },
    { name: 'a whitelist of another subtype', list: { listType: 'WHITELIST', subtype: 'IBAN_NUMBER', items: ['alice', 'bob'] } },
  ];
  it.each(ignored)('$name does not whitelist anyone', async ({ list }) => {
    const engine = await setup();
    await engine.putList('vip', list);
    expect(await directionsOf(engine)).toEqual(['ORIGIN', 'DESTINATION']);
  });
});

const hitIds = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.map((h) => h.ruleId);
/** The hit directions of rule `id` in a result. */
const ruleHits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

describe('R-132 sides and list types', () => {
  async function r132Engine(items: string[], listType: ListInput['listType'] = 'BLACKLIST', subtype: ListInput['subtype'] = 'USER_ID') {
    const { engine } = testEngine();
    await engine.putList('bl', { listType, subtype, items });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' } });
    return engine;
  }

  it('both sides listed: hits ORIGIN and DESTINATION, one hit rule', async () => {
    const engine = await r132Engine(['alice', 'bob']);
    const r = await engine.createTransaction(tx());
    expect(ruleHits(r, 'R-132')).toEqual(['ORIGIN', 'DESTINATION']);
    expect(r.hitRules).toHaveLength(1);
  });

  describe('edge cases', () => {
    it('blacklistId accepts every list id putList accepts (a 230-character id)', async () => {
      const { engine } = testEngine();
      const id = 'L'.repeat(230);
      await engine.putList(id, { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
      const created = await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: id } }).then(
        () => 'created',
        (e: { code?: string }) => e.code,
      );
      expect(created).toBe('created');
    });

    it('a WHITELIST named as its blacklist never hits: a whitelisted user is allowed', async () => {
      const engine = await r132Engine(['alice'], 'WHITELIST');
      const r = await engine.createTransaction(tx());
      expect(r.status).toBe('ALLOW');
      expect(hitIds(r)).toEqual([]);
    });
  });
});
