/**
 * Cycle (round-tripping): money goes from A to B to C (to D) and back to A within days, each hop
 * keeping a small cut, to make funds look like the proceeds of ordinary business between customers.
 */
import { HOUR_MS } from '../../../domain/index.js';
import { drawReference } from '../drafting.js';
import { accountOf, amountFor, drawStartDay, isCandidate, schemeTransaction, timeOn, type TypologyModule } from './shared.js';

/** Parameters of the cycle typology (docs/typologies.md). */
export const CYCLE = Object.freeze({
  /** Accounts in the cycle = hops back to the origin (customers of one country). */
  hops: { min: 3, max: 4 },
  /** Times the money goes round, each with a new sum. */
  repetitions: { min: 1, max: 3 },
  /** Days between the starts of two repetitions (a repetition never starts before the previous one has closed). */
  repeatEveryDays: { min: 3, max: 12 },
  /** The sum sent by the origin, EUR equivalent. */
  amountEur: { min: 2000, max: 15000 },
  /** Each hop passes on this share of what it received. */
  hopShare: { min: 0.97, max: 0.995 },
  /** Hours between receiving and passing on (so a cycle of 4 hops closes within 5 days). */
  hopDelayHours: { min: 2, max: 30 },
});

/** The cycle typology: the accounts in the order the money goes round, the first is the origin. */
export const cycle: TypologyModule = {
  typology: 'cycle',
  meanAccounts: 3.5,
  drawSize: (random) => random.int(CYCLE.hops.min, CYCLE.hops.max),
  accepts: (candidate, chosen) => isCandidate(candidate) && (chosen[0] === undefined || chosen[0].country === candidate.country),
  draft(context) {
    const { random, accounts } = context;
    const origin = accounts[0];
    if (origin === undefined || accounts.length < 2) return;
    // The gaps between repetitions are drawn first; a short history keeps only the repetitions that fit whole.
    const gaps = Array.from({ length: random.int(CYCLE.repetitions.min, CYCLE.repetitions.max) - 1 }, () =>
      random.int(CYCLE.repeatEveryDays.min, CYCLE.repeatEveryDays.max),
    );
    while (gaps.reduce((a, b) => a + b, 0) > context.days - 8) gaps.pop();
    let day = drawStartDay(
      context,
      gaps.reduce((a, b) => a + b, 0),
      6,
    );
    let closed = 0;
    for (let r = 0; r <= gaps.length; r++) {
      // A repetition starts once the previous one has closed, so each goes round whole before the next.
      let at = Math.max(timeOn(context, day, 'office', origin), closed + random.int(HOUR_MS, 12 * HOUR_MS));
      let amount = amountFor(origin, random.uniform(CYCLE.amountEur.min, CYCLE.amountEur.max));
      for (let hop = 0; hop < accounts.length; hop++) {
        const from = accounts[hop] as (typeof accounts)[number];
        const to = accounts[(hop + 1) % accounts.length] as (typeof accounts)[number];
        const reference = drawReference(random, amount / from.fx);
        schemeTransaction(context, {
          type: 'TRANSFER',
          timestamp: at,
          origin: accountOf(from),
          destination: accountOf(to),
          amount,
          ...(reference === undefined ? {} : { reference }),
        });
        closed = at;
        at += Math.floor(random.uniform(CYCLE.hopDelayHours.min, CYCLE.hopDelayHours.max) * HOUR_MS);
        amount = Math.round(amount * random.uniform(CYCLE.hopShare.min, CYCLE.hopShare.max) * 100) / 100;
      }
      day += gaps[r] ?? 0;
    }
  },
};
