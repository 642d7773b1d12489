/**
 * Runner-agnostic assertions for the conformance suite and the model check: they throw a plain
 * `Error` whose message names the check and the first differing path, so any test runner (vitest,
 * node:test, jest) reports them. No dependency on a runner's `expect`.
 */
import { isTxmonError } from '../errors.js';

const MAX_SHOWN = 300;

/** Renders a value for a failure message (bigint as `12n`, bytes as `Uint8Array[…]`), truncated. */
export function showValue(value: unknown): string {
  let text: string;
  try {
    text =
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v}n`;
        if (v instanceof Uint8Array) return `Uint8Array[${Array.from(v).join(',')}]`;
        if (v === undefined) return '<undefined>';
        return v;
      }) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The JSON Pointer of the first place where `actual` and `expected` differ, or `null` when they
 * are deeply equal. An `undefined` property counts as absent (a JSON round trip drops it), key
 * order is ignored, bigints and byte arrays compare by value, numbers with `Object.is` except that
 * `0` equals `-0`.
 */
export function findDifference(actual: unknown, expected: unknown, path = ''): string | null {
  if (actual === expected) return null;
  if (typeof actual === 'number' && typeof expected === 'number') return Number.isNaN(actual) && Number.isNaN(expected) ? null : path;
  if (!isObject(actual) || !isObject(expected)) return path;
  if (actual instanceof Uint8Array || expected instanceof Uint8Array) {
    if (!(actual instanceof Uint8Array && expected instanceof Uint8Array) || actual.length !== expected.length) return path;
    for (let i = 0; i < actual.length; i++) if (actual[i] !== expected[i]) return `${path}/${i}`;
    return null;
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) return path;
  if (Array.isArray(actual) && Array.isArray(expected)) {
    const n = Math.max(actual.length, expected.length);
    for (let i = 0; i < n; i++) {
      if (i >= actual.length || i >= expected.length) return `${path}/${i}`;
      const d = findDifference(actual[i], expected[i], `${path}/${i}`);
      if (d !== null) return d;
    }
    return null;
  }
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  for (const key of [...keys].sort()) {
    const d = findDifference(actual[key], expected[key], `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (d !== null) return d;
  }
  return null;
}

function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    current = isObject(current) ? current[key] : undefined;
  }
  return current;
}

/** Throws unless `actual` deeply equals `expected` (see {@link findDifference}). */
export function assertEqual(actual: unknown, expected: unknown, what: string): void {
  const at = findDifference(actual, expected);
  if (at === null) return;
  throw new Error(
    `${what}: values differ at "${at || '/'}": got ${showValue(valueAt(actual, at))}, expected ${showValue(valueAt(expected, at))}` +
      (at === '' ? '' : `\n  got:      ${showValue(actual)}\n  expected: ${showValue(expected)}`),
  );
}

/** Throws with `message` unless `condition` holds. */
export function assertTrue(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/**
 * Runs `fn` and throws unless it rejects with a TxmonError of `code` (checked by shape, so an
 * error from another copy of txmon counts too).
 */
export async function assertRejectsWithCode(fn: () => Promise<unknown>, code: string, what: string): Promise<void> {
  let outcome: unknown;
  try {
    await fn();
  } catch (error) {
    outcome = error;
    if (isTxmonError(error) && error.code === code) return;
    const got = isTxmonError(error) ? `TxmonError ${error.code}` : error instanceof Error ? `${error.name}: ${error.message}` : showValue(error);
    throw new Error(`${what}: expected a TxmonError ${code}, got ${got}`, { cause: outcome });
  }
  throw new Error(`${what}: expected a TxmonError ${code}, but the call succeeded`);
}
