import { describe, expect, it } from 'vitest';
import { LABELS_HEADER, formatHistoryLine, formatLabelRow } from '../../../src/simulation/generate/output.js';

describe('formatLabelRow', () => {
  it('writes the four columns of the header', () => {
    expect(LABELS_HEADER).toBe('level,id,typology,scheme\n');
    expect(formatLabelRow({ level: 'user', id: 'u-000001', typology: 'fan_in', scheme: 's-0001' })).toBe('user,u-000001,fan_in,s-0001\n');
  });

  it('quotes a field with a comma or a quote', () => {
    expect(formatLabelRow({ level: 'transaction', id: 'a,"b"', typology: 'cycle', scheme: 's-0002' })).toBe('transaction,"a,""b""",cycle,s-0002\n');
  });
});

describe('formatHistoryLine', () => {
  it('writes the body alone, never the label', () => {
    const line = formatHistoryLine({
      kind: 'transaction',
      transaction: { type: 'TRANSFER', transactionId: 't-0000001', timestamp: 1 },
      label: { typology: 'cycle', scheme: 's-0001' },
    });
    expect(line).toBe('{"type":"TRANSFER","transactionId":"t-0000001","timestamp":1}\n');
  });
});
