/**
 * Normal behaviour: what one customer does on one day — salaries, rent and bills, card purchases,
 * cash, transfers to friends and shops, top-ups, savings, remittances, and for businesses their
 * takings, suppliers and payroll. Each customer draws from its own stream, day after day, so its
 * behaviour does not depend on anyone else's draws. Rates and amounts: docs/typologies.md.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../domain/index.js';
import { drawTimeOn, isDue, isWeekend, type DayInfo } from './calendar.js';
import { customerSide, drawReference, type Drafter, type TransactionSpec } from './drafting.js';
import { REPORTING_THRESHOLD, convertAmount, currencyOfCountry, pickTravelCountry, roundAmount, roundUnit } from './geography.js';
import { MERCHANT_CATEGORIES, cardAtMerchant, cashPayment, drawExternalCompany, type Externals } from './parties.js';
import {
  SUPPLIERS_PER_COUNTRY,
  isActive,
  localAmount,
  type BusinessBehaviour,
  type ConsumerBehaviour,
  type MonthlyPayment,
  type UserProfile,
} from './population.js';
import { createWeightedPicker, type Random } from './random.js';
import type { DraftTransaction, Side } from './types.js';

/** What the day generators need from the run. */
export interface NormalContext {
  readonly profiles: readonly UserProfile[];
  readonly externals: Externals;
  readonly drafter: Drafter;
  /** Receives every drafted transaction. */
  readonly push: (draft: DraftTransaction) => void;
}

/** What a customer carries from one day to the next. */
export interface UserDayState {
  readonly random: Random;
  /** Last day of the current trip abroad (−1: at home). */
  travelUntil: number;
  travelCountry: string;
}

/** Card spending by weekday (Sunday first): more on Fridays and Saturdays. */
const WEEKDAY_FACTOR = [0.8, 0.9, 0.9, 0.95, 1, 1.2, 1.25];
const pickCategory = createWeightedPicker(
  MERCHANT_CATEGORIES.map((_, i) => i),
  MERCHANT_CATEGORIES.map((c) => c.weight),
);
/** ATM amounts in round units, and how often people take each. */
const pickAtmUnits = createWeightedPicker([20, 40, 50, 100, 150, 200, 250, 300, 400, 500], [8, 4, 16, 22, 8, 18, 4, 9, 4, 7]);
/** Countries of web shops that sell abroad (card purchases online from another country). */
const ONLINE_ABROAD = ['IE', 'NL', 'US', 'CN', 'GB', 'DE', 'LU'];
/** Merchants per category and country: the first are the most visited. */
const MERCHANTS_PER_CATEGORY = 150;

/** Drafts everything customer `p` does on `day`. */
export function draftUserDay(context: NormalContext, p: UserProfile, state: UserDayState, day: DayInfo): void {
  if (!isActive(p, day.index)) return;
  if (p.behaviour.kind === 'consumer') draftConsumerDay(context, p, p.behaviour, state, day);
  else draftBusinessDay(context, p, p.behaviour, state.random, day);
}

function transaction(context: NormalContext, random: Random, spec: TransactionSpec): void {
  context.push(context.drafter.draft(random, spec));
}

function draftConsumerDay(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, state: UserDayState, day: DayInfo): void {
  const { random } = state;
  draftMonthly(context, p, b, random, day);
  if (b.oneOff !== null && b.oneOff.day === day.index) draftOneOff(context, p, b, random, day);
  if (b.returnsWithSum && day.index === p.breakUntilDay) draftComeback(context, p, b, random, day);
  if (b.sweep === 'weekly' && !isWeekend(day)) draftClientPayments(context, p, b, random, day);
  if (state.travelUntil < day.index && random.chance(b.travelRate)) {
    state.travelUntil = day.index + random.int(2, 9);
    do state.travelCountry = pickTravelCountry(random);
    while (state.travelCountry === p.country);
  }
  const abroad = state.travelUntil >= day.index ? state.travelCountry : null;
  const purchases = random.poisson(b.cardRate * (WEEKDAY_FACTOR[day.weekday] ?? 1) * (abroad === null ? 1 : 1.6));
  for (let i = 0; i < purchases; i++) draftCardPurchase(context, p, b, random, day, abroad);
  if (abroad === null) for (let i = random.poisson(b.atmRate); i > 0; i--) draftAtm(context, p, random, day);
  for (let i = random.poisson(b.p2pRate); i > 0 && b.contacts.length > 0; i--) draftPeerTransfer(context, p, b, random, day);
  for (let i = random.poisson(b.merchantRate); i > 0 && b.favouriteBusinesses.length > 0; i--) draftShopTransfer(context, p, b, random, day);
  for (let i = random.poisson(b.topUpRate); i > 0; i--) draftTopUp(context, p, b, random, day);
  for (let i = random.poisson(b.cashDepositRate); i > 0; i--) draftCashDeposit(context, p, random, day, 200, 0.8);
}

