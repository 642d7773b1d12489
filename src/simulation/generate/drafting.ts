/**
 * Turns a described payment into a draft transaction: wire body, amounts on both sides, lifecycle.
 * Normal behaviour and the typologies both draft through here, so an injected transaction has
 * exactly the shape of a normal one of the same kind.
 */
import type { PaymentDetails, Transaction, TransactionAmountDetails } from '../../domain/index.js';
import { convertAmount } from './geography.js';
import { drawLifecycle, type LifecycleKind } from './lifecycle.js';
import type { UserProfile } from './population.js';
import type { Random } from './random.js';
import type { DraftTransaction, SchemeLabel, Side } from './types.js';

/**
 * Transaction types, by where the money goes: DEPOSIT brings money in from outside the bank (salary,
 * top-up, cash, a transfer from another bank), WITHDRAWAL takes it out to the customer itself
 * (ATM cash, its own account elsewhere), TRANSFER moves it to another person or company (a customer
 * or not), EXTERNAL_PAYMENT pays a merchant or a biller.
 */
export type TransactionType = 'DEPOSIT' | 'WITHDRAWAL' | 'TRANSFER' | 'EXTERNAL_PAYMENT';

/** A payment to draft. */
export interface TransactionSpec {
  readonly type: TransactionType;
  readonly timestamp: number;
  readonly origin: Side;
  readonly destination: Side;
  /** Amount in the origin currency. */
  readonly amount: number;
  /** Amount in the destination currency; converted at txmon's default rates when absent. */
  readonly destinationAmount?: number;
  readonly reference?: string;
  readonly lifecycle: LifecycleKind;
  readonly label?: SchemeLabel | null;
}

/** Drafts transactions, numbering them in the order they are drafted (the tie-break of equal timestamps). */
export interface Drafter {
  draft(random: Random, spec: TransactionSpec): DraftTransaction;
  /** The next drafting number (also used to number events). */
  nextOrder(): number;
}

/** Creates a drafter whose first draft gets number `firstOrder`. */
export function createDrafter(firstOrder = 0): Drafter {
  let order = firstOrder;
  const nextOrder = () => order++;
  return {
    nextOrder,
    draft(random, spec) {
      const origin: TransactionAmountDetails = { transactionAmount: spec.amount, transactionCurrency: spec.origin.currency, country: spec.origin.country };
      const destination: TransactionAmountDetails = {
        transactionAmount: spec.destinationAmount ?? convertAmount(spec.amount, spec.origin.currency, spec.destination.currency),
        transactionCurrency: spec.destination.currency,
        country: spec.destination.country,
      };
      const lifecycle = drawLifecycle(spec.lifecycle, random, spec.timestamp, { origin, destination });
      const body: Omit<Transaction, 'transactionId'> = {
        type: spec.type,
        timestamp: spec.timestamp,
        ...(spec.origin.userId === undefined ? {} : { originUserId: spec.origin.userId }),
        ...(spec.destination.userId === undefined ? {} : { destinationUserId: spec.destination.userId }),
        transactionState: lifecycle.initialState,
        originAmountDetails: origin,
        destinationAmountDetails: destination,
        ...(spec.origin.payment === undefined ? {} : { originPaymentDetails: spec.origin.payment }),
        ...(spec.destination.payment === undefined ? {} : { destinationPaymentDetails: spec.destination.payment }),
        ...(spec.reference === undefined ? {} : { reference: spec.reference }),
      };
      return { kind: 'transaction', timestamp: spec.timestamp, order: nextOrder(), body, events: lifecycle.events, label: spec.label ?? null };
    },
  };
}

/** A customer's side of a transaction, paying or paid with `payment` (its account by default). */
export function customerSide(profile: UserProfile, payment: PaymentDetails | undefined = profile.account): Side {
  return payment === undefined
    ? { userId: profile.userId, country: profile.country, currency: profile.currency }
    : { userId: profile.userId, country: profile.country, currency: profile.currency, payment };
}

const SMALL_REFERENCES = [
  'dinner',
  'drinks',
  'groceries',
  'taxi',
  'tickets',
  'gift',
  'thanks!',
  'pizza',
  'birthday',
  'coffee',
  'fuel',
  'share',
  'holiday',
  'lunch',
];
const LARGE_REFERENCES = ['loan', 'repayment', 'car', 'deposit', 'rent', 'invoice', 'holiday', 'furniture', 'tuition', 'family', 'wedding', 'renovation'];

/**
 * A free-text reference for a transfer between people, by size; a third have none. Injected
 * transfers draw from the same vocabulary, so no wording gives a scheme away.
 */
export function drawReference(random: Random, amountEur: number): string | undefined {
  if (random.chance(0.33)) return undefined;
  return random.pick(amountEur >= 500 ? LARGE_REFERENCES : SMALL_REFERENCES);
}
