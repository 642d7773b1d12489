/**
 * The opaque `start` cursors of alert and case pages: base64url JSON of the page key (the sort
 * value and id of the item the page starts after or before), the sort it belongs to, and the
 * direction — checked on the way in, so a garbled or foreign cursor is a 400 at `/start`.
 */
import { CASE_PRIORITIES, SCHEMA_LIMITS } from '../../domain/index.js';
import { invalidField } from '../../errors.js';
import type { PageKey, WorkflowSortKey } from '../repositories.js';

/** What a cursor holds: `n` the page after `key`, `p` the page before it, `l` the last page. */
export type Cursor =
  | { readonly direction: 'n' | 'p'; readonly sortBy: WorkflowSortKey; readonly sortOrder: 'asc' | 'desc'; readonly key: PageKey }
  | { readonly direction: 'l'; readonly sortBy: WorkflowSortKey; readonly sortOrder: 'asc' | 'desc' };

const SORT_KEYS: readonly WorkflowSortKey[] = ['createdTimestamp', 'updatedAt', 'priority', 'id'];

/** `text` (UTF-8) as base64url, without padding. */
function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The UTF-8 text of base64url `text` (throws on bytes that are not UTF-8). */
function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** The cursor text of `cursor`. */
export function encodeCursor(cursor: Cursor): string {
  const body =
    cursor.direction === 'l'
      ? [cursor.direction, cursor.sortBy, cursor.sortOrder]
      : [cursor.direction, cursor.sortBy, cursor.sortOrder, cursor.key.value, cursor.key.id];
  return toBase64Url(JSON.stringify(body));
}

const bad = (message: string) => invalidField('/start', 'pattern', message);

/**
 * The cursor `text` encodes, for a page sorted by `sortBy` in `sortOrder`.
 * @throws TxmonError `VALIDATION_FAILED` at `/start` for text that is not a cursor, or a cursor of another sort
 */
export function decodeCursor(text: string, sortBy: WorkflowSortKey, sortOrder: 'asc' | 'desc'): Cursor {
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    body = JSON.parse(fromBase64Url(text));
  } catch {
    throw bad('is not a cursor of this list (pass next, prev or last of an earlier page)');
  }
  if (!Array.isArray(body) || (body.length !== 3 && body.length !== 5)) throw bad('is not a cursor of this list (pass next, prev or last of an earlier page)');
  const [direction, by, order, value, id] = body as unknown[];
  if (!(direction === 'n' || direction === 'p' || direction === 'l') || !SORT_KEYS.includes(by as WorkflowSortKey) || !(order === 'asc' || order === 'desc')) {
    throw bad('is not a cursor of this list (pass next, prev or last of an earlier page)');
  }
  if (by !== sortBy || order !== sortOrder) throw bad('was issued for another sortBy or sortOrder: pass the same ones as for the page it came from');
  if (direction === 'l') {
    if (body.length !== 3) throw bad('is not a cursor of this list (pass next, prev or last of an earlier page)');
    return { direction, sortBy, sortOrder };
  }
  const idOk = typeof id === 'string' && id.length > 0 && id.length <= SCHEMA_LIMITS.ID_MAX_LENGTH * 2;
  const valueOk =
    sortBy === 'createdTimestamp' || sortBy === 'updatedAt'
      ? typeof value === 'number' && Number.isFinite(value)
      : sortBy === 'priority'
        ? (CASE_PRIORITIES as readonly unknown[]).includes(value)
        : value === id;
  if (body.length !== 5 || !idOk || !valueOk) throw bad('is not a cursor of this list (pass next, prev or last of an earlier page)');
  return { direction, sortBy, sortOrder, key: { value: value as number | string, id: id as string } };
}
