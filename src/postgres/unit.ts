/**
 * The start of a unit of work: the advisory locks of its keys, taken in one round trip with the
 * first reads it announced (`ExclusiveUnitOptions.prefetch`).
 */
import type { StoredUser } from '../domain/entities.js';
import type { ExclusiveUnitOptions, StoredEvent, StoredTransaction } from '../engine/repositories.js';
import type { Statement } from './client.js';
import { bodyOf } from './rows.js';

/**
 * What a unit of work read while taking its locks (`txmon_unit_start`, from the hints in
 * `ExclusiveUnitOptions.prefetch`): each answers the unit's first read of the same thing, once.
 * `live` turns false at the unit's first write of any of them; every read goes to the database then.
 */
export interface UnitReads {
  live: boolean;
  /** The transaction the unit last read (prefetched or not), whatever `live` says. */
  read: { readonly id: string; readonly value: StoredTransaction | null } | null;
  revision: number | null;
  transaction: { readonly id: string; readonly value: StoredTransaction | null } | null;
  event: { readonly id: string; readonly value: StoredEvent | null } | null;
  users: Map<string, StoredUser | null> | null;
}

/** A row of `txmon_unit_start`: what `r_kind` says, in generic columns. */
export interface UnitStartRow {
  r_kind: 'r' | 't' | 'e' | 'u';
  r_id: string | null;
  r_n1: string | number | null;
  r_n2: string | number | null;
  r_ts: number | null;
  r_flag: boolean | null;
  r_d1: unknown;
  r_d2: unknown;
  r_d3: unknown;
  r_d4: unknown;
}

/** The statement that takes a unit's locks and reads what it will read first. */
export function unitStartOf(keys: readonly string[], options: ExclusiveUnitOptions | undefined): Statement {
  const hint = options?.prefetch;
  return {
    text: 'SELECT * FROM txmon_unit_start($1::text[], $2::text[], $3::text, $4::text, $5::text[])',
    params: [[...(options?.sharedKeys ?? [])], [...keys], hint?.transactionId ?? null, hint?.eventId ?? null, hint?.userIds ? [...new Set(hint.userIds)] : []],
  };
}

/** The results in the rows of {@link unitStartOf} (a transaction's create and latest result, an event's result). */
export function unitResultsOf(rows: readonly UnitStartRow[]): unknown[] {
  const out: unknown[] = [];
  for (const r of rows) {
    if (r.r_kind === 't') out.push(r.r_d3, r.r_d4);
    else if (r.r_kind === 'e') out.push(r.r_d3);
  }
  return out;
}

/** What a unit read while taking its locks, from the rows of {@link unitStartOf}. */
export function unitReadsOf(rows: readonly UnitStartRow[], options: ExclusiveUnitOptions | undefined): UnitReads {
  const hint = options?.prefetch;
  const reads: UnitReads = {
    live: true,
    read: null,
    revision: null,
    transaction: hint?.transactionId === undefined ? null : { id: hint.transactionId, value: null },
    event: hint?.eventId === undefined ? null : { id: hint.eventId, value: null },
    users: hint?.userIds ? new Map(hint.userIds.map((id) => [id, null])) : null,
  };
  for (const r of rows) {
    if (r.r_kind === 'r') reads.revision = Number(r.r_n1);
    else if (r.r_kind === 't') {
      reads.transaction = {
        id: r.r_id as string,
        value: {
          transaction: bodyOf(r.r_d1 as StoredTransaction['transaction'], r.r_flag === true),
          request: r.r_d2 as StoredTransaction['request'],
          createResult: r.r_d3 as StoredTransaction['createResult'],
          latestResult: r.r_d4 as StoredTransaction['latestResult'],
          eventCount: Number(r.r_n2),
          lastEventTimestamp: r.r_ts === null ? null : Number(r.r_ts),
          version: Number(r.r_n1),
        },
      };
    } else if (r.r_kind === 'e') {
      reads.event = {
        id: r.r_id as string,
        value: {
          eventId: r.r_id as string,
          transactionId: r.r_d4 as string,
          event: r.r_d1 as StoredEvent['event'],
          clientEventId: r.r_flag === true,
          arrival: Number(r.r_n1),
          transaction: r.r_d2 as StoredEvent['transaction'],
          result: r.r_d3 as StoredEvent['result'],
        },
      };
    } else reads.users?.set(r.r_id as string, r.r_d1 as StoredUser);
  }
  return reads;
}
