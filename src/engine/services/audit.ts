/**
 * The audit trail of one engine (docs/audit.md): who made a change (`actorOf`), its entry
 * (`auditEntryOf`: an id, the clock and `buildAuditEntry`), and `listAuditLog` with its cursor pages.
 *
 * A service that changes an entity through the API builds the entry from the state it read inside
 * the change's lock and unit, and passes it to the repository write that makes the change
 * (`AuditWrites`), which stores both in one atomic step.
 */
import { type AuditChange, buildAuditEntry } from '../../domain/audit.js';
import { type AuditEntry, type AuditLogPage, AuditLogQuerySchema, DEFAULT_AUDIT_PAGE_SIZE, MAX_ACTOR_LENGTH } from '../../domain/schemas/audit.js';
import { cloneJson } from '../../domain/json.js';
import { invalidField } from '../../errors.js';
import { copySafeJson, createLazyValidator } from '../../validation/index.js';
import type { EngineSettings } from '../options.js';
import type { ChangeOptions, Engine } from '../types.js';

const validateQuery = createLazyValidator(AuditLogQuerySchema, { what: 'audit log query', safeJson: false });

/** The actor of a change without one: a change the host made without naming who. */
export const SYSTEM_ACTOR = 'system';

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
}

/**
 * Who makes a change: `options.actor`, else {@link SYSTEM_ACTOR}.
 * @throws TxmonError `VALIDATION_FAILED` when `actor` is not a string of 1–256 characters
 */
export function actorOf(options: ChangeOptions | undefined): string {
  const actor = options?.actor;
  if (actor === undefined) return SYSTEM_ACTOR;
  if (typeof actor !== 'string' || actor.length === 0 || actor.length > MAX_ACTOR_LENGTH || hasControlCharacter(actor)) {
    throw invalidField('', 'not-allowed', `option actor must be a string of 1–${MAX_ACTOR_LENGTH} characters without control characters`);
  }
  return actor;
}

/** The entry of `change` made by `actor` now: a new audit id, the engine's clock. */
export function auditEntryOf(settings: EngineSettings, actor: string, change: AuditChange): AuditEntry {
  return buildAuditEntry(change, { auditId: settings.ids.next('audit'), actor, timestamp: settings.clock.now() });
}

/** Whether `entry` records no change (an update that changed no field): such entries are not appended. */
export function isEmptyAuditEntry(entry: AuditEntry): boolean {
  return Object.keys(entry.before).length === 0 && Object.keys(entry.after).length === 0 && entry.omittedFields === undefined;
}

/** A user as its audit entries compare it: its type and its profile's fields. */
export function userSnapshot(type: string | null, profile: object | null): Record<string, unknown> | null {
  return type === null || profile === null ? null : { type, ...(profile as Record<string, unknown>) };
}

/** A cursor of the log: base64url of `{"p":<seq>,"o":"a"|"d"}` (the position and the order it was issued for). */
function encodeCursor(position: number, order: 'ASC' | 'DESC'): string {
  return btoa(JSON.stringify({ p: position, o: order === 'ASC' ? 'a' : 'd' }))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * The position of cursor `start` for `order`.
 * @throws TxmonError `VALIDATION_FAILED` at `/start` for anything but a cursor this log issued for this order
 */
function decodeCursor(start: string, order: 'ASC' | 'DESC'): number {
  const refuse = () => invalidField('/start', 'format', 'is not a cursor of this log (pass the `next` of an earlier page with the same sortOrder)');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(start)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(atob(start.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    throw refuse();
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw refuse();
  const { p, o, ...rest } = decoded as { p?: unknown; o?: unknown };
  if (Object.keys(rest).length > 0 || !Number.isSafeInteger(p) || (p as number) < 0 || o !== (order === 'ASC' ? 'a' : 'd')) throw refuse();
  return p as number;
}

/** `listAuditLog` of one engine. */
export function createAuditService(settings: EngineSettings): Pick<Engine, 'listAuditLog'> {
  const { repositories: repos } = settings;
  return {
    async listAuditLog(input) {
      const query = validateQuery(copySafeJson(input ?? {}));
      const order = query.sortOrder === 'descend' ? 'DESC' : 'ASC';
      const pageSize = query.pageSize ?? DEFAULT_AUDIT_PAGE_SIZE;
      const position = query.start === undefined ? undefined : decodeCursor(query.start, order);
      const { entries, total } = await repos.audit.listAuditEntries({
        ...(query.entityType === undefined ? {} : { entityType: query.entityType }),
        ...(query.entityId === undefined ? {} : { entityId: query.entityId }),
        ...(query.action === undefined ? {} : { action: query.action }),
        ...(query.actor === undefined ? {} : { actor: query.actor }),
        ...(query.afterTimestamp === undefined ? {} : { fromTimestamp: query.afterTimestamp }),
        ...(query.beforeTimestamp === undefined ? {} : { toTimestamp: query.beforeTimestamp }),
        ...(position === undefined ? {} : { position }),
        order,
        // One more than the page: whether there is a next page.
        limit: pageSize + 1,
      });
      const items = entries.slice(0, pageSize);
      const last = items.at(-1);
      // Past the last item; on an empty page, where the page started (the start of the log when none).
      const next = last !== undefined ? last.seq : (position ?? (order === 'ASC' ? 0 : 1));
      const page: AuditLogPage = {
        items: items.map((stored) => cloneJson(stored.entry)),
        hasNext: entries.length > pageSize,
        next: encodeCursor(next, order),
        count: total,
        pageSize,
      };
      return page;
    },
  };
}
