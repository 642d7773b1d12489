/**
 * One owner per store directory: a second open — in this process or another — is refused with a
 * message naming the directory and the owner's PID; an owner killed with SIGKILL leaves no lock
 * behind.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectoryLockedError, LOCK_FILE, lockDirectory } from '../../src/cli/directory-lock.js';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A child process that holds the lock of `dir` (through the same package the command uses) until killed. */
async function ownerProcess(dir: string): Promise<ReturnType<typeof spawn>> {
  const script = `
    const fs = require('node:fs');
    const nativeFs = require('fs-native-extensions');
    const fd = fs.openSync(${JSON.stringify(join(dir, LOCK_FILE))}, 'a+');
    if (!nativeFs.tryLock(fd)) process.exit(3);
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, process.pid + '\\n');
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the owner exited with ${code}`)));
  });
  return child;
}

describe('lockDirectory', () => {
  it('refuses a second lock in the same process, naming the directory and this PID; takes it once released', () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-lock-'));
    const lock = lockDirectory(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    let refusal: unknown;
    try {
      lockDirectory(dir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DirectoryLockedError);
    expect((refusal as DirectoryLockedError).ownerPid).toBe(process.pid);
    expect((refusal as Error).message).toContain(dir);
    expect((refusal as Error).message).toContain(`pid ${process.pid}`);
    lock.release();
    lockDirectory(dir).release();
  });

  it('refuses while another process owns it, and takes it at once after that process is killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'txmon-lock-'));
    const owner = await ownerProcess(dir);
    expect(() => lockDirectory(dir)).toThrow(`pid ${owner.pid}`);
    const exited = new Promise((resolve) => owner.once('exit', resolve));
    owner.kill('SIGKILL');
    await exited;
    const lock = lockDirectory(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });
});
