/**
 * The decision log's chain (src/domain/decision-log.ts): appended entries verify, and every way of
 * tampering with the stored rows — an edited text, an entry rewritten with its hash recomputed, a
 * removal, an insertion, a move, a cut tail, a lost head — is caught at the entry it concerns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendDecisionLog,
  chainHash,
  createChainVerifier,
  decisionOf,
  decisionText,
  EMPTY_DECISION_LOG,
  entryText,
  GENESIS_HASH,
  type DecisionLogHead,
  type DecisionLogRow,
} from '../../src/domain/decision-log.js';

const decision = (i: number) =>
  decisionOf(`t-${i}`, i % 3 === 0 ? `e-${i}` : null, { executedRules: [], hitRules: [], status: 'ALLOW' }, 1_700_000_000_000 + i);

function chainOf(n: number): { rows: DecisionLogRow[]; head: DecisionLogHead } {
  return appendDecisionLog(
    EMPTY_DECISION_LOG,
    Array.from({ length: n }, (_, i) => decision(i)),
  );
}

/** Verifies `rows` fed in pages of `page`. */
function verify(rows: readonly DecisionLogRow[], head: DecisionLogHead | null, page = 7, anchor?: DecisionLogHead) {
  const verifier = createChainVerifier(anchor);
  for (let i = 0; i < rows.length; i += page) verifier.push(rows.slice(i, i + page));
  return verifier.end(head);
}

/** `rows` renumbered 1.. in storage order, as a table whose positions were rewritten would read. */
const renumbered = (rows: readonly DecisionLogRow[]) => rows.map((r, i) => ({ ...r, seq: i + 1 }));