function monthlyAmount(random: Random, payment: MonthlyPayment): number {
  return payment.variable ? roundAmount(payment.amount * random.uniform(0.85, 1.15)) : payment.amount;
}

function draftMonthly(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  const account = customerSide(p);
  if (b.salary !== null && b.salary.party !== null && isDue(b.salary.day, day)) {
    const at = drawTimeOn(random, day, 'batch', p.utcOffset);
    const amount = monthlyAmount(random, b.salary);
    transaction(context, random, {
      type: 'DEPOSIT',
      timestamp: at,
      origin: b.salary.party,
      destination: account,
      amount,
      lifecycle: 'settled',
      reference: 'Salary',
    });
    if (b.sweep === 'monthly') draftSweep(context, p, b, random, at, amount);
  }
  if (b.rent !== null && isDue(b.rent.day, day)) {
    const landlord = b.rent.party ?? landlordSide(context, b.rent, day);
    if (landlord !== null) {
      transaction(context, random, {
        type: 'TRANSFER',
        timestamp: drawTimeOn(random, day, 'office', p.utcOffset),
        origin: account,
        destination: landlord,
        amount: b.rent.amount,
        lifecycle: 'domestic',
        reference: 'rent',
      });
    }
  }
  for (const bill of b.bills) {
    if (bill.party === null || !isDue(bill.day, day)) continue;
    const at = drawTimeOn(random, day, 'batch', p.utcOffset);
    transaction(context, random, {
      type: 'EXTERNAL_PAYMENT',
      timestamp: at,
      origin: account,
      destination: bill.party,
      amount: monthlyAmount(random, bill),
      lifecycle: 'domestic',
    });
  }
  if (b.savings !== null && isDue(b.savings.day, day)) {
    const at = drawTimeOn(random, day, 'office', p.utcOffset);
    transaction(context, random, {
      type: 'WITHDRAWAL',
      timestamp: at,
      origin: account,
      destination: b.ownExternal,
      amount: b.savings.amount,
      lifecycle: 'domestic',
      reference: 'savings',
    });
  }
  if (b.remittance !== null && b.remittance.party !== null && isDue(b.remittance.day, day)) {
    // Remittances are whole figures: people send "200", not "187.43".
    const amount = Math.max(10, Math.round(monthlyAmount(random, b.remittance) / (10 * roundUnit(p.currency))) * 10 * roundUnit(p.currency));
    const at = drawTimeOn(random, day, 'retail', p.utcOffset);
    transaction(context, random, {
      type: 'TRANSFER',
      timestamp: at,
      origin: account,
      destination: b.remittance.party,
      amount,
      lifecycle: 'international',
      reference: 'family',
    });
  }
}

function landlordSide(context: NormalContext, rent: MonthlyPayment, day: DayInfo): Side | null {
  const landlord = context.profiles[rent.counterpartIndex];
  return landlord !== undefined && isActive(landlord, day.index) ? customerSide(landlord) : null;
}

/** Most of a payment moved on to the customer's own account elsewhere within hours (an honest pass-through). */
function draftSweep(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, receivedAt: number, received: number): void {
  const at = receivedAt + random.int(HOUR_MS, 10 * HOUR_MS);
  const amount = roundAmount(received * random.uniform(0.8, 0.97));
  transaction(context, random, { type: 'WITHDRAWAL', timestamp: at, origin: customerSide(p), destination: b.ownExternal, amount, lifecycle: 'domestic' });
}

