/**
 * Canonical JSON: keys sorted at every level, no whitespace, `undefined` members dropped — the
 * text that decides whether two payloads are the same (replays, batch fingerprints).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/canonical-json.js';

/**
 * The reference: the plain definition (keys sorted, parts joined). Stored fingerprints and replays
 * compare these texts, so the text must never change.
 */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : reference(v))).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${reference(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** `value` with the keys of every object in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a member named __proto__ stays a member.
  for (const key of Object.keys(value).reverse())
    Object.defineProperty(out, key, { value: reversed((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

describe('canonicalJson', () => {
  test.prop([fc.jsonValue()])('is the text of the plain definition (keys sorted at every level)', (value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });

  test.prop([fc.jsonValue()])('does not depend on the order of keys', (value) => {
    expect(canonicalJson(reversed(value))).toBe(canonicalJson(value));
  });

  it('writes the same text for keys past the ones whose quoted names it keeps', () => {
    const many = Object.fromEntries(Array.from({ length: 2_500 }, (_, i) => [`k\u0000"${i}`, i]));
    expect(canonicalJson(many)).toBe(reference(many));
    expect(canonicalJson(many)).toBe(reference(many));
    expect(canonicalJson(JSON.parse('{"constructor":2,"__proto__":1}'))).toBe('{"__proto__":1,"constructor":2}');
  });

  it('drops undefined members, writes undefined array items as null, and sorts keys by code unit', () => {
    expect(canonicalJson({ b: 1, a: undefined, B: [undefined, 2], é: true, e: 'x' })).toBe('{"B":[null,2],"b":1,"e":"x","é":true}');
  });
});
