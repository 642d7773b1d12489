/**
 * What the engine answers with, as JSON Schemas: the response bodies of the HTTP interface that
 * are not request shapes already (users, comments, rules, upload slots, alerts, cases, lists, the
 * results merged into a stored transaction or event, health). They document txmon's output and
 * type the OpenAPI document; no client input is validated with them.
 *
 * Each schema's static type is the TypeScript type the engine returns (`src/engine/types.ts`,
 * `src/domain/entities.ts`, `RuleView`); test/http/openapi-responses.test.ts holds both to the same
 * shape. Objects are closed where the engine builds them field by field, so a field the engine
 * starts to return without a schema fails the response test; they stay open where the body
 * carries a profile or transaction the host sent (which keeps fields no schema names).
 */
import { Type, type Static } from '@sinclair/typebox';
import { CASE_PRIORITIES, CASE_STATUSES, RULE_ACTIONS, RULE_HIT_DIRECTIONS, RULE_LABELS, RULE_NATURES } from '../enums.js';
import { defineClosedObject, defineFreeObject, defineOpenObject, defineStringEnum } from './common.js';
import { LIST_SUBTYPES, LIST_TYPES } from './list.js';
import {
  ExecutedRuleResultSchema,
  HitRuleDetailsSchema,
  ResultAlertsSchema,
  ResultWarningSchema,
  RiskScoreDetailsSchema,
  RuleEvidenceSchema,
} from './results.js';
import { TransactionEventSchema, TransactionSchema } from './transaction.js';
import { AssignmentSchema, StatusChangeSchema } from './workflow.js';
import { BusinessUserEventSchema, BusinessUserSchema, ConsumerUserEventSchema, ConsumerUserSchema, RiskLevelSchema } from './user.js';

const RuleActionSchema = defineStringEnum(RULE_ACTIONS);
const CasePrioritySchema = defineStringEnum(CASE_PRIORITIES);
const CaseStatusSchema = defineStringEnum(CASE_STATUSES);

/** What rule evaluation produced for a transaction or an event (`MonitoringResult`). */
export const MonitoringResultSchema = defineOpenObject({
  executedRules: Type.Array(ExecutedRuleResultSchema),
  hitRules: Type.Array(HitRuleDetailsSchema),
  status: RuleActionSchema,
  riskScoreDetails: Type.Optional(RiskScoreDetailsSchema),
  warnings: Type.Optional(Type.Array(ResultWarningSchema)),
  alerts: ResultAlertsSchema,
});
/** What rule evaluation produced. */
export type MonitoringResultBody = Static<typeof MonitoringResultSchema>;

/** `GET /transactions/{transactionId}`: the transaction merged with its latest result (`TransactionWithRulesResult`). */
export const TransactionWithRulesResultSchema = Type.Intersect([TransactionSchema, MonitoringResultSchema]);
/** A transaction with its latest result. */
export type TransactionWithRulesResultBody = Static<typeof TransactionWithRulesResultSchema>;

/** The id of a stored event, beside the event as sent. */
export const EventIdFieldSchema = defineOpenObject({ eventId: Type.String() });

/** `GET /events/transaction/{eventId}`: the event as sent, its id and its result (`TransactionEventWithRulesResult`). */
export const TransactionEventWithRulesResultSchema = Type.Intersect([TransactionEventSchema, EventIdFieldSchema, MonitoringResultSchema]);
/** An event with its result. */
export type TransactionEventWithRulesResultBody = Static<typeof TransactionEventWithRulesResultSchema>;

/** A user's customer risk (CRA), each part present when known. */
export const UserRiskScoreDetailsSchema = defineClosedObject({
  craRiskScore: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  craRiskLevel: Type.Optional(RiskLevelSchema),
});

