import { cloneJson, deepFreeze } from '../domain/json.js';
import { configurationError } from '../errors.js';
import { isUserRule, prepareHostRule } from './define-rule.js';
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
import { txm1PassThrough } from './library/txm-1-pass-through.js';
import { txm3UnusualAmount } from './library/txm-3-unusual-amount.js';
import { txm2FundsReturnedToOrigin } from './library/txm-2-funds-returned-to-origin.js';
import { txm4ScatterGather } from './library/txm-4-scatter-gather.js';
import { r20UserOnboardedHighRiskCountry } from './library/r-20-user-onboarded-high-risk-country.js';
import { r61UserAddressChange } from './library/r-61-user-address-change.js';
import type { AnyRule, AnyRuleDefinition, AnyUserRuleDefinition, RuleDefinition, RuleView, UserRuleDefinition } from './types.js';

/**
 * The library's rules by id, in id order. Keyed by the literal ids so that the ids and each rule's
 * parameters are types ({@link LibraryRuleId}, {@link LibraryRuleParameters}); a test checks each
 * key is its rule's id.
 */
const LIBRARY_BY_ID = {
  'R-1': r1FirstTransaction,
  'R-2': r2TransactionAmount,
  'R-3': r3NewCountry,
  'R-4': r4NewCurrency,
  'R-5': r5DormantAccount,
  'R-6': r6HighRiskCurrency,
  'R-7': r7LowValueIncomingTransactions,
  'R-8': r8LowValueOutgoingTransactions,
  'R-9': r9ManySendersOneCounterparty,
  'R-10': r10ManyCounterpartiesOneUser,
  'R-11': r11TransactionAnomaly,
  'R-12': r12TransactionsFrequencyAnomaly,
  'R-13': r13BlacklistedWalletName,
  'R-14': r14HighRiskCountry,
  'R-22': r22BlacklistedCardCountry,
  'R-24': r24BlacklistedReference,
  'R-25': r25AverageTransactionValueSpike,
  'R-26': r26RoundAmountAnomaly,
  'R-27': r27TotalVolumeExceedsPastPeriod,
  'R-30': r30HighVelocityUser,
  'R-41': r41OutflowInflowVolume,
  'R-52': r52SameIpManyUsers,
  'R-53': r53SamePaymentIdentifierManyUsers,
  'R-55': r55SenderManyPaymentIdentifiers,
  'R-69': r69MoneyFlowVolume,
  'R-77': r77HighRiskCountryTransactions,
  'R-87': r87HighRiskIpCountry,
  'R-88': r88UnexpectedIpCountry,
  'R-94': r94PaymentIdentifierFrequency,
  'R-117': r117AmountPattern,
  'R-118': r118AccountNameMismatch,
  'R-119': r119PairVelocity,
  'R-120': r120AverageAmountExceedsPastPeriod,
  'R-121': r121AverageDailyCountExceedsPastPeriod,
  'R-122': r122AverageDailyAmountExceedsPastPeriod,
  'R-123': r123CounterpartyCountries,
  'R-124': r124RoundTransactions,
  'R-125': r125UnsuccessfulStateTransactions,
  'R-126': r126PairVolume,
  'R-129': r129BlacklistedPaymentDetails,
  'R-130': r130RoundTransactionsSameUser,
  'R-131': r131TransactionsExceedPastPeriod,
  'R-132': r132BlacklistedTransactionValue,
  // txmon's own rules (not in Flagright's library), after the R-n ones.
  'TXM-1': txm1PassThrough,
  'TXM-2': txm2FundsReturnedToOrigin,
  'TXM-3': txm3UnusualAmount,
  'TXM-4': txm4ScatterGather,
} as const;

/** Id of a rule the library ships: `'R-1' | 'R-2' | …` (Flagright's library), then `'TXM-2' | …` (txmon's own). */
export type LibraryRuleId = keyof typeof LIBRARY_BY_ID;

/** The parameters a rule takes, from its `parametersSchema`. */
export type RuleParametersOf<R> = R extends RuleDefinition<infer P> ? P : never;

/** The parameters of each library rule, by id (what its `parametersSchema` describes). */
export type LibraryRuleParameters = { [K in LibraryRuleId]: RuleParametersOf<(typeof LIBRARY_BY_ID)[K]> };

/** The ids of the rules the library ships, in id order. */
export const LIBRARY_RULE_IDS: readonly LibraryRuleId[] = Object.freeze(Object.keys(LIBRARY_BY_ID) as LibraryRuleId[]);

