/**
 * The OpenAPI 3.1 document of the HTTP interface, served at `GET /openapi.json`.
 *
 * Every body schema in `components.schemas` is the JSON form of a TypeBox schema of `src/domain`:
 * request bodies are the schemas the engine validates with, response bodies the schemas of what it
 * returns (`src/domain/schemas/responses.ts`, whose static types are the engine's return types).
 * This file only adds the routes, the problem shape and the security scheme around them. OpenAPI
 * 3.1 uses JSON Schema 2020-12, so txmon's custom formats (`country-code`, `currency-code`) and
 * annotations (`ui:schema`, `x-pattern-message`) are legal as they are.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  BusinessUserSchema,
  BusinessUserEventSchema,
  ConsumerUserEventSchema,
  CommentRequestSchema,
  ConsumerUserSchema,
  ListRequestSchema,
  PresignedUrlRequestSchema,
  RuleInstanceRequestSchema,
  SCHEMA_LIMITS,
  TransactionEventMonitoringResultSchema,
  TransactionEventSchema,
  TransactionMonitoringResultSchema,
  TransactionSchema,
  IdSchema,
  AlertListQuerySchema,
  CaseListQuerySchema,
  StatusChangeRequestSchema,
  WorkflowUpdateRequestSchema,
  defineOpenObject,
  defineStringEnum,
} from '../domain/index.js';
import { cloneJson } from '../domain/json.js';
import { MAX_BATCH_PAGE_SIZE, MAX_BATCH_RECORDS } from '../engine/services/batches.js';
import { ERROR_CODES, TxmonError, type ErrorCode } from '../errors.js';
import { QUERY_FLAGS, QUERY_FLAG_DESCRIPTIONS } from './query.js';
import { RuleFiltersSchema, getRuleFiltersSchemaJson } from '../domain/schemas/rule-filters.js';
import { RuleInstanceSchema, RuleInstanceVersionSchema } from '../domain/schemas/rule-instance.js';
import { AuditEntrySchema, AuditLogPageSchema, AuditLogQuerySchema } from '../domain/schemas/audit.js';
import { OutboxConsumerSchema, OutboxDeadLetterSchema, OutboxMessageSchema, OutboxPageSchema } from '../domain/schemas/outbox.js';
import {
  AlertPageSchema,
  AlertSchema,
  AlertViewSchema,
  CasePageSchema,
  CaseSchema,
  CaseViewSchema,
  CommentViewSchema,
  HealthSchema,
  ReadinessSchema,
  JsonDocumentSchema,
  ListSummarySchema,
  MonitoringResultSchema,
  RuleViewSchema,
  StoredListSchema,
  TransactionEventWithRulesResultSchema,
  TransactionWithRulesResultSchema,
  UploadSlotSchema,
  UserMonitoringResultSchema,
  UserViewSchema,
  UserEventMonitoringResultSchema,
  UserEventWithRulesResultSchema,
} from '../domain/schemas/responses.js';

/** Options of {@link createOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** Prefix of every path, e.g. `/v1`; `''` (default) or `/` for none. No trailing slash needed. */
  readonly basePath?: string;
  /** `info.title`; default {@link DEFAULT_OPENAPI_TITLE}. */
  readonly title?: string;
  /** `info.version` (the version of the API document); default {@link DEFAULT_OPENAPI_VERSION}. */
  readonly version?: string;
  /** When given, the document's only `servers` entry (e.g. `https://txmon.example.com`). */
  readonly serverUrl?: string;
}

/** Default `info.title` of the document. */
export const DEFAULT_OPENAPI_TITLE = 'txmon';
/** Default `info.version` of the document. */
export const DEFAULT_OPENAPI_VERSION = '0.1.0';
/** Name of the API-key header every authenticated route requires. */
export const API_KEY_HEADER = 'x-api-key';

/** One structured problem inside an error response (the JSON form of `ErrorDetail`). */
export const ProblemErrorSchema = defineOpenObject({
  path: Type.String({ description: 'JSON Pointer into the request, e.g. `/originAmountDetails/transactionAmount`; empty for the whole body' }),
  code: Type.String({ description: 'Machine-readable reason, e.g. `required`, `type`, `maximum`' }),
  message: Type.String({ description: 'Human-readable reason; never echoes the offending value' }),
});

/**
 * Body of every error response (`application/problem+json`, RFC 9457) plus txmon's `code`,
 * `message`, `validationErrors` (all problems as one string, for clients of the public
 * API: docs/wire-format.md#errors) and `errors` (the structured details).
 */
export const ProblemSchema = defineOpenObject(
  {
    type: Type.String({ description: 'URI reference naming the problem type' }),
    title: Type.String({ description: 'Short summary of the problem type' }),
    status: Type.Integer({ minimum: 400, maximum: 599, description: 'HTTP status code' }),
    code: defineStringEnum(Object.keys(ERROR_CODES) as ErrorCode[], { description: 'Stable txmon error code' }),
    message: Type.String({ description: 'What went wrong; names the field or the call, never a transaction value' }),
    validationErrors: Type.Optional(Type.String({ description: 'Every detail as one line of text' })),
    errors: Type.Optional(Type.Array(ProblemErrorSchema, { description: 'Structured details, each with a JSON Pointer path' })),
  },
  { description: 'An error response' },
);
/** Body of an error response. */
export type Problem = Static<typeof ProblemSchema>;

type JsonObject = Record<string, unknown>;
type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** How a route is protected: the API key, an HMAC-signed URL (query `expires` + `signature`), or not at all. */
type RouteAccess = 'api-key' | 'signed-url' | 'public' | 'metrics';

interface RouteSpec {
  readonly method: HttpMethod;
  /** Path below the base path, with `{param}` placeholders. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly access: RouteAccess;
  /** `components.schemas` name of the JSON request body. */
  readonly body?: string;
  /** Request body is raw bytes (`application/octet-stream`). */
  readonly binaryBody?: boolean;
  readonly status: 200 | 201 | 204;
  readonly description: string;
  /** Response schema (a `$ref` or an inline schema); absent for 204. */
  readonly response?: JsonObject;
  /** Response is raw bytes (`application/octet-stream`). */
  readonly binaryResponse?: boolean;
  /** Response is text of this media type. */
  readonly textResponse?: string;
  /** The route can answer 409 (id conflicts, lifecycle, concurrent updates). */
  readonly conflict?: boolean;
  /** The route can answer 422 `RULE_NOT_EVALUATED` (an engine created with `strict: true`). */
  readonly notEvaluated?: boolean;
  /** Its 503 carries this body (a `$ref`) rather than a problem. */
  readonly unavailableResponse?: JsonObject;
  /** Query parameters it reads. */
  readonly query?: readonly JsonObject[];
  /** The query flags it takes (src/http/query.ts); any other flag of the wire format is refused. */
  readonly flags?: readonly string[];
}

