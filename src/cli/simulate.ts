/**
 * `txmon simulate`: a history — an NDJSON or CSV file, or a store's own — replayed through a
 * baseline rule set and a candidate (`simulate`), with a progress bar on standard error, a summary
 * on standard output, and the report as JSON (`--json`) and as one self-contained HTML page
 * (`--report`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Repositories } from '../engine/repositories.js';
import { isTxmonError } from '../errors.js';
import { simulate } from '../simulation/simulate.js';
import type { Detection, SimulationEngineOptions, SimulationLabel, SimulationReport } from '../simulation/types.js';
import { csvSource, ndjsonSource, storeSource, type HistorySource } from './history-source.js';
import { createProgress } from './progress.js';
import { renderSimulationReport } from './simulation-report.js';
import { DEFAULT_STORE_SETTINGS, openStores, parseStore, StoreSpecError, type OpenStores } from './stores.js';
import { UsageError } from './usage.js';

export { SIMULATE_USAGE } from './usage.js';

/** The command line of `txmon simulate`, checked. */
interface SimulateArgs {
  readonly history: string | undefined;
  readonly store: string | undefined;
  readonly tenant: string | undefined;
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly rules: string;
  readonly candidate: string | undefined;
  readonly labels: string | undefined;
  readonly users: string | undefined;
  readonly engine: string | undefined;
  readonly csvMap: string | undefined;
  readonly report: string | undefined;
  readonly json: string | undefined;
  readonly strict: boolean;
}

/** A date option: an ISO date or date-time, or epoch milliseconds. */
function dateOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw new UsageError(`${flag} must be a date (2026-01-31, 2026-01-31T12:00:00Z) or epoch milliseconds`);
  return ms;
}

