import { describe, expect, it } from 'vitest';
import { nextCraScore, riskLevelScore, scoreToRiskLevel } from '../../src/domain/risk-score.js';

describe('scoreToRiskLevel', () => {
  const rows = [
    { name: 'zero is VERY_LOW', score: 0, expected: 'VERY_LOW' },
    { name: 'just below 20 is VERY_LOW', score: 19.99, expected: 'VERY_LOW' },
    { name: 'exactly 20 is LOW', score: 20, expected: 'LOW' },
    { name: 'exactly 60 is HIGH', score: 60, expected: 'HIGH' },
    { name: 'just below 80 is HIGH', score: 79.99, expected: 'HIGH' },
    { name: 'exactly 80 is VERY_HIGH', score: 80, expected: 'VERY_HIGH' },
    { name: '100 (inclusive upper bound) is VERY_HIGH', score: 100, expected: 'VERY_HIGH' },
    { name: 'below the first band is VERY_LOW', score: -5, expected: 'VERY_LOW' },
    { name: 'above the last band is VERY_HIGH', score: 150, expected: 'VERY_HIGH' },
  ];
  for (const row of rows) it(row.name, () => expect(scoreToRiskLevel(row.score)).toBe(row.expected));

  it('maps each level to the midpoint of its band', () => {
    expect(['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'].map((l) => riskLevelScore(l as never))).toEqual([10, 30, 50, 70, 90]);
  });
});

describe('nextCraScore', () => {
  it('is the TRS for a user without a CRA and the moving average otherwise', () => {
    expect(nextCraScore(null, 70)).toBe(70);
    expect(nextCraScore(70, 10)).toBe(40);
  });
});
