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
  // Keys often come sorted already (a canonical text parsed back, a producer that sorts): then no sort.
  if (!isSorted(keys)) keys.sort();
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

/** Whether `keys` are in the order `Array.prototype.sort` gives (UTF-16 code units). */
function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  return true;
}
