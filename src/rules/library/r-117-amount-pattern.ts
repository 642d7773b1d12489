import { Type } from '@sinclair/typebox';
import { currencyExponent } from '../../domain/codes.js';
import { MONEY_SCALE, MONEY_SCALE_DIGITS, formatMoney, toScaled } from '../../domain/money.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import { defineRule } from '../define-rule.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    patterns: Type.Array(
      Type.String({
        pattern: '^[0-9]{1,20}(\\.[0-9]{1,8})?$',
        'x-pattern-message': 'must be digits, optionally followed by a point and 1 to 8 decimal digits',
        title: 'Pattern',
        description: "Digits the amount ends with, e.g. '999' or '999.99'.",
      }),
      {
        title: 'Patterns',
        description: 'The origin amount hits when its decimal text ends with any of these.',
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
      },
    ),
    checkDecimal: Type.Optional(
      Type.Boolean({
        title: 'Check decimals',
        description:
          "true: match the amount with its minor-unit decimals (1999.9 EUR is '1999.90') against the whole pattern. false (default): match the integer part of the amount against the integer part of each pattern ('999.99' acts as '999').",
      }),
    ),
  },
  { additionalProperties: false, title: 'R-117 parameters' },
);

/**
 * The exact decimal text of a scaled amount with at least the currency's minor-unit decimals
 * (`1999.9 EUR` → `1999.90`, `1999 JPY` → `1999`, `0.125 EUR` → `0.125`); never floating noise.
 */
function renderAmount(scaled: bigint, currency: string): { whole: string; full: string } {
  const abs = scaled < 0n ? -scaled : scaled;
  const whole = (abs / MONEY_SCALE).toString();
  const fraction = (abs % MONEY_SCALE).toString().padStart(MONEY_SCALE_DIGITS, '0').replace(/0+$/, '');
  const digits = Math.max(currencyExponent(currency), fraction.length);
  return { whole, full: digits > 0 ? `${whole}.${fraction.padEnd(digits, '0')}` : whole };
}

/**
 * R-117 Transaction amount matches a pattern: the origin amount ends with a configured digit
 * pattern — e.g. just-below-a-limit amounts (`…999.99`) typical of structuring and of card-testing
 * and fraud scripts. Hits the sender side only.
 *
 * The amount is rendered exactly from its scaled value with at least its currency's ISO 4217
 * minor-unit decimals (`1999.9 EUR` → `1999.90`). With `checkDecimal: true` that full text must end
 * with the pattern (`'999.99'` hits `1999.99` but not `1999.90`; `'99'` hits any amount ending in
 * 99 cents). With `checkDecimal` false or omitted, only integer parts are compared: the amount's
 * integer digits must end with the pattern's integer part (`'999.99'` and `'999'` both hit
 * `1999.50` and `999`, neither hits `998.99`).
 */
export const r117AmountPattern = defineRule({
  id: 'R-117',
  name: 'Transaction amount matches a pattern',
  description: 'Origin transaction amount ends with a configured pattern.',
  descriptionTemplate: 'Transaction amount {{amount}} matches the pattern {{pattern}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { patterns: ['999.99'] },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection'],
  typologies: ['Structuring', 'Card testing'],
  series: [],
  check({ transaction, parameters }): RuleHit[] {
    const details = transaction.originAmountDetails;
    if (!details) return [];
    const scaled = toScaled(details.transactionAmount);
    const { whole, full } = renderAmount(scaled, details.transactionCurrency);
    const checkDecimal = parameters.checkDecimal === true;
    const pattern = parameters.patterns.find((p) => (checkDecimal ? full.endsWith(p) : whole.endsWith(p.split('.')[0] as string)));
    if (pattern === undefined) return [];
    // The listed pattern that held, and the amount's text it was matched against (its ending).
    const evidence = {
      direction: 'ORIGIN',
      kind: 'amountPattern',
      value: pattern,
      comparison: 'in',
      limit: '/parameters/patterns',
      amount: checkDecimal ? full : whole,
      currency: details.transactionCurrency,
    } as RuleEvidence;
    return [{ direction: 'ORIGIN', vars: { amount: formatMoney(scaled, details.transactionCurrency), pattern }, evidence: [evidence] }];
  },
});
