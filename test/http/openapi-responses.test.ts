/**
 * The response schemas of the OpenAPI document are the engine's answers: each schema's static type
 * is the return type of the engine method behind its route (checked by the compiler), and every
 * JSON body the real HTTP handler answers in a realistic scenario validates against the schema the
 * document gives its route (checked by ajv).
 */
import type { Static } from '@sinclair/typebox';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RuleInstanceSchema, TransactionEventMonitoringResultSchema, TransactionMonitoringResultSchema } from '../../src/domain/index.js';
import type {
  AlertPageSchema,
  AlertSchema,
  AlertViewSchema,
  CasePageSchema,
  CaseSchema,
  CaseViewSchema,
  CommentListSchema,
  CommentViewSchema,
  ListSummarySchema,
  MonitoringResultSchema,
  RuleViewSchema,
  StoredListSchema,
  TransactionEventWithRulesResultSchema,
  TransactionWithRulesResultSchema,
  UploadSlotSchema,
  UserMonitoringResultSchema,
  UserViewSchema,
} from '../../src/domain/schemas/responses.js';
import type { Alert, Case, MonitoringResult } from '../../src/domain/entities.js';
import type { Engine, WorkflowPage } from '../../src/engine/types.js';
import { createHttpHandler, type HttpHandler } from '../../src/http/index.js';
import { createEngine } from '../../src/index.js';
import { FORMAT_CHECKS } from '../../src/validation/ajv.js';
import { fixedClock, sequentialIds, T0, HOUR } from '../helpers.js';
import { createCaller, ORIGIN } from './fixtures.js';

/** An intersection of object types as one object type (same properties, same modifiers). */
type Flat<T> = { [K in keyof T]: T[K] };

/** What engine method `M` resolves to. */
type Returns<M extends keyof Engine> = Engine[M] extends (...args: never[]) => Promise<infer R> ? R : never;

describe('response schemas: static types', () => {
  it('each schema is the type the engine method behind its route returns', () => {
    expectTypeOf<Static<typeof TransactionWithRulesResultSchema>>().toEqualTypeOf<Returns<'getTransaction'>>();
    expectTypeOf<Static<typeof TransactionEventMonitoringResultSchema>>().toEqualTypeOf<Returns<'createTransactionEvent'>>();
    expectTypeOf<Static<typeof TransactionEventWithRulesResultSchema>>().toEqualTypeOf<Returns<'getTransactionEvent'>>();
    expectTypeOf<Static<typeof UserMonitoringResultSchema>>().toEqualTypeOf<Returns<'createUser'>>();
    expectTypeOf<Static<typeof UserViewSchema>>().toEqualTypeOf<Returns<'getUser'>>();
    expectTypeOf<Static<typeof CommentViewSchema>>().toEqualTypeOf<Returns<'createUserComment'>>();
    expectTypeOf<Static<typeof CommentViewSchema>>().toEqualTypeOf<Returns<'createCaseComment'>>();
    expectTypeOf<Static<typeof CommentViewSchema>>().toEqualTypeOf<Returns<'createAlertComment'>>();
    expectTypeOf<Static<typeof RuleInstanceSchema>>().toEqualTypeOf<Returns<'createRuleInstance'>>();
    expectTypeOf<Static<typeof RuleInstanceSchema>>().toEqualTypeOf<Returns<'getRuleInstance'>>();
    expectTypeOf<Static<typeof RuleInstanceSchema>>().toEqualTypeOf<Returns<'updateRuleInstance'>>();
    expectTypeOf<Static<typeof RuleInstanceSchema>[]>().toEqualTypeOf<Returns<'listRuleInstances'>>();
    expectTypeOf<Static<typeof RuleViewSchema>>().toEqualTypeOf<Returns<'getRule'>>();
    expectTypeOf<Static<typeof RuleViewSchema>[]>().toEqualTypeOf<Returns<'listRules'>>();
    expectTypeOf<Static<typeof UploadSlotSchema>>().toEqualTypeOf<Returns<'createUpload'>>();
    expectTypeOf<Static<typeof AlertViewSchema>>().toEqualTypeOf<Flat<Returns<'getAlert'>>>();
    expectTypeOf<Static<typeof AlertSchema>>().toEqualTypeOf<Returns<'changeAlertStatus'>>();
    expectTypeOf<Static<typeof AlertSchema>>().toEqualTypeOf<Returns<'updateAlert'>>();
    expectTypeOf<Static<typeof AlertPageSchema>>().toEqualTypeOf<WorkflowPage<Alert>>();
    expectTypeOf<Static<typeof CommentListSchema>>().toEqualTypeOf<Returns<'listComments'>>();
    expectTypeOf<Static<typeof CaseViewSchema>>().toEqualTypeOf<Flat<Returns<'getCase'>>>();
    expectTypeOf<Static<typeof CaseSchema>>().toEqualTypeOf<Returns<'changeCaseStatus'>>();
    expectTypeOf<Static<typeof CaseSchema>>().toEqualTypeOf<Returns<'updateCase'>>();
    expectTypeOf<Static<typeof CasePageSchema>>().toEqualTypeOf<WorkflowPage<Case>>();
    expectTypeOf<Static<typeof StoredListSchema>>().toEqualTypeOf<Returns<'getList'>>();
    expectTypeOf<Static<typeof StoredListSchema>>().toEqualTypeOf<Returns<'putList'>>();
    // ListSummary is `Omit<StoredList, 'items'> & { itemCount }`: compared as the one object type it is.
    expectTypeOf<Static<typeof ListSummarySchema>[]>().toEqualTypeOf<Flat<Returns<'listLists'>[number]>[]>();
    expectTypeOf<Static<typeof MonitoringResultSchema>>().toEqualTypeOf<MonitoringResult>();
  });

  it('the transaction result schema is the engine type plus an optional message the engine never sets', () => {
    expectTypeOf<Omit<Static<typeof TransactionMonitoringResultSchema>, 'message'>>().toEqualTypeOf<Returns<'createTransaction'>>();
    expectTypeOf<Returns<'createTransaction'>>().toExtend<Static<typeof TransactionMonitoringResultSchema>>();
  });
});

