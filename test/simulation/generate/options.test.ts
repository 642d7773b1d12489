import { describe, expect, it } from 'vitest';
import { DEFAULT_START, GenerateOptionsError, TYPOLOGIES, resolveGenerateOptions, type GenerateOptions } from '../../../src/simulation/generate/index.js';

const base: GenerateOptions = { users: 1000, days: 30, seed: 1 };

describe('resolveGenerateOptions', () => {
  it('applies the defaults', () => {
    expect(resolveGenerateOptions(base)).toEqual({ ...base, start: DEFAULT_START, typologyRate: 0.025, minSchemes: 3, typologies: TYPOLOGIES });
    expect(DEFAULT_START).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });

  it('keeps the chosen typologies in the canonical order, once each', () => {
    expect(resolveGenerateOptions({ ...base, typologies: ['cycle', 'fan_in', 'cycle'] }).typologies).toEqual(['fan_in', 'cycle']);
  });

  it('allows fewer users without typologies', () => {
    expect(resolveGenerateOptions({ ...base, users: 5, typologies: [] }).users).toBe(5);
  });

  it.each([
    { name: 'too few users for typologies', options: { users: 99 }, option: 'users' },
    { name: 'a fractional user count', options: { users: 1000.5 }, option: 'users' },
    { name: 'a history shorter than 14 days', options: { days: 13 }, option: 'days' },
    { name: 'a negative seed', options: { seed: -1 }, option: 'seed' },
    { name: 'a start that is not a midnight', options: { start: DEFAULT_START + 1 }, option: 'start' },
    { name: 'a history past 2100', options: { start: Date.UTC(2099, 11, 15) }, option: 'start' },
    { name: 'a rate above 0.25', options: { typologyRate: 0.3 }, option: 'typologyRate' },
    { name: 'a rate that is not a number', options: { typologyRate: Number.NaN }, option: 'typologyRate' },
    { name: 'a negative fewest-schemes', options: { minSchemes: -1 }, option: 'minSchemes' },
    { name: 'an unknown typology', options: { typologies: ['smurfing'] }, option: 'typologies' },
  ])('refuses $name, naming the option', ({ options, option }) => {
    let error: unknown;
    try {
      resolveGenerateOptions({ ...base, ...options } as GenerateOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GenerateOptionsError);
    expect((error as GenerateOptionsError).option).toBe(option);
  });
});
