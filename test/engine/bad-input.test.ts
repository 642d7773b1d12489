/**
 * Bad input for every engine method that takes client input (docs/guarantees.md#errors and
 * guarantee 9, docs/guarantees.md#no-500): each rejection is the documented TxmonError (4xx, a code
 * of ERROR_CODES, JSON-Pointer detail paths), never another error, never echoes the input, and
 * stores nothing. Then fast-check fuzzes every method with arbitrary values and corrupted valid
 * bodies.
 */
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ERROR_CODES, SERIES_NAMES, isTxmonError, type Engine } from '../../src/index.js';
import { T0, testEngine, type TransactionInput, type UserInput } from '../helpers.js';

/** A value that must never appear in an error message or detail (docs/guarantees.md#errors: never echo input). */
const MARKER = 'S3CRET-MARKER-7731';
/** A 1 MB string that starts with the marker. */
const BIG = MARKER + 'x'.repeat(1_048_576);
const MAX_UPLOAD = 1000;

/** `JSON.parse` keeps `__proto__` as an own key, as the HTTP layer would see it. */
const json = (text: string): unknown => JSON.parse(text);

function deep(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < levels; i++) v = { n: v };
  return v;
}

/* ------------------------------------------------------------------------------------------------
 * Fixture: an engine with a rule instance, a created user, a transaction with an event, an alert,
 * a case, an upload and comments — so every method has something to hit and something to spoil.
 * ---------------------------------------------------------------------------------------------- */

interface Fixture {
  engine: Engine;
  clock: { advance(ms: number): void };
  instanceId: string;
  alertId: string;
  caseId: string;
  uploadKey: string;
  /** A file uploaded in full (1 byte), which comments can attach. */
  attachedKey: string;
  /** The upload URL's credentials of `uploadKey` (fileSize 1, nothing uploaded yet). */
  uploadAccess: { key: string; expiresAt: number; signature: string };
}

async function fixture(): Promise<Fixture> {
  const { engine, clock } = testEngine({ maxUploadBytes: MAX_UPLOAD });
  const instance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
  await engine.createUser({ userId: 'alice', createdTimestamp: T0 });
  await engine.createTransaction(validTx({ transactionId: 'seed' }));
  await engine.createTransactionEvent({ transactionId: 'seed', eventId: 'seed-ev', timestamp: T0 + 1, transactionState: 'PROCESSING' });
  const alert = (await engine.listAlerts())[0];
  if (!alert) throw new Error('fixture: expected an alert');
  const upload = await engine.createUpload({ filename: 'a.txt', fileSize: 1 });
  const attached = await engine.createUpload({ filename: 'a.txt', fileSize: 1 });
  await engine.putUploadContent(accessOf(attached.url, attached.key), new Uint8Array([1]));
  await engine.createUserComment('alice', { body: 'first' });
  const uploadAccess = accessOf(upload.url, upload.key);
  return {
    engine,
    clock,
    instanceId: instance.id,
    alertId: alert.alertId,
    caseId: alert.caseId,
    uploadKey: upload.key,
    attachedKey: attached.key,
    uploadAccess,
  };
}

function accessOf(uploadUrl: string, key: string) {
  const url = new URL(uploadUrl, 'http://x');
  return { key, expiresAt: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature') ?? '' };
}

/** Everything a rejected call could have changed. */
async function stateOf(f: Fixture) {
  const e = f.engine;
  const repos = e.repositories;
  const maybe = async (fn: () => Promise<unknown>) => {
    try {
      return await fn();
    } catch (err) {
      return isTxmonError(err) ? err.code : err;
    }
  };
  return {
    instances: await e.listRuleInstances(),
    alerts: await e.listAlerts(),
    cases: await e.listCases(),
    seed: await e.getTransaction('seed'),
    seedEvents: await repos.transactions.listEvents('seed'),
    badTransaction: await maybe(() => e.getTransaction('t-bad')),
    badEvent: await maybe(() => e.getTransactionEvent('ev-bad')),
    users: [await maybe(() => e.getUser('alice')), await maybe(() => e.getUser('u-bad')), await repos.users.getUser('bob')],
    aggregates: await Promise.all(['alice', 'bob'].flatMap((u) => SERIES_NAMES.map((s) => repos.aggregates.listEntries(s, u)))),
    comments: await Promise.all([
      repos.comments.listComments({ kind: 'user', id: 'alice' }),
      repos.comments.listComments({ kind: 'case', id: f.caseId }),
      repos.comments.listComments({ kind: 'alert', id: f.alertId }),
    ]),
    nextFile: await repos.files.getFile('file-3'),
    uploadedFile: await repos.files.getFile(f.uploadKey),
    uploadedBytes: await repos.files.getFileContent(f.uploadKey),
  };
}

function validTx(overrides: Record<string, unknown> = {}): TransactionInput {
  return {
    type: 'TRANSFER',
    transactionId: 't-bad',
    timestamp: T0,
    originUserId: 'alice',
    destinationUserId: 'bob',
    originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    ...overrides,
  } as TransactionInput;
}

function validEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { transactionId: 'seed', eventId: 'ev-bad', timestamp: T0 + 2, transactionState: 'SENT', ...overrides };
}

function validUser(overrides: Record<string, unknown> = {}): UserInput {
  return { userId: 'u-bad', createdTimestamp: T0, ...overrides } as UserInput;
}

interface Row {
  name: string;
  call: (f: Fixture) => Promise<unknown>;
  code: keyof typeof ERROR_CODES;
  /** A detail path the error must name (omitted when the error has no detail, e.g. a plain 404). */
  path?: string;
}

/** Runs every row against a fresh fixture: the documented error, no echo, nothing stored. */
function rejects(rows: readonly Row[]) {
  for (const row of rows) {
    it(`rejects ${row.name} with ${row.code}${row.path !== undefined ? ` at '${row.path}'` : ''} and stores nothing`, async () => {
      const f = await fixture();
      const before = await stateOf(f);
      let caught: unknown = null;
      try {
        await row.call(f);
      } catch (e) {
        caught = e;
      }
      expect(caught, 'the call must throw').not.toBeNull();
      expect(isTxmonError(caught), `expected a TxmonError, got ${String(caught)}`).toBe(true);
      const e = caught as { code: string; status: number; message: string; details: readonly { path: string; code: string; message: string }[] };
      expect(e.code).toBe(row.code);
      expect(e.status).toBe(ERROR_CODES[row.code]);
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.status).toBeLessThan(500);
      for (const d of e.details) expect(d.path === '' || d.path.startsWith('/')).toBe(true);
      if (row.path !== undefined) expect(e.details.map((d) => d.path)).toContain(row.path);
      expect(e.message).not.toContain(MARKER);
      expect(JSON.stringify(e.details)).not.toContain(MARKER);
      expect(await stateOf(f)).toEqual(before);
    });
  }
}

/** Rows for a value that is not an object body. */
function nonObjectBodies(call: (f: Fixture, body: unknown) => Promise<unknown>): Row[] {
  const values: [string, unknown][] = [
    ['a null body', null],
    ['an array body', []],
    ['an array of objects body', [{}]],
    ['a string body', MARKER],
    ['a number body', 42],
    ['a boolean body', true],
    ['an undefined body', undefined],
  ];
  return values.map(([name, body]) => ({ name, call: (f) => call(f, body), code: 'VALIDATION_FAILED', path: '' }));
}

/** Rows for bad id arguments (wrong types, empty, oversized). */
function badIds(call: (f: Fixture, id: unknown) => Promise<unknown>): Row[] {
  const values: [string, unknown][] = [
    ['an empty id', ''],
    ['a 1 MB id', BIG],
    ['a 257-character id', 'a'.repeat(257)],
    ['a number id', 42],
    ['a null id', null],
    ['an undefined id', undefined],
    ['an object id', { id: 'x' }],
    ['an array id', ['x']],
  ];
  return values.map(([name, id]) => ({ name, call: (f) => call(f, id), code: 'VALIDATION_FAILED', path: '' }));
}

