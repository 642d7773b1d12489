import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';

const doc = readFileSync(new URL('../../docs/rules.md', import.meta.url), 'utf8');

describe('docs/rules.md', () => {
  it('has a section and a table row, with its type, for every rule of the registry (regenerate with scripts/generate-rules-doc.mjs)', async () => {
    const rules = await createEngine().listRules();
    expect(rules.length).toBeGreaterThan(30);
    for (const rule of rules) {
      expect(doc).toContain(`\n## ${rule.id} — ${rule.name}\n`);
      expect(doc).toContain(`\n| ${rule.id} | ${rule.name} | ${rule.type} | ${rule.defaultAction} / ${rule.defaultNature} |`);
      expect(doc).toContain(`- type: \`${rule.type}\`; default action / nature: \`${rule.defaultAction}\` / \`${rule.defaultNature}\``);
      expect(doc).toContain(`- description on a hit: \`${rule.descriptionTemplate}\``);
    }
  });
});
