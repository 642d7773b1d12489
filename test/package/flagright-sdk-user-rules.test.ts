/**
 * The official Flagright SDK (`flagright@1.8.53`) against a server with a user rule (R-20) and a
 * transaction rule: user creation, user events (`consumerUserEvents`, `businessUserEvents`: create
 * and get) and batches (`batch.*`: six creates, six reads) answer the user rules' results in the
 * SDK's shapes — R-20 hits a user from a high-risk country, on creation and when an event moves it
 * there. Written against the SDK's types and DOMAIN.md's endpoint table, beside
 * flagright-sdk.test.ts (every method on a server without user rules).
 *
 * What it pins beyond "the SDK parses every answer": a user event merges its updated attributes
 * into the stored user (the SDK's answer is the user after the event) and replays idempotently,
 * the same eventId with another payload is a ConflictError; a batch answers `BatchResponse` with a
 * bad record counted and named in `failedRecords` while the others are stored; the stored batch
 * is read back page by page (`page` 1-based, `pageSize`); an unknown batch is a NotFoundError;
 * 401 and 429 on every method map to the SDK's classes.
 */
import { Flagright, FlagrightClient } from 'flagright';
import * as serializers from 'flagright/serialization/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { T0 } from '../helpers.js';
import {
  business,
  consumer,
  errorBody,
  failure,
  type RunningServer,
  startServer,
  stopServer,
  transfer,
  startSpentServer,
  withoutRuleInstanceVersions,
} from './sdk-fixtures.js';

const KEY = 'sdk-user-rules-key-0123456789abcdef';
const RATE_KEY = 'sdk-user-rules-rate-0123456789abcdef';
const WRONG_KEY = 'sdk-user-rules-wrong-0123456789abcdef';
const THRESHOLD_EUR = 1000;
/** An id one character over txmon's limit of 256, in a body: a 400 naming its path. */
const OVERLONG = 'b'.repeat(257);

let main: RunningServer | undefined;
let client: FlagrightClient;
let wrongKeyClient: FlagrightClient;
let txInstanceId: string;
let userInstanceId: string;