/** Rows for ids that are well-formed but name nothing (including prototype member names). */
function unknownIds(call: (f: Fixture, id: string) => Promise<unknown>, code: keyof typeof ERROR_CODES): Row[] {
  const values = ['nope', 'a'.repeat(256), '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'];
  return values.map((id) => ({ name: `an unknown id ${id.length > 20 ? `(${id.length} characters)` : `'${id}'`}`, call: (f) => call(f, id), code }));
}

/** `(v as any)` without `any`: the engine methods are typed, the attacks are not. */
const loose = <T>(v: unknown) => v as T;

/* ------------------------------------------------------------------------------------------------
 * Tables
 * ---------------------------------------------------------------------------------------------- */

describe('createTransaction', () => {
  const call = (f: Fixture, body: unknown) => f.engine.createTransaction(body as never);
  rejects([
    ...nonObjectBodies(call),
    { name: 'an empty object', call: (f) => call(f, {}), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'a missing type', call: (f) => call(f, { ...validTx(), type: undefined }), code: 'VALIDATION_FAILED', path: '/type' },
    { name: 'a missing timestamp', call: (f) => call(f, { ...validTx(), timestamp: undefined }), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'a number transactionId', call: (f) => call(f, validTx({ transactionId: 42 })), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'an empty transactionId', call: (f) => call(f, validTx({ transactionId: '' })), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'a 1 MB transactionId', call: (f) => call(f, validTx({ transactionId: BIG })), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'a 1 MB type', call: (f) => call(f, validTx({ type: BIG })), code: 'VALIDATION_FAILED', path: '/type' },
    { name: 'a 1 MB reference', call: (f) => call(f, validTx({ reference: BIG })), code: 'VALIDATION_FAILED', path: '/reference' },
    { name: 'a 1 MB originUserId', call: (f) => call(f, validTx({ originUserId: BIG })), code: 'VALIDATION_FAILED', path: '/originUserId' },
    { name: 'an empty originUserId', call: (f) => call(f, validTx({ originUserId: '' })), code: 'VALIDATION_FAILED', path: '/originUserId' },
    {
      name: 'timestamp 315529199999 (1 ms before the range)',
      call: (f) => call(f, validTx({ timestamp: 315529199999 })),
      code: 'VALIDATION_FAILED',
      path: '/timestamp',
    },
    {
      name: 'timestamp 4133890801001 (1 ms after the range)',
      call: (f) => call(f, validTx({ timestamp: 4133890801001 })),
      code: 'VALIDATION_FAILED',
      path: '/timestamp',
    },
    { name: 'timestamp NaN', call: (f) => call(f, validTx({ timestamp: Number.NaN })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'timestamp Infinity', call: (f) => call(f, validTx({ timestamp: Number.POSITIVE_INFINITY })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'timestamp -Infinity', call: (f) => call(f, validTx({ timestamp: Number.NEGATIVE_INFINITY })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'a string timestamp', call: (f) => call(f, validTx({ timestamp: String(T0) })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'a Date timestamp', call: (f) => call(f, validTx({ timestamp: new Date(T0) })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    {
      name: 'a negative amount',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: -0.01, transactionCurrency: 'EUR' } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionAmount',
    },
    {
      name: 'a string amount',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: '100', transactionCurrency: 'EUR' } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionAmount',
    },
    {
      name: 'a NaN amount',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: Number.NaN, transactionCurrency: 'EUR' } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionAmount',
    },
    {
      name: 'a bigint amount',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: 100n, transactionCurrency: 'EUR' } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionAmount',
    },
    {
      name: 'an amount above the limit',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: 1e16, transactionCurrency: 'EUR' } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionAmount',
    },
    {
      name: 'an unknown currency',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: MARKER } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionCurrency',
    },
    {
      name: 'a missing currency',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: 1 } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/transactionCurrency',
    },
    {
      name: 'an unknown country',
      call: (f) => call(f, validTx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'XX' } })),
      code: 'VALIDATION_FAILED',
      path: '/originAmountDetails/country',
    },
    { name: 'an unknown transactionState', call: (f) => call(f, validTx({ transactionState: MARKER })), code: 'VALIDATION_FAILED', path: '/transactionState' },
    { name: 'a function value', call: (f) => call(f, validTx({ reference: () => MARKER })), code: 'VALIDATION_FAILED', path: '/reference' },
    { name: 'a symbol value', call: (f) => call(f, validTx({ reference: Symbol(MARKER) })), code: 'VALIDATION_FAILED', path: '/reference' },
    { name: 'a Map value', call: (f) => call(f, validTx({ metadata: new Map([[MARKER, 1]]) })), code: 'VALIDATION_FAILED', path: '/metadata' },
    { name: 'a sparse array', call: (f) => call(f, validTx({ tags: new Array(2) })), code: 'VALIDATION_FAILED', path: '/tags/0' },
    { name: 'nesting 40 levels deep', call: (f) => call(f, validTx({ metadata: deep(40) })), code: 'VALIDATION_FAILED' },
    {
      name: 'a __proto__ key at the top level',
      call: (f) => call(f, json(`{"type":"T","transactionId":"t-bad","timestamp":${T0},"__proto__":{"polluted":"${MARKER}"}}`)),
      code: 'VALIDATION_FAILED',
      path: '/__proto__',
    },
    {
      name: 'a constructor key at the top level',
      call: (f) => call(f, { ...validTx(), constructor: { prototype: { polluted: MARKER } } }),
      code: 'VALIDATION_FAILED',
      path: '/constructor',
    },
    {
      name: 'a prototype key at the top level',
      call: (f) => call(f, { ...validTx(), prototype: { polluted: MARKER } }),
      code: 'VALIDATION_FAILED',
      path: '/prototype',
    },
    {
      name: 'a __proto__ key inside an array of objects (tags)',
      call: (f) => call(f, { ...validTx(), tags: [{ key: 'a', value: 'b' }, json(`{"__proto__":{"polluted":"${MARKER}"}}`)] }),
      code: 'VALIDATION_FAILED',
      path: '/tags/1/__proto__',
    },
    {
      name: 'a constructor key inside an array of objects in an unknown field',
      call: (f) => call(f, { ...validTx(), extra: [{ ok: 1 }, { constructor: { prototype: { polluted: MARKER } } }] }),
      code: 'VALIDATION_FAILED',
      path: '/extra/1/constructor',
    },
    {
      name: 'a prototype key nested in metadata',
      call: (f) => call(f, { ...validTx(), metadata: { a: { prototype: MARKER } } }),
      code: 'VALIDATION_FAILED',
      path: '/metadata/a/prototype',
    },
    {
      name: 'a different payload for an existing transactionId',
      call: (f) => call(f, validTx({ transactionId: 'seed', reference: MARKER })),
      code: 'TRANSACTION_ID_CONFLICT',
      path: '/transactionId',
    },
  ]);

  const accepted = [
    { name: 'timestamp 315529200000 (the first accepted instant)', timestamp: 315529200000 },
    { name: 'timestamp 4133890801000 (the last accepted instant)', timestamp: 4133890801000 },
    { name: 'a fractional timestamp', timestamp: T0 + 0.5 },
  ];
  for (const row of accepted) {
    it(`accepts ${row.name}`, async () => {
      const f = await fixture();
      const r = await f.engine.createTransaction(validTx({ timestamp: row.timestamp }));
      expect(r.transactionId).toBe('t-bad');
      expect((await f.engine.getTransaction('t-bad')).timestamp).toBe(row.timestamp);
    });
  }
});

