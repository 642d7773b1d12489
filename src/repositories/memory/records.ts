/** Users, comments, files and lists in memory: records stored whole, each counted against the byte budget. */
import { applyOutcomeUsers } from '../../domain/index.js';
import type {
  BatchRepository,
  Comment,
  CommentRepository,
  CommentTarget,
  FileRecord,
  FileRepository,
  ListRepository,
  StoredBatch,
  StoredList,
  StoredUser,
  StoredUserEvent,
  TransactionOutcome,
  UserRepository,
  UserRuleWrites,
} from '../../engine/repositories.js';
import { applyRuleOutcome, type RuleOutcomeTargets } from './alerts-and-cases.js';
import { TxmonError } from '../../errors.js';
import { measureJsonSize } from '../../validation/index.js';
import type { MemoryAuditLog } from './audit.js';
import { RECORD_OVERHEAD, type ByteBudget } from './budget.js';

/** Users in memory, and how an outcome's seen users and user updates are stored. */
export interface MemoryUsers {
  readonly repository: UserRepository;
  applyOutcome(outcome: TransactionOutcome): void;
}

/**
 * Users in memory. A user save applies its user rules' counters and alert hits (`rules`: where they
 * are kept) after the user, in the same synchronous step: nothing between them can fail.
 */
export function createMemoryUsers(budget: ByteBudget, rules: RuleOutcomeTargets, audit: MemoryAuditLog): MemoryUsers {
  const users = new Map<string, StoredUser>();
  const events = new Map<string, StoredUserEvent>();
  const eventsByUser = new Map<string, StoredUserEvent[]>();
  const applyRules = (writes: UserRuleWrites, now: number) => {
    // A user rule's hit lists no transaction: no listing is ever asked for.
    applyRuleOutcome(rules, writes.counters ?? [], writes.alertHits ?? [], now, () => ({ listedIn: null }));
  };
  /** Saves the profile; `extra`: more bytes to reserve with it (the caller's, released by it when this throws). */
  const saveProfile = ({ userId, type, profile, now, ruleResults }: Parameters<UserRepository['saveUserProfile']>[0], extra = 0): StoredUser => {
    const u = users.get(userId);
    budget.reserve(measureJsonSize(profile) + (ruleResults === undefined ? 0 : measureJsonSize(ruleResults)) + extra);
    if (u) {
      if (u.profile) budget.release(measureJsonSize(u.profile));
      u.type = type;
      u.profile = profile;
      u.updatedAt = now;
      if (ruleResults !== undefined) {
        if (u.ruleResults !== undefined) budget.release(measureJsonSize(u.ruleResults));
        u.ruleResults = ruleResults;
      }
      return u;
    }
    const created: StoredUser = { userId, type, profile, craScore: null, craRiskLevel: null, firstSeenAt: now, updatedAt: now };
    if (ruleResults !== undefined) created.ruleResults = ruleResults;
    users.set(userId, created);
    return created;
  };
  const repository: UserRepository = {
    async getUser(id) {
      return users.get(id) ?? null;
    },
    async getUsers(ids) {
      return ids.map((id) => users.get(id) ?? null);
    },
    async putUser(user) {
      users.set(user.userId, user);
    },
    async saveUserProfile(update) {
      const user = saveProfile(update, audit.sizeOf(update));
      applyRules(update, update.now);
      audit.appendReserved(update);
      return user;
    },
    async getUserEvent(eventId) {
      return events.get(eventId) ?? null;
    },
    async listUserEvents(userId) {
      return [...(eventsByUser.get(userId) ?? [])];
    },
    async saveUserEvent({ event, now, ...writes }) {
      const list = eventsByUser.get(event.userId) ?? [];
      if (events.has(event.eventId) || list.some((e) => e.arrival === event.arrival)) {
        throw new TxmonError('CONCURRENT_UPDATE', 'A user event with this eventId or arrival is stored already');
      }
      // The event's size is reserved before anything changes: over budget, nothing is written.
      budget.reserve(RECORD_OVERHEAD + measureJsonSize(event));
      try {
        const user = saveProfile(
          {
            userId: event.userId,
            type: event.type,
            profile: event.user,
            now,
            ...(writes.ruleResults === undefined ? {} : { ruleResults: writes.ruleResults }),
          },
          audit.sizeOf(writes),
        );
        events.set(event.eventId, event);
        list.push(event);
        eventsByUser.set(event.userId, list);
        applyRules(writes, now);
        audit.appendReserved(writes);
        return user;
      } catch (error) {
        budget.release(RECORD_OVERHEAD + measureJsonSize(event));
        throw error;
      }
    },
  };
  function applyOutcome(outcome: TransactionOutcome): void {
    applyOutcomeUsers(users, outcome.seenUserIds, outcome.userUpdates, outcome.now);
  }
  return { repository, applyOutcome };
}

