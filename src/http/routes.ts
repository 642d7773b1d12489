/**
 * The route table of the API (docs/wire-format.md#endpoints): path pattern → method → action on the
 * tenant's engine. Routes are authenticated by API key unless marked `signed-url` (the file URLs
 * the engine signs), `public` (`/healthz`, `/readyz`) or `metrics` (`/metrics`: an API key or a
 * metrics key).
 */
import type { Engine, SignedFileAccess } from '../engine/create-engine.js';
import { invalidField, TxmonError } from '../errors.js';
import { JSON_TYPE } from './body.js';
import { RETRY_AFTER_SECONDS } from './problem.js';
import { QUERY_FLAGS, queryFlags } from './query.js';
import type { Readiness } from './readiness.js';
import { stringifyBody } from '../domain/result-json.js';
import type { CoreResponse, MetricsEndpoint } from './types.js';

/** Path parameters, decoded, by name. */
export type Params = Readonly<Record<string, string>>;

/** What an action can read of its request. */
export interface ActionContext {
  readonly engine: Engine;
  /** Who the request's changes are made by, for the audit trail: the API key's `<tenant>/<label>`. */
  readonly actor: string;
  /** The tenant whose API key the request carried; `null` for a metrics key, a signed URL or an open route. */
  readonly keyTenant: string | null;
  readonly params: Params;
  readonly url: URL;
  /**
   * The JSON body, within the body limit, typed as the engine method it is passed to takes it:
   * unchecked here, the engine checks it (as it checks any caller's input).
   */
  body<T>(): Promise<T>;
  /** The JSON body of a batch route, within the (larger) batch body limit; unchecked, as `body`. */
  batchBody<T>(): Promise<T>;
  /** The body as a stream of chunks, within the upload limit. */
  stream(): AsyncIterable<Uint8Array>;
  /** The body's announced length (`content-length`), when given. */
  declaredLength(): number | undefined;
  /** Aborted once the client has gone (see `CoreRequest.isGone`): a call still waiting is then not run. */
  readonly signal: { readonly aborted: boolean };
}

/** What an action answers: a JSON `body`, raw `bytes`, or nothing (204). */
export interface ActionResult {
  readonly status: number;
  readonly body?: unknown;
  readonly bytes?: Uint8Array;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Action = (context: ActionContext) => Promise<ActionResult>;

/** How a route's requests prove who they are (`metrics`: an API key or a metrics key). */
export type RouteAccess = 'api-key' | 'signed-url' | 'public' | 'metrics';

export interface Route {
  readonly pattern: string;
  /** `pattern` split at `/`, without the leading empty segment. */
  readonly segments: readonly string[];
  readonly methods: Readonly<Record<string, Action>>;
  readonly access: RouteAccess;
}

const ok = (body: unknown): ActionResult => ({ status: 200, body });
/** 200 when ready, else 503 with `Retry-After`. */
const readyOf = (readiness: Readiness): ActionResult =>
  readiness.status === 'ready' ? ok(readiness) : { status: 503, body: readiness, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } };
const created = (body: unknown): ActionResult => ({ status: 201, body });
const metricsOf = (text: { readonly contentType: string; readonly body: string }): ActionResult => ({
  status: 200,
  bytes: new TextEncoder().encode(text.body),
  contentType: text.contentType,
});
const noContent = (): ActionResult => ({ status: 204 });

/**
 * The API's routes; `openApi` makes the document served at `/openapi.json`, `metrics` the text at
 * `/metrics` (without it, there is no such route).
 */
