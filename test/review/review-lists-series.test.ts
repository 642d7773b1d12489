/**
 * Adversarial review of the last three commits: series kept on demand (`maintainSeries`, D-125),
 * the lists port and rule lookups (D-126, R-132), R-87 / R-88 (D-127) and R-41's 3DS guards.
 *
 * Tests named `BUG-n …` demonstrated bugs of the reviewed commits and are regression tests since the
 * fix (BUG-1b became a test of the supported configuration); the others pin
 * tricky-but-correct behaviour.
 */
import { describe, expect, it } from 'vitest';
import { compileHistoricalFilters, createEngine, createMemoryRepositories, type Repositories } from '../../src/index.js';
import { DAY, HOUR, T0, errorOf, fixedClock, testEngine, tx } from '../helpers.js';

type Engine = ReturnType<typeof testEngine>['engine'];

/** Deterministic ids with a prefix, so two engines on one repository never collide. */
function prefixedIds(prefix: string) {
  let n = 0;
  return { next: (kind: string) => `${prefix}-${kind}-${++n}` };
}

function engineOn(repositories: Repositories, prefix: string, extra: Record<string, unknown> = {}): Engine {
  return createEngine({
    repositories,
    clock: fixedClock(),
    ids: prefixedIds(prefix),
    urlSigningSecret: new Uint8Array(32).fill(7),
    ...extra,
  });
}

/** R-30 on the sender over a rolling day: more than `limit` sent transactions (this one included) hit. */
function velocity(limit = 1, extra: Record<string, unknown> = {}) {
  return {
    ruleId: 'R-30',
    parameters: { transactionsLimit: limit, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' },
    ...extra,
  };
}

const hitIds = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.map((h) => h.ruleId);
const dirsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

describe('series kept on demand: instance writes (single engine)', () => {
  it('a SHADOW instance keeps its series: deleting the LIVE reader does not drop what the shadow one reads', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const live = await engine.createRuleInstance(velocity());
    await engine.createRuleInstance(velocity(1, { mode: 'SHADOW' }));
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    await engine.deleteRuleInstance(live.id);
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(1);
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(r.hitRules.map((h) => h.isShadow)).toEqual([true]);
    expect(r.status).toBe('ALLOW');
  });

  it('ACTIVE → INACTIVE drops the series; INACTIVE → ACTIVE refills it with what arrived meanwhile (events included)', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const inst = await engine.createRuleInstance(velocity(1, { filters: { transactionStatesHistorical: ['SUCCESSFUL'] } }));
    const t1 = tx({ timestamp: T0 - 3 * HOUR, transactionState: 'SUCCESSFUL' });
    await engine.createTransaction(t1);
    await engine.updateRuleInstance(inst.id, { status: 'INACTIVE' });
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(0);
    const t2 = tx({ timestamp: T0 - 2 * HOUR, transactionState: 'SUCCESSFUL' });
    await engine.createTransaction(t2);
    // t1 leaves the filtered history while the instance is inactive.
    await engine.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR, transactionState: 'REFUNDED' });
    await engine.updateRuleInstance(inst.id, { status: 'ACTIVE' });
    // Only the derived series is kept, and it holds t2 alone (t1 was refunded while nobody read it).
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(0);
    const derived = `user-sending~${compileHistoricalFilters({ transactionStatesHistorical: ['SUCCESSFUL'] })?.id as string}`;
    expect((await repositories.aggregates.entries(derived, 'alice')).map((e) => e.id)).toEqual([t2.transactionId]);
    const r = await engine.createTransaction(tx({ timestamp: T0, transactionState: 'SUCCESSFUL' }));
    expect(hitIds(r)).toEqual(['R-30']);
  });

  it('a derived series whose base is not kept: a state event moves the transaction out (removal refs use the stored version)', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance(velocity(1, { filters: { transactionStatesHistorical: ['PROCESSING', 'SUCCESSFUL'] } }));
    const t1 = tx({ timestamp: T0 - 2 * HOUR, transactionState: 'PROCESSING' });
    await engine.createTransaction(t1);
    await engine.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR, transactionState: 'SUSPENDED' });
    const r = await engine.createTransaction(tx({ timestamp: T0, transactionState: 'SUCCESSFUL' }));
    expect(hitIds(r)).toEqual([]);
    // and back in
    await engine.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR / 2, transactionState: 'SUCCESSFUL' });
    const r2 = await engine.createTransaction(tx({ timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }));
    expect(hitIds(r2)).toEqual(['R-30']);
  });

  it('a custom aggregation variable reading a base no library instance reads: filled on create, kept when the library reader goes', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const eur = { transactionAmount: 10, transactionCurrency: 'EUR' };
    await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR, destinationUserId: 'bob', originAmountDetails: eur, destinationAmountDetails: eur }));
    const lib = await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 100, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender: 'none', checkReceiver: 'receiving' } });
    await engine.createRuleInstance({
      logic: { '>=': [{ var: 'agg.n' }, 2] },
      logicAggregationVariables: [
        { key: 'n', aggregationFunc: 'COUNT', userDirection: 'RECEIVER', transactionDirection: 'RECEIVING', timeWindow: { start: { units: 1, granularity: 'day', rollingBasis: true }, end: { units: 0, granularity: 'now' } } },
      ],
    });
    await engine.deleteRuleInstance(lib.id);
    expect(await repositories.aggregates.entries('user-receiving', 'bob')).toHaveLength(1);
    const r = await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect(hitIds(r)).toEqual(['CUSTOM']);
  });
});

