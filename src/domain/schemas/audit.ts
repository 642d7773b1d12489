/**
 * The audit trail (docs/audit.md): one entry per change made through the API, and the page
 * `listAuditLog` / `GET /audit-log` answers. txmon's addition to the wire format.
 */
import { Type, type Static } from '@sinclair/typebox';
import { defineClosedObject, defineFreeObject, defineStringEnum, IdSchema } from './common.js';

/** What an audit entry is about. */
export const AUDIT_ENTITY_TYPES = ['RULE_INSTANCE', 'LIST', 'USER', 'COMMENT', 'ALERT', 'CASE'] as const;
/** What an audit entry is about. */
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

/** What happened to the entity. */
export const AUDIT_ACTIONS = ['CREATE', 'UPDATE', 'DELETE', 'STATUS_CHANGE'] as const;
/** What happened to the entity. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Longest `actor`: a host's user name or email, or `<tenant>/<key label>` over HTTP. */
export const MAX_ACTOR_LENGTH = 256;

/**
 * One change: what (`entityType`, `entityId`, `action`), who (`actor`), when (`timestamp`, epoch ms)
 * and the difference (`before` / `after`: the changed top-level fields only, see `diffAuditFields`).
 */
export const AuditEntrySchema = defineClosedObject({
  auditId: IdSchema,
  entityType: defineStringEnum(AUDIT_ENTITY_TYPES),
  entityId: IdSchema,
  action: defineStringEnum(AUDIT_ACTIONS),
  actor: Type.String({ minLength: 1, maxLength: MAX_ACTOR_LENGTH }),
  timestamp: Type.Number(),
  /** The changed fields as they were (a field absent here did not exist). `{}` on CREATE. */
  before: defineFreeObject(),
  /** The changed fields as they are now (a field absent here no longer exists). `{}` on DELETE. */
  after: defineFreeObject(),
  /** Changed fields whose values were left out of `before`/`after` for their size (absent when none). */
  omittedFields: Type.Optional(Type.Array(Type.String())),
});
/** One change made through the API (see {@link AuditEntrySchema}). */
export type AuditEntry = Static<typeof AuditEntrySchema>;

/**
 * Most entries a page's `count` counts: a read costs at most this many index entries whatever the
 * log's size, and a `count` of this many means "this many or more".
 */
export const MAX_AUDIT_COUNT = 10_000;

/** Largest `pageSize` of {@link AuditLogQuerySchema}. */
export const MAX_AUDIT_PAGE_SIZE = 100;
/** `pageSize` when none is given. */
export const DEFAULT_AUDIT_PAGE_SIZE = 20;

/** The filters and page of `listAuditLog` (every filter optional, all given must hold). */
export const AuditLogQuerySchema = defineClosedObject({
  entityType: Type.Optional(defineStringEnum(AUDIT_ENTITY_TYPES)),
  entityId: Type.Optional(IdSchema),
  action: Type.Optional(defineStringEnum(AUDIT_ACTIONS)),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ACTOR_LENGTH })),
  /** Entries with `timestamp` ≥ this (epoch ms). */
  afterTimestamp: Type.Optional(Type.Number()),
  /** Entries with `timestamp` ≤ this (epoch ms). */
  beforeTimestamp: Type.Optional(Type.Number()),
  /** The `next` cursor of an earlier page: the entries after it. */
  start: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AUDIT_PAGE_SIZE })),
  /** `ascend` (default): oldest first; `descend`: newest first. */
  sortOrder: Type.Optional(defineStringEnum(['ascend', 'descend'] as const)),
});
/** What `listAuditLog` takes. */
export type AuditLogQuery = Static<typeof AuditLogQuerySchema>;

/**
 * A page of the audit log: `items` in the order asked, `hasNext` when more entries match after
 * them, `next` the cursor to pass as `start` for the entries after this page (also when `hasNext`
 * is false: entries written later come after it), `count` the entries matching the filters (counted
 * up to {@link MAX_AUDIT_COUNT}), and `pageSize` the size asked.
 */
export const AuditLogPageSchema = defineClosedObject({
  items: Type.Array(AuditEntrySchema),
  hasNext: Type.Boolean(),
  next: Type.String(),
  count: Type.Integer({ minimum: 0, maximum: MAX_AUDIT_COUNT }),
  pageSize: Type.Integer({ minimum: 1 }),
});
/** A page of the audit log (see {@link AuditLogPageSchema}). */
export type AuditLogPage = Static<typeof AuditLogPageSchema>;