const JSON_MEDIA_TYPE = 'application/json';
const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const BINARY_MEDIA_TYPE = 'application/octet-stream';
const API_KEY_SCHEME = 'ApiKeyAuth';
const METRICS_KEY_SCHEME = 'MetricsKeyAuth';

/** Keywords whose value is one schema, and those whose value is a list or a map of schemas. */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/**
 * Says `additionalProperties: true` on every object schema that names no property at all (a free
 * object such as rule `parameters`). JSON Schema means that already, so validation is unchanged;
 * but common client generators read a bare `{ type: 'object' }` as an object with no properties
 * (`Record<string, never>`), and a client could then send no parameters, filters or metadata.
 */
function makeFreeObjectsExplicit(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  const node = schema as JsonObject;
  const isBareObject =
    node['type'] === 'object' &&
    ['properties', 'additionalProperties', 'patternProperties', 'unevaluatedProperties', 'allOf', 'anyOf', 'oneOf', '$ref'].every(
      (keyword) => !(keyword in node),
    );
  if (isBareObject) node['additionalProperties'] = true;
  for (const keyword of SUBSCHEMA_KEYWORDS) makeFreeObjectsExplicit(node[keyword]);
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const list = node[keyword];
    if (Array.isArray(list)) list.forEach(makeFreeObjectsExplicit);
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    const map = node[keyword];
    if (typeof map === 'object' && map !== null) Object.values(map).forEach(makeFreeObjectsExplicit);
  }
}

/** JSON form of a TypeBox schema: the copy drops TypeBox's symbol-keyed markers. */
function toJsonSchema(schema: TSchema | JsonObject): JsonObject {
  const json = cloneJson(schema) as unknown as JsonObject;
  makeFreeObjectsExplicit(json);
  return json;
}

function refSchema(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

function arrayOf(name: string, description: string): JsonObject {
  return { type: 'array', items: refSchema(name), description };
}

/**
 * JSON form of a response schema in which every part that is itself a component (the very same
 * TypeBox object) becomes a `$ref` to it, so the document holds one copy of each.
 */
function toJsonSchemaWithRefs(schema: TSchema, components: ReadonlyMap<unknown, string>): JsonObject {
  const replace = (node: unknown, isRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => replace(item, false));
    if (typeof node !== 'object' || node === null) return node;
    const name = isRoot ? undefined : components.get(node);
    if (name !== undefined) return refSchema(name);
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) copy[key] = replace(value, false);
    return copy;
  };
  return toJsonSchema(replace(schema, true) as JsonObject);
}

/** Response bodies, by component name; parts that are components of their own become `$ref`s. */
const RESPONSE_COMPONENTS: readonly (readonly [string, TSchema])[] = [
  ['MonitoringResult', MonitoringResultSchema],
  ['TransactionWithRulesResult', TransactionWithRulesResultSchema],
  ['TransactionEventWithRulesResult', TransactionEventWithRulesResultSchema],
  ['UserMonitoringResult', UserMonitoringResultSchema],
  ['UserView', UserViewSchema],
  ['UserEventMonitoringResult', UserEventMonitoringResultSchema],
  ['UserEventWithRulesResult', UserEventWithRulesResultSchema],
  ['CommentView', CommentViewSchema],
  ['RuleInstance', RuleInstanceSchema],
  ['RuleInstanceVersion', RuleInstanceVersionSchema],
  ['AuditEntry', AuditEntrySchema],
  ['AuditLogPage', AuditLogPageSchema],
  ['OutboxMessage', OutboxMessageSchema],
  ['OutboxPage', OutboxPageSchema],
  ['OutboxConsumer', OutboxConsumerSchema],
  ['OutboxDeadLetter', OutboxDeadLetterSchema],
  ['RuleView', RuleViewSchema],
  ['UploadSlot', UploadSlotSchema],
  ['Alert', AlertSchema],
  ['Case', CaseSchema],
  ['AlertView', AlertViewSchema],
  ['CaseView', CaseViewSchema],
  ['AlertPage', AlertPageSchema],
  ['CasePage', CasePageSchema],
  ['StoredList', StoredListSchema],
  ['ListSummary', ListSummarySchema],
  ['Health', HealthSchema],
  ['Readiness', ReadinessSchema],
];

/** The body schemas, by component name. Built from the domain schemas only. */
function buildComponentSchemas(): JsonObject {
  const schemas: JsonObject = {
    Transaction: toJsonSchema(TransactionSchema),
    TransactionEvent: toJsonSchema(TransactionEventSchema),
    ConsumerUser: toJsonSchema(ConsumerUserSchema),
    BusinessUser: toJsonSchema(BusinessUserSchema),
    ConsumerUserEvent: toJsonSchema(ConsumerUserEventSchema),
    BusinessUserEvent: toJsonSchema(BusinessUserEventSchema),
    CommentRequest: toJsonSchema(CommentRequestSchema),
    PresignedUrlRequest: toJsonSchema(PresignedUrlRequestSchema),
    RuleInstanceRequest: toJsonSchema(RuleInstanceRequestSchema),
    RuleFilters: toJsonSchema(getRuleFiltersSchemaJson()),
    ListRequest: toJsonSchema(ListRequestSchema),
    StatusChangeRequest: toJsonSchema(StatusChangeRequestSchema),
    WorkflowUpdateRequest: toJsonSchema(WorkflowUpdateRequestSchema),
    TransactionMonitoringResult: toJsonSchema(TransactionMonitoringResultSchema),
    TransactionEventMonitoringResult: toJsonSchema(TransactionEventMonitoringResultSchema),
    Problem: toJsonSchema(ProblemSchema),
    TransactionBatchRequest: batchRequestSchema('Transaction'),
    TransactionEventBatchRequest: batchRequestSchema('TransactionEvent'),
    ConsumerUserBatchRequest: batchRequestSchema('ConsumerUser'),
    BusinessUserBatchRequest: batchRequestSchema('BusinessUser'),
    ConsumerUserEventBatchRequest: batchRequestSchema('ConsumerUserEvent'),
    BusinessUserEventBatchRequest: batchRequestSchema('BusinessUserEvent'),
    BatchResponse: BATCH_RESPONSE_SCHEMA,
    BatchTransactionMonitoringResults: batchResultsSchema('transactions', ['transactionId', 'status', 'hitRules']),
    BatchTransactionEventMonitoringResults: batchResultsSchema('transactionEvents', [
      'eventId',
      'transactionId',
      'transactionState',
      'timestamp',
      'status',
      'hitRules',
    ]),
    BatchConsumerUsersWithRulesResult: batchResultsSchema('consumerUsers', ['userId']),
    BatchBusinessUsersWithRulesResults: batchResultsSchema('businessUsers', ['userId']),
    BatchConsumerUserEventsRulesResult: batchResultsSchema('consumerUserEvents', ['eventId', 'userId', 'timestamp', 'executedRules']),
    BatchBusinessUserEventsWithRulesResult: batchResultsSchema('businessUserEvents', ['eventId', 'userId', 'timestamp', 'executedRules']),
  };
  const components = new Map<unknown, string>([
    [TransactionSchema, 'Transaction'],
    [TransactionEventSchema, 'TransactionEvent'],
    [ConsumerUserSchema, 'ConsumerUser'],
    [BusinessUserSchema, 'BusinessUser'],
    [ConsumerUserEventSchema, 'ConsumerUserEvent'],
    [BusinessUserEventSchema, 'BusinessUserEvent'],
    [RuleFiltersSchema, 'RuleFilters'],
    ...RESPONSE_COMPONENTS.map(([name, schema]) => [schema, name] as const),
  ]);
  for (const [name, schema] of RESPONSE_COMPONENTS) schemas[name] = toJsonSchemaWithRefs(schema, components);
  return schemas;
}

