import { describe, expect, it } from 'vitest';
import { cloneJson } from '../../src/domain/json.js';

/** A reference copy over `Object.keys` (own enumerable string keys, in their order). */
function keysClone(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(keysClone);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = keysClone(v);
  }
  return out;
}

describe('cloneJson', () => {
  const samples = (): unknown[] => {
    const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: { c: 2 } });
    const arrayExtra = Object.assign([1, 2], { extra: 3 });
    const withHidden = { a: 1 };
    Object.defineProperty(withHidden, 'hidden', { value: 2, enumerable: false });
    return [
      { b: 1, 2: 'two', a: 2, 1: 'one', '-1': 'neg', '01': 'lead', toString: 't', hasOwnProperty: 'h', valueOf: 'v' },
      nullProto,
      { arr: arrayExtra },
      withHidden,
      { x: undefined, y: [undefined, 1] },
      { nested: [{ z: 1, y: 2 }, nullProto] },
    ];
  };

  it('keeps the same own keys, values and key order as a copy over Object.keys', () => {
    for (const s of samples()) {
      const copy = cloneJson(s);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(keysClone(s)));
      expect(Object.keys(copy as object)).toEqual(Object.keys(keysClone(s) as object));
    }
  });

  it('with an enumerable Object.prototype property (pollution), the copy does not pick it up', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 1;
    try {
      for (const s of samples()) {
        const copy = cloneJson(s) as Record<string, unknown>;
        expect(Object.hasOwn(copy, 'polluted')).toBe(false);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(keysClone(s)));
      }
    } finally {
      delete proto.polluted;
    }
  });
});
