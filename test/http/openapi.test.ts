import { describe, expect, test } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  BusinessUserSchema,
  CommentRequestSchema,
  ConsumerUserSchema,
  ListRequestSchema,
  PresignedUrlRequestSchema,
  RuleInstanceRequestSchema,
  TransactionEventMonitoringResultSchema,
  TransactionEventSchema,
  TransactionMonitoringResultSchema,
  TransactionSchema,
} from '../../src/domain/index.js';
import { ERROR_CODES } from '../../src/errors.js';
import { createOpenApiDocument, ProblemSchema } from '../../src/http/openapi.js';
import { RuleFiltersSchema } from '../../src/domain/schemas/rule-filters.js';
import type { Ajv } from 'ajv';
import { createAjv } from '../../src/validation/index.js';
import { FORMAT_CHECKS } from '../../src/validation/ajv.js';
import { isTxmonError } from '../../src/errors.js';

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected an object');
  return value as Json;
}

function getOperation(document: Json, path: string, method: string): Json | undefined {
  const item = asRecord(document['paths'])[path];
  if (item === undefined) return undefined;
  return asRecord(item)[method] as Json | undefined;
}

function getComponentSchemas(document: Json): Json {
  return asRecord(asRecord(document['components'])['schemas']);
}

/**
 * `schema` without the `additionalProperties: true` the document states on objects that name no
 * property (JSON Schema's default, so the same validation): what remains must equal the domain schema.
 */
function withoutFreeObjectMarks(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutFreeObjectMarks);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withoutFreeObjectMarks(value);
  if (copy['type'] === 'object' && copy['additionalProperties'] === true && !('properties' in copy)) delete copy['additionalProperties'];
  return copy;
}

/** The JSON form of a TypeBox schema, compared the way the document states it. */
function jsonForm(schema: unknown): unknown {
  return withoutFreeObjectMarks(JSON.parse(JSON.stringify(schema)));
}