export function createRoutes(openApi: () => Record<string, unknown>, readiness: () => Promise<Readiness>, metrics?: MetricsEndpoint['render']): Route[] {
  const table: [string, Record<string, Action>, RouteAccess?][] = [
    ['/healthz', { GET: async () => ok({ status: 'ok' }) }, 'public'],
    ['/readyz', { GET: async () => readyOf(await readiness()) }, 'public'],
    ...metricsRoute(metrics),
    ['/openapi.json', { GET: async () => ok(openApi()) }],
    [
      '/transactions',
      {
        POST: async (c) => {
          const flags = queryFlags(c.url, QUERY_FLAGS.createTransaction);
          return created(await c.engine.createTransaction(await c.body(), { ...flags, signal: c.signal }));
        },
      },
    ],
    ['/transactions/{transactionId}', { GET: async (c) => ok(await c.engine.getTransaction(param(c, 'transactionId'))) }],
    ['/events/transaction', { POST: async (c) => created(await c.engine.createTransactionEvent(await c.body(), { signal: c.signal, ...by(c) })) }],
    ['/events/transaction/{eventId}', { GET: async (c) => ok(await c.engine.getTransactionEvent(param(c, 'eventId'))) }],
    ['/consumer/users', { POST: async (c) => ok(await c.engine.createUser(await c.body(), { ...userFlags(c), type: 'CONSUMER' })) }],
    ['/business/users', { POST: async (c) => ok(await c.engine.createUser(await c.body(), { ...userFlags(c), type: 'BUSINESS' })) }],
    ['/consumer/users/{userId}', { GET: async (c) => ok(await c.engine.getUser(param(c, 'userId'), { type: 'CONSUMER' })) }],
    ['/business/users/{userId}', { GET: async (c) => ok(await c.engine.getUser(param(c, 'userId'), { type: 'BUSINESS' })) }],
    ...batchRoutes(),
    ['/events/consumer/user', { POST: async (c) => created(await c.engine.createConsumerUserEvent(await c.body(), userEventFlags(c))) }],
    ['/events/business/user', { POST: async (c) => created(await c.engine.createBusinessUserEvent(await c.body(), userEventFlags(c))) }],
    ['/events/consumer/user/{eventId}', { GET: async (c) => ok(await c.engine.getConsumerUserEvent(param(c, 'eventId'))) }],
    ['/events/business/user/{eventId}', { GET: async (c) => ok(await c.engine.getBusinessUserEvent(param(c, 'eventId'))) }],
    [
      '/users/{userId}/comments',
      {
        POST: async (c) => created(await c.engine.createUserComment(param(c, 'userId'), await c.body(), by(c))),
        GET: async (c) => ok(await c.engine.listComments({ kind: 'user', id: param(c, 'userId') })),
      },
    ],
    [
      '/cases/{caseId}/comments',
      {
        POST: async (c) => created(await c.engine.createCaseComment(param(c, 'caseId'), await c.body(), by(c))),
        GET: async (c) => ok(await c.engine.listComments({ kind: 'case', id: param(c, 'caseId') })),
      },
    ],
    [
      '/alerts/{alertId}/comments',
      {
        POST: async (c) => created(await c.engine.createAlertComment(param(c, 'alertId'), await c.body(), by(c))),
        GET: async (c) => ok(await c.engine.listComments({ kind: 'alert', id: param(c, 'alertId') })),
      },
    ],
    [
      '/rule-instances',
      {
        POST: async (c) => ok(await c.engine.createRuleInstance(await c.body(), by(c))),
        GET: async (c) => ok(await c.engine.listRuleInstances()),
      },
    ],
    [
      '/rule-instances/{ruleInstanceId}',
      {
        GET: async (c) => ok(await c.engine.getRuleInstance(param(c, 'ruleInstanceId'))),
        POST: async (c) => ok(await c.engine.updateRuleInstance(param(c, 'ruleInstanceId'), await c.body(), by(c))),
        DELETE: async (c) => {
          await c.engine.deleteRuleInstance(param(c, 'ruleInstanceId'), by(c));
          return noContent();
        },
      },
    ],
    ['/rule-instances/{ruleInstanceId}/versions', { GET: async (c) => ok(await c.engine.getRuleInstanceVersions(param(c, 'ruleInstanceId'))) }],
    ['/rules', { GET: async (c) => ok(await c.engine.listRules()) }],
    ['/rules/{ruleId}', { GET: async (c) => ok(await c.engine.getRule(param(c, 'ruleId'))) }],
    ['/rule-filters-schema', { GET: async (c) => ok(await c.engine.getRuleFiltersSchema()) }],
    ['/pre-signed-url', { POST: async (c) => ok(await c.engine.createUpload(await c.body())) }],
    ['/alerts', { GET: async (c) => ok(await c.engine.listAlerts(listQuery(c, ALERT_QUERY))) }],
    ['/cases', { GET: async (c) => ok(await c.engine.listCases(listQuery(c, CASE_QUERY))) }],
    [
      '/alerts/{alertId}',
      {
        GET: async (c) => ok(await c.engine.getAlert(param(c, 'alertId'))),
        PATCH: async (c) => ok(await c.engine.updateAlert(param(c, 'alertId'), await c.body(), { signal: c.signal, ...by(c) })),
      },
    ],
    [
      '/cases/{caseId}',
      {
        GET: async (c) => ok(await c.engine.getCase(param(c, 'caseId'))),
        PATCH: async (c) => ok(await c.engine.updateCase(param(c, 'caseId'), await c.body(), { signal: c.signal, ...by(c) })),
      },
    ],
    [
      '/alerts/{alertId}/statuses',
      { POST: async (c) => ok(await c.engine.changeAlertStatus(param(c, 'alertId'), await c.body(), { signal: c.signal, ...by(c) })) },
    ],
    [
      '/cases/{caseId}/statuses',
      { POST: async (c) => ok(await c.engine.changeCaseStatus(param(c, 'caseId'), await c.body(), { signal: c.signal, ...by(c) })) },
    ],
    ['/lists', { GET: async (c) => ok(await c.engine.listLists()) }],
    [
      '/lists/{listId}',
      {
        GET: async (c) => ok(await c.engine.getList(param(c, 'listId'))),
        PUT: async (c) => ok(await c.engine.putList(param(c, 'listId'), await c.body(), by(c))),
        DELETE: async (c) => {
          await c.engine.deleteList(param(c, 'listId'), by(c));
          return noContent();
        },
      },
    ],
    ['/audit-log', { GET: async (c) => ok(await c.engine.listAuditLog(auditQueryOf(c.url))) }],
    ['/outbox', { GET: async (c) => ok(await c.engine.outbox.read(outboxQueryOf(c.url))) }],
    ['/outbox/consumers', { GET: async (c) => ok(await withoutQuery(c).outbox.listConsumers()) }],
    ['/outbox/consumers/{consumer}', { GET: async (c) => ok(await withoutQuery(c).outbox.getConsumer(param(c, 'consumer'))) }],
    ['/outbox/consumers/{consumer}/dead-letters', { GET: async (c) => ok(await c.engine.outbox.listDeadLetters(param(c, 'consumer'), outboxQueryOf(c.url))) }],
    ['/uploads/{key}', { PUT: putUpload }, 'signed-url'],
    ['/files/{key}', { GET: getFile }, 'signed-url'],
  ];
  return table.map(([pattern, methods, access = 'api-key']) => ({ pattern, segments: pattern.split('/').slice(1), methods, access }));
}

