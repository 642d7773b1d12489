import { describe, expect, it } from 'vitest';
import { resolveSettings, selectRiskLevel } from '../../../src/engine/pipeline/settings.js';
import type { RiskLevel, RuleUser, Transaction } from '../../../src/index.js';
import { prepare, transaction, user } from './fixtures.js';

describe('selectRiskLevel', () => {
  const rows: { name: string; tx: Transaction; origin: RuleUser | null; destination: RuleUser | null; expected: RiskLevel }[] = [
    { name: 'sender level', tx: transaction(), origin: user('alice', 'LOW'), destination: user('bob', 'HIGH'), expected: 'LOW' },
    { name: 'sender without a level → default', tx: transaction(), origin: user('alice', null), destination: user('bob', 'HIGH'), expected: 'MEDIUM' },
    { name: 'no sender → receiver level', tx: transaction({ originUserId: undefined }), origin: null, destination: user('bob', 'HIGH'), expected: 'HIGH' },
    {
      name: 'no users → default',
      tx: transaction({ originUserId: undefined, destinationUserId: undefined }),
      origin: null,
      destination: null,
      expected: 'MEDIUM',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(selectRiskLevel(row.tx, row.origin, row.destination, 'MEDIUM')).toBe(row.expected);
    });
  }
});

describe('resolveSettings', () => {
  it('takes the per-level parameters and action of the level', () => {
    const p = prepare({
      ruleId: 'R-14',
      riskLevelParameters: {
        VERY_LOW: { highRiskCountries: ['IR'] },
        LOW: { highRiskCountries: ['KP'] },
        MEDIUM: { highRiskCountries: ['IR'] },
        HIGH: { highRiskCountries: ['IR'] },
        VERY_HIGH: { highRiskCountries: ['IR'] },
      },
      riskLevelActions: { VERY_LOW: 'FLAG', LOW: 'BLOCK', MEDIUM: 'FLAG', HIGH: 'FLAG', VERY_HIGH: 'FLAG' },
    });
    expect(resolveSettings(p.instance, 'LOW')).toMatchObject({ riskLevel: 'LOW', parameters: { highRiskCountries: ['KP'] }, action: 'BLOCK' });
    expect(resolveSettings(p.instance, 'HIGH')).toMatchObject({ parameters: { highRiskCountries: ['IR'] }, action: 'FLAG' });
  });
});