describe('decision log chain', () => {
  it('chains each entry to the one before by SHA-256 over the previous hash and the canonical text', () => {
    const { rows, head } = chainOf(3);
    expect(rows[0]).toMatchObject({ seq: 1, prev: GENESIS_HASH });
    expect(rows[0]?.entry).toBe(entryText(1, decision(0)));
    expect(JSON.parse(rows[0]?.entry as string)).toEqual({ decision: JSON.parse(decision(0)), seq: 1 });
    expect(rows[1]?.prev).toBe(rows[0]?.hash);
    expect(rows[2]?.hash).toBe(chainHash(rows[1]?.hash as string, rows[2]?.entry as string));
    expect(head).toEqual({ seq: 3, hash: rows[2]?.hash });
    // Appending in two steps makes the same chain as in one.
    const first = appendDecisionLog(EMPTY_DECISION_LOG, [decision(0)]);
    const second = appendDecisionLog(first.head, [decision(1), decision(2)]);
    expect([...first.rows, ...second.rows]).toEqual(rows);
  });

  it("a result's decision text is the canonical JSON of its decision", () => {
    const hit = fc.record({
      ruleInstanceId: fc.string(),
      ruleAction: fc.constantFrom('FLAG', 'BLOCK', 'SUSPEND'),
      isShadow: fc.option(fc.boolean(), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.string(), { nil: null }),
        fc.array(hit, { maxLength: 4 }),
        fc.integer(),
        (transactionId, eventId, hits, timestamp) => {
          const hitRules = hits.map((h) => ({ ...h, ruleId: 'R-2', ruleName: 'n', ruleDescription: 'd', ruleHitMeta: {} })) as never[];
          const text = decisionOf(transactionId, eventId, { executedRules: [], hitRules, status: 'FLAG' }, timestamp);
          expect(text).toBe(
            decisionText({
              type: eventId === null ? 'TRANSACTION' : 'TRANSACTION_EVENT',
              transactionId,
              ...(eventId === null ? {} : { eventId }),
              status: 'FLAG',
              hitRules: hits.map((h) => ({
                ruleInstanceId: h.ruleInstanceId,
                ruleAction: h.ruleAction,
                ...(h.isShadow === true ? { isShadow: true as const } : {}),
              })),
              timestamp,
            }),
          );
        },
      ),
    );
  });

  it('an intact chain verifies, with its count and head, in any page size', () => {
    const { rows, head } = chainOf(25);
    for (const page of [1, 4, 25, 100]) expect(verify(rows, head, page)).toEqual({ ok: true, count: 25, head });
    expect(verify([], EMPTY_DECISION_LOG)).toEqual({ ok: true, count: 0, head: EMPTY_DECISION_LOG });
    expect(verify(rows, head, 7, head).ok).toBe(true);
    expect(verify(rows, head, 7, { seq: 3, hash: rows[2]?.hash as string }).ok).toBe(true);
  });

  const cases: {
    name: string;
    tamper: (rows: DecisionLogRow[], head: DecisionLogHead) => { rows: DecisionLogRow[]; head: DecisionLogHead | null };
    problem: string;
    seq: number;
  }[] = [
    {
      name: 'an edited text',
      tamper: (rows, head) => ({ rows: rows.map((r) => (r.seq === 5 ? { ...r, entry: r.entry.replace('ALLOW', 'BLOCK') } : r)), head }),
      problem: 'EDITED',
      seq: 5,
    },
    {
      name: 'an entry rewritten with its hash recomputed',
      tamper: (rows, head) => ({
        rows: rows.map((r) => {
          if (r.seq !== 5) return r;
          const entry = r.entry.replace('ALLOW', 'BLOCK');
          return { ...r, entry, hash: chainHash(r.prev, entry) };
        }),
        head,
      }),
      problem: 'EDITED',
      seq: 5,
    },
    { name: 'a removed entry', tamper: (rows, head) => ({ rows: rows.filter((r) => r.seq !== 5), head }), problem: 'REMOVED', seq: 5 },
    {
      name: 'a removed entry, the positions renumbered',
      tamper: (rows, head) => ({ rows: renumbered(rows.filter((r) => r.seq !== 5)), head }),
      problem: 'REMOVED',
      seq: 5,
    },
    { name: 'a cut tail', tamper: (rows, head) => ({ rows: rows.slice(0, 8), head }), problem: 'REMOVED', seq: 9 },
    {
      name: 'an inserted entry chained in',
      tamper: (rows, head) => {
        const prev = rows[3]?.hash as string;
        const entry = entryText(5, decision(99));
        const forged = { seq: 5, prev, entry, hash: chainHash(prev, entry) };
        return { rows: renumbered([...rows.slice(0, 4), forged, ...rows.slice(4)]), head };
      },
      problem: 'INSERTED',
      seq: 5,
    },
    {
      name: 'an entry appended without the head',
      tamper: (rows, head) => {
        const last = rows.at(-1) as DecisionLogRow;
        const entry = entryText(last.seq + 1, decision(99));
        return { rows: [...rows, { seq: last.seq + 1, prev: last.hash, entry, hash: chainHash(last.hash, entry) }], head };
      },
      problem: 'INSERTED',
      seq: 11,
    },
    {
      name: 'two entries swapped',
      tamper: (rows, head) => {
        const out = [...rows];
        [out[3], out[6]] = [out[6] as DecisionLogRow, out[3] as DecisionLogRow];
        return { rows: renumbered(out), head };
      },
      problem: 'REORDERED',
      seq: 4,
    },
    {
      name: 'the last entry rewritten with its hash recomputed',
      tamper: (rows, head) => ({
        rows: rows.map((r) => {
          if (r.seq !== 10) return r;
          const entry = r.entry.replace('ALLOW', 'BLOCK');
          return { ...r, entry, hash: chainHash(r.prev, entry) };
        }),
        head,
      }),
      problem: 'EDITED',
      seq: 10,
    },
    { name: 'a lost head record', tamper: (rows) => ({ rows, head: null }), problem: 'REMOVED', seq: 11 },
  ];

  it.each(cases)('catches $name at the entry it concerns', ({ tamper, problem, seq }) => {
    const chain = chainOf(10);
    const tampered = tamper(
      chain.rows.map((r) => ({ ...r })),
      chain.head,
    );
    const report = verify(tampered.rows, tampered.head);
    expect(report.ok).toBe(false);
    expect(report.firstInvalid).toMatchObject({ problem, seq });
  });

  it('a chain rewritten whole verifies on its own, and is caught only against an anchor kept elsewhere, also after later appends', () => {
    const original = chainOf(6);
    const anchor = { seq: 4, hash: original.rows[3]?.hash as string };
    const rewritten = appendDecisionLog(EMPTY_DECISION_LOG, [decision(0), decision(1), decision(77), decision(3), decision(4), decision(5)]);
    expect(verify(rewritten.rows, rewritten.head).ok).toBe(true);
    expect(verify(rewritten.rows, rewritten.head, 7, anchor).firstInvalid).toMatchObject({ problem: 'EDITED', seq: 4 });
    const grown = appendDecisionLog(original.head, [decision(6)]);
    expect(verify([...original.rows, ...grown.rows], grown.head, 7, anchor).ok).toBe(true);
    expect(verify(original.rows.slice(0, 3), { seq: 3, hash: original.rows[2]?.hash as string }, 7, anchor).firstInvalid).toMatchObject({
      problem: 'REMOVED',
      seq: 4,
    });
  });

  type Tamper =
    | { kind: 'edit'; at: number; rehash: boolean }
    | { kind: 'remove'; at: number; renumber: boolean }
    | { kind: 'insert'; at: number }
    | { kind: 'swap'; at: number; with: number }
    | { kind: 'truncate'; keep: number };

  /** Applies `t` to the rows of a chain of `n`; the position of the first entry it affects. */
  function applyTamper(rows: DecisionLogRow[], t: Tamper, n: number): { rows: DecisionLogRow[]; first: number } {
    const at = (i: number) => ((i % n) + n) % n;
    switch (t.kind) {
      case 'edit': {
        const i = at(t.at);
        const r = rows[i] as DecisionLogRow;
        const entry = r.entry.replace('"status":"ALLOW"', '"status":"BLOCK"');
        rows[i] = { ...r, entry, hash: t.rehash ? chainHash(r.prev, entry) : r.hash };
        return { rows, first: i + 1 };
      }
      case 'remove': {
        const i = at(t.at);
        const out = rows.filter((_, j) => j !== i);
        return { rows: t.renumber ? renumbered(out) : out, first: i + 1 };
      }
      case 'insert': {
        const i = at(t.at);
        const prev = i === 0 ? GENESIS_HASH : (rows[i - 1] as DecisionLogRow).hash;
        const entry = entryText(i + 1, decision(1000 + i));
        return { rows: renumbered([...rows.slice(0, i), { seq: i + 1, prev, entry, hash: chainHash(prev, entry) }, ...rows.slice(i)]), first: i + 1 };
      }
      case 'swap': {
        const [i, j] = [at(t.at), at(t.with)].sort((a, b) => a - b) as [number, number];
        if (i === j) return applyTamper(rows, { kind: 'remove', at: i, renumber: false }, n);
        [rows[i], rows[j]] = [rows[j] as DecisionLogRow, rows[i] as DecisionLogRow];
        return { rows: renumbered(rows), first: i + 1 };
      }
      case 'truncate': {
        const keep = at(t.keep);
        return { rows: rows.slice(0, keep), first: keep + 1 };
      }
    }
  }

  const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
    fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), rehash: fc.boolean() }),
    fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), renumber: fc.boolean() }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), with: fc.nat() }),
    fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat() }),
  );

  it('any tampering is caught, never after the first entry it touched, in any page size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), tamperArb, fc.integer({ min: 1, max: 50 }), (n, t, page) => {
        const chain = chainOf(n);
        const { rows, first } = applyTamper(
          chain.rows.map((r) => ({ ...r })),
          t,
          n,
        );
        const report = verify(rows, chain.head, page);
        expect(report.ok).toBe(false);
        // A rewritten entry is only known rewritten when the next one (or the head) no longer fits it.
        expect(report.firstInvalid?.seq).toBeLessThanOrEqual(first + 1);
        expect(report.firstInvalid?.seq).toBeGreaterThanOrEqual(Math.min(first, n));
      }),
      { numRuns: 500 },
    );
  });
});
