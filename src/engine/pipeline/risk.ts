import { Type, type Static } from '@sinclair/typebox';
import { RISK_LEVELS } from '../../domain/index.js';
import type { RiskLevel, Transaction } from '../../domain/index.js';
import { convertScaled, toScaled } from '../../domain/money.js';
import { TxmonError } from '../../errors.js';
import type { MoneyContext, RuleUser } from '../../rules/types.js';
import { collectSchemaErrors } from '../../validation/index.js';
import { DAY_MS } from '../../domain/time.js';
import { nextCraScore, riskLevelScore, scoreToRiskLevel, type RiskBands } from '../../domain/risk-score.js';
import type { RiskScoreDetails, StoredUser } from '../../domain/index.js';
import type { UserUpdate } from '../../domain/user-update.js';

/**
 * The values of a transaction a risk factor can look at (the transaction factors of
 * docs/wire-format.md#risk-scoring). Amounts and ages are numbers matched by ranges; the rest are
 * strings or booleans matched by lists.
 */
export const RISK_PARAMETERS = [
  'originCountry',
  'destinationCountry',
  'originCurrency',
  'destinationCurrency',
  'originPaymentMethod',
  'destinationPaymentMethod',
  'originAmount',
  'destinationAmount',
  'cardIssuedCountry',
  '3dsDone',
  'ipCountry',
  'originMcc',
  'transactionType',
  'transactionHourUtc',
  'originUserAgeOnPlatformDays',
  'destinationUserAgeOnPlatformDays',
] as const;
/** A value a risk factor reads. */
export type RiskParameter = (typeof RISK_PARAMETERS)[number];

const riskLevelSchema = (title?: string) =>
  Type.Union(
    RISK_LEVELS.map((l) => Type.Literal(l)),
    title ? { title } : {},
  );

/** JSON Schema of one risk factor (validated when the engine is created). */
export const RiskFactorSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, title: 'Id' }),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
    parameter: Type.Union(
      RISK_PARAMETERS.map((p) => Type.Literal(p)),
      { title: 'The transaction value the factor reads' },
    ),
    weight: Type.Number({ exclusiveMinimum: 0, maximum: 1000, title: 'Weight in the weighted average' }),
    defaultRiskLevel: Type.Optional(riskLevelSchema('Level when no mapping matches (default VERY_HIGH)')),
    mapping: Type.Array(
      Type.Object(
        {
          riskLevel: riskLevelSchema(),
          values: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Boolean()]), { maxItems: 1000 })),
          min: Type.Optional(Type.Number({ title: 'Inclusive lower bound (ranges)' })),
          max: Type.Optional(Type.Number({ title: 'Exclusive upper bound (ranges)' })),
          currency: Type.Optional(Type.String({ format: 'currency-code', title: 'Currency of an amount range' })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100, title: 'Value → risk level; the first matching entry wins' },
    ),
  },
  { additionalProperties: false },
);
/** A transaction risk factor: which value, its weight, and how values map to risk levels. */
export type RiskFactor = Static<typeof RiskFactorSchema>;

/**
 * Checks risk factors and bands given to `createEngine`.
 * @throws TxmonError `INVALID_CONFIGURATION` naming the path of the first problem.
 */
export function validateRiskConfiguration(factors: unknown, bands: unknown): void {
  if (!Array.isArray(factors)) throw new TxmonError('INVALID_CONFIGURATION', 'createEngine: riskFactors must be an array');
  const ids = new Set<string>();
  factors.forEach((factor, i) => {
    const details = collectSchemaErrors(RiskFactorSchema, factor, `/riskFactors/${i}`);
    if (details.length > 0) {
      throw new TxmonError('INVALID_CONFIGURATION', `createEngine: riskFactors/${i} is invalid (${details[0]?.path} ${details[0]?.message})`, details);
    }
    const f = factor as RiskFactor;
    if (ids.has(f.id)) throw new TxmonError('INVALID_CONFIGURATION', `createEngine: duplicate risk factor id ${f.id}`);
    ids.add(f.id);
  });
  const b = bands as number[];
  const ok = Array.isArray(b) && b.length === 6 && b.every((x, i) => Number.isFinite(x) && (i === 0 || x > (b[i - 1] as number)));
  if (!ok) throw new TxmonError('INVALID_CONFIGURATION', 'createEngine: riskBands must be 6 increasing finite numbers');
}

