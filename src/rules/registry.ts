import { cloneJson, deepFreeze } from '../domain/json.js';
import { configurationError } from '../errors.js';
import { prepareHostRule } from './define-rule.js';
import { r1FirstTransaction } from './library/r-1-first-transaction.js';
import { r2TransactionAmount } from './library/r-2-transaction-amount.js';
import { r3NewCountry } from './library/r-3-new-country.js';
import { r4NewCurrency } from './library/r-4-new-currency.js';
import { r5DormantAccount } from './library/r-5-dormant-account.js';
import { r6HighRiskCurrency } from './library/r-6-high-risk-currency.js';
import { r7LowValueIncomingTransactions } from './library/r-7-low-value-incoming-transactions.js';
import { r8LowValueOutgoingTransactions } from './library/r-8-low-value-outgoing-transactions.js';
import { r9ManySendersOneCounterparty } from './library/r-9-many-senders-one-counterparty.js';
import { r10ManyCounterpartiesOneUser } from './library/r-10-many-counterparties-one-user.js';
import { r11TransactionAnomaly } from './library/r-11-transaction-anomaly.js';
import { r12TransactionsFrequencyAnomaly } from './library/r-12-transactions-frequency-anomaly.js';
import { r13BlacklistedWalletName } from './library/r-13-blacklisted-wallet-name.js';
import { r14HighRiskCountry } from './library/r-14-high-risk-country.js';
import { r22BlacklistedCardCountry } from './library/r-22-blacklisted-card-country.js';
import { r24BlacklistedReference } from './library/r-24-blacklisted-reference.js';
import { r25AverageTransactionValueSpike } from './library/r-25-average-transaction-value-spike.js';
import { r26RoundAmountAnomaly } from './library/r-26-round-amount-anomaly.js';
import { r27TotalVolumeExceedsPastPeriod } from './library/r-27-total-volume-exceeds-past-period.js';
import { r30HighVelocityUser } from './library/r-30-high-velocity-user.js';
import { r41OutflowInflowVolume } from './library/r-41-outflow-inflow-volume.js';
import { r52SameIpManyUsers } from './library/r-52-same-ip-many-users.js';
import { r53SamePaymentIdentifierManyUsers } from './library/r-53-same-payment-identifier-many-users.js';
import { r55SenderManyPaymentIdentifiers } from './library/r-55-sender-many-payment-identifiers.js';
import { r69MoneyFlowVolume } from './library/r-69-money-flow-volume.js';
import { r77HighRiskCountryTransactions } from './library/r-77-high-risk-country-transactions.js';
import { r87HighRiskIpCountry } from './library/r-87-high-risk-ip-country.js';
import { r88UnexpectedIpCountry } from './library/r-88-unexpected-ip-country.js';
import { r94PaymentIdentifierFrequency } from './library/r-94-payment-identifier-frequency.js';
import { r117AmountPattern } from './library/r-117-amount-pattern.js';
import { r118AccountNameMismatch } from './library/r-118-account-name-mismatch.js';
import { r119PairVelocity } from './library/r-119-pair-velocity.js';
import { r120AverageAmountExceedsPastPeriod } from './library/r-120-average-amount-exceeds-past-period.js';
import { r121AverageDailyCountExceedsPastPeriod } from './library/r-121-average-daily-count-exceeds-past-period.js';
import { r122AverageDailyAmountExceedsPastPeriod } from './library/r-122-average-daily-amount-exceeds-past-period.js';
import { r123CounterpartyCountries } from './library/r-123-counterparty-countries.js';
import { r124RoundTransactions } from './library/r-124-round-transactions.js';
import { r125UnsuccessfulStateTransactions } from './library/r-125-unsuccessful-state-transactions.js';
import { r126PairVolume } from './library/r-126-pair-volume.js';
import { r129BlacklistedPaymentDetails } from './library/r-129-blacklisted-payment-details.js';
import { r130RoundTransactionsSameUser } from './library/r-130-round-transactions-same-user.js';
import { r131TransactionsExceedPastPeriod } from './library/r-131-transactions-exceed-past-period.js';
import { r132BlacklistedTransactionValue } from './library/r-132-blacklisted-transaction-value.js';
import type { AnyRuleDefinition, RuleDefinition, RuleView } from './types.js';