type Json = Record<string, unknown>;
type Validate = ((data: unknown) => boolean) & { errors?: unknown };

const KEY = 'key-responses-0123456789abcdef';
const call = createCaller(KEY);

/** The OpenAPI path of a concrete request path: `/alerts/alert-1` → `/alerts/{alertId}`. */
function routeOf(document: Json, method: string, path: string): string {
  const segments = path.split('?')[0]?.split('/') ?? [];
  for (const pattern of Object.keys(document['paths'] as Json)) {
    const parts = pattern.split('/');
    if (parts.length !== segments.length) continue;
    if (parts.every((part, index) => part.startsWith('{') || part === segments[index])) {
      if ((document['paths'] as Record<string, Json>)[pattern]?.[method] !== undefined) return pattern;
    }
  }
  throw new Error(`no route for ${method} ${path}`);
}

/** Each JSON response of the document as `<method> <path>` → its success status. */
function jsonResponses(document: Json): Map<string, string> {
  const found = new Map<string, string>();
  for (const [path, item] of Object.entries(document['paths'] as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation['responses'] as Record<string, Json>)) {
        if (status.startsWith('2') && (response['content'] as Json | undefined)?.['application/json'] !== undefined) found.set(`${method} ${path}`, status);
      }
    }
  }
  return found;
}