/** A batch body: `{ batchId?, data: [record …] }` (each record is checked on its own by the server). */
function batchRequestSchema(record: string): JsonObject {
  return {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      batchId: {
        type: 'string',
        minLength: 1,
        maxLength: SCHEMA_LIMITS.ID_MAX_LENGTH,
        description: 'Id of the batch: the same id with the same body answers the same again',
      },
      data: { type: 'array', minItems: 1, maxItems: MAX_BATCH_RECORDS, items: refSchema(record) },
    },
  };
}

const BATCH_RESPONSE_SCHEMA: JsonObject = {
  type: 'object',
  required: ['status', 'batchId', 'successful', 'failed'],
  properties: {
    status: { type: 'string', enum: ['SUCCESS', 'PARTIAL_FAILURE', 'FAILURE'] },
    batchId: { type: 'string' },
    successful: { type: 'integer', minimum: 0 },
    failed: { type: 'integer', minimum: 0 },
    failedRecords: {
      type: 'array',
      items: { type: 'object', required: ['reasonCode'], properties: { id: { type: 'string' }, reasonCode: { type: 'string' } } },
    },
    message: { type: 'string' },
  },
};

/** A page of a batch's results: `{ [key]: [item …], totalCount }`. */
function batchResultsSchema(key: string, required: string[]): JsonObject {
  return {
    type: 'object',
    required: [key, 'totalCount'],
    properties: {
      [key]: { type: 'array', items: { type: 'object', required, additionalProperties: true } },
      totalCount: { type: 'integer', minimum: 0 },
    },
  };
}

const BATCH_MODE_PARAMETER: JsonObject = {
  name: 'mode',
  in: 'query',
  required: false,
  description:
    '`MONITOR` (default): monitor every record as a single call would. `IMPORT`: history that fills the windows only (no rules run, nothing counted or alerted)',
  schema: { type: 'string', enum: ['MONITOR', 'IMPORT'] },
};

/** The query of `GET /audit-log`: the properties of `AuditLogQuerySchema`, each a parameter. */
function auditLogParameters(): JsonObject[] {
  const properties = (toJsonSchema(AuditLogQuerySchema) as { properties: Record<string, JsonObject> }).properties;
  const descriptions: Record<string, string> = {
    entityType: 'Only entries about this kind of entity',
    entityId: 'Only entries about this entity (its id)',
    action: 'Only entries of this action',
    actor: 'Only entries made by this actor',
    afterTimestamp: 'Only entries at or after this time (epoch ms)',
    beforeTimestamp: 'Only entries at or before this time (epoch ms)',
    start: 'The `next` cursor of an earlier page (same `sortOrder`): the entries after it',
    pageSize: 'Entries per page, 1 to 100 (default 20)',
    sortOrder: '`ascend` (default): oldest first; `descend`: newest first',
  };
  return Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: false, description: descriptions[name] ?? name, schema }));
}

const OUTBOX_PAGE_PARAMETERS: readonly JsonObject[] = [
  { name: 'after', in: 'query', required: false, description: 'The position to read after (default 0)', schema: { type: 'integer', minimum: 0 } },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'At most this many, 1 to 1000 (default 100)',
    schema: { type: 'integer', minimum: 1, maximum: 1000 },
  },
];

const BATCH_PAGE_PARAMETERS: readonly JsonObject[] = [
  { name: 'page', in: 'query', required: false, description: 'Page, from 1 (default 1)', schema: { type: 'integer', minimum: 1 } },
  {
    name: 'pageSize',
    in: 'query',
    required: false,
    description: `Results per page, 1 to ${MAX_BATCH_PAGE_SIZE} (default 100)`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_BATCH_PAGE_SIZE },
  },
];

/** The query parameters of a page of alerts or cases, one per property of its query schema (lists repeated: `filterCaseStatus=OPEN&filterCaseStatus=CLOSED`). */
function listQueryParameters(schema: TSchema): JsonObject[] {
  const json = toJsonSchema(schema);
  const properties = json['properties'] as Record<string, JsonObject>;
  return Object.entries(properties).map(([name, property]) => {
    const parameter: JsonObject = { name, in: 'query', required: false, schema: property };
    if (typeof property['description'] === 'string') parameter['description'] = property['description'];
    if (property['type'] === 'array') {
      parameter['style'] = 'form';
      parameter['explode'] = true;
    }
    return parameter;
  });
}

