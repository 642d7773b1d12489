/**
 * Wire compatibility with the official Flagright Node SDK (`flagright@1.8.53`, devDependency, tests
 * only): the SDK, pointed at a running `txmon serve` (the built `dist/cli.js`, spawned as a child
 * process) through `baseUrl`, must parse every success response (its response parsing rejects a
 * missing required key or a wrong primitive type, docs/wire-format.md#sdk-clients) and map our
 * 400/401/409/429 to its typed errors.
 *
 * The SDK has 24 methods, all driven here: transactions, transaction events, consumer and business
 * users, their events, and the six batch kinds. The cases that expect user rules in user
 * results are in flagright-sdk-user-rules.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Flagright, FlagrightClient } from 'flagright';
import * as serializers from 'flagright/serialization/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { T0 } from '../helpers.js';
import {
  business,
  consumer,
  errorBody,
  failure,
  OVERLONG_ID,
  type RunningServer,
  startServer,
  stopServer,
  transfer,
  startSpentServer,
  withoutRuleInstanceVersions,
} from './sdk-fixtures.js';

const KEY = 'sdk-main-key-0123456789abcdef';
const RATE_KEY = 'sdk-rate-key-0123456789abcdef';
const WRONG_KEY = 'sdk-wrong-key-0123456789abcdef';
const THRESHOLD_EUR = 1000;

let main: RunningServer | undefined;
let client: FlagrightClient;
let wrongKeyClient: FlagrightClient;
let ruleInstanceId: string;

beforeAll(async () => {
  main = await startServer(['--api-key', KEY, '--rate-limit', '100']);
  client = new FlagrightClient({ apiKey: KEY, baseUrl: main.url });
  wrongKeyClient = new FlagrightClient({ apiKey: WRONG_KEY, baseUrl: main.url });
  // The SDK has no Management API methods: the rule instance is created over plain HTTP, so that
  // the monitoring results carry a non-empty executedRules/hitRules for the SDK to parse.
  const response = await fetch(`${main.url}/rule-instances`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: THRESHOLD_EUR } }, action: 'SUSPEND' }),
  });
  expect(response.status).toBe(200);
  ruleInstanceId = ((await response.json()) as { id: string }).id;
});

afterAll(async () => {
  const code = await stopServer(main);
  if (main !== undefined) expect(code).toBe(0);
});

describe('consumerUsers.create', () => {
  it('creates consumer users and parses the monitoring result', async () => {
    for (const user of [consumer('sdk-user-ada', 'Ada', 'Lovelace'), consumer('sdk-user-grace', 'Grace', 'Hopper')]) {
      const result = await client.consumerUsers.create({ body: user });
      expect(result).toMatchObject({ userId: user.userId });
      expect(result.executedRules ?? []).toEqual([]);
      expect(result.hitRules ?? []).toEqual([]);
    }
  });
});

describe('consumerUsers.get', () => {
  it('returns the stored profile as the SDK types it', async () => {
    const user = consumer('sdk-user-get', 'Mary', 'Somerville');
    await client.consumerUsers.create({ body: user });
    const result = await client.consumerUsers.get('sdk-user-get');
    expect(result).toMatchObject({
      userId: 'sdk-user-get',
      createdTimestamp: user.createdTimestamp,
      userDetails: { name: { firstName: 'Mary', lastName: 'Somerville' }, dateOfBirth: '1990-12-10', countryOfResidence: 'DE' },
      userStateDetails: { state: 'ACTIVE' },
      kycStatusDetails: { status: 'SUCCESSFUL' },
      contactDetails: { emailIds: ['sdk-user-get@example.com'], addresses: [{ city: 'Berlin', country: 'DE' }] },
      tags: [{ key: 'segment', value: 'retail' }],
    });
  });
});

describe('businessUsers.create', () => {
  it('creates a business user and parses the monitoring result', async () => {
    const result = await client.businessUsers.create({ body: business('sdk-business-acme', 'Acme GmbH') });
    expect(result.userId).toBe('sdk-business-acme');
    expect(result.executedRules ?? []).toEqual([]);
    expect(result.hitRules ?? []).toEqual([]);
  });
});

describe('businessUsers.get', () => {
  it('returns the stored business with its legal entity as the SDK types it', async () => {
    const user = business('sdk-business-get', 'Initech AG');
    await client.businessUsers.create({ body: user });
    const result = await client.businessUsers.get('sdk-business-get');
    expect(result).toMatchObject({
      userId: 'sdk-business-get',
      createdTimestamp: user.createdTimestamp,
      legalEntity: {
        companyGeneralDetails: { legalName: 'Initech AG', businessIndustry: ['Retail'], userSegment: 'SMB', operatingCountries: ['DE', 'AT'] },
        companyRegistrationDetails: { registrationIdentifier: 'HRB 12345', registrationCountry: 'DE' },
      },
      userStateDetails: { state: 'ACTIVE' },
      allowedPaymentMethods: ['IBAN', 'CARD'],
    });
  });
});

describe('transactions.verify', () => {
  const cases: { name: string; transactionId: string; amount: number; expected: { status: Flagright.RuleAction; hit: boolean } }[] = [
    { name: 'an amount at the threshold hits R-2 and suspends', transactionId: 'sdk-tx-at', amount: THRESHOLD_EUR, expected: { status: 'SUSPEND', hit: true } },
    { name: 'an amount above the threshold hits R-2 and suspends', transactionId: 'sdk-tx-above', amount: 2500.5, expected: { status: 'SUSPEND', hit: true } },
    {
      name: 'an amount just below the threshold is allowed',
      transactionId: 'sdk-tx-below',
      amount: THRESHOLD_EUR - 0.01,
      expected: { status: 'ALLOW', hit: false },
    },
  ];

  it.each(cases)('$name', async ({ transactionId, amount, expected }) => {
    const result = await client.transactions.verify({ body: transfer(transactionId, amount) });
    expect(result.transactionId).toBe(transactionId);
    expect(result.status).toBe(expected.status);
    expect(result.executedRules).toHaveLength(1);
    expect(result.executedRules[0]).toMatchObject({ ruleInstanceId, ruleId: 'R-2', ruleAction: 'SUSPEND', ruleHit: expected.hit });
    expect(typeof result.executedRules[0]?.ruleName).toBe('string');
    expect(typeof result.executedRules[0]?.ruleDescription).toBe('string');
    if (expected.hit) {
      expect(result.hitRules).toHaveLength(1);
      expect(result.hitRules[0]).toMatchObject({ ruleInstanceId, ruleId: 'R-2', ruleAction: 'SUSPEND' });
    } else {
      expect(result.hitRules).toEqual([]);
    }
  });

  it('parses a result with a rule not evaluated (an amount without a rate): notEvaluated and warnings kept as unknown keys, also on get', async () => {
    const body = transfer('sdk-tx-no-rate', 1, { originAmountDetails: { transactionAmount: 1, transactionCurrency: 'BTC', country: 'DE' } });
    const result = await client.transactions.verify({ body });
    const notEvaluated = { reason: 'NO_RATE', currency: 'BTC', to: 'EUR', path: '/originAmountDetails/transactionAmount' };
    expect(result).toMatchObject({ transactionId: 'sdk-tx-no-rate', status: 'ALLOW', hitRules: [] });
    expect(result.executedRules[0]).toMatchObject({ ruleInstanceId, ruleHit: false, notEvaluated });
    expect(result).toMatchObject({ warnings: [{ code: 'RULE_NOT_EVALUATED', ruleInstanceId, notEvaluated }] });
    const stored = await client.transactions.get('sdk-tx-no-rate');
    expect(stored.executedRules[0]).toMatchObject({ notEvaluated });
  });

  it('replays an identical transaction with the same result', async () => {
    const body = transfer('sdk-tx-replay', 1200);
    const first = await client.transactions.verify({ body });
    const second = await client.transactions.verify({ body });
    expect(second).toEqual(first);
  });

  it('accepts the validate*UserId query flags for known users', async () => {
    const result = await client.transactions.verify({
      validateOriginUserId: 'true',
      validateDestinationUserId: 'true',
      body: transfer('sdk-tx-validated', 10),
    });
    expect(result).toMatchObject({ transactionId: 'sdk-tx-validated', status: 'ALLOW' });
  });
});

describe('transactions.get', () => {
  it('returns the stored transaction with its rule results, payment details under the SDK names', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-get', 1500) });
    const result = await client.transactions.get('sdk-tx-get');
    expect(result).toMatchObject({
      type: 'TRANSFER',
      transactionId: 'sdk-tx-get',
      timestamp: T0,
      transactionState: 'CREATED',
      originUserId: 'sdk-user-ada',
      destinationUserId: 'sdk-user-grace',
      originAmountDetails: { transactionAmount: 1500, transactionCurrency: 'EUR', country: 'DE' },
      originPaymentDetails: { method: 'IBAN', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
      destinationPaymentDetails: { method: 'CARD', '3DsDone': true, merchantDetails: { mcc: '5411' } },
      reference: 'Invoice 2025-001',
      tags: [{ key: 'channel', value: 'web' }],
      status: 'SUSPEND',
    });
    expect(result.executedRules[0]).toMatchObject({ ruleInstanceId, ruleHit: true });
    expect(result.hitRules[0]).toMatchObject({ ruleInstanceId });
  });

  it('the SDK sent, and the server returns, the wire names IBAN, BIC, 3dsDone and MCC', async () => {
    // Had the SDK's renaming not reached the server, the parsed result above could still look right
    // (unknown keys pass through), so the wire body is checked directly.
    const raw = (await (await fetch(`${main?.url}/transactions/sdk-tx-get`, { headers: { 'x-api-key': KEY } })).json()) as Record<
      string,
      Record<string, unknown>
    >;
    expect(raw.originPaymentDetails).toMatchObject({ IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' });
    expect(raw.originPaymentDetails).not.toHaveProperty('iban');
    expect(raw.destinationPaymentDetails).toMatchObject({ '3dsDone': true, merchantDetails: { MCC: '5411' } });
  });
});

describe('transactionEvents.create', () => {
  it('updates state and attributes and returns the merged transaction', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-event', 1800) });
    const result = await client.transactionEvents.create({
      transactionId: 'sdk-tx-event',
      eventId: 'sdk-ev-settled',
      timestamp: T0 + 60_000,
      transactionState: 'SUCCESSFUL',
      eventDescription: 'Settled by the bank',
      reason: 'settlement',
      updatedTransactionAttributes: { reference: 'Invoice 2025-001 (settled)' },
      metaData: { ipAddress: '79.144.2.21', vpnUsed: false },
    });
    expect(result.eventId).toBe('sdk-ev-settled');
    expect(result.transaction).toMatchObject({
      transactionId: 'sdk-tx-event',
      transactionState: 'SUCCESSFUL',
      reference: 'Invoice 2025-001 (settled)',
      originPaymentDetails: { method: 'IBAN', iban: 'DE89370400440532013000' },
    });
    expect(result.status).toBe('SUSPEND');
    expect(result.executedRules[0]).toMatchObject({ ruleInstanceId, ruleHit: true });
    expect(result.hitRules).toHaveLength(1);
    const after = await client.transactions.get('sdk-tx-event');
    expect(after).toMatchObject({ transactionState: 'SUCCESSFUL', reference: 'Invoice 2025-001 (settled)' });
  });

  it('replays an identical event without a conflict', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-event-replay', 50) });
    const event: Flagright.TransactionEvent = {
      transactionId: 'sdk-tx-event-replay',
      eventId: 'sdk-ev-replay',
      timestamp: T0 + 1,
      transactionState: 'SUCCESSFUL',
    };
    const first = await client.transactionEvents.create(event);
    const second = await client.transactionEvents.create(event);
    expect(second.eventId).toBe(first.eventId);
    expect(second.transaction.transactionState).toBe('SUCCESSFUL');
  });
});

describe('transactionEvents.get', () => {
  it('returns the stored event with its rule results', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-event-get', 3000) });
    await client.transactionEvents.create({
      transactionId: 'sdk-tx-event-get',
      eventId: 'sdk-ev-get',
      timestamp: T0 + 5_000,
      transactionState: 'DECLINED',
      eventDescription: 'Declined by the issuer',
      updatedTransactionAttributes: { tags: [{ key: 'decline', value: 'issuer' }] },
      metaData: { ipAddress: '79.144.2.22' },
    });
    const result = await client.transactionEvents.get('sdk-ev-get');
    expect(result).toMatchObject({
      transactionId: 'sdk-tx-event-get',
      eventId: 'sdk-ev-get',
      timestamp: T0 + 5_000,
      transactionState: 'DECLINED',
      eventDescription: 'Declined by the issuer',
      updatedTransactionAttributes: { tags: [{ key: 'decline', value: 'issuer' }] },
      metaData: { ipAddress: '79.144.2.22' },
      status: 'SUSPEND',
    });
    expect(result.executedRules?.[0]).toMatchObject({ ruleInstanceId, ruleHit: true });
    expect(result.hitRules?.[0]).toMatchObject({ ruleInstanceId });
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
  // The SDK parses answers leniently (unknown keys kept, unknown enum values accepted), so the
  // tests above would not see a misspelt optional key or an action outside RuleAction. Here each
  // raw answer is parsed by the SDK's own schema with unknown keys and values refused. Requests are
  // the SDK's own serialization of its typed bodies (so IBAN, 3dsDone, MCC as on the wire). txmon's
  // additions are checked and set aside first: `ruleInstanceVersion` on rule results, `type` on users,
  // `ruleHitMeta.evidence` and `alerts` on monitoring results.
  const STRICT = { unrecognizedObjectKeys: 'fail', allowUnrecognizedEnumValues: false, allowUnrecognizedUnionMembers: false } as const;
  const raw = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const init: RequestInit = { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(`${main?.url}${path}`, init);
    expect(response.ok).toBe(true);
    return withoutRuleInstanceVersions(await response.json()) as Record<string, unknown>;
  };
  /** A user read without `type` (CONSUMER or BUSINESS): txmon's one addition to the SDK's user shapes. */
  const withoutType = (type: string) => (body: Record<string, unknown>) => {
    expect(body.type).toBe(type);
    const { type: _type, ...rest } = body;
    return rest;
  };
  /**
   * A monitoring answer without txmon's additions to the SDK's result shapes, each checked present
   * first: `ruleHitMeta.evidence` on every hit (docs/evidence.md; R-2 gives evidence) and the
   * result's `alerts` (docs/alerts-and-cases.md; R-2's hits open or join alerts).
   */
  const withoutAdditions = (body: Record<string, unknown>) => {
    const strip = (rules: unknown) =>
      (rules as Record<string, unknown>[]).map((rule) => {
        if (rule.ruleHitMeta === undefined) return rule;
        const { evidence, ...meta } = rule.ruleHitMeta as Record<string, unknown>;
        expect(evidence).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'amount', comparison: '>=' })]));
        return { ...rule, ruleHitMeta: meta };
      });
    const { alerts, ...rest } = body;
    expect(alerts).toEqual(
      expect.arrayContaining([expect.objectContaining({ ruleInstanceId, alertId: expect.any(String), action: expect.stringMatching(/^(OPENED|APPENDED)$/) })]),
    );
    return { ...rest, executedRules: strip(rest.executedRules), hitRules: strip(rest.hitRules) };
  };
  const cases: { name: string; schema: StrictSchema; answer: () => Promise<Record<string, unknown>> }[] = [
    {
      name: 'transactions.verify → TransactionsVerifyResponse',
      schema: serializers.TransactionsVerifyResponse,
      answer: async () => withoutAdditions(await raw('POST', '/transactions', serializers.Transaction.jsonOrThrow(transfer('sdk-tx-strict', 1500)))),
    },
    {
      name: 'transactions.get → TransactionWithRulesResult',
      schema: serializers.TransactionWithRulesResult,
      answer: async () => withoutAdditions(await raw('GET', '/transactions/sdk-tx-strict')),
    },
    {
      name: 'transactionEvents.create → TransactionEventMonitoringResult',
      schema: serializers.TransactionEventMonitoringResult,
      answer: async () =>
        withoutAdditions(
          await raw(
            'POST',
            '/events/transaction',
            serializers.TransactionEvent.jsonOrThrow({
              transactionId: 'sdk-tx-strict',
              eventId: 'sdk-ev-strict',
              timestamp: T0 + 1,
              transactionState: 'SUCCESSFUL',
              updatedTransactionAttributes: { reference: 'settled' },
              metaData: { ipAddress: '79.144.2.23' },
            }),
          ),
        ),
    },
    {
      name: 'transactionEvents.get → TransactionEventWithRulesResult',
      schema: serializers.TransactionEventWithRulesResult,
      answer: async () => withoutAdditions(await raw('GET', '/events/transaction/sdk-ev-strict')),
    },
    {
      name: 'consumerUsers.create → ConsumerUsersCreateResponse',
      schema: serializers.ConsumerUsersCreateResponse,
      answer: () => raw('POST', '/consumer/users', serializers.User.jsonOrThrow(consumer('sdk-user-strict', 'Ida', 'Strict'))),
    },
    {
      name: 'consumerUsers.get → UserWithRulesResult (less type)',
      schema: serializers.UserWithRulesResult,
      answer: async () => withoutType('CONSUMER')(await raw('GET', '/consumer/users/sdk-user-strict')),
    },
    {
      name: 'businessUsers.create → BusinessUsersCreateResponse',
      schema: serializers.BusinessUsersCreateResponse,
      answer: () => raw('POST', '/business/users', serializers.Business.jsonOrThrow(business('sdk-business-strict', 'Strict AG'))),
    },
    {
      name: 'businessUsers.get → BusinessWithRulesResult (less type)',
      schema: serializers.BusinessWithRulesResult,
      answer: async () => withoutType('BUSINESS')(await raw('GET', '/business/users/sdk-business-strict')),
    },
  ];

  it.each(cases)('$name', async ({ schema, answer }) => {
    const parsed = schema.parse(await answer(), STRICT);
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
  });
});