/** `/metrics`, when the handler serves metrics. */
function metricsRoute(metrics: MetricsEndpoint['render'] | undefined): [string, Record<string, Action>, RouteAccess][] {
  return metrics === undefined ? [] : [['/metrics', { GET: async (c) => metricsOf(await metrics(c.keyTenant)) }, 'metrics']];
}

/** The action of `method` on `route` (`HEAD` is `GET` without the body, RFC 9110 §9.3.2), if any. */
export function actionOf(route: Route, method: string): Action | undefined {
  return route.methods[method === 'HEAD' ? 'GET' : method];
}

/** The `Allow` header of a route: its methods, and `HEAD` where it has `GET`. */
export function allowOf(route: Route): string {
  const allowed = Object.keys(route.methods);
  return (allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed).join(', ');
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': JSON_TYPE });

/** The response of an action's result; no body for `HEAD`. */
export function responseOf(result: ActionResult, method: string): CoreResponse {
  if (result.status === 204) return { status: 204, headers: {}, body: null };
  const head = method === 'HEAD';
  if (result.bytes)
    return { status: result.status, headers: { 'content-type': result.contentType ?? 'application/octet-stream' }, body: head ? null : result.bytes };
  const headers = result.headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...result.headers };
  return { status: result.status, headers, body: head ? null : stringifyBody(result.body) };
}

/**
 * The batch routes (docs/wire-format.md#batches): each POST answers 201 with a `BatchResponse`,
 * each GET pages the batch's results (`page`, `pageSize`). `mode=IMPORT` in the query of the
 * transaction and event batches imports history (windows only); user and user-event batches are
 * always monitored.
 */
