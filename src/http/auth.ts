/**
 * API-key authentication: the tenants' key table (SHA-256 hashes only), constant-time comparison,
 * and a per-connection memo of the last key verified.
 */
import { createHash } from 'node:crypto';
import { configurationError, TxmonError } from '../errors.js';
import type { CoreRequest, HttpHandlerOptions, HttpTenant, LabelledApiKey } from './types.js';

/** An authenticated key: its tenant, its rate-limit bucket (the hex digest; '' without a per-key limit) and the actor it makes changes as. */
export interface Authenticated {
  readonly key: string;
  readonly tenant: HttpTenant;
  readonly bucket: string;
  /** `<tenant id>/<key label>`: who the audit trail says made a change with this key. */
  readonly actor: string;
}

/** The raw key of an `apiKeys` entry. */
export function keyOf(entry: string | LabelledApiKey): string {
  return typeof entry === 'string' ? entry : entry.key;
}

/**
 * The tenants of a handler's options (`tenants`, or the single tenant `default` of `engine` +
 * `apiKeys`), checked.
 * @throws TxmonError `INVALID_CONFIGURATION` without tenants, with a tenant id twice or not 1–64 of
 *   `[A-Za-z0-9_-]`, or with a key given twice, shorter than 16 characters or not visible ASCII.
 */
export function tenantsOf(options: HttpHandlerOptions): readonly HttpTenant[] {
  const tenants: readonly HttpTenant[] = options.tenants ?? (options.engine ? [{ id: 'default', apiKeys: options.apiKeys ?? [], engine: options.engine }] : []);
  if (tenants.length === 0) throw configurationError('createHttpHandler', 'give `engine` and `apiKeys`, or `tenants`');
  const ids = new Set<string>();
  const keys = new Set<string>();
  for (const tenant of tenants) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(tenant.id) || ids.has(tenant.id)) {
      throw configurationError('createHttpHandler', 'tenant ids must be unique, 1–64 of [A-Za-z0-9_-]');
    }
    ids.add(tenant.id);
    const labels = new Set<string>();
    for (const entry of tenant.apiKeys) {
      const key = keyOf(entry);
      // A header value carries visible ASCII only (no spaces around, no control or non-Latin characters).
      if (typeof key !== 'string' || key.length < 16 || !/^[\x21-\x7e]+$/.test(key) || keys.has(key)) {
        throw configurationError('createHttpHandler', 'API keys must be unique, at least 16 characters, visible ASCII only');
      }
      keys.add(key);
      if (typeof entry !== 'string') {
        if (typeof entry.label !== 'string' || !/^[A-Za-z0-9_.@-]{1,64}$/.test(entry.label) || labels.has(entry.label)) {
          throw configurationError('createHttpHandler', 'API key labels must be unique within a tenant, 1–64 of [A-Za-z0-9_.@-]');
        }
        labels.add(entry.label);
      }
    }
  }
  return tenants;
}

/**
 * The authentication of requests by their `x-api-key` header against the tenants' keys. With
 * `bucketIds`, each {@link Authenticated} carries the hex digest of its key as its rate-limit bucket.
 *
 * Per connection, it remembers the last key verified there and what it verified to: a keep-alive
 * client presenting the same key again skips the hash. Only valid keys are remembered, and only
 * while their connection lives (the transport's request objects hold the same header value
 * meanwhile); the configured keys themselves stay hashes only.
 *
 * @throws TxmonError `UNAUTHORIZED` (from the returned function) when the key is missing or unknown.
 */
export function createAuthenticator(tenants: readonly HttpTenant[], bucketIds: boolean): (request: CoreRequest) => Authenticated {
  const keyTable = tenants.map((tenant) => {
    const hashes = tenant.apiKeys.map((entry) => sha256(keyOf(entry)));
    // A key without a label is named by the start of its hash: enough to tell keys apart, nothing to guess the key from.
    const actors = tenant.apiKeys.map(
      (entry, i) => `${tenant.id}/${typeof entry === 'string' ? `key-${toHex(hashes[i] as Uint8Array).slice(0, 8)}` : entry.label}`,
    );
    return { tenant, hashes, actors };
  });
  const verified = new WeakMap<object, Authenticated>();
  return (request) => {
    const key = request.header('x-api-key');
    if (key === null || key === '') throw new TxmonError('UNAUTHORIZED', 'The x-api-key header is missing');
    const connection = typeof request.connection === 'object' && request.connection !== null ? request.connection : undefined;
    if (connection !== undefined) {
      const last = verified.get(connection);
      if (last !== undefined && sameKey(key, last.key)) return last;
    }
    const digest = sha256(key);
    let found: HttpTenant | null = null;
    let actor = '';
    // Every stored hash is compared (constant time each), whatever matched first.
    for (const { tenant, hashes, actors } of keyTable) {
      for (const [i, h] of hashes.entries()) {
        if (sameDigest(h, digest) && found === null) {
          found = tenant;
          actor = actors[i] as string;
        }
      }
    }
    if (found === null) throw new TxmonError('UNAUTHORIZED', 'The API key is not valid');
    const result: Authenticated = { key, tenant: found, bucket: bucketIds ? toHex(digest) : '', actor };
    if (connection !== undefined) verified.set(connection, result);
    return result;
  };
}

/** SHA-256 of a string (node:crypto, synchronous: ~1 µs, no thread-pool hop per request). */
function sha256(text: string): Uint8Array {
  return createHash('sha256').update(text, 'utf8').digest();
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Constant-time equality of a presented key and a remembered one: the time depends only on the
 * presented key's length, never on where they differ (a pooled proxy connection may carry another
 * client's key next).
 */
export function sameKey(presented: string, remembered: string): boolean {
  const n = presented.length;
  const m = remembered.length;
  let diff = n ^ m;
  for (let i = 0; i < n; i++) diff |= presented.charCodeAt(i) ^ remembered.charCodeAt(i < m ? i : 0);
  return diff === 0;
}

/** Constant-time equality of two equal-length digests. */
function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
