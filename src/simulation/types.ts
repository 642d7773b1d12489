/**
 * What a simulation takes and what its report says. The report is plain JSON (numbers, strings,
 * arrays, objects), the same object `txmon simulate --json` writes and the HTML report draws.
 */
import type { RiskBands } from '../domain/risk-score.js';
import type { RateProvider } from '../domain/money.js';
import type { CaseGrouping, RiskLevel, RuleAction } from '../domain/index.js';
import type { EngineLimits } from '../engine/limits.js';
import type { TransitionTable } from '../engine/pipeline/lifecycle.js';
import type { RiskFactor } from '../engine/pipeline/risk.js';
import type { AnyRuleDefinition } from '../rules/types.js';

/** One labelled entity of a history: a transaction or a user that took part in a typology. */
export interface SimulationLabel {
  readonly level: 'transaction' | 'user';
  /** A `transactionId` or a `userId`. */
  readonly id: string;
  /** The typology's name, e.g. `structuring`, `fan_in`, `cycle`. */
  readonly typology: string;
  /** The scheme it belongs to (the accounts and transactions of one injected case), when known. */
  readonly scheme?: string;
}

/** A list the simulated engine holds (what `putList` would have stored), by id. */
export interface SimulationList {
  readonly listId: string;
  readonly listType: 'BLACKLIST' | 'WHITELIST';
  readonly subtype: string;
  readonly items: readonly string[];
  readonly name?: string;
  readonly description?: string;
}

/**
 * The engine a simulation stands for: its settings as `createEngine` takes them, and the state it
 * would hold besides the history — lists, and users created by the host (`POST /consumer/users`,
 * `POST /business/users` bodies; `type` says which, else a body with `legalEntity` is a business).
 */
export interface SimulationEngineOptions {
  /** Host rules (written with `defineRule`) besides the library's. */
  readonly rules?: readonly AnyRuleDefinition[];
  /** Currency of windowed sums. Default `USD`. */
  readonly baseCurrency?: string;
  /** Currency conversion. Default: the fixed dated table. */
  readonly rates?: RateProvider;
  readonly riskFactors?: readonly RiskFactor[];
  readonly riskBands?: RiskBands;
  /** Risk level of users without one. Default `VERY_HIGH`. */
  readonly defaultRiskLevel?: RiskLevel;
  /** How alerts are grouped into cases, as `createEngine`'s `caseGrouping`; the report's case count follows it. Default `USER`. */
  readonly caseGrouping?: CaseGrouping;
  readonly transitions?: TransitionTable;
  /**
   * How much further back than the longest window the windows are kept: how much older than the
   * latest operation a transaction may be and still see exact windows. Default 7 days (the engine's
   * `lateArrivalMs`). (Transactions themselves are all kept: an event weeks later finds its own.)
   */
  readonly lateArrivalMs?: number;
  readonly limits?: Partial<EngineLimits>;
  readonly lists?: readonly SimulationList[];
  readonly users?: readonly unknown[];
}

/** Progress of a running simulation. */
export interface SimulationProgress {
  /** History items read so far (operations, rejected and blank ones). */
  readonly items: number;
  readonly rejected: number;
  /** The timestamp of the latest operation (epoch ms), `null` before the first. */
  readonly timestamp: number | null;
}

/** Options of `simulate`. */
export interface SimulationOptions {
  /**
   * The operations, in time order: transactions (`POST /transactions` bodies, which have `type`)
   * and transaction events (`POST /events/transaction` bodies, with `transactionState` and no
   * `type`) — as objects, or as JSON text (one item per NDJSON line: an empty line is skipped and
   * text that is not JSON is rejected as `MALFORMED_JSON`). An item's position (1-based) is its
   * place in the history.
   */
  readonly history: Iterable<unknown> | AsyncIterable<unknown>;
  /** The rule instances live today: requests as `createRuleInstance` takes them, or an engine's instances. */
  readonly baseline: readonly unknown[];
  /** The rule instances to compare with the baseline. */
  readonly candidate?: readonly unknown[];
  readonly engine?: SimulationEngineOptions;
  /** Which transactions and users took part in which typology: precision and recall are measured against them. */
  readonly labels?: Iterable<SimulationLabel>;
  /** Stop at the first rejected item (`simulate` then rejects with its error, naming its position). */
  readonly strict?: boolean;
  /** Called every `progressEvery` items (default 10,000) and once at the end. */
  readonly onProgress?: (progress: SimulationProgress) => void;
  readonly progressEvery?: number;
}

/** Precision, recall and F1 of a set of hits against the labelled positives (`null` when undefined: no hit, or no positive). */
export interface DetectionScore {
  /** Positives hit. */
  readonly truePositives: number;
  /** Hits that are not positives. */
  readonly falsePositives: number;
  /** Positives not hit. */
  readonly falseNegatives: number;
  readonly precision: number | null;
  readonly recall: number | null;
  readonly f1: number | null;
}

/**
 * Schemes of one typology reached by a set of hits (labels with a `scheme`): a scheme is found when
 * any of its accounts is hit — one flagged account opens the investigation of the scheme.
 */