describe('createTransactionEvent', () => {
  const call = (f: Fixture, body: unknown) => f.engine.createTransactionEvent(body as never);
  rejects([
    ...nonObjectBodies(call),
    { name: 'an empty object', call: (f) => call(f, {}), code: 'VALIDATION_FAILED', path: '/transactionState' },
    { name: 'a missing transactionId', call: (f) => call(f, { ...validEvent(), transactionId: undefined }), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'an empty transactionId', call: (f) => call(f, validEvent({ transactionId: '' })), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'a 1 MB transactionId', call: (f) => call(f, validEvent({ transactionId: BIG })), code: 'VALIDATION_FAILED', path: '/transactionId' },
    { name: 'an unknown transactionId', call: (f) => call(f, validEvent({ transactionId: 'ghost' })), code: 'TRANSACTION_NOT_FOUND', path: '/transactionId' },
    {
      name: 'an unknown transactionState',
      call: (f) => call(f, validEvent({ transactionState: 'DONE' })),
      code: 'VALIDATION_FAILED',
      path: '/transactionState',
    },
    { name: 'timestamp 315529199999', call: (f) => call(f, validEvent({ timestamp: 315529199999 })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'timestamp 4133890801001', call: (f) => call(f, validEvent({ timestamp: 4133890801001 })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'timestamp NaN', call: (f) => call(f, validEvent({ timestamp: Number.NaN })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'timestamp Infinity', call: (f) => call(f, validEvent({ timestamp: Number.POSITIVE_INFINITY })), code: 'VALIDATION_FAILED', path: '/timestamp' },
    { name: 'an empty eventId', call: (f) => call(f, validEvent({ eventId: '' })), code: 'VALIDATION_FAILED', path: '/eventId' },
    { name: 'a 1 MB eventId', call: (f) => call(f, validEvent({ eventId: BIG })), code: 'VALIDATION_FAILED', path: '/eventId' },
    { name: 'a number eventId', call: (f) => call(f, validEvent({ eventId: 7 })), code: 'VALIDATION_FAILED', path: '/eventId' },
    { name: 'a 1 MB reason', call: (f) => call(f, validEvent({ reason: BIG })), code: 'VALIDATION_FAILED', path: '/reason' },
    {
      name: 'a string updatedTransactionAttributes',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: MARKER })),
      code: 'VALIDATION_FAILED',
      path: '/updatedTransactionAttributes',
    },
    {
      name: 'an array updatedTransactionAttributes',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: [] })),
      code: 'VALIDATION_FAILED',
      path: '/updatedTransactionAttributes',
    },
    {
      name: 'a negative amount in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: { originAmountDetails: { transactionAmount: -1, transactionCurrency: 'EUR' } } })),
      code: 'VALIDATION_FAILED',
      path: '/updatedTransactionAttributes/originAmountDetails/transactionAmount',
    },
    {
      name: 'a battery level of 101 in metaData',
      call: (f) => call(f, validEvent({ metaData: { batteryLevel: 101 } })),
      code: 'VALIDATION_FAILED',
      path: '/metaData/batteryLevel',
    },
    {
      name: 'a __proto__ key at the top level',
      call: (f) => call(f, json(`{"transactionId":"seed","eventId":"ev-bad","timestamp":${T0 + 2},"transactionState":"SENT","__proto__":{"x":1}}`)),
      code: 'VALIDATION_FAILED',
      path: '/__proto__',
    },
    {
      name: 'a __proto__ key in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: json('{"__proto__":{"polluted":1}}') })),
      code: 'VALIDATION_FAILED',
      path: '/updatedTransactionAttributes/__proto__',
    },
    {
      name: 'a constructor key inside an array of objects in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: { tags: [{ key: 'a', value: 'b' }, { constructor: { prototype: { polluted: 1 } } }] } })),
      code: 'VALIDATION_FAILED',
      path: '/updatedTransactionAttributes/tags/1/constructor',
    },
    {
      name: 'a prototype key in metaData',
      call: (f) => call(f, validEvent({ metaData: { prototype: {} } })),
      code: 'VALIDATION_FAILED',
      path: '/metaData/prototype',
    },
    {
      name: 'a change of transactionId in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: { transactionId: 'other' } })),
      code: 'IMMUTABLE_FIELD',
      path: '/updatedTransactionAttributes/transactionId',
    },
    {
      name: 'a change of timestamp in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: { timestamp: T0 + 5 } })),
      code: 'IMMUTABLE_FIELD',
      path: '/updatedTransactionAttributes/timestamp',
    },
    {
      name: 'a change of type in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: { type: 'DEPOSIT' } })),
      code: 'IMMUTABLE_FIELD',
      path: '/updatedTransactionAttributes/type',
    },
    {
      name: 'a contradicting transactionState in the patch',
      call: (f) => call(f, validEvent({ updatedTransactionAttributes: { transactionState: 'DECLINED' } })),
      code: 'IMMUTABLE_FIELD',
      path: '/updatedTransactionAttributes/transactionState',
    },
    {
      name: 'a disallowed state move (PROCESSING → CREATED)',
      call: (f) => call(f, validEvent({ transactionState: 'CREATED' })),
      code: 'INVALID_STATE_TRANSITION',
      path: '/transactionState',
    },
    {
      name: 'a different payload for an existing eventId',
      call: (f) => call(f, validEvent({ eventId: 'seed-ev' })),
      code: 'EVENT_ID_CONFLICT',
      path: '/eventId',
    },
  ]);
});

describe('createUser', () => {
  const call = (f: Fixture, body: unknown) => f.engine.createUser(body as never);
  rejects([
    ...nonObjectBodies(call),
    { name: 'an empty object', call: (f) => call(f, {}), code: 'VALIDATION_FAILED', path: '/userId' },
    { name: 'a missing createdTimestamp', call: (f) => call(f, { userId: 'u-bad' }), code: 'VALIDATION_FAILED', path: '/createdTimestamp' },
    { name: 'an empty userId', call: (f) => call(f, validUser({ userId: '' })), code: 'VALIDATION_FAILED', path: '/userId' },
    { name: 'a 1 MB userId', call: (f) => call(f, validUser({ userId: BIG })), code: 'VALIDATION_FAILED', path: '/userId' },
    { name: 'a number userId', call: (f) => call(f, validUser({ userId: 5 })), code: 'VALIDATION_FAILED', path: '/userId' },
    {
      name: 'createdTimestamp 315529199999',
      call: (f) => call(f, validUser({ createdTimestamp: 315529199999 })),
      code: 'VALIDATION_FAILED',
      path: '/createdTimestamp',
    },
    {
      name: 'createdTimestamp 4133890801001',
      call: (f) => call(f, validUser({ createdTimestamp: 4133890801001 })),
      code: 'VALIDATION_FAILED',
      path: '/createdTimestamp',
    },
    { name: 'createdTimestamp NaN', call: (f) => call(f, validUser({ createdTimestamp: Number.NaN })), code: 'VALIDATION_FAILED', path: '/createdTimestamp' },
    {
      name: 'createdTimestamp Infinity',
      call: (f) => call(f, validUser({ createdTimestamp: Number.POSITIVE_INFINITY })),
      code: 'VALIDATION_FAILED',
      path: '/createdTimestamp',
    },
    { name: 'an unknown riskLevel', call: (f) => call(f, validUser({ riskLevel: MARKER })), code: 'VALIDATION_FAILED', path: '/riskLevel' },
    {
      name: 'a bad dateOfBirth',
      call: (f) => call(f, validUser({ userDetails: { dateOfBirth: '2020-13-01' } })),
      code: 'VALIDATION_FAILED',
      path: '/userDetails/dateOfBirth',
    },
    {
      name: 'a 1 MB first name',
      call: (f) => call(f, validUser({ userDetails: { name: { firstName: BIG } } })),
      code: 'VALIDATION_FAILED',
      path: '/userDetails/name/firstName',
    },
    {
      name: 'a business without companyGeneralDetails',
      call: (f) => call(f, validUser({ legalEntity: {} })),
      code: 'VALIDATION_FAILED',
      path: '/legalEntity/companyGeneralDetails',
    },
    {
      name: 'a string legalEntity',
      call: (f) => f.engine.createUser(validUser({ legalEntity: MARKER }), { type: 'BUSINESS' }),
      code: 'VALIDATION_FAILED',
      path: '/legalEntity',
    },
    {
      name: 'a __proto__ key at the top level',
      call: (f) => call(f, json(`{"userId":"u-bad","createdTimestamp":${T0},"__proto__":{"polluted":1}}`)),
      code: 'VALIDATION_FAILED',
      path: '/__proto__',
    },
    {
      name: 'a constructor key in userDetails',
      call: (f) => call(f, validUser({ userDetails: { constructor: { prototype: {} } } })),
      code: 'VALIDATION_FAILED',
      path: '/userDetails/constructor',
    },
    {
      name: 'a __proto__ key inside an array of objects (tags)',
      call: (f) => call(f, validUser({ tags: [{ key: 'a', value: 'b' }, json('{"__proto__":{"x":1}}')] })),
      code: 'VALIDATION_FAILED',
      path: '/tags/1/__proto__',
    },
    {
      name: 'a prototype key inside an array of objects (pepStatus)',
      call: (f) => call(f, validUser({ pepStatus: [{ prototype: 1 }] })),
      code: 'VALIDATION_FAILED',
      path: '/pepStatus/0/prototype',
    },
  ]);
});

