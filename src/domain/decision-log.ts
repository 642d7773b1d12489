/**
 * The decision log: every decision txmon stores (a transaction's or an event's result, an alert's or
 * a case's status change) appended to one hash chain per store. Entry n is the canonical JSON text `{"decision":…,"seq":n}`; its hash is
 * SHA-256 (hex) over the previous entry's hash followed by the text, the first entry's previous hash
 * being {@link GENESIS_HASH}. Each stored row keeps its text, the previous hash it was chained to and
 * its own hash, so a verifier can tell which entry was edited, removed, inserted or moved.
 *
 * What the chain proves: the entries read back are the ones appended, in the order appended, with
 * nothing left out in between — unless whoever edits the store also recomputes every hash after
 * the edit. Against that (an operator who rewrites the whole chain) only a head kept outside the
 * store helps: publish a {@link DecisionLogHead} somewhere else, and verify that the log still
 * passes through it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { MonitoringResult } from './entities.js';

/** The previous hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** One stored entry of the chain. */
export interface DecisionLogRow {
  /** Position in the chain, from 1, as stored (the text repeats it under the hash). */
  readonly seq: number;
  /** The hash of the entry before it ({@link GENESIS_HASH} for the first). */
  readonly prev: string;
  /** The canonical text `{"decision":…,"seq":n}`. */
  readonly entry: string;
  /** SHA-256 hex of `prev` followed by `entry`. */
  readonly hash: string;
}

/** The last entry's position and hash (`0` and {@link GENESIS_HASH} for an empty chain). */
export interface DecisionLogHead {
  readonly seq: number;
  readonly hash: string;
}

/** An empty chain's head. */
export const EMPTY_DECISION_LOG: DecisionLogHead = { seq: 0, hash: GENESIS_HASH };

/** A decision an entry holds: a stored result, or a status change of an alert or a case. */
export type Decision = ResultDecision | StatusDecision;

/** The decision of one stored transaction or event, as its entry holds it. */
export interface ResultDecision {
  readonly type: 'TRANSACTION' | 'TRANSACTION_EVENT';
  readonly transactionId: string;
  /** The event's id, for `TRANSACTION_EVENT`. */
  readonly eventId?: string;
  /** The result's status (the action applied). */
  readonly status: string;
  /** The instances that hit, in result order, with the action each asked. */
  readonly hitRules: readonly { readonly ruleInstanceId: string; readonly ruleAction: string; readonly isShadow?: true }[];
  /** When it was decided (epoch ms). */
  readonly timestamp: number;
}

/**
 * An analyst's decision on an alert or a case: its status change (a case closed with its open
 * alerts: `closesOpenAlerts`), with the reasons and who made it.
 */
export interface StatusDecision {
  readonly type: 'ALERT_STATUS' | 'CASE_STATUS';
  /** The alert's or the case's id. */
  readonly id: string;
  readonly from: string;
  readonly status: string;
  readonly reason?: readonly string[];
  readonly otherReason?: string;
  readonly actor?: string;
  /** A case's close: every alert of it still open closes in the same write. */
  readonly closesOpenAlerts?: true;
  readonly timestamp: number;
}

/** The canonical text of a status change's decision (see {@link StatusDecision}). */
export function statusDecisionOf(
  kind: 'ALERT' | 'CASE',
  id: string,
  from: string,
  change: { readonly status: string; readonly reason?: readonly string[]; readonly otherReason?: string; readonly actor?: string; readonly timestamp: number },
  closesOpenAlerts: boolean,
): string {
  return decisionText({
    type: kind === 'ALERT' ? 'ALERT_STATUS' : 'CASE_STATUS',
    id,
    from,
    status: change.status,
    ...(change.reason === undefined ? {} : { reason: change.reason }),
    ...(change.otherReason === undefined ? {} : { otherReason: change.otherReason }),
    ...(change.actor === undefined ? {} : { actor: change.actor }),
    ...(closesOpenAlerts ? { closesOpenAlerts: true } : {}),
    timestamp: change.timestamp,
  });
}

/**
 * The canonical text of the decision a stored result records: of the transaction's creation
 * (`eventId` `null`) or of one of its events.
 */
