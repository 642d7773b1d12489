#!/usr/bin/env node
/**
 * What the graph rules cost the live engine per operation: the AML workload (1,500 accounts paying
 * 10–150 counterparties each, mostly inside communities of 100, 35 simulated days) through its 4
 * stateless instances alone, then with one graph instance beside them — TXM-2 and TXM-4 with their
 * defaults, and with an amount filter of ≥ 1,000 (EUR, USD, GBP) as the typologies suggest. Cost =
 * µs per operation minus the stateless run's, medians of alternating rounds in this process. Rules
 * of the same series and filters are measured too: what keeping the series costs.
 *
 * Beside it a plain-JavaScript baseline of the same searches (per-user arrays of sent / received
 * transfers, binary-searched window ends, the same caps), over the same transfers: the work the
 * search itself is, without validation, storage or results. It also counts the edges each search
 * reads (the bound: f + f² + f³ for TXM-2, f × (f + 2) for TXM-4).
 *
 *   node bench/graph-cost.mjs [--ops 50000] [--rounds 3] [--dist dist/index.js]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { AML_DEFAULTS, createAmlInstanceConfigs, streamAmlWorkload } from './aml-workload.mjs';

const { values: opts } = parseArgs({
  options: {
    ops: { type: 'string', default: String(AML_DEFAULTS.operations) },
    rounds: { type: 'string', default: '3' },
    dist: { type: 'string', default: 'dist/index.js' },
  },
});
const txmon = await import(pathToFileURL(resolve(opts.dist)).href);
const DAY = 86_400_000;
const AMOUNT_FILTER = { transactionAmountRangeHistorical: { EUR: { min: 1000 }, USD: { min: 1000 }, GBP: { min: 1000 } } };

const stateless = createAmlInstanceConfigs()
  .map((c) => c.request)
  .filter((r) => r.ruleId === 'R-2' || r.ruleId === 'R-14');
// Keeping a series costs every transaction whatever reads it: a rule reading the same series with
// the same filters (R-55 over user-sending, R-9 over user-receiving) tells that apart from the search.
const subjects = [
  { name: 'stateless only', extra: null },
  { name: 'R-55 (user-sending), amount ≥ 1,000', extra: { ruleId: 'R-55', filters: AMOUNT_FILTER } },
  { name: 'R-9 (user-receiving), amount ≥ 1,000', extra: { ruleId: 'R-9', filters: AMOUNT_FILTER } },
  { name: 'TXM-2 defaults (5 days, 4 hops, 16 per account)', extra: { ruleId: 'TXM-2' } },
  { name: 'TXM-2 defaults, amount ≥ 1,000', extra: { ruleId: 'TXM-2', filters: AMOUNT_FILTER } },
  { name: 'TXM-4 defaults (7 days, 3 accounts, 16 per account)', extra: { ruleId: 'TXM-4' } },
  { name: 'TXM-4 defaults, amount ≥ 1,000', extra: { ruleId: 'TXM-4', filters: AMOUNT_FILTER } },
];

const ops = [...streamAmlWorkload({ seed: AML_DEFAULTS.seed, operations: Number(opts.ops) })];

async function once(subject) {
  const engine = txmon.createEngine();
  for (const request of subject.extra === null ? stateless : [...stateless, subject.extra]) await engine.createRuleInstance(request);
  let hits = 0;
  globalThis.gc?.();
  const t0 = process.hrtime.bigint();
  for (const op of ops) {
    try {
      const r = op.kind === 'transaction' ? await engine.createTransaction(op.payload) : await engine.createTransactionEvent(op.payload);
      if (subject.extra !== null) hits += r.hitRules.filter((h) => h.ruleId === subject.extra.ruleId).length;
    } catch {
      // Rejected by design of the stream.
    }
  }
  return { us: Number(process.hrtime.bigint() - t0) / 1000 / ops.length, hits };
}

/** The plain-JavaScript searches over the stream's transfers between two users (events ignored). */
function baseline(filtered) {
  const sent = new Map();
  const received = new Map();
  const listOf = (map, key) => {
    let list = map.get(key);
    if (list === undefined) {
      list = { ts: [], to: [] };
      map.set(key, list);
    }
    return list;
  };
  /** The last `f` edges of `list` in [start, end], visited oldest first. */
  const capped = (list, start, end, f, visit) => {
    if (list === undefined) return 0;
    let lo = 0;
    let hi = list.ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list.ts[mid] <= end) lo = mid + 1;
      else hi = mid;
    }
    let read = 0;
    for (let i = Math.max(0, lo - f); i < lo; i++) {
      if (list.ts[i] < start) continue;
      read += 1;
      visit(list.ts[i], list.to[i]);
    }
    return read;
  };
  const stats = { cycle: { edges: 0, max: 0, runs: 0, hits: 0 }, gather: { edges: 0, max: 0, runs: 0, hits: 0 } };
  const t0 = process.hrtime.bigint();
  for (const op of ops) {
    if (op.kind !== 'transaction') continue;
    const t = op.payload;
    const from = t.originUserId;
    const to = t.destinationUserId;
    const amount = t.originAmountDetails?.transactionAmount ?? 0;
    if (filtered && amount < 1000) continue;
    if (from && to && from !== to) {
      const at = t.timestamp;
      // TXM-2: from `to`, a path back to `from` of at most 3 earlier transfers in 5 days.
      let edges = 0;
      let found = false;
      let frontier = new Map([[to, Number.NEGATIVE_INFINITY]]);
      const best = new Map(frontier);
      for (let depth = 1; depth <= 3 && !found && frontier.size > 0; depth++) {
        const next = new Map();
        for (const [key, arrival] of frontier) {
          edges += capped(sent.get(key), at - 5 * DAY, at, 16, (ts, target) => {
            if (found || !(ts > arrival)) return;
            if (target === from) found = true;
            else if (ts < (best.get(target) ?? Number.POSITIVE_INFINITY)) {
              best.set(target, ts);
              next.set(target, ts);
            }
          });
          if (found) break;
        }
        frontier = next;
      }
      stats.cycle.runs += 1;
      stats.cycle.edges += edges;
      stats.cycle.max = Math.max(stats.cycle.max, edges);
      if (found) stats.cycle.hits += 1;
      // TXM-4: the receiver's 16 latest senders in 7 days (and this one), each one's 16 latest receipts.
      const latest = new Map([[from, at]]);
      let gatherEdges = capped(received.get(to), at - 7 * DAY, at, 16, (ts, sender) => {
        if (sender !== to && ts > (latest.get(sender) ?? Number.NEGATIVE_INFINITY)) latest.set(sender, ts);
      });
      const through = new Map();
      let most = 0;
      for (const [m, last] of latest) {
        gatherEdges += capped(received.get(m), at - 7 * DAY, at, 16, (ts, source) => {
          if (source === to || source === m || !(ts < last)) return;
          let set = through.get(source);
          if (set === undefined) {
            set = new Set();
            through.set(source, set);
          }
          set.add(m);
          most = Math.max(most, set.size);
        });
      }
      stats.gather.runs += 1;
      stats.gather.edges += gatherEdges;
      stats.gather.max = Math.max(stats.gather.max, gatherEdges);
      if (most >= 3) stats.gather.hits += 1;
    }
    // Stored after the check, as the engine does (the stream is in time order).
    if (from && to) {
      const s = listOf(sent, from);
      s.ts.push(t.timestamp);
      s.to.push(to);
      const r = listOf(received, to);
      r.ts.push(t.timestamp);
      r.to.push(from);
    }
  }
  return { us: Number(process.hrtime.bigint() - t0) / 1000 / ops.length, stats };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await once(subjects[1]); // JIT warm-up