const LIBRARY: readonly AnyRuleDefinition[] = Object.freeze(Object.values(LIBRARY_BY_ID));

// Templates are read-only: their defaults are frozen so no instance or caller can change them.
for (const rule of LIBRARY) deepFreeze(rule.defaultParameters);

/** The transaction rules txmon ships, in id order. */
export const LIBRARY_RULES: readonly AnyRuleDefinition[] = LIBRARY;

/** The library's user rules (`type: 'USER'`) by id, in id order. */
const LIBRARY_USER_BY_ID = {
  'R-20': r20UserOnboardedHighRiskCountry,
  'R-61': r61UserAddressChange,
} as const;

/** Id of a user rule the library ships: `'R-20' | 'R-61'`. */
export type LibraryUserRuleId = keyof typeof LIBRARY_USER_BY_ID;

/** The parameters of each library user rule, by id. */
export type LibraryUserRuleParameters = { [K in LibraryUserRuleId]: UserRuleParametersOf<(typeof LIBRARY_USER_BY_ID)[K]> };

/** The parameters a user rule takes, from its `parametersSchema`. */
export type UserRuleParametersOf<R> = R extends UserRuleDefinition<infer P> ? P : never;

/** The user rules txmon ships (run on user creation and user events), in id order. */
export const LIBRARY_USER_RULES: readonly AnyUserRuleDefinition[] = Object.freeze(Object.values(LIBRARY_USER_BY_ID));

for (const rule of LIBRARY_USER_RULES) deepFreeze(rule.defaultParameters);

/** Rules by id: the library plus a host's own, transaction rules and user rules. */
export interface RuleRegistry {
  /** The transaction rule with this id (`undefined` for a user rule's id). */
  get(id: string): RuleDefinition<unknown> | undefined;
  /** The user rule with this id (`undefined` for a transaction rule's id). */
  getUserRule(id: string): UserRuleDefinition<unknown> | undefined;
  /** The rule of either kind with this id. */
  find(id: string): AnyRule | undefined;
  /** Every rule of both kinds, in id order. */
  list(): readonly AnyRule[];
  /** The JSON form shown by `listRules()` / `GET /rules`. */
  view(rule: AnyRule): RuleView;
}

/**
 * Builds the registry of rules an engine can instantiate: the library plus a host's own rules,
 * each checked as `defineRule` checks a rule (and, in development, with its `aggregates` checked
 * against the series it declares on every call).
 * @throws TxmonError `INVALID_CONFIGURATION` when a host rule's declaration is wrong (the message
 *   names the rule and the field) or two rules share an id.
 */
export function createRuleRegistry(extra: readonly AnyRule[] = []): RuleRegistry {
  const byId = new Map<string, AnyRule>();
  const rules: AnyRule[] = [...LIBRARY_RULES, ...LIBRARY_USER_RULES, ...extra.map(prepareHostRule)];
  for (const rule of rules) {
    if (byId.has(rule.id)) throw configurationError('createEngine', `duplicate rule id ${rule.id}`);
    byId.set(rule.id, rule);
  }
  const list = [...byId.values()].sort(compareRuleIds);
  const views = new Map<AnyRule, RuleView>();
  return {
    get(id) {
      const rule = byId.get(id);
      return rule === undefined || isUserRule(rule) ? undefined : (rule as RuleDefinition<unknown>);
    },
    getUserRule(id) {
      const rule = byId.get(id);
      return rule !== undefined && isUserRule(rule) ? (rule as UserRuleDefinition<unknown>) : undefined;
    },
    find: (id) => byId.get(id),
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

/** Flagright's R-n by number, then txmon's own TXM-n by number, then a host's rules by id. */
function compareRuleIds(a: AnyRule, b: AnyRule): number {
  const ra = rankOf(a.id);
  const rb = rankOf(b.id);
  if (ra[0] !== rb[0]) return ra[0] - rb[0];
  if (ra[0] < 2) return ra[1] - rb[1];
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function rankOf(id: string): readonly [number, number] {
  const r = /^R-(\d+)$/.exec(id);
  if (r) return [0, Number(r[1])];
  const t = /^TXM-(\d+)$/.exec(id);
  return t ? [1, Number(t[1])] : [2, 0];
}

function toView(rule: AnyRule): RuleView {
  return {
    id: rule.id,
    type: isUserRule(rule) ? 'USER' : 'TRANSACTION',
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
    stateful: !isUserRule(rule) && rule.series.length > 0,
  };
}
