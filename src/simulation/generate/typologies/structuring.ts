/**
 * Structuring: several cash deposits (or transfers out) each just below the reporting threshold,
 * within days, so that none is reported; the deposited cash is often moved abroad afterwards.
 */
import {
  fitSpan,
  cashSide,
  drawOffshoreParty,
  drawDomesticParty,
  drawStartDay,
  hoursAfter,
  isCandidate,
  schemeTransaction,
  thresholdOf,
  timeOn,
  accountOf,
  depositInto,
  unitOf,
  type SchemeContext,
  type TypologyModule,
} from './shared.js';

/** Parameters of the structuring typology (docs/typologies.md). */
export const STRUCTURING = Object.freeze({
  /** Transactions just below the threshold per scheme. */
  transactions: { min: 3, max: 6 },
  /** Each amount, as a share of the threshold of the account currency: [min, max). */
  band: { min: 0.9, max: 0.995 },
  /** Days from the first to the last of them. */
  spanDays: { min: 2, max: 10 },
  /** Share of schemes that deposit cash (the others transfer out to one beneficiary). */
  depositShare: 2 / 3,
  /** Share of deposit schemes that then send 90–100 % of the total abroad, 1–5 days after the last deposit. */
  moveOutShare: 0.6,
});

/**
 * An amount in the band below `threshold`: a multiple of 10 units (notes) that is not a multiple of
 * 100 units, so that structuring stays a separate signal from round amounts.
 */
export function drawBandAmount(context: SchemeContext, threshold: number, unit: number): number {
  const step = 10 * unit;
  for (;;) {
    const amount = Math.floor((threshold * context.random.uniform(STRUCTURING.band.min, STRUCTURING.band.max)) / step) * step;
    if (amount % (100 * unit) !== 0 && amount >= threshold * STRUCTURING.band.min) return amount;
  }
}

/** The structuring typology. */
export const structuring: TypologyModule = {
  typology: 'structuring',
  meanAccounts: 1,
  drawSize: () => 1,
  accepts: (candidate) => isCandidate(candidate),
  draft(context) {
    const { random } = context;
    const p = context.accounts[0];
    if (p === undefined) return;
    const count = random.int(STRUCTURING.transactions.min, STRUCTURING.transactions.max);
    const span = fitSpan(context, random.int(STRUCTURING.spanDays.min, STRUCTURING.spanDays.max), 7);
    const first = drawStartDay(context, span, 7);
    // First and last days are fixed so that the span is the documented one; the others fall in between.
    const days = [first, first + span, ...Array.from({ length: count - 2 }, () => random.int(first, first + span))].sort((a, b) => a - b);
    const deposits = random.chance(STRUCTURING.depositShare);
    const beneficiary = drawDomesticParty(random, p.country);
    let total = 0;
    let last = 0;
    for (const day of days) {
      const at = timeOn(context, day, 'office', p);
      const amount = drawBandAmount(context, thresholdOf(p), unitOf(p));
      total += amount;
      last = Math.max(last, at);
      if (deposits) depositInto(context, cashSide(random, p), p, amount, at);
      else schemeTransaction(context, { type: 'TRANSFER', timestamp: at, origin: accountOf(p), destination: beneficiary, amount });
    }
    if (deposits && random.chance(STRUCTURING.moveOutShare)) {
      const at = hoursAfter(random, last, 24, 5 * 24);
      const amount = Math.round(total * random.uniform(0.9, 1) * 100) / 100;
      schemeTransaction(context, { type: 'TRANSFER', timestamp: at, origin: accountOf(p), destination: drawOffshoreParty(random), amount });
    }
  },
};
