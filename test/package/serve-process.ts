/**
 * The built `txmon serve` as a child process for the tests of test/package/, and a load of clients
 * against it. Every child started here is killed after each test (`stopAll`), on every path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { T0, tx } from '../helpers.js';

/** The build under test: this repository's, or another's (`TXMON_TEST_CLI`) to compare builds. */
export const CLI = process.env.TXMON_TEST_CLI ?? join(import.meta.dirname, '../../dist/cli.js');

/** A started `txmon serve`. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process ends. */
  readonly exited: Promise<number | string>;
  /** Standard output and error so far. */
  output(): string;
  /** The API's URL once the server serves (read from its `txmon serving` line). */
  url(): string;
  /** Resolves once `pattern` appears in the output; rejects when the process ends first or after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** Kills every child still running (call in `afterEach`). */
export function stopAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Spawns `node dist/cli.js <args>` (`serve …` or another command) in `cwd`. */
export function spawnCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ServeProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, TXMON_API_KEYS: '', TXMON_STORE: '', TXMON_API_KEY_FILE: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const waitFor = async (pattern: RegExp, ms = 60_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = pattern.exec(out);
      if (match) return match;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the process ended (${child.exitCode ?? child.signalCode}) before ${pattern}: ${out}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    child,
    exited,
    output: () => out,
    url: () => /"url":"([^"]+)"/.exec(out)?.[1] ?? '',
    waitFor,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Starts `txmon serve --port 0 …` and waits until it serves. */
export async function startServe(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ServeProcess> {
  const server = spawnCli(['serve', '--port', '0', ...args], options);
  await server.waitFor(/"msg":"txmon serving"/);
  return server;
}

/** What a load saw: answers by status, client timeouts, socket errors, and the transactions acknowledged. */
export interface LoadOutcome {
  readonly statuses: Map<number, number>;
  /** Codes of the 5xx answers, with whether each had `Retry-After`. */
  readonly serverErrors: { status: number; code: string; retryAfter: boolean }[];
  timeouts: number;
  readonly socketErrors: string[];
  /** The ids of the transactions answered 201, in the order they were answered. */
  readonly acknowledged: string[];
  /** Answers that came after `mark()`: what a client saw after a fault ended. */
  readonly afterMark: Map<number, number>;
  mark(): void;
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  readonly url: string;
  readonly key: string;
  readonly clients: number;
  /** Per-request timeout of each client. */
  readonly timeoutMs: number;
  /** Users the transactions come from (a few, so that they contend as real traffic does). */
  readonly users?: number;
  /** A prefix for transaction ids, unique per load. */
  readonly prefix: string;
}

/** `clients` clients sending transactions back to back until `stop()`; `done` resolves with what they saw. */
export function runLoad(options: LoadOptions): { outcome: LoadOutcome; stop(): Promise<LoadOutcome> } {
  const users = options.users ?? 6;
  let stopped = false;
  let marked = false;
  let n = 0;
  const outcome: LoadOutcome = {
    statuses: new Map(),
    serverErrors: [],
    timeouts: 0,
    socketErrors: [],
    acknowledged: [],
    afterMark: new Map(),
    mark() {
      marked = true;
    },
  };
  const count = (map: Map<number, number>, status: number) => map.set(status, (map.get(status) ?? 0) + 1);
  const client = async (c: number) => {
    while (!stopped) {
      const id = `${options.prefix}-${c}-${n++}`;
      try {
        const response = await fetch(`${options.url}/transactions`, {
          method: 'POST',
          headers: { 'x-api-key': options.key, 'content-type': 'application/json' },
          body: JSON.stringify(tx({ transactionId: id, originUserId: `u-${n % users}`, destinationUserId: `m-${n % 3}`, timestamp: T0 + n })),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = await response.text();
        count(outcome.statuses, response.status);
        if (marked) count(outcome.afterMark, response.status);
        if (response.status === 201) outcome.acknowledged.push(id);
        if (response.status >= 500) {
          outcome.serverErrors.push({
            status: response.status,
            code: (JSON.parse(text) as { code?: string }).code ?? '',
            retryAfter: response.headers.get('retry-after') !== null,
          });
          // A client told to retry later waits a little, as one should.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'TimeoutError') outcome.timeouts += 1;
        else outcome.socketErrors.push(((error as Error).cause as { code?: string } | undefined)?.code ?? (error as Error).message);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const all = Promise.all(Array.from({ length: options.clients }, (_, c) => client(c)));
  return {
    outcome,
    async stop() {
      stopped = true;
      await all;
      return outcome;
    },
  };
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
