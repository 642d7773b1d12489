export { canonicalJson } from '../domain/canonical-json.js';

/**
 * A deep copy of JSON data (plain objects, arrays, primitives). Used at the engine boundary so
 * stored state never shares objects with the caller's input. Recursion depth is bounded by
 * `assertSafeJson`, which runs first.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  // for-in with an own-property check: no key array per object.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = cloneJson(v);
  }
  return out as T;
}
