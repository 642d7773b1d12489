// The 100-instance workload (rule-library issue): the engine alone, on the same stream as
// run.mjs, with 100 live instances — the 20 of the standard workload plus 80 more drawn from the
// whole library (stateless and windowed, several thresholds each). There is no hand-written
// baseline for this set; it shows how the engine scales with the number of instances.
//   node bench/many-instances.mjs [--ops 20000] [--dist dist/index.js]
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { createInstanceConfigs, generateWorkload } from './workload.mjs';

const { values: args } = parseArgs({ options: { ops: { type: 'string', default: '20000' }, dist: { type: 'string', default: '../dist/index.js' } } });
const { createEngine } = await import(new URL(args.dist, import.meta.url).href);

const day = { units: 1, granularity: 'day', rollingBasis: true };
const hour = { units: 1, granularity: 'hour', rollingBasis: true };
const extra = [];
for (const [i, eur] of [500, 1000, 2500, 5000, 7500, 12500, 15000, 25000].entries()) {
  extra.push({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: eur } }, action: i % 2 ? 'FLAG' : 'SUSPEND' });
}
for (const list of [['AFN', 'RUB'], ['KPW', 'SYP', 'BYN'], ['IRR', 'VES'], ['LYD']]) extra.push({ ruleId: 'R-6', parameters: { highRiskCurrencies: list } });
for (const list of [
  ['RU', 'BY'],
  ['IR', 'KP', 'SY'],
  ['AF', 'YE', 'VE'],
  ['CU', 'MM'],
])
  extra.push({ ruleId: 'R-22', parameters: { blacklistedCountries: list } });
for (const list of [['KP'], ['IR', 'SY'], ['NG', 'GH', 'CM'], ['VE', 'CU', 'NI'], ['MM', 'LA', 'KH'], ['AF', 'PK']])
  extra.push({ ruleId: 'R-14', parameters: { highRiskCountries: list } });
extra.push({ ruleId: 'R-24' }, { ruleId: 'R-24', parameters: { keywords: ['casino', 'crypto', 'loan', 'gift card'], allowedDistancePercentage: 20 } });
for (const p of [['999.99'], ['9999'], ['00'], ['500']]) extra.push({ ruleId: 'R-117', parameters: { patterns: p } });
extra.push({ ruleId: 'R-129', parameters: { blacklistedIBANPaymentDetails: [{ IBAN: 'DE89370400440532013000' }, { IBAN: 'GB29NWBK60161331926819' }] } });
extra.push({ ruleId: 'R-13', parameters: { merchantNames: ['bad wallet', 'mixer'] } });
for (const n of [5, 10, 20, 50]) extra.push({ ruleId: 'R-30', parameters: { transactionsLimit: n, timeWindow: hour } });
for (const n of [30, 100]) extra.push({ ruleId: 'R-30', parameters: { transactionsLimit: n, timeWindow: day, checkSender: 'all', checkReceiver: 'all' } });
for (const eur of [5000, 20000, 50000]) extra.push({ ruleId: 'R-69', parameters: { transactionVolumeThreshold: { EUR: eur }, timeWindow: day } });
for (const eur of [10000, 100000])
  extra.push({
    ruleId: 'R-69',
    parameters: { transactionVolumeThreshold: { EUR: eur }, timeWindow: { units: 7, granularity: 'day', rollingBasis: true }, checkSender: 'all' },
  });
for (const d of [30, 90, 180]) extra.push({ ruleId: 'R-5', parameters: { dormancyPeriodDays: d } });
for (const n of [2, 3, 5]) extra.push({ ruleId: 'R-123', parameters: { transactionsLimit: n } });
for (const n of [3, 10]) extra.push({ ruleId: 'R-119', parameters: { transactionsLimit: n, timeWindow: day } });
for (const eur of [3000, 10000]) extra.push({ ruleId: 'R-126', parameters: { transactionVolumeThreshold: { EUR: eur } } });
for (const m of [2, 5]) extra.push({ ruleId: 'R-131', parameters: { multiplierThreshold: m } });
extra.push({ ruleId: 'R-27' }, { ruleId: 'R-120' }, { ruleId: 'R-121' }, { ruleId: 'R-122' });
const amount = { var: 'transaction.originAmountDetails.transactionAmount' };
for (const [i, t] of ['TRANSFER', 'WITHDRAWAL', 'DEPOSIT', 'EXTERNAL_PAYMENT', 'REFUND'].entries()) {
  extra.push({ logic: { and: [{ '==': [{ var: 'transaction.type' }, t] }, { '>': [amount, 1000 * (i + 1)] }] }, ruleNameAlias: `Large ${t}` });
}
for (const c of ['EUR', 'USD', 'GBP'])
  extra.push({
    logic: { and: [{ '==': [{ var: 'transaction.originAmountDetails.transactionCurrency' }, c] }, { '>=': [amount, 9000] }] },
    ruleNameAlias: `Large ${c}`,
  });
while (extra.length < 80) extra.push({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 1000 + extra.length * 250 } } });

// Every instance with the engine's defaults: alerts and cases on.
const configs = [...createInstanceConfigs().map((c) => c.request), ...extra.slice(0, 80)];
const { operations } = generateWorkload({ operations: Number(args.ops) });

async function run() {
  const engine = createEngine({ baseCurrency: 'USD' });
  for (const c of configs) await engine.createRuleInstance(c);
  const ops = operations.map((o) => ({ kind: o.kind, payload: JSON.parse(JSON.stringify(o.payload)) }));
  const lat = new Float64Array(ops.length);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i];
    const s = process.hrtime.bigint();
    if (o.kind === 'transaction') await engine.createTransaction(o.payload);
    else await engine.createTransactionEvent(o.payload);
    lat[i] = Number(process.hrtime.bigint() - s) / 1000;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const sorted = [...lat].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const instances = await engine.listRuleInstances();
  return {
    instances: instances.length,
    opsPerSec: Math.round(ops.length / seconds),
    opsPerCpuSec: Math.round(ops.length / ((cpu.user + cpu.system) / 1e6)),
    p50: q(0.5).toFixed(1),
    p99: q(0.99).toFixed(1),
    hits: instances.reduce((n, i) => n + i.hitCount, 0),
  };
}

console.log(`node ${process.version}, ${cpus()[0]?.model}, ${cpus().length} cores; ${operations.length} operations`);
await run(); // warm-up
const r = await run();
console.log(`engine with ${r.instances} live instances: ${r.opsPerSec} ops/s, ${r.opsPerCpuSec} ops/cpu-s, p50 ${r.p50} µs, p99 ${r.p99} µs (${r.hits} hits)`);