const samples = subjects.map(() => []);
const hits = subjects.map(() => 0);
for (let r = 0; r < Number(opts.rounds); r++) {
  const order = subjects.map((_, i) => i);
  if (r % 2 === 1) order.reverse();
  for (const i of order) {
    const run = await once(subjects[i]);
    samples[i].push(run.us);
    hits[i] = run.hits;
  }
}
const none = median(samples[0]);
process.stdout.write(`${ops.length} AML operations, ${opts.rounds} rounds; stateless instances alone: ${none.toFixed(1)} µs per operation\n`);
for (let i = 1; i < subjects.length; i++) {
  const us = median(samples[i]);
  process.stdout.write(`  + ${subjects[i].name}: ${us.toFixed(1)} µs → ${(us - none).toFixed(1)} µs per operation, ${hits[i]} hits\n`);
}
for (const filtered of [false, true]) {
  baseline(filtered);
  const b = baseline(filtered);
  const c = b.stats.cycle;
  const g = b.stats.gather;
  process.stdout.write(
    `baseline (plain JS, both searches${filtered ? ', amount ≥ 1,000' : ''}): ${b.us.toFixed(2)} µs per operation; TXM-2 search reads ${(c.edges / c.runs).toFixed(1)} edges on average (max ${c.max}, bound 4,368), ${c.hits} cycles; TXM-4 reads ${(g.edges / g.runs).toFixed(1)} (max ${g.max}, bound 288), ${g.hits} gathers\n`,
  );
}
process.stdout.write(
  `${JSON.stringify({ node: process.version, ops: ops.length, statelessUs: none, us: Object.fromEntries(subjects.map((s, i) => [s.name, median(samples[i])])) })}\n`,
);
