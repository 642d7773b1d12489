import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/index.js';
import { renderDescription } from '../../../src/engine/pipeline/describe.js';
import { r2TransactionAmount } from '../../../src/rules/library/r-2-transaction-amount.js';
import type { RuleHit } from '../../../src/rules/types.js';
import { T0, fixedClock, sequentialIds, tx } from '../../helpers.js';

/** A reference rendering (`+=`, own properties only), with its own template parser. */
function referenceRender(template: string, vars: Readonly<Record<string, unknown>> | undefined): string {
  const pattern = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
  let out = '';
  let last = 0;
  for (let m = pattern.exec(template); m !== null; m = pattern.exec(template)) {
    out += template.slice(last, m.index);
    const name = m[1] as string;
    const v = vars !== undefined && Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (v !== undefined) out += String(v);
    last = m.index + m[0].length;
  }
  return out + template.slice(last);
}

function referenceDescribe(template: string, hits: readonly RuleHit[]): string {
  const seenText = new Set<string>();
  const parts: string[] = [];
  for (const h of hits) {
    const text = referenceRender(template, h.vars);
    if (!seenText.has(text)) {
      seenText.add(text);
      parts.push(text);
    }
  }
  return parts.join(' ');
}

const NAMES = ['a', 'b', 'toString', '__proto__', 'constructor', 'hasOwnProperty', 'x_1', 'valueOf'] as const;
const templateArb = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(...NAMES).map((n) => `{{${n}}}`),
      fc.constantFrom(...NAMES).map((n) => `{{ ${n}\t}}`),
      fc.constantFrom('{{', '}}', '{a}', '{{}}', '{{a b}}', '{{-}}', '{{{a}}}'),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));
const valueArb = fc.oneof(fc.string({ maxLength: 5 }), fc.double(), fc.integer(), fc.constantFrom(-0, NaN, 1e21, Infinity, ''));
const varsArb = fc.option(
  fc.tuple(fc.array(fc.tuple(fc.constantFrom(...NAMES), valueArb), { maxLength: 6 }), fc.boolean()).map(([entries, nullProto]) => {
    const o = Object.fromEntries(entries) as Record<string, string | number>;
    return nullProto ? Object.assign(Object.create(null) as Record<string, string | number>, o) : o;
  }),
  { nil: undefined },
);

describe('renderDescription', () => {
  const rows: { name: string; template: string; vars: Record<string, string | number> | undefined; expected: string }[] = [
    { name: 'text without placeholders is returned as is', template: 'plain {text}', vars: undefined, expected: 'plain {text}' },
    { name: 'placeholders are replaced', template: '{{a}} and {{ b }}', vars: { a: 'x', b: 2 }, expected: 'x and 2' },
    { name: 'unknown names render empty', template: '[{{missing}}]', vars: {}, expected: '[]' },
    { name: 'a value is not re-rendered as a template', template: '{{a}}', vars: { a: '{{b}}', b: 'no' }, expected: '{{b}}' },
    { name: 'inherited property names render empty', template: '[{{constructor}}][{{toString}}]', vars: {}, expected: '[][]' },
  ];
  for (const row of rows) it(row.name, () => expect(renderDescription(row.template, row.vars)).toBe(row.expected));

  fcTest.prop([templateArb, varsArb], { numRuns: 500 })('renders exactly as the reference (own vars only, missing vars empty)', (template, vars) => {
    const want = referenceRender(template, vars);
    expect(renderDescription(template, vars)).toBe(want);
    expect(renderDescription(template, vars)).toBe(want);
  });

  it('a var whose conversion throws leaves no trace in the next rendering', () => {
    const bad = {
      toString: () => {
        throw new Error('boom');
      },
    } as unknown as string;
    expect(() => renderDescription('A {{x}} B {{y}}', { x: 'left', y: bad })).toThrow('boom');
    expect(renderDescription('C {{x}} D', { x: 'ok' })).toBe('C ok D');
    expect(renderDescription('plain {{x}}', undefined)).toBe('plain ');
  });

  it('a var computed by a getter that itself renders a template (re-entrant call) keeps the outer text', () => {
    // Type-correct input: the getter returns a string. The inner call must leave the outer
    // rendering alone (were a scratch buffer shared, it would drop everything rendered before the var).
    const vars = {
      amount: '10.00 EUR',
      get detail(): string {
        return renderDescription('{{n}} of {{m}}', { n: 1, m: 2 });
      },
    };
    const template = 'Paid {{amount}} ({{detail}}) today.';
    expect(renderDescription(template, vars)).toBe(referenceRender(template, vars));
    expect(renderDescription(template, vars)).toBe('Paid 10.00 EUR (1 of 2) today.');
  });
});

describe('describeHits through the engine: descriptions and hit directions of a rule’s hits', () => {
  let next: readonly RuleHit[] = [];
  const TEMPLATE = 'Hit {{n}} on {{side}}.';
  const hostRule = { ...r2TransactionAmount, id: 'HOST-HITS', name: 'Host hits', descriptionTemplate: TEMPLATE, check: () => next };

  async function engineWithHostRule() {
    const engine = createEngine({ rules: [hostRule as never], clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(3) });
    await engine.createRuleInstance({ ruleId: 'HOST-HITS', parameters: { transactionAmountThreshold: { EUR: 1 } } });
    return engine;
  }

  const hitArb = fc.record({
    direction: fc.constantFrom('ORIGIN', 'DESTINATION') as fc.Arbitrary<RuleHit['direction']>,
    vars: fc.option(fc.record({ n: fc.constantFrom(1, 2, '1', 'x'), side: fc.constantFrom('o', 'd') }, { requiredKeys: [] }), { nil: undefined }),
  });

  fcTest.prop([fc.array(fc.array(hitArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 })], { numRuns: 60 })(
    'description and hitDirections equal a Set-based dedupe for 1, 2 and 3+ hits',
    async (runs) => {
      const engine = await engineWithHostRule();
      for (const hits of runs) {
        next = hits.map((h) => (h.vars === undefined ? { direction: h.direction } : { direction: h.direction, vars: h.vars }));
        const result = await engine.createTransaction(tx({ timestamp: T0 }));
        const rule = result.executedRules[0] as { ruleDescription: string; ruleHitMeta: { hitDirections: string[] } };
        expect(rule.ruleDescription).toBe(referenceDescribe(TEMPLATE, next));
        const dirs = new Set(next.map((h) => h.direction));
        expect(rule.ruleHitMeta.hitDirections).toEqual((['ORIGIN', 'DESTINATION'] as const).filter((d) => dirs.has(d)));
        expect(result.hitRules[0]?.ruleDescription).toBe(rule.ruleDescription);
      }
    },
  );

  it('a host rule var computed by a getter that renders a template keeps the stored description intact', async () => {
    const engine = await engineWithHostRule();
    const vars = {
      get n(): string {
        return renderDescription('#{{k}}', { k: 7 });
      },
      side: 'origin',
    };
    next = [{ direction: 'ORIGIN', vars }];
    const t = tx({ timestamp: T0 });
    const result = await engine.createTransaction(t);
    expect(result.executedRules[0]?.ruleDescription).toBe('Hit #7 on origin.');
  });
});