export function createMemoryComments(budget: ByteBudget, audit: MemoryAuditLog): CommentRepository {
  const comments = new Map<string, Comment[]>();
  return {
    async addComment(target, comment, writes) {
      budget.reserve(RECORD_OVERHEAD + measureJsonSize(comment) + audit.sizeOf(writes));
      const k = commentKey(target);
      const list = comments.get(k);
      if (list) list.push(comment);
      else comments.set(k, [comment]);
      audit.appendReserved(writes);
    },
    async listComments(target) {
      return [...(comments.get(commentKey(target)) ?? [])];
    },
  };
}

function commentKey(target: CommentTarget): string {
  return `${target.kind}\u0000${target.id}`;
}

export function createMemoryFiles(budget: ByteBudget): FileRepository {
  const files = new Map<string, FileRecord>();
  const contents = new Map<string, Uint8Array>();
  /** Slots whose bytes are arriving right now: a second upload to one of them is refused. */
  const uploading = new Set<string>();
  return {
    async putFile(record) {
      if (!files.has(record.key)) budget.reserve(RECORD_OVERHEAD);
      files.set(record.key, record);
    },
    async getFile(key) {
      return files.get(key) ?? null;
    },
    async putFileContent(key, content, maxBytes) {
      const slot = files.get(key);
      if (!slot) throw new TxmonError('FILE_NOT_FOUND', 'file not found');
      if (slot.uploaded || uploading.has(key)) throw new TxmonError('FILE_ALREADY_UPLOADED', 'The upload URL was used already');
      uploading.add(key);
      let reserved = 0;
      try {
        const chunks: Uint8Array[] = [];
        for await (const chunk of content) {
          if (reserved + chunk.byteLength > maxBytes) throw new TxmonError('PAYLOAD_TOO_LARGE', `The upload is larger than ${maxBytes} bytes`);
          budget.reserve(chunk.byteLength);
          reserved += chunk.byteLength;
          chunks.push(chunk);
        }
        const bytes = new Uint8Array(reserved);
        let offset = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, offset);
          offset += chunk.byteLength;
        }
        const stored: FileRecord = { ...slot, uploaded: true, size: reserved };
        contents.set(key, bytes);
        files.set(key, stored);
        reserved = 0;
        return stored;
      } finally {
        budget.release(reserved);
        uploading.delete(key);
      }
    },
    async getFileContent(key) {
      return contents.get(key) ?? null;
    },
  };
}

export function createMemoryLists(budget: ByteBudget, audit: MemoryAuditLog): ListRepository {
  const lists = new Map<string, { stored: StoredList; set: Set<string> }>();
  return {
    async getList(listId) {
      const list = lists.get(listId);
      return list ? { ...list.stored, items: [...list.stored.items] } : null;
    },
    async listLists() {
      return [...lists.values()].map(({ stored: { items, ...rest } }) => ({ ...rest, itemCount: items.length }));
    },
    async putList(list, writes) {
      const items = [...new Set(list.items)];
      const previous = lists.get(list.listId);
      budget.reserve(RECORD_OVERHEAD + measureJsonSize(items) + audit.sizeOf(writes));
      if (previous) budget.release(RECORD_OVERHEAD + measureJsonSize(previous.stored.items));
      lists.set(list.listId, { stored: { ...list, items }, set: new Set(items) });
      audit.appendReserved(writes);
    },
    async deleteList(listId, writes) {
      const previous = lists.get(listId);
      if (!previous) return false;
      budget.reserve(audit.sizeOf(writes));
      budget.release(RECORD_OVERHEAD + measureJsonSize(previous.stored.items));
      lists.delete(listId);
      audit.appendReserved(writes);
      return true;
    },
    async lookupListItems(listId, probes) {
      const list = lists.get(listId);
      if (!list) return probes.map(() => false);
      return probes.map((p) => p.listType === list.stored.listType && p.subtype === list.stored.subtype && list.set.has(p.value));
    },
  };
}

/** Processed batches in memory, by kind and id; the first stored wins. */
export function createMemoryBatches(budget: ByteBudget): BatchRepository {
  const batches = new Map<string, StoredBatch>();
  const keyOf = (kind: string, batchId: string) => `${kind}\u0000${batchId}`;
  return {
    async getBatch(kind, batchId) {
      return batches.get(keyOf(kind, batchId)) ?? null;
    },
    async putBatch(batch) {
      const key = keyOf(batch.kind, batch.batchId);
      const stored = batches.get(key);
      if (stored) return stored;
      budget.reserve(RECORD_OVERHEAD + measureJsonSize(batch));
      batches.set(key, batch);
      return batch;
    },
  };
}
