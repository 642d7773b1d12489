// Micro-benchmark of the windowed-aggregate store (src/aggregation/) against a naive scan.
//
//   node bench/window-index.bench.mjs                    # uses ../dist/internals.js (npm run build first)
//   TXMON_AGG_MODULE=/tmp/aggbuild/aggregate-store.js node bench/window-index.bench.mjs
//   BENCH_TIME_MS=500 node bench/window-index.bench.mjs  # time per task (default 1000)
//
// Every task is the engine's hot path for one transaction on one key: add the new entry, then ask
// the aggregates of the window that ends at it, excluding nothing. The history size stays constant
// (the oldest entries leave the window and are pruned), so "1,000" and "100,000" are the number of
// entries inside the window on every iteration. The baseline keeps 1,000 entries in a plain array
// and scans it, which is what a straightforward implementation does.
import { Bench } from 'tinybench';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { cpus } from 'node:os';

const target = process.env.TXMON_AGG_MODULE ? pathToFileURL(resolve(process.env.TXMON_AGG_MODULE)).href : new URL('../dist/internals.js', import.meta.url).href;
const mod = await import(target);
if (typeof mod.createAggregateStore !== 'function') {
  console.error(`${target} does not export createAggregateStore; point TXMON_AGG_MODULE at a build that does.`);
  process.exit(1);
}
const { createAggregateStore } = mod;
const time = Number(process.env.BENCH_TIME_MS ?? 1000);

const T0 = 1_700_000_000_000;
const WINDOW_MS = 1_000_000;

/** A store holding `size` entries of one key, spaced so that exactly `size` fit in the window. */
function storeScenario(size) {
  const store = createAggregateStore();
  const step = WINDOW_MS / size;
  let n = 0;
  let now = T0;
  const add = (timestamp) => ({
    series: 'origin',
    key: 'u1',
    id: `t${n}`,
    timestamp,
    amount: BigInt((n * 7919) % 100_000) * 1_000_000n,
    values: { cp: `c${n++ % 997}` },
  });
  const batch = [];
  for (let i = 0; i < size; i++) {
    now += step;
    batch.push(add(now));
  }
  store.apply([], batch);
  const q = (fn) => ({ series: 'origin', key: 'u1', start: now - WINDOW_MS + step / 2, end: now, fn, field: 'cp' });
  return {
    next() {
      now += step;
      store.apply([], [add(now)]);
      store.pruneBefore(now - WINDOW_MS);
    },
    late(back) {
      // A late arrival `back` entries before the newest one.
      store.apply([], [add(now - back * step + step / 4)]);
      now += step;
      store.apply([], [add(now)]);
      store.pruneBefore(now - WINDOW_MS);
    },
    ask(fn) {
      return store.query(q(fn));
    },
  };
}

/** The baseline: a plain array of `size` entries, scanned on every query. */
function scanScenario(size) {
  const step = WINDOW_MS / size;
  const entries = [];
  let n = 0;
  let now = T0;
  const add = () => {
    now += step;
    entries.push({ id: `t${n}`, timestamp: now, amount: BigInt((n * 7919) % 100_000) * 1_000_000n, values: { cp: `c${n++ % 997}` } });
  };
  for (let i = 0; i < size; i++) add();
  const inWindow = (e) => e.timestamp > now - WINDOW_MS && e.timestamp <= now;
  return {
    next() {
      add();
      entries.shift();
    },
    countAndSum() {
      let count = 0;
      let sum = 0n;
      for (const e of entries) {
        if (!inWindow(e)) continue;
        count++;
        if (e.amount !== null) sum += e.amount;
      }
      return [count, sum];
    },
    distinct() {
      const seen = new Set();
      for (const e of entries) if (inWindow(e) && e.values.cp) seen.add(e.values.cp);
      return seen.size;
    },
  };
}

let sink = 0;
const keep = (v) => {
  sink ^= typeof v === 'bigint' ? Number(v & 1n) : Number(v ?? 0) & 1;
};

const scan1k = scanScenario(1_000);
const store1k = storeScenario(1_000);
const store100k = storeScenario(100_000);
const late100k = storeScenario(100_000);
const scanDistinct1k = scanScenario(1_000);
const distinct100k = storeScenario(100_000);
const max100k = storeScenario(100_000);

const bench = new Bench({ name: 'window index', time, warmupTime: Math.min(200, time) });
bench
  .add('baseline: array scan, 1,000 in window — append + count + sum', () => {
    scan1k.next();
    keep(scan1k.countAndSum()[1]);
  })
  .add('store, 1,000 in window — append + count + sum', () => {
    store1k.next();
    keep(store1k.ask('count'));
    keep(store1k.ask('sum'));
  })
  .add('store, 100,000 in window — append + count + sum', () => {
    store100k.next();
    keep(store100k.ask('count'));
    keep(store100k.ask('sum'));
  })
  .add('store, 100,000 in window — late insert 50 back + append + count + sum', () => {
    late100k.late(50);
    keep(late100k.ask('count'));
    keep(late100k.ask('sum'));
  })
  .add('baseline: array scan, 1,000 in window — append + distinct', () => {
    scanDistinct1k.next();
    keep(scanDistinct1k.distinct());
  })
  .add('store, 100,000 in window — append + distinct (sliding cursor)', () => {
    distinct100k.next();
    keep(distinct100k.ask('distinct'));
  })
  .add('store, 100,000 in window — append + max (block summaries)', () => {
    max100k.next();
    keep(max100k.ask('max'));
  });

await bench.run();

const rows = bench.tasks.map((task) => {
  const r = task.result;
  if (!r || !('throughput' in r)) return { task: task.name, 'ops/s': `(${r?.state ?? 'no result'})` };
  return {
    task: task.name,
    'ops/s': Math.round(r.throughput.mean).toLocaleString('en-US'),
    'p50 µs': (r.latency.p50 * 1000).toFixed(2),
    'p99 µs': (r.latency.p99 * 1000).toFixed(2),
    samples: r.latency.samplesCount ?? r.latency.samples?.length ?? '',
  };
});
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown cpu'} × ${cpus().length}, ${time} ms per task, module ${target}`);
console.table(rows);
if (sink === 42) console.log('');