type Amounts = Transaction['originAmountDetails'];

function ageDays(user: RuleUser | null, at: number): number | undefined {
  const created = (user?.profile as { createdTimestamp?: unknown } | null)?.createdTimestamp;
  return typeof created === 'number' ? (at - created) / DAY_MS : undefined;
}

function parameterValueOf(
  t: Transaction,
  p: RiskParameter,
  origin: RuleUser | null,
  destination: RuleUser | null,
): string | number | boolean | Amounts | undefined {
  const op = t.originPaymentDetails as Record<string, unknown> | undefined;
  switch (p) {
    case 'originCountry':
      return t.originAmountDetails?.country;
    case 'destinationCountry':
      return t.destinationAmountDetails?.country;
    case 'originCurrency':
      return t.originAmountDetails?.transactionCurrency;
    case 'destinationCurrency':
      return t.destinationAmountDetails?.transactionCurrency;
    case 'originPaymentMethod':
      return t.originPaymentDetails?.method;
    case 'destinationPaymentMethod':
      return t.destinationPaymentDetails?.method;
    case 'originAmount':
      return t.originAmountDetails;
    case 'destinationAmount':
      return t.destinationAmountDetails;
    case 'cardIssuedCountry':
      return op?.method === 'CARD' ? (op.cardIssuedCountry as string | undefined) : undefined;
    case '3dsDone':
      return op?.method === 'CARD' ? (op['3dsDone'] as boolean | undefined) : undefined;
    case 'ipCountry':
      return t.originDeviceData?.ipCountry;
    case 'originMcc':
      return op?.method === 'CARD' ? ((op.merchantDetails as { MCC?: string } | undefined)?.MCC ?? undefined) : undefined;
    case 'transactionType':
      return t.type;
    case 'transactionHourUtc':
      return new Date(t.timestamp).getUTCHours();
    case 'originUserAgeOnPlatformDays':
      return ageDays(origin, t.timestamp);
    case 'destinationUserAgeOnPlatformDays':
      return ageDays(destination, t.timestamp);
  }
}

function matches(entry: RiskFactor['mapping'][number], value: string | number | boolean | NonNullable<Amounts>, money: MoneyContext, at: number): boolean {
  if (entry.values !== undefined) return typeof value !== 'object' && entry.values.includes(value as string | boolean);
  let n: number | bigint;
  let min: number | bigint | undefined = entry.min;
  let max: number | bigint | undefined = entry.max;
  if (typeof value === 'object') {
    // An amount range compares exactly, in the range's currency (default: the amount's own).
    const currency = entry.currency ?? value.transactionCurrency;
    const amount = convertScaled(toScaled(value.transactionAmount), value.transactionCurrency, currency, money.rates, at);
    if (amount === null) return false;
    n = amount;
    if (min !== undefined) min = toScaled(min);
    if (max !== undefined) max = toScaled(max);
  } else if (typeof value === 'number') {
    n = value;
  } else {
    return false;
  }
  return (min === undefined || n >= min) && (max === undefined || n < max);
}

/** The level one factor gives a transaction, or `null` when the transaction lacks the value. */
export function riskFactorLevel(
  factor: RiskFactor,
  transaction: Transaction,
  context: { money: MoneyContext; originUser: RuleUser | null; destinationUser: RuleUser | null },
): RiskLevel | null {
  const value = parameterValueOf(transaction, factor.parameter, context.originUser, context.destinationUser);
  if (value === undefined || value === null) return null;
  for (const entry of factor.mapping) {
    if (matches(entry, value as NonNullable<typeof value>, context.money, transaction.timestamp)) return entry.riskLevel;
  }
  return factor.defaultRiskLevel ?? 'VERY_HIGH';
}