export function decisionOf(transactionId: string, eventId: string | null, result: MonitoringResult, timestamp: number): string {
  // Built in canonical key order (eventId, hitRules, status, timestamp, transactionId, type; within
  // a hit: isShadow, ruleAction, ruleInstanceId) — the text `decisionText` gives, without its
  // generic walk: this runs once per transaction.
  let hits = '';
  for (const h of result.hitRules) {
    if (hits !== '') hits += ',';
    hits += `{${h.isShadow === true ? '"isShadow":true,' : ''}"ruleAction":${JSON.stringify(h.ruleAction)},"ruleInstanceId":${JSON.stringify(h.ruleInstanceId)}}`;
  }
  const event = eventId === null ? '' : `"eventId":${JSON.stringify(eventId)},`;
  const type = eventId === null ? 'TRANSACTION' : 'TRANSACTION_EVENT';
  return `{${event}"hitRules":[${hits}],"status":${JSON.stringify(result.status)},"timestamp":${JSON.stringify(timestamp)},"transactionId":${JSON.stringify(transactionId)},"type":"${type}"}`;
}

/** The canonical text of a decision: what the store appends (see {@link entryText}). */
export function decisionText(decision: Decision): string {
  return canonicalJson(decision);
}

/** The text of entry `seq` holding the canonical `decisionText`: keys in canonical order. */
export function entryText(seq: number, decisionText: string): string {
  return `{"decision":${decisionText},"seq":${seq}}`;
}

/** SHA-256 hex of `prev` followed by `entry` (UTF-8). */
export function chainHash(prev: string, entry: string): string {
  return createHash('sha256').update(prev).update(entry).digest('hex');
}

/** Appends decision texts after `head`: the new rows and the new head. */
export function appendDecisionLog(head: DecisionLogHead, decisionTexts: readonly string[]): { rows: DecisionLogRow[]; head: DecisionLogHead } {
  let { seq, hash } = head;
  const rows: DecisionLogRow[] = [];
  for (const text of decisionTexts) {
    seq += 1;
    const entry = entryText(seq, text);
    const next = chainHash(hash, entry);
    rows.push({ seq, prev: hash, entry, hash: next });
    hash = next;
  }
  return { rows, head: { seq, hash } };
}

/** What was found wrong first, at which position. */
export type DecisionLogProblem =
  /** The entry's text (or its position) no longer matches its hash, or the entry before it was rewritten. */
  | 'EDITED'
  /** Entries are missing before this position (or after the last one, for the head). */
  | 'REMOVED'
  /** An entry that was never appended sits at this position. */
  | 'INSERTED'
  /** An entry appended elsewhere in the chain sits at this position. */
  | 'REORDERED';

/** The answer of a verification. */
export interface DecisionLogReport {
  /** Whether the chain is intact (and ends at the expected head, when one was given). */
  readonly ok: boolean;
  /** Entries read (all of them, also past a problem). */
  readonly count: number;
  /** The head the entries lead to (the last entry's position and hash). */
  readonly head: DecisionLogHead;
  /** The first problem found, with the position of the entry it concerns. */
  readonly firstInvalid?: { readonly seq: number; readonly problem: DecisionLogProblem; readonly message: string };
}

/** The first problem of a verification. */
type Invalid = NonNullable<DecisionLogReport['firstInvalid']>;

/** The `seq` an entry's text names, or `null` when the text is not an entry. */
function seqOfEntry(entry: string): number | null {
  try {
    const parsed = JSON.parse(entry) as { seq?: unknown };
    return typeof parsed.seq === 'number' && Number.isSafeInteger(parsed.seq) ? parsed.seq : null;
  } catch {
    return null;
  }
}

/** The first problem of `row` read where entry `expected` should be, after an intact chain ending in `prevHash`. */
function problemOf(row: DecisionLogRow, expected: number, prevHash: string): Invalid | null {
  const named = seqOfEntry(row.entry);
  if (named === null || chainHash(row.prev, row.entry) !== row.hash) {
    return { seq: row.seq, problem: 'EDITED', message: `entry ${row.seq} does not match its hash: its text was changed` };
  }
  if (named > expected) return { seq: expected, problem: 'REMOVED', message: `entries ${expected} to ${named - 1} are missing` };
  if (named < expected) {
    return named === expected - 1 && row.prev !== prevHash
      ? { seq: named, problem: 'INSERTED', message: `entry ${named} appears twice: one of them was never appended` }
      : { seq: expected, problem: 'REORDERED', message: `entry ${named} sits at position ${expected}` };
  }
  if (row.seq !== named) return { seq: expected, problem: 'REORDERED', message: `entry ${named} is stored at position ${row.seq}` };
  if (row.prev !== prevHash) {
    return expected === 1
      ? { seq: 1, problem: 'INSERTED', message: 'entry 1 is not chained to the start of the log' }
      : { seq: expected - 1, problem: 'EDITED', message: `entry ${expected - 1} is not the one entry ${expected} was appended after: it was rewritten` };
  }
  return null;
}

