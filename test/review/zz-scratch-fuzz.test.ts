import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createAggregateStore, computeAggregate, type SeriesEntry, type AggregateQuery } from '../../src/aggregation/aggregate-store.js';

const FNS = ['count','sum','amountCount','min','max','distinct','latest','countIn','sumIn','lastAmountCount','lastMin','lastMax'] as const;
describe('fuzz', () => {
  it('store equals brute force with many entries, prune, updates', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(
        fc.record({ k: fc.constant('add' as const), id: fc.integer({min:0,max:150}), t: fc.integer({min:0,max:200}), a: fc.option(fc.integer({min:-5,max:1000}), {nil: null}), v: fc.constantFrom('a','b','c','') }),
        fc.record({ k: fc.constant('rm' as const), id: fc.integer({min:0,max:150}) }),
        fc.record({ k: fc.constant('prune' as const), t: fc.integer({min:0,max:60}) }),
        fc.record({ k: fc.constant('q' as const), s: fc.integer({min:-5,max:210}), e: fc.integer({min:-5,max:210}), fn: fc.constantFrom(...FNS), ex: fc.option(fc.integer({min:0,max:150}), {nil: undefined}), lim: fc.integer({min:0,max:80}), vals: fc.subarray(['a','b','c']) }),
      ), { minLength: 150, maxLength: 500 }),
      (ops) => {
        const store = createAggregateStore();
        let ref = new Map<string, SeriesEntry>();
        let horizon = -Infinity;
        for (const op of ops) {
          if (op.k === 'add') {
            const e: SeriesEntry = { series: 's', key: 'k', id: `i${op.id}`, timestamp: op.t, amount: op.a === null ? null : BigInt(op.a), values: op.v ? { f: op.v } : {} };
            store.apply([], [e]); ref.set(e.id, e);
          } else if (op.k === 'rm') { store.apply([{ series: 's', key: 'k', id: `i${op.id}` }], []); ref.delete(`i${op.id}`); }
          else if (op.k === 'prune') { store.pruneBefore(op.t); if (op.t > horizon) { horizon = op.t; for (const [id, e] of ref) if (e.timestamp < horizon) ref.delete(id); } }
          else {
            const q: AggregateQuery = { series: 's', key: 'k', start: Math.max(op.s, horizon), end: op.e, fn: op.fn, field: 'f', values: op.vals, limit: op.lim, ...(op.ex !== undefined ? { excludeId: `i${op.ex}` } : {}) };
            const got = store.query(q);
            const want = computeAggregate([...ref.values()], q);
            if (got !== want) throw new Error(`${JSON.stringify(q)} got ${String(got)} want ${String(want)}`);
          }
        }
      }), { numRuns: 400 });
  });
});
