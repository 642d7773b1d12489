/**
 * The labels of a history — which transactions and users took part in which typology — and the
 * precision, recall and F1 of hits against them.
 */
import { TxmonError } from '../errors.js';
import type { DetectionScore, SchemeScore, SimulationLabel } from './types.js';

/** Labels by id. */
export interface LabelIndex {
  readonly transactions: ReadonlyMap<string, readonly string[]>;
  readonly users: ReadonlyMap<string, readonly string[]>;
  /** Every typology named, sorted. */
  readonly typologies: readonly string[];
  /** The schemes named by user labels, in order of first appearance: each scheme's typology and accounts, its key account first. */
  readonly schemes: ReadonlyMap<string, LabelledScheme>;
}

/** One injected scheme as its user labels describe it. */
export interface LabelledScheme {
  readonly typology: string;
  /** Its accounts in label order; the first is the key account (the collector, the mule, the cycle's origin …). */
  readonly users: readonly string[];
}

function invalidLabel(index: number, field: string, message: string): TxmonError {
  const path = `/labels/${index}/${field}`;
  return new TxmonError('VALIDATION_FAILED', `Invalid label: ${path} ${message}`, [{ path, code: 'type', message }]);
}

/**
 * Indexes labels by level and id (an id may carry several typologies).
 * @throws TxmonError `VALIDATION_FAILED` naming `/labels/<i>/level|id|typology` for a malformed label
 */
export function indexLabels(labels: Iterable<SimulationLabel>): LabelIndex {
  const transactions = new Map<string, string[]>();
  const users = new Map<string, string[]>();
  const typologies = new Set<string>();
  const schemes = new Map<string, { typology: string; users: string[] }>();
  let index = 0;
  for (const label of labels) {
    const { level, id, typology } = (label ?? {}) as Partial<SimulationLabel>;
    if (level !== 'transaction' && level !== 'user') throw invalidLabel(index, 'level', 'must be transaction or user');
    if (typeof id !== 'string' || id === '') throw invalidLabel(index, 'id', 'must be a non-empty string');
    if (typeof typology !== 'string' || typology === '') throw invalidLabel(index, 'typology', 'must be a non-empty string');
    const byId = level === 'transaction' ? transactions : users;
    const list = byId.get(id);
    if (list === undefined) byId.set(id, [typology]);
    else if (!list.includes(typology)) list.push(typology);
    typologies.add(typology);
    const scheme = (label as Partial<SimulationLabel>).scheme;
    if (level === 'user' && typeof scheme === 'string' && scheme !== '') {
      const entry = schemes.get(scheme);
      if (entry === undefined) schemes.set(scheme, { typology, users: [id] });
      else if (!entry.users.includes(id)) entry.users.push(id);
    }
    index++;
  }
  return { transactions, users, typologies: [...typologies].sort(), schemes };
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

/**
 * How many of a typology's schemes `hitUsers` reaches: a scheme is found when any of its accounts is
 * hit, and its key account when the first one is. Recall is `null` for a typology without schemes.
 */
export function schemeScore(hitUsers: ReadonlySet<string>, schemes: ReadonlyMap<string, LabelledScheme>, typology: string): SchemeScore {
  let total = 0;
  let found = 0;
  let keyAccounts = 0;
  for (const scheme of schemes.values()) {
    if (scheme.typology !== typology) continue;
    total++;
    if (scheme.users.some((u) => hitUsers.has(u))) found++;
    if (hitUsers.has(scheme.users[0] as string)) keyAccounts++;
  }
  return {
    schemes: total,
    found,
    keyAccountsFound: keyAccounts,
    recall: total > 0 ? round(found / total) : null,
    keyAccountRecall: total > 0 ? round(keyAccounts / total) : null,
  };
}

/**
 * The score of `hits` entities of which `truePositives` are positives, against `positives` in all:
 * precision `tp / hits`, recall `tp / positives`, F1 their harmonic mean (`null` where undefined).
 */
export function detectionScore(truePositives: number, hits: number, positives: number): DetectionScore {
  const precision = hits > 0 ? truePositives / hits : null;
  const recall = positives > 0 ? truePositives / positives : null;
  const f1 =
    precision !== null && recall !== null && precision + recall > 0
      ? (2 * precision * recall) / (precision + recall)
      : precision === null || recall === null
        ? null
        : 0;
  return {
    truePositives,
    falsePositives: hits - truePositives,
    falseNegatives: positives - truePositives,
    precision: precision === null ? null : round(precision),
    recall: recall === null ? null : round(recall),
    f1: f1 === null ? null : round(f1),
  };
}
