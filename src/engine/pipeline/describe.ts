/** Rule descriptions: `{{name}}` templates rendered with a hit's variables. */
import type { RuleHit } from '../../rules/types.js';

/**
 * Renders `{{name}}` placeholders; unknown names render empty. `templates` keeps each template's
 * compiled form between calls (the evaluator cache's); without it, the template is compiled here.
 */
export function renderDescription(
  template: string,
  vars: Readonly<Record<string, string | number>> | undefined,
  templates: Map<string, readonly TemplatePart[]> = new Map(),
): string {
  const parts = compiledTemplate(template, templates);
  if (parts.length === 1 && typeof parts[0] === 'string') return parts[0];
  // Joined, not concatenated with `+=`: the description is kept with the stored result, and a
  // join gives one flat string where `+=` leaves a tree of one cons-string per part.
  // A list of its own per call: a var's conversion may render another description meanwhile.
  const pieces: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as TemplatePart;
    if (typeof part === 'string') {
      pieces.push(part);
    } else {
      // Own properties only: `{{toString}}` must not render Object.prototype's function.
      const v = vars !== undefined && Object.hasOwn(vars, part.name) ? vars[part.name] : undefined;
      if (v !== undefined) pieces.push(String(v));
    }
  }
  return pieces.join('');
}

/** A piece of a compiled template: literal text, or a placeholder's name. */
export type TemplatePart = string | { readonly name: string };

/** A template split into literal text and placeholders, once per `templates` map. */
function compiledTemplate(template: string, templates: Map<string, readonly TemplatePart[]>): readonly TemplatePart[] {
  let parts = templates.get(template);
  if (parts) return parts;
  const list: TemplatePart[] = [];
  const pattern = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
  let last = 0;
  for (let m = pattern.exec(template); m !== null; m = pattern.exec(template)) {
    if (m.index > last) list.push(template.slice(last, m.index));
    list.push({ name: m[1] as string });
    last = m.index + m[0].length;
  }
  if (last < template.length || list.length === 0) list.push(template.slice(last));
  parts = Object.freeze(list);
  templates.set(template, parts);
  return parts;
}

/** The description of an instance's hits: each hit's rendering, once each, joined by spaces. */
export function describeHits(template: string, hits: readonly RuleHit[], templates: Map<string, readonly TemplatePart[]>): string {
  // One hit per side at most in practice: the common shapes without a Set or a list.
  if (hits.length === 1) return renderDescription(template, (hits[0] as RuleHit).vars, templates);
  if (hits.length === 2) {
    const first = renderDescription(template, (hits[0] as RuleHit).vars, templates);
    // Both sides of one check usually share their variables: rendered once.
    if ((hits[0] as RuleHit).vars === (hits[1] as RuleHit).vars) return first;
    const second = renderDescription(template, (hits[1] as RuleHit).vars, templates);
    return first === second ? first : `${first} ${second}`;
  }
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const h of hits) {
    const text = renderDescription(template, h.vars, templates);
    if (!seen.has(text)) {
      seen.add(text);
      parts.push(text);
    }
  }
  return parts.join(' ');
}
