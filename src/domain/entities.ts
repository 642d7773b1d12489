/**
 * The domain's entities: what txmon keeps and returns besides transactions and users — rule
 * instances, monitoring results, alerts, cases, comments and lists. Every layer imports them from
 * here; the repositories store them.
 */
import type { CaseStatus, RuleAction, RuleNature } from './enums.js';
import type { ExecutedRuleResult, HitRuleDetails, ResultAlert, ResultWarning, RiskScoreDetails } from './schemas/results.js';
import type { ListSubtype } from './schemas/list.js';
import type { BusinessUser, ConsumerUser } from './schemas/user.js';
import type { RiskLevel } from './enums.js';
import type { Assignment, StatusChange } from './schemas/workflow.js';

export type { RuleInstance } from './schemas/rule-instance.js';

/** What rule evaluation produced for a transaction or an event. */
export interface MonitoringResult {
  executedRules: ExecutedRuleResult[];
  hitRules: HitRuleDetails[];
  status: RuleAction;
  riskScoreDetails?: RiskScoreDetails;
  /** txmon: present when something needs the host's attention, e.g. a rule not evaluated (docs/wire-format.md#not-evaluated). */
  warnings?: ResultWarning[];
  /**
   * txmon's addition: the alerts this transaction's or event's hits opened or were appended to, in
   * hit order, each once (see docs/alerts-and-cases.md). Absent when it names none: no hit of an
   * instance that creates alerts (a shadow hit, an import-only write, a hit without a user).
   */
  alerts?: ResultAlert[];
}

/** `CONSUMER` or `BUSINESS`. */
export type UserType = 'CONSUMER' | 'BUSINESS';

/** An alert: one rule instance's hits on one user, collected while it is open. */
export interface Alert {
  alertId: string;
  caseId: string;
  createdTimestamp: number;
  updatedAt: number;
  alertStatus: CaseStatus;
  priority: 'P1' | 'P2' | 'P3' | 'P4';
  userId: string;
  direction: 'ORIGIN' | 'DESTINATION';
  /**
   * `TRANSACTION`: a transaction rule's alert, listing the hit transactions; `USER`: a user rule's
   * alert, whose hits are on the user itself (`transactionIds` stays empty).
   */
  entityDetails: { type: 'TRANSACTION' | 'USER'; transactionIds: string[] };
  ruleDetails: { id: string; name: string; description: string; instanceId: string; action: RuleAction; nature: RuleNature };
  /** The analysts it is assigned to (Flagright's `assignments`); absent until assigned. */
  assignments?: Assignment[];
  /** Its latest status change; absent while it never changed status. */
  lastStatusChange?: StatusChange;
  /** The change that last closed it (kept after a reopen); absent while it never closed. */
  closingReason?: StatusChange;
  /**
   * The due date (epoch ms): creation plus the engine's SLA for its current priority (engine
   * option `slaHours`). Computed when read, never stored: a priority change moves it.
   */
  slaDueTimestamp?: number;
}

/** A case: the open alerts of one user (with case grouping `COUNTERPARTIES`, of the users of one scheme). */
export interface Case {
  caseId: string;
  createdTimestamp: number;
  updatedAt: number;
  caseStatus: CaseStatus;
  priority: 'P1' | 'P2' | 'P3' | 'P4';
  alertIds: string[];
  /** The user the case opened for (its first alert's). */
  entityDetails: { type: 'USER'; userId: string };
  /**
   * Every user with an alert in the case, in the order they joined (`entityDetails.userId` first);
   * present only when there are two or more, which only case grouping `COUNTERPARTIES` makes.
   */
  userIds?: string[];
  /** The analysts it is assigned to (Flagright's `assignments`); absent until assigned. */
  assignments?: Assignment[];
  /** Its latest status change; absent while it never changed status. */
  lastStatusChange?: StatusChange;
  /** The change that last closed it (kept after a reopen); absent while it never closed. */
  closingReason?: StatusChange;
  /**
   * The due date (epoch ms): creation plus the engine's SLA for its current priority (engine
   * option `slaHours`). Computed when read, never stored: a priority change moves it.
   */
  slaDueTimestamp?: number;
}

/** A file attached to a comment, as returned (with a download link). */
export interface CommentFileLink {
  s3Key: string;
  filename: string;
  size: number;
  downloadLink: string;
}

/** A comment on a user, a case or an alert. */
export interface Comment {
  commentId: string;
  body: string;
  files: Omit<CommentFileLink, 'downloadLink'>[];
  createdTimestamp: number;
  updatedTimestamp: number;
}

/** What a comment is attached to. */
export interface CommentTarget {
  kind: 'user' | 'case' | 'alert';
  id: string;
}

/** A list of values as stored (see `ListRequest`). Items are kept unique, in first-seen order. */
export interface StoredList {
  listId: string;
  listType: 'BLACKLIST' | 'WHITELIST';
  subtype: ListSubtype;
  name?: string;
  description?: string;
  items: string[];
  createdAt: number;
  updatedAt: number;
}

/** A list without its items, as `listLists` returns it. */
export type ListSummary = Omit<StoredList, 'items'> & { itemCount: number };

/** A user as stored: the host's profile (when created) and txmon's risk state. */
export interface StoredUser {
  userId: string;
  /** `null` for a user only seen as a party of transactions. */
  type: UserType | null;
  profile: ConsumerUser | BusinessUser | null;
  /** Dynamic customer risk (CRA) score 0–100, when computed. */
  craScore: number | null;
  craRiskLevel: RiskLevel | null;
  /** Epoch ms of the first time txmon saw the user (created or in a transaction). */
  firstSeenAt: number;
  updatedAt: number;
  /**
   * The results of the user rules at the user's latest creation or user event (absent before any:
   * a user only seen in transactions, or stored by an older txmon).
   */
  ruleResults?: UserRuleResults;
}

/** What the user rules answered for one creation or user event of a user. */
export interface UserRuleResults {
  executedRules: ExecutedRuleResult[];
  hitRules: HitRuleDetails[];
}