function draftClientPayments(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  for (let i = random.poisson(0.3); i > 0 && b.clients.length > 0; i--) {
    const at = drawTimeOn(random, day, 'office', p.utcOffset);
    const amount = localAmount(random.logNormal(600, 0.5), p.fx);
    transaction(context, random, {
      type: 'DEPOSIT',
      timestamp: at,
      origin: random.pick(b.clients),
      destination: customerSide(p),
      amount,
      lifecycle: 'settled',
      reference: 'invoice',
    });
    draftSweep(context, p, b, random, at, amount);
  }
}

function draftOneOff(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  const at = drawTimeOn(random, day, 'office', p.utcOffset);
  if (b.oneOff?.kind === 'large_purchase') {
    // A car or a tuition fee priced just under the threshold: the honest look-alike of structuring.
    const threshold = REPORTING_THRESHOLD[p.currency] ?? 10000;
    const amount = Math.round((threshold * random.uniform(0.9, 0.999)) / 10) * 10;
    transaction(context, random, {
      type: 'EXTERNAL_PAYMENT',
      timestamp: at,
      origin: customerSide(p),
      destination: drawExternalCompany(random, p.country),
      amount,
      lifecycle: 'domestic',
    });
    return;
  }
  if (b.oneOff?.kind === 'loan') {
    draftLoan(context, p, random, day, at);
    return;
  }
  // Gifts to several friends and relatives on one day: the honest look-alike of dispersal.
  let t = at;
  for (const index of b.contacts.slice(0, random.int(5, 7))) {
    const friend = context.profiles[index];
    if (friend === undefined || !isActive(friend, day.index)) continue;
    t += random.int(MINUTE_MS, 20 * MINUTE_MS);
    const amount = localAmount(random.uniform(500, 3000), p.fx, 50 * roundUnit(p.currency));
    transaction(context, random, {
      type: 'TRANSFER',
      timestamp: t,
      origin: customerSide(p),
      destination: customerSide(friend),
      amount,
      lifecycle: lifecycleBetween(p, friend),
      reference: 'gift',
    });
  }
}

/** A loan to a close contact, repaid in one transfer 7–40 days later (an honest two-hop cycle). */
function draftLoan(context: NormalContext, p: UserProfile, random: Random, day: DayInfo, at: number): void {
  const b = p.behaviour as ConsumerBehaviour;
  const friend = context.profiles[b.contacts[0] ?? -1];
  const repaidOn = day.index + random.int(7, 40);
  if (friend === undefined || !isActive(friend, day.index) || !isActive(friend, repaidOn) || !isActive(p, repaidOn)) return;
  const amount = localAmount(random.uniform(300, 3000), p.fx, 50 * roundUnit(p.currency));
  transaction(context, random, {
    type: 'TRANSFER',
    timestamp: at,
    origin: customerSide(p),
    destination: customerSide(friend),
    amount,
    lifecycle: lifecycleBetween(p, friend),
    reference: 'loan',
  });
  const back = convertAmount(amount, p.currency, friend.currency);
  const repaidAt = at + (repaidOn - day.index) * DAY_MS + random.int(-6 * HOUR_MS, 6 * HOUR_MS);
  transaction(context, random, {
    type: 'TRANSFER',
    timestamp: repaidAt,
    origin: customerSide(friend),
    destination: customerSide(p),
    amount: back,
    lifecycle: lifecycleBetween(friend, p),
    reference: 'repayment',
  });
}

/**
 * Back from a long break with a large sum (a sale, an inheritance) paid in from the customer's own
 * account elsewhere, most of it paid to a company within three days: the honest look-alike of a burst after dormancy.
 */