/** The batch routes: a POST and a paged GET per kind of record. */
function batchRouteSpecs(): RouteSpec[] {
  const kinds = [
    {
      path: '/batch/transactions',
      name: 'TransactionBatch',
      body: 'TransactionBatchRequest',
      results: 'BatchTransactionMonitoringResults',
      what: 'transactions',
      mode: true,
    },
    {
      path: '/batch/events/transaction',
      name: 'TransactionEventBatch',
      body: 'TransactionEventBatchRequest',
      results: 'BatchTransactionEventMonitoringResults',
      what: 'transaction events',
      mode: true,
    },
    {
      path: '/batch/consumer/users',
      name: 'ConsumerUserBatch',
      body: 'ConsumerUserBatchRequest',
      results: 'BatchConsumerUsersWithRulesResult',
      what: 'consumer users',
      mode: false,
    },
    {
      path: '/batch/business/users',
      name: 'BusinessUserBatch',
      body: 'BusinessUserBatchRequest',
      results: 'BatchBusinessUsersWithRulesResults',
      what: 'business users',
      mode: false,
    },
    {
      path: '/batch/events/consumer/user',
      name: 'ConsumerUserEventBatch',
      body: 'ConsumerUserEventBatchRequest',
      results: 'BatchConsumerUserEventsRulesResult',
      what: 'consumer user events',
      mode: false,
    },
    {
      path: '/batch/events/business/user',
      name: 'BusinessUserEventBatch',
      body: 'BusinessUserEventBatchRequest',
      results: 'BatchBusinessUserEventsWithRulesResult',
      what: 'business user events',
      mode: false,
    },
  ];
  return kinds.flatMap((k): RouteSpec[] => [
    {
      method: 'post',
      path: k.path,
      operationId: `create${k.name}`,
      summary: `Process up to ${MAX_BATCH_RECORDS.toLocaleString('en')} ${k.what} in one call, each record on its own`,
      tag: 'Batches',
      access: 'api-key',
      body: k.body,
      status: 201,
      description: 'How many records were stored and which were refused, with their reason codes',
      response: refSchema('BatchResponse'),
      conflict: true,
      ...(k.mode ? { query: [BATCH_MODE_PARAMETER] } : {}),
    },
    {
      method: 'get',
      path: `${k.path}/{batchId}`,
      operationId: `get${k.name}`,
      summary: `Page through the results of a batch of ${k.what}`,
      tag: 'Batches',
      access: 'api-key',
      status: 200,
      description: 'The stored records of the batch with their results, in batch order',
      response: refSchema(k.results),
      query: BATCH_PAGE_PARAMETERS,
    },
  ]);
}

const PATH_PARAMETER_DESCRIPTIONS: Readonly<Record<string, string>> = {
  batchId: 'Id of the batch',
  transactionId: 'Id of the transaction',
  eventId: 'Id of the transaction event',
  userId: 'Id of the user',
  caseId: 'Id of the case',
  alertId: 'Id of the alert',
  ruleInstanceId: 'Id of the rule instance',
  ruleId: 'Id of the rule (template)',
  listId: 'Id of the list',
  consumer: 'Name of the outbox consumer (`webhook:default` for `txmon serve --webhook-url`)',
  key: 'File key returned by `POST /pre-signed-url`',
};

const FILE_KEY_PARAMETER_SCHEMA: JsonObject = { type: 'string', minLength: 1, maxLength: SCHEMA_LIMITS.FILE_KEY_MAX_LENGTH };

