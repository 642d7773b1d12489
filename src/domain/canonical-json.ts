/**
 * Canonical JSON text: object keys sorted, no whitespace, `undefined` members dropped. Two
 * payloads are "the same" for idempotent replays exactly when their canonical texts are equal.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i === 0 ? '' : ',') + (v === undefined ? 'null' : canonicalJson(v));
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  sortKeys(keys);
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * Sorts `keys` in place in the order `Array.prototype.sort` gives strings (UTF-16 code units): by
 * insertion, which allocates nothing and is quickest for an object's few keys (and for keys sorted
 * already, as a canonical text parsed back has them).
 */
function sortKeys(keys: string[]): void {
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
}
