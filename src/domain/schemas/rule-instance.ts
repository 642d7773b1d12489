/**
 * Rule-instance request (`POST /rule-instances`, `POST /rule-instances/{id}`) and its parts.
 *
 * Unlike the transaction and user schemas, configuration is closed (`additionalProperties: false`):
 * a typo in an instance setting must fail loudly, not be ignored.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { CASE_PRIORITIES, RULE_ACTIONS, RULE_INSTANCE_MODES, RULE_INSTANCE_STATUSES, RULE_LABELS, RULE_NATURES, USER_DIRECTIONS } from '../enums.js';
import { AggregationVariableSchema } from './aggregation-variable.js';
import { IdSchema, SCHEMA_LIMITS, ShortTextSchema, TextSchema, defineClosedObject, defineFreeObject, defineStringEnum } from './common.js';
import { RuleFiltersSchema } from './rule-filters.js';
import { KycStatusSchema, UserStateSchema } from './user.js';

/** A rule action (see `RULE_ACTIONS`). */
export const RuleActionSchema = defineStringEnum(RULE_ACTIONS);

/**
 * An object with exactly the five risk levels as keys, each holding `inner`
 * (`additionalProperties: false`; all five required).
 */
export function RiskLevelRecordSchema<T extends TSchema>(inner: T): TObject<{ VERY_LOW: T; LOW: T; MEDIUM: T; HIGH: T; VERY_HIGH: T }> {
  return defineClosedObject({ VERY_LOW: inner, LOW: inner, MEDIUM: inner, HIGH: inner, VERY_HIGH: inner });
}

/** What to do to the hit users when an instance hits. */
export const TriggersOnHitSchema = defineClosedObject({
  usersToCheck: Type.Optional(defineStringEnum(USER_DIRECTIONS)),
  userStateDetails: Type.Optional(
    defineClosedObject({
      state: UserStateSchema,
      reason: Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.TEXT_MAX_LENGTH }),
      description: Type.Optional(TextSchema),
    }),
  ),
  kycStatusDetails: Type.Optional(
    defineClosedObject({
      status: KycStatusSchema,
      reason: Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.TEXT_MAX_LENGTH }),
      description: Type.Optional(TextSchema),
    }),
  ),
});
/** What to do to the hit users when an instance hits. */
export type TriggersOnHit = Static<typeof TriggersOnHitSchema>;

/**
 * Fields the service maintains. A request naming any of them is rejected with `READ_ONLY_FIELD`
 * (checked by `buildRuleInstance` before the schema, so the caller gets that specific
 * code instead of a generic `additionalProperties` error).
 */
export const RULE_INSTANCE_READ_ONLY_FIELDS = ['id', 'runCount', 'hitCount', 'createdAt', 'updatedAt', 'version'] as const;
/** One of {@link RULE_INSTANCE_READ_ONLY_FIELDS}. */
export type RuleInstanceReadOnlyField = (typeof RULE_INSTANCE_READ_ONLY_FIELDS)[number];

/** txmon: max aggregation variables of one custom-rule instance. */
export const MAX_LOGIC_AGGREGATION_VARIABLES = SCHEMA_LIMITS.MAX_LIST_ITEMS;

/**
 * Request body that creates or updates a rule instance. `parameters` / `riskLevelParameters` are
 * only checked to be objects here; the engine validates them against the rule's own
 * `parametersSchema` (`INVALID_PARAMETERS`), `filters` against the filters schema
 * (`INVALID_FILTERS`) and `logic` against the json-logic allowlist (`INVALID_LOGIC`).
 */
