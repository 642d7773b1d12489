/**
 * Audit entries (docs/audit.md): how one change made through the API becomes an entry. Pure: the
 * caller gives the id, the time and the actor. Every write that changes an entity builds its
 * entry here and hands it to the repository write that makes the change, which stores both in one
 * atomic step (`AuditWrites` in the repository port).
 */
import { canonicalJson } from './canonical-json.js';
import { cloneJson } from './json.js';
import type { AuditAction, AuditEntityType, AuditEntry } from './schemas/audit.js';

/** Longest value (characters of its canonical JSON) kept in `before` or `after`; a longer one is omitted. */
export const MAX_AUDIT_VALUE_CHARS = 4096;
/** Most characters of values one side (`before` or `after`) of an entry keeps; fields past it are omitted. */
export const MAX_AUDIT_SIDE_CHARS = 16_384;
/** Most list items named in `itemsAdded` / `itemsRemoved` of a list entry (the counts are always exact). */
export const MAX_AUDIT_LIST_ITEMS = 100;

/** A snapshot of an entity as the audit trail compares it: its top-level fields. */
export type AuditSnapshot = Readonly<Record<string, unknown>>;

/** The difference of two snapshots (see {@link diffAuditFields}). */
export interface AuditDiff {
  readonly before: Record<string, unknown>;
  readonly after: Record<string, unknown>;
  readonly omittedFields: readonly string[];
}

/**
 * The changed top-level fields of an entity: a field is changed when its canonical JSON differs
 * between `before` and `after` (`null` snapshot: the entity did not exist). `before` holds the
 * changed fields' old values and `after` their new ones; a field absent from one side did not
 * exist there. Bounded: a value over {@link MAX_AUDIT_VALUE_CHARS}, or one that would take its side
 * past {@link MAX_AUDIT_SIDE_CHARS}, is left out of both sides and its name listed in
 * `omittedFields`. Fields are compared in sorted order, so the result is deterministic.
 */
export function diffAuditFields(before: AuditSnapshot | null, after: AuditSnapshot | null): AuditDiff {
  const out = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown>, omittedFields: [] as string[] };
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
  let beforeChars = 0;
  let afterChars = 0;
  for (const name of names) {
    const old = before === null ? undefined : before[name];
    const now = after === null ? undefined : after[name];
    const oldText = old === undefined ? undefined : canonicalJson(old);
    const nowText = now === undefined ? undefined : canonicalJson(now);
    if (oldText === nowText) continue;
    const oldSize = oldText?.length ?? 0;
    const nowSize = nowText?.length ?? 0;
    if (
      oldSize > MAX_AUDIT_VALUE_CHARS ||
      nowSize > MAX_AUDIT_VALUE_CHARS ||
      beforeChars + oldSize > MAX_AUDIT_SIDE_CHARS ||
      afterChars + nowSize > MAX_AUDIT_SIDE_CHARS
    ) {
      out.omittedFields.push(name);
      continue;
    }
    if (oldText !== undefined) {
      out.before[name] = JSON.parse(oldText);
      beforeChars += oldSize;
    }
    if (nowText !== undefined) {
      out.after[name] = JSON.parse(nowText);
      afterChars += nowSize;
    }
  }
  return out;
}

/** Whether a diff records any change (a changed field, kept or omitted). */
export function hasAuditChanges(diff: AuditDiff): boolean {
  return diff.omittedFields.length > 0 || Object.keys(diff.before).length > 0 || Object.keys(diff.after).length > 0;
}

/**
 * The fields of a list's items change as an audit trail shows them: `itemsRemoved` (before) and
 * `itemsAdded` (after), each the first {@link MAX_AUDIT_LIST_ITEMS} in the list's order, with the
 * exact counts `itemsRemovedCount` / `itemsAddedCount`. Empty objects when the items are the same set.
 */
export function listItemChanges(before: readonly string[], after: readonly string[]): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const old = new Set(before);
  const now = new Set(after);
  const removed = before.filter((item) => !now.has(item));
  const added = after.filter((item) => !old.has(item));
  return {
    before: removed.length === 0 ? {} : { itemsRemoved: removed.slice(0, MAX_AUDIT_LIST_ITEMS), itemsRemovedCount: removed.length },
    after: added.length === 0 ? {} : { itemsAdded: added.slice(0, MAX_AUDIT_LIST_ITEMS), itemsAddedCount: added.length },
  };
}

/** One change, as the engine describes it before it becomes an entry. */
export interface AuditChange {
  readonly entityType: AuditEntityType;
  readonly entityId: string;
  readonly action: AuditAction;
  /** The entity before the change (`null`: it did not exist). */
  readonly before: AuditSnapshot | null;
  /** The entity after the change (`null`: it no longer exists). */
  readonly after: AuditSnapshot | null;
  /** Fields to add to the entry's `before` / `after` as they are (already bounded), e.g. {@link listItemChanges}. */
  readonly extra?: { readonly before: Record<string, unknown>; readonly after: Record<string, unknown> };
}

/**
 * The audit entry of `change`, made by `actor` at `timestamp`, with id `auditId`: its `before` and
 * `after` are {@link diffAuditFields} of the snapshots (plus `extra`), deep copies. Pure.
 */
export function buildAuditEntry(change: AuditChange, context: { readonly auditId: string; readonly actor: string; readonly timestamp: number }): AuditEntry {
  const diff = diffAuditFields(change.before, change.after);
  const entry: AuditEntry = {
    auditId: context.auditId,
    entityType: change.entityType,
    entityId: change.entityId,
    action: change.action,
    actor: context.actor,
    timestamp: context.timestamp,
    before: { ...diff.before, ...cloneJson(change.extra?.before ?? {}) },
    after: { ...diff.after, ...cloneJson(change.extra?.after ?? {}) },
  };
  if (diff.omittedFields.length > 0) entry.omittedFields = [...diff.omittedFields];
  return entry;
}
