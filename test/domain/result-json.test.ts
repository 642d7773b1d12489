import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { stringifyBody } from '../../src/domain/result-json.js';
import { createEngine } from '../../src/index.js';

const notHit = Object.freeze({
  ruleInstanceId: 'r1',
  ruleId: 'R-2',
  ruleName: 'n',
  ruleDescription: 'd',
  ruleAction: 'FLAG',
  ruleHit: false,
  nature: 'AML',
  labels: Object.freeze([]),
  isShadow: false,
});

describe('stringifyBody', () => {
  test.prop([fc.jsonValue()])('equals JSON.stringify for any JSON value', (value) => {
    expect(stringifyBody(value)).toBe(JSON.stringify(value));
  });

  test.prop([fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.oneof(fc.constant(notHit), fc.jsonValue())), fc.array(fc.jsonValue())])(
    'equals JSON.stringify for result-shaped bodies, with shared frozen rule results and arbitrary neighbours',
    (rest, executedRules, hitRules) => {
      const body = { ...rest, executedRules, hitRules, skipped: undefined };
      expect(stringifyBody(body)).toBe(JSON.stringify(body));
      // Twice: the second answer comes from the cached text of the shared results.
      expect(stringifyBody(body)).toBe(JSON.stringify(body));
    },
  );

  it('equals JSON.stringify on engine results, hit and not hit', async () => {
    const engine = createEngine();
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
    await engine.createRuleInstance({ ruleId: 'R-14', parameters: { highRiskCountries: ['IR'] } });
    for (const [i, amount] of [10, 5000, 20].entries()) {
      const result = await engine.createTransaction({
        type: 'TRANSFER',
        transactionId: `t-${i}`,
        timestamp: 1_700_000_000_000 + i,
        originUserId: 'u-1',
        originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'DE' },
      });
      expect(stringifyBody(result)).toBe(JSON.stringify(result));
    }
  });

  it('keeps the text of a frozen list of not-hit results, and not of a list with a hit', () => {
    const hit = Object.freeze({ ...notHit, ruleInstanceId: 'r2', ruleHit: true });
    const misses = Object.freeze([notHit, notHit]);
    const withHit = Object.freeze([notHit, hit]);
    for (let i = 0; i < 2; i++) {
      for (const executedRules of [misses, withHit]) {
        const body = { transactionId: 't', executedRules, hitRules: [], status: 'ALLOW' };
        expect(stringifyBody(body)).toBe(JSON.stringify(body));
      }
    }
  });

  it('leaves a body with toJSON to JSON.stringify', () => {
    const body = { executedRules: [notHit], toJSON: () => ({ replaced: true }) };
    expect(stringifyBody(body)).toBe('{"replaced":true}');
  });
});
