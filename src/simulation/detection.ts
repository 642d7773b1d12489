/**
 * What a rule set catches: a labelled synthetic history (`txmon generate`) replayed through the set
 * with `simulate`, scored per typology — the schemes found, the account-level precision, the alerts
 * per 1,000 customers. The source of docs/detection.md's tables (`npm run detection`) and of the test
 * that holds the shipped preset to them.
 */
import { createSyntheticData, TYPOLOGIES, type GenerateOptions, type Typology } from './generate/index.js';
import { simulate } from './simulate.js';
import type { SimulationEngineOptions, SimulationLabel } from './types.js';

/**
 * The histories docs/detection.md measures the shipped preset on (`npm run detection`): 10,000
 * customers over 90 days, and 1,000 over 90 days — the table CI recomputes and compares with the file.
 */
export const DETECTION_SIZES: readonly Readonly<GenerateOptions & { users: number; days: number; seed: number }>[] = Object.freeze([
  Object.freeze({ users: 10_000, days: 90, seed: 42 }),
  Object.freeze({ users: 1_000, days: 90, seed: 42 }),
]);

/** The engine settings of those replays: windowed sums in euros, the currency of most generated accounts. */
export const DETECTION_ENGINE: Readonly<Omit<SimulationEngineOptions, 'users'>> = Object.freeze({ baseCurrency: 'EUR' });

/** Options of {@link measureDetection}. */
export interface DetectionOptions {
  /** The history to generate (customers, days, seed …): `txmon generate`'s options. */
  readonly history: GenerateOptions;
  /** The rule instances measured: requests as `createRuleInstance` takes them. */
  readonly ruleSet: readonly unknown[];
  /** The engine's settings besides the users, which come from the generated history. */
  readonly engine?: Omit<SimulationEngineOptions, 'users'>;
}

/** One typology's row of a detection table. */
export interface TypologyDetection {
  readonly typology: Typology;
  readonly schemes: number;
  /** Schemes with at least one account flagged. */
  readonly found: number;
  /** Schemes whose key account (the collector, the mule, the cycle's origin …) is flagged. */
  readonly keyAccountsFound: number;
  /** `found / schemes` (`null` without schemes), to four decimals. */
  readonly recall: number | null;
}

/** What a rule set catches on one generated history. */
export interface DetectionTable {
  readonly users: number;
  readonly days: number;
  readonly seed: number;
  readonly typologies: readonly TypologyDetection[];
  /** Distinct accounts on a hit side. */
  readonly accountsFlagged: number;
  /** Of them, accounts of an injected scheme. */
  readonly labelledAccountsFlagged: number;
  /** `labelledAccountsFlagged / accountsFlagged` (`null` when none is flagged), to four decimals. */
  readonly precision: number | null;
  readonly alerts: number;
  /** Alerts per 1,000 customers over the history, to one decimal. */
  readonly alertsPer1000Users: number;
  readonly transactions: number;
  readonly events: number;
}

/**
 * Generates the history, replays it through `ruleSet` and scores the hits against the labels (user
 * labels: a scheme is found when any of its accounts is flagged). Deterministic: the same options
 * give the same table.
 *
 * @example
 * ```ts
 * const table = await measureDetection({ history: { users: 1000, days: 90, seed: 42 }, ruleSet: amlBaseline() });
 * table.typologies.find((t) => t.typology === 'cycle')?.recall; // 1
 * ```
 */
export async function measureDetection(options: DetectionOptions): Promise<DetectionTable> {
  const data = createSyntheticData(options.history);
  const labels: SimulationLabel[] = data.userLabels.map((row) => ({ level: 'user', id: row.id, typology: row.typology, scheme: row.scheme }));
  const report = await simulate({
    history: (function* () {
      for (const record of data.history()) yield record.kind === 'transaction' ? record.transaction : record.event;
    })(),
    baseline: options.ruleSet,
    engine: { ...options.engine, users: [...data.users()] },
    labels,
  });
  const detection = report.baseline.detection;
  const users = detection?.users;
  const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
  const { users: customers, days, seed } = data.options;
  return {
    users: customers,
    days,
    seed,
    typologies: TYPOLOGIES.map((typology) => {
      const schemes = detection?.typologies[typology]?.schemes;
      return {
        typology,
        schemes: schemes?.schemes ?? 0,
        found: schemes?.found ?? 0,
        keyAccountsFound: schemes?.keyAccountsFound ?? 0,
        recall: schemes?.recall ?? null,
      };
    }),
    accountsFlagged: users === undefined ? 0 : users.truePositives + users.falsePositives,
    labelledAccountsFlagged: users?.truePositives ?? 0,
    precision: users?.precision ?? null,
    alerts: report.baseline.alerts,
    alertsPer1000Users: round((report.baseline.alerts * 1000) / customers, 1),
    transactions: report.history.transactions,
    events: report.history.events,
  };
}

/** A fraction as `0.91` (two decimals), `–` when undefined. */
function fraction(value: number | null): string {
  return value === null ? '–' : value.toFixed(2);
}

/** A count with thousands separators (`1,000`). */
function count(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The table as Markdown (docs/detection.md holds it between markers): a row per typology — schemes
 * found, key accounts flagged, recall — then the accounts flagged, the precision and the alerts.
 */
export function renderDetectionTable(table: DetectionTable): string {
  const rows = table.typologies.map((t) => `| ${t.typology} | ${t.found} / ${t.schemes} | ${t.keyAccountsFound} / ${t.schemes} | ${fraction(t.recall)} |`);
  return [
    `${count(table.users)} customers × ${table.days} days, seed ${table.seed}: ${count(table.transactions)} transactions, ${count(table.events)} events.`,
    '',
    '| typology | schemes found | key account flagged | recall |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Accounts flagged: ${count(table.accountsFlagged)}, of which ${count(table.labelledAccountsFlagged)} in a scheme — precision ${fraction(table.precision)}. ` +
      `Alerts: ${count(table.alerts)}, ${table.alertsPer1000Users.toFixed(1)} per 1,000 customers.`,
  ].join('\n');
}
