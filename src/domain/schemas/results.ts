/**
 * Monitoring results (docs/wire-format.md#results). These describe txmon's output; they
 * are used for types and documentation, not to validate client input.
 */
import { Type, type Static } from '@sinclair/typebox';
import { RULE_HIT_DIRECTIONS, RULE_LABELS, RULE_NATURES } from '../enums.js';
import { defineClosedObject, defineFreeObject, defineOpenObject, defineStringEnum } from './common.js';
import { RuleActionSchema } from './rule-instance.js';
import { TransactionSchema } from './transaction.js';
import { RiskLevelSchema } from './user.js';

/** Side of a transaction a hit belongs to. */
export const RuleHitDirectionSchema = defineStringEnum(RULE_HIT_DIRECTIONS);

/** How an evidence value compared with its limit (`in`: the value is one of the listed ones). */
export const EVIDENCE_COMPARISONS = ['>', '>=', '<', '<=', '=', 'in'] as const;

/** The most transaction ids an evidence item lists (the newest of its window). */
export const MAX_EVIDENCE_TRANSACTION_IDS = 20;

/**
 * The window an aggregate was taken over: the closed interval [start, end] (epoch ms) and the
 * rule's `timeWindow` it came from (`rolling` false: calendar-aligned).
 */
export const EvidenceWindowSchema = defineOpenObject({
  start: Type.Number(),
  end: Type.Number(),
  units: Type.Optional(Type.Integer()),
  granularity: Type.Optional(Type.String()),
  rolling: Type.Optional(Type.Boolean()),
});
/** The window of an evidence item. */
export type EvidenceWindow = Static<typeof EvidenceWindowSchema>;

/**
 * One fact a hit rests on, for one side (docs/evidence.md): the value the rule compared, the
 * limit it crossed and how (`value comparison limit` held). Counts are numbers; money is an exact
 * decimal string in `currency`; a custom rule's logic is `true = true`; with `in`, `limit` is the JSON Pointer of the instance's list
 * parameter that holds `value` (`/parameters/highRiskCountries`). A windowed value names its `window` and the transactions that made
 * it: `transactionCount` of them, the newest {@link MAX_EVIDENCE_TRANSACTION_IDS} ids in
 * `transactionIds`, newest first.
 */
export const RuleEvidenceSchema = defineOpenObject({
  direction: RuleHitDirectionSchema,
  kind: Type.String(),
  value: Type.Union([Type.Number(), Type.String(), Type.Boolean()]),
  comparison: defineStringEnum(EVIDENCE_COMPARISONS),
  limit: Type.Union([Type.Number(), Type.String(), Type.Boolean()]),
  currency: Type.Optional(Type.String()),
  window: Type.Optional(EvidenceWindowSchema),
  transactionCount: Type.Optional(Type.Integer({ minimum: 0 })),
  transactionIds: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_EVIDENCE_TRANSACTION_IDS })),
});
/** One fact a hit rests on (see {@link RuleEvidenceSchema}). */
export type RuleEvidence = Static<typeof RuleEvidenceSchema>;

/**
 * Extra facts about a hit: its sides (`hitDirections`) and, txmon's addition to the wire format,
 * the `evidence` of each side (docs/evidence.md), present when the rule gives any.
 */
export const RuleHitMetaSchema = defineOpenObject({
  hitDirections: Type.Optional(Type.Array(RuleHitDirectionSchema)),
  evidence: Type.Optional(Type.Array(RuleEvidenceSchema)),
});
/** Extra facts about a hit. */
export type RuleHitMeta = Static<typeof RuleHitMetaSchema>;

/** Values of a custom rule's variables at evaluation time, per side. */
export const ExecutedLogicVarsSchema = defineOpenObject({
  direction: Type.Optional(RuleHitDirectionSchema),
  value: defineFreeObject(),
});
/** Values of a custom rule's variables at evaluation time. */
export type ExecutedLogicVars = Static<typeof ExecutedLogicVarsSchema>;

/**
 * Reasons a rule could not be evaluated (docs/wire-format.md#not-evaluated): `NO_RATE`, an amount
 * that could not be converted (no rate from `currency` to `to` at the transaction's time);
 * `LOGIC_ERROR`, a custom rule's logic threw (e.g. arithmetic on an object); `LOGIC_WORK_BUDGET`,
 * it exceeded its work budget.
 */
export const NOT_EVALUATED_REASONS = ['NO_RATE', 'LOGIC_ERROR', 'LOGIC_WORK_BUDGET'] as const;
/** One of {@link NOT_EVALUATED_REASONS}. */
export type NotEvaluatedReason = (typeof NOT_EVALUATED_REASONS)[number];

/**
 * txmon: why a rule could not be evaluated on the transaction (its first failure): the reason, for
 * `NO_RATE` the currencies of the missing rate, and the JSON Pointer of the amount when it is one
 * of the transaction's amounts. Such a rule did not hit because it could not decide.
 */
export const RuleNotEvaluatedSchema = defineOpenObject({
  reason: defineStringEnum(NOT_EVALUATED_REASONS),
  currency: Type.Optional(Type.String({ description: 'NO_RATE: the currency of the amount that could not be converted' })),
  to: Type.Optional(Type.String({ description: 'NO_RATE: the currency it was needed in' })),
  path: Type.Optional(
    Type.String({
      description: "JSON Pointer of the amount in the transaction (e.g. '/originAmountDetails/transactionAmount'), when it is one of its amounts",
    }),
  ),
});
/** Why a rule could not be evaluated (see {@link RuleNotEvaluatedSchema}). */
export type RuleNotEvaluated = Static<typeof RuleNotEvaluatedSchema>;