export interface SchemeScore {
  /** Schemes of the typology named by the labels. */
  readonly schemes: number;
  /** Schemes with at least one account hit. */
  readonly found: number;
  /** Schemes whose key account (its first user label: the collector, the mule, the cycle's origin …) is hit. */
  readonly keyAccountsFound: number;
  /** `found / schemes`, `null` without schemes. */
  readonly recall: number | null;
  /** `keyAccountsFound / schemes`, `null` without schemes. */
  readonly keyAccountRecall: number | null;
}

/** Detection against the labels, for transactions and for users; overall and per typology (one against the rest). */
export interface Detection {
  readonly transactions: DetectionScore;
  readonly users: DetectionScore;
  readonly typologies: Readonly<Record<string, { readonly transactions: DetectionScore; readonly users: DetectionScore; readonly schemes: SchemeScore }>>;
}

/** What one instance of a rule set did over the history. */
export interface InstanceReport {
  readonly id: string;
  readonly ruleId: string;
  readonly name: string;
  readonly mode: 'LIVE' | 'SHADOW';
  /** Evaluations in which the instance ran (its filters let it), as its `runCount` would count them. */
  readonly runs: number;
  /** Evaluations in which it hit, as its `hitCount` would count them. */
  readonly hits: number;
  /** Distinct transactions it hit at least once. */
  readonly hitTransactions: number;
  /** Distinct users on a side it hit (`hitDirections`). */
  readonly hitUsers: number;
  /** Alerts its hits would open (live instances with `alertCreationOnHit`: one per user while open). */
  readonly alerts: number;
  /** Its live hits by the action they carried. */
  readonly actions: Readonly<Record<RuleAction, number>>;
  readonly detection?: Detection;
}

/** Hits and alerts of one day (UTC) of history. */
export interface DayReport {
  /** `YYYY-MM-DD`. */
  readonly day: string;
  /** Evaluations with at least one hit. */
  readonly hits: number;
  /** Alerts opened. */
  readonly alerts: number;
}

/** What one rule set did over the history. */
export interface RuleSetReport {
  readonly instances: readonly InstanceReport[];
  /** Evaluations by the status the set answered (the most severe live hit). */
  readonly status: Readonly<Record<RuleAction, number>>;
  /** Evaluations with at least one hit, and distinct transactions and users hit by any instance. */
  readonly hits: number;
  readonly hitTransactions: number;
  readonly hitUsers: number;
  readonly alerts: number;
  readonly cases: number;
  readonly days: readonly DayReport[];
  /** The set as a whole (a transaction or user hit by any of its instances). */
  readonly detection?: Detection;
}

/** Transactions or users hit by one set and not the other. */
export interface DiffCount {
  readonly baselineOnly: number;
  readonly candidateOnly: number;
  readonly both: number;
  /** The first ids of each side (at most 100), in history order. */
  readonly baselineOnlySample: readonly string[];
  readonly candidateOnlySample: readonly string[];
}

/** How the candidate differs from the baseline. */
export interface SimulationDiff {
  readonly transactions: DiffCount;
  readonly users: DiffCount;
  /** Per candidate instance: the transactions and users it hits that no baseline instance hits. */
  readonly candidateInstances: readonly { readonly id: string; readonly newTransactions: number; readonly newUsers: number }[];
  /** Per baseline instance: the transactions and users it hits that no candidate instance hits. */
  readonly baselineInstances: readonly { readonly id: string; readonly lostTransactions: number; readonly lostUsers: number }[];
  /** The users with the most candidate-only hit transactions (at most 20), most first. */
  readonly topNewUsers: readonly { readonly userId: string; readonly transactions: number }[];
}

/** A history item that was not taken in. */
export interface RejectedOperation {
  /** Its place in the history (1-based; for an NDJSON file, its line number). */
  readonly position: number;
  readonly code: string;
  readonly message: string;
  /** The JSON Pointer of the first problem, when the error names one. */
  readonly path?: string;
  readonly transactionId?: string;
  readonly eventId?: string;
}

/** The report of a simulation. Deterministic: the same input gives the same report, byte for byte as JSON. */
export interface SimulationReport {
  readonly history: {
    /** Items read (operations, rejected ones and skipped blank lines). */
    readonly items: number;
    readonly transactions: number;
    readonly events: number;
    /** Transactions and events sent again with the same payload (answered from before, as the engine does). */
    readonly replays: number;
    readonly rejected: number;
    /** The first and last operation's timestamps (ISO), `null` for an empty history. */
    readonly from: string | null;
    readonly to: string | null;
  };
  readonly baseline: RuleSetReport;
  readonly candidate?: RuleSetReport;
  readonly diff?: SimulationDiff;
  /** How many labelled transactions and users appeared in the history, per typology. */
  readonly labels?: { readonly typologies: Readonly<Record<string, { readonly transactions: number; readonly users: number }>> };
  /** The rejected items, in history order (the first 10,000). */
  readonly rejected: readonly RejectedOperation[];
}
