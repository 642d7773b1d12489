/** The part of fs-native-extensions (which ships no types) that txmon uses: OS file locks. */
declare module 'fs-native-extensions' {
  /** Takes an exclusive (or `shared`) lock on the open file `fd` without waiting: whether it was granted. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  /** Releases the lock on `fd`. */
  export function unlock(fd: number): void;
  const nativeFs: { tryLock: typeof tryLock; unlock: typeof unlock };
  export default nativeFs;
}
