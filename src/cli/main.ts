/** Entry of the `txmon` command (package `bin`): `txmon serve …`. See serve.ts. */
import { exitOnSignals, loggerOf, serve, shutdownGraceOf, USAGE, UsageError } from './serve.js';

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== 'serve') {
    process.stderr.write(command === undefined || command === '--help' || command === '-h' ? USAGE : `Unknown command: ${command}\n\n${USAGE}`);
    process.exit(command === undefined || command === '--help' || command === '-h' ? 0 : 2);
  }
  try {
    const server = await serve(rest);
    exitOnSignals(server, loggerOf(server), shutdownGraceOf(server));
  } catch (error) {
    const message = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? (error as Error).message : `cannot start: ${(error as Error).message}`;
    process.stderr.write(`txmon: ${message}\n\n${USAGE}`);
    process.exit(2);
  }
}

void main(process.argv.slice(2));
