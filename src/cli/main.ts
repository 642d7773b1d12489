/** Entry of the `txmon` command (package `bin`): `txmon serve …` (serve.ts) and `txmon prune …` (prune.ts). */
import { prune, PRUNE_USAGE } from './prune.js';
import { exitOnSignals, loggerOf, serve, USAGE, UsageError, shutdownGraceOf } from './serve.js';

/** The message of a failed command: usage errors as they are, anything else as what failed. */
function messageOf(error: unknown, doing: string): string {
  return error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? (error as Error).message : `cannot ${doing}: ${(error as Error).message}`;
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'prune') {
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(PRUNE_USAGE);
      return;
    }
    try {
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
  try {
    const server = await serve(rest);
    exitOnSignals(server, loggerOf(server), shutdownGraceOf(server));
  } catch (error) {
    process.stderr.write(`txmon: ${messageOf(error, 'start')}\n\n${USAGE}`);
    process.exit(2);
  }
}

void main(process.argv.slice(2));
