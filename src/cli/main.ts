/**
 * Entry of the `txmon` command (package `bin`): `txmon serve …` (serve.ts) and `txmon prune …`
 * (prune.ts). Help and unknown commands answer from usage.ts alone: a command's module (and with it
 * the engine, the HTTP layer and the store drivers) is imported only when that command runs.
 */
import { PRUNE_USAGE, USAGE, UsageError } from './usage.js';

/** The message of a failed command: usage errors as they are, anything else as what failed. */
function messageOf(error: unknown, doing: string): string {
  return error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ? (error as Error).message
    : `cannot ${doing}: ${(error as Error).message}`;
}

function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'prune') {
    if (asksForHelp(rest)) {
      process.stdout.write(PRUNE_USAGE);
      return;
    }
    try {
      const { prune } = await import('./prune.js');
      await prune(rest);
    } catch (error) {
      process.stderr.write(`txmon: ${messageOf(error, 'prune')}\n\n${PRUNE_USAGE}`);
      process.exit(2);
    }
    return;
  }
  if (command !== 'serve') {
    const help = command === undefined || command === '--help' || command === '-h';
    process.stderr.write(`${help ? '' : `Unknown command: ${command}\n\n`}${USAGE}\n${PRUNE_USAGE}`);
    process.exit(help ? 0 : 2);
  }
  if (asksForHelp(rest)) {
    process.stdout.write(USAGE);
    return;
  }
  try {
    const { exitOnSignals, loggerOf, serve, shutdownGraceOf } = await import('./serve.js');
    const server = await serve(rest);
    exitOnSignals(server, loggerOf(server), shutdownGraceOf(server));
  } catch (error) {
    process.stderr.write(`txmon: ${messageOf(error, 'start')}\n\n${USAGE}`);
    process.exit(2);
  }
}

void main(process.argv.slice(2));
