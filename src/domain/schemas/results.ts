/**
 * Monitoring results (docs/wire-format.md#results). These describe txmon's output; they
 * are used for types and documentation, not to validate client input.
 */
import { Type, type Static } from '@sinclair/typebox';
import { RULE_HIT_DIRECTIONS, RULE_LABELS, RULE_NATURES } from '../enums.js';
import { defineFreeObject, defineOpenObject, defineStringEnum } from './common.js';
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

/** Response of `POST /transactions`. `status` is always present (`ALLOW` when nothing hit). */
export const TransactionMonitoringResultSchema = defineOpenObject({
  transactionId: Type.String(),
  status: RuleActionSchema,
  riskScoreDetails: Type.Optional(RiskScoreDetailsSchema),
  executedRules: Type.Array(ExecutedRuleResultSchema),
  hitRules: Type.Array(HitRuleDetailsSchema),
  message: Type.Optional(Type.String()),
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
});
/** Response of `POST /events/transaction`. */
export type TransactionEventMonitoringResult = Static<typeof TransactionEventMonitoringResultSchema>;