/** Creates a rule instance over plain HTTP (the SDK has no Management API methods); its id. */
async function createInstance(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${main?.url}/rule-instances`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

beforeAll(async () => {
  main = await startServer(['--api-key', KEY, '--rate-limit', '100']);
  client = new FlagrightClient({ apiKey: KEY, baseUrl: main.url });
  wrongKeyClient = new FlagrightClient({ apiKey: WRONG_KEY, baseUrl: main.url });
  // A transaction rule and a user rule, so that results carry executedRules/hitRules to parse.
  txInstanceId = await createInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: THRESHOLD_EUR } }, action: 'SUSPEND' });
  userInstanceId = await createInstance({ ruleId: 'R-20', action: 'FLAG' });
  for (const user of [consumer('sdk-user-ada', 'Ada', 'Lovelace'), consumer('sdk-user-grace', 'Grace', 'Hopper')]) {
    await client.consumerUsers.create({ body: user });
  }
});

afterAll(async () => {
  const code = await stopServer(main);
  if (main !== undefined) expect(code).toBe(0);
});

/** The SDK-required keys of a rule result, and the user instance's verdict in `executedRules`. */
function expectUserRuleRun(executedRules: Flagright.ExecutedRulesResult[] | undefined, hit: boolean): void {
  const run = (executedRules ?? []).find((r) => r.ruleInstanceId === userInstanceId);
  expect(run).toMatchObject({ ruleInstanceId: userInstanceId, ruleId: 'R-20', ruleAction: 'FLAG', ruleHit: hit });
  expect(typeof run?.ruleName).toBe('string');
  expect(typeof run?.ruleDescription).toBe('string');
}

describe('user rules on user creation (R-20)', () => {
  it('a consumer from a high-risk country hits R-20; one from Germany does not', async () => {
    const risky = await client.consumerUsers.create({
      body: { ...consumer('sdk-ue-risky', 'Ivan', 'Risk'), userDetails: { name: { firstName: 'Ivan' }, countryOfResidence: 'KP', countryOfNationality: 'KP' } },
    });
    expectUserRuleRun(risky.executedRules, true);
    expect(risky.hitRules?.map((r) => r.ruleInstanceId)).toContain(userInstanceId);
    const safe = await client.consumerUsers.create({ body: consumer('sdk-ue-safe', 'Sara', 'Safe') });
    expectUserRuleRun(safe.executedRules, false);
    expect(safe.hitRules ?? []).toEqual([]);
  });
});

describe('consumerUserEvents.create', () => {
  const blocked = (eventId: string, timestamp = T0 + 60_000): Flagright.ConsumerUserEvent => ({
    userId: 'sdk-ue-ada',
    eventId,
    timestamp,
    reason: 'fraud suspicion',
    eventDescription: 'Blocked by the fraud team',
    updatedConsumerUserAttributes: {
      userStateDetails: { state: 'BLOCKED', reason: 'fraud suspicion' },
      kycStatusDetails: { status: 'FAILED' },
      contactDetails: { addresses: [{ addressLines: ['Marienplatz 1'], city: 'München', country: 'DE', postcode: '80331' }] },
    },
  });

  beforeAll(async () => {
    await client.consumerUsers.create({ body: consumer('sdk-ue-ada', 'Ada', 'Lovelace') });
  });

  it('merges the updated attributes and answers the user after the event', async () => {
    const result = await client.consumerUserEvents.create({ body: blocked('sdk-uev-blocked') });
    expect(result).toMatchObject({
      userId: 'sdk-ue-ada',
      createdTimestamp: T0 - 86_400_000,
      userDetails: { name: { firstName: 'Ada', lastName: 'Lovelace' }, countryOfResidence: 'DE' },
      userStateDetails: { state: 'BLOCKED' },
      kycStatusDetails: { status: 'FAILED' },
      contactDetails: { addresses: [{ city: 'München' }] },
    });
    expectUserRuleRun(result.executedRules, false);
    const stored = await client.consumerUsers.get('sdk-ue-ada');
    expect(stored).toMatchObject({
      userStateDetails: { state: 'BLOCKED' },
      kycStatusDetails: { status: 'FAILED' },
      contactDetails: { addresses: [{ city: 'München' }] },
    });
  });

  it('replays an identical event without a conflict', async () => {
    const first = await client.consumerUserEvents.create({ body: blocked('sdk-uev-replay', T0 + 70_000) });
    const second = await client.consumerUserEvents.create({ body: blocked('sdk-uev-replay', T0 + 70_000) });
    expect(second).toEqual(first);
  });

  it('the same eventId with a different payload is a ConflictError', async () => {
    await client.consumerUserEvents.create({ body: blocked('sdk-uev-conflict', T0 + 80_000) });
    const error = await failure(client.consumerUserEvents.create({ body: blocked('sdk-uev-conflict', T0 + 90_000) }));
    expect(error).toBeInstanceOf(Flagright.ConflictError);
    expect(error.statusCode).toBe(409);
    expect(errorBody(error)).toMatchObject({ code: 'EVENT_ID_CONFLICT' });
    expect(errorBody(error).validationErrors).toContain('/eventId');
  });

  it('a timestamp before 1980 is a BadRequestError naming /timestamp', async () => {
    const error = await failure(client.consumerUserEvents.create({ body: { ...blocked('sdk-uev-old'), timestamp: 1 } }));
    expect(error).toBeInstanceOf(Flagright.BadRequestError);
    expect(errorBody(error).validationErrors).toContain('/timestamp');
  });

  it('an address moved to a high-risk country makes R-20 hit on the event', async () => {
    const result = await client.consumerUserEvents.create({
      body: {
        userId: 'sdk-ue-ada',
        eventId: 'sdk-uev-moved',
        timestamp: T0 + 100_000,
        updatedConsumerUserAttributes: { userDetails: { countryOfResidence: 'KP', countryOfNationality: 'KP' } },
      },
    });
    expectUserRuleRun(result.executedRules, true);
    expect(result.userDetails).toMatchObject({ name: { firstName: 'Ada' }, countryOfResidence: 'KP' });
  });
});

describe('consumerUserEvents.get', () => {
  it('returns the stored event as sent, with its rule results', async () => {
    await client.consumerUsers.create({ body: consumer('sdk-ue-get', 'Emmy', 'Noether') });
    await client.consumerUserEvents.create({
      body: {
        userId: 'sdk-ue-get',
        eventId: 'sdk-uev-get',
        timestamp: T0 + 5_000,
        reason: 'dormant',
        eventDescription: 'No activity for a year',
        updatedConsumerUserAttributes: { userStateDetails: { state: 'DORMANT' } },
      },
    });
    const result = await client.consumerUserEvents.get('sdk-uev-get');
    expect(result).toMatchObject({
      userId: 'sdk-ue-get',
      eventId: 'sdk-uev-get',
      timestamp: T0 + 5_000,
      reason: 'dormant',
      eventDescription: 'No activity for a year',
      updatedConsumerUserAttributes: { userStateDetails: { state: 'DORMANT' } },
    });
    expectUserRuleRun(result.executedRules, false);
  });
});

describe('businessUserEvents.create', () => {
  beforeAll(async () => {
    await client.businessUsers.create({ body: business('sdk-be-acme', 'Acme GmbH') });
  });

  it('merges the updated attributes and answers the business after the event', async () => {
    const result = await client.businessUserEvents.create({
      body: {
        userId: 'sdk-be-acme',
        eventId: 'sdk-bev-renamed',
        timestamp: T0 + 60_000,
        eventDescription: 'Renamed after a merger',
        updatedBusinessUserAttributes: {
          legalEntity: { companyGeneralDetails: { legalName: 'Acme Holding GmbH' } },
          userStateDetails: { state: 'SUSPENDED' },
        },
      },
    });
    expect(result).toMatchObject({
      userId: 'sdk-be-acme',
      createdTimestamp: T0 - 86_400_000,
      legalEntity: {
        companyGeneralDetails: { legalName: 'Acme Holding GmbH', businessIndustry: ['Retail'] },
        companyRegistrationDetails: { registrationIdentifier: 'HRB 12345', registrationCountry: 'DE' },
      },
      userStateDetails: { state: 'SUSPENDED' },
    });
    const stored = await client.businessUsers.get('sdk-be-acme');
    expect(stored.legalEntity.companyGeneralDetails.legalName).toBe('Acme Holding GmbH');
  });

  it('the same eventId with a different payload is a ConflictError', async () => {
    const event = (state: Flagright.UserState): Flagright.BusinessUserEvent => ({
      userId: 'sdk-be-acme',
      eventId: 'sdk-bev-conflict',
      timestamp: T0 + 70_000,
      updatedBusinessUserAttributes: { userStateDetails: { state } },
    });
    await client.businessUserEvents.create({ body: event('ACTIVE') });
    const error = await failure(client.businessUserEvents.create({ body: event('TERMINATED') }));
    expect(error).toBeInstanceOf(Flagright.ConflictError);
    expect(errorBody(error)).toMatchObject({ code: 'EVENT_ID_CONFLICT' });
  });

  it('an eventId over 256 characters is a BadRequestError naming /eventId', async () => {
    const error = await failure(client.businessUserEvents.create({ body: { userId: 'sdk-be-acme', eventId: OVERLONG, timestamp: T0 + 1 } }));
    expect(error).toBeInstanceOf(Flagright.BadRequestError);
    expect(errorBody(error).validationErrors).toContain('/eventId');
  });
});

describe('businessUserEvents.get', () => {
  it('returns the stored event as sent', async () => {
    await client.businessUsers.create({ body: business('sdk-be-get', 'Globex AG') });
    await client.businessUserEvents.create({
      body: {
        userId: 'sdk-be-get',
        eventId: 'sdk-bev-get',
        timestamp: T0 + 5_000,
        reason: 'kyc refresh',
        updatedBusinessUserAttributes: { kycStatusDetails: { status: 'IN_PROGRESS' } },
      },
    });
    const result = await client.businessUserEvents.get('sdk-bev-get');
    expect(result).toMatchObject({
      userId: 'sdk-be-get',
      eventId: 'sdk-bev-get',
      timestamp: T0 + 5_000,
      reason: 'kyc refresh',
      updatedBusinessUserAttributes: { kycStatusDetails: { status: 'IN_PROGRESS' } },
    });
  });
});

describe('batch.verifyTransaction and batch.getTransactions', () => {
  const data = [
    transfer('sdk-btx-hit', 1500, { timestamp: T0 + 1 }),
    transfer('sdk-btx-allow', 10, { timestamp: T0 + 2 }),
    transfer('sdk-btx-bad', -5, { timestamp: T0 + 3 }),
  ];

  it('stores the good records, names the bad one, and answers PARTIAL_FAILURE', async () => {
    const result = await client.batch.verifyTransaction({ batchId: 'sdk-batch-tx', data });
    expect(result).toMatchObject({ status: 'PARTIAL_FAILURE', batchId: 'sdk-batch-tx', successful: 2, failed: 1 });
    expect(result.failedRecords).toEqual([{ id: 'sdk-btx-bad', reasonCode: expect.any(String) }]);
    // Monitored like single transactions: the stored transaction carries its rule result.
    const hit = await client.transactions.get('sdk-btx-hit');
    expect(hit).toMatchObject({ status: 'SUSPEND', hitRules: [{ ruleInstanceId: txInstanceId }] });
    await expect(client.transactions.get('sdk-btx-bad')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('reads the batch back with each transaction status and hitRules', async () => {
    const result = await client.batch.getTransactions('sdk-batch-tx', { page: 1, pageSize: 20 });
    expect(result.totalCount).toBe(2);
    const byId = new Map(result.transactions.map((t) => [t.transactionId, t]));
    expect(byId.get('sdk-btx-hit')).toMatchObject({ status: 'SUSPEND', hitRules: [{ ruleInstanceId: txInstanceId, ruleAction: 'SUSPEND' }] });
    expect(byId.get('sdk-btx-allow')).toMatchObject({ status: 'ALLOW', hitRules: [] });
  });

  it('pages through the batch: page 1 and page 2 of size 1 are the two transactions', async () => {
    const first = await client.batch.getTransactions('sdk-batch-tx', { page: 1, pageSize: 1 });
    const second = await client.batch.getTransactions('sdk-batch-tx', { page: 2, pageSize: 1 });
    expect(first.totalCount).toBe(2);
    expect(second.totalCount).toBe(2);
    const ids = [...first.transactions, ...second.transactions].map((t) => t.transactionId).sort();
    expect(ids).toEqual(['sdk-btx-allow', 'sdk-btx-hit']);
  });

  it('the same batch sent again gets the same answer', async () => {
    const again = await client.batch.verifyTransaction({ batchId: 'sdk-batch-tx', data });
    expect(again).toMatchObject({ status: 'PARTIAL_FAILURE', batchId: 'sdk-batch-tx', successful: 2, failed: 1 });
  });

  it('another body under the same batchId is a 409 (a plain FlagrightError: the SDK maps no 409 here)', async () => {
    const error = await failure(client.batch.verifyTransaction({ batchId: 'sdk-batch-tx', data: [transfer('sdk-btx-other', 20)] }));
    expect(error).not.toBeInstanceOf(Flagright.ConflictError);
    expect(error.statusCode).toBe(409);
    expect(error.body).toMatchObject({ message: expect.any(String) });
  });

  it('without a batchId the server names the batch, and every good record makes SUCCESS', async () => {
    const result = await client.batch.verifyTransaction({ data: [transfer('sdk-btx-noid', 20)] });
    expect(result).toMatchObject({ status: 'SUCCESS', successful: 1, failed: 0 });
    expect(result.batchId.length).toBeGreaterThan(0);
    const read = await client.batch.getTransactions(result.batchId);
    expect(read.transactions.map((t) => t.transactionId)).toEqual(['sdk-btx-noid']);
  });

  it('a batch of bad records only answers FAILURE', async () => {
    const result = await client.batch.verifyTransaction({ batchId: 'sdk-batch-tx-bad', data: [transfer('sdk-btx-bad-2', -1)] });
    expect(result).toMatchObject({ status: 'FAILURE', successful: 0, failed: 1, failedRecords: [{ id: 'sdk-btx-bad-2' }] });
  });
});

describe('batch.createTransactionEvents and batch.getTransactionEvents', () => {
  it('applies the events, names the one for an unknown transaction, and reads them back', async () => {
    await client.transactions.verify({ body: transfer('sdk-bev-tx', 1200) });
    const result = await client.batch.createTransactionEvents({
      batchId: 'sdk-batch-events',
      data: [
        { transactionId: 'sdk-bev-tx', eventId: 'sdk-bev-1', timestamp: T0 + 10, transactionState: 'PROCESSING' },
        { transactionId: 'sdk-bev-tx', eventId: 'sdk-bev-2', timestamp: T0 + 20, transactionState: 'SUCCESSFUL', reason: 'settled' },
        { transactionId: 'sdk-bev-missing', eventId: 'sdk-bev-3', timestamp: T0 + 30, transactionState: 'SUCCESSFUL' },
      ],
    });
    expect(result).toMatchObject({ status: 'PARTIAL_FAILURE', batchId: 'sdk-batch-events', successful: 2, failed: 1 });
    expect(result.failedRecords).toEqual([{ id: 'sdk-bev-3', reasonCode: expect.any(String) }]);
    expect(await client.transactions.get('sdk-bev-tx')).toMatchObject({ transactionState: 'SUCCESSFUL' });

    const read = await client.batch.getTransactionEvents('sdk-batch-events', { page: 1, pageSize: 20 });
    expect(read.totalCount).toBe(2);
    const byId = new Map(read.transactionEvents.map((e) => [e.eventId, e]));
    expect(byId.get('sdk-bev-1')).toMatchObject({ transactionId: 'sdk-bev-tx', transactionState: 'PROCESSING', timestamp: T0 + 10 });
    expect(byId.get('sdk-bev-2')).toMatchObject({ transactionId: 'sdk-bev-tx', transactionState: 'SUCCESSFUL', reason: 'settled', status: 'SUSPEND' });
  });
});

describe('batch.createConsumerUsers and batch.getConsumerUsers', () => {
  it('creates the good users, names the bad one, and reads them back', async () => {
    const result = await client.batch.createConsumerUsers({
      batchId: 'sdk-batch-consumers',
      data: [
        consumer('sdk-bcu-1', 'Lise', 'Meitner'),
        consumer('sdk-bcu-2', 'Rosalind', 'Franklin'),
        { ...consumer('sdk-bcu-bad', 'Bad', 'Date'), userDetails: { dateOfBirth: '10/12/1990' } },
      ],
    });
    expect(result).toMatchObject({ status: 'PARTIAL_FAILURE', batchId: 'sdk-batch-consumers', successful: 2, failed: 1 });
    expect(result.failedRecords).toEqual([{ id: 'sdk-bcu-bad', reasonCode: expect.any(String) }]);
    expect(await client.consumerUsers.get('sdk-bcu-1')).toMatchObject({ userDetails: { name: { firstName: 'Lise' } } });

    const read = await client.batch.getConsumerUsers('sdk-batch-consumers', { page: 1, pageSize: 20 });
    expect(read.totalCount).toBe(2);
    expect(read.consumerUsers.map((u) => u.userId).sort()).toEqual(['sdk-bcu-1', 'sdk-bcu-2']);
    for (const user of read.consumerUsers) {
      expect(user.createdTimestamp).toBe(T0 - 86_400_000);
      expectUserRuleRun(user.executedRules, false);
    }
  });
});

describe('batch.createBusinessUsers and batch.getBusinessUsers', () => {
  it('creates the good businesses, names the bad one, and reads them back', async () => {
    const result = await client.batch.createBusinessUsers({
      batchId: 'sdk-batch-businesses',
      data: [business('sdk-bbu-1', 'Umbrella GmbH'), { ...business('sdk-bbu-bad', 'Old AG'), createdTimestamp: 1 }],
    });
    expect(result).toMatchObject({ status: 'PARTIAL_FAILURE', batchId: 'sdk-batch-businesses', successful: 1, failed: 1 });
    expect(result.failedRecords).toEqual([{ id: 'sdk-bbu-bad', reasonCode: expect.any(String) }]);

    const read = await client.batch.getBusinessUsers('sdk-batch-businesses');
    expect(read.totalCount).toBe(1);
    expect(read.businessUsers[0]).toMatchObject({ userId: 'sdk-bbu-1', legalEntity: { companyGeneralDetails: { legalName: 'Umbrella GmbH' } } });
  });
});

describe('batch.createConsumerUserEvents and batch.getConsumerUserEvents', () => {
  it('applies the events in timestamp order and reads them back', async () => {
    await client.consumerUsers.create({ body: consumer('sdk-bcue-user', 'Hedy', 'Lamarr') });
    const result = await client.batch.createConsumerUserEvents({
      batchId: 'sdk-batch-consumer-events',
      data: [
        // Sent out of order: the later event (TERMINATED) must be the final state.
        { userId: 'sdk-bcue-user', eventId: 'sdk-bcue-2', timestamp: T0 + 20, updatedConsumerUserAttributes: { userStateDetails: { state: 'TERMINATED' } } },
        { userId: 'sdk-bcue-user', eventId: 'sdk-bcue-1', timestamp: T0 + 10, updatedConsumerUserAttributes: { userStateDetails: { state: 'SUSPENDED' } } },
      ],
    });
    expect(result).toMatchObject({ status: 'SUCCESS', batchId: 'sdk-batch-consumer-events', successful: 2, failed: 0 });
    expect(await client.consumerUsers.get('sdk-bcue-user')).toMatchObject({ userStateDetails: { state: 'TERMINATED' } });

    const read = await client.batch.getConsumerUserEvents('sdk-batch-consumer-events', { page: 1, pageSize: 20 });
    expect(read.totalCount).toBe(2);
    const byId = new Map(read.consumerUserEvents.map((e) => [e.eventId, e]));
    expect(byId.get('sdk-bcue-1')).toMatchObject({
      userId: 'sdk-bcue-user',
      timestamp: T0 + 10,
      updatedConsumerUserAttributes: { userStateDetails: { state: 'SUSPENDED' } },
    });
    expect(byId.get('sdk-bcue-2')).toMatchObject({ userId: 'sdk-bcue-user', timestamp: T0 + 20 });
  });
});

describe('batch.createBusinessUserEvents and batch.getBusinessUserEvents', () => {
  it('applies the events and reads them back', async () => {
    await client.businessUsers.create({ body: business('sdk-bbue-user', 'Stark AG') });
    const result = await client.batch.createBusinessUserEvents({
      batchId: 'sdk-batch-business-events',
      data: [
        {
          userId: 'sdk-bbue-user',
          eventId: 'sdk-bbue-1',
          timestamp: T0 + 10,
          updatedBusinessUserAttributes: { legalEntity: { companyGeneralDetails: { legalName: 'Stark Industries AG' } } },
        },
      ],
    });
    expect(result).toMatchObject({ status: 'SUCCESS', batchId: 'sdk-batch-business-events', successful: 1, failed: 0 });
    expect((await client.businessUsers.get('sdk-bbue-user')).legalEntity.companyGeneralDetails.legalName).toBe('Stark Industries AG');

    const read = await client.batch.getBusinessUserEvents('sdk-batch-business-events');
    expect(read.totalCount).toBe(1);
    expect(read.businessUserEvents[0]).toMatchObject({
      userId: 'sdk-bbue-user',
      eventId: 'sdk-bbue-1',
      updatedBusinessUserAttributes: { legalEntity: { companyGeneralDetails: { legalName: 'Stark Industries AG' } } },
    });
  });
});

describe('typed errors: 400 → BadRequestError on every batch create (a batchId over 256 characters)', () => {
  const cases: { name: string; call: () => Promise<unknown> }[] = [
    { name: 'batch.verifyTransaction', call: () => client.batch.verifyTransaction({ batchId: OVERLONG, data: [transfer('sdk-b400-tx', 1)] }) },
    {
      name: 'batch.createTransactionEvents',
      call: () =>
        client.batch.createTransactionEvents({
          batchId: OVERLONG,
          data: [{ transactionId: 'sdk-btx-allow', eventId: 'sdk-b400-ev', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }],
        }),
    },
    { name: 'batch.createConsumerUsers', call: () => client.batch.createConsumerUsers({ batchId: OVERLONG, data: [consumer('sdk-b400-cu', 'A', 'B')] }) },
    { name: 'batch.createBusinessUsers', call: () => client.batch.createBusinessUsers({ batchId: OVERLONG, data: [business('sdk-b400-bu', 'A AG')] }) },
    {
      name: 'batch.createConsumerUserEvents',
      call: () => client.batch.createConsumerUserEvents({ batchId: OVERLONG, data: [{ userId: 'sdk-user-ada', eventId: 'sdk-b400-cue', timestamp: T0 + 1 }] }),
    },
    {
      name: 'batch.createBusinessUserEvents',
      call: () => client.batch.createBusinessUserEvents({ batchId: OVERLONG, data: [{ userId: 'sdk-be-acme', eventId: 'sdk-b400-bue', timestamp: T0 + 1 }] }),
    },
  ];

  it.each(cases)('$name', async ({ call }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.BadRequestError);
    expect(errorBody(error).validationErrors).toContain('/batchId');
  });
});

describe('typed errors: 404 → NotFoundError on every batch read of an unknown batch', () => {
  const cases: { name: string; call: () => Promise<unknown> }[] = [
    { name: 'batch.getTransactions', call: () => client.batch.getTransactions('sdk-batch-missing') },
    { name: 'batch.getTransactionEvents', call: () => client.batch.getTransactionEvents('sdk-batch-missing') },
    { name: 'batch.getConsumerUsers', call: () => client.batch.getConsumerUsers('sdk-batch-missing') },
    { name: 'batch.getBusinessUsers', call: () => client.batch.getBusinessUsers('sdk-batch-missing') },
    { name: 'batch.getConsumerUserEvents', call: () => client.batch.getConsumerUserEvents('sdk-batch-missing') },
    { name: 'batch.getBusinessUserEvents', call: () => client.batch.getBusinessUserEvents('sdk-batch-missing') },
  ];

  it.each(cases)('$name', async ({ call }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.NotFoundError);
    expect(error.statusCode).toBe(404);
    expect(typeof errorBody(error).message).toBe('string');
  });

  it('a batch of transactions is not found as a batch of users', async () => {
    const error = await failure(client.batch.getConsumerUsers('sdk-batch-tx'));
    expect(error).toBeInstanceOf(Flagright.NotFoundError);
  });
});

/** What the tests need of an SDK serializer: parse with options, valid or the errors. */
interface StrictSchema {
  parse(
    raw: unknown,
    options: { unrecognizedObjectKeys: 'fail'; allowUnrecognizedEnumValues: false; allowUnrecognizedUnionMembers: false },
  ): { ok: true } | { ok: false; errors: unknown[] };
}

describe('strict shapes: every answer is exactly an SDK type', () => {
  // As in flagright-sdk.test.ts: the raw answer parsed by the SDK's own schema with unknown keys
  // and enum values refused; txmon's additions (`type` on a user, `ruleInstanceVersion` on a rule
  // result, `ruleHitMeta.evidence` on a hit, `alerts` on a result) are checked and set aside.
  const STRICT = { unrecognizedObjectKeys: 'fail', allowUnrecognizedEnumValues: false, allowUnrecognizedUnionMembers: false } as const;
  /** A user (top level, or an entry of a batch read) less its `type`, checked to be CONSUMER or BUSINESS. */
  const withoutUserType = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !('userId' in value) || !('type' in value)) return value;
    const { type, ...rest } = value as Record<string, unknown>;
    expect(['CONSUMER', 'BUSINESS']).toContain(type);
    return rest;
  };
  /**
   * A result (top level, or an entry of a batch read) less `ruleHitMeta.evidence` on its rules
   * (txmon's addition on a hit, docs/evidence.md) and less its `alerts` (txmon's addition,
   * docs/alerts-and-cases.md), each checked to be a list first.
   */
  const withoutEvidence = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !('hitRules' in value)) return value;
    const strip = (rules: unknown) =>
      Array.isArray(rules)
        ? rules.map((rule: Record<string, unknown>) => {
            if (rule.ruleHitMeta === undefined) return rule;
            const { evidence, ...meta } = rule.ruleHitMeta as Record<string, unknown>;
            if (evidence !== undefined) expect(Array.isArray(evidence)).toBe(true);
            return { ...rule, ruleHitMeta: meta };
          })
        : rules;
    const { alerts, ...result } = value as Record<string, unknown>;
    if (alerts !== undefined) expect(Array.isArray(alerts)).toBe(true);
    for (const key of ['executedRules', 'hitRules']) if (key in result) result[key] = strip(result[key]);
    return result;
  };
  const raw = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const init: RequestInit = { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(`${main?.url}${path}`, init);
    expect(response.ok).toBe(true);
    const answer = withoutEvidence(withoutUserType(withoutRuleInstanceVersions(await response.json()))) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(answer).map(([k, v]) => [k, Array.isArray(v) ? v.map((e) => withoutEvidence(withoutUserType(e))) : v]));
  };
  const cases: { name: string; schema: StrictSchema; answer: () => Promise<unknown> }[] = [
    {
      name: 'consumerUserEvents.create → UserWithRulesResult',
      schema: serializers.UserWithRulesResult,
      answer: () =>
        raw(
          'POST',
          '/events/consumer/user',
          serializers.ConsumerUserEvent.jsonOrThrow({
            userId: 'sdk-ue-get',
            eventId: 'sdk-uev-strict',
            timestamp: T0 + 9_000,
            updatedConsumerUserAttributes: { userStateDetails: { state: 'ACTIVE' } },
          }),
        ),
    },
    {
      name: 'consumerUserEvents.get → ConsumerUserEventWithRulesResult',
      schema: serializers.ConsumerUserEventWithRulesResult,
      answer: () => raw('GET', '/events/consumer/user/sdk-uev-strict'),
    },
    {
      name: 'businessUserEvents.create → BusinessWithRulesResult',
      schema: serializers.BusinessWithRulesResult,
      answer: () =>
        raw(
          'POST',
          '/events/business/user',
          serializers.BusinessUserEvent.jsonOrThrow({
            userId: 'sdk-be-get',
            eventId: 'sdk-bev-strict',
            timestamp: T0 + 9_000,
            updatedBusinessUserAttributes: { userStateDetails: { state: 'ACTIVE' } },
          }),
        ),
    },
    {
      name: 'businessUserEvents.get → BusinessUserEventWithRulesResult',
      schema: serializers.BusinessUserEventWithRulesResult,
      answer: () => raw('GET', '/events/business/user/sdk-bev-strict'),
    },
    {
      name: 'batch.verifyTransaction → BatchResponse',
      schema: serializers.BatchResponse,
      answer: () =>
        raw('POST', '/batch/transactions', { batchId: 'sdk-batch-strict', data: [serializers.Transaction.jsonOrThrow(transfer('sdk-btx-strict', 1500))] }),
    },
    {
      name: 'batch.getTransactions → BatchTransactionMonitoringResults',
      schema: serializers.BatchTransactionMonitoringResults,
      answer: () => raw('GET', '/batch/transactions/sdk-batch-strict'),
    },
    {
      name: 'batch.getTransactionEvents → BatchTransactionEventMonitoringResults',
      schema: serializers.BatchTransactionEventMonitoringResults,
      answer: () => raw('GET', '/batch/events/transaction/sdk-batch-events'),
    },
    {
      name: 'batch.getConsumerUsers → BatchConsumerUsersWithRulesResult',
      schema: serializers.BatchConsumerUsersWithRulesResult,
      answer: () => raw('GET', '/batch/consumer/users/sdk-batch-consumers'),
    },
    {
      name: 'batch.getBusinessUsers → BatchBusinessUsersWithRulesResults',
      schema: serializers.BatchBusinessUsersWithRulesResults,
      answer: () => raw('GET', '/batch/business/users/sdk-batch-businesses'),
    },
    {
      name: 'batch.getConsumerUserEvents → BatchConsumerUserEventsRulesResult',
      schema: serializers.BatchConsumerUserEventsRulesResult,
      answer: () => raw('GET', '/batch/events/consumer/user/sdk-batch-consumer-events'),
    },
    {
      name: 'batch.getBusinessUserEvents → BatchBusinessUserEventsWithRulesResult',
      schema: serializers.BatchBusinessUserEventsWithRulesResult,
      answer: () => raw('GET', '/batch/events/business/user/sdk-batch-business-events'),
    },
  ];

  it.each(cases)('$name', async ({ schema, answer }) => {
    const parsed = schema.parse(await answer(), STRICT);
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
  });
});

/** One call of each of the 16 methods, through `sdk`, with `options` (e.g. no retries). */
function everyMethod(sdk: () => FlagrightClient, options: { maxRetries?: number } = {}): { name: string; call: () => Promise<unknown> }[] {
  const event: Flagright.ConsumerUserEvent = { userId: 'sdk-user-ada', eventId: 'sdk-all-cue', timestamp: T0 + 1 };
  const bevent: Flagright.BusinessUserEvent = { userId: 'sdk-be-acme', eventId: 'sdk-all-bue', timestamp: T0 + 1 };
  return [
    { name: 'consumerUserEvents.create', call: () => sdk().consumerUserEvents.create({ body: event }, options) },
    { name: 'consumerUserEvents.get', call: () => sdk().consumerUserEvents.get('sdk-uev-get', options) },
    { name: 'businessUserEvents.create', call: () => sdk().businessUserEvents.create({ body: bevent }, options) },
    { name: 'businessUserEvents.get', call: () => sdk().businessUserEvents.get('sdk-bev-get', options) },
    { name: 'batch.verifyTransaction', call: () => sdk().batch.verifyTransaction({ data: [transfer('sdk-all-tx', 1)] }, options) },
    { name: 'batch.getTransactions', call: () => sdk().batch.getTransactions('sdk-batch-tx', {}, options) },
    {
      name: 'batch.createTransactionEvents',
      call: () =>
        sdk().batch.createTransactionEvents(
          { data: [{ transactionId: 'sdk-btx-allow', eventId: 'sdk-all-ev', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }] },
          options,
        ),
    },
    { name: 'batch.getTransactionEvents', call: () => sdk().batch.getTransactionEvents('sdk-batch-events', {}, options) },
    { name: 'batch.createConsumerUsers', call: () => sdk().batch.createConsumerUsers({ data: [consumer('sdk-all-cu', 'A', 'B')] }, options) },
    { name: 'batch.getConsumerUsers', call: () => sdk().batch.getConsumerUsers('sdk-batch-consumers', {}, options) },
    { name: 'batch.createBusinessUsers', call: () => sdk().batch.createBusinessUsers({ data: [business('sdk-all-bu', 'A AG')] }, options) },
    { name: 'batch.getBusinessUsers', call: () => sdk().batch.getBusinessUsers('sdk-batch-businesses', {}, options) },
    { name: 'batch.createConsumerUserEvents', call: () => sdk().batch.createConsumerUserEvents({ data: [event] }, options) },
    { name: 'batch.getConsumerUserEvents', call: () => sdk().batch.getConsumerUserEvents('sdk-batch-consumer-events', {}, options) },
    { name: 'batch.createBusinessUserEvents', call: () => sdk().batch.createBusinessUserEvents({ data: [bevent] }, options) },
    { name: 'batch.getBusinessUserEvents', call: () => sdk().batch.getBusinessUserEvents('sdk-batch-business-events', {}, options) },
  ];
}

describe('typed errors: 401 → UnauthorizedError', () => {
  it.each(everyMethod(() => wrongKeyClient))('$name with a wrong key', async ({ call }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.UnauthorizedError);
    expect(error.statusCode).toBe(401);
    expect(typeof errorBody(error).message).toBe('string');
  });
});

describe('typed errors: 429 → TooManyRequestsError', () => {
  let limited: RunningServer | undefined;
  let rateClient: FlagrightClient;

  beforeAll(async () => {
    ({ server: limited, client: rateClient } = await startSpentServer(RATE_KEY, 'sdk-user-rate'));
  });

  afterAll(async () => {
    const code = await stopServer(limited);
    if (limited !== undefined) expect(code).toBe(0);
  });

  // maxRetries 0: the SDK would otherwise retry a 429 twice with back-off.
  it.each(everyMethod(() => rateClient, { maxRetries: 0 }))('$name past the limit', async ({ call }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.TooManyRequestsError);
    expect(error.statusCode).toBe(429);
    expect(Number(error.rawResponse?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