function draftComeback(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  const at = drawTimeOn(random, day, 'office', p.utcOffset);
  const amount = localAmount(random.uniform(2000, 10000), p.fx);
  transaction(context, random, { type: 'DEPOSIT', timestamp: at, origin: b.ownExternal, destination: customerSide(p), amount, lifecycle: 'settled' });
  const paid = roundAmount(amount * random.uniform(0.5, 1));
  transaction(context, random, {
    type: 'EXTERNAL_PAYMENT',
    timestamp: at + random.int(2 * HOUR_MS, 3 * DAY_MS),
    origin: customerSide(p),
    destination: drawExternalCompany(random, p.country),
    amount: paid,
    lifecycle: 'domestic',
  });
}

function lifecycleBetween(from: UserProfile, to: { readonly country: string }): 'domestic' | 'international' {
  return from.country === to.country ? 'domestic' : 'international';
}

function draftCardPurchase(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo, abroad: string | null): void {
  if (p.card === null) return;
  const categoryIndex = pickCategory(random);
  const category = MERCHANT_CATEGORIES[categoryIndex] ?? MERCHANT_CATEGORIES[0];
  const online = category.category === 'ONLINE_RETAIL';
  const merchantCountry = abroad ?? (online && random.chance(0.2) ? random.pick(ONLINE_ABROAD) : p.country);
  // Squaring a uniform favours the first merchants: a few shops get most of the trade.
  const merchant = context.externals.merchant(merchantCountry, categoryIndex, Math.floor(MERCHANTS_PER_CATEGORY * random.next() ** 2));
  const at = drawTimeOn(random, day, 'retail', p.utcOffset);
  const amount = localAmount(random.logNormal(category.median * Math.sqrt(b.spendScale), category.sigma), p.fx);
  const destination: Side = { country: merchantCountry, currency: currencyOfCountry(merchantCountry) };
  transaction(context, random, {
    type: 'EXTERNAL_PAYMENT',
    timestamp: at,
    origin: customerSide(p, cardAtMerchant(p.card, merchant, !online)),
    destination,
    amount,
    lifecycle: 'card',
  });
}

function draftAtm(context: NormalContext, p: UserProfile, random: Random, day: DayInfo): void {
  const at = drawTimeOn(random, day, 'retail', p.utcOffset);
  const amount = pickAtmUnits(random) * roundUnit(p.currency);
  const destination: Side = { country: p.country, currency: p.currency, payment: cashPayment(p.country, random.int(0, 399)) };
  transaction(context, random, { type: 'WITHDRAWAL', timestamp: at, origin: customerSide(p, p.card ?? p.account), destination, amount, lifecycle: 'atm' });
}

/** An amount people would type when paying a friend: often whole, sometimes to the 5 or the 50. */
function peerAmount(random: Random, amountEur: number, p: UserProfile): number {
  const unit = roundUnit(p.currency);
  const draw = random.next();
  if (draw < 0.1) return localAmount(amountEur, p.fx, 50 * unit);
  if (draw < 0.45) return localAmount(amountEur, p.fx, 5 * unit);
  return localAmount(amountEur, p.fx);
}

function draftPeerTransfer(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  // Most transfers go to a few close contacts (the first ones), the rest to anyone in the list.
  const friend = context.profiles[b.contacts[Math.floor(b.contacts.length * random.next() ** 2)] as number];
  if (friend === undefined || !isActive(friend, day.index)) return;
  const amountEur = random.logNormal(30 * Math.sqrt(b.spendScale), 0.9);
  const at = drawTimeOn(random, day, 'retail', p.utcOffset);
  const reference = drawReference(random, amountEur);
  transaction(context, random, {
    type: 'TRANSFER',
    timestamp: at,
    origin: customerSide(p),
    destination: customerSide(friend),
    amount: peerAmount(random, amountEur, p),
    lifecycle: lifecycleBetween(p, friend),
    ...(reference === undefined ? {} : { reference }),
  });
}

function draftShopTransfer(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  const shop = context.profiles[random.pick(b.favouriteBusinesses)];
  if (shop === undefined || !isActive(shop, day.index)) return;
  const at = drawTimeOn(random, day, 'retail', p.utcOffset);
  const amount = localAmount(random.logNormal(35 * Math.sqrt(b.spendScale), 0.8), p.fx);
  transaction(context, random, { type: 'TRANSFER', timestamp: at, origin: customerSide(p), destination: customerSide(shop), amount, lifecycle: 'domestic' });
}

