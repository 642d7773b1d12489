/**
 * The API key `txmon serve` makes when none is configured. Kept in the store's directory
 * (`<dir>/.api-key`, mode 0600) so that a restart serves the same key — the clients that were
 * given it keep working — and printed only when it is made. A memory store keeps nothing across
 * restarts, its key included; PostgreSQL, shared by several processes, needs configured keys.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/** The file of the generated key under a store directory. */
export const GENERATED_KEY_FILE = '.api-key';

/** A new key: `txm_` and 24 random bytes in base64url. */
export function newApiKey(): string {
  return `txm_${randomBytes(24).toString('base64url')}`;
}

/**
 * The generated key kept under `dir`, made (and written with mode 0600) when there is none yet;
 * `created` says which.
 */
export function generatedKeyIn(dir: string): { key: string; created: boolean } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, GENERATED_KEY_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 16) return { key: kept, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = newApiKey();
  // 'w' with 0600 from the start: the key is never readable by others, not even for a moment.
  const fd = openSync(file, 'w', 0o600);
  try {
    writeSync(fd, `${key}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o600);
  return { key, created: true };
}
