/**
 * The alert and case workflow on the wire: Flagright's status change request
 * (`POST /cases/{caseId}/statuses`, `POST /alerts/{alertId}/statuses`), the `PATCH` of an alert or
 * a case (priority, assignments), and what an alert or a case keeps of them (`assignments`,
 * `lastStatusChange`, `closingReason`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { CASE_PRIORITIES, CASE_STATUSES } from '../enums.js';
import { CommentFileSchema } from './comment.js';
import { SCHEMA_LIMITS, TimestampSchema, defineClosedObject, defineStringEnum } from './common.js';

/** Why an alert or a case was closed (`reason` of a move to `CLOSED`). */
export const CLOSING_REASONS = ['FALSE_POSITIVE', 'CONFIRMED_SUSPICIOUS_REPORTED', 'CONFIRMED_NO_ACTION', 'DUPLICATE', 'OTHER'] as const;
/** One of {@link CLOSING_REASONS}. */
export type ClosingReason = (typeof CLOSING_REASONS)[number];

/** At most this many assignees on one alert or case. */
export const MAX_ASSIGNMENTS = 20;

const EmailSchema = Type.String({ minLength: 1, maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$', 'x-pattern-message': 'must be an email address' });
const StatusSchema = defineStringEnum(CASE_STATUSES);
const ReasonListSchema = Type.Array(defineStringEnum(CLOSING_REASONS), { minItems: 1, maxItems: CLOSING_REASONS.length, uniqueItems: true });

/** One assignment as requested: the assignee, who assigned (optional) and when (optional: now). */
export const AssignmentRequestSchema = defineClosedObject({
  assigneeEmail: EmailSchema,
  assignedByEmail: Type.Optional(EmailSchema),
  timestamp: Type.Optional(TimestampSchema),
});

/** One assignment as kept and returned. */
export const AssignmentSchema = defineClosedObject({
  assigneeEmail: Type.String(),
  assignedByEmail: Type.Optional(Type.String()),
  timestamp: Type.Number(),
});
/** An assignment of an alert or a case to an analyst (Flagright's `assignments` entries). */
export type Assignment = Static<typeof AssignmentSchema>;

/** A status change as kept on an alert or a case (`lastStatusChange`, `closingReason`). */
export const StatusChangeSchema = defineClosedObject({
  status: StatusSchema,
  reason: Type.Optional(Type.Array(defineStringEnum(CLOSING_REASONS))),
  otherReason: Type.Optional(Type.String()),
  comment: Type.Optional(Type.String()),
  actor: Type.Optional(Type.String({ description: 'Who made the change: the `actor` the host passed, or the API key over HTTP' })),
  timestamp: Type.Number(),
});
/** A status change as kept on an alert or a case. */
export type StatusChange = Static<typeof StatusChangeSchema>;

/** Request body of `POST /cases/{caseId}/statuses` and `POST /alerts/{alertId}/statuses`. */
export const StatusChangeRequestSchema = defineClosedObject({
  status: StatusSchema,
  reason: Type.Optional(ReasonListSchema),
  otherReason: Type.Optional(Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.TEXT_MAX_LENGTH })),
  comment: Type.Optional(Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.COMMENT_BODY_MAX_LENGTH })),
  files: Type.Optional(Type.Array(CommentFileSchema, { maxItems: SCHEMA_LIMITS.MAX_COMMENT_FILES })),
});
/** A status change request. */
export type StatusChangeRequest = Static<typeof StatusChangeRequestSchema>;

/** Request body of `PATCH /cases/{caseId}` and `PATCH /alerts/{alertId}`: the fields given replace the stored ones. */
export const WorkflowUpdateRequestSchema = defineClosedObject(
  {
    priority: Type.Optional(defineStringEnum(CASE_PRIORITIES)),
    assignments: Type.Optional(Type.Array(AssignmentRequestSchema, { maxItems: MAX_ASSIGNMENTS })),
  },
  { minProperties: 1 },
);
/** A `PATCH` of an alert or a case. */
export type WorkflowUpdateRequest = Static<typeof WorkflowUpdateRequestSchema>;

/** The most items a page of alerts or cases holds (`pageSize`). */
export const MAX_PAGE_SIZE = 100;
/** The longest `start` cursor accepted. */
export const MAX_CURSOR_LENGTH = 1024;

const pageQueryFields = {
  start: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'A cursor from `next`, `prev` or `last` of an earlier page' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Default 20' })),
  sortOrder: Type.Optional(defineStringEnum(['asc', 'desc', 'ascend', 'descend'] as const, { description: 'Default desc' })),
  filterPriority: Type.Optional(defineStringEnum(CASE_PRIORITIES)),
  filterAfterCreatedTimestamp: Type.Optional(Type.Number({ description: 'Only items created at or after this time (epoch ms)' })),
  filterBeforeCreatedTimestamp: Type.Optional(Type.Number({ description: 'Only items created at or before this time (epoch ms)' })),
  filterUserId: Type.Optional(Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.ID_MAX_LENGTH })),
};
const StatusFilterSchema = Type.Array(StatusSchema, { minItems: 1, maxItems: CASE_STATUSES.length, uniqueItems: true });

/** The query of `GET /cases` and `engine.listCases(query)`: Flagright's names, plus `filterUserId` (cases with an alert of the user). */
export const CaseListQuerySchema = defineClosedObject({
  ...pageQueryFields,
  sortBy: Type.Optional(defineStringEnum(['createdTimestamp', 'updatedAt', 'priority', 'caseId'] as const, { description: 'Default createdTimestamp' })),
  filterCaseStatus: Type.Optional(StatusFilterSchema),
});
/** A query of a page of cases. */
export type CaseListQuery = Static<typeof CaseListQuerySchema>;

/** The query of `GET /alerts` and `engine.listAlerts(query)`: as for cases, plus the rule instance and the user. */
export const AlertListQuerySchema = defineClosedObject({
  ...pageQueryFields,
  sortBy: Type.Optional(defineStringEnum(['createdTimestamp', 'updatedAt', 'priority', 'alertId'] as const, { description: 'Default createdTimestamp' })),
  filterAlertStatus: Type.Optional(StatusFilterSchema),
  filterRuleInstanceId: Type.Optional(Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.ID_MAX_LENGTH })),
});
/** A query of a page of alerts. */
export type AlertListQuery = Static<typeof AlertListQuerySchema>;
