/**
 * Pass-through (money mule): money comes in from a stranger and leaves again within hours, less a
 * small cut, to someone else — several times within a couple of weeks.
 */
import { HOUR_MS, MINUTE_MS } from '../../../domain/index.js';
import {
  accountOf,
  depositInto,
  amountFor,
  distinctDays,
  drawDomesticParty,
  fitSpan,
  drawOffshoreParty,
  drawStartDay,
  isCandidate,
  schemeTransaction,
  splitAmount,
  timeOn,
  type TypologyModule,
} from './shared.js';

/** Parameters of the pass-through typology (docs/typologies.md). */
export const PASS_THROUGH = Object.freeze({
  /** Rounds of money in, money out. */
  rounds: { min: 3, max: 6 },
  /** Days from the first round to the last. */
  spanDays: { min: 3, max: 14 },
  /** Each amount coming in, EUR equivalent (a different payer each round; 30 % from abroad). */
  inflowEur: { min: 800, max: 9000 },
  /** Hours from money in to the first money out: log-normal around 2 h, kept within these bounds. */
  delayHours: { min: 0.25, max: 20, median: 2 },
  /** Money out as a share of the money in (the mule keeps the rest). */
  outShare: { min: 0.85, max: 0.98 },
  /** Share of rounds whose money leaves in two transfers (5–90 minutes apart) instead of one. */
  splitShare: 0.3,
  /** Share of beneficiaries abroad (the others are domestic strangers). */
  offshoreShare: 0.6,
});

/** The pass-through typology: one mule account. */
export const passThrough: TypologyModule = {
  typology: 'pass_through',
  meanAccounts: 1,
  drawSize: () => 1,
  accepts: (candidate) => isCandidate(candidate),
  draft(context) {
    const { random } = context;
    const mule = context.accounts[0];
    if (mule === undefined) return;
    const span = fitSpan(context, random.int(PASS_THROUGH.spanDays.min, PASS_THROUGH.spanDays.max), 4);
    const rounds = Math.min(random.int(PASS_THROUGH.rounds.min, PASS_THROUGH.rounds.max), span + 1);
    const first = drawStartDay(context, span, 4);
    const days = distinctDays(random, first, span, rounds);
    let free = 0;
    for (const day of days) {
      // A round starts after the previous one's money has left, so that each round reads as in, then out.
      const inAt = Math.max(timeOn(context, day, 'office', mule), free + random.int(HOUR_MS, 6 * HOUR_MS));
      const inflow = amountFor(mule, random.uniform(PASS_THROUGH.inflowEur.min, PASS_THROUGH.inflowEur.max));
      const payer = random.chance(0.3) ? drawOffshoreParty(random) : drawDomesticParty(random, mule.country);
      depositInto(context, payer, mule, inflow, inAt);
      const delay = Math.min(PASS_THROUGH.delayHours.max, Math.max(PASS_THROUGH.delayHours.min, random.logNormal(PASS_THROUGH.delayHours.median, 0.8)));
      let outAt = inAt + Math.floor(delay * HOUR_MS);
      const out = Math.round(inflow * random.uniform(PASS_THROUGH.outShare.min, PASS_THROUGH.outShare.max) * 100) / 100;
      const beneficiary = random.chance(PASS_THROUGH.offshoreShare) ? drawOffshoreParty(random) : drawDomesticParty(random, mule.country);
      for (const amount of splitAmount(random, out, random.chance(PASS_THROUGH.splitShare) ? 2 : 1, 0.25)) {
        schemeTransaction(context, { type: 'TRANSFER', timestamp: outAt, origin: accountOf(mule), destination: beneficiary, amount });
        free = outAt;
        outAt += random.int(5 * MINUTE_MS, 90 * MINUTE_MS);
      }
    }
  },
};
