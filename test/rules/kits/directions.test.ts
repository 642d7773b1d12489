import { describe, expect, it } from 'vitest';
import { sideSeries } from '../../../src/rules/kits/directions.js';

describe('sideSeries', () => {
  it('maps each side check to the series it reads', () => {
    expect(sideSeries('sending', 'receiving')).toEqual(['user-sending', 'user-receiving']);
    expect(sideSeries('all', 'all')).toEqual(['user-all']);
    expect(sideSeries('none', 'all')).toEqual(['user-all']);
    expect(sideSeries('sending', 'none')).toEqual(['user-sending']);
    expect(sideSeries('none', 'none')).toEqual([]);
    // A value validation would refuse: every user series, never fewer.
    expect(sideSeries('both' as never, 'none')).toEqual(['user-sending', 'user-receiving', 'user-all']);
  });
});