function batchRoutes(): [string, Record<string, Action>][] {
  const post = (c: ActionContext) => {
    const mode = c.url.searchParams.get('mode');
    return mode === null ? { signal: c.signal, actor: c.actor } : { signal: c.signal, actor: c.actor, mode: mode as 'MONITOR' };
  };
  return [
    ['/batch/transactions', { POST: async (c) => created(await c.engine.createTransactionBatch(await c.batchBody(), post(c))) }],
    ['/batch/transactions/{batchId}', { GET: async (c) => ok(await c.engine.getTransactionBatch(param(c, 'batchId'), pageOf(c))) }],
    ['/batch/events/transaction', { POST: async (c) => created(await c.engine.createTransactionEventBatch(await c.batchBody(), post(c))) }],
    ['/batch/events/transaction/{batchId}', { GET: async (c) => ok(await c.engine.getTransactionEventBatch(param(c, 'batchId'), pageOf(c))) }],
    ['/batch/consumer/users', { POST: async (c) => created(await c.engine.createUserBatch(await c.batchBody(), { ...post(c), type: 'CONSUMER' })) }],
    ['/batch/consumer/users/{batchId}', { GET: async (c) => ok(await c.engine.getUserBatch(param(c, 'batchId'), { ...pageOf(c), type: 'CONSUMER' })) }],
    ['/batch/business/users', { POST: async (c) => created(await c.engine.createUserBatch(await c.batchBody(), { ...post(c), type: 'BUSINESS' })) }],
    ['/batch/business/users/{batchId}', { GET: async (c) => ok(await c.engine.getUserBatch(param(c, 'batchId'), { ...pageOf(c), type: 'BUSINESS' })) }],
    ['/batch/events/consumer/user', { POST: async (c) => created(await c.engine.createUserEventBatch(await c.batchBody(), { ...post(c), type: 'CONSUMER' })) }],
    [
      '/batch/events/consumer/user/{batchId}',
      { GET: async (c) => ok(await c.engine.getUserEventBatch(param(c, 'batchId'), { ...pageOf(c), type: 'CONSUMER' })) },
    ],
    ['/batch/events/business/user', { POST: async (c) => created(await c.engine.createUserEventBatch(await c.batchBody(), { ...post(c), type: 'BUSINESS' })) }],
    [
      '/batch/events/business/user/{batchId}',
      { GET: async (c) => ok(await c.engine.getUserEventBatch(param(c, 'batchId'), { ...pageOf(c), type: 'BUSINESS' })) },
    ],
  ];
}

/** `page` and `pageSize` of the query, as numbers (anything but digits becomes NaN, which the engine refuses naming the parameter). */
function pageOf(c: ActionContext): { page?: number; pageSize?: number } {
  const read = (name: string) => {
    const text = c.url.searchParams.get(name);
    return text === null ? undefined : /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
  };
  const page = read('page');
  const pageSize = read('pageSize');
  return { ...(page === undefined ? {} : { page }), ...(pageSize === undefined ? {} : { pageSize }) };
}

/** The query parameters of a page of alerts or cases: scalars (numbers or text) and lists. */
interface ListQuerySpec {
  readonly numbers: readonly string[];
  readonly texts: readonly string[];
  readonly lists: readonly string[];
}

const PAGE_QUERY = {
  numbers: ['pageSize', 'filterAfterCreatedTimestamp', 'filterBeforeCreatedTimestamp'],
  texts: ['start', 'sortBy', 'sortOrder', 'filterPriority', 'filterUserId'],
};
/** `GET /alerts`'s parameters (`AlertListQuerySchema`). */
export const ALERT_QUERY: ListQuerySpec = { numbers: PAGE_QUERY.numbers, texts: [...PAGE_QUERY.texts, 'filterRuleInstanceId'], lists: ['filterAlertStatus'] };
/** `GET /cases`'s parameters (`CaseListQuerySchema`). */
export const CASE_QUERY: ListQuerySpec = { numbers: PAGE_QUERY.numbers, texts: PAGE_QUERY.texts, lists: ['filterCaseStatus'] };

/**
 * The query of a page of alerts or cases as the engine takes it: a list parameter may be repeated,
 * spelt with `[]` (`filterCaseStatus[]=OPEN`) and hold comma-separated values; a number that is not
 * one stays text, which the engine refuses naming it. An unknown or repeated scalar parameter is a
 * 400 naming it.
 */
