/**
 * Burst after dormancy: an account that was used a little, then not at all for weeks, suddenly
 * receives a large sum and sends it on within two days (an account taken over or sold).
 */
import { customerSide } from '../drafting.js';
import type { ConsumerBehaviour, UserProfile } from '../population.js';
import type { Random } from '../random.js';
import {
  accountOf,
  depositInto,
  amountFor,
  cashSide,
  drawDomesticParty,
  drawOffshoreParty,
  hoursAfter,
  isCandidate,
  schemeTransaction,
  splitAmount,
  timeOn,
  unitOf,
  type SchemeContext,
  type TypologyModule,
} from './shared.js';
import { cardAtMerchant } from '../parties.js';

/** Parameters of the dormancy-burst typology (docs/typologies.md). */
export const DORMANCY_BURST = Object.freeze({
  /** The dormancy: at least this many days without any transaction, in or out: ⌊days / 2⌋, from 7 to 60. */
  gapDays: (days: number) => Math.min(60, Math.max(7, Math.floor(days / 2))),
  /** Extra days of dormancy beyond the minimum. */
  extraGapDays: { min: 1, max: 5 },
  /** Money coming in at the start of the burst, EUR equivalent, in 1 or 2 deposits (half of them from abroad). */
  inflowEur: { min: 3000, max: 20000 },
  /** Payments out in the burst (transfers to strangers, half of them abroad, and up to 2 ATM withdrawals). */
  outflows: { min: 3, max: 7 },
  /** Share of the money in that leaves in the burst. */
  outShare: { min: 0.85, max: 1 },
  /** Hours from the first to the last transaction of the burst. */
  burstHours: 48,
});

/** The dormancy-burst typology: one account, quiet before the burst and after it. */
export const dormancyBurst: TypologyModule = {
  typology: 'dormancy_burst',
  meanAccounts: 1,
  drawSize: () => 1,
  // Nobody may pay the account while it sleeps: no salary, no employer, no tenants, no client payments.
  accepts: (candidate) => {
    if (!isCandidate(candidate) || candidate.landlord) return false;
    const b = candidate.behaviour as ConsumerBehaviour;
    return b.salary === null && !b.employedByCustomer && b.sweep === null;
  },
  prepare(random: Random, accounts: readonly UserProfile[], days: number) {
    const gap = DORMANCY_BURST.gapDays(days);
    const lastActive = random.int(0, Math.max(0, days - gap - DORMANCY_BURST.extraGapDays.max - 4));
    const burstDay = Math.min(days - 3, lastActive + gap + random.int(DORMANCY_BURST.extraGapDays.min, DORMANCY_BURST.extraGapDays.max));
    // Ordinary activity stops after the last active day (and never comes back).
    for (const p of accounts) p.activeUntilDay = lastActive + 1;
    return { lastActive, burstDay };
  },
  draft(context) {
    const { random } = context;
    const p = context.accounts[0];
    const lastActive = context.params.lastActive;
    const burstDay = context.params.burstDay;
    if (p === undefined || lastActive === undefined || burstDay === undefined) return;
    draftAnchor(context, p, lastActive);
    let at = timeOn(context, burstDay, 'office', p);
    const inflow = amountFor(p, random.uniform(DORMANCY_BURST.inflowEur.min, DORMANCY_BURST.inflowEur.max));
    for (const amount of splitAmount(random, inflow, random.int(1, 2), 0.3)) {
      const payer = random.chance(0.5) ? drawOffshoreParty(random) : drawDomesticParty(random, p.country);
      depositInto(context, payer, p, amount, at);
      at = hoursAfter(random, at, 0.5, 4);
    }
    const out = Math.round(inflow * random.uniform(DORMANCY_BURST.outShare.min, DORMANCY_BURST.outShare.max) * 100) / 100;
    const parts = splitAmount(random, out, random.int(DORMANCY_BURST.outflows.min, DORMANCY_BURST.outflows.max), 0.4);
    let atmLeft = 2;
    const first = at;
    for (const amount of parts) {
      at = Math.min(first + (DORMANCY_BURST.burstHours - 6) * 3_600_000, hoursAfter(random, at, 0.3, 8));
      const unit = unitOf(p);
      if (atmLeft > 0 && amount <= 1000 * unit && random.chance(0.5)) {
        atmLeft -= 1;
        const cash = Math.max(50 * unit, Math.floor(amount / (50 * unit)) * 50 * unit);
        schemeTransaction(context, {
          type: 'WITHDRAWAL',
          timestamp: at,
          origin: customerSide(p, p.card ?? p.account),
          destination: cashSide(random, p),
          amount: cash,
          lifecycle: 'settled',
        });
        continue;
      }
      const beneficiary = random.chance(0.5) ? drawOffshoreParty(random) : drawDomesticParty(random, p.country);
      schemeTransaction(context, { type: 'TRANSFER', timestamp: at, origin: accountOf(p), destination: beneficiary, amount });
    }
  },
};

/**
 * An ordinary small card purchase on the last active day, so that the account has a transaction
 * before its dormancy whatever its own draws gave. It is the account's normal life: not labelled.
 */
function draftAnchor(context: SchemeContext, p: UserProfile, day: number): void {
  if (p.card === null) return;
  const merchant = context.externals.merchant(p.country, 0, context.random.int(0, 149));
  const draft = context.drafter.draft(context.random, {
    type: 'EXTERNAL_PAYMENT',
    timestamp: timeOn(context, day, 'retail', p),
    origin: customerSide(p, cardAtMerchant(p.card, merchant, true)),
    destination: { country: p.country, currency: p.currency },
    amount: amountFor(p, context.random.logNormal(25, 0.6)),
    lifecycle: 'settled',
  });
  context.push(draft);
}