/** Result of {@link computeTransactionRisk}. */
export interface TransactionRisk {
  /** Weighted average of the factors' level scores, 0–100, two decimals. */
  readonly trsScore: number;
  readonly trsRiskLevel: RiskLevel;
}

/**
 * The transaction risk score (TRS): the weighted average Σ(score(levelᵢ)·wᵢ)/Σwᵢ of the factors
 * whose value the transaction has (docs/wire-format.md#risk-scoring); `null` when no factor
 * applies. Pure.
 */
export function computeTransactionRisk(
  transaction: Transaction,
  factors: readonly RiskFactor[],
  context: { money: MoneyContext; originUser: RuleUser | null; destinationUser: RuleUser | null; bands?: RiskBands },
): TransactionRisk | null {
  let weighted = 0;
  let weights = 0;
  for (const factor of factors) {
    const level = riskFactorLevel(factor, transaction, context);
    if (level === null) continue;
    weighted += riskLevelScore(level, context.bands) * factor.weight;
    weights += factor.weight;
  }
  if (weights === 0) return null;
  const trsScore = Math.round((weighted / weights) * 100) / 100;
  return { trsScore, trsRiskLevel: scoreToRiskLevel(trsScore, context.bands) };
}

/** What {@link riskScoreDetailsOf} reads besides the transaction. */
export interface RiskScoringInput {
  readonly factors: readonly RiskFactor[];
  readonly bands: RiskBands;
  readonly money: MoneyContext;
  readonly originUser: RuleUser | null;
  readonly destinationUser: RuleUser | null;
  /** The stored users (their CRA and manual risk level). */
  readonly originStored: StoredUser | null | undefined;
  readonly destinationStored: StoredUser | null | undefined;
  /** Whether the transaction is being created: only then does its TRS move the users' CRA. */
  readonly isCreate: boolean;
}

/**
 * `riskScoreDetails` (docs/wire-format.md#risk-scoring) and the CRA observations to store: the TRS
 * of the configured factors, and each user's CRA — moved by the TRS on a transaction's creation
 * (events report it, so one transaction moves a CRA once); a user with a manual `riskLevel` keeps
 * it (score = its band's midpoint). Risk never depends on rule instances, so shadow instances
 * cannot change it (docs/guarantees.md#shadow-instances). Pure.
 */
export function riskScoreDetailsOf(transaction: Transaction, input: RiskScoringInput): { details: RiskScoreDetails | undefined; observations: UserUpdate[] } {
  const { factors, bands } = input;
  const trs =
    factors.length > 0
      ? computeTransactionRisk(transaction, factors, { money: input.money, originUser: input.originUser, destinationUser: input.destinationUser, bands })
      : null;
  const details: RiskScoreDetails = {};
  const observations: UserUpdate[] = [];
  if (trs) {
    details.trsScore = trs.trsScore;
    details.trsRiskLevel = trs.trsRiskLevel;
  }
  const side = (userId: string | undefined, stored: StoredUser | null | undefined) => {
    if (!userId) return null;
    const manual = (stored?.profile as { riskLevel?: RiskLevel } | null | undefined)?.riskLevel;
    if (manual) return { score: riskLevelScore(manual, bands), level: manual };
    let score = stored?.craScore ?? null;
    if (trs && input.isCreate) {
      score = nextCraScore(score, trs.trsScore);
      observations.push({ userId, craObservation: trs.trsScore, craBands: bands });
    }
    return score === null ? null : { score, level: scoreToRiskLevel(score, bands) };
  };
  const origin = side(transaction.originUserId, input.originStored);
  const selfTransfer = transaction.destinationUserId === transaction.originUserId;
  const destination = selfTransfer ? origin : side(transaction.destinationUserId, input.destinationStored);
  if (origin) {
    details.originUserCraRiskScore = origin.score;
    details.originUserCraRiskLevel = origin.level;
  }
  if (destination) {
    details.destinationUserCraRiskScore = destination.score;
    details.destinationUserCraRiskLevel = destination.level;
  }
  return { details: Object.keys(details).length > 0 ? details : undefined, observations };
}
