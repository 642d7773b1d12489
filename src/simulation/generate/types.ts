/**
 * The generator's vocabulary: typologies, labels, the drafts of transactions and events before
 * their ids are given, and the records the generator yields.
 */
import type { PaymentDetails, Transaction, TransactionEvent, TransactionState } from '../../domain/index.js';

/** The injected typologies, in the order the planner deals schemes out (docs/typologies.md). */
export const TYPOLOGIES = ['structuring', 'fan_in', 'fan_out', 'pass_through', 'dormancy_burst', 'round_amounts', 'high_risk_corridor', 'cycle'] as const;
/** One of {@link TYPOLOGIES}. */
export type Typology = (typeof TYPOLOGIES)[number];

/** Which injected scheme a transaction or an account belongs to. */
export interface SchemeLabel {
  readonly typology: Typology;
  /** The scheme's id, e.g. `s-0007`: groups the accounts and transactions of one injected scheme. */
  readonly scheme: string;
}

/** One row of the labels file. */
export interface LabelRow extends SchemeLabel {
  readonly level: 'transaction' | 'user';
  /** The transactionId or userId. */
  readonly id: string;
}

/** One side of a transaction: who (a customer's user id, or nobody for an external party), where, how. */
export interface Side {
  readonly userId?: string;
  readonly country: string;
  readonly currency: string;
  readonly payment?: PaymentDetails;
}

/** A later event of a drafted transaction. */
export interface DraftEventSpec {
  /** Epoch ms; always after the transaction's own timestamp. */
  readonly timestamp: number;
  readonly transactionState: TransactionState;
  readonly reason?: string;
  readonly updatedTransactionAttributes?: Record<string, unknown>;
}

/** A transaction as drafted: the wire body without its id, which is given when it is written (in time order). */
export interface DraftTransaction {
  readonly kind: 'transaction';
  readonly timestamp: number;
  /** Tie-break between equal timestamps: the order of drafting, unique within a run. */
  readonly order: number;
  /** The wire body except `transactionId` (inserted after `type` when written). */
  readonly body: Omit<Transaction, 'transactionId'>;
  readonly events: readonly DraftEventSpec[];
  readonly label: SchemeLabel | null;
  /** Given when the transaction is written; its events read it. */
  transactionId?: string;
}

/** A drafted event waiting for its time. */
export interface DraftEvent {
  readonly kind: 'event';
  readonly timestamp: number;
  readonly order: number;
  readonly transaction: DraftTransaction;
  readonly spec: DraftEventSpec;
}

/** Anything waiting in the timeline. */
export type Draft = DraftTransaction | DraftEvent;

/** A record of the generated history, in time order. */
export type HistoryRecord =
  | { readonly kind: 'transaction'; readonly transaction: Transaction; readonly label: SchemeLabel | null }
  | { readonly kind: 'event'; readonly event: TransactionEvent };