/** Response of `POST /consumer/users` and `POST /business/users` (`UserMonitoringResult`). */
export const UserMonitoringResultSchema = defineClosedObject({
  userId: Type.String(),
  executedRules: Type.Array(ExecutedRuleResultSchema, { description: 'The user rules (type USER) run on the created user' }),
  hitRules: Type.Array(HitRuleDetailsSchema, { description: 'Those of them that hit' }),
  riskScoreDetails: Type.Optional(UserRiskScoreDetailsSchema),
});
/** Response of the user-creating routes. */
export type UserMonitoringResultBody = Static<typeof UserMonitoringResultSchema>;

/** A user as returned (`UserView`): the profile as sent, plus its type and risk when known. */
export const UserViewSchema = Type.Intersect([
  Type.Union([ConsumerUserSchema, BusinessUserSchema]),
  defineOpenObject({
    type: defineStringEnum(['CONSUMER', 'BUSINESS'] as const),
    executedRules: Type.Optional(Type.Array(ExecutedRuleResultSchema, { description: 'The user rules run at its latest creation or event' })),
    hitRules: Type.Optional(Type.Array(HitRuleDetailsSchema, { description: 'Those of them that hit' })),
    riskScoreDetails: Type.Optional(UserRiskScoreDetailsSchema),
  }),
]);
/** A user as returned. */
export type UserViewBody = Static<typeof UserViewSchema>;

/**
 * Response of a user event (`UserWithRulesResult` / `BusinessWithRulesResult`): the user after the
 * event, its rule results and its risk when known.
 */
export const UserEventMonitoringResultSchema = Type.Intersect([
  Type.Union([ConsumerUserSchema, BusinessUserSchema]),
  defineOpenObject({
    executedRules: Type.Array(ExecutedRuleResultSchema),
    hitRules: Type.Array(HitRuleDetailsSchema),
    riskScoreDetails: Type.Optional(UserRiskScoreDetailsSchema),
  }),
]);
/** Response of the user-event routes. */
export type UserEventMonitoringResultBody = Static<typeof UserEventMonitoringResultSchema>;

/** A user event as returned by its GET (`ConsumerUserEventWithRulesResult` / `BusinessUserEventWithRulesResult`). */
export const UserEventWithRulesResultSchema = Type.Intersect([
  Type.Union([ConsumerUserEventSchema, BusinessUserEventSchema]),
  defineOpenObject({
    eventId: Type.String(),
    executedRules: Type.Array(ExecutedRuleResultSchema),
    hitRules: Type.Array(HitRuleDetailsSchema),
    riskScoreDetails: Type.Optional(UserRiskScoreDetailsSchema),
  }),
]);
/** A user event as returned. */
export type UserEventWithRulesResultBody = Static<typeof UserEventWithRulesResultSchema>;

/** A file of a comment as returned (`CommentFileLink`), with its signed download link. */
export const CommentFileLinkSchema = defineClosedObject({
  s3Key: Type.String(),
  filename: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  downloadLink: Type.String({ description: 'Signed `GET /files/{key}` URL' }),
});

/** A comment as returned (`CommentView`). */
export const CommentViewSchema = defineClosedObject({
  commentId: Type.String(),
  body: Type.String(),
  files: Type.Array(CommentFileLinkSchema),
  createdTimestamp: Type.Number(),
  updatedTimestamp: Type.Number(),
});
/** A comment as returned. */
export type CommentViewBody = Static<typeof CommentViewSchema>;