describe('getters by id', () => {
  const getters: { name: string; call: (f: Fixture, id: unknown) => Promise<unknown>; code: keyof typeof ERROR_CODES }[] = [
    { name: 'getTransaction', call: (f, id) => f.engine.getTransaction(loose(id)), code: 'TRANSACTION_NOT_FOUND' },
    { name: 'getTransactionEvent', call: (f, id) => f.engine.getTransactionEvent(loose(id)), code: 'EVENT_NOT_FOUND' },
    { name: 'getUser', call: (f, id) => f.engine.getUser(loose(id)), code: 'USER_NOT_FOUND' },
    { name: 'getRuleInstance', call: (f, id) => f.engine.getRuleInstance(loose(id)), code: 'RULE_INSTANCE_NOT_FOUND' },
    { name: 'deleteRuleInstance', call: (f, id) => f.engine.deleteRuleInstance(loose(id)), code: 'RULE_INSTANCE_NOT_FOUND' },
    { name: 'getRule', call: (f, id) => f.engine.getRule(loose(id)), code: 'RULE_NOT_FOUND' },
    { name: 'getAlert', call: (f, id) => f.engine.getAlert(loose(id)), code: 'ALERT_NOT_FOUND' },
    { name: 'getCase', call: (f, id) => f.engine.getCase(loose(id)), code: 'CASE_NOT_FOUND' },
    { name: 'changeAlertStatus', call: (f, id) => f.engine.changeAlertStatus(loose(id), { status: 'IN_REVIEW' }), code: 'ALERT_NOT_FOUND' },
    { name: 'changeCaseStatus', call: (f, id) => f.engine.changeCaseStatus(loose(id), { status: 'IN_REVIEW' }), code: 'CASE_NOT_FOUND' },
    { name: 'updateAlert', call: (f, id) => f.engine.updateAlert(loose(id), { priority: 'P2' }), code: 'ALERT_NOT_FOUND' },
    { name: 'updateCase', call: (f, id) => f.engine.updateCase(loose(id), { priority: 'P2' }), code: 'CASE_NOT_FOUND' },
    { name: 'listComments (user)', call: (f, id) => f.engine.listComments({ kind: 'user', id: loose(id) }), code: 'USER_NOT_FOUND' },
  ];
  for (const g of getters) {
    describe(g.name, () => {
      rejects([...badIds(g.call), ...unknownIds(g.call, g.code)]);
    });
  }

  it('getUser is 404 for a user only seen in transactions and for a type mismatch', async () => {
    const f = await fixture();
    await expect(f.engine.getUser('bob')).rejects.toMatchObject({ code: 'USER_NOT_FOUND', status: 404 });
    await expect(f.engine.getUser('alice', { type: 'BUSINESS' })).rejects.toMatchObject({ code: 'USER_NOT_FOUND', status: 404 });
  });
});

describe('comments', () => {
  const kinds = [
    {
      name: 'createUserComment',
      call: (f: Fixture, id: unknown, body: unknown) => f.engine.createUserComment(loose(id), body as never),
      target: (_: Fixture) => 'alice',
      code: 'USER_NOT_FOUND' as const,
    },
    {
      name: 'createCaseComment',
      call: (f: Fixture, id: unknown, body: unknown) => f.engine.createCaseComment(loose(id), body as never),
      target: (f: Fixture) => f.caseId,
      code: 'CASE_NOT_FOUND' as const,
    },
    {
      name: 'createAlertComment',
      call: (f: Fixture, id: unknown, body: unknown) => f.engine.createAlertComment(loose(id), body as never),
      target: (f: Fixture) => f.alertId,
      code: 'ALERT_NOT_FOUND' as const,
    },
  ];
  for (const k of kinds) {
    describe(k.name, () => {
      const on = (body: unknown) => (f: Fixture) => k.call(f, k.target(f), body);
      const file = (overrides: Record<string, unknown>) => (f: Fixture) => ({ s3Key: f.attachedKey, filename: 'a.txt', size: 1, ...overrides });
      rejects([
        ...badIds((f, id) => k.call(f, id, { body: 'x' })),
        ...unknownIds((f, id) => k.call(f, id, { body: 'x' }), k.code),
        ...nonObjectBodies((f, body) => k.call(f, k.target(f), body)),
        { name: 'an empty object', call: on({}), code: 'VALIDATION_FAILED', path: '/body' },
        { name: 'an empty comment body', call: on({ body: '' }), code: 'VALIDATION_FAILED', path: '/body' },
        { name: 'a number comment body', call: on({ body: 5 }), code: 'VALIDATION_FAILED', path: '/body' },
        { name: 'a 1 MB comment body', call: on({ body: BIG }), code: 'VALIDATION_FAILED', path: '/body' },
        {
          name: 'createdTimestamp 315529199999',
          call: on({ body: 'x', createdTimestamp: 315529199999 }),
          code: 'VALIDATION_FAILED',
          path: '/createdTimestamp',
        },
        {
          name: 'createdTimestamp 4133890801001',
          call: on({ body: 'x', createdTimestamp: 4133890801001 }),
          code: 'VALIDATION_FAILED',
          path: '/createdTimestamp',
        },
        { name: 'createdTimestamp NaN', call: on({ body: 'x', createdTimestamp: Number.NaN }), code: 'VALIDATION_FAILED', path: '/createdTimestamp' },
        { name: 'a string files', call: on({ body: 'x', files: MARKER }), code: 'VALIDATION_FAILED', path: '/files' },
        { name: 'a file without a key', call: on({ body: 'x', files: [{ filename: 'a.txt', size: 1 }] }), code: 'VALIDATION_FAILED' },
        {
          name: 'a file name with a path separator',
          call: (f) => k.call(f, k.target(f), { body: 'x', files: [file({ filename: '../etc/passwd' })(f)] }),
          code: 'VALIDATION_FAILED',
          path: '/files/0/filename',
        },
        {
          name: 'a negative file size',
          call: (f) => k.call(f, k.target(f), { body: 'x', files: [file({ size: -1 })(f)] }),
          code: 'VALIDATION_FAILED',
          path: '/files/0/size',
        },
        {
          name: '21 files',
          call: (f) => k.call(f, k.target(f), { body: 'x', files: Array.from({ length: 21 }, () => file({})(f)) }),
          code: 'VALIDATION_FAILED',
          path: '/files',
        },
        {
          name: 'a file key never issued',
          call: on({ body: 'x', files: [{ s3Key: MARKER, filename: 'a.txt', size: 1 }] }),
          code: 'UNKNOWN_FILE_KEY',
          path: '/files/0/s3Key',
        },
        {
          name: 'a key alias never issued',
          call: on({ body: 'x', files: [{ key: 'forged', filename: 'a.txt', size: 1 }] }),
          code: 'UNKNOWN_FILE_KEY',
          path: '/files/0/key',
        },
        {
          name: 'a second file key never issued (the first one valid)',
          call: (f) => k.call(f, k.target(f), { body: 'x', files: [file({})(f), { s3Key: 'forged', filename: 'b.txt', size: 1 }] }),
          code: 'UNKNOWN_FILE_KEY',
          path: '/files/1/s3Key',
        },
        { name: 'a __proto__ key at the top level', call: on(json('{"body":"x","__proto__":{"polluted":1}}')), code: 'VALIDATION_FAILED', path: '/__proto__' },
        {
          name: 'a __proto__ key inside the files array',
          call: on({ body: 'x', files: [json('{"__proto__":{"polluted":1}}')] }),
          code: 'VALIDATION_FAILED',
          path: '/files/0/__proto__',
        },
        {
          name: 'a constructor key inside the files array',
          call: on({ body: 'x', files: [{ s3Key: 'k', filename: 'a', size: 1, constructor: {} }] }),
          code: 'VALIDATION_FAILED',
          path: '/files/0/constructor',
        },
      ]);
    });
  }
});

