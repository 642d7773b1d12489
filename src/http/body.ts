/**
 * Request bodies: the size limit (read or streamed from a fetch `Request`), the JSON content type,
 * and JSON parsing that refuses duplicate keys.
 */
import { invalidField, TxmonError } from '../errors.js';
import type { CoreRequest } from './types.js';

/** The media type of JSON bodies. */
export const JSON_TYPE = 'application/json';

/** The refusal of a body past `limit` bytes. */
export function payloadTooLarge(limit: number): TxmonError {
  return new TxmonError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
}

/** Whether a `content-type` value is JSON: `application/json` or `application/*+json`, any parameters and case. */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  if (value === JSON_TYPE) return true;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === JSON_TYPE || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The length a `content-length` value announces, when it is a plain decimal number. */
export function declaredLength(value: string | null): number | undefined {
  return value !== null && /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * The JSON body of a request, at most `limit` bytes.
 * @throws TxmonError `UNSUPPORTED_MEDIA_TYPE` when the content type is not JSON, `PAYLOAD_TOO_LARGE`, `MALFORMED_JSON`.
 */
export async function readJsonBody(request: CoreRequest, limit: number): Promise<unknown> {
  if (!isJsonContentType(request.header('content-type'))) {
    throw new TxmonError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json');
  }
  return parseJson(await request.readBody(limit));
}

/** Throws before a byte is read when a request announces a body longer than `limit`. */
function refuseDeclaredTooLarge(request: Request, limit: number): void {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
}

/** The chunks of a body, at most `limit` bytes in all; `PAYLOAD_TOO_LARGE` past it (without reading the rest). */
export async function* streamLimited(request: Request, limit: number): AsyncIterable<Uint8Array> {
  refuseDeclaredTooLarge(request, limit);
  if (!request.body) return;
  const reader = request.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > limit) throw payloadTooLarge(limit);
      yield value;
    }
  } finally {
    reader.releaseLock();
    if (size > limit) await request.body.cancel().catch(() => undefined);
  }
}

/** Reads a body up to `limit` bytes; `PAYLOAD_TOO_LARGE` past it (without reading the rest). */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  refuseDeclaredTooLarge(request, limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

// Stateless between calls (no streaming): one decoder for every body.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON body.
 * @throws TxmonError `MALFORMED_JSON` (detail code `malformed-json`, or `duplicate-key`), with a position-free reason.
 */
export function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw invalidField('', 'malformed-json', 'is not valid UTF-8', 'MALFORMED_JSON');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField('', 'malformed-json', 'is not valid JSON', 'MALFORMED_JSON');
  }
  // JSON.parse keeps the last of two equal keys; another parser may keep the first. Refused, so
  // every component reading the body sees the same value.
  if (keyTokens(text) !== keysOf(value)) throw invalidField('', 'duplicate-key', 'has an object with a duplicate key', 'MALFORMED_JSON');
  return value;
}

/**
 * Whether valid JSON text has an object with the same key twice (`"a"` and `"\u0061"` are the
 * same key). `JSON.parse` keeps one property per distinct key of an object, so the text has a
 * duplicate exactly when it holds more key tokens than the parsed value has own keys: two counts,
 * no set of keys per object.
 */
export function hasDuplicateKey(text: string): boolean {
  return keyTokens(text) !== keysOf(JSON.parse(text));
}

/** The number of object keys written in valid JSON text: string tokens followed by `:`. */
function keyTokens(text: string): number {
  let n = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    if (text.charCodeAt(i) !== 0x22 /* " */) continue;
    for (i += 1; i < length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x5c /* \ */) i += 1;
      else if (d === 0x22) break;
    }
    let j = i + 1;
    let c = text.charCodeAt(j);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++j);
    if (c === 0x3a /* : */) n += 1;
  }
  return n;
}

/**
 * The number of own keys of every object inside a parsed JSON value. Iterative (an explicit
 * stack): a body nested deeper than the call stack allows is counted too, and refused later by
 * the depth check with its own error.
 */
function keysOf(root: unknown): number {
  if (typeof root !== 'object' || root === null) return 0;
  let n = 0;
  const pending: object[] = [root];
  while (pending.length > 0) {
    const value = pending.pop() as object;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object' && item !== null) pending.push(item);
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      n += 1;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return n;
}