describe('series kept on demand: engine restart on the same repositories', () => {
  it('a new engine refills kept series by replacement: no duplicate entries, same decisions as the old engine', async () => {
    const repositories = createMemoryRepositories();
    const first = engineOn(repositories, 'a', { maintainSeries: ['user-pair'] });
    await first.createRuleInstance(velocity(2));
    await first.createRuleInstance(velocity(1, { filters: { transactionTypesHistorical: ['TRANSFER'] } }));
    const t1 = tx({ timestamp: T0 - 3 * HOUR });
    await first.createTransaction(t1);
    await first.createTransaction(tx({ timestamp: T0 - 2 * HOUR, type: 'DEPOSIT' }));
    const second = engineOn(repositories, 'b', { maintainSeries: ['user-pair'] });
    // An event first: the refill happens before the removal of t1's stored contribution.
    await second.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR, transactionState: 'SUCCESSFUL' });
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(2);
    expect(await repositories.aggregates.entries('user-pair', 'alice\u0000bob')).toHaveLength(2);
    const r = await second.createTransaction(tx({ timestamp: T0 }));
    expect(new Set(hitIds(r))).toEqual(new Set(['R-30']));
    expect(r.hitRules).toHaveLength(2);
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(3);
  });

  it('BUG-1 two engines on one repository: an instance created on A after B dropped the series it reads gets no history (A trusts its stale keptBases)', async () => {
    const repositories = createMemoryRepositories();
    const a = engineOn(repositories, 'a');
    const b = engineOn(repositories, 'b');
    const first = await a.createRuleInstance(velocity(2));
    await b.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    await b.createTransaction(tx({ timestamp: T0 - HOUR }));
    // B removes the last reader of user-sending: B drops the series from the shared repository.
    await b.deleteRuleInstance(first.id);
    // A has not evaluated since; its keptBases still says user-sending is kept, so it does not fill.
    await a.createRuleInstance(velocity(2));
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(2);
    const r = await a.createTransaction(tx({ timestamp: T0 }));
    expect(hitIds(r)).toEqual(['R-30']);
  });

  it('BUG-1b (configuration, D-125) engines sharing repositories with the same maintainSeries keep the series when B deletes its last reader', async () => {
    const repositories = createMemoryRepositories();
    const a = engineOn(repositories, 'a', { maintainSeries: ['user-sending'] });
    const b = engineOn(repositories, 'b', { maintainSeries: ['user-sending'] });
    const reader = await b.createRuleInstance(velocity(5));
    await a.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    await a.createTransaction(tx({ timestamp: T0 - HOUR }));
    await b.deleteRuleInstance(reader.id);
    await a.createTransaction(tx({ timestamp: T0 - HOUR / 2 }));
    // A keeps user-sending by option: all three of its transactions should be there.
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(3);
  });
});

