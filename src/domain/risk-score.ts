/**
 * Risk scores and levels (docs/wire-format.md#risk-scoring): the score bands of the five risk
 * levels, and the customer risk assessment (CRA) that moves with every transaction's risk score. Pure.
 */
import { RISK_LEVELS, type RiskLevel } from './enums.js';

/** Score bands: `[b0, b1, b2, b3, b4, b5]` — VERY_LOW is [b0, b1), …, VERY_HIGH is [b4, b5]. */
export type RiskBands = readonly [number, number, number, number, number, number];
/** Default bands (docs/wire-format.md#risk-scoring): [0,20) [20,40) [40,60) [60,80) [80,100]. */
export const DEFAULT_RISK_BANDS: RiskBands = Object.freeze([0, 20, 40, 60, 80, 100]) as RiskBands;

/** The level of a score: below the first band → VERY_LOW, above the last → VERY_HIGH. */
export function scoreToRiskLevel(score: number, bands: RiskBands = DEFAULT_RISK_BANDS): RiskLevel {
  for (let i = 1; i < 5; i++) if (score < (bands[i] as number)) return RISK_LEVELS[i - 1] as RiskLevel;
  return 'VERY_HIGH';
}

/** The score of a level: the midpoint of its band (docs/wire-format.md#risk-scoring). */
export function riskLevelScore(level: RiskLevel, bands: RiskBands = DEFAULT_RISK_BANDS): number {
  const i = RISK_LEVELS.indexOf(level);
  return ((bands[i] as number) + (bands[i + 1] as number)) / 2;
}

/**
 * The next CRA (dynamic customer risk) score: the moving average of the old CRA and the TRS, or
 * the TRS for a user without one (`FORMULA_LEGACY_MOVING_AVG` of
 * docs/wire-format.md#risk-scoring, no KYC score). Two decimals.
 */
export function nextCraScore(old: number | null, trs: number): number {
  return Math.round((old === null ? trs : (old + trs) / 2) * 100) / 100;
}