describe('response schemas: the real handler answers what the document says', () => {
  const engine = createEngine({
    clock: fixedClock(T0 + HOUR),
    ids: sequentialIds(),
    urlSigningSecret: new Uint8Array(32).fill(11),
    riskFactors: [{ id: 'origin-country', parameter: 'originCountry', weight: 1, defaultRiskLevel: 'MEDIUM', mapping: [{ values: ['DE'], riskLevel: 'LOW' }] }],
  });
  const handler: HttpHandler = createHttpHandler({ engine, apiKeys: [KEY] });

  it('every JSON response of every route validates against its schema in the document, and every such route is exercised', async () => {
    const document = (await (await call(handler, 'GET', '/openapi.json')).json()) as Json;
    const ajv = new Ajv2020({ strict: false, strictNumbers: true, allErrors: true, discriminator: true });
    for (const [name, validate] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, { type: 'string', validate });
    ajv.addSchema(document, 'openapi.json');
    const expected = jsonResponses(document);
    const checked = new Set<string>();
    const failures: string[] = [];

    /** Sends a request, checks its status and its body against the document; returns the body. */
    const send = async <T = Json>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await call(handler, method, path, body === undefined ? {} : { body });
      const route = `${method.toLowerCase()} ${routeOf(document, method.toLowerCase(), path)}`;
      const status = expected.get(route);
      expect(status, route).toBeDefined();
      const text = await response.text();
      expect(String(response.status), `${route}: ${text.slice(0, 300)}`).toBe(status);
      const pointer = `/paths/${routeOf(document, method.toLowerCase(), path).replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.compile({ $ref: `openapi.json#${pointer}` }) as Validate;
      const json: unknown = JSON.parse(text);
      if (!validate(json)) failures.push(`${route}: ${JSON.stringify(validate.errors).slice(0, 800)}`);
      checked.add(route);
      return json as T;
    };

    await send('GET', '/healthz');
    await send('GET', '/readyz');
    await send('GET', '/openapi.json');
    const rules = await send<Returns<'listRules'>>('GET', '/rules');
    expect(rules.length).toBeGreaterThan(40);
    await send('GET', '/rules/R-30');
    await send('GET', '/rule-filters-schema');

    const threshold = await send<Returns<'createRuleInstance'>>('POST', '/rule-instances', {
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 10_000 } },
      riskLevelActions: { VERY_LOW: 'FLAG', LOW: 'SUSPEND', MEDIUM: 'SUSPEND', HIGH: 'BLOCK', VERY_HIGH: 'BLOCK' },
      alertCreationOnHit: true,
      filters: { transactionTypes: ['TRANSFER'] },
    });
    const velocity = await send<Returns<'createRuleInstance'>>('POST', '/rule-instances', {
      ruleId: 'R-30',
      parameters: { transactionsLimit: 1, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } },
      triggersOnHit: { usersToCheck: 'ORIGIN', userStateDetails: { state: 'SUSPENDED', reason: 'velocity' } },
      mode: 'SHADOW',
    });
    await send('POST', '/rule-instances', {
      logic: { '>': [{ var: 'agg.n' }, 1] },
      logicAggregationVariables: [
        {
          key: 'n',
          aggregationFunc: 'COUNT',
          userDirection: 'SENDER',
          transactionDirection: 'SENDING',
          timeWindow: { start: { units: 2, granularity: 'hour' }, end: { units: 0, granularity: 'now' } },
        },
      ],
      ruleNameAlias: 'Two sends in two hours',
      labels: ['EDD_TRIGGER'],
    });
    await send('POST', `/rule-instances/${velocity.id}`, { ruleNameAlias: 'Fast sender' });
    await send('GET', `/rule-instances/${threshold.id}`);
    expect((await send<Returns<'getRuleInstanceVersions'>>('GET', `/rule-instances/${velocity.id}/versions`)).map((v) => v.version)).toEqual([2, 1]);
    expect((await send<Returns<'listAuditLog'>>('GET', '/audit-log?entityType=RULE_INSTANCE&pageSize=2')).items).toHaveLength(2);
    expect((await send<Returns<'listRuleInstances'>>('GET', '/rule-instances')).length).toBe(3);

    await send('PUT', '/lists/blocked-users', {
      listType: 'BLACKLIST',
      subtype: 'USER_ID',
      name: 'Blocked',
      description: 'Do not pay',
      items: ['mallory', 'trudy'],
    });
    await send('PUT', '/lists/vip', { listType: 'WHITELIST', subtype: 'USER_ID', items: ['carol'] });
    await send('GET', '/lists/blocked-users');
    expect((await send<Returns<'listLists'>>('GET', '/lists')).length).toBe(2);

    await send('POST', '/consumer/users', {
      userId: 'alice',
      createdTimestamp: T0 - 1000 * HOUR,
      userDetails: { name: { firstName: 'Alice', lastName: 'Liddell' }, dateOfBirth: '1990-04-01', countryOfResidence: 'DE' },
      tags: [{ key: 'segment', value: 'retail' }],
    });
    await send('POST', '/business/users', {
      userId: 'acme',
      createdTimestamp: T0 - 2000 * HOUR,
      legalEntity: { companyGeneralDetails: { legalName: 'Acme GmbH', userSegment: 'SMB' } },
      riskLevel: 'HIGH',
    });

    const transaction = {
      type: 'TRANSFER',
      transactionId: 'tx-big',
      timestamp: T0,
      originUserId: 'alice',
      destinationUserId: 'acme',
      originAmountDetails: { transactionAmount: 12_500, transactionCurrency: 'EUR', country: 'DE' },
      destinationAmountDetails: { transactionAmount: 12_500, transactionCurrency: 'EUR', country: 'FR' },
      originPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000' },
      reference: 'invoice 42',
    };
    const first = await send<Returns<'createTransaction'>>('POST', '/transactions', transaction);
    expect(first.hitRules.length).toBeGreaterThan(0);
    const second = await send<Returns<'createTransaction'>>('POST', '/transactions', { ...transaction, transactionId: 'tx-second', timestamp: T0 + 60_000 });
    expect(second.executedRules.length).toBe(3);
    await send('GET', '/transactions/tx-big');
    const event = await send<Returns<'createTransactionEvent'>>('POST', '/events/transaction', {
      transactionId: 'tx-big',
      eventId: 'ev-1',
      timestamp: T0 + 120_000,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { reference: 'invoice 42 (paid)' },
    });
    expect(event.eventId).toBe('ev-1');
    await send('GET', '/events/transaction/ev-1');
    const batch = await send<Returns<'createTransactionBatch'>>('POST', '/batch/transactions', {
      batchId: 'b-tx',
      data: [{ ...transaction, transactionId: 'tx-batch', timestamp: T0 + 90_000 }, { transactionId: 'tx-broken' }],
    });
    expect(batch).toMatchObject({ status: 'PARTIAL_FAILURE', failedRecords: [{ id: 'tx-broken', reasonCode: 'VALIDATION_FAILED' }] });
    await send('GET', '/batch/transactions/b-tx?page=1&pageSize=10');
    await send('POST', '/batch/events/transaction', {
      batchId: 'b-ev',
      data: [{ transactionId: 'tx-batch', timestamp: T0 + 130_000, transactionState: 'SENT' }],
    });
    await send('GET', '/batch/events/transaction/b-ev');
    await send('POST', '/batch/consumer/users', { batchId: 'b-cu', data: [{ userId: 'carol', createdTimestamp: T0 }] });
    await send('GET', '/batch/consumer/users/b-cu');
    await send('POST', '/batch/business/users', {
      batchId: 'b-bu',
      data: [{ userId: 'globex', createdTimestamp: T0, legalEntity: { companyGeneralDetails: { legalName: 'Globex' } } }],
    });
    await send('GET', '/batch/business/users/b-bu');
    await send('POST', '/batch/events/consumer/user', {
      batchId: 'b-cue',
      data: [{ userId: 'carol', eventId: 'b-cue-1', timestamp: T0 + 1, reason: 'review' }],
    });
    await send('GET', '/batch/events/consumer/user/b-cue');
    await send('POST', '/batch/events/business/user', {
      batchId: 'b-bue',
      data: [{ userId: 'globex', eventId: 'b-bue-1', timestamp: T0 + 1, reason: 'review' }],
    });
    await send('GET', '/batch/events/business/user/b-bue');

    expect(first.riskScoreDetails).toMatchObject({ trsRiskLevel: expect.any(String), originUserCraRiskScore: expect.any(Number) });
    expect((await send<Returns<'getUser'>>('GET', '/consumer/users/alice')).riskScoreDetails).toMatchObject({ craRiskScore: expect.any(Number) });
    expect((await send<Returns<'getUser'>>('GET', '/business/users/acme')).type).toBe('BUSINESS');
    expect(
      (await send<Returns<'createUser'>>('POST', '/consumer/users', { userId: 'alice', createdTimestamp: T0 - 1000 * HOUR })).riskScoreDetails,
    ).toBeDefined();

    const consumerEvent = await send<Returns<'createConsumerUserEvent'>>('POST', '/events/consumer/user', {
      userId: 'alice',
      eventId: 'uev-1',
      timestamp: T0 + 180_000,
      updatedConsumerUserAttributes: { kycStatusDetails: { status: 'SUCCESSFUL' } },
    });
    expect(consumerEvent.riskScoreDetails).toMatchObject({ craRiskScore: expect.any(Number) });
    await send('GET', '/events/consumer/user/uev-1');
    await send('POST', '/events/business/user', {
      userId: 'acme',
      eventId: 'uev-2',
      timestamp: T0 + 180_000,
      updatedBusinessUserAttributes: { riskLevel: 'LOW' },
    });
    await send('GET', '/events/business/user/uev-2');

    const [alert] = await engine.listAlerts();
    expect(alert).toBeDefined();
    expect((await send<{ head: number }>('GET', '/outbox?limit=2')).head).toBeGreaterThan(0);
    await engine.outbox.acknowledge('reader', 1);
    expect((await send<{ name: string }[]>('GET', '/outbox/consumers')).map((c) => c.name)).toContain('reader');
    await send('GET', '/outbox/consumers/reader');
    await send('GET', '/outbox/consumers/reader/dead-letters?after=0');
    await send('GET', `/alerts/${alert?.alertId}`);
    await send('GET', `/cases/${alert?.caseId}`);

    const slot = await send<Returns<'createUpload'>>('POST', '/pre-signed-url', { filename: 'statement.pdf', fileSize: 5 });
    const put = await handler(new Request(`${ORIGIN}${slot.url}`, { method: 'PUT', body: 'hello', headers: { 'content-type': 'application/octet-stream' } }));
    expect(put.status).toBe(204);
    const comment = { body: 'Customer sent a bank statement', files: [{ s3Key: slot.key, filename: 'statement.pdf', size: 5 }] };
    await send('POST', '/users/alice/comments', comment);
    await send('POST', `/cases/${alert?.caseId}/comments`, { body: 'Escalated to compliance' });
    await send('POST', `/alerts/${alert?.alertId}/comments`, { body: 'Looks legitimate', createdTimestamp: T0 + HOUR });
    await send('GET', '/users/alice/comments');
    await send('GET', `/cases/${alert?.caseId}/comments`);
    await send('GET', `/alerts/${alert?.alertId}/comments`);
    await send('GET', `/alerts/${alert?.alertId}`);
    await send('PATCH', `/alerts/${alert?.alertId}`, { priority: 'P1', assignments: [{ assigneeEmail: 'ana@bank.example' }] });
    await send('PATCH', `/cases/${alert?.caseId}`, {
      assignments: [{ assigneeEmail: 'ana@bank.example', assignedByEmail: 'lead@bank.example', timestamp: T0 }],
    });
    await send('POST', `/alerts/${alert?.alertId}/statuses`, { status: 'IN_REVIEW', comment: 'Looking' });
    await send('POST', `/cases/${alert?.caseId}/statuses`, { status: 'CLOSED', reason: ['OTHER'], otherReason: 'Known customer', comment: 'Done' });
    const alerts = await send<{ items: unknown[]; next: string }>('GET', '/alerts?pageSize=1&filterAlertStatus[]=CLOSED&sortOrder=asc');
    expect(alerts.items).toHaveLength(1);
    await send('GET', `/cases?pageSize=1&filterCaseStatus=CLOSED,OPEN&sortBy=caseId`);
    await send('GET', `/cases/${alert?.caseId}`);

    expect(failures).toEqual([]);
    expect([...checked].sort()).toEqual([...expected.keys()].sort());
  });

  it('the check fails when a body breaks its schema (a field the schema does not name, a wrong type)', async () => {
    const document = (await (await call(handler, 'GET', '/openapi.json')).json()) as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [name, validate] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, { type: 'string', validate });
    ajv.addSchema(document, 'openapi.json');
    const alert = ajv.compile({ $ref: 'openapi.json#/components/schemas/Alert' });
    const slot = ajv.compile({ $ref: 'openapi.json#/paths/~1pre-signed-url/post/responses/200/content/application~1json/schema' });
    const good = { key: 'file-1', url: '/uploads/file-1?expires=1&signature=ab', method: 'PUT', expiresAt: 1, fields: { key: 'file-1' } };
    expect(slot(good)).toBe(true);
    expect(slot({ ...good, extra: 1 })).toBe(false);
    expect(slot({ ...good, expiresAt: '1' })).toBe(false);
    expect(alert({})).toBe(false);
  });
});
