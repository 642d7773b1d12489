import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchemaText } from '../../src/cli/config-file.js';
import { createAjv } from '../../src/validation/index.js';

const published = readFileSync(new URL('../../docs/txmon-config.schema.json', import.meta.url), 'utf8');

describe('docs/txmon-config.schema.json', () => {
  it('is the schema of the code (regenerate with: npm run build && node dist/cli.js config schema > docs/txmon-config.schema.json)', () => {
    expect(published).toBe(configJsonSchemaText());
  });

  it.each([
    ['docs/configuration.md', ''],
    ['README.md', '## Configuration file\n'],
  ])('accepts every JSON example of %s', (page, heading) => {
    const validate = createAjv().compile(JSON.parse(published) as object);
    const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
    const from = text.indexOf(heading);
    const next = text.indexOf('\n## ', from + heading.length);
    const section = text.slice(from, next < 0 || heading === '' ? undefined : next);
    const examples = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as unknown);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it("accepts the example of docs/configuration.md and refuses a file with a misspelt field, as the server's check does", () => {
    const validate = createAjv().compile(JSON.parse(published) as object);
    const example = {
      store: 'pglite:./txmon-data',
      apiKeys: { file: './api-keys.txt' },
      ruleInstances: [{ id: 'big-transfers', ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: 10000 } } }],
      webhooks: [{ url: 'https://hooks.example.com/txmon', secretFile: './webhook-secret.txt' }],
    };
    expect(validate(example)).toBe(true);
    expect(validate({ ...example, webhook: [] })).toBe(false);
  });
});
