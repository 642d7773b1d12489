/**
 * One owner per PGlite directory. PGlite runs PostgreSQL inside the process with no postmaster to
 * refuse a second one: two processes on one directory each write their own copy of its files, and
 * whichever closes last silently wins. A store directory is therefore locked by the process that
 * opens it — with an OS lock (an open-file-description lock, `fcntl(F_OFD_SETLK)`, through
 * fs-native-extensions) on `<dir>/.txmon.lock`, which holds the owner's PID. The kernel releases the
 * lock when the owner's process ends in any way, `kill -9` included, so the next start takes the
 * directory back at once: no stale lock to clean up, no timer to wait out.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import nativeFs from 'fs-native-extensions';

/** The file under a store directory that its owner locks. */
export const LOCK_FILE = '.txmon.lock';

/** Thrown when another process owns the directory; the message names it and the owner's PID. */
export class DirectoryLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly ownerPid: number | null,
  ) {
    super(`${dir} is in use by another txmon process${ownerPid === null ? '' : ` (pid ${ownerPid})`}: stop it first, or use another directory`);
    this.name = 'DirectoryLockedError';
  }
}

/** A held lock. */
export interface DirectoryLock {
  readonly dir: string;
  /** Gives the directory up (idempotent). */
  release(): void;
}

/**
 * Locks `dir` (created when missing) for this process.
 * @throws DirectoryLockedError when another process — or another open store of this one — holds it.
 */
export function lockDirectory(dir: string): DirectoryLock {
  const absolute = resolve(dir);
  mkdirSync(absolute, { recursive: true });
  const file = join(absolute, LOCK_FILE);
  const deadline = Date.now() + OWN_RELEASE_WAIT_MS;
  for (;;) {
    const fd = openSync(file, 'a+', 0o600);
    let granted = false;
    try {
      granted = nativeFs.tryLock(fd);
    } finally {
      if (!granted) closeSync(fd);
    }
    if (granted) return heldLock(absolute, fd);
    const read = Number.parseInt(readFileSync(file, 'utf8'), 10);
    const pid = Number.isSafeInteger(read) && read > 0 ? read : null;
    // Our own pid on a lock this process no longer holds: a child process forked a moment before
    // the release still has a copy of the descriptor, until it execs (the descriptor closes on
    // exec). That passes in moments; any other owner is refused at once.
    if (pid !== process.pid || HELD.has(absolute) || Date.now() > deadline) throw new DirectoryLockedError(absolute, pid);
    Atomics.wait(SLEEPER, 0, 0, 10);
  }
}

/** The directories this process holds (see {@link lockDirectory}). */
const HELD = new Set<string>();
/** How long a lock this process released may still look held (a child forked before the release). */
const OWN_RELEASE_WAIT_MS = 2_000;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** The lock on `absolute` held through `fd`. */
function heldLock(absolute: string, fd: number): DirectoryLock {
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  HELD.add(absolute);
  let held = true;
  return {
    dir: absolute,
    release() {
      if (!held) return;
      held = false;
      HELD.delete(absolute);
      // Closing the descriptor releases its lock; the file stays (removing it would race a next owner).
      closeSync(fd);
    },
  };
}