function draftTopUp(context: NormalContext, p: UserProfile, b: ConsumerBehaviour, random: Random, day: DayInfo): void {
  const at = drawTimeOn(random, day, 'retail', p.utcOffset);
  const amountEur = random.logNormal(150, 0.8);
  const amount = random.chance(0.6) ? localAmount(amountEur, p.fx, 50 * roundUnit(p.currency)) : localAmount(amountEur, p.fx);
  transaction(context, random, { type: 'DEPOSIT', timestamp: at, origin: b.ownExternal, destination: customerSide(p), amount, lifecycle: 'settled' });
}

function draftCashDeposit(context: NormalContext, p: UserProfile, random: Random, day: DayInfo, medianEur: number, sigma: number): void {
  const at = drawTimeOn(random, day, 'office', p.utcOffset);
  const amount = localAmount(random.logNormal(medianEur, sigma), p.fx, 10 * roundUnit(p.currency));
  const origin: Side = { country: p.country, currency: p.currency, payment: cashPayment(p.country, random.int(0, 399)) };
  transaction(context, random, { type: 'DEPOSIT', timestamp: at, origin, destination: customerSide(p), amount, lifecycle: 'settled' });
}

function draftBusinessDay(context: NormalContext, p: UserProfile, b: BusinessBehaviour, random: Random, day: DayInfo): void {
  const account = customerSide(p);
  if (!isWeekend(day)) {
    if (random.chance(b.settlementRate)) {
      const at = drawTimeOn(random, day, 'batch', p.utcOffset);
      const amount = localAmount(random.logNormal(900 * b.size, 0.6), p.fx);
      transaction(context, random, {
        type: 'DEPOSIT',
        timestamp: at,
        origin: context.externals.acquirer(p.country),
        destination: account,
        amount,
        lifecycle: 'settled',
        reference: 'card settlement',
      });
    }
    // Cash-intensive businesses bank their takings: the honest source of large cash deposits.
    for (let i = random.poisson(b.cashTakingsRate); i > 0; i--) draftCashDeposit(context, p, random, day, 2000 * Math.sqrt(b.size), 0.7);
    for (let i = random.poisson(b.supplierRate); i > 0; i--) {
      const supplier = context.externals.supplier(p.country, (p.index * 7 + random.int(0, b.suppliers - 1) * 13) % SUPPLIERS_PER_COUNTRY);
      const at = drawTimeOn(random, day, 'office', p.utcOffset);
      const amount = localAmount(random.logNormal(600 * b.size ** 0.7, 0.9), p.fx);
      transaction(context, random, {
        type: 'EXTERNAL_PAYMENT',
        timestamp: at,
        origin: account,
        destination: supplier,
        amount,
        lifecycle: 'domestic',
        reference: 'invoice',
      });
    }
  }
  if (b.rent.party !== null && isDue(b.rent.day, day)) {
    const at = drawTimeOn(random, day, 'office', p.utcOffset);
    transaction(context, random, {
      type: 'EXTERNAL_PAYMENT',
      timestamp: at,
      origin: account,
      destination: b.rent.party,
      amount: b.rent.amount,
      lifecycle: 'domestic',
      reference: 'rent',
    });
  }
  if (isDue(b.payday, day)) draftPayroll(context, p, b, random, day);
}

/** Salaries to employees who are customers: one transfer each within minutes (an honest fan-out). */
function draftPayroll(context: NormalContext, p: UserProfile, b: BusinessBehaviour, random: Random, day: DayInfo): void {
  let at = drawTimeOn(random, day, 'batch', p.utcOffset);
  for (const employee of b.employees) {
    const person = context.profiles[employee.index];
    if (person === undefined || !isActive(person, day.index)) continue;
    at += random.int(1000, 90_000);
    transaction(context, random, {
      type: 'TRANSFER',
      timestamp: at,
      origin: customerSide(p),
      destination: customerSide(person),
      amount: employee.amount,
      lifecycle: 'domestic',
      reference: 'Salary',
    });
  }
}
