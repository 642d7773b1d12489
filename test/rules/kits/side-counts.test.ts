import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isShareAbovePercent, percentOf } from '../../../src/rules/kits/side-counts.js';

/** A decimal text as an integer at scale 10^10 (the precision of `percentOf`). */
function atScale10(decimal: string): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * 10n ** 10n + BigInt(fraction.padEnd(10, '0'));
}

describe('percentOf (the exact limit of a share\u2019s evidence)', () => {
  it.each([
    [1, 3, '0.03'],
    [33.33, 2, '0.6666'],
    [50, 4, '2'],
    [0, 7, '0'],
    [100, 0, '0'],
    [12.5, 3, '0.375'],
    [0.00000001, 1, '0.0000000001'],
  ])('%s %% of %s is %s', (percent, count, expected) => {
    expect(percentOf(percent, count)).toBe(expected);
  });

  test.prop([fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000_000_000 })])(
    'a count is above the limit exactly when the share is above the percentage',
    (part, total, percentTimes1e8) => {
      const percent = percentTimes1e8 / 1e8;
      const above = BigInt(part) * 10n ** 10n > atScale10(percentOf(percent, total));
      expect(above).toBe(isShareAbovePercent(part, total, percent));
    },
  );
});
