/**
 * Round amounts: many payments in and out of exact round thousands or half-thousands within a
 * couple of weeks — sums agreed in cash-like figures rather than prices or invoices.
 */
import {
  accountOf,
  depositInto,
  cashSide,
  drawDomesticParty,
  drawOffshoreParty,
  drawStartDay,
  fitSpan,
  isCandidate,
  schemeTransaction,
  timeOn,
  unitOf,
  type TypologyModule,
} from './shared.js';

/** Parameters of the round-amounts typology (docs/typologies.md). */
export const ROUND_AMOUNTS = Object.freeze({
  /** Round transactions per scheme. */
  transactions: { min: 6, max: 12 },
  /** Days from the first to the last. */
  spanDays: { min: 5, max: 14 },
  /** Amounts, in round units of the account currency (EUR, USD, GBP, CHF: 1; PLN: 5; SEK: 10). */
  amountUnits: { min: 1000, max: 8500 },
  /** Share of amounts that are whole thousands (the others are odd multiples of 500). */
  thousandsShare: 0.6,
  /** Share of transactions that bring money in (cash or a transfer from a stranger); the others pay out. */
  inShare: 0.4,
  /** Counterparties paid (strangers; a quarter of them abroad). */
  counterparties: { min: 2, max: 4 },
});

/** The round-amounts typology: one account. */
export const roundAmounts: TypologyModule = {
  typology: 'round_amounts',
  meanAccounts: 1,
  drawSize: () => 1,
  accepts: (candidate) => isCandidate(candidate),
  draft(context) {
    const { random } = context;
    const p = context.accounts[0];
    if (p === undefined) return;
    const count = random.int(ROUND_AMOUNTS.transactions.min, ROUND_AMOUNTS.transactions.max);
    const span = fitSpan(context, random.int(ROUND_AMOUNTS.spanDays.min, ROUND_AMOUNTS.spanDays.max), 1);
    const first = drawStartDay(context, span, 1);
    const counterparties = Array.from({ length: random.int(ROUND_AMOUNTS.counterparties.min, ROUND_AMOUNTS.counterparties.max) }, () =>
      random.chance(0.25) ? drawOffshoreParty(random) : drawDomesticParty(random, p.country),
    );
    const unit = unitOf(p);
    for (let i = 0; i < count; i++) {
      // The first and the last fix the span; the others fall anywhere in between.
      const day = i === 0 ? first : i === count - 1 ? first + span : random.int(first, first + span);
      const at = timeOn(context, day, 'office', p);
      const thousands = random.chance(ROUND_AMOUNTS.thousandsShare);
      const amount = (thousands ? 1000 * random.int(1, 8) : 500 + 1000 * random.int(1, 8)) * unit;
      if (random.chance(ROUND_AMOUNTS.inShare)) {
        const origin = random.chance(0.5) ? cashSide(random, p) : drawDomesticParty(random, p.country);
        depositInto(context, origin, p, amount, at);
      } else {
        schemeTransaction(context, { type: 'TRANSFER', timestamp: at, origin: accountOf(p), destination: random.pick(counterparties), amount });
      }
    }
  },
};
