/**
 * What the tests of the official Flagright SDK against a built `txmon serve` share
 * (flagright-sdk.test.ts, flagright-sdk-user-rules.test.ts): starting and stopping the server, reading
 * the SDK's typed errors, and request bodies in the SDK's types.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Flagright, FlagrightClient, FlagrightError } from 'flagright';
import { expect } from 'vitest';
import { T0 } from '../helpers.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');

/** A started `txmon serve`. */
export interface RunningServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
}

function readServingUrl(output: string): string | null {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
      if (entry.msg === 'txmon serving' && typeof entry.url === 'string') return entry.url;
    } catch {
      // a partial line: wait for more output
    }
  }
  return null;
}

/**
 * Spawns `node dist/cli.js serve --port 0 --store memory …` and resolves once it logged its
 * 'txmon serving' line; a process that does not serve within 30 s is killed and the call rejects.
 */
export async function startServer(args: readonly string[]): Promise<RunningServer> {
  if (!existsSync(CLI)) {
    throw new Error('dist/cli.js is missing: run `npm run build` first (npm test builds before running vitest)');
  }
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--store', 'memory', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TXMON_API_KEYS: '', TXMON_STORE: '', TXMON_API_KEY_FILE: '' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  let timer: NodeJS.Timeout | undefined;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      // Keep draining stdout for the whole run (one log line per request), or the pipe fills up.
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = readServingUrl(stdout);
        if (found !== null) resolve(found);
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.once('exit', (code) => reject(new Error(`txmon serve exited (${String(code)}) before serving: ${stderr}`)));
      timer = setTimeout(() => reject(new Error(`txmon serve did not serve within 30 s: ${stderr}`)), 30_000);
    });
    return { url, child, exited };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, then the exit code; `undefined` (a server that never started) gives `null`. */
export async function stopServer(server: RunningServer | undefined): Promise<number | null> {
  if (server === undefined) return null;
  server.child.kill('SIGTERM');
  return server.exited;
}

/**
 * A server whose rate limit is spent: 0.001 requests/s holds max(1, 2 × rate) = 1 token refilled
 * every 1,000 s, and the creation of `userId` here takes it, so every further request is a 429,
 * whatever the speed of the machine. Stop it with {@link stopServer}.
 */
export async function startSpentServer(apiKey: string, userId: string): Promise<{ server: RunningServer; client: FlagrightClient }> {
  const server = await startServer(['--api-key', apiKey, '--rate-limit', '0.001']);
  const client = new FlagrightClient({ apiKey, baseUrl: server.url });
  await client.consumerUsers.create({ body: consumer(userId, 'Rita', 'Rate') }, { maxRetries: 0 });
  return { server, client };
}

/** The rejection of `promise`, checked to be a `FlagrightError`; fails the test if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<FlagrightError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(FlagrightError);
    return error as FlagrightError;
  }
  throw new Error('expected the SDK call to fail, but it succeeded');
}

/** The `ApiErrorResponse` the SDK parsed into a typed error, with txmon's extra keys. */
export function errorBody(error: FlagrightError): Flagright.ApiErrorResponse & Record<string, unknown> {
  return error.body as Flagright.ApiErrorResponse & Record<string, unknown>;
}

/** An id one character over txmon's limit of 256: a path parameter the server answers 400. */
export const OVERLONG_ID = 'x'.repeat(257);

/** A EUR transfer between two consumer users, with payment details that use the SDK's renamed properties. */
export function transfer(transactionId: string, amount: number, overrides: Partial<Flagright.Transaction> = {}): Flagright.Transaction {
  return {
    type: 'TRANSFER',
    transactionId,
    timestamp: T0,
    originUserId: 'sdk-user-ada',
    destinationUserId: 'sdk-user-grace',
    originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'FR' },
    originPaymentDetails: { method: 'IBAN', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', bankName: 'Commerzbank', name: 'Ada Lovelace' },
    destinationPaymentDetails: {
      method: 'CARD',
      cardFingerprint: '20ac00fed8ef913aefb17cfae1097cce',
      cardIssuedCountry: 'FR',
      cardLast4Digits: '4242',
      '3DsDone': true,
      merchantDetails: { mcc: '5411', city: 'Paris', country: 'FR' },
    },
    reference: 'Invoice 2025-001',
    tags: [{ key: 'channel', value: 'web' }],
    originDeviceData: { ipAddress: '79.144.2.20', ipCountry: 'DE', vpnUsed: false, operatingSystem: 'Android' },
    ...overrides,
  };
}

/** A consumer user (`POST /consumer/users`) living in Berlin. */
export function consumer(userId: string, firstName: string, lastName: string): Flagright.User {
  return {
    userId,
    createdTimestamp: T0 - 86_400_000,
    userDetails: { name: { firstName, lastName }, dateOfBirth: '1990-12-10', countryOfResidence: 'DE', countryOfNationality: 'GB', gender: 'F' },
    userStateDetails: { state: 'ACTIVE' },
    kycStatusDetails: { status: 'SUCCESSFUL' },
    contactDetails: {
      emailIds: [`${userId}@example.com`],
      addresses: [{ addressLines: ['Unter den Linden 1'], city: 'Berlin', country: 'DE', postcode: '10117' }],
    },
    tags: [{ key: 'segment', value: 'retail' }],
  };
}

/** A business user (`POST /business/users`) registered in Germany. */
export function business(userId: string, legalName: string): Flagright.Business {
  return {
    userId,
    createdTimestamp: T0 - 86_400_000,
    legalEntity: {
      companyGeneralDetails: { legalName, businessIndustry: ['Retail'], userSegment: 'SMB', operatingCountries: ['DE', 'AT'] },
      companyRegistrationDetails: { registrationIdentifier: 'HRB 12345', registrationCountry: 'DE' },
      contactDetails: { emailIds: [`${userId}@example.com`], addresses: [{ addressLines: ['Friedrichstr. 10'], city: 'Berlin', country: 'DE' }] },
    },
    userStateDetails: { state: 'ACTIVE' },
    kycStatusDetails: { status: 'SUCCESSFUL' },
    allowedPaymentMethods: ['IBAN', 'CARD'],
    tags: [{ key: 'segment', value: 'merchant' }],
  };
}

/**
 * `value` with `ruleInstanceVersion` taken out of every rule result (an entry of an `executedRules`
 * or `hitRules` list, at any depth), each checked to be a version (an integer ≥ 1): txmon's
 * addition to the SDK's rule results (docs/audit.md), set aside before a strict parse.
 */
export function withoutRuleInstanceVersions(value: unknown, inRules = false): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutRuleInstanceVersions(item, inRules));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (inRules && key === 'ruleInstanceVersion') {
      if (!(Number.isSafeInteger(item) && (item as number) >= 1)) throw new Error(`ruleInstanceVersion ${String(item)} is not a version`);
      continue;
    }
    out[key] = withoutRuleInstanceVersions(item, key === 'executedRules' || key === 'hitRules');
  }
  return out;
}
