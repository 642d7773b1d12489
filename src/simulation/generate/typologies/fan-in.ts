/**
 * Fan-in (smurfing): several customers ("smurfs") each pay one collector account within a few
 * days, often right after paying in cash themselves; the collector then sends the money abroad.
 */
import { HOUR_MS } from '../../../domain/index.js';
import { drawReference } from '../drafting.js';
import {
  accountOf,
  depositInto,
  amountFor,
  cashSide,
  drawOffshoreParty,
  drawStartDay,
  hoursAfter,
  isCandidate,
  sameCountryAsFirst,
  schemeTransaction,
  splitAmount,
  timeOn,
  unitOf,
  type TypologyModule,
} from './shared.js';

/** Parameters of the fan-in typology (docs/typologies.md). */
export const FAN_IN = Object.freeze({
  /** Distinct senders (customers of the same country as the collector). */
  senders: { min: 5, max: 9 },
  /** Hours from the first to the last payment into the collector. */
  windowHours: { min: 24, max: 72 },
  /** Each payment into the collector, EUR equivalent. */
  amountEur: { min: 300, max: 2500 },
  /** Share of senders that pay a second time within the window. */
  secondPaymentShare: 0.2,
  /** Share of senders that pay in cash 1–12 hours before paying the collector. */
  cashFirstShare: 0.5,
  /** The collector sends this share of what it collected abroad, 2–36 hours after the last payment in, in 1–2 transfers. */
  forwardedShare: { min: 0.85, max: 1 },
});

/** The fan-in typology: the first account is the collector, the others are the senders. */
export const fanIn: TypologyModule = {
  typology: 'fan_in',
  meanAccounts: 8,
  drawSize: (random) => 1 + random.int(FAN_IN.senders.min, FAN_IN.senders.max),
  accepts: (candidate, chosen) => isCandidate(candidate) && sameCountryAsFirst(candidate, chosen),
  draft(context) {
    const { random } = context;
    const [collector, ...senders] = context.accounts;
    if (collector === undefined) return;
    const first = timeOn(context, drawStartDay(context, 5, 1), 'retail', collector);
    const window = random.uniform(FAN_IN.windowHours.min, FAN_IN.windowHours.max) * HOUR_MS;
    let collected = 0;
    let last = first;
    for (const sender of senders) {
      const payments = random.chance(FAN_IN.secondPaymentShare) ? 2 : 1;
      for (let i = 0; i < payments; i++) {
        // The first sender pays at the window's start, so the window is the documented length at most.
        const at = sender === senders[0] && i === 0 ? first : first + Math.floor(random.next() * window);
        const amountEur = random.uniform(FAN_IN.amountEur.min, FAN_IN.amountEur.max);
        const amount = amountFor(sender, amountEur);
        if (i === 0 && random.chance(FAN_IN.cashFirstShare)) {
          const cash = Math.ceil((amount * random.uniform(1, 1.1)) / (10 * unitOf(sender))) * 10 * unitOf(sender);
          depositInto(context, cashSide(random, sender), sender, cash, hoursAfter(random, at, -12, -1));
        }
        const reference = drawReference(random, amountEur);
        schemeTransaction(context, {
          type: 'TRANSFER',
          timestamp: at,
          origin: accountOf(sender),
          destination: accountOf(collector),
          amount,
          ...(reference === undefined ? {} : { reference }),
        });
        collected += amount;
        last = Math.max(last, at);
      }
    }
    const forwarded = Math.round(collected * random.uniform(FAN_IN.forwardedShare.min, FAN_IN.forwardedShare.max) * 100) / 100;
    const parts = splitAmount(random, forwarded, random.int(1, 2), 0.2);
    let at = hoursAfter(random, last, 2, 36);
    for (const amount of parts) {
      schemeTransaction(context, { type: 'TRANSFER', timestamp: at, origin: accountOf(collector), destination: drawOffshoreParty(random), amount });
      at = hoursAfter(random, at, 0.2, 3);
    }
  },
};
