/**
 * `txmon/http`: the HTTP API (docs/wire-format.md) over txmon engines — a WHATWG fetch handler
 * ({@link createHttpHandler}) and its `node:http` adapter ({@link toNodeListener}).
 */
export { createHttpHandler } from './handler.js';
export { problemOf, renderProblem } from './problem.js';
export { HANDLER_CORE } from './types.js';
export type {
  CoreRequest,
  CoreResponse,
  HttpHandler,
  HttpHandlerOptions,
  HttpTenant,
  LabelledApiKey,
  MetricsEndpoint,
  RequestLogEntry,
  TxmonHttpHandler,
} from './types.js';
export { createNodeServer, DEFAULT_NODE_SERVER_OPTIONS, drainAndClose, toNodeListener, type NodeListenerOptions, type NodeServerOptions } from './node.js';
export { createOpenApiDocument, ProblemSchema } from './openapi.js';
export type { OpenApiDocumentOptions, Problem } from './openapi.js';
export {
  MIN_WEBHOOK_SECRET_BYTES,
  signWebhook,
  startWebhookDelivery,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  WebhookDeliveryError,
  webhookBodyOf,
  type WebhookDeliveryOptions,
  type WebhookHeaders,
} from './webhooks.js';