describe('typed errors: 400 → BadRequestError', () => {
  const cases: { name: string; call: () => Promise<unknown>; expected: { path: string } }[] = [
    {
      name: 'transactions.verify with a negative amount',
      call: () => client.transactions.verify({ body: transfer('sdk-tx-negative', -5) }),
      expected: { path: '/originAmountDetails/transactionAmount' },
    },
    {
      name: 'consumerUsers.create with a dateOfBirth not in YYYY-MM-DD',
      call: () => client.consumerUsers.create({ body: { userId: 'sdk-user-bad-dob', createdTimestamp: T0, userDetails: { dateOfBirth: '10/12/1990' } } }),
      expected: { path: '/userDetails/dateOfBirth' },
    },
    {
      name: 'transactionEvents.create with a negative updated amount',
      call: async () => {
        await client.transactions.verify({ body: transfer('sdk-tx-bad-event', 20) });
        return client.transactionEvents.create({
          transactionId: 'sdk-tx-bad-event',
          eventId: 'sdk-ev-bad',
          timestamp: T0 + 1,
          transactionState: 'SUCCESSFUL',
          updatedTransactionAttributes: { originAmountDetails: { transactionAmount: -1, transactionCurrency: 'EUR' } },
        });
      },
      expected: { path: '/updatedTransactionAttributes/originAmountDetails/transactionAmount' },
    },
    {
      name: 'businessUsers.create with a createdTimestamp before 1980',
      call: () => client.businessUsers.create({ body: { ...business('sdk-business-old', 'Old AG'), createdTimestamp: 1 } }),
      expected: { path: '/createdTimestamp' },
    },
  ];

  it.each(cases)('$name', async ({ call, expected }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.BadRequestError);
    expect(error.statusCode).toBe(400);
    expect(typeof errorBody(error).message).toBe('string');
    expect(errorBody(error).validationErrors).toContain(expected.path);
  });

  // The reads take only an id: one over txmon's 256 characters is the 400 a client can cause there.
  const reads: { name: string; call: () => Promise<unknown>; expected: { param: string } }[] = [
    { name: 'transactions.get', call: () => client.transactions.get(OVERLONG_ID), expected: { param: 'transactionId' } },
    { name: 'transactionEvents.get', call: () => client.transactionEvents.get(OVERLONG_ID), expected: { param: 'eventId' } },
    { name: 'consumerUsers.get', call: () => client.consumerUsers.get(OVERLONG_ID), expected: { param: 'userId' } },
    { name: 'businessUsers.get', call: () => client.businessUsers.get(OVERLONG_ID), expected: { param: 'userId' } },
  ];

  it.each(reads)('$name with an id over 256 characters', async ({ call, expected }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.BadRequestError);
    expect(errorBody(error)).toMatchObject({ code: 'VALIDATION_FAILED' });
    // The id is a path parameter: the message names it, not a body.
    expect(errorBody(error).message).toBe(`Invalid request: ${expected.param} must be 1 to 256 characters of well-formed text without NUL`);
  });
});