describe('lists port and R-132', () => {
  async function r132Engine(items: string[], listType = 'BLACKLIST', subtype = 'USER_ID') {
    const { engine } = testEngine();
    await engine.putList('bl', { listType, subtype, items });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' } });
    return engine;
  }

  it('BUG-2 R-132 treats a WHITELIST as a blacklist: a whitelisted user is BLOCKed', async () => {
    const engine = await r132Engine(['alice'], 'WHITELIST');
    const r = await engine.createTransaction(tx());
    expect(r.status).toBe('ALLOW');
    expect(hitIds(r)).toEqual([]);
  });

  it('BUG-3 putList accepts a list id (201–256 chars) that no R-132 instance can ever reference (blacklistId maxLength 200)', async () => {
    const { engine } = testEngine();
    const id = 'L'.repeat(230);
    await engine.putList(id, { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    const created = await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: id } }).then(
      () => 'created',
      (e: { code?: string }) => e.code,
    );
    expect(created).toBe('created');
  });

  it('both sides listed: hits ORIGIN and DESTINATION once each', async () => {
    const engine = await r132Engine(['alice', 'bob']);
    const r = await engine.createTransaction(tx());
    expect(dirsOf(r, 'R-132')).toEqual(['ORIGIN', 'DESTINATION']);
    expect(r.hitRules).toHaveLength(1);
  });

  it('risk-level parameters pick the list by the sender level; a SHADOW instance hits without changing the status', async () => {
    const { engine } = testEngine({ defaultRiskLevel: 'LOW' });
    await engine.putList('low', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['nobody'] });
    await engine.putList('high', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'low' }, riskLevelParameters: { VERY_LOW: { blacklistId: 'low' }, LOW: { blacklistId: 'low' }, MEDIUM: { blacklistId: 'low' }, HIGH: { blacklistId: 'high' }, VERY_HIGH: { blacklistId: 'low' } } });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'high' }, mode: 'SHADOW' });
    const low = await engine.createTransaction(tx());
    expect(low.status).toBe('ALLOW');
    expect(low.hitRules.map((h) => h.isShadow)).toEqual([true]);
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, riskLevel: 'HIGH' });
    const high = await engine.createTransaction(tx());
    expect(high.status).toBe('BLOCK');
    expect(high.hitRules.map((h) => h.isShadow)).toEqual([false, true]);
  });

  it('instance filters gate lookups: a filtered-out instance never hits, a direction filter keeps only its side', async () => {
    const { engine } = testEngine();
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice', 'bob'] });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' }, filters: { transactionTypes: ['DEPOSIT'] } });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' }, filters: { checkDirection: 'DESTINATION' } });
    const r = await engine.createTransaction(tx());
    expect(hitIds(r)).toEqual(['R-132']);
    expect(dirsOf(r, 'R-132')).toEqual(['DESTINATION']);
  });

  it('an event after a list change re-evaluates with the new list; replays (create and event) return what was stored', async () => {
    const engine = await r132Engine(['carol']);
    const t = tx();
    const created = await engine.createTransaction(t);
    expect(created.status).toBe('ALLOW');
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    const ev = { transactionId: t.transactionId, eventId: 'e-1', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' };
    const after = await engine.createTransactionEvent(ev);
    expect(after.status).toBe('BLOCK');
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: [] });
    expect((await engine.createTransaction(t)).status).toBe('ALLOW');
    expect((await engine.createTransactionEvent(ev)).status).toBe('BLOCK');
    expect((await engine.getTransaction(t.transactionId as string)).status).toBe('BLOCK');
  });

  it('putList: 100,000 items accepted, 100,001 refused at /items (counted before de-duplication); forbidden keys refused; prototype-named items are plain values', async () => {
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

describe('R-88 ordering', () => {
  async function r88Engine() {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - 400 * DAY, userDetails: { countryOfResidence: 'DE', countryOfNationality: 'DE' } });
    await engine.createRuleInstance({ ruleId: 'R-88' });
    return engine;
  }

  it('a late, earlier transaction sees only what came before it (hits); the later one still hit on creation, not on a later event', async () => {
    const engine = await r88Engine();
    const later = tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } });
    expect(hitIds(await engine.createTransaction(later))).toEqual(['R-88']);
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0 - DAY, originDeviceData: { ipCountry: 'FR' } })))).toEqual(['R-88']);
    const ev = await engine.createTransactionEvent({ transactionId: later.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitIds(ev)).toEqual([]);
  });

  it('BUG-4 R-88 same-timestamp tie: transactions at the same instant never make each other known, whichever arrived first', async () => {
    const engine = await r88Engine();
    const first = tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } });
    expect(hitIds(await engine.createTransaction(first))).toEqual(['R-88']);
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } })))).toEqual(['R-88']);
    const ev = await engine.createTransactionEvent({ transactionId: first.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitIds(ev)).toEqual(['R-88']);
    // One millisecond later the country is known.
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0 + 1, originDeviceData: { ipCountry: 'FR' } })))).toEqual([]);
  });
});