describe('createRuleInstance and updateRuleInstance', () => {
  // Each body is sent to createRuleInstance (with ruleId R-2 unless it names its own) and as an
  // update of the fixture's R-2 instance; neither may store anything.
  const bodies: { name: string; body: () => Record<string, unknown>; code: keyof typeof ERROR_CODES; path: string }[] = [
    { name: 'a read-only id', body: () => ({ id: 'x' }), code: 'READ_ONLY_FIELD', path: '/id' },
    { name: 'a read-only runCount', body: () => ({ runCount: 1 }), code: 'READ_ONLY_FIELD', path: '/runCount' },
    { name: 'a read-only hitCount', body: () => ({ hitCount: 1 }), code: 'READ_ONLY_FIELD', path: '/hitCount' },
    { name: 'a read-only createdAt', body: () => ({ createdAt: T0 }), code: 'READ_ONLY_FIELD', path: '/createdAt' },
    { name: 'a read-only updatedAt', body: () => ({ updatedAt: T0 }), code: 'READ_ONLY_FIELD', path: '/updatedAt' },
    { name: 'an unknown ruleId', body: () => ({ ruleId: 'R-0' }), code: 'UNKNOWN_RULE', path: '/ruleId' },
    { name: "ruleId '__proto__'", body: () => ({ ruleId: '__proto__' }), code: 'UNKNOWN_RULE', path: '/ruleId' },
    { name: "ruleId 'constructor'", body: () => ({ ruleId: 'constructor' }), code: 'UNKNOWN_RULE', path: '/ruleId' },
    { name: 'an empty ruleId', body: () => ({ ruleId: '' }), code: 'VALIDATION_FAILED', path: '/ruleId' },
    { name: 'a 1 MB ruleId', body: () => ({ ruleId: BIG }), code: 'VALIDATION_FAILED', path: '/ruleId' },
    { name: 'an unknown top-level field', body: () => ({ ruleId: 'R-2', colour: 'red' }), code: 'VALIDATION_FAILED', path: '/colour' },
    { name: 'a string parameters', body: () => ({ ruleId: 'R-2', parameters: MARKER }), code: 'VALIDATION_FAILED', path: '/parameters' },
    {
      name: 'a negative threshold',
      body: () => ({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: -1 } } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/transactionAmountThreshold/EUR',
    },
    {
      name: 'a threshold above 1e15',
      body: () => ({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1e16 } } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/transactionAmountThreshold/EUR',
    },
    {
      name: 'an empty threshold map for R-2',
      body: () => ({ ruleId: 'R-2', parameters: { transactionAmountThreshold: {} } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/transactionAmountThreshold',
    },
    {
      name: 'an unknown parameter',
      body: () => ({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1 }, extra: 1 } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/extra',
    },
    {
      name: 'an R-30 window of 0 units',
      body: () => ({ ruleId: 'R-30', parameters: { timeWindow: { units: 0, granularity: 'day' } } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/timeWindow/units',
    },
    {
      name: 'an R-30 window of 10001 units',
      body: () => ({ ruleId: 'R-30', parameters: { timeWindow: { units: 10001, granularity: 'day' } } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/timeWindow/units',
    },
    {
      name: 'an R-30 window granularity decade',
      body: () => ({ ruleId: 'R-30', parameters: { timeWindow: { units: 1, granularity: 'decade' } } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/timeWindow/granularity',
    },
    {
      name: 'an R-30 fiscal year month 13',
      body: () => ({ ruleId: 'R-30', parameters: { timeWindow: { units: 1, granularity: 'fiscal_year', fiscalYear: { startMonth: 13, startDay: 1 } } } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/timeWindow/fiscalYear/startMonth',
    },
    {
      name: 'a negative R-30 limit',
      body: () => ({ ruleId: 'R-30', parameters: { transactionsLimit: -1 } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/transactionsLimit',
    },
    {
      name: 'a fractional R-30 limit',
      body: () => ({ ruleId: 'R-30', parameters: { transactionsLimit: 1.5 } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/transactionsLimit',
    },
    {
      name: "an R-30 checkSender 'everyone'",
      body: () => ({ ruleId: 'R-30', parameters: { checkSender: 'everyone' } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/checkSender',
    },
    {
      name: 'an empty R-14 country list',
      body: () => ({ ruleId: 'R-14', parameters: { highRiskCountries: [] } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/highRiskCountries',
    },
    {
      name: 'a duplicate R-14 country',
      body: () => ({ ruleId: 'R-14', parameters: { highRiskCountries: ['IR', 'IR'] } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/highRiskCountries',
    },
    {
      name: 'a negative R-69 initialTransactions',
      body: () => ({ ruleId: 'R-69', parameters: { initialTransactions: -1 } }),
      code: 'INVALID_PARAMETERS',
      path: '/parameters/initialTransactions',
    },
    {
      name: 'a bad per-level parameter',
      body: () => ({
        ruleId: 'R-30',
        riskLevelParameters: { VERY_LOW: {}, LOW: {}, MEDIUM: {}, HIGH: { transactionsLimit: 'ten' }, VERY_HIGH: {} },
      }),
      code: 'INVALID_PARAMETERS',
      path: '/riskLevelParameters/HIGH/transactionsLimit',
    },
    {
      name: 'incomplete riskLevelParameters',
      body: () => ({ ruleId: 'R-2', riskLevelParameters: { HIGH: {} } }),
      code: 'VALIDATION_FAILED',
      path: '/riskLevelParameters/VERY_LOW',
    },
    { name: 'an unknown action', body: () => ({ ruleId: 'R-2', action: MARKER }), code: 'VALIDATION_FAILED', path: '/action' },
    { name: 'an unknown status', body: () => ({ ruleId: 'R-2', status: 'PAUSED' }), code: 'VALIDATION_FAILED', path: '/status' },
    { name: 'an unknown mode', body: () => ({ ruleId: 'R-2', mode: 'DRY_RUN' }), code: 'VALIDATION_FAILED', path: '/mode' },
    { name: 'an unknown casePriority', body: () => ({ ruleId: 'R-2', casePriority: 'P0' }), code: 'VALIDATION_FAILED', path: '/casePriority' },
    { name: 'an unknown label', body: () => ({ ruleId: 'R-2', labels: ['NOPE'] }), code: 'VALIDATION_FAILED', path: '/labels/0' },
    { name: 'a 1 MB ruleNameAlias', body: () => ({ ruleId: 'R-2', ruleNameAlias: BIG }), code: 'VALIDATION_FAILED', path: '/ruleNameAlias' },
    {
      name: 'a 1 MB ruleDescriptionAlias',
      body: () => ({ ruleId: 'R-2', ruleDescriptionAlias: BIG }),
      code: 'VALIDATION_FAILED',
      path: '/ruleDescriptionAlias',
    },
    {
      name: 'a non-boolean alertCreationOnHit',
      body: () => ({ ruleId: 'R-2', alertCreationOnHit: 'yes' }),
      code: 'VALIDATION_FAILED',
      path: '/alertCreationOnHit',
    },
    {
      name: 'a triggersOnHit state without reason',
      body: () => ({ ruleId: 'R-2', triggersOnHit: { userStateDetails: { state: 'BLOCKED' } } }),
      code: 'VALIDATION_FAILED',
      path: '/triggersOnHit/userStateDetails/reason',
    },
    { name: 'a string filters', body: () => ({ ruleId: 'R-2', filters: MARKER }), code: 'VALIDATION_FAILED', path: '/filters' },
    { name: 'an unknown filter key', body: () => ({ ruleId: 'R-2', filters: { bogus: ['x'] } }), code: 'INVALID_FILTERS', path: '/filters/bogus' },
    {
      name: 'a filter list given as a string',
      body: () => ({ ruleId: 'R-2', filters: { transactionTypes: 'TRANSFER' } }),
      code: 'INVALID_FILTERS',
      path: '/filters/transactionTypes',
    },
    { name: 'a logic operator outside the allowlist', body: () => ({ logic: { method: ['x', 'toString'] } }), code: 'INVALID_LOGIC', path: '/logic' },
    { name: 'both ruleId and logic', body: () => ({ ruleId: 'R-2', logic: { '==': [1, 1] } }), code: 'VALIDATION_FAILED', path: '/ruleId' },
    {
      name: 'a __proto__ key at the top level',
      body: () => json('{"ruleId":"R-2","__proto__":{"polluted":1}}') as Record<string, unknown>,
      code: 'VALIDATION_FAILED',
      path: '/__proto__',
    },
    {
      name: 'a constructor key at the top level',
      body: () => ({ ruleId: 'R-2', constructor: { prototype: { polluted: 1 } } }),
      code: 'VALIDATION_FAILED',
      path: '/constructor',
    },
    {
      name: 'a prototype key in parameters',
      body: () => ({ ruleId: 'R-2', parameters: { prototype: {} } }),
      code: 'VALIDATION_FAILED',
      path: '/parameters/prototype',
    },
    {
      name: 'a __proto__ key in a threshold map',
      body: () => ({ ruleId: 'R-2', parameters: { transactionAmountThreshold: json('{"__proto__":{"EUR":1}}') } }),
      code: 'VALIDATION_FAILED',
      path: '/parameters/transactionAmountThreshold/__proto__',
    },
    {
      name: 'a __proto__ key inside an array of objects (logicAggregationVariables)',
      body: () => ({ logic: { '==': [1, 1] }, logicAggregationVariables: [{ key: 'a' }, json('{"__proto__":{"polluted":1}}')] }),
      code: 'VALIDATION_FAILED',
      path: '/logicAggregationVariables/1/__proto__',
    },
    {
      name: 'a constructor key inside logic',
      body: () => ({ logic: { '==': [{ constructor: 1 }, 1] } }),
      code: 'VALIDATION_FAILED',
      path: '/logic/==/0/constructor',
    },
    {
      name: 'a __proto__ path in a logic var',
      body: () => ({ logic: { '==': [{ var: 'transaction.__proto__.polluted' }, 1] } }),
      code: 'INVALID_LOGIC',
      path: '/logic/==/0/var',
    },
  ];

  describe('createRuleInstance', () => {
    rejects([
      ...nonObjectBodies((f, body) => f.engine.createRuleInstance(body as never)),
      { name: 'an empty object (no ruleId, no logic)', call: (f) => f.engine.createRuleInstance({}), code: 'VALIDATION_FAILED', path: '/ruleId' },
      // A body naming neither ruleId nor logic gets ruleId R-2; custom-logic bodies are sent as they are.
      ...bodies.map((b) => ({
        name: b.name,
        call: (f: Fixture) => {
          const body = b.body();
          return f.engine.createRuleInstance('logic' in body || 'ruleId' in body ? body : { ruleId: 'R-2', ...body });
        },
        code: b.code,
        path: b.path,
      })),
    ]);
  });

  describe('updateRuleInstance', () => {
    rejects([
      ...badIds((f, id) => f.engine.updateRuleInstance(loose(id), { action: 'BLOCK' })),
      ...unknownIds((f, id) => f.engine.updateRuleInstance(id, { action: 'BLOCK' }), 'RULE_INSTANCE_NOT_FOUND'),
      ...nonObjectBodies((f, body) => f.engine.updateRuleInstance(f.instanceId, body as never)),
      ...bodies.map((b) => ({ name: b.name, call: (f: Fixture) => f.engine.updateRuleInstance(f.instanceId, b.body()), code: b.code, path: b.path })),
    ]);
  });
});

describe('createUpload', () => {
  const call = (f: Fixture, body: unknown) => f.engine.createUpload(body as never);
  rejects([
    ...nonObjectBodies(call),
    { name: 'an empty object', call: (f) => call(f, {}), code: 'VALIDATION_FAILED', path: '/filename' },
    { name: 'a missing fileSize', call: (f) => call(f, { filename: 'a.txt' }), code: 'VALIDATION_FAILED', path: '/fileSize' },
    { name: 'a negative fileSize', call: (f) => call(f, { filename: 'a.txt', fileSize: -1 }), code: 'VALIDATION_FAILED', path: '/fileSize' },
    { name: 'a fractional fileSize', call: (f) => call(f, { filename: 'a.txt', fileSize: 1.5 }), code: 'VALIDATION_FAILED', path: '/fileSize' },
    { name: 'a string fileSize', call: (f) => call(f, { filename: 'a.txt', fileSize: '10' }), code: 'VALIDATION_FAILED', path: '/fileSize' },
    { name: 'a NaN fileSize', call: (f) => call(f, { filename: 'a.txt', fileSize: Number.NaN }), code: 'VALIDATION_FAILED', path: '/fileSize' },
    {
      name: 'a fileSize 1 byte over the configured maximum',
      call: (f) => call(f, { filename: 'a.txt', fileSize: MAX_UPLOAD + 1 }),
      code: 'VALIDATION_FAILED',
      path: '/fileSize',
    },
    {
      name: 'a fileSize beyond MAX_SAFE_INTEGER',
      call: (f) => call(f, { filename: 'a.txt', fileSize: 2 ** 60 }),
      code: 'VALIDATION_FAILED',
      path: '/fileSize',
    },
    { name: 'an empty filename', call: (f) => call(f, { filename: '', fileSize: 1 }), code: 'VALIDATION_FAILED', path: '/filename' },
    { name: "filename '..'", call: (f) => call(f, { filename: '..', fileSize: 1 }), code: 'VALIDATION_FAILED', path: '/filename' },
    { name: 'a filename with a slash', call: (f) => call(f, { filename: 'a/b', fileSize: 1 }), code: 'VALIDATION_FAILED', path: '/filename' },
    { name: 'a filename with a backslash', call: (f) => call(f, { filename: 'a\\b', fileSize: 1 }), code: 'VALIDATION_FAILED', path: '/filename' },
    { name: 'a filename with a NUL character', call: (f) => call(f, { filename: 'a\u0000b', fileSize: 1 }), code: 'VALIDATION_FAILED', path: '/filename' },
    { name: 'a 1 MB filename', call: (f) => call(f, { filename: BIG, fileSize: 1 }), code: 'VALIDATION_FAILED', path: '/filename' },
    {
      name: 'a __proto__ key at the top level',
      call: (f) => call(f, json('{"filename":"a.txt","fileSize":1,"__proto__":{"polluted":1}}')),
      code: 'VALIDATION_FAILED',
      path: '/__proto__',
    },
    {
      name: 'a constructor key at the top level',
      call: (f) => call(f, { filename: 'a.txt', fileSize: 1, constructor: {} }),
      code: 'VALIDATION_FAILED',
      path: '/constructor',
    },
    {
      name: 'a prototype key nested in an array of objects',
      call: (f) => call(f, { filename: 'a.txt', fileSize: 1, extra: [{ prototype: 1 }] }),
      code: 'VALIDATION_FAILED',
      path: '/extra/0/prototype',
    },
  ]);

  it('accepts a fileSize exactly at the configured maximum', async () => {
    const f = await fixture();
    expect((await f.engine.createUpload({ filename: 'a.txt', fileSize: MAX_UPLOAD })).key).toBe('file-3');
  });
});

describe('putUploadContent and getFileContent', () => {
  const bytes = new Uint8Array([1]);
  rejects([
    { name: 'null credentials', call: (f) => f.engine.putUploadContent(loose(null), bytes), code: 'UNAUTHORIZED' },
    { name: 'a number key', call: (f) => f.engine.putUploadContent(loose({ ...f.uploadAccess, key: 42 }), bytes), code: 'UNAUTHORIZED' },
    { name: 'another key with a valid signature', call: (f) => f.engine.putUploadContent({ ...f.uploadAccess, key: 'file-9' }, bytes), code: 'UNAUTHORIZED' },
    {
      name: 'a tampered signature',
      call: (f) => f.engine.putUploadContent({ ...f.uploadAccess, signature: f.uploadAccess.signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) }, bytes),
      code: 'UNAUTHORIZED',
    },
    {
      name: 'a later expiry than signed',
      call: (f) => f.engine.putUploadContent({ ...f.uploadAccess, expiresAt: f.uploadAccess.expiresAt + 1 }, bytes),
      code: 'UNAUTHORIZED',
    },
    { name: 'a NaN expiry', call: (f) => f.engine.putUploadContent({ ...f.uploadAccess, expiresAt: Number.NaN }, bytes), code: 'UNAUTHORIZED' },
    {
      name: 'an expired upload URL',
      call: async (f) => {
        f.clock.advance(16 * 60 * 1000);
        return f.engine.putUploadContent(f.uploadAccess, bytes);
      },
      code: 'UNAUTHORIZED',
    },
    { name: 'more bytes than announced', call: (f) => f.engine.putUploadContent(f.uploadAccess, new Uint8Array(2)), code: 'PAYLOAD_TOO_LARGE' },
    { name: 'an upload signature used to download', call: (f) => f.engine.getFileContent(f.uploadAccess), code: 'UNAUTHORIZED' },
    { name: 'download credentials of another key', call: (f) => f.engine.getFileContent({ ...f.uploadAccess, key: BIG }), code: 'UNAUTHORIZED' },
  ]);

  it('stores the bytes announced, exactly at the announced size', async () => {
    const f = await fixture();
    await f.engine.putUploadContent(f.uploadAccess, new Uint8Array([9]));
    expect([...((await f.engine.repositories.files.getFileContent(f.uploadKey)) ?? [])]).toEqual([9]);
  });
});

/* ------------------------------------------------------------------------------------------------
 * Fuzzing: any value, and valid bodies with one part corrupted
 * ---------------------------------------------------------------------------------------------- */

const fuzzKeyArb = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'transactionId', 'userId', 'body', 'ruleId', 'timestamp', 'files', 'logic'),
  },
);

const anythingArb = fc.anything({
  key: fuzzKeyArb,
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

const inputArb = fc.oneof(anythingArb, fc.jsonValue({ maxDepth: 3 }));

/** Every path (as key lists) to a member of a plain JSON value, containers included. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  const out: string[][] = [prefix];
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

/** Sets an own, enumerable member (also `__proto__`); arrays refuse some keys (`length`): then nothing changes. */
function setOwn(target: object, key: string, value: unknown): void {
  try {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } catch {
    // e.g. redefining an array's length
  }
}

/** A valid body with one member replaced, deleted, or given an extra (possibly forbidden) key. */
function corruptedArb(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid);
  return fc.tuple(fc.constantFrom(...paths), inputArb, fc.constantFrom('replace', 'delete', 'add'), fuzzKeyArb).map(([path, value, mode, key]) => {
    const copy = structuredClone(valid) as Record<string, unknown>;
    if (path.length === 0) return mode === 'replace' ? value : copy;
    let parent: Record<string, unknown> = copy;
    for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
    const last = path[path.length - 1] as string;
    if (mode === 'delete') delete parent[last];
    else if (mode === 'replace') setOwn(parent, last, value);
    else {
      const target = parent[last];
      setOwn(target !== null && typeof target === 'object' ? target : parent, key, value);
    }
    return copy;
  });
}

const protoNames = () => Object.getOwnPropertyNames(Object.prototype).sort().join(',');
const PROTO_BEFORE = protoNames();

/** Calls `fn` and checks: success, or a TxmonError with a 4xx status; Object.prototype untouched. */
async function expectSafe(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (!isTxmonError(e)) throw new Error(`not a TxmonError: ${String(e)}`, { cause: e });
    expect(e.code in ERROR_CODES).toBe(true);
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThan(500);
    for (const d of e.details) expect(typeof d.path === 'string' && (d.path === '' || d.path.startsWith('/'))).toBe(true);
  }
  expect(protoNames()).toBe(PROTO_BEFORE);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** A valid call per engine, used after the fuzzing to show the engine still works. */
async function stillWorks(f: Fixture): Promise<void> {
  const id = `after-${Math.random().toString(36).slice(2)}`;
  const r = await f.engine.createTransaction({ ...validTx({ transactionId: id }) });
  expect(r.transactionId).toBe(id);
  expect(['ALLOW', 'FLAG', 'SUSPEND', 'BLOCK']).toContain(r.status);
  await f.engine.createTransactionEvent({ transactionId: id, timestamp: T0 + 10, transactionState: 'SUCCESSFUL' });
  expect((await f.engine.getTransaction(id)).transactionState).toBe('SUCCESSFUL');
  // A valid fuzzed update may have changed the instance (even into a custom rule); it must still be readable.
  expect((await f.engine.getRuleInstance(f.instanceId)).id).toBe(f.instanceId);
}

interface FuzzTarget {
  name: string;
  valid: (f: Fixture) => Record<string, unknown>;
  call: (f: Fixture, input: unknown) => Promise<unknown>;
}

const fuzzTargets: FuzzTarget[] = [
  {
    name: 'createTransaction',
    valid: () => validTx({ transactionId: 'fz', tags: [{ key: 'a', value: 'b' }], metadata: { a: 1 } }),
    call: (f, x) => f.engine.createTransaction(x as never),
  },
  {
    name: 'createTransactionEvent',
    valid: () =>
      validEvent({
        eventId: 'fz-ev',
        updatedTransactionAttributes: {
          reference: 'r',
          tags: [{ key: 'a', value: 'b' }],
          originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR' },
        },
        metaData: { batteryLevel: 5 },
      }),
    call: (f, x) => f.engine.createTransactionEvent(x as never),
  },
  {
    name: 'createUser',
    valid: () => validUser({ userId: 'fz-user', userDetails: { name: { firstName: 'A' } }, tags: [{ key: 'a', value: 'b' }] }),
    call: (f, x) => f.engine.createUser(x as never),
  },
  {
    name: 'createUser (business)',
    valid: () => validUser({ userId: 'fz-biz', legalEntity: { companyGeneralDetails: { legalName: 'ACME' } } }),
    call: (f, x) => f.engine.createUser(x as never, { type: 'BUSINESS' }),
  },
  {
    name: 'createUserComment',
    valid: (f) => ({ body: 'b', files: [{ s3Key: f.attachedKey, filename: 'a.txt', size: 1 }] }),
    call: (f, x) => f.engine.createUserComment('alice', x as never),
  },
  {
    name: 'createCaseComment',
    valid: (f) => ({ body: 'b', files: [{ key: f.attachedKey, filename: 'a.txt', size: 1 }] }),
    call: (f, x) => f.engine.createCaseComment(f.caseId, x as never),
  },
  { name: 'createAlertComment', valid: () => ({ body: 'b', createdTimestamp: T0 }), call: (f, x) => f.engine.createAlertComment(f.alertId, x as never) },
  {
    name: 'createRuleInstance',
    valid: () => ({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 3, timeWindow: { units: 2, granularity: 'hour' }, checkSender: 'all', checkReceiver: 'none' },
      filters: { transactionTypes: ['TRANSFER'] },
      triggersOnHit: { usersToCheck: 'ALL', userStateDetails: { state: 'BLOCKED', reason: 'r' } },
      mode: 'SHADOW',
    }),
    call: (f, x) => f.engine.createRuleInstance(x as never),
  },
  {
    name: 'createRuleInstance (custom logic)',
    valid: () => ({ logic: { and: [{ '>': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 5] }, { in: ['a', ['a', 'b']] }] }, action: 'BLOCK' }),
    call: (f, x) => f.engine.createRuleInstance(x as never),
  },
  {
    name: 'updateRuleInstance',
    valid: () => ({ parameters: { transactionAmountThreshold: { EUR: 5, USD: 7 } }, action: 'FLAG', labels: [] }),
    call: (f, x) => f.engine.updateRuleInstance(f.instanceId, x as never),
  },
  { name: 'createUpload', valid: () => ({ filename: 'a.txt', fileSize: 10 }), call: (f, x) => f.engine.createUpload(x as never) },
  {
    name: 'changeAlertStatus',
    valid: (f) => ({ status: 'CLOSED', reason: ['OTHER'], otherReason: 'o', comment: 'c', files: [{ s3Key: f.attachedKey, filename: 'a.txt', size: 1 }] }),
    call: (f, x) => f.engine.changeAlertStatus(f.alertId, x as never),
  },
  { name: 'changeCaseStatus', valid: () => ({ status: 'ESCALATED', comment: 'c' }), call: (f, x) => f.engine.changeCaseStatus(f.caseId, x as never) },
  {
    name: 'updateAlert',
    valid: () => ({ priority: 'P1', assignments: [{ assigneeEmail: 'a@b.example', assignedByEmail: 'c@d.example', timestamp: T0 }] }),
    call: (f, x) => f.engine.updateAlert(f.alertId, x as never),
  },
  { name: 'updateCase', valid: () => ({ assignments: [{ assigneeEmail: 'a@b.example' }] }), call: (f, x) => f.engine.updateCase(f.caseId, x as never) },
  {
    name: 'listAlerts (query)',
    valid: () => ({ pageSize: 5, sortBy: 'priority', sortOrder: 'asc', filterAlertStatus: ['OPEN'], filterPriority: 'P1', filterAfterCreatedTimestamp: 0 }),
    call: (f, x) => f.engine.listAlerts(x as never),
  },
  {
    name: 'listCases (query)',
    valid: () => ({ pageSize: 5, sortBy: 'caseId', filterCaseStatus: ['OPEN', 'CLOSED'], filterUserId: 'alice', filterBeforeCreatedTimestamp: T0 }),
    call: (f, x) => f.engine.listCases(x as never),
  },
  { name: 'listComments', valid: (f) => ({ kind: 'case', id: f.caseId }), call: (f, x) => f.engine.listComments(x as never) },
];

const idTargets: { name: string; call: (f: Fixture, id: unknown) => Promise<unknown> }[] = [
  { name: 'putUploadContent (credentials)', call: (f, access) => f.engine.putUploadContent(loose(access), new Uint8Array([1])) },
  { name: 'getFileContent (credentials)', call: (f, access) => f.engine.getFileContent(loose(access)) },
  { name: 'getTransaction', call: (f, id) => f.engine.getTransaction(loose(id)) },
  { name: 'getTransactionEvent', call: (f, id) => f.engine.getTransactionEvent(loose(id)) },
  { name: 'getUser', call: (f, id) => f.engine.getUser(loose(id)) },
  { name: 'getRuleInstance', call: (f, id) => f.engine.getRuleInstance(loose(id)) },
  { name: 'getRule', call: (f, id) => f.engine.getRule(loose(id)) },
  { name: 'getAlert', call: (f, id) => f.engine.getAlert(loose(id)) },
  { name: 'getCase', call: (f, id) => f.engine.getCase(loose(id)) },
  { name: 'updateRuleInstance (id)', call: (f, id) => f.engine.updateRuleInstance(loose(id), { action: 'FLAG' }) },
  { name: 'createUserComment (id)', call: (f, id) => f.engine.createUserComment(loose(id), { body: 'x' }) },
  { name: 'createCaseComment (id)', call: (f, id) => f.engine.createCaseComment(loose(id), { body: 'x' }) },
  { name: 'createAlertComment (id)', call: (f, id) => f.engine.createAlertComment(loose(id), { body: 'x' }) },
  { name: 'changeAlertStatus (id)', call: (f, id) => f.engine.changeAlertStatus(loose(id), { status: 'IN_REVIEW' }) },
  { name: 'changeCaseStatus (id)', call: (f, id) => f.engine.changeCaseStatus(loose(id), { status: 'IN_REVIEW' }) },
  { name: 'updateAlert (id)', call: (f, id) => f.engine.updateAlert(loose(id), { priority: 'P2' }) },
  { name: 'updateCase (id)', call: (f, id) => f.engine.updateCase(loose(id), { priority: 'P2' }) },
  { name: 'listComments (id)', call: (f, id) => f.engine.listComments({ kind: 'alert', id: loose(id) }) },
  { name: 'listAlerts (cursor)', call: (f, start) => f.engine.listAlerts({ start: loose(start) }) },
  // Last: a successful delete would remove the fixture instance that stillWorks() reads.
  { name: 'deleteRuleInstance', call: (f, id) => (id === f.instanceId ? Promise.resolve() : f.engine.deleteRuleInstance(loose(id))) },
];

describe('properties', () => {
  for (const target of fuzzTargets) {
    describe(target.name, () => {
      let shared: Fixture | null = null;
      const fix = async () => (shared ??= await fixture());

      test.prop([inputArb], { numRuns: 60 })('any value is accepted or rejected with a 4xx TxmonError', async (input) => {
        const f = await fix();
        await expectSafe(() => target.call(f, input));
      });

      it('a corrupted valid body is accepted or rejected with a 4xx TxmonError, and the engine still works', async () => {
        const f = await fix();
        const valid = target.valid(f);
        await fc.assert(
          fc.asyncProperty(corruptedArb(valid), async (input) => {
            await expectSafe(() => target.call(f, input));
          }),
          { numRuns: 80 },
        );
        await stillWorks(f);
      });
    });
  }

  for (const target of idTargets) {
    test.prop([fc.oneof(anythingArb, fc.string({ maxLength: 300 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', ''))], {
      numRuns: 40,
    })(`${target.name}: any id is answered or rejected with a 4xx TxmonError`, async (id) => {
      const f = await fixture();
      await expectSafe(() => target.call(f, id));
      await stillWorks(f);
    });
  }
});
