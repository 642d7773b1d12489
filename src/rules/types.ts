import type { TSchema } from '@sinclair/typebox';
import type { AggregateQuery, AggregateValue } from '../aggregation/aggregate-store.js';
import type { RateProvider } from '../domain/money.js';
import type { ListSubtype, RiskLevel, RuleAction, RuleEvidence, RuleHitDirection, RuleLabel, RuleNature, Transaction } from '../domain/index.js';
import type { ErrorDetail } from '../errors.js';
import type { DerivedSeriesName, SeriesName } from './series.js';

/**
 * What a rule reads about a user: the stored profile (when the host created the user) and its
 * effective risk level. `null` when the transaction has no user on that side.
 */
export interface RuleUser {
  readonly userId: string;
  /** `CONSUMER` or `BUSINESS` when the host created the user; `null` when only seen in transactions. */
  readonly type: 'CONSUMER' | 'BUSINESS' | null;
  /** The profile as the host sent it, or `null`. */
  readonly profile: Readonly<Record<string, unknown>> | null;
  /** Manual `riskLevel` of the profile, else the derived CRA level, else `null`. */
  readonly riskLevel: RiskLevel | null;
  /** Current CRA (dynamic customer risk) score, when known. */
  readonly craScore: number | null;
  /**
   * Ids of the WHITELIST lists (subtype USER_ID) that hold this user, among those the active
   * instances' `whitelistUsers.listIds` filters name. Absent when no filter names one.
   */
  readonly whitelists?: ReadonlySet<string>;
}

/**
 * One windowed aggregate a rule needs, computed over stored history by the aggregate repository.
 * A need is itself a valid repository query ({@link AggregateQuery}): the engine passes the needs
 * of a transaction to `aggregates.queryAggregates()` unchanged. `excludeId` (the transaction itself) keeps
 * its stored, earlier version out; `includeCurrent` adds its current contribution instead (the
 * usual "including the current transaction" of velocity rules).
 */
export interface AggregateNeed extends AggregateQuery {
  /** Name the rule reads the value under in {@link RuleCheckContext.aggregates}. */
  readonly name: string;
  /** A built-in series; the engine renames it to a derived one for instances with historical filters. */
  readonly series: SeriesName | DerivedSeriesName;
  /** Key within the series (a user id, a pair, an identifier). A rule asks for no need without a key. */
  readonly key: string;
  readonly includeCurrent: boolean;
}

/**
 * A value a rule asks to look up in a list of the list repository (blacklists, whitelists): found
 * when list `listId` has type `listType` and subtype `subtype` and holds `value`. The check reads the answer under `name`
 * in {@link RuleCheckContext.lookups}.
 */
export interface LookupNeed {
  readonly name: string;
  readonly listId: string;
  /** Only a list of this type answers (a blacklist rule never matches a whitelist). */
  readonly listType: 'BLACKLIST' | 'WHITELIST';
  readonly subtype: ListSubtype;
  readonly value: string;
}

/** Money settings a rule needs for thresholds and conversions. */
export interface MoneyContext {
  readonly rates: RateProvider;
  /** Currency in which windowed sums are kept. */
  readonly baseCurrency: string;
}

/**
 * Input of a rule's pure check: a new object on every call, which the rule may keep (its
 * `aggregates` and `lookups` objects are its own too).
 */
export interface RuleCheckContext<P> {
  readonly transaction: Transaction;
  readonly parameters: P;
  readonly originUser: RuleUser | null;
  readonly destinationUser: RuleUser | null;
  /** The values of the needs the rule declared, by need name. */
  readonly aggregates: Readonly<Record<string, AggregateValue>>;
  readonly money: MoneyContext;
  /**
   * Whether the current transaction passes the instance's historical filters (true when it has
   * none). A rule that adds the current transaction to its aggregates itself (rather than through
   * `includeCurrent`) must do so only when this is true: its aggregates count only the
   * transactions the filters accept, and the current one is held to the same filters. Absent = true.
   */
  readonly currentCounts?: boolean;
  /** Answers of the rule's {@link LookupNeed}s by need name (`true` = found). Absent or `undefined` when it has none. */
  readonly lookups?: Readonly<Record<string, boolean>>;
}