/** Compiles every component schema with `ajv`, the document's own `$ref`s resolvable; fails naming the first that does not compile. */
function compileEveryComponent(ajv: Ajv | Ajv2020, document: Json): number {
  ajv.addSchema(document, 'openapi.json');
  const names = Object.keys(getComponentSchemas(document));
  for (const name of names) {
    expect(() => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` }), name).not.toThrow();
  }
  return names.length;
}

async function validateOpenApi(document: Json): Promise<{ valid: boolean; errors?: unknown }> {
  return new Validator().validate(structuredClone(document));
}

/** The routes of docs/wire-format.md#endpoints, with their success status (independent of src/http/openapi.ts). */
const EXPECTED_ROUTES = [
  { name: 'create transaction', method: 'post', path: '/transactions', status: '201' },
  { name: 'get transaction', method: 'get', path: '/transactions/{transactionId}', status: '200' },
  { name: 'create event', method: 'post', path: '/events/transaction', status: '201' },
  { name: 'get event', method: 'get', path: '/events/transaction/{eventId}', status: '200' },
  { name: 'create consumer user', method: 'post', path: '/consumer/users', status: '200' },
  { name: 'create business user', method: 'post', path: '/business/users', status: '200' },
  { name: 'get consumer user', method: 'get', path: '/consumer/users/{userId}', status: '200' },
  { name: 'get business user', method: 'get', path: '/business/users/{userId}', status: '200' },
  { name: 'transaction batch', method: 'post', path: '/batch/transactions', status: '201' },
  { name: 'transaction batch results', method: 'get', path: '/batch/transactions/{batchId}', status: '200' },
  { name: 'event batch', method: 'post', path: '/batch/events/transaction', status: '201' },
  { name: 'event batch results', method: 'get', path: '/batch/events/transaction/{batchId}', status: '200' },
  { name: 'consumer user batch', method: 'post', path: '/batch/consumer/users', status: '201' },
  { name: 'consumer user batch results', method: 'get', path: '/batch/consumer/users/{batchId}', status: '200' },
  { name: 'business user batch', method: 'post', path: '/batch/business/users', status: '201' },
  { name: 'business user batch results', method: 'get', path: '/batch/business/users/{batchId}', status: '200' },
  { name: 'consumer user event batch', method: 'post', path: '/batch/events/consumer/user', status: '201' },
  { name: 'consumer user event batch results', method: 'get', path: '/batch/events/consumer/user/{batchId}', status: '200' },
  { name: 'business user event batch', method: 'post', path: '/batch/events/business/user', status: '201' },
  { name: 'business user event batch results', method: 'get', path: '/batch/events/business/user/{batchId}', status: '200' },
  { name: 'create consumer user event', method: 'post', path: '/events/consumer/user', status: '201' },
  { name: 'create business user event', method: 'post', path: '/events/business/user', status: '201' },
  { name: 'get consumer user event', method: 'get', path: '/events/consumer/user/{eventId}', status: '200' },
  { name: 'get business user event', method: 'get', path: '/events/business/user/{eventId}', status: '200' },
  { name: 'user comment', method: 'post', path: '/users/{userId}/comments', status: '201' },
  { name: 'case comment', method: 'post', path: '/cases/{caseId}/comments', status: '201' },
  { name: 'alert comment', method: 'post', path: '/alerts/{alertId}/comments', status: '201' },
  { name: 'create rule instance', method: 'post', path: '/rule-instances', status: '200' },
  { name: 'list rule instances', method: 'get', path: '/rule-instances', status: '200' },
  { name: 'get rule instance', method: 'get', path: '/rule-instances/{ruleInstanceId}', status: '200' },
  { name: 'update rule instance', method: 'post', path: '/rule-instances/{ruleInstanceId}', status: '200' },
  { name: 'delete rule instance', method: 'delete', path: '/rule-instances/{ruleInstanceId}', status: '204' },
  { name: 'list rule instance versions', method: 'get', path: '/rule-instances/{ruleInstanceId}/versions', status: '200' },
  { name: 'list audit log', method: 'get', path: '/audit-log', status: '200' },
  { name: 'read outbox', method: 'get', path: '/outbox', status: '200' },
  { name: 'list outbox consumers', method: 'get', path: '/outbox/consumers', status: '200' },
  { name: 'get outbox consumer', method: 'get', path: '/outbox/consumers/{consumer}', status: '200' },
  { name: 'list outbox dead letters', method: 'get', path: '/outbox/consumers/{consumer}/dead-letters', status: '200' },
  { name: 'list rules', method: 'get', path: '/rules', status: '200' },
  { name: 'get rule', method: 'get', path: '/rules/{ruleId}', status: '200' },
  { name: 'filters schema', method: 'get', path: '/rule-filters-schema', status: '200' },
  { name: 'upload slot', method: 'post', path: '/pre-signed-url', status: '200' },
  { name: 'upload bytes', method: 'put', path: '/uploads/{key}', status: '204' },
  { name: 'download bytes', method: 'get', path: '/files/{key}', status: '200' },
  { name: 'get alert', method: 'get', path: '/alerts/{alertId}', status: '200' },
  { name: 'get case', method: 'get', path: '/cases/{caseId}', status: '200' },
  { name: 'list alerts', method: 'get', path: '/alerts', status: '200' },
  { name: 'list cases', method: 'get', path: '/cases', status: '200' },
  { name: 'update alert', method: 'patch', path: '/alerts/{alertId}', status: '200' },
  { name: 'update case', method: 'patch', path: '/cases/{caseId}', status: '200' },
  { name: 'change alert status', method: 'post', path: '/alerts/{alertId}/statuses', status: '200' },
  { name: 'change case status', method: 'post', path: '/cases/{caseId}/statuses', status: '200' },
  { name: 'list user comments', method: 'get', path: '/users/{userId}/comments', status: '200' },
  { name: 'list case comments', method: 'get', path: '/cases/{caseId}/comments', status: '200' },
  { name: 'list alert comments', method: 'get', path: '/alerts/{alertId}/comments', status: '200' },
  { name: 'list lists', method: 'get', path: '/lists', status: '200' },
  { name: 'get list', method: 'get', path: '/lists/{listId}', status: '200' },
  { name: 'put list', method: 'put', path: '/lists/{listId}', status: '200' },
  { name: 'delete list', method: 'delete', path: '/lists/{listId}', status: '204' },
  { name: 'openapi document', method: 'get', path: '/openapi.json', status: '200' },
  { name: 'health', method: 'get', path: '/healthz', status: '200' },
  { name: 'readiness', method: 'get', path: '/readyz', status: '200' },
  { name: 'metrics', method: 'get', path: '/metrics', status: '200' },
] as const;

const UNAUTHENTICATED_PATHS = new Set(['/healthz', '/readyz', '/uploads/{key}', '/files/{key}']);

describe('createOpenApiDocument', () => {
  test('passes the OpenAPI 3.1 schema validator with default options', async () => {
    const document = createOpenApiDocument();
    const result = await validateOpenApi(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document['openapi']).toBe('3.1.0');
  });

  test('passes the validator with every option set', async () => {
    const document = createOpenApiDocument({ basePath: '/api/v1', title: 'Acme monitoring', version: '2.3.4', serverUrl: 'https://txmon.example.com' });
    const result = await validateOpenApi(document);
    expect(result.valid).toBe(true);
    expect(document['info']).toMatchObject({ title: 'Acme monitoring', version: '2.3.4' });
    expect(document['servers']).toEqual([{ url: 'https://txmon.example.com' }]);
  });

  test.each([
    ['post', '/transactions', ['validateOriginUserId', 'validateDestinationUserId']],
    ['post', '/consumer/users', ['validateUserId', 'lockCraRiskLevel', 'lockKycRiskLevel']],
    ['post', '/business/users', ['validateUserId', 'lockCraRiskLevel', 'lockKycRiskLevel']],
    ['post', '/events/consumer/user', ['allowUserTypeConversion', 'lockCraRiskLevel', 'lockKycRiskLevel']],
    ['post', '/events/business/user', ['allowUserTypeConversion', 'lockCraRiskLevel', 'lockKycRiskLevel']],
  ])('%s %s lists its query flags as "true" / "false" strings', (method, path, flags) => {
    const operation = asRecord(asRecord(asRecord(createOpenApiDocument()['paths'])[path])[method]);
    const query = (operation['parameters'] as Json[]).filter((p) => p['in'] === 'query');
    expect(query.map((p) => p['name']).sort()).toEqual([...flags].sort());
    for (const p of query) expect(p['schema']).toEqual({ type: 'string', enum: ['true', 'false'] });
  });

  test('the validator rejects a broken document (the check can fail)', async () => {
    const document = createOpenApiDocument();
    delete (document['info'] as Json)['title'];
    const result = await validateOpenApi(document);
    expect(result.valid).toBe(false);
  });

  test('components.schemas.Transaction is the JSON of TransactionSchema (no second copy)', () => {
    const schemas = getComponentSchemas(createOpenApiDocument());
    expect(withoutFreeObjectMarks(schemas['Transaction'])).toEqual(jsonForm(TransactionSchema));
  });

  test('every domain body and result schema appears as its JSON form', () => {
    const schemas = getComponentSchemas(createOpenApiDocument());
    const expected = {
      TransactionEvent: TransactionEventSchema,
      ConsumerUser: ConsumerUserSchema,
      BusinessUser: BusinessUserSchema,
      CommentRequest: CommentRequestSchema,
      PresignedUrlRequest: PresignedUrlRequestSchema,
      RuleInstanceRequest: RuleInstanceRequestSchema,
      RuleFilters: RuleFiltersSchema,
      ListRequest: ListRequestSchema,
      TransactionMonitoringResult: TransactionMonitoringResultSchema,
      TransactionEventMonitoringResult: TransactionEventMonitoringResultSchema,
      Problem: ProblemSchema,
    };
    for (const [name, schema] of Object.entries(expected)) {
      expect(withoutFreeObjectMarks(schemas[name]), name).toEqual(jsonForm(schema));
    }
  });

  test('every component schema compiles with the project ajv (formats registered)', () => {
    expect(compileEveryComponent(createAjv(), createOpenApiDocument())).toBeGreaterThanOrEqual(26);
  });

  test('every component schema compiles as JSON Schema 2020-12 (the OpenAPI 3.1 dialect)', () => {
    const ajv = new Ajv2020({ strict: false, strictNumbers: true, discriminator: true });
    for (const [name, validate] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, { type: 'string', validate });
    compileEveryComponent(ajv, createOpenApiDocument());
  });

  test('no object schema is bare: a property-less object says additionalProperties: true (generators type it as a record)', () => {
    const bare: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) walk(item, `${at}/${index}`);
      } else if (typeof value === 'object' && value !== null) {
        const node = value as Json;
        const named = ['properties', 'additionalProperties', 'patternProperties', 'allOf', 'anyOf', 'oneOf', '$ref'].some((keyword) => keyword in node);
        if (node['type'] === 'object' && !named) bare.push(at);
        for (const [key, child] of Object.entries(node)) if (key !== 'enum' && key !== 'const' && key !== 'default') walk(child, `${at}/${key}`);
      }
    };
    walk(createOpenApiDocument(), '');
    expect(bare).toEqual([]);
  });

  test('the Transaction component accepts a valid transaction and rejects an unknown currency', () => {
    const validate = createAjv().compile(asRecord(getComponentSchemas(createOpenApiDocument())['Transaction']));
    const transaction = {
      type: 'TRANSFER',
      transactionId: 't-1',
      timestamp: 1_700_000_000_000,
      originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    };
    expect(validate(transaction)).toBe(true);
    expect(validate({ ...transaction, originAmountDetails: { transactionAmount: 10, transactionCurrency: 'XXZ' } })).toBe(false);
  });

  test.each(EXPECTED_ROUTES)('has $method $path answering $status', ({ method, path, status }) => {
    const operation = getOperation(createOpenApiDocument(), path, method);
    expect(operation).toBeDefined();
    expect(asRecord(operation?.['responses'])[status]).toBeDefined();
  });

  test('has no route beyond the listed ones', () => {
    const document = createOpenApiDocument();
    const actual = Object.entries(asRecord(document['paths'])).flatMap(([path, item]) => Object.keys(asRecord(item)).map((method) => `${method} ${path}`));
    expect(actual.sort()).toEqual(EXPECTED_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  test('operation ids are unique', () => {
    const document = createOpenApiDocument();
    const ids = EXPECTED_ROUTES.map((route) => getOperation(document, route.path, route.method)?.['operationId']);
    expect(new Set(ids).size).toBe(EXPECTED_ROUTES.length);
  });

  test.each([
    { name: 'no base path', basePath: undefined, expected: '/transactions' },
    { name: 'root base path', basePath: '/', expected: '/transactions' },
    { name: 'one segment', basePath: '/v1', expected: '/v1/transactions' },
    { name: 'trailing slash dropped', basePath: '/api/v1/', expected: '/api/v1/transactions' },
  ])('places paths under the base path ($name)', ({ basePath, expected }) => {
    const document = basePath === undefined ? createOpenApiDocument() : createOpenApiDocument({ basePath });
    const paths = Object.keys(asRecord(document['paths']));
    expect(paths).toContain(expected);
    expect(paths).toHaveLength(new Set(EXPECTED_ROUTES.map((route) => route.path)).size);
  });

  test.each([
    { name: 'no leading slash', options: { basePath: 'v1' }, path: '/basePath' },
    { name: 'query in base path', options: { basePath: '/v1?x=1' }, path: '/basePath' },
    { name: 'empty segment', options: { basePath: '/a//b' }, path: '/basePath' },
    { name: 'empty title', options: { title: '' }, path: '/title' },
    { name: 'blank version', options: { version: '  ' }, path: '/version' },
    { name: 'empty server url', options: { serverUrl: '' }, path: '/serverUrl' },
  ])('throws INVALID_CONFIGURATION for a bad option ($name)', ({ options, path }) => {
    let caught: unknown;
    try {
      createOpenApiDocument(options);
    } catch (error) {
      caught = error;
    }
    expect(isTxmonError(caught)).toBe(true);
    if (!isTxmonError(caught)) return;
    expect(caught.code).toBe('INVALID_CONFIGURATION');
    expect(caught.details.map((detail) => detail.path)).toEqual([path]);
  });

  test('requires the x-api-key header globally, lifts it only on health, readiness and signed-URL routes, and takes a metrics key on /metrics too', () => {
    const document = createOpenApiDocument();
    expect(document['security']).toEqual([{ ApiKeyAuth: [] }]);
    expect(asRecord(asRecord(document['components'])['securitySchemes'])['ApiKeyAuth']).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
    );
    for (const route of EXPECTED_ROUTES) {
      const operation = getOperation(document, route.path, route.method);
      if (UNAUTHENTICATED_PATHS.has(route.path)) expect(operation?.['security'], route.name).toEqual([]);
      else if (route.path === '/metrics') expect(operation?.['security'], route.name).toEqual([{ ApiKeyAuth: [] }, { MetricsKeyAuth: [] }]);
      else expect(operation?.['security'], route.name).toBeUndefined();
    }
  });

  test('signed-URL routes take expires and signature in the query, and raw bytes', () => {
    const document = createOpenApiDocument();
    for (const [method, path] of [
      ['put', '/uploads/{key}'],
      ['get', '/files/{key}'],
    ] as const) {
      const parameters = ((getOperation(document, path, method)?.['parameters'] ?? []) as Json[]).filter((parameter) => parameter['in'] === 'query');
      expect(parameters.map((parameter) => [parameter['name'], parameter['required']])).toEqual([
        ['expires', true],
        ['signature', true],
      ]);
    }
    expect(asRecord(asRecord(getOperation(document, '/uploads/{key}', 'put')?.['requestBody'])['content'])).toHaveProperty(['application/octet-stream']);
    const download = asRecord(asRecord(getOperation(document, '/files/{key}', 'get')?.['responses'])['200']);
    expect(asRecord(download['content'])).toHaveProperty(['application/octet-stream']);
  });

  test('every error response is application/problem+json with the Problem schema, 429 and 503 with Retry-After', () => {
    const document = createOpenApiDocument();
    const responses = asRecord(asRecord(document['components'])['responses']);
    for (const [name, response] of Object.entries(responses)) {
      expect(asRecord(response)['content'], name).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    }
    expect(asRecord(responses['TooManyRequests'])['headers']).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' } });
    const create = asRecord(getOperation(document, '/transactions', 'post')?.['responses']);
    expect(asRecord(responses['ServiceUnavailable'])['headers']).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' } });
    expect(Object.keys(create).sort()).toEqual(['201', '400', '401', '405', '409', '413', '415', '422', '429', '500', '503']);
    // A strict engine refuses a transaction or an event with a rule not evaluated; a read never is.
    expect(asRecord(getOperation(document, '/events/transaction', 'post')?.['responses'])).toHaveProperty('422');
    expect(asRecord(getOperation(document, '/transactions/{transactionId}', 'get')?.['responses'])).not.toHaveProperty('422');
  });

  test('the Problem schema lists every error code and requires the RFC 9457 core', () => {
    const problem = asRecord(getComponentSchemas(createOpenApiDocument())['Problem']);
    const properties = asRecord(problem['properties']);
    expect(asRecord(properties['code'])['enum']).toEqual(Object.keys(ERROR_CODES));
    expect(Object.keys(properties)).toEqual(['type', 'title', 'status', 'code', 'message', 'validationErrors', 'errors']);
    expect(problem['required']).toEqual(['type', 'title', 'status', 'code', 'message']);
    const validate = createAjv().compile(problem);
    expect(
      validate({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        code: 'VALIDATION_FAILED',
        message: 'Invalid request',
        validationErrors: '/timestamp: required',
        errors: [{ path: '/timestamp', code: 'required', message: 'is required' }],
      }),
    ).toBe(true);
    expect(validate({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'NOPE', message: 'x' })).toBe(false);
  });

  test('is plain JSON and a fresh object on every call', () => {
    const first = createOpenApiDocument();
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
    (getComponentSchemas(first)['Transaction'] as Json)['type'] = 'string';
    (asRecord(first['paths'])['/healthz'] as Json)['get'] = null;
    const second = createOpenApiDocument();
    expect(withoutFreeObjectMarks(getComponentSchemas(second)['Transaction'])).toEqual(jsonForm(TransactionSchema));
    expect(getOperation(second, '/healthz', 'get')).toBeDefined();
  });

  test('every $ref resolves inside the document', () => {
    const document = createOpenApiDocument();
    const refs: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) {
        for (const [key, child] of Object.entries(value)) {
          if (key === '$ref' && typeof child === 'string') refs.push(child);
          else walk(child);
        }
      }
    };
    walk(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, token) => (node === undefined ? undefined : asRecord(node)[token]), document);
      expect(target, ref).toBeDefined();
    }
  });
});
