/**
 * Plain JSON data: recognising it, copying it, freezing it. One home for these helpers, used by
 * every layer.
 */

/**
 * Whether an object is a plain object: prototype `Object.prototype` or `null` (also from another
 * realm). Arrays, class instances, `Date`, `Map` … are not.
 */
export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  // `Object.getPrototypeOf(proto) === null` also accepts plain objects from another realm.
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

/** Whether a value is a JSON object (an object that is neither `null` nor an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of JSON data (plain objects, arrays, primitives); properties whose value is
 * `undefined` are dropped, as JSON has none. Recursion depth is that of the data: call it on data
 * whose depth was checked (`copySafeJson` bounds client input).
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

/** Freezes a value and everything reachable from it; returns it. Already frozen parts are skipped. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
