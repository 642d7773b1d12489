import { Type, type Static } from '@sinclair/typebox';
import { toScaled } from '../../domain/money.js';
import { defineRule } from '../define-rule.js';
import { amountEvidence, seenEvidence } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import { getPreviousDouble } from '../kits/anomaly.js';
import { amountThresholdsSchema, resolveThreshold } from '../parameters.js';
import type { AggregateNeed, RuleCheckContext, RuleHit, RuleUser } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionAmountThreshold: Type.Optional(
      amountThresholdsSchema({
        title: 'Minimum amount',
        description:
          'When set (and not empty), the transaction only hits when its origin amount is at or above this threshold. Other currencies are converted into the first listed one; without a rate it does not hit.',
      }),
    ),
  },
  { additionalProperties: false, title: 'R-88 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

/** Need name: the sender's earlier sending transactions from the current IP country. */
const SEEN = 'R-88:seen';

/**
 * The countries a consumer sender is expected to connect from: residence, nationality and
 * secondary nationalities of its profile. `null` when the sender is not a stored consumer.
 */
function expectedCountries(user: RuleUser | null): Set<string> | null {
  if (user?.type !== 'CONSUMER' || !user.profile) return null;
  const out = new Set<string>();
  const details = user.profile.userDetails;
  if (typeof details !== 'object' || details === null) return out;
  const d = details as Record<string, unknown>;
  for (const c of [d.countryOfResidence, d.countryOfNationality]) if (typeof c === 'string') out.add(c);
  if (Array.isArray(d.secondaryCountryOfNationality)) {
    for (const c of d.secondaryCountryOfNationality) if (typeof c === 'string') out.add(c);
  }
  return out;
}

/**
 * Whether the origin amount meets the optional threshold: `false` when it does not, `true` when no
 * threshold is set, and the amount's evidence (`amount >= threshold`, R-2's item) when it meets one.
 */
function meetsThreshold(parameters: Parameters, context: Pick<RuleCheckContext<Parameters>, 'transaction' | 'money'>): boolean | RuleEvidence {
  const thresholds = parameters.transactionAmountThreshold;
  if (!thresholds || Object.keys(thresholds).length === 0) return true;
  const details = context.transaction.originAmountDetails;
  if (!details) return false;
  const scaled = toScaled(details.transactionAmount);
  const resolved = resolveThreshold(thresholds, scaled, details.transactionCurrency, context.money, context.transaction.timestamp);
  if (resolved === null || resolved.amount < resolved.threshold) return false;
  return amountEvidence('ORIGIN', 'amount', resolved, '>=', { amount: scaled, currency: details.transactionCurrency });
}

/**
 * R-88 Unexpected IP address for user: a consumer sender connects from an IP country
 * (`originDeviceData.ipCountry`) that is neither its country of residence nor of nationality (nor
 * a secondary nationality) and that none of its earlier sending transactions came from — an
 * account-takeover and unexpected-geography signal (FATF Recommendation 10, ongoing due
 * diligence: activity inconsistent with the customer profile). Optionally only at or above an
 * amount. Hits the sender (ORIGIN).
 *
 * Decisions:
 * - Only a sender stored as a CONSUMER (with a profile) is checked; business senders, users only
 *   seen in transactions and external senders are not.
 * - The IP country is the one the host sends (`originDeviceData.ipCountry`): no geo-IP lookup of
 *   `ipAddress`, so a transaction without `ipCountry` does not hit.
 * - A consumer without residence or nationality has no expected country: only its sending history
 *   makes a country expected, so its first transaction with an IP country hits (fail closed).
 * - History: all the sender's sending transactions strictly before this one's timestamp (one at the
 *   same instant does not count, whichever arrived first), this transaction excluded, with the instance's
 *   historical filters. A first transaction ever hits when its IP country is not an expected one.
 */
export const r88UnexpectedIpCountry = defineRule({
  id: 'R-88',
  name: 'Unexpected IP address for user',
  description: 'A consumer sends from an IP address country that is not its country of residence or nationality and that it never sent from before.',
  descriptionTemplate:
    'Sender sent from IP address country {{country}}, which is neither a country of residence or nationality of the sender nor a country of its earlier sending transactions.',
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['IP address country', 'User details'],
  types: ['New activity'],
  typologies: ['Account takeover fraud', 'Unusual behaviour'],
  series: ['user-sending'],
  aggregates({ transaction }): AggregateNeed[] {
    const user = transaction.originUserId;
    const country = transaction.originDeviceData?.ipCountry;
    if (!user || country === undefined) return [];
    // Ending strictly earlier: transactions at the same instant never make each other "known", so
    // the decision does not depend on which of them arrived first.
    const end = getPreviousDouble(transaction.timestamp);
    return [
      createNeed(SEEN, 'user-sending', user, Number.NEGATIVE_INFINITY, end, 'countIn', transaction.transactionId, false, {
        field: 'ipCountry',
        values: [country],
      }),
    ];
  },
  check(context): RuleHit[] {
    const { transaction, parameters, originUser, aggregates } = context;
    const country = transaction.originDeviceData?.ipCountry;
    if (!transaction.originUserId || country === undefined) return [];
    const expected = expectedCountries(originUser);
    if (expected === null || expected.has(country)) return [];
    const seen = aggregates[SEEN];
    if (typeof seen !== 'number' || seen > 0) return [];
    const amount = meetsThreshold(parameters, context);
    if (amount === false) return [];
    // No earlier sending transaction from this IP country, and none of the sender's profile
    // countries (residence, nationalities) is it: the profile's countries are not copied (personal data).
    const evidence: RuleEvidence[] = [
      seenEvidence('ORIGIN', 'ipCountry', country, seen),
      { direction: 'ORIGIN', kind: 'profileCountry', field: 'ipCountry', fieldValue: country, value: 0, comparison: '=', limit: 0 } as RuleEvidence,
    ];
    if (amount !== true) evidence.push(amount);
    return [{ direction: 'ORIGIN', vars: { country }, evidence }];
  },
});