const SIGNED_URL_QUERY_PARAMETERS: readonly JsonObject[] = [
  {
    name: 'expires',
    in: 'query',
    required: true,
    description: 'Expiry of the signed URL, epoch milliseconds',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'signature',
    in: 'query',
    required: true,
    description: 'HMAC-SHA256 signature of the URL (hex)',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
];

/** A JSON document served as it is (the filters JSON Schema, this OpenAPI document). */
function jsonDocument(description: string): JsonObject {
  return { ...toJsonSchema(JsonDocumentSchema), description };
}

/** Every route of the HTTP interface, in documentation order. */
const ROUTES: readonly RouteSpec[] = [
  {
    method: 'post',
    path: '/transactions',
    operationId: 'createTransaction',
    summary: 'Verify a transaction: store it, run the active rule instances, return the result',
    tag: 'Transactions',
    access: 'api-key',
    body: 'Transaction',
    status: 201,
    description: 'The monitoring result',
    response: refSchema('TransactionMonitoringResult'),
    conflict: true,
    notEvaluated: true,
    flags: QUERY_FLAGS.createTransaction,
  },
  {
    method: 'get',
    path: '/transactions/{transactionId}',
    operationId: 'getTransaction',
    summary: 'Get a transaction with its latest monitoring result',
    tag: 'Transactions',
    access: 'api-key',
    status: 200,
    description: 'The transaction merged with its latest monitoring result',
    response: refSchema('TransactionWithRulesResult'),
  },
  {
    method: 'post',
    path: '/events/transaction',
    operationId: 'createTransactionEvent',
    summary: 'Apply a transaction event (state change and attribute update) and re-run the rules',
    tag: 'Transaction events',
    access: 'api-key',
    body: 'TransactionEvent',
    status: 201,
    description: 'The event id, the merged transaction and the monitoring result',
    response: refSchema('TransactionEventMonitoringResult'),
    conflict: true,
    notEvaluated: true,
  },
  {
    method: 'get',
    path: '/events/transaction/{eventId}',
    operationId: 'getTransactionEvent',
    summary: 'Get a transaction event with the monitoring result it produced',
    tag: 'Transaction events',
    access: 'api-key',
    status: 200,
    description: 'The event as sent, plus `eventId`, `status`, `executedRules`, `hitRules` and `riskScoreDetails`',
    response: refSchema('TransactionEventWithRulesResult'),
  },
  {
    method: 'post',
    path: '/consumer/users',
    operationId: 'createConsumerUser',
    summary: 'Create a consumer user, or update it: fields the payload omits are kept',
    tag: 'Users',
    access: 'api-key',
    body: 'ConsumerUser',
    status: 200,
    description: 'The user was stored',
    response: refSchema('UserMonitoringResult'),
    conflict: true,
    flags: QUERY_FLAGS.createUser,
  },
  {
    method: 'post',
    path: '/business/users',
    operationId: 'createBusinessUser',
    summary: 'Create a business user, or update it: fields the payload omits are kept',
    tag: 'Users',
    access: 'api-key',
    body: 'BusinessUser',
    status: 200,
    description: 'The user was stored',
    response: refSchema('UserMonitoringResult'),
    conflict: true,
    flags: QUERY_FLAGS.createUser,
  },
  {
    method: 'get',
    path: '/consumer/users/{userId}',
    operationId: 'getConsumerUser',
    summary: 'Get a consumer user',
    tag: 'Users',
    access: 'api-key',
    status: 200,
    description: 'The consumer user',
    response: refSchema('UserView'),
  },
  {
    method: 'get',
    path: '/business/users/{userId}',
    operationId: 'getBusinessUser',
    summary: 'Get a business user',
    tag: 'Users',
    access: 'api-key',
    status: 200,
    description: 'The business user',
    response: refSchema('UserView'),
  },
  ...batchRouteSpecs(),
  {
    method: 'post',
    path: '/events/consumer/user',
    operationId: 'createConsumerUserEvent',
    summary: 'Apply a consumer user event (merge patch of the user) and re-run the user rules',
    tag: 'User events',
    access: 'api-key',
    body: 'ConsumerUserEvent',
    status: 201,
    description: 'The user after the event, with its rule results and risk',
    response: refSchema('UserEventMonitoringResult'),
    conflict: true,
    flags: QUERY_FLAGS.createUserEvent,
  },
  {
    method: 'get',
    path: '/events/consumer/user/{eventId}',
    operationId: 'getConsumerUserEvent',
    summary: 'Get a consumer user event with the result it produced',
    tag: 'User events',
    access: 'api-key',
    status: 200,
    description: 'The event as sent, plus `eventId`, `executedRules`, `hitRules` and `riskScoreDetails`',
    response: refSchema('UserEventWithRulesResult'),
  },
  {
    method: 'post',
    path: '/events/business/user',
    operationId: 'createBusinessUserEvent',
    summary: 'Apply a business user event (merge patch of the user) and re-run the user rules',
    tag: 'User events',
    access: 'api-key',
    body: 'BusinessUserEvent',
    status: 201,
    description: 'The user after the event, with its rule results and risk',
    response: refSchema('UserEventMonitoringResult'),
    conflict: true,
    flags: QUERY_FLAGS.createUserEvent,
  },
  {
    method: 'get',
    path: '/events/business/user/{eventId}',
    operationId: 'getBusinessUserEvent',
    summary: 'Get a business user event with the result it produced',
    tag: 'User events',
    access: 'api-key',
    status: 200,
    description: 'The event as sent, plus `eventId`, `executedRules`, `hitRules` and `riskScoreDetails`',
    response: refSchema('UserEventWithRulesResult'),
  },
  {
    method: 'post',
    path: '/users/{userId}/comments',
    operationId: 'createUserComment',
    summary: 'Add a comment to a user',
    tag: 'Comments',
    access: 'api-key',
    body: 'CommentRequest',
    status: 201,
    description: 'The comment was stored',
    response: refSchema('CommentView'),
  },
  {
    method: 'post',
    path: '/cases/{caseId}/comments',
    operationId: 'createCaseComment',
    summary: 'Add a comment to a case',
    tag: 'Comments',
    access: 'api-key',
    body: 'CommentRequest',
    status: 201,
    description: 'The comment was stored',
    response: refSchema('CommentView'),
  },
  {
    method: 'post',
    path: '/alerts/{alertId}/comments',
    operationId: 'createAlertComment',
    summary: 'Add a comment to an alert',
    tag: 'Comments',
    access: 'api-key',
    body: 'CommentRequest',
    status: 201,
    description: 'The comment was stored',
    response: refSchema('CommentView'),
  },
  {
    method: 'post',
    path: '/rule-instances',
    operationId: 'createRuleInstance',
    summary: 'Create a rule instance (a rule from the library, or a custom rule with `logic`)',
    tag: 'Rule instances',
    access: 'api-key',
    body: 'RuleInstanceRequest',
    status: 200,
    description: 'The rule instance was created',
    response: refSchema('RuleInstance'),
    conflict: true,
  },
  {
    method: 'get',
    path: '/rule-instances',
    operationId: 'listRuleInstances',
    summary: 'List the rule instances',
    tag: 'Rule instances',
    access: 'api-key',
    status: 200,
    description: 'Every rule instance of the tenant',
    response: arrayOf('RuleInstance', 'Every rule instance'),
  },
  {
    method: 'get',
    path: '/rule-instances/{ruleInstanceId}',
    operationId: 'getRuleInstance',
    summary: 'Get a rule instance',
    tag: 'Rule instances',
    access: 'api-key',
    status: 200,
    description: 'The rule instance',
    response: refSchema('RuleInstance'),
  },
  {
    method: 'post',
    path: '/rule-instances/{ruleInstanceId}',
    operationId: 'updateRuleInstance',
    summary: 'Update a rule instance (the given fields replace the stored ones)',
    tag: 'Rule instances',
    access: 'api-key',
    body: 'RuleInstanceRequest',
    status: 200,
    description: 'The updated rule instance',
    response: refSchema('RuleInstance'),
    conflict: true,
  },
  {
    method: 'delete',
    path: '/rule-instances/{ruleInstanceId}',
    operationId: 'deleteRuleInstance',
    summary: 'Delete a rule instance',
    tag: 'Rule instances',
    access: 'api-key',
    status: 204,
    description: 'The rule instance was deleted',
    conflict: true,
  },
  {
    method: 'get',
    path: '/rule-instances/{ruleInstanceId}/versions',
    operationId: 'getRuleInstanceVersions',
    summary: 'List every version of a rule instance, newest first (txmon; kept after a delete)',
    tag: 'Rule instances',
    access: 'api-key',
    status: 200,
    description: 'Every version of the rule instance, newest first',
    response: arrayOf('RuleInstanceVersion', 'Every version, newest first'),
  },
  {
    method: 'get',
    path: '/audit-log',
    operationId: 'listAuditLog',
    summary: 'Page through the audit trail: every change made through the API (txmon)',
    tag: 'Audit',
    access: 'api-key',
    query: auditLogParameters(),
    status: 200,
    description: 'A page of audit entries; pass `next` as `start` for the entries after it',
    response: refSchema('AuditLogPage'),
  },
  {
    method: 'get',
    path: '/outbox',
    operationId: 'readOutbox',
    summary: 'Read the outbox: what the host may act on, in commit order (txmon; docs/webhooks.md)',
    tag: 'Outbox',
    access: 'api-key',
    query: OUTBOX_PAGE_PARAMETERS,
    status: 200,
    description: 'The messages after `after`, in position order, and the newest position',
    response: refSchema('OutboxPage'),
  },
  {
    method: 'get',
    path: '/outbox/consumers',
    operationId: 'listOutboxConsumers',
    summary: "List the outbox's consumers (webhooks, subscriptions): position, retries, lease (txmon)",
    tag: 'Outbox',
    access: 'api-key',
    status: 200,
    description: 'Every consumer, by name',
    response: arrayOf('OutboxConsumer', 'Every consumer, by name'),
  },
  {
    method: 'get',
    path: '/outbox/consumers/{consumer}',
    operationId: 'getOutboxConsumer',
    summary: "An outbox consumer's position, retries and lease (txmon)",
    tag: 'Outbox',
    access: 'api-key',
    status: 200,
    description: 'The consumer',
    response: refSchema('OutboxConsumer'),
  },
  {
    method: 'get',
    path: '/outbox/consumers/{consumer}/dead-letters',
    operationId: 'listOutboxDeadLetters',
    summary: 'The messages a consumer gave up on after its retries, with the last error (txmon)',
    tag: 'Outbox',
    access: 'api-key',
    query: OUTBOX_PAGE_PARAMETERS,
    status: 200,
    description: 'Its dead letters after `after`, in position order',
    response: arrayOf('OutboxDeadLetter', 'The dead letters, in position order'),
  },
  {
    method: 'get',
    path: '/rules',
    operationId: 'listRules',
    summary: 'List the rules (templates) of the library',
    tag: 'Rules',
    access: 'api-key',
    status: 200,
    description: 'Every rule',
    response: arrayOf('RuleView', 'Every rule of the library and the host'),
  },
  {
    method: 'get',
    path: '/rules/{ruleId}',
    operationId: 'getRule',
    summary: 'Get a rule (template)',
    tag: 'Rules',
    access: 'api-key',
    status: 200,
    description: 'The rule',
    response: refSchema('RuleView'),
  },
  {
    method: 'get',
    path: '/rule-filters-schema',
    operationId: 'getRuleFiltersSchema',
    summary: 'Get the JSON Schema of rule-instance `filters`',
    tag: 'Rules',
    access: 'api-key',
    status: 200,
    description: 'The filters JSON Schema (the same document as `#/components/schemas/RuleFilters`)',
    response: jsonDocument('A JSON Schema; see `#/components/schemas/RuleFilters`'),
  },
  {
    method: 'post',
    path: '/pre-signed-url',
    operationId: 'createUpload',
    summary: 'Get a signed URL to upload a file for a comment',
    tag: 'Files',
    access: 'api-key',
    body: 'PresignedUrlRequest',
    status: 200,
    description: 'The upload slot',
    response: refSchema('UploadSlot'),
  },
  {
    method: 'put',
    path: '/uploads/{key}',
    operationId: 'putUploadContent',
    summary: 'Upload the bytes of a file to the signed URL returned by `POST /pre-signed-url`',
    tag: 'Files',
    access: 'signed-url',
    binaryBody: true,
    status: 204,
    description: 'The file was stored',
  },
  {
    method: 'get',
    path: '/files/{key}',
    operationId: 'getFileContent',
    summary: 'Download a file through the signed link of a comment',
    tag: 'Files',
    access: 'signed-url',
    status: 200,
    description: 'The bytes of the file',
    binaryResponse: true,
  },
  {
    method: 'get',
    path: '/alerts',
    operationId: 'listAlerts',
    summary: 'List alerts, a page at a time (filters, sort, cursor)',
    tag: 'Alerts and cases',
    access: 'api-key',
    status: 200,
    description: 'One page of alerts; `next` / `prev` / `last` are cursors to pass as `start`',
    response: refSchema('AlertPage'),
    query: listQueryParameters(AlertListQuerySchema),
  },
  {
    method: 'get',
    path: '/alerts/{alertId}',
    operationId: 'getAlert',
    summary: 'Get an alert with its comments',
    tag: 'Alerts and cases',
    access: 'api-key',
    status: 200,
    description: 'The alert, its due date and its comments',
    response: refSchema('AlertView'),
  },
  {
    method: 'patch',
    path: '/alerts/{alertId}',
    operationId: 'updateAlert',
    summary: 'Change the priority or the assignments of an alert',
    tag: 'Alerts and cases',
    access: 'api-key',
    body: 'WorkflowUpdateRequest',
    status: 200,
    description: 'The alert after the change',
    response: refSchema('Alert'),
    conflict: true,
  },
  {
    method: 'post',
    path: '/alerts/{alertId}/statuses',
    operationId: 'changeAlertStatus',
    summary: 'Move an alert to another status (a close needs a reason)',
    tag: 'Alerts and cases',
    access: 'api-key',
    body: 'StatusChangeRequest',
    status: 200,
    description: 'The alert after the move',
    response: refSchema('Alert'),
    conflict: true,
  },
  {
    method: 'get',
    path: '/alerts/{alertId}/comments',
    operationId: 'listAlertComments',
    summary: 'List the comments of an alert',
    tag: 'Comments',
    access: 'api-key',
    status: 200,
    description: 'The comments, oldest first, each file with a signed download link',
    response: arrayOf('CommentView', 'The comments'),
  },
  {
    method: 'get',
    path: '/cases',
    operationId: 'listCases',
    summary: 'List cases, a page at a time (filters, sort, cursor)',
    tag: 'Alerts and cases',
    access: 'api-key',
    status: 200,
    description: 'One page of cases; `next` / `prev` / `last` are cursors to pass as `start`',
    response: refSchema('CasePage'),
    query: listQueryParameters(CaseListQuerySchema),
  },
  {
    method: 'get',
    path: '/cases/{caseId}',
    operationId: 'getCase',
    summary: 'Get a case with its comments',
    tag: 'Alerts and cases',
    access: 'api-key',
    status: 200,
    description: 'The case, its due date and its comments',
    response: refSchema('CaseView'),
  },
  {
    method: 'patch',
    path: '/cases/{caseId}',
    operationId: 'updateCase',
    summary: 'Change the priority or the assignments of a case',
    tag: 'Alerts and cases',
    access: 'api-key',
    body: 'WorkflowUpdateRequest',
    status: 200,
    description: 'The case after the change',
    response: refSchema('Case'),
    conflict: true,
  },
  {
    method: 'post',
    path: '/cases/{caseId}/statuses',
    operationId: 'changeCaseStatus',
    summary: 'Move a case to another status; closing it closes its open alerts',
    tag: 'Alerts and cases',
    access: 'api-key',
    body: 'StatusChangeRequest',
    status: 200,
    description: 'The case after the move',
    response: refSchema('Case'),
    conflict: true,
  },
  {
    method: 'get',
    path: '/cases/{caseId}/comments',
    operationId: 'listCaseComments',
    summary: 'List the comments of a case',
    tag: 'Comments',
    access: 'api-key',
    status: 200,
    description: 'The comments, oldest first, each file with a signed download link',
    response: arrayOf('CommentView', 'The comments'),
  },
  {
    method: 'get',
    path: '/users/{userId}/comments',
    operationId: 'listUserComments',
    summary: 'List the comments of a user',
    tag: 'Comments',
    access: 'api-key',
    status: 200,
    description: 'The comments, oldest first, each file with a signed download link',
    response: arrayOf('CommentView', 'The comments'),
  },
  {
    method: 'get',
    path: '/lists',
    operationId: 'listLists',
    summary: 'List the blacklists and whitelists (without their items)',
    tag: 'Lists',
    access: 'api-key',
    status: 200,
    description: 'Every list of the tenant',
    response: arrayOf('ListSummary', 'Every list, without its items'),
  },
  {
    method: 'get',
    path: '/lists/{listId}',
    operationId: 'getList',
    summary: 'Get a list with its items',
    tag: 'Lists',
    access: 'api-key',
    status: 200,
    description: 'The list',
    response: refSchema('StoredList'),
  },
  {
    method: 'put',
    path: '/lists/{listId}',
    operationId: 'putList',
    summary: 'Create or replace a whole list',
    tag: 'Lists',
    access: 'api-key',
    body: 'ListRequest',
    status: 200,
    description: 'The stored list',
    response: refSchema('StoredList'),
    conflict: true,
  },
  {
    method: 'delete',
    path: '/lists/{listId}',
    operationId: 'deleteList',
    summary: 'Delete a list',
    tag: 'Lists',
    access: 'api-key',
    status: 204,
    description: 'The list was deleted',
    conflict: true,
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'Get this OpenAPI document',
    tag: 'Service',
    access: 'api-key',
    status: 200,
    description: 'The OpenAPI 3.1 document',
    response: jsonDocument('An OpenAPI 3.1 document'),
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary:
      "Prometheus metrics: with an API key, the key's tenant's series and the process's; with a metrics key (`Authorization: Bearer` or `x-api-key`), every series. 404 when the server serves none here",
    tag: 'Service',
    access: 'metrics',
    status: 200,
    description: "Prometheus' text exposition format 0.0.4",
    textResponse: 'text/plain; version=0.0.4; charset=utf-8',
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Liveness check (no API key needed)',
    tag: 'Service',
    access: 'public',
    status: 200,
    description: 'The service is up',
    response: refSchema('Health'),
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness check: whether each store answers (no API key needed)',
    tag: 'Service',
    access: 'public',
    status: 200,
    description: 'Every store answered a round trip in time',
    response: refSchema('Readiness'),
    unavailableResponse: refSchema('Readiness'),
  },
];

/** Reusable error responses, by `components.responses` name. */
const ERROR_RESPONSES: Readonly<Record<string, { readonly status: number; readonly description: string; readonly retryAfter?: boolean }>> = {
  BadRequest: { status: 400, description: 'The request is malformed or breaks a schema or limit (`VALIDATION_FAILED`, `MALFORMED_JSON`, …)' },
  Unauthorized: { status: 401, description: 'The API key (or the URL signature) is missing, unknown, wrong or expired' },
  NotFound: { status: 404, description: 'The named resource does not exist in this tenant' },
  MethodNotAllowed: { status: 405, description: 'The path exists but not with this method' },
  Conflict: { status: 409, description: 'Id conflict, disallowed state transition or concurrent update' },
  PayloadTooLarge: { status: 413, description: 'The body is over the size limit' },
  UnprocessableContent: {
    status: 422,
    description:
      'The engine runs with `strict: true` and a live rule instance could not be evaluated (`RULE_NOT_EVALUATED`: an amount without a rate, a custom rule whose logic failed); nothing was stored',
  },
  UnsupportedMediaType: { status: 415, description: 'The body has the wrong content type' },
  TooManyRequests: { status: 429, description: 'The rate limit of the API key is exhausted; retry after `Retry-After` seconds', retryAfter: true },
  InternalError: { status: 500, description: 'An internal fault (never caused by client input); generic body' },
  ServiceUnavailable: {
    status: 503,
    description:
      'Not now: the store is away (`STORE_UNAVAILABLE`) or slow (`STORE_TIMEOUT`), the server is full (`OVERLOADED`, `TOO_MANY_CONNECTIONS`) or starting (`NOT_READY`); nothing was written, and sending the same request again after `Retry-After` seconds is safe',
    retryAfter: true,
  },
};

function buildErrorResponses(): JsonObject {
  const responses: JsonObject = {};
  for (const [name, spec] of Object.entries(ERROR_RESPONSES)) {
    const response: JsonObject = {
      description: spec.description,
      content: { [PROBLEM_MEDIA_TYPE]: { schema: refSchema('Problem') } },
    };
    if (spec.retryAfter === true) response['headers'] = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
    responses[name] = response;
  }
  return responses;
}

function errorResponseRef(name: string): JsonObject {
  return { $ref: `#/components/responses/${name}` };
}

function listPathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

function buildParameters(route: RouteSpec): JsonObject[] {
  const parameters: JsonObject[] = listPathParameters(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: PATH_PARAMETER_DESCRIPTIONS[name] ?? name,
    schema: name === 'key' ? { ...FILE_KEY_PARAMETER_SCHEMA } : toJsonSchema(IdSchema),
  }));
  if (route.access === 'signed-url') parameters.push(...SIGNED_URL_QUERY_PARAMETERS.map((parameter) => cloneJson(parameter)));
  if (route.query !== undefined) parameters.push(...route.query.map((parameter) => cloneJson(parameter)));
  for (const name of route.flags ?? []) {
    parameters.push({
      name,
      in: 'query',
      required: false,
      description: QUERY_FLAG_DESCRIPTIONS[name] ?? name,
      schema: { type: 'string', enum: ['true', 'false'] },
    });
  }
  return parameters;
}

