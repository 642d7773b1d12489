/**
 * What happens to a transaction after it is created: the state it is created in and its later
 * events, by kind of payment. Every path follows txmon's default lifecycle table (docs/decisions.md,
 * `DEFAULT_TRANSITIONS`): CREATED → SUCCESSFUL | DECLINED | PROCESSING | SUSPENDED,
 * PROCESSING → SENT → SUCCESSFUL | REFUNDED, SUSPENDED → SUCCESSFUL, SUCCESSFUL → REFUNDED. Shares
 * are in docs/typologies.md ("Lifecycle").
 */
import type { TransactionAmountDetails, TransactionState } from '../../domain/index.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../../domain/index.js';
import { roundAmount } from './geography.js';
import type { Random } from './random.js';
import type { DraftEventSpec } from './types.js';

/** The state a transaction is created in and its later events. */
export interface Lifecycle {
  readonly initialState: TransactionState;
  readonly events: readonly DraftEventSpec[];
}

/**
 * Kinds of payment with their own lifecycle. `scheme-*` are the injected ones: they always go
 * through (a scheme's shape is what was done), by the same steps as their normal counterparts.
 */
export type LifecycleKind = 'settled' | 'card' | 'atm' | 'domestic' | 'international' | 'scheme-domestic' | 'scheme-international';

/** Amounts of a transaction, which a correction event may change. */
export interface LifecycleAmounts {
  readonly origin: TransactionAmountDetails;
  readonly destination: TransactionAmountDetails;
}

const SETTLED: Lifecycle = Object.freeze({ initialState: 'SUCCESSFUL', events: Object.freeze([]) });

const DECLINE_REASONS = ['Insufficient funds', 'Do not honour', 'Limit exceeded'] as const;

/** Draws the lifecycle of a transaction of `kind` created at `at`. */
export function drawLifecycle(kind: LifecycleKind, random: Random, at: number, amounts: LifecycleAmounts): Lifecycle {
  switch (kind) {
    case 'settled':
      return SETTLED;
    case 'card':
      return drawCardLifecycle(random, at, amounts);
    case 'atm':
      return random.chance(0.03) ? declined(random, at, 1, 3) : SETTLED;
    case 'domestic':
      return drawDomesticLifecycle(random, at, true);
    case 'scheme-domestic':
      return drawDomesticLifecycle(random, at, false);
    case 'international':
      return drawInternationalLifecycle(random, at, amounts, true);
    case 'scheme-international':
      return drawInternationalLifecycle(random, at, amounts, false);
  }
}

function event(at: number, transactionState: TransactionState, extra: Omit<DraftEventSpec, 'timestamp' | 'transactionState'> = {}): DraftEventSpec {
  return { timestamp: at, transactionState, ...extra };
}

function declined(random: Random, at: number, minSeconds: number, maxSeconds: number): Lifecycle {
  return {
    initialState: 'CREATED',
    events: [event(at + random.int(minSeconds * SECOND_MS, maxSeconds * SECOND_MS), 'DECLINED', { reason: random.pick(DECLINE_REASONS) })],
  };
}

/**
 * Card purchases: most are captured at once; some are declined within seconds; some are authorised
 * first and captured later for a different amount (tips, fuel and hotel pre-authorisations); a few
 * are refunded by the merchant days later.
 */
function drawCardLifecycle(random: Random, at: number, amounts: LifecycleAmounts): Lifecycle {
  const draw = random.next();
  if (draw < 0.025) return declined(random, at, 1, 4);
  if (draw < 0.06) {
    const factor = random.uniform(0.85, 1.25);
    // Whole amount objects, not partial patches: the merged transaction is then valid whatever else the patch meets.
    const corrected = { originAmountDetails: scaled(amounts.origin, factor), destinationAmountDetails: scaled(amounts.destination, factor) };
    return {
      initialState: 'CREATED',
      events: [event(at + random.int(HOUR_MS, 3 * DAY_MS), 'SUCCESSFUL', { reason: 'Captured', updatedTransactionAttributes: corrected })],
    };
  }
  if (draw < 0.075) return { initialState: 'SUCCESSFUL', events: [event(at + random.int(2 * DAY_MS, 20 * DAY_MS), 'REFUNDED', { reason: 'Merchant refund' })] };
  return SETTLED;
}

function scaled(details: TransactionAmountDetails, factor: number): TransactionAmountDetails {
  return { ...details, transactionAmount: roundAmount(details.transactionAmount * factor) };
}

/**
 * Domestic transfers are created, then succeed within seconds (instant payments) or go through a
 * batch (PROCESSING) first; normal ones are sometimes declined or held for review (SUSPENDED) and released.
 */
function drawDomesticLifecycle(random: Random, at: number, canFail: boolean): Lifecycle {
  const draw = random.next();
  if (canFail && draw < 0.015) return declined(random, at, 1, 20);
  if (canFail && draw < 0.02) {
    const held = at + random.int(5 * SECOND_MS, MINUTE_MS);
    return {
      initialState: 'CREATED',
      events: [
        event(held, 'SUSPENDED', { reason: 'Held for review' }),
        event(held + random.int(2 * HOUR_MS, 2 * DAY_MS), 'SUCCESSFUL', { reason: 'Released' }),
      ],
    };
  }
  if (draw < 0.04) {
    const batched = at + random.int(SECOND_MS, MINUTE_MS);
    return { initialState: 'CREATED', events: [event(batched, 'PROCESSING'), event(batched + random.int(10 * MINUTE_MS, 26 * HOUR_MS), 'SUCCESSFUL')] };
  }
  return { initialState: 'CREATED', events: [event(at + random.int(SECOND_MS, 30 * SECOND_MS), 'SUCCESSFUL')] };
}

/**
 * Transfers abroad are processed, sent, and succeed a day or three later, most with the
 * destination amount corrected to the settlement rate; a few are declined at once or returned
 * (REFUNDED) by the beneficiary's bank.
 */
function drawInternationalLifecycle(random: Random, at: number, amounts: LifecycleAmounts, canFail: boolean): Lifecycle {
  if (canFail && random.chance(0.02)) return declined(random, at, 1, 60);
  const processing = at + random.int(SECOND_MS, 2 * MINUTE_MS);
  const sent = processing + random.int(10 * MINUTE_MS, 8 * HOUR_MS);
  const settled = sent + random.int(12 * HOUR_MS, 3 * DAY_MS);
  if (canFail && random.chance(0.01)) {
    return {
      initialState: 'CREATED',
      events: [event(processing, 'PROCESSING'), event(sent, 'SENT'), event(settled, 'REFUNDED', { reason: 'Returned by the beneficiary bank' })],
    };
  }
  const fx = amounts.destination.transactionCurrency !== amounts.origin.transactionCurrency && random.chance(0.6);
  const last = fx
    ? event(settled, 'SUCCESSFUL', { updatedTransactionAttributes: { destinationAmountDetails: scaled(amounts.destination, random.uniform(0.985, 1.005)) } })
    : event(settled, 'SUCCESSFUL');
  return { initialState: 'CREATED', events: [event(processing, 'PROCESSING'), event(sent, 'SENT'), last] };
}