/** A rule (template) as returned by `GET /rules` and `GET /rules/{ruleId}` (`RuleView`). */
export const RuleViewSchema = defineClosedObject({
  id: Type.String(),
  type: Type.Union([Type.Literal('TRANSACTION'), Type.Literal('USER')], {
    description: 'TRANSACTION: run on transactions and their events; USER: run on user creation and user events',
  }),
  name: Type.String(),
  description: Type.String(),
  descriptionTemplate: Type.String(),
  parametersSchema: Type.Unknown({ description: 'The JSON Schema of the instance `parameters`' }),
  defaultParameters: Type.Unknown({ description: 'Parameters an instance gets when it names none' }),
  defaultAction: RuleActionSchema,
  defaultNature: defineStringEnum(RULE_NATURES),
  labels: Type.Array(defineStringEnum(RULE_LABELS)),
  defaultCasePriority: Type.String(),
  checksFor: Type.Array(Type.String()),
  types: Type.Array(Type.String()),
  typologies: Type.Array(Type.String()),
  stateful: Type.Boolean(),
});
/** A rule (template) as returned. */
export type RuleViewBody = Static<typeof RuleViewSchema>;

/** Response of `POST /pre-signed-url` (`UploadSlot`). */
export const UploadSlotSchema = defineClosedObject({
  key: Type.String({ description: "Pass it as a comment file's `s3Key`" }),
  url: Type.String({ description: 'Signed `PUT /uploads/{key}` URL' }),
  method: Type.Literal('PUT'),
  expiresAt: Type.Number(),
  fields: defineClosedObject({ key: Type.String() }),
});
/** An upload slot. */
export type UploadSlotBody = Static<typeof UploadSlotSchema>;

/** An alert (`Alert`): one rule instance's hits on one user, collected while it is open. */
export const AlertSchema = defineClosedObject({
  alertId: Type.String(),
  caseId: Type.String(),
  createdTimestamp: Type.Number(),
  updatedAt: Type.Number(),
  alertStatus: CaseStatusSchema,
  priority: CasePrioritySchema,
  userId: Type.String(),
  direction: defineStringEnum(RULE_HIT_DIRECTIONS),
  entityDetails: defineClosedObject({
    type: Type.Union([Type.Literal('TRANSACTION'), Type.Literal('USER')], {
      description: 'TRANSACTION: the hits of a transaction rule, on the transactions listed; USER: the hits of a user rule on the user (no transactions)',
    }),
    transactionIds: Type.Array(Type.String()),
  }),
  ruleDetails: defineClosedObject({
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    instanceId: Type.String(),
    action: RuleActionSchema,
    nature: defineStringEnum(RULE_NATURES),
  }),
  assignments: Type.Optional(Type.Array(AssignmentSchema)),
  lastStatusChange: Type.Optional(StatusChangeSchema),
  closingReason: Type.Optional(StatusChangeSchema),
  slaDueTimestamp: Type.Optional(Type.Number({ description: 'Due date: creation plus the engine SLA (`slaHours`) of the current priority' })),
});
/** An alert. */
export type AlertBody = Static<typeof AlertSchema>;

/** A case (`Case`): the open alerts of one user, or of the users of one scheme (case grouping `COUNTERPARTIES`). */
export const CaseSchema = defineClosedObject({
  caseId: Type.String(),
  createdTimestamp: Type.Number(),
  updatedAt: Type.Number(),
  caseStatus: CaseStatusSchema,
  priority: CasePrioritySchema,
  alertIds: Type.Array(Type.String()),
  entityDetails: defineClosedObject({ type: Type.Literal('USER'), userId: Type.String() }),
  userIds: Type.Optional(
    Type.Array(Type.String(), {
      minItems: 2,
      description: 'Every user with an alert in the case, in joining order (entityDetails.userId first); present only when there are two or more.',
    }),
  ),
  assignments: Type.Optional(Type.Array(AssignmentSchema)),
  lastStatusChange: Type.Optional(StatusChangeSchema),
  closingReason: Type.Optional(StatusChangeSchema),
  slaDueTimestamp: Type.Optional(Type.Number({ description: 'Due date: creation plus the engine SLA (`slaHours`) of the current priority' })),
});
/** A case. */
export type CaseBody = Static<typeof CaseSchema>;

/** Most hits an alert view lists with their evidence: its newest transactions (`hitCount` gives them all). */
export const MAX_ALERT_VIEW_HITS = 100;

