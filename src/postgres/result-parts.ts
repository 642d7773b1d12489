/**
 * Monitoring results stored compactly. A result lists every executed rule (20 or more), and most
 * did not hit: the engine shares one deeply frozen not-hit result per instance and level across
 * transactions (result-json.ts). Such a shared rule result is stored once, in
 * `txmon_result_parts` under an id derived from its text, and a stored result names it
 * `{"$r":"<id>"}` — 24 bytes instead of ~250, a stored result a quarter of its size on the
 * 20-instance workload. Reads put the parts back (each parsed once per process, frozen and shared),
 * so a result reads exactly as it was written. A result stored before (no names in it) reads as it is.
 *
 * A part is inserted (if absent) in the same database transaction as the first result naming it;
 * this process takes it as stored once that transaction committed, and inserts it again with the
 * next write until then. Parts are never changed or removed: a part left by a transaction that
 * rolled back is unused.
 */
import { createHash } from 'node:crypto';
import type { MonitoringResult } from '../domain/entities.js';
import { compactBody } from '../domain/result-json.js';
import type { Sql, Statement } from './client.js';
import { prepared } from './client.js';

/** The key naming a part in a stored result: no rule result has it (every one has `ruleInstanceId`). */
const PART_KEY = '$r';

/** The parts of one atomic write: result texts naming them, and the statement storing the new ones. */
export interface PartsWriter {
  /** The stored text of `result`, naming its shared rule results. */
  textOf(result: MonitoringResult): string;
  /** The statement inserting the parts named since the last call that are not known stored; `null` when none. */
  take(): Statement | null;
}

/** The result parts of one database (one process's knowledge of them). */
export interface ResultParts {
  /** A writer for one atomic write. */
  writer(): PartsWriter;
  /**
   * Runs `write`, one atomic write, with a writer of its own; the parts it named count as stored
   * once `write` resolved (its transaction committed).
   */
  committed<T>(write: (writer: PartsWriter) => Promise<T>): Promise<T>;
  /** Puts the named parts of each result back in place (reading the ones this process does not know through `sql`). */
  expand(sql: Sql, results: readonly unknown[]): Promise<void>;
}

const INSERT_PARTS_SQL = prepared(
  'INSERT INTO txmon_result_parts (id, body) SELECT p.id, p.body::json FROM unnest($1::text[], $2::text[]) AS p(id, body) ON CONFLICT (id) DO NOTHING',
);
const READ_PARTS_SQL = prepared('SELECT id, body::text AS body FROM txmon_result_parts WHERE id = ANY($1::text[])');

/** The id of a part's text: 64 bits of its SHA-256, in hex. */
const partIdOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const isPartName = (rule: unknown): rule is { [PART_KEY]: string } =>
  typeof rule === 'object' && rule !== null && typeof (rule as Record<string, unknown>)[PART_KEY] === 'string' && Object.keys(rule).length === 1;

/** The executed rules of a stored result, when it has any. */
function rulesOf(result: unknown): unknown[] | null {
  const rules = typeof result === 'object' && result !== null ? (result as { executedRules?: unknown }).executedRules : undefined;
  return Array.isArray(rules) ? rules : null;
}

export function createResultParts(): ResultParts {
  /** Parts known in a committed transaction. */
  const stored = new Set<string>();
  /** Parts by id: the value a read puts back. */
  const values = new Map<string, unknown>();
  /** Each shared rule result's id and text (the engine's objects are frozen: their text never changes). */
  const named = new WeakMap<object, { id: string; text: string }>();

  const nameOf = (rule: object, text: string): string => {
    let known = named.get(rule);
    if (known === undefined) {
      known = { id: partIdOf(text), text };
      named.set(rule, known);
      if (!values.has(known.id)) values.set(known.id, rule);
    }
    return known.id;
  };

  /** A writer, and the parts it named (its own map). */
  const newWriter = (): { writer: PartsWriter; own: Map<string, string> } => {
    const own = new Map<string, string>();
    let pending = new Map<string, string>();
    const writer: PartsWriter = {
      textOf(result) {
        return compactBody(result, (rule, text) => {
          const id = nameOf(rule, text);
          if (!stored.has(id) && !own.has(id)) {
            own.set(id, text);
            pending.set(id, text);
          }
          return `{"${PART_KEY}":"${id}"}`;
        });
      },
      take() {
        if (pending.size === 0) return null;
        const ids = [...pending.keys()];
        const texts = [...pending.values()];
        pending = new Map();
        return { text: INSERT_PARTS_SQL, params: [ids, texts] };
      },
    };
    return { writer, own };
  };

  return {
    writer: () => newWriter().writer,
    async committed(write) {
      const { writer, own } = newWriter();
      const result = await write(writer);
      for (const id of own.keys()) stored.add(id);
      return result;
    },
    async expand(sql, results) {
      const missing = new Set<string>();
      for (const result of results) {
        for (const rule of rulesOf(result) ?? []) if (isPartName(rule) && !values.has(rule[PART_KEY])) missing.add(rule[PART_KEY]);
      }
      if (missing.size > 0) {
        const rows = await sql.query<{ id: string; body: string }>(READ_PARTS_SQL, [[...missing]]);
        for (const row of rows) {
          values.set(row.id, deepFreeze(JSON.parse(row.body)));
          stored.add(row.id);
        }
      }
      for (const result of results) {
        const rules = rulesOf(result);
        if (rules === null) continue;
        for (let i = 0; i < rules.length; i++) {
          const rule = rules[i];
          if (!isPartName(rule)) continue;
          const value = values.get(rule[PART_KEY]);
          if (value === undefined) throw new Error(`txmon/postgres: result part ${rule[PART_KEY]} is not stored`);
          rules[i] = value;
        }
      }
    },
  };
}