function buildSuccessResponse(route: RouteSpec): JsonObject {
  if (route.textResponse !== undefined) return { description: route.description, content: { [route.textResponse]: { schema: { type: 'string' } } } };
  if (route.binaryResponse === true) {
    return { description: route.description, content: { [BINARY_MEDIA_TYPE]: { schema: { type: 'string', contentMediaType: BINARY_MEDIA_TYPE } } } };
  }
  if (route.response === undefined) return { description: route.description };
  return { description: route.description, content: { [JSON_MEDIA_TYPE]: { schema: cloneJson(route.response) } } };
}

function buildOperation(route: RouteSpec): JsonObject {
  const hasBody = route.body !== undefined || route.binaryBody === true;
  const parameters = buildParameters(route);
  const responses: JsonObject = { [String(route.status)]: buildSuccessResponse(route) };
  if (hasBody || parameters.length > 0) responses['400'] = errorResponseRef('BadRequest');
  if (route.access !== 'public') responses['401'] = errorResponseRef('Unauthorized');
  if (parameters.some((parameter) => parameter['in'] === 'path')) responses['404'] = errorResponseRef('NotFound');
  responses['405'] = errorResponseRef('MethodNotAllowed');
  if (route.conflict === true) responses['409'] = errorResponseRef('Conflict');
  if (hasBody) responses['413'] = errorResponseRef('PayloadTooLarge');
  if (route.body !== undefined) responses['415'] = errorResponseRef('UnsupportedMediaType');
  if (route.notEvaluated === true) responses['422'] = errorResponseRef('UnprocessableContent');
  if (route.access !== 'public') responses['429'] = errorResponseRef('TooManyRequests');
  responses['500'] = errorResponseRef('InternalError');
  responses['503'] =
    route.unavailableResponse === undefined
      ? errorResponseRef('ServiceUnavailable')
      : {
          description: 'A store is not ready; the body says which',
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
          content: { [JSON_MEDIA_TYPE]: { schema: cloneJson(route.unavailableResponse) } },
        };

  const operation: JsonObject = { operationId: route.operationId, summary: route.summary, tags: [route.tag] };
  if (parameters.length > 0) operation['parameters'] = parameters;
  if (route.body !== undefined) {
    operation['requestBody'] = { required: true, content: { [JSON_MEDIA_TYPE]: { schema: refSchema(route.body) } } };
  } else if (route.binaryBody === true) {
    operation['requestBody'] = {
      required: true,
      content: { [BINARY_MEDIA_TYPE]: { schema: { type: 'string', contentMediaType: BINARY_MEDIA_TYPE } } },
    };
  }
  operation['responses'] = responses;
  // The global requirement is the API key; signed URLs carry their own credentials in the query.
  if (route.access === 'metrics') operation['security'] = [{ [API_KEY_SCHEME]: [] }, { [METRICS_KEY_SCHEME]: [] }];
  else if (route.access !== 'api-key') operation['security'] = [];
  return operation;
}

