/**
 * HMAC-SHA256 signatures for upload and download URLs of the embedded file storage. WebCrypto
 * only (no Node-specific API), so the root entry stays runtime-neutral.
 */
export interface UrlSigner {
  /** Hex signature of `purpose:key:expiresAt`. */
  sign(purpose: 'upload' | 'download', key: string, expiresAt: number): Promise<string>;
  /** Constant-time check of a signature; false when expired or wrong. */
  verify(purpose: 'upload' | 'download', key: string, expiresAt: number, signature: string, now: number): Promise<boolean>;
}

const encoder = new TextEncoder();

function toHex(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Compares two strings in time that depends only on their length. */
export function timingSafeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Creates a signer with a secret (≥ 16 bytes). */
export function createUrlSigner(secret: Uint8Array): UrlSigner {
  const keyPromise = globalThis.crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  async function sign(purpose: string, key: string, expiresAt: number): Promise<string> {
    const k = await keyPromise;
    return toHex(await globalThis.crypto.subtle.sign('HMAC', k, encoder.encode(`${purpose}:${key}:${expiresAt}`)));
  }
  return {
    sign,
    async verify(purpose, key, expiresAt, signature, now) {
      if (!Number.isFinite(expiresAt) || expiresAt < now) return false;
      const expected = await sign(purpose, key, expiresAt);
      return timingSafeEqualText(expected, signature);
    },
  };
}

/** 32 random bytes from WebCrypto, for a per-engine secret when the host gives none. */
export function randomSecret(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(32));
}