function listQuery(c: ActionContext, spec: ListQuerySpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [raw, value] of c.url.searchParams) {
    const name = raw.endsWith('[]') ? raw.slice(0, -2) : raw;
    if (spec.lists.includes(name)) {
      const list = (out[name] as string[] | undefined) ?? [];
      list.push(...value.split(',').filter((v) => v !== ''));
      out[name] = list;
      continue;
    }
    const isNumber = spec.numbers.includes(raw);
    if (!isNumber && !spec.texts.includes(raw)) {
      throw invalidField(
        '',
        'not-allowed',
        `query parameter ${safeQueryName(raw)} is not taken by this route (it takes ${[...spec.texts, ...spec.numbers, ...spec.lists].join(', ')})`,
      );
    }
    if (Object.hasOwn(out, raw)) throw invalidField('', 'duplicate', `query parameter ${raw} is given more than once`);
    out[raw] = isNumber && /^-?[0-9]{1,16}(\.[0-9]{1,6})?$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** A client's parameter name in a message: printable ASCII, at most 64 characters. */
function safeQueryName(name: string): string {
  const clean = name.replace(/[^\x21-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

/** The query flags of a user create, checked before its body is read. */
function userFlags(c: ActionContext) {
  return { ...queryFlags(c.url, QUERY_FLAGS.createUser), signal: c.signal, actor: c.actor };
}

/** The query flags of a user event. */
function userEventFlags(c: ActionContext) {
  return { ...queryFlags(c.url, QUERY_FLAGS.createUserEvent), signal: c.signal, actor: c.actor };
}

/** The audit actor of a change: the request's API key. */
function by(c: ActionContext): { actor: string } {
  return { actor: c.actor };
}

/**
 * The `after` and `limit` of an outbox read (each at most once, digits; else the engine refuses the
 * value naming it), and no other parameter (`allowed`: the ones a route takes).
 * @throws TxmonError `VALIDATION_FAILED` naming an unknown parameter or one given twice
 */
function outboxQueryOf(url: URL, allowed: readonly string[] = ['after', 'limit']): { after?: number; limit?: number } {
  const query: Record<string, number> = {};
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name)) {
      throw invalidField(
        '',
        'not-allowed',
        `unknown query parameter ${safeParameterName(name)} (this route takes ${allowed.length === 0 ? 'none' : allowed.join(', ')})`,
      );
    }
    if (Object.hasOwn(query, name)) throw invalidField('', 'duplicate', `query parameter ${name} is given more than once`);
    query[name] = /^[0-9]{1,16}$/.test(value) ? Number(value) : Number.NaN;
  }
  return query;
}

/** The engine of a route that takes no query parameter, once none is given. */
function withoutQuery(c: ActionContext): ActionContext['engine'] {
  outboxQueryOf(c.url, []);
  return c.engine;
}

/** The query parameters of `GET /audit-log`. */
export const AUDIT_LOG_PARAMETERS = [
  'entityType',
  'entityId',
  'action',
  'actor',
  'afterTimestamp',
  'beforeTimestamp',
  'start',
  'pageSize',
  'sortOrder',
] as const;
const NUMERIC_AUDIT_PARAMETERS: ReadonlySet<string> = new Set(['afterTimestamp', 'beforeTimestamp', 'pageSize']);

/**
 * The query of `GET /audit-log`: each parameter of {@link AUDIT_LOG_PARAMETERS} once, numbers as
 * numbers when they read as one (else the text, which the engine refuses naming the parameter).
 * @throws TxmonError `VALIDATION_FAILED` naming every other parameter, or one given twice
 */
function auditQueryOf(url: URL): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  const unknown: string[] = [];
  for (const [name, value] of url.searchParams) {
    if (!(AUDIT_LOG_PARAMETERS as readonly string[]).includes(name)) {
      unknown.push(name);
      continue;
    }
    if (Object.hasOwn(query, name)) throw invalidField('', 'duplicate', `query parameter ${name} is given more than once`);
    query[name] = NUMERIC_AUDIT_PARAMETERS.has(name) && /^-?[0-9]{1,16}(\.[0-9]{1,6})?$/.test(value) ? Number(value) : value;
  }
  if (unknown.length > 0) {
    const names = unknown.slice(0, 5).map(safeParameterName).join(', ');
    throw invalidField(
      '',
      'not-allowed',
      `unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}${unknown.length > 5 ? ', …' : ''} (this route takes ${AUDIT_LOG_PARAMETERS.join(', ')})`,
    );
  }
  return query;
}

/** A client's parameter name in a message: printable ASCII, at most 64 characters. */
function safeParameterName(name: string): string {
  const clean = name.replace(/[^\x21-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

function param(c: ActionContext, name: string): string {
  return c.params[name] as string;
}

/** The signature is checked before the first byte is read; the bytes then stream to the store. */
async function putUpload(c: ActionContext): Promise<ActionResult> {
  const declared = c.declaredLength();
  await c.engine.putUploadContent(signedAccess(c), c.stream(), declared === undefined ? {} : { declaredBytes: declared });
  return noContent();
}

async function getFile(c: ActionContext): Promise<ActionResult> {
  const file = await c.engine.getFileContent(signedAccess(c));
  return { status: 200, bytes: file.bytes, contentType: 'application/octet-stream' };
}

function signedAccess(c: ActionContext): SignedFileAccess {
  const expires = Number(c.url.searchParams.get('expires'));
  const signature = c.url.searchParams.get('signature') ?? '';
  if (!Number.isSafeInteger(expires) || signature === '') {
    throw new TxmonError('UNAUTHORIZED', 'The file URL is invalid or expired');
  }
  return { key: param(c, 'key'), expiresAt: expires, signature };
}
