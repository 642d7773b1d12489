/**
 * Entry of the `txmon` command (package `bin`): `txmon serve …` (serve.ts), `txmon prune …`
 * (prune.ts), `txmon simulate …` (simulate.ts), `txmon generate …` (generate.ts), `txmon import …`
 * (import.ts), `txmon verify-log …` (verify-log.ts) and `txmon config check …` (config-file.ts). Help and
 * unknown commands answer from usage.ts alone: a command's module (and with it the engine, the HTTP
 * layer and the store drivers) is imported only when that command runs.
 */
import { CONFIG_USAGE, GENERATE_USAGE, IMPORT_USAGE, PRUNE_USAGE, SIMULATE_USAGE, USAGE, UsageError, VERIFY_LOG_USAGE } from './usage.js';

/** Whether `error` is about the command line (then the usage is printed and the exit code is 2). */
function isUsageError(error: unknown): boolean {
  return error instanceof UsageError || (error as { code?: string } | null)?.code?.startsWith('ERR_PARSE_ARGS') === true;
}

/**
 * Ends the command after `error`: a usage error with the usage text and exit code 2; anything else
 * — a store that could not be opened, a directory another process owns — as one line naming what
 * failed, and exit code 1.
 */
function fail(error: unknown, doing: string, usage: string): never {
  const { code, details } = (error ?? {}) as { code?: unknown; details?: readonly { path: string; code: string; message: string }[] };
  if (code === 'INVALID_CONFIGURATION' && Array.isArray(details) && details.length > 0) {
    // A configuration file's problems, each by its path in the file: no usage text, no stack.
    process.stderr.write(
      `txmon: cannot ${doing}: ${(error as Error).message.replace(/:.*$/, '')}:\n${details.map((d) => `  ${d.path || '/'}: ${d.message} (${d.code})\n`).join('')}`,
    );
    process.exit(2);
  }
  if (isUsageError(error)) process.stderr.write(`txmon: ${(error as Error).message}\n\n${usage}`);
  else process.stderr.write(`txmon: cannot ${doing}: ${(error as Error | null)?.message ?? String(error)}\n`);
  process.exit(isUsageError(error) ? 2 : 1);
}

function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** The one-shot commands: each one's usage text, and how to run it (its module imported only then). */
const COMMANDS: Readonly<Record<string, { usage: string; doing: string; run: (args: string[]) => Promise<unknown> }>> = {
  prune: { usage: PRUNE_USAGE, doing: 'prune', run: async (args) => (await import('./prune.js')).prune(args) },
  simulate: {
    usage: SIMULATE_USAGE,
    doing: 'simulate',
    run: async (args) => (await import('./simulate.js')).simulateCommand(args),
  },
  generate: { usage: GENERATE_USAGE, doing: 'generate', run: async (args) => (await import('./generate.js')).generate(args) },
  config: { usage: CONFIG_USAGE, doing: 'check the configuration', run: async (args) => (await import('./config-file.js')).configCommand(args) },
  import: { usage: IMPORT_USAGE, doing: 'import', run: async (args) => (await import('./import.js')).importCommand(args) },
  'verify-log': {
    usage: VERIFY_LOG_USAGE,
    doing: 'verify the decision log',
    run: async (args) => {
      // 3: a log is not intact (1 is for a store that cannot be read, 2 for the command line).
      if (!(await (await import('./verify-log.js')).verifyLog(args))) process.exitCode = 3;
    },
  },
};

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  const oneShot = command === undefined ? undefined : Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (oneShot !== undefined) {
    if (asksForHelp(rest)) {
      process.stdout.write(oneShot.usage);
      return;
    }
    try {
      await oneShot.run(rest);
    } catch (error) {
      fail(error, oneShot.doing, oneShot.usage);
    }
    return;
  }
  if (command !== 'serve') {
    const help = command === undefined || command === '--help' || command === '-h';
    process.stderr.write(
      `${help ? '' : `Unknown command: ${command}\n\n`}${USAGE}\n${PRUNE_USAGE}\n${SIMULATE_USAGE}\n${GENERATE_USAGE}\n${IMPORT_USAGE}\n${VERIFY_LOG_USAGE}\n${CONFIG_USAGE}`,
    );
    process.exit(help ? 0 : 2);
  }
  if (asksForHelp(rest)) {
    process.stdout.write(USAGE);
    return;
  }
  try {
    const { exitOnSignals, startServer } = await import('./serve.js');
    const handle = await startServer(rest);
    exitOnSignals(handle);
    // The server listens (and answers 503) while its stores open; a store that cannot be opened ends it.
    handle.ready.catch((error: unknown) => handle.log.drain(() => fail(error, 'start', USAGE)));
  } catch (error) {
    fail(error, 'start', USAGE);
  }
}

void main(process.argv.slice(2));