/** A path segment may hold RFC 3986 `pchar`s only (no `?`, `#`, `{`, `}`, spaces or empty segments). */
const BASE_PATH_PATTERN = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/;

function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  const trimmed = basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
  if (!BASE_PATH_PATTERN.test(trimmed)) {
    throw new TxmonError('INVALID_CONFIGURATION', 'OpenAPI basePath must be empty or start with / and contain only URL path characters', [
      { path: '/basePath', code: 'pattern', message: 'must be empty or a URL path such as /v1' },
    ]);
  }
  return trimmed;
}

function checkText(value: string | undefined, fallback: string, name: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TxmonError('INVALID_CONFIGURATION', `OpenAPI ${name} must be a non-empty string`, [
      { path: `/${name}`, code: 'minLength', message: 'must be a non-empty string' },
    ]);
  }
  return value;
}

/**
 * Creates the OpenAPI 3.1.0 document of txmon's HTTP interface as plain JSON (no TypeBox symbols,
 * no shared references: every call returns a fresh object the caller may modify).
 *
 * - `components.schemas` holds the JSON form of the domain schemas the engine validates with
 *   (`Transaction` is `TransactionSchema`, and so on), `RuleFilters`, a schema for every JSON
 *   response body and `Problem`. Object schemas that name no property say
 *   `additionalProperties: true`, which changes no validation.
 * - Every JSON response has a schema; only `GET /rule-filters-schema` and `GET /openapi.json`,
 *   which serve a JSON document, are typed as any JSON object.
 * - Security: the `x-api-key` header on every route except `/healthz`, `/readyz` and the signed upload and
 *   download URLs (`/uploads/{key}`, `/files/{key}`), which take `expires` and `signature` in the query;
 *   `/metrics` also takes a metrics key as a bearer token.
 * - Errors: `application/problem+json` bodies of schema `Problem`; 429 carries `Retry-After`.
 *
 * @example
 * ```ts
 * const document = createOpenApiDocument({ basePath: '/v1', serverUrl: 'https://txmon.example.com' });
 * // document.paths['/v1/transactions'].post …
 * ```
 * @throws TxmonError `INVALID_CONFIGURATION` when `basePath` is not a URL path, or `title`,
 *   `version` or `serverUrl` is an empty string.
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): Record<string, unknown> {
  const basePath = normalizeBasePath(options.basePath);
  const title = checkText(options.title, DEFAULT_OPENAPI_TITLE, 'title');
  const version = checkText(options.version, DEFAULT_OPENAPI_VERSION, 'version');
  const serverUrl = options.serverUrl === undefined ? undefined : checkText(options.serverUrl, '', 'serverUrl');

  const paths: Record<string, JsonObject> = {};
  for (const route of ROUTES) {
    const fullPath = `${basePath}${route.path}`;
    const item = paths[fullPath] ?? {};
    item[route.method] = buildOperation(route);
    paths[fullPath] = item;
  }
  const tags = [...new Set(ROUTES.map((route) => route.tag))].map((name) => ({ name }));

  const document: JsonObject = {
    openapi: '3.1.0',
    info: {
      title,
      version,
      description:
        'Transaction monitoring: verify transactions and events against rule instances, manage users, rules, rule instances, lists, alerts, cases and comments. Wire format compatible with the Flagright interface.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
  };
  if (serverUrl !== undefined) document['servers'] = [{ url: serverUrl }];
  document['security'] = [{ [API_KEY_SCHEME]: [] }];
  document['tags'] = tags;
  document['paths'] = paths;
  document['components'] = {
    schemas: buildComponentSchemas(),
    responses: buildErrorResponses(),
    headers: {
      RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
    },
    securitySchemes: {
      [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: API_KEY_HEADER, description: 'The tenant API key' },
      [METRICS_KEY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'A metrics key (`--metrics-key-file`): reads `/metrics` only' },
    },
  };
  return document;
}