const LIBRARY: readonly AnyRuleDefinition[] = Object.freeze([
  r1FirstTransaction,
  r2TransactionAmount,
  r3NewCountry,
  r4NewCurrency,
  r5DormantAccount,
  r6HighRiskCurrency,
  r7LowValueIncomingTransactions,
  r8LowValueOutgoingTransactions,
  r9ManySendersOneCounterparty,
  r10ManyCounterpartiesOneUser,
  r11TransactionAnomaly,
  r12TransactionsFrequencyAnomaly,
  r13BlacklistedWalletName,
  r14HighRiskCountry,
  r22BlacklistedCardCountry,
  r24BlacklistedReference,
  r25AverageTransactionValueSpike,
  r26RoundAmountAnomaly,
  r27TotalVolumeExceedsPastPeriod,
  r30HighVelocityUser,
  r41OutflowInflowVolume,
  r52SameIpManyUsers,
  r53SamePaymentIdentifierManyUsers,
  r55SenderManyPaymentIdentifiers,
  r69MoneyFlowVolume,
  r77HighRiskCountryTransactions,
  r87HighRiskIpCountry,
  r88UnexpectedIpCountry,
  r94PaymentIdentifierFrequency,
  r117AmountPattern,
  r118AccountNameMismatch,
  r119PairVelocity,
  r120AverageAmountExceedsPastPeriod,
  r121AverageDailyCountExceedsPastPeriod,
  r122AverageDailyAmountExceedsPastPeriod,
  r123CounterpartyCountries,
  r124RoundTransactions,
  r125UnsuccessfulStateTransactions,
  r126PairVolume,
  r129BlacklistedPaymentDetails,
  r130RoundTransactionsSameUser,
  r131TransactionsExceedPastPeriod,
  r132BlacklistedTransactionValue,
]);

// Templates are read-only: their defaults are frozen so no instance or caller can change them.
for (const rule of LIBRARY) deepFreeze(rule.defaultParameters);

/** The rules txmon ships, in id order. */
export const LIBRARY_RULES: readonly AnyRuleDefinition[] = LIBRARY;

/** Rules by id: the library plus a host's own. */
export interface RuleRegistry {
  get(id: string): RuleDefinition<unknown> | undefined;
  list(): readonly RuleDefinition<unknown>[];
  /** The JSON form shown by `listRules()` / `GET /rules`. */
  view(rule: RuleDefinition<unknown>): RuleView;
}

/**
 * Builds the registry of rules an engine can instantiate: the library plus a host's own rules,
 * each checked as `defineRule` checks a rule (and, in development, with its `aggregates` checked
 * against the series it declares on every call).
 * @throws TxmonError `INVALID_CONFIGURATION` when a host rule's declaration is wrong (the message
 *   names the rule and the field) or two rules share an id.
 */
export function createRuleRegistry(extra: readonly AnyRuleDefinition[] = []): RuleRegistry {
  const byId = new Map<string, RuleDefinition<unknown>>();
  const rules = [...LIBRARY_RULES, ...extra.map(prepareHostRule)] as unknown as RuleDefinition<unknown>[];
  for (const rule of rules) {
    if (byId.has(rule.id)) throw configurationError('createEngine', `duplicate rule id ${rule.id}`);
    byId.set(rule.id, rule);
  }
  const list = [...byId.values()].sort(compareRuleIds);
  const views = new Map<RuleDefinition<unknown>, RuleView>();
  return {
    get: (id) => byId.get(id),
    list: () => list,
    view(rule) {
      let v = views.get(rule);
      if (!v) {
        v = toView(rule);
        views.set(rule, v);
      }
      return cloneJson(v);
    },
  };
}

function compareRuleIds(a: RuleDefinition<unknown>, b: RuleDefinition<unknown>): number {
  const na = /^R-(\d+)$/.exec(a.id);
  const nb = /^R-(\d+)$/.exec(b.id);
  if (na && nb) return Number(na[1]) - Number(nb[1]);
  if (na) return -1;
  if (nb) return 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function toView(rule: RuleDefinition<unknown>): RuleView {
  return {
    id: rule.id,
    type: 'TRANSACTION',
    name: rule.name,
    description: rule.description,
    descriptionTemplate: rule.descriptionTemplate,
    // A JSON copy leaves out TypeBox's symbol keys: the plain JSON Schema.
    parametersSchema: cloneJson(rule.parametersSchema) as unknown,
    defaultParameters: cloneJson(rule.defaultParameters ?? {}) as unknown,
    defaultAction: rule.defaultAction,
    defaultNature: rule.defaultNature,
    labels: [...rule.labels],
    defaultCasePriority: rule.defaultCasePriority,
    checksFor: [...rule.checksFor],
    types: [...rule.types],
    typologies: [...rule.typologies],
    stateful: rule.series.length > 0,
  };
}
