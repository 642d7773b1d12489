import { describe, expect, it } from 'vitest';
import type { AlertHit } from '../../../src/domain/index.js';
import { createMemoryAlertsAndCases, type AlertListing } from '../../../src/repositories/memory/alerts-and-cases.js';

const T = 1_700_000_000_000;
const hit = (transactionId: string, userId = 'alice'): AlertHit => ({
  instanceId: 'ri-1',
  userId,
  direction: 'ORIGIN',
  transactionId,
  priority: 'P2',
  ruleDetails: { id: 'R-2', name: 'n', description: 'd', instanceId: 'ri-1', action: 'FLAG', nature: 'AML' },
  newAlertId: `A-${transactionId}`,
  newCaseId: `C-${transactionId}`,
});

/** A store whose hits each find their transaction's listing, as the memory transactions keep it. */
function createStore() {
  const store = createMemoryAlertsAndCases();
  const listings = new Map<string, AlertListing>();
  const apply = (h: AlertHit, now: number) => {
    if (h.transactionId === null) return store.applyAlertHit(h, now, null);
    let listing = listings.get(h.transactionId);
    if (listing === undefined) {
      listing = { listedIn: null };
      listings.set(h.transactionId, listing);
    }
    store.applyAlertHit(h, now, listing);
  };
  return { repository: store.repository, applyAlertHit: apply };
}

/** Wraps an array in a proxy counting every element read, write and lookup made through it. */
function counted<T>(array: T[]): { proxy: T[]; count: () => number } {
  let n = 0;
  const proxy = new Proxy(array, {
    get(target, key, receiver) {
      n += 1;
      return Reflect.get(target, key, receiver);
    },
    set(target, key, value, receiver) {
      n += 1;
      return Reflect.set(target, key, value, receiver);
    },
    has(target, key) {
      n += 1;
      return Reflect.has(target, key);
    },
  });
  return { proxy, count: () => n };
}

/**
 * Appends one hit to an alert already listing `listed` transactions, the alert's and its case's
 * arrays behind counting proxies; returns the number of array accesses the append made.
 */
async function accessesOfOneAppend(listed: number): Promise<number> {
  const store = createStore();
  for (let i = 0; i < listed; i++) store.applyAlertHit(hit(`t-${i}`), T + i);
  const [alert] = await store.repository.listAlerts();
  const [userCase] = await store.repository.listCases();
  if (!alert || !userCase) throw new Error('no alert');
  expect(alert.entityDetails.transactionIds).toHaveLength(listed);
  const ids = counted(alert.entityDetails.transactionIds);
  const alertIds = counted(userCase.alertIds);
  alert.entityDetails.transactionIds = ids.proxy;
  userCase.alertIds = alertIds.proxy;
  store.applyAlertHit(hit('t-new'), T + listed);
  // A transaction already listed (hit again after an event) is not listed twice.
  store.applyAlertHit(hit('t-0'), T + listed + 1);
  const accesses = ids.count() + alertIds.count();
  expect(alert.entityDetails.transactionIds).toHaveLength(listed + 1);
  expect(alert.updatedAt).toBe(T + listed + 1);
  expect(userCase.updatedAt).toBe(T + listed + 1);
  return accesses;
}

describe('createMemoryAlertsAndCases', () => {
  it('appends a hit to an open alert with the same number of array accesses whatever the alert already lists', async () => {
    const small = await accessesOfOneAppend(1);
    const large = await accessesOfOneAppend(20_000);
    expect(small).toBeLessThanOrEqual(8);
    expect(large).toBe(small);
  });

  it('opens one alert per user inside that user case, and lists each hit transaction once', async () => {
    const store = createStore();
    store.applyAlertHit(hit('t-1'), T);
    store.applyAlertHit(hit('t-2', 'bob'), T + 1);
    store.applyAlertHit(hit('t-3'), T + 2);
    store.applyAlertHit(hit('t-3'), T + 3);
    const alerts = await store.repository.listAlerts();
    expect(alerts.map((a) => [a.userId, a.entityDetails.transactionIds])).toEqual([
      ['alice', ['t-1', 't-3']],
      ['bob', ['t-2']],
    ]);
    expect((await store.repository.listCases()).map((c) => c.alertIds)).toEqual([['A-t-1'], ['A-t-2']]);
  });

  it('lists a transaction hit by three instances once in each of their alerts, however often it hits again', async () => {
    const store = createStore();
    const of = (instanceId: string, transactionId: string): AlertHit => ({
      ...hit(transactionId),
      instanceId,
      ruleDetails: { ...hit(transactionId).ruleDetails, instanceId },
      newAlertId: `A-${instanceId}-${transactionId}`,
    });
    for (const instanceId of ['ri-1', 'ri-2', 'ri-3']) store.applyAlertHit(of(instanceId, 't-0'), T);
    for (let round = 1; round <= 2; round++) {
      for (const instanceId of ['ri-1', 'ri-2', 'ri-3']) {
        store.applyAlertHit(of(instanceId, 't-1'), T + round);
        store.applyAlertHit(of(instanceId, 't-0'), T + round);
      }
    }
    const alerts = await store.repository.listAlerts();
    expect(alerts.map((a) => [a.ruleDetails.instanceId, a.entityDetails.transactionIds])).toEqual([
      ['ri-1', ['t-0', 't-1']],
      ['ri-2', ['t-0', 't-1']],
      ['ri-3', ['t-0', 't-1']],
    ]);
  });
});
