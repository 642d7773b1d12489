import { describe, expect, it } from 'vitest';
import { TYPOLOGIES, createSyntheticData, resolveGenerateOptions } from '../../../src/simulation/generate/index.js';
import { MAX_PARTICIPANT_SHARE, schemesPerTypology } from '../../../src/simulation/generate/schemes.js';

describe('schemesPerTypology', () => {
  it.each([
    { name: 'the floor wins on a small run', users: 1000, rate: 0.025, min: 3, expected: 3 },
    { name: 'the rate wins on a large run (10,000 × 0.025 / 24.5 accounts per round)', users: 10_000, rate: 0.025, min: 3, expected: 10 },
    { name: 'no typology, no scheme', users: 10_000, rate: 0.025, min: 3, expected: 0, typologies: [] },
  ])('$name', ({ users, rate, min, expected, typologies }) => {
    const options = resolveGenerateOptions({
      users,
      days: 30,
      seed: 1,
      typologyRate: rate,
      minSchemes: min,
      ...(typologies === undefined ? {} : { typologies }),
    });
    expect(schemesPerTypology(options)).toBe(expected);
  });
});

describe('planSchemes (through createSyntheticData)', () => {
  const data = createSyntheticData({ users: 1000, days: 30, seed: 3 });

  it('plans every typology at least three times on 1,000 users', () => {
    for (const typology of TYPOLOGIES) expect(data.schemeCounts[typology]).toBeGreaterThanOrEqual(3);
  });

  it('puts each account in at most one scheme, with 1 to 12 accounts per scheme, consumers only', () => {
    const users = new Map([...data.users()].map((u) => [u.userId, u]));
    const seen = new Set<string>();
    for (const scheme of data.schemes) {
      expect(scheme.userIds.length).toBeGreaterThanOrEqual(1);
      expect(scheme.userIds.length).toBeLessThanOrEqual(12);
      for (const id of scheme.userIds) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
        expect('legalEntity' in (users.get(id) ?? {})).toBe(false);
      }
    }
    expect(data.userLabels.map((l) => l.id).sort()).toEqual([...seen].sort());
  });

  it('never lets more than the capped share of customers take part', () => {
    const crowded = createSyntheticData({ users: 150, days: 14, seed: 3, minSchemes: 50 });
    expect(crowded.userLabels.length).toBeLessThanOrEqual(150 * MAX_PARTICIPANT_SHARE);
  });

  it('injects only the typologies asked for', () => {
    const only = createSyntheticData({ users: 300, days: 14, seed: 3, typologies: ['cycle'] });
    expect(new Set(only.schemes.map((s) => s.typology))).toEqual(new Set(['cycle']));
    expect(createSyntheticData({ users: 300, days: 14, seed: 3, typologies: [] }).userLabels).toEqual([]);
  });
});