/** One side a rule hit on, with values for its description. */
export interface RuleHit {
  readonly direction: RuleHitDirection;
  /** Values substituted into the rule's `descriptionTemplate` (`{{name}}`). */
  readonly vars?: Readonly<Record<string, string | number>>;
  /**
   * What the hit rests on, for an analyst to check: each comparison that held on this side
   * (docs/evidence.md), every item's `direction` this hit's. The engine lists them, origin side
   * first, in the result's `ruleHitMeta.evidence`, and freezes each item and the objects and
   * arrays it holds in place (results are deeply frozen). Absent: the rule gives none.
   */
  readonly evidence?: readonly RuleEvidence[];
}

/** Input of a rule's aggregate planner. */
export interface RulePlanContext<P> {
  readonly transaction: Transaction;
  readonly parameters: P;
}

/**
 * A rule (template): read-only, id `R-n`, turned into live rule instances by configuration.
 * The check is pure: everything it reads comes through the context. Declare one with
 * `defineRule` (src/rules/define-rule.ts), which checks the declaration; docs/writing-rules.md
 * describes every field.
 */
export interface RuleDefinition<P = Record<string, unknown>> {
  /** A transaction rule: `TRANSACTION` or absent (see {@link UserRuleDefinition} for user rules). */
  readonly type?: 'TRANSACTION';
  /** `R-n` for library rules; hosts may register their own ids. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Text rendered into `ruleDescription` on a hit; `{{var}}` placeholders come from {@link RuleHit.vars}. */
  readonly descriptionTemplate: string;
  /** JSON Schema (with titles and descriptions) of the instance `parameters`. */
  readonly parametersSchema: TSchema;
  /**
   * Checks of the parameters that a JSON Schema cannot express, such as a limit on a keyword's
   * length after Unicode normalisation or on the work a parameter set makes every check do. Run
   * when an instance is created or updated, after {@link parametersSchema} accepted the
   * parameters, for `parameters` and for each level of `riskLevelParameters`. Returns one detail
   * per problem (empty when there is none), each `path` a JSON Pointer inside the parameters
   * object (`/keywords/3`); the engine prefixes where they sit (`/parameters`,
   * `/riskLevelParameters/HIGH`) and refuses the instance with `INVALID_PARAMETERS`. Absent: the
   * schema is the whole check.
   */
  validateParameters?(parameters: P): readonly ErrorDetail[];
  readonly defaultParameters: P;
  readonly defaultAction: RuleAction;
  readonly defaultNature: RuleNature;
  readonly labels: readonly RuleLabel[];
  readonly defaultCasePriority: 'P1' | 'P2' | 'P3' | 'P4';
  /** What the rule looks at, e.g. `Transaction amount`. */
  readonly checksFor: readonly string[];
  readonly types: readonly string[];
  readonly typologies: readonly string[];
  /** Series this rule reads; the engine keeps them up to date. Empty for stateless rules. */
  readonly series: readonly SeriesName[];
  /**
   * The series an instance with these parameters reads: a subset of {@link series}. Absent means
   * all of them. The engine keeps only the series some active instance reads (for an instance
   * with per-risk-level parameters, the union over every parameter set), so a rule whose
   * parameters choose its series (e.g. `checkSender: 'sending'` reads `user-sending`, never
   * `user-all`) does not make every transaction pay for series nobody reads. Every need that
   * {@link aggregates} plans for these parameters must name one of these series: a need on another
   * would read a series the engine does not keep. `defineRule` (and the registry, for a host's
   * rule) makes such a plan throw in development; `checkRuleDeclaration` finds it in a test.
   */
  seriesFor?(parameters: P): readonly SeriesName[];
  /**
   * Whether the rule's aggregate needs read entry values (the `field` of `distinct`, `countIn`,
   * `sumIn`). Absent means yes. A rule that only counts, sums or reads amounts and timestamps sets
   * `false`: while no active instance reads values, the engine keeps the user series without them
   * (less work and memory per transaction) and refills them from history when one starts to.
   */
  readonly readsEntryValues?: boolean;
  /** The windowed aggregates the check needs for this transaction and these parameters. */
  aggregates?(context: RulePlanContext<P>): readonly AggregateNeed[];
  /** The list lookups the check needs (answered by the list repository before the check runs). */
  lookups?(context: RulePlanContext<P>): readonly LookupNeed[];
  /** The pure check: zero or more hit sides. */
  check(context: RuleCheckContext<P>): readonly RuleHit[];
}