/** How many rows past a gap the verifier looks for the missing entry (moved, not removed). */
const GAP_LOOKAHEAD = 1_000;

/**
 * A verifier fed the stored rows in position order, page by page (bounded memory: it keeps the
 * last hash, and after a gap looks up to {@link GAP_LOOKAHEAD} rows further for the missing
 * entry): `push` each page (false once the first problem is settled), then `end` with the head the
 * store reports (`null`: it has none). With `anchor` (a head published earlier, kept outside the
 * store) the log must also pass through it: entry `anchor.seq` must have hash `anchor.hash`.
 */
export function createChainVerifier(anchor?: DecisionLogHead): {
  push(rows: readonly DecisionLogRow[]): boolean;
  end(storedHead: DecisionLogHead | null): DecisionLogReport;
} {
  let expected = 1;
  let hash = GENESIS_HASH;
  let read = 0;
  let invalid: Invalid | null = null;
  /** A gap found (entry `expected` missing): settled as REORDERED if the entry shows up soon after. */
  let gap: { rowsLeft: number } | null = null;
  const settle = (row: DecisionLogRow) => {
    if (gap === null) return;
    if (seqOfEntry(row.entry) === expected && chainHash(row.prev, row.entry) === row.hash) {
      invalid = { seq: expected, problem: 'REORDERED', message: `entry ${expected} is stored at position ${row.seq}, out of order` };
      gap = null;
    } else if (--gap.rowsLeft === 0) gap = null;
  };
  return {
    push(rows) {
      read += rows.length;
      for (const row of rows) {
        if (invalid !== null) {
          settle(row);
          if (gap === null) break;
          continue;
        }
        invalid = problemOf(row, expected, hash);
        if (invalid !== null) {
          if (invalid.problem === 'REMOVED') gap = { rowsLeft: GAP_LOOKAHEAD };
          continue;
        }
        if (anchor !== undefined && row.seq === anchor.seq && row.hash !== anchor.hash) {
          invalid = { seq: row.seq, problem: 'EDITED', message: `entry ${row.seq} is not the one anchored: the log was rewritten up to it` };
          continue;
        }
        hash = row.hash;
        expected += 1;
      }
      return invalid === null || gap !== null;
    },
    end(storedHead) {
      const head = { seq: expected - 1, hash };
      if (invalid === null) invalid = headProblemOf(head, storedHead);
      if (invalid === null && anchor !== undefined && anchor.seq > head.seq) {
        invalid = { seq: head.seq + 1, problem: 'REMOVED', message: `the log ends before the anchored entry ${anchor.seq}` };
      }
      const found: Invalid | null = invalid;
      return found === null ? { ok: true, count: read, head } : { ok: false, count: read, head, firstInvalid: found };
    },
  };
}

/** What is wrong at the end of an intact chain leading to `head`, given the head the store kept. */
function headProblemOf(head: DecisionLogHead, storedHead: DecisionLogHead | null): Invalid | null {
  if (storedHead === null) return { seq: head.seq + 1, problem: 'REMOVED', message: "the log's head record is missing" };
  if (storedHead.seq > head.seq) {
    return { seq: head.seq + 1, problem: 'REMOVED', message: `the log ends at entry ${head.seq}, but ${storedHead.seq} were appended` };
  }
  if (storedHead.seq < head.seq) return { seq: storedHead.seq + 1, problem: 'INSERTED', message: `entries after ${storedHead.seq} were never appended` };
  if (storedHead.hash !== head.hash)
    return { seq: head.seq, problem: 'EDITED', message: `entry ${head.seq}, the last, is not the one appended: it was rewritten` };
  return null;
}
