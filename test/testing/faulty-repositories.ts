/**
 * Deliberately broken repositories (mutants of the in-memory ones), each with one realistic bug
 * an adapter could have. The conformance suite and the model check must catch every one.
 */
import { TxmonError, createMemoryRepositories, type Repositories, type StoredUser } from '../../src/index.js';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

type Mutant = (repos: Repositories) => Repositories;

/** A named bug and how to inject it. */
export interface FaultyRepositories {
  name: string;
  create: () => Repositories;
}

function mutant(name: string, mutate: Mutant): FaultyRepositories {
  return { name, create: () => mutate(createMemoryRepositories()) };
}

export const FAULTY_REPOSITORIES = {
  /** Creates the seen users before checking the version: a rejected outcome leaves users behind. */
  partialOnConflict: mutant('partialOnConflict', (r) => ({
    ...r,
    transactions: {
      ...r.transactions,
      async saveOutcome(o) {
        for (const id of o.seenUserIds) {
          if (!(await r.users.getUser(id))) {
            const bare: StoredUser = { userId: id, type: null, profile: null, craScore: null, craRiskLevel: null, firstSeenAt: o.now, updatedAt: o.now };
            await r.users.putUser(bare);
          }
        }
        return r.transactions.saveOutcome(o);
      },
    },
  })),
  /** Ignores expectedVersion (last writer wins). */
  ignoresVersion: mutant('ignoresVersion', (r) => ({
    ...r,
    transactions: {
      ...r.transactions,
      async saveOutcome(o) {
        const current = await r.transactions.getTransaction(o.transaction.transaction.transactionId);
        return r.transactions.saveOutcome({ ...o, expectedVersion: current ? current.version : null });
      },
    },
  })),
  /** Silently drops the event of an outcome whose eventId is taken, instead of rejecting it. */
  acceptsDuplicateEventId: mutant('acceptsDuplicateEventId', (r) => ({
    ...r,
    transactions: {
      ...r.transactions,
      async saveOutcome(o) {
        const taken = o.event !== null && (await r.transactions.getEvent(o.event.eventId)) !== null;
        return r.transactions.saveOutcome(taken ? { ...o, event: null } : o);
      },
    },
  })),
  /** Never applies counters. */
  dropsCounters: mutant('dropsCounters', (r) => ({
    ...r,
    transactions: { ...r.transactions, saveOutcome: (o) => r.transactions.saveOutcome({ ...o, counters: [] }) },
  })),
  /** Counts twice. */
  doublesCounters: mutant('doublesCounters', (r) => ({
    ...r,
    transactions: { ...r.transactions, saveOutcome: (o) => r.transactions.saveOutcome({ ...o, counters: [...o.counters, ...o.counters] }) },
  })),
  /** Read-modify-write counters with an await in between: concurrent outcomes lose updates. */
  racyCounters: mutant('racyCounters', (r) => {
    const counts = new Map<string, { runs: number; hits: number }>();
    const withCounts = <T extends { id: string; runCount: number; hitCount: number } | null>(i: T): T =>
      i === null ? i : { ...i, runCount: counts.get(i.id)?.runs ?? 0, hitCount: counts.get(i.id)?.hits ?? 0 };
    return {
      ...r,
      transactions: {
        ...r.transactions,
        async saveOutcome(o) {
          const alerts = await r.transactions.saveOutcome({ ...o, counters: [] });
          for (const c of o.counters) {
            if (!(await r.ruleInstances.getRuleInstance(c.instanceId))) continue;
            const current = counts.get(c.instanceId) ?? { runs: 0, hits: 0 };
            await tick();
            counts.set(c.instanceId, { runs: current.runs + c.runs, hits: current.hits + c.hits });
          }
          return alerts;
        },
      },
      ruleInstances: {
        ...r.ruleInstances,
        getRuleInstance: async (id) => withCounts(await r.ruleInstances.getRuleInstance(id)),
        listRuleInstances: async () => (await r.ruleInstances.listRuleInstances()).map(withCounts),
      },
    };
  }),
  /** Shifts every added aggregate amount by one unit. */
  corruptsAggregates: mutant('corruptsAggregates', (r) => ({
    ...r,
    transactions: {
      ...r.transactions,
      saveOutcome: (o) =>
        r.transactions.saveOutcome({
          ...o,
          aggregates: { remove: o.aggregates.remove, add: o.aggregates.add.map((e) => ({ ...e, amount: e.amount === null ? null : e.amount + 1n })) },
        }),
    },
  })),
  /** Returns events newest first. */
  reversesEvents: mutant('reversesEvents', (r) => ({
    ...r,
    transactions: { ...r.transactions, listEvents: async (id) => (await r.transactions.listEvents(id)).reverse() },
  })),
  /** Opens a new alert for every hit instead of appending to the open one. */
  neverAppendsAlerts: mutant('neverAppendsAlerts', (r) => {
    let n = 0;
    return {
      ...r,
      transactions: {
        ...r.transactions,
        saveOutcome: (o) =>
          r.transactions.saveOutcome({
            ...o,
            alertHits: o.alertHits.map((h) => {
              n += 1;
              return { ...h, instanceId: `${h.instanceId}#${n}` };
            }),
          }),
      },
    };
  }),
  /** Names the ids a hit would open with, as opened, instead of the alert it landed in. */
  namesNewIds: mutant('namesNewIds', (r) => ({
    ...r,
    transactions: {
      ...r.transactions,
      async saveOutcome(o) {
        await r.transactions.saveOutcome(o);
        return o.alertHits.map((h) => ({
          alertId: h.newAlertId,
          caseId: h.newCaseId,
          ruleInstanceId: h.instanceId,
          userId: h.userId,
          direction: h.direction,
          action: 'OPENED' as const,
        }));
      },
    },
  })),
  /** Writes seen users as bare records even when a profile exists. */
  seenOverwrites: mutant('seenOverwrites', (r) => ({
    ...r,
    transactions: {
      ...r.transactions,
      async saveOutcome(o) {
        const alerts = await r.transactions.saveOutcome(o);
        for (const id of o.seenUserIds) {
          await r.users.putUser({ userId: id, type: null, profile: null, craScore: null, craRiskLevel: null, firstSeenAt: o.now, updatedAt: o.now });
        }
        return alerts;
      },
    },
  })),
  /** Ignores user updates. */
  dropsUserUpdates: mutant('dropsUserUpdates', (r) => ({
    ...r,
    transactions: { ...r.transactions, saveOutcome: (o) => r.transactions.saveOutcome({ ...o, userUpdates: [] }) },
  })),
  /** Leaves unknown ids out of getUsers instead of answering null in place. */
  compactsGetUsers: mutant('compactsGetUsers', (r) => ({
    ...r,
    users: { ...r.users, getUsers: async (ids) => (await r.users.getUsers(ids)).filter((u) => u !== null) },
  })),
  /** Resets counters when an instance is replaced. */
  putResetsCounters: mutant('putResetsCounters', (r) => ({
    ...r,
    ruleInstances: {
      ...r.ruleInstances,
      async putRuleInstance(stored) {
        await r.ruleInstances.deleteRuleInstance(stored.instance.id);
        await r.ruleInstances.putRuleInstance(stored);
      },
    },
  })),
  /** A revision that never changes. */
  staticRevision: mutant('staticRevision', (r) => ({ ...r, ruleInstances: { ...r.ruleInstances, getRevision: async () => 0 } })),
  /** Files comments under the id only, mixing users, cases and alerts with the same id. */
  commentsIgnoreKind: mutant('commentsIgnoreKind', (r) => ({
    ...r,
    comments: {
      addComment: (target, c) => r.comments.addComment({ kind: 'user', id: target.id }, c),
      listComments: (target) => r.comments.listComments({ kind: 'user', id: target.id }),
    },
  })),
  /** Stores bytes without marking the file uploaded. */
  contentNotMarked: mutant('contentNotMarked', (r) => ({
    ...r,
    files: {
      ...r.files,
      async putFileContent(key, content, maxBytes) {
        const before = await r.files.getFile(key);
        const stored = await r.files.putFileContent(key, content, maxBytes);
        if (before) await r.files.putFile(before);
        return stored;
      },
    },
  })),
  /** Lets a second upload replace the bytes of a slot. */
  replaceableUploads: mutant('replaceableUploads', (r) => {
    const contents = new Map<string, Uint8Array>();
    return {
      ...r,
      files: {
        ...r.files,
        async putFileContent(key, content) {
          const record = await r.files.getFile(key);
          if (!record) throw new TxmonError('FILE_NOT_FOUND', 'file not found');
          const chunks: number[] = [];
          for await (const chunk of content) chunks.push(...chunk);
          contents.set(key, new Uint8Array(chunks));
          const stored = { ...record, uploaded: true, size: chunks.length };
          await r.files.putFile(stored);
          return stored;
        },
        async getFileContent(key) {
          return contents.get(key) ?? null;
        },
      },
    };
  }),
  /** Keeps the bytes of an upload past maxBytes. */
  uploadsUnbounded: mutant('uploadsUnbounded', (r) => ({
    ...r,
    files: { ...r.files, putFileContent: (key, content) => r.files.putFileContent(key, content, Number.MAX_SAFE_INTEGER) },
  })),
} satisfies Record<string, FaultyRepositories>;