function parseSimulateArgs(argv: readonly string[]): SimulateArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      history: { type: 'string' },
      store: { type: 'string' },
      tenant: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      rules: { type: 'string' },
      candidate: { type: 'string' },
      labels: { type: 'string' },
      users: { type: 'string' },
      engine: { type: 'string' },
      'csv-map': { type: 'string' },
      report: { type: 'string' },
      json: { type: 'string' },
      strict: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if ((values.history === undefined) === (values.store === undefined)) throw new UsageError('give either --history <file> or --store <store>');
  if (values.rules === undefined) throw new UsageError('--rules <baseline.json> is required');
  if (values.history !== undefined && (values.from !== undefined || values.to !== undefined || values.tenant !== undefined)) {
    throw new UsageError('--from, --to and --tenant go with --store');
  }
  if (values.tenant !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(values.tenant)) throw new UsageError('--tenant must be a tenant id ([A-Za-z0-9_-])');
  return {
    history: values.history,
    store: values.store,
    tenant: values.tenant,
    from: dateOption(values.from, '--from'),
    to: dateOption(values.to, '--to'),
    rules: values.rules,
    candidate: values.candidate,
    labels: values.labels,
    users: values.users,
    engine: values.engine,
    csvMap: values['csv-map'],
    report: values.report,
    json: values.json,
    strict: values.strict ?? false,
  };
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${flag}: cannot read ${file}`);
  }
}

function readJson(file: string, flag: string): unknown {
  try {
    return JSON.parse(readText(file, flag));
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(`${flag}: ${file} is not valid JSON`);
  }
}

/** A rule set file: an array of rule-instance requests, or `{ "ruleInstances": [...] }` (what `GET /rule-instances` answers is the former). */
function readRuleSet(file: string, flag: string): unknown[] {
  const parsed = readJson(file, flag);
  const list = Array.isArray(parsed) ? parsed : (parsed as { ruleInstances?: unknown } | null)?.ruleInstances;
  if (!Array.isArray(list)) throw new UsageError(`${flag}: ${file} must hold an array of rule instances (or {"ruleInstances": [...]})`);
  return list;
}

/** A labels CSV: a header with `level`, `id` and `typology` (and optionally `scheme`), one labelled entity per row. */
function readLabels(file: string): SimulationLabel[] {
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(readText(file, '--labels'), { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(`--labels: ${file} is not a CSV file (${(error as Error).message})`);
  }
  return rows.map((row) => ({
    level: row.level as SimulationLabel['level'],
    id: row.id ?? '',
    typology: row.typology ?? '',
    ...(row.scheme ? { scheme: row.scheme } : {}),
  }));
}

/** Users, one JSON object per line (the bodies of the user calls, with `type` where the body does not tell). */
function readUsers(file: string): unknown[] {
  return readText(file, '--users')
    .split(/\r?\n/)
    .map((line, index) => ({ line: line.trim(), index }))
    .filter(({ line }) => line !== '')
    .map(({ line, index }) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new UsageError(`--users: line ${index + 1} of ${file} is not valid JSON`);
      }
    });
}

/** The engine file: `createEngine`'s settings a simulation takes (baseCurrency, caseGrouping, defaultRiskLevel, lateArrivalMs, limits, riskFactors, riskBands, lists, users). */
function readEngine(file: string | undefined): SimulationEngineOptions {
  if (file === undefined) return {};
  const parsed = readJson(file, '--engine');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--engine: the file must hold an object of engine settings');
  const allowed = ['baseCurrency', 'caseGrouping', 'defaultRiskLevel', 'lateArrivalMs', 'limits', 'riskFactors', 'riskBands', 'lists', 'users'];
  const unknown = Object.keys(parsed).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new UsageError(`--engine: ${unknown[0]} is not an engine setting a simulation takes (${allowed.join(', ')})`);
  return parsed as SimulationEngineOptions;
}

/** The history to replay, and what to close after. */
async function historyOf(args: SimulateArgs): Promise<{ source: HistorySource; name: string; close: () => Promise<void> }> {
  if (args.history !== undefined) {
    const file = args.history;
    const isCsv = /\.csv(\.gz)?$/i.test(file);
    const mapping = args.csvMap === undefined ? {} : (readJson(args.csvMap, '--csv-map') as Record<string, string>);
    return { source: isCsv ? csvSource(file, mapping) : ndjsonSource(file), name: basename(file), close: async () => undefined };
  }
  let spec: ReturnType<typeof parseStore>;
  try {
    spec = parseStore(args.store as string);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (spec.kind === 'memory') throw new UsageError('--store memory holds no history: give a pglite: directory or a postgres:// URL');
  const tenant = args.tenant ?? 'default';
  let stores: OpenStores;
  try {
    stores = await openStores(spec, [tenant], {
      single: args.tenant === undefined,
      maxStoredBytes: 1,
      settings: { ...DEFAULT_STORE_SETTINGS, statementTimeoutMs: 3_600_000 },
    });
  } catch (error) {
    throw error instanceof StoreSpecError ? new UsageError(error.message) : error;
  }
  const range = { ...(args.from === undefined ? {} : { from: args.from }), ...(args.to === undefined ? {} : { to: args.to }) };
  return { source: storeSource(stores.repositories.get(tenant) as Repositories, range), name: args.store as string, close: () => stores.close() };
}

/** The set's detection: account precision, then per typology the schemes found (when the labels name schemes). */
function detectionLines(detection: Detection): string[] {
  const users = detection.users;
  const lines = [`  accounts: ${users.truePositives} labelled of ${users.truePositives + users.falsePositives} hit (precision ${users.precision ?? '–'})`];
  for (const [typology, scores] of Object.entries(detection.typologies)) {
    const s = scores.schemes;
    if (s.schemes > 0) lines.push(`  ${typology}: ${s.found} / ${s.schemes} schemes found, key account in ${s.keyAccountsFound}`);
  }
  return lines;
}

/** The summary printed on standard output. */
function summaryOf(report: SimulationReport, seconds: number): string {
  const h = report.history;
  const lines = [
    `history: ${h.items} items (${h.transactions} transactions, ${h.events} events, ${h.replays} replays, ${h.rejected} rejected), ${h.from ?? '–'} → ${h.to ?? '–'}, in ${seconds.toFixed(1)} s`,
  ];
  for (const [name, set] of [
    ['baseline', report.baseline],
    ['candidate', report.candidate],
  ] as const) {
    if (set === undefined) continue;
    lines.push(`${name}: ${set.hitTransactions} transactions and ${set.hitUsers} users hit, ${set.alerts} alerts, ${set.cases} cases`);
    for (const i of set.instances) {
      const detection = i.detection ? `, precision ${i.detection.transactions.precision ?? '–'} recall ${i.detection.transactions.recall ?? '–'}` : '';
      lines.push(
        `  ${i.id} ${i.ruleId}: ${i.runs} runs, ${i.hits} hits, ${i.hitTransactions} transactions, ${i.hitUsers} users, ${i.alerts} alerts${detection}`,
      );
    }
    if (set.detection !== undefined) lines.push(...detectionLines(set.detection));
  }
  if (report.diff !== undefined) {
    const t = report.diff.transactions;
    lines.push(`difference: ${t.candidateOnly} transactions hit by the candidate only, ${t.baselineOnly} by the baseline only, ${t.both} by both`);
  }
  for (const r of report.rejected.slice(0, 5)) lines.push(`rejected line ${r.position}: ${r.code} ${r.path ?? ''} ${r.message}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Runs `txmon simulate`; the summary goes to `out`.
 * @throws UsageError for a bad command line or an unreadable file; TxmonError for a bad rule
 *   instance, label or setting, and with `--strict` for the first rejected line (its message names it)
 */
export async function simulateCommand(argv: readonly string[], out: { write(text: string): void } = process.stdout): Promise<SimulationReport> {
  const args = parseSimulateArgs(argv);
  const baseline = readRuleSet(args.rules, '--rules');
  const candidate = args.candidate === undefined ? undefined : readRuleSet(args.candidate, '--candidate');
  const labels = args.labels === undefined ? undefined : readLabels(args.labels);
  const engine = readEngine(args.engine);
  const users = args.users === undefined ? undefined : readUsers(args.users);
  const { source, name, close } = await historyOf(args);
  const progress = createProgress('simulate', () => source.progress());
  const started = Date.now();
  let report: SimulationReport;
  let items = 0;
  try {
    report = await simulate({
      history: source.items,
      baseline,
      ...(candidate === undefined ? {} : { candidate }),
      engine: users === undefined ? engine : { ...engine, users: [...(engine.users ?? []), ...users] },
      ...(labels === undefined ? {} : { labels }),
      strict: args.strict,
      progressEvery: 5_000,
      onProgress: (p) => {
        items = p.items;
        progress.update(p.items);
      },
    });
  } catch (error) {
    progress.stop(items);
    throw isTxmonError(error) || error instanceof UsageError
      ? error
      : new Error(`the history could not be read: ${(error as Error).message}`, { cause: error });
  } finally {
    await close();
  }
  progress.stop(report.history.items);
  if (args.json !== undefined) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  if (args.report !== undefined) writeFileSync(args.report, renderSimulationReport(report, name));
  out.write(summaryOf(report, (Date.now() - started) / 1000));
  return report;
}