describe('typed errors: 401 → UnauthorizedError', () => {
  const cases: { name: string; call: () => Promise<unknown> }[] = [
    { name: 'transactions.verify', call: () => wrongKeyClient.transactions.verify({ body: transfer('sdk-tx-unauthorized', 10) }) },
    { name: 'transactions.get', call: () => wrongKeyClient.transactions.get('sdk-tx-get') },
    {
      name: 'transactionEvents.create',
      call: () =>
        wrongKeyClient.transactionEvents.create({ transactionId: 'sdk-tx-get', eventId: 'sdk-ev-x', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }),
    },
    { name: 'transactionEvents.get', call: () => wrongKeyClient.transactionEvents.get('sdk-ev-get') },
    { name: 'consumerUsers.create', call: () => wrongKeyClient.consumerUsers.create({ body: consumer('sdk-user-intruder', 'Eve', 'Mallory') }) },
    { name: 'consumerUsers.get', call: () => wrongKeyClient.consumerUsers.get('sdk-user-ada') },
    { name: 'businessUsers.create', call: () => wrongKeyClient.businessUsers.create({ body: business('sdk-business-intruder', 'Eve Ltd') }) },
    { name: 'businessUsers.get', call: () => wrongKeyClient.businessUsers.get('sdk-business-acme') },
  ];

  it.each(cases)('$name with a wrong key', async ({ call }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.UnauthorizedError);
    expect(error.statusCode).toBe(401);
    expect(typeof errorBody(error).message).toBe('string');
  });
});