/**
 * txmon: a warning of a monitoring result. `RULE_NOT_EVALUATED`: the rule instance
 * `ruleInstanceId` could not be evaluated (`notEvaluated` says why, as on its executed rule); its
 * `ruleHit: false` is no verdict. The message names the instance and the reason, never a value.
 */
export const ResultWarningSchema = defineOpenObject({
  code: defineStringEnum(['RULE_NOT_EVALUATED'] as const),
  ruleInstanceId: Type.String(),
  notEvaluated: RuleNotEvaluatedSchema,
  /** Present (`true`) for a shadow instance: its verdict never changes `status`, and `strict` does not refuse for it. */
  isShadow: Type.Optional(Type.Boolean()),
  message: Type.String(),
});
/** A warning of a monitoring result (see {@link ResultWarningSchema}). */
export type ResultWarning = Static<typeof ResultWarningSchema>;

const hitRuleProperties = {
  ruleInstanceId: Type.String(),
  /** txmon: the version of the rule instance that produced this result (`RuleInstance.version`). */
  ruleInstanceVersion: Type.Optional(Type.Integer({ minimum: 1 })),
  ruleId: Type.Optional(Type.String()),
  ruleName: Type.String(),
  ruleDescription: Type.String(),
  ruleAction: RuleActionSchema,
  versionId: Type.Optional(Type.String()),
  executedAt: Type.Optional(Type.Number()),
  ruleHitMeta: Type.Optional(RuleHitMetaSchema),
  labels: Type.Optional(Type.Array(defineStringEnum(RULE_LABELS))),
  nature: Type.Optional(defineStringEnum(RULE_NATURES)),
  isShadow: Type.Optional(Type.Boolean()),
};

/** One rule instance that ran (hit or not). `ruleAction` is present even when not hit. */
export const ExecutedRuleResultSchema = defineOpenObject({
  ...hitRuleProperties,
  ruleHit: Type.Boolean(),
  vars: Type.Optional(Type.Array(ExecutedLogicVarsSchema)),
  notEvaluated: Type.Optional(RuleNotEvaluatedSchema),
});
/** One rule instance that ran. */
export type ExecutedRuleResult = Static<typeof ExecutedRuleResultSchema>;

/** One rule instance that hit (an executed result minus `ruleHit` and `vars`). */
export const HitRuleDetailsSchema = defineOpenObject(hitRuleProperties);
/** One rule instance that hit. */
export type HitRuleDetails = Static<typeof HitRuleDetailsSchema>;

/** Transaction risk score and the customer risk (CRA) of both users after it. Scores are 0–100. */
export const RiskScoreDetailsSchema = defineOpenObject({
  trsScore: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  trsRiskLevel: Type.Optional(RiskLevelSchema),
  originUserCraRiskScore: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  destinationUserCraRiskScore: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  originUserCraRiskLevel: Type.Optional(RiskLevelSchema),
  destinationUserCraRiskLevel: Type.Optional(RiskLevelSchema),
});
/** Transaction risk score and customer risk of both users. */
export type RiskScoreDetails = Static<typeof RiskScoreDetailsSchema>;

/**
 * One alert a transaction's or event's result names (txmon's addition, `alerts`): the alert a hit
 * of `ruleInstanceId` on `userId` opened, or the open alert of (instance, user) it was appended to.
 */
export const ResultAlertSchema = defineClosedObject({
  alertId: Type.String(),
  caseId: Type.String({ description: "The alert's case" }),
  ruleInstanceId: Type.String(),
  userId: Type.String(),
  direction: RuleHitDirectionSchema,
  action: defineStringEnum(['OPENED', 'APPENDED'] as const),
  caseOpened: Type.Optional(Type.Literal(true, { description: 'The alert opened a new case (its caseId)' })),
});
/** One alert a result names. */
export type ResultAlert = Static<typeof ResultAlertSchema>;

/** A result's `alerts`: present only when it names at least one. */
export const ResultAlertsSchema = Type.Optional(
  Type.Array(ResultAlertSchema, {
    minItems: 1,
    description: 'txmon: the alerts the hits opened (OPENED) or were appended to (APPENDED), in hit order, each once; absent when none',
  }),
);

/** Response of `POST /transactions`. `status` is always present (`ALLOW` when nothing hit). */
export const TransactionMonitoringResultSchema = defineOpenObject({
  transactionId: Type.String(),
  status: RuleActionSchema,
  riskScoreDetails: Type.Optional(RiskScoreDetailsSchema),
  executedRules: Type.Array(ExecutedRuleResultSchema),
  hitRules: Type.Array(HitRuleDetailsSchema),
  alerts: ResultAlertsSchema,
  message: Type.Optional(Type.String()),
  warnings: Type.Optional(Type.Array(ResultWarningSchema)),
});
/** Response of `POST /transactions`. */
export type TransactionMonitoringResult = Static<typeof TransactionMonitoringResultSchema>;

/** Response of `POST /events/transaction`: the event id, the merged transaction and the results. */
export const TransactionEventMonitoringResultSchema = defineOpenObject({
  eventId: Type.String(),
  transaction: TransactionSchema,
  status: RuleActionSchema,
  riskScoreDetails: Type.Optional(RiskScoreDetailsSchema),
  executedRules: Type.Array(ExecutedRuleResultSchema),
  hitRules: Type.Array(HitRuleDetailsSchema),
  warnings: Type.Optional(Type.Array(ResultWarningSchema)),
  alerts: ResultAlertsSchema,
});
/** Response of `POST /events/transaction`. */
export type TransactionEventMonitoringResult = Static<typeof TransactionEventMonitoringResultSchema>;
