import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { exactDecimal } from '../../../src/rules/kits/evidence.js';

describe('exactDecimal', () => {
  const rows: { num: bigint; den: bigint; expected: string }[] = [
    { num: 15n, den: 4n, expected: '3.75' },
    { num: 10n, den: 1n, expected: '10' },
    { num: 0n, den: 8n, expected: '0' },
    { num: 1n, den: 10n ** 18n, expected: '0.000000000000000001' },
    { num: 3n, den: 200n, expected: '0.015' },
    { num: -7n, den: 2n, expected: '-3.5' },
    { num: 120n, den: 100n, expected: '1.2' },
  ];
  it.each(rows)('$num / $den is $expected', ({ num, den, expected }) => {
    expect(exactDecimal(num, den)).toBe(expected);
  });

  it('refuses a quotient that does not terminate', () => {
    expect(() => exactDecimal(1n, 3n)).toThrow(RangeError);
  });

  test.prop([fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 })])(
    'reads back as the same fraction: text × den = num',
    (num, twos, fives) => {
      const den = 2n ** BigInt(twos) * 5n ** BigInt(fives);
      const text = exactDecimal(num, den);
      const [whole, fraction = ''] = text.replace('-', '').split('.');
      const units = BigInt(`${whole}${fraction}`) * (text.startsWith('-') ? -1n : 1n);
      expect(units * den).toBe(num * 10n ** BigInt(fraction.length));
      expect(fraction.endsWith('0')).toBe(false);
    },
  );
});