export const RuleInstanceRequestSchema = defineClosedObject({
  ruleId: Type.Optional(IdSchema),
  logic: Type.Optional(Type.Unknown()),
  logicAggregationVariables: Type.Optional(Type.Array(defineFreeObject(), { maxItems: MAX_LOGIC_AGGREGATION_VARIABLES })),
  alertCreationOnHit: Type.Optional(Type.Boolean()),
  filters: Type.Optional(defineFreeObject()),
  parameters: Type.Optional(defineFreeObject()),
  ruleNameAlias: Type.Optional(ShortTextSchema),
  ruleDescriptionAlias: Type.Optional(TextSchema),
  riskLevelParameters: Type.Optional(RiskLevelRecordSchema(defineFreeObject())),
  action: Type.Optional(RuleActionSchema),
  riskLevelActions: Type.Optional(RiskLevelRecordSchema(RuleActionSchema)),
  triggersOnHit: Type.Optional(TriggersOnHitSchema),
  riskLevelsTriggersOnHit: Type.Optional(RiskLevelRecordSchema(TriggersOnHitSchema)),
  status: Type.Optional(defineStringEnum(RULE_INSTANCE_STATUSES)),
  mode: Type.Optional(defineStringEnum(RULE_INSTANCE_MODES)),
  casePriority: Type.Optional(defineStringEnum(CASE_PRIORITIES)),
  nature: Type.Optional(defineStringEnum(RULE_NATURES)),
  labels: Type.Optional(Type.Array(defineStringEnum(RULE_LABELS), { uniqueItems: true, maxItems: RULE_LABELS.length })),
});
/** A rule-instance request. */
export type RuleInstanceRequest = Static<typeof RuleInstanceRequestSchema>;

/**
 * A rule instance as stored and returned (the create response of
 * docs/wire-format.md#rule-instances): every request field after defaults, the per-risk-level maps
 * filled in, and the fields the service maintains.
 */
export const RuleInstanceSchema = defineClosedObject({
  id: IdSchema,
  /** The kind of its rule: `USER` for a user rule (run on users), else `TRANSACTION`. */
  type: Type.Union([Type.Literal('TRANSACTION'), Type.Literal('USER')]),
  /** The rule (template) id, or `CUSTOM` for a custom json-logic instance. */
  ruleId: IdSchema,
  logic: Type.Optional(Type.Unknown({ description: 'A json-logic expression (custom instances)' })),
  logicAggregationVariables: Type.Optional(Type.Array(AggregationVariableSchema, { maxItems: MAX_LOGIC_AGGREGATION_VARIABLES })),
  ruleNameAlias: Type.Optional(ShortTextSchema),
  ruleDescriptionAlias: Type.Optional(TextSchema),
  parameters: defineFreeObject(),
  riskLevelParameters: RiskLevelRecordSchema(defineFreeObject()),
  action: RuleActionSchema,
  riskLevelActions: RiskLevelRecordSchema(RuleActionSchema),
  triggersOnHit: Type.Optional(TriggersOnHitSchema),
  riskLevelsTriggersOnHit: RiskLevelRecordSchema(TriggersOnHitSchema),
  filters: RuleFiltersSchema,
  alertCreationOnHit: Type.Boolean(),
  status: defineStringEnum(RULE_INSTANCE_STATUSES),
  mode: defineStringEnum(RULE_INSTANCE_MODES),
  casePriority: defineStringEnum(CASE_PRIORITIES),
  nature: defineStringEnum(RULE_NATURES),
  labels: Type.Array(defineStringEnum(RULE_LABELS)),
  checksFor: Type.Array(Type.String()),
  runCount: Type.Integer({ minimum: 0 }),
  hitCount: Type.Integer({ minimum: 0 }),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  /**
   * txmon: the instance's version, 1 at creation and one more at every update (a status change
   * too). Every version is kept (`getRuleInstanceVersions`), and every rule result names the
   * version that produced it (`ruleInstanceVersion`).
   */
  version: Type.Integer({ minimum: 1 }),
});
/** A live, configured copy of a rule, or a custom json-logic rule (see {@link RuleInstanceSchema}). */
export type RuleInstance = Static<typeof RuleInstanceSchema>;

/**
 * txmon: one version of a rule instance (`GET /rule-instances/{id}/versions`): the instance as it
 * was stored at that version, without its counters.
 */
export const RuleInstanceVersionSchema = Type.Omit(RuleInstanceSchema, ['runCount', 'hitCount']);