describe('typed errors: 409 → ConflictError (transactionEvents.create)', () => {
  it('the same eventId with a different payload', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-conflict', 30) });
    await client.transactionEvents.create({ transactionId: 'sdk-tx-conflict', eventId: 'sdk-ev-conflict', timestamp: T0 + 1, transactionState: 'PROCESSING' });
    const error = await failure(
      client.transactionEvents.create({ transactionId: 'sdk-tx-conflict', eventId: 'sdk-ev-conflict', timestamp: T0 + 2, transactionState: 'SUCCESSFUL' }),
    );
    expect(error).toBeInstanceOf(Flagright.ConflictError);
    expect(error.statusCode).toBe(409);
    expect(errorBody(error)).toMatchObject({ code: 'EVENT_ID_CONFLICT' });
    expect(errorBody(error).validationErrors).toContain('/eventId');
  });

  it('a state transition the lifecycle forbids', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-lifecycle', 30) });
    await client.transactionEvents.create({ transactionId: 'sdk-tx-lifecycle', eventId: 'sdk-ev-refunded', timestamp: T0 + 1, transactionState: 'REFUNDED' });
    const error = await failure(
      client.transactionEvents.create({ transactionId: 'sdk-tx-lifecycle', eventId: 'sdk-ev-after-refund', timestamp: T0 + 2, transactionState: 'SUCCESSFUL' }),
    );
    expect(error).toBeInstanceOf(Flagright.ConflictError);
    expect(errorBody(error)).toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
  });

  it('transactions.verify maps our 409 to a plain FlagrightError (the SDK declares no ConflictError there)', async () => {
    await client.transactions.verify({ body: transfer('sdk-tx-id-conflict', 40) });
    const error = await failure(client.transactions.verify({ body: transfer('sdk-tx-id-conflict', 41) }));
    expect(error).not.toBeInstanceOf(Flagright.ConflictError);
    expect(error.statusCode).toBe(409);
    expect(error.body).toMatchObject({ code: 'TRANSACTION_ID_CONFLICT', message: expect.any(String) });
  });
});

