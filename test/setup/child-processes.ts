/**
 * A test run leaves no process behind (a vitest global setup): every process the run starts
 * inherits `TXMON_TEST_RUN`, and when the run ends any process still carrying it — a server a
 * failed or timed-out test did not stop — is killed and named, and the run fails. Linux only (it
 * reads /proc); elsewhere the check is skipped.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The processes (other than this one) whose environment holds `marker`, with their command lines. */
function processesMarked(marker: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\u0000').includes(marker)) continue;
      found.push({ pid, command: readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\u0000').join(' ').trim() });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

export default function setup(): () => Promise<void> {
  const id = randomUUID();
  process.env.TXMON_TEST_RUN = id;
  return async () => {
    if (!existsSync('/proc/self/environ')) return;
    const marker = `TXMON_TEST_RUN=${id}`;
    // A process being stopped by its test's last hook gets a moment to end.
    let left = processesMarked(marker);
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = processesMarked(marker);
    }
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    // Vitest reports an error thrown here but still exits 0: the exit code is set here too.
    process.exitCode = 1;
    throw new Error(`the test run left ${left.length} process(es) running (killed now): ${left.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
  };
}