/**
 * A rule of any parameter type, as a registry holds it (hosts pass their own typed rules).
 * `any` is deliberate: each rule's check is typed by its own parameters, validated at run time by
 * its `parametersSchema` before the check ever sees them.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type AnyRuleDefinition = RuleDefinition<any>;

/**
 * Input of a user rule's pure check (see {@link UserRuleDefinition}): the user as it is now and as
 * it was before this change. A new object on every call, which the rule may keep.
 */
export interface UserRuleCheckContext<P> {
  /** The user after the creation or the event, with its profile (never `null` here). */
  readonly user: RuleUser & { readonly profile: Readonly<Record<string, unknown>> };
  /**
   * The user as stored before this change (its profile `null` when it was only seen in
   * transactions); `null` on the user's first creation.
   */
  readonly previousUser: RuleUser | null;
  readonly parameters: P;
}

/** A user rule's hit, with values for its description. */
export interface UserRuleHit {
  /** Values substituted into the rule's `descriptionTemplate` (`{{name}}`). */
  readonly vars?: Readonly<Record<string, string | number>>;
  /**
   * What the hit rests on (docs/evidence.md), as {@link RuleHit.evidence}: a user rule's hit is on
   * the user, reported as the ORIGIN side, so every item's `direction` is `ORIGIN`. The engine lists
   * them in `ruleHitMeta.evidence` and freezes them in place. Absent: the rule gives none.
   */
  readonly evidence?: readonly RuleEvidence[];
}

/**
 * A user rule (template, `type: 'USER'`): run when a user is created (or created again) and on
 * every user event, against the user after the change and the user before it — never on a
 * transaction. Stateless: it reads no series and no lists. Declare one with `defineUserRule`
 * (src/rules/define-rule.ts); the fields shared with {@link RuleDefinition} mean the same.
 */
export interface UserRuleDefinition<P = Record<string, unknown>> {
  readonly type: 'USER';
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Text rendered into `ruleDescription` on a hit; `{{var}}` placeholders come from {@link UserRuleHit.vars}. */
  readonly descriptionTemplate: string;
  readonly parametersSchema: TSchema;
  /** As {@link RuleDefinition.validateParameters}. */
  validateParameters?(parameters: P): readonly ErrorDetail[];
  readonly defaultParameters: P;
  readonly defaultAction: RuleAction;
  readonly defaultNature: RuleNature;
  readonly labels: readonly RuleLabel[];
  readonly defaultCasePriority: 'P1' | 'P2' | 'P3' | 'P4';
  readonly checksFor: readonly string[];
  readonly types: readonly string[];
  readonly typologies: readonly string[];
  /** The pure check: a hit, or `null` when the rule does not hit. */
  check(context: UserRuleCheckContext<P>): UserRuleHit | null;
}

/** A user rule of any parameter type (see {@link AnyRuleDefinition} for why `any`). */
// biome-ignore lint/suspicious/noExplicitAny: see AnyRuleDefinition
export type AnyUserRuleDefinition = UserRuleDefinition<any>;

/** A rule of either kind: a transaction rule ({@link RuleDefinition}) or a user rule ({@link UserRuleDefinition}). */
export type AnyRule = AnyRuleDefinition | AnyUserRuleDefinition;

/** A rule as `listRules()` / `GET /rules` show it (no functions). */
export interface RuleView {
  id: string;
  /** `TRANSACTION`: run on transactions and their events; `USER`: run on user creation and user events. */
  type: 'TRANSACTION' | 'USER';
  name: string;
  description: string;
  descriptionTemplate: string;
  parametersSchema: unknown;
  defaultParameters: unknown;
  defaultAction: RuleAction;
  defaultNature: RuleNature;
  labels: RuleLabel[];
  defaultCasePriority: string;
  checksFor: string[];
  types: string[];
  typologies: string[];
  stateful: boolean;
}