/** One hit of an alert as its view lists it: the transaction and the evidence on the alert's side. */
export const AlertHitEvidenceSchema = defineClosedObject({
  transactionId: Type.String(),
  evidence: Type.Array(RuleEvidenceSchema),
});
/** One hit of an alert with its evidence. */
export type AlertHitEvidence = Static<typeof AlertHitEvidenceSchema>;

/**
 * `GET /alerts/{alertId}`: the alert with its comments, oldest first, and the evidence of its hits —
 * its newest {@link MAX_ALERT_VIEW_HITS} transactions, newest first (`AlertView`).
 */
export const AlertViewSchema = defineClosedObject({
  ...AlertSchema.properties,
  comments: Type.Array(CommentViewSchema),
  hits: Type.Array(AlertHitEvidenceSchema, { maxItems: MAX_ALERT_VIEW_HITS }),
  hitCount: Type.Integer({ minimum: 0 }),
});
/** `GET /cases/{caseId}`: the case with its comments, oldest first (`CaseView`). */
export const CaseViewSchema = defineClosedObject({ ...CaseSchema.properties, comments: Type.Array(CommentViewSchema) });

const pageProperties = {
  hasNext: Type.Boolean(),
  hasPrev: Type.Boolean(),
  next: Type.String({ description: "Cursor of the next page (pass it as `start`), '' when none" }),
  prev: Type.String({ description: "Cursor of the previous page, '' when none" }),
  last: Type.String({ description: "Cursor of the last page, '' when nothing matches" }),
  count: Type.Integer({ minimum: 0, description: 'Items matching the filters, on all pages' }),
  pageSize: Type.Integer({ minimum: 1 }),
};
/** `GET /alerts`: one page of alerts. */
export const AlertPageSchema = defineClosedObject({ items: Type.Array(AlertSchema), ...pageProperties });
/** `GET /cases`: one page of cases (Flagright's `CasesListResponse` shape). */
export const CasePageSchema = defineClosedObject({ items: Type.Array(CaseSchema), ...pageProperties });
/** `GET /users|cases|alerts/{id}/comments`. */
export const CommentListSchema = Type.Array(CommentViewSchema);

const listProperties = {
  listId: Type.String(),
  listType: defineStringEnum(LIST_TYPES),
  subtype: defineStringEnum(LIST_SUBTYPES),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
};

/** A list as stored and returned by `GET` and `PUT /lists/{listId}` (`StoredList`). */
export const StoredListSchema = defineClosedObject({
  ...listProperties,
  items: Type.Array(Type.String()),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
});
/** A stored list. */
export type StoredListBody = Static<typeof StoredListSchema>;

/** A list without its items, one entry of `GET /lists` (`ListSummary`). */
export const ListSummarySchema = defineClosedObject({
  ...listProperties,
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  itemCount: Type.Integer({ minimum: 0 }),
});
/** A list without its items. */
export type ListSummaryBody = Static<typeof ListSummarySchema>;

/** Response of `GET /healthz`. */
export const HealthSchema = defineClosedObject({ status: Type.Literal('ok') });
/** Response of `GET /healthz`. */
export type HealthBody = Static<typeof HealthSchema>;

/** Response of `GET /readyz`: 200 when `ready`, else 503, with what is not ready. */
export const ReadinessSchema = defineClosedObject({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not-ready'), Type.Literal('starting')]),
  checks: Type.Array(
    defineClosedObject({
      check: Type.Literal('store'),
      tenant: Type.Optional(Type.String()),
      status: Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('starting')]),
      code: Type.Optional(Type.String()),
      detail: Type.Optional(Type.String()),
    }),
  ),
});
/** Response of `GET /readyz`. */
export type ReadinessBody = Static<typeof ReadinessSchema>;

/** A JSON Schema or another JSON document served as it is (`GET /rule-filters-schema`, `GET /openapi.json`). */
export const JsonDocumentSchema = defineFreeObject();
