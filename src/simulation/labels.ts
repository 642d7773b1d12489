/**
 * The labels of a history — which transactions and users took part in which typology — and the
 * precision, recall and F1 of hits against them.
 */
import { TxmonError } from '../errors.js';
import type { DetectionScore, SimulationLabel } from './types.js';

/** Labels by id. */
export interface LabelIndex {
  readonly transactions: ReadonlyMap<string, readonly string[]>;
  readonly users: ReadonlyMap<string, readonly string[]>;
  /** Every typology named, sorted. */
  readonly typologies: readonly string[];
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
    index++;
  }
  return { transactions, users, typologies: [...typologies].sort() };
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

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