describe('404 → plain FlagrightError (the SDK declares no NotFoundError on these endpoints)', () => {
  const cases: { name: string; call: () => Promise<unknown>; expected: { code: string } }[] = [
    { name: 'transactions.get of an unknown id', call: () => client.transactions.get('sdk-tx-missing'), expected: { code: 'TRANSACTION_NOT_FOUND' } },
    { name: 'transactionEvents.get of an unknown id', call: () => client.transactionEvents.get('sdk-ev-missing'), expected: { code: 'EVENT_NOT_FOUND' } },
    { name: 'consumerUsers.get of an unknown id', call: () => client.consumerUsers.get('sdk-user-missing'), expected: { code: 'USER_NOT_FOUND' } },
    { name: 'businessUsers.get of an unknown id', call: () => client.businessUsers.get('sdk-business-missing'), expected: { code: 'USER_NOT_FOUND' } },
    { name: 'consumerUsers.get of a business user', call: () => client.consumerUsers.get('sdk-business-acme'), expected: { code: 'USER_NOT_FOUND' } },
    { name: 'businessUsers.get of a consumer user', call: () => client.businessUsers.get('sdk-user-ada'), expected: { code: 'USER_NOT_FOUND' } },
  ];

  it.each(cases)('$name', async ({ call, expected }) => {
    const error = await failure(call());
    expect(error.statusCode).toBe(404);
    expect(error.body).toMatchObject({ code: expected.code, message: expect.any(String) });
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

  // maxRetries 0 on every call: the SDK would otherwise retry a 429 twice with back-off
  // (docs/wire-format.md#sdk-clients).
  const noRetry = { maxRetries: 0 };
  const cases: { name: string; call: () => Promise<unknown> }[] = [
    { name: 'transactions.verify', call: () => rateClient.transactions.verify({ body: transfer('sdk-tx-rate', 10) }, noRetry) },
    { name: 'transactions.get', call: () => rateClient.transactions.get('sdk-tx-rate', noRetry) },
    {
      name: 'transactionEvents.create',
      call: () =>
        rateClient.transactionEvents.create(
          { transactionId: 'sdk-tx-rate', eventId: 'sdk-ev-rate', timestamp: T0 + 1, transactionState: 'SUCCESSFUL' },
          noRetry,
        ),
    },
    { name: 'transactionEvents.get', call: () => rateClient.transactionEvents.get('sdk-ev-rate', noRetry) },
    { name: 'consumerUsers.create', call: () => rateClient.consumerUsers.create({ body: consumer('sdk-user-rate-2', 'Rita', 'Rate') }, noRetry) },
    { name: 'consumerUsers.get', call: () => rateClient.consumerUsers.get('sdk-user-rate', noRetry) },
    { name: 'businessUsers.create', call: () => rateClient.businessUsers.create({ body: business('sdk-business-rate', 'Rate AG') }, noRetry) },
    { name: 'businessUsers.get', call: () => rateClient.businessUsers.get('sdk-business-rate', noRetry) },
  ];

  it.each(cases)('$name past the limit fails with TooManyRequestsError and a Retry-After header', async ({ call }) => {
    const error = await failure(call());
    expect(error).toBeInstanceOf(Flagright.TooManyRequestsError);
    expect(error.statusCode).toBe(429);
    expect(typeof errorBody(error).message).toBe('string');
    expect(Number(error.rawResponse?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('strict response parsing (control)', () => {
  // Shows this suite can fail: a server that leaves out a required key gets a parse error from the
  // SDK, not a result and not a typed error.
  let stub: Server;
  let stubUrl: string;
  beforeAll(async () => {
    stub = createServer((req, res) => {
      const missingMessage = req.url?.startsWith('/transactions/') === true;
      res.statusCode = missingMessage ? 400 : 201;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(missingMessage ? { validationErrors: 'no message key' } : { transactionId: 't', status: 'ALLOW', hitRules: [] }));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => stub.close(() => resolve()));
  });

  it('a monitoring result without executedRules is rejected', async () => {
    const stubClient = new FlagrightClient({ apiKey: KEY, baseUrl: stubUrl });
    await expect(stubClient.transactions.verify({ body: transfer('t', 1) })).rejects.toThrow(/executedRules/);
  });

  it('an error body without message does not become a BadRequestError', async () => {
    const stubClient = new FlagrightClient({ apiKey: KEY, baseUrl: stubUrl });
    const error: unknown = await stubClient.transactions.get('t').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(Flagright.BadRequestError);
    expect(String(error)).toMatch(/message/);
  });
});

describe('batch', () => {
  it('verifyTransaction answers a BatchResponse the SDK parses, and getTransactions pages the results', async () => {
    const response = await client.batch.verifyTransaction({
      batchId: 'sdk-batch-tx',
      data: [transfer('sdk-batch-1', 10), transfer('sdk-batch-2', THRESHOLD_EUR)],
    });
    expect(response).toMatchObject({ status: 'SUCCESS', batchId: 'sdk-batch-tx', successful: 2, failed: 0 });
    const results = await client.batch.getTransactions('sdk-batch-tx', { page: 1, pageSize: 10 });
    expect(results.totalCount).toBe(2);
    expect(results.transactions.map((t) => [t.transactionId, t.status, t.hitRules.length])).toEqual([
      ['sdk-batch-1', 'ALLOW', 0],
      ['sdk-batch-2', 'SUSPEND', 1],
    ]);
  });

  it('an unknown batch is a 404 the SDK reports as NotFoundError', async () => {
    await expect(client.batch.getTransactions('sdk-batch-none')).rejects.toBeInstanceOf(Flagright.NotFoundError);
  });

  it('createTransactionEvents / getTransactionEvents and createConsumerUsers / getConsumerUsers parse', async () => {
    await client.transactions.verify({ body: transfer('sdk-batch-ev', 20) });
    const events = await client.batch.createTransactionEvents({
      batchId: 'sdk-batch-ev',
      data: [{ transactionId: 'sdk-batch-ev', eventId: 'sdk-batch-ev-1', timestamp: T0 + 1_000, transactionState: 'SUCCESSFUL' }],
    });
    expect(events).toMatchObject({ status: 'SUCCESS', successful: 1 });
    const eventResults = await client.batch.getTransactionEvents('sdk-batch-ev');
    expect(eventResults.transactionEvents[0]).toMatchObject({ eventId: 'sdk-batch-ev-1', transactionState: 'SUCCESSFUL', status: 'ALLOW' });
    const users = await client.batch.createConsumerUsers({ batchId: 'sdk-batch-users', data: [consumer('sdk-batch-user', 'Mary', 'Somerville')] });
    expect(users).toMatchObject({ status: 'SUCCESS', successful: 1 });
    const userResults = await client.batch.getConsumerUsers('sdk-batch-users');
    expect(userResults).toMatchObject({ totalCount: 1, consumerUsers: [{ userId: 'sdk-batch-user' }] });
  });

  it('createConsumerUserEvents / createBusinessUserEvents apply the events in timestamp order and their gets page them in batch order', async () => {
    await client.consumerUsers.create({ body: consumer('sdk-batch-ev-user', 'Emmy', 'Noether') });
    await client.businessUsers.create({ body: business('sdk-batch-ev-biz', 'Noether Algebra GmbH') });
    const consumerEvents = await client.batch.createConsumerUserEvents({
      batchId: 'sdk-batch-user-ev',
      data: [
        // Sent out of order: the later state is the one that stays.
        {
          userId: 'sdk-batch-ev-user',
          eventId: 'sdk-uev-2',
          timestamp: T0 + 2_000,
          updatedConsumerUserAttributes: { userStateDetails: { state: 'TERMINATED' } },
        },
        { userId: 'sdk-batch-ev-user', eventId: 'sdk-uev-1', timestamp: T0 + 1_000, updatedConsumerUserAttributes: { userStateDetails: { state: 'DORMANT' } } },
        { userId: 'sdk-batch-nobody', eventId: 'sdk-uev-3', timestamp: T0 + 3_000 },
      ],
    });
    expect(consumerEvents).toMatchObject({
      status: 'PARTIAL_FAILURE',
      successful: 2,
      failed: 1,
      failedRecords: [{ id: 'sdk-uev-3', reasonCode: 'USER_NOT_FOUND' }],
    });
    expect((await client.consumerUsers.get('sdk-batch-ev-user')).userStateDetails?.state).toBe('TERMINATED');
    const consumerResults = await client.batch.getConsumerUserEvents('sdk-batch-user-ev', { page: 1, pageSize: 10 });
    expect(consumerResults.totalCount).toBe(2);
    // Results come in batch order.
    expect(consumerResults.consumerUserEvents.map((e) => e.eventId)).toEqual(['sdk-uev-2', 'sdk-uev-1']);
    const businessEvents = await client.batch.createBusinessUserEvents({
      batchId: 'sdk-batch-biz-ev',
      data: [
        { userId: 'sdk-batch-ev-biz', eventId: 'sdk-bev-1', timestamp: T0 + 1_000, updatedBusinessUserAttributes: { userStateDetails: { state: 'DORMANT' } } },
      ],
    });
    expect(businessEvents).toMatchObject({ status: 'SUCCESS', successful: 1 });
    const businessResults = await client.batch.getBusinessUserEvents('sdk-batch-biz-ev');
    expect(businessResults).toMatchObject({ totalCount: 1, businessUserEvents: [{ eventId: 'sdk-bev-1', userId: 'sdk-batch-ev-biz' }] });
    await expect(client.batch.getBusinessUserEvents('sdk-batch-user-ev')).rejects.toBeInstanceOf(Flagright.NotFoundError);
  });
});

describe('user events', () => {
  const blocked = (eventId: string, timestamp: number): Flagright.ConsumerUserEvent => ({
    userId: 'sdk-ue-user',
    eventId,
    timestamp,
    reason: 'fraud suspicion',
    updatedConsumerUserAttributes: { userStateDetails: { state: 'BLOCKED', reason: 'fraud suspicion' }, kycStatusDetails: { status: 'FAILED' } },
  });

  beforeAll(async () => {
    await client.consumerUsers.create({ body: consumer('sdk-ue-user', 'Sofia', 'Kovalevskaya') });
    await client.businessUsers.create({ body: business('sdk-ue-biz', 'Kovalevskaya Analysis AB') });
  });

  it('consumerUserEvents.create merges the attributes and answers the user; .get answers the event as sent', async () => {
    const result = await client.consumerUserEvents.create({ body: blocked('sdk-ue-1', T0 + 60_000) });
    expect(result).toMatchObject({
      userId: 'sdk-ue-user',
      userDetails: { name: { firstName: 'Sofia', lastName: 'Kovalevskaya' } },
      userStateDetails: { state: 'BLOCKED' },
      kycStatusDetails: { status: 'FAILED' },
    });
    expect((await client.consumerUsers.get('sdk-ue-user')).kycStatusDetails?.status).toBe('FAILED');
    expect(await client.consumerUserEvents.get('sdk-ue-1')).toMatchObject({ eventId: 'sdk-ue-1', userId: 'sdk-ue-user', reason: 'fraud suspicion' });
  });

  it('the same eventId with another payload is a ConflictError naming /eventId; a bad timestamp a BadRequestError', async () => {
    await client.consumerUserEvents.create({ body: blocked('sdk-ue-2', T0 + 70_000) });
    const conflict = await failure(client.consumerUserEvents.create({ body: blocked('sdk-ue-2', T0 + 80_000) }));
    expect(conflict).toBeInstanceOf(Flagright.ConflictError);
    expect(errorBody(conflict)).toMatchObject({ code: 'EVENT_ID_CONFLICT' });
    const bad = await failure(client.consumerUserEvents.create({ body: { ...blocked('sdk-ue-3', T0), timestamp: -1 } }));
    expect(bad).toBeInstanceOf(Flagright.BadRequestError);
  });

  it('businessUserEvents.create merges the legal entity and .get answers the event', async () => {
    const result = await client.businessUserEvents.create({
      body: { userId: 'sdk-ue-biz', eventId: 'sdk-be-1', timestamp: T0 + 60_000, updatedBusinessUserAttributes: { userStateDetails: { state: 'DORMANT' } } },
    });
    expect(result).toMatchObject({
      userId: 'sdk-ue-biz',
      userStateDetails: { state: 'DORMANT' },
      legalEntity: { companyGeneralDetails: { legalName: 'Kovalevskaya Analysis AB' } },
    });
    expect(await client.businessUserEvents.get('sdk-be-1')).toMatchObject({ eventId: 'sdk-be-1', userId: 'sdk-ue-biz' });
    const unknown = await failure(client.businessUserEvents.get('sdk-be-none'));
    expect(unknown.statusCode).toBe(404);
  });
});
