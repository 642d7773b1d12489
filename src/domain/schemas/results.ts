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

/** Extra facts about a hit. */
export const RuleHitMetaSchema = defineOpenObject({
  hitDirections: Type.Optional(Type.Array(RuleHitDirectionSchema)),
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
