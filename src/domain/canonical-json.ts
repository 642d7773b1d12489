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
      if (i > 0) out += ',';
      out += v === undefined ? 'null' : canonicalJson(v);
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  sortKeys(keys);
  let out = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (!first) out += ',';
    out += memberName(k);
    out += canonicalJson(v);
    first = false;
  }
  return `${out}}`;
}

/**
 * The texts `"key":` of the first {@link MEMBER_NAMES_KEPT} short keys met (at most
 * {@link MEMBER_NAME_LENGTH} characters: a payload's field names, never a client's long junk keys
 * pinned for the life of the process): payloads repeat their keys, and quoting a key anew for every
 * member was a third of the time of a canonical text. Only memoises what `JSON.stringify` gives,
 * so the text never depends on what came before.
 */
const MEMBER_NAMES = new Map<string, string>();
const MEMBER_NAMES_KEPT = 1_000;
const MEMBER_NAME_LENGTH = 64;

function memberName(key: string): string {
  let name = MEMBER_NAMES.get(key);
  if (name === undefined) {
    name = `${JSON.stringify(key)}:`;
    if (key.length <= MEMBER_NAME_LENGTH && MEMBER_NAMES.size < MEMBER_NAMES_KEPT) MEMBER_NAMES.set(key, name);
  }
  return name;
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
