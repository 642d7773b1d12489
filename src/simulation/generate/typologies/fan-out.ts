/**
 * Fan-out (dispersal): one account receives a large sum and within a day pays it on to several
 * customers, who mostly take it out again (cash or their own account elsewhere) within two days.
 */
import { customerSide, drawReference } from '../drafting.js';
import type { ConsumerBehaviour, UserProfile } from '../population.js';
import {
  accountOf,
  depositInto,
  amountFor,
  cashSide,
  drawDomesticParty,
  drawOffshoreParty,
  drawStartDay,
  hoursAfter,
  isCandidate,
  sameCountryAsFirst,
  schemeTransaction,
  splitAmount,
  timeOn,
  unitOf,
  type SchemeContext,
  type TypologyModule,
} from './shared.js';

/** Parameters of the fan-out typology (docs/typologies.md). */
export const FAN_OUT = Object.freeze({
  /** Distinct receivers (customers of the same country as the disperser). */
  receivers: { min: 5, max: 9 },
  /** The sum received first, EUR equivalent, in 1 or 2 deposits (30 % of them from abroad). */
  inflowEur: { min: 4000, max: 25000 },
  /** Hours from the last deposit to the first payment out. */
  delayHours: { min: 1, max: 12 },
  /** Hours from the first to the last payment out. */
  dispersalHours: 24,
  /** Share of the sum paid out, split about evenly (±15 %) between the receivers. */
  paidOutShare: { min: 0.9, max: 0.99 },
  /** Share of receivers that take 60–100 % of what they got out again, 2–48 hours later. */
  cashOutShare: 0.6,
});

/** The fan-out typology: the first account is the disperser, the others are the receivers. */
export const fanOut: TypologyModule = {
  typology: 'fan_out',
  meanAccounts: 8,
  drawSize: (random) => 1 + random.int(FAN_OUT.receivers.min, FAN_OUT.receivers.max),
  accepts: (candidate, chosen) => isCandidate(candidate) && sameCountryAsFirst(candidate, chosen),
  draft(context) {
    const { random } = context;
    const [disperser, ...receivers] = context.accounts;
    if (disperser === undefined) return;
    let at = timeOn(context, drawStartDay(context, 5, 1), 'office', disperser);
    const inflow = amountFor(disperser, random.uniform(FAN_OUT.inflowEur.min, FAN_OUT.inflowEur.max));
    for (const amount of splitAmount(random, inflow, random.int(1, 2), 0.3)) {
      const payer = random.chance(0.3) ? drawOffshoreParty(random) : drawDomesticParty(random, disperser.country);
      depositInto(context, payer, disperser, amount, at);
      at = hoursAfter(random, at, 0.5, 6);
    }
    const firstOut = hoursAfter(random, at, FAN_OUT.delayHours.min, FAN_OUT.delayHours.max);
    const paidOut = Math.round(inflow * random.uniform(FAN_OUT.paidOutShare.min, FAN_OUT.paidOutShare.max) * 100) / 100;
    const shares = splitAmount(random, paidOut, receivers.length, 0.15);
    receivers.forEach((receiver, i) => {
      const sentAt = i === 0 ? firstOut : hoursAfter(random, firstOut, 0, FAN_OUT.dispersalHours);
      const amount = shares[i] as number;
      const reference = drawReference(random, amount / disperser.fx);
      schemeTransaction(context, {
        type: 'TRANSFER',
        timestamp: sentAt,
        origin: accountOf(disperser),
        destination: accountOf(receiver),
        amount,
        ...(reference === undefined ? {} : { reference }),
      });
      if (random.chance(FAN_OUT.cashOutShare)) draftCashOut(context, receiver, hoursAfter(random, sentAt, 2, 48), amount);
    });
  },
};

/** A receiver takes most of what it got out: at an ATM (at most 1,000 units, in 50s) or to its own account elsewhere. */
function draftCashOut(context: SchemeContext, receiver: UserProfile, at: number, received: number): void {
  const { random } = context;
  const unit = unitOf(receiver);
  const wanted = received * random.uniform(0.6, 1);
  if (random.chance(0.3)) {
    const amount = Math.max(50 * unit, Math.min(1000 * unit, Math.floor(wanted / (50 * unit)) * 50 * unit));
    const origin = customerSide(receiver, receiver.card ?? receiver.account);
    schemeTransaction(context, { type: 'WITHDRAWAL', timestamp: at, origin, destination: cashSide(random, receiver), amount, lifecycle: 'settled' });
    return;
  }
  const own = (receiver.behaviour as ConsumerBehaviour).ownExternal;
  schemeTransaction(context, { type: 'WITHDRAWAL', timestamp: at, origin: accountOf(receiver), destination: own, amount: Math.round(wanted * 100) / 100 });
}
