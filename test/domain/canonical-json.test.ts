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
  for (const key of Object.keys(value).reverse()) out[key] = reversed((value as Record<string, unknown>)[key]);
  return out;
}

describe('canonicalJson', () => {
  test.prop([fc.jsonValue()])('is the text of the plain definition (keys sorted at every level)', (value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });

  test.prop([fc.jsonValue()])('does not depend on the order of keys', (value) => {
    expect(canonicalJson(reversed(value))).toBe(canonicalJson(value));
  });

  it('drops undefined members, writes undefined array items as null, and sorts keys by code unit', () => {
    expect(canonicalJson({ b: 1, a: undefined, B: [undefined, 2], é: true, e: 'x' })).toBe('{"B":[null,2],"b":1,"e":"x","é":true}');
  });
});
