/**
 * JSON Pointer (RFC 6901) helpers for error-detail paths.
 */

/** Escapes one reference token: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends one (unescaped) key or index to a JSON Pointer: `appendPointer('/a', 'b/c')` → `/a/b~1c`. */
export function appendPointer(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === 'number' ? String(token) : escapePointerToken(token)}`;
}
