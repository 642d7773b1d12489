/**
 * The customers: who they are (country, currency, accounts, card) and how they behave (rates and
 * amounts of each kind of payment, their contacts, employer, landlord, favourite businesses). Drawn
 * once per run from the population stream; every figure is in docs/typologies.md ("Normal behaviour").
 */
import type { BusinessUser, ConsumerUser, PaymentDetails } from '../../domain/index.js';
import { DAY_MS } from '../../domain/index.js';
import {
  HOME_CURRENCY,
  drawCompanyName,
  drawDigits,
  drawPersonName,
  pickMigrantNationality,
  pickResidence,
  roundAmount,
  roundUnit,
  unitsPerEur,
  type ResidenceCountry,
} from './geography.js';
import { drawExternalCompany, drawExternalPerson, drawOwnAccount, type Externals } from './parties.js';
import { STREAMS, createRandom, deriveSeed, type Random } from './random.js';
import type { SchemeLabel, Side } from './types.js';

/** A salary, rent, bill or other fixed monthly payment. */
export interface MonthlyPayment {
  /** Day of the month (1–28; 31 means the month's last day). */
  readonly day: number;
  /** Amount in the account currency. */
  readonly amount: number;
  /** Whether the amount varies from month to month (±15 %, e.g. electricity). */
  readonly variable: boolean;
  /** The external counterparty, or null when the counterparty is a customer (`counterpartIndex`). */
  readonly party: Side | null;
  readonly counterpartIndex: number;
}

/** How a consumer pays and gets paid. Rates are expected counts per day. */
export interface ConsumerBehaviour {
  readonly kind: 'consumer';
  /** Multiplier of discretionary amounts (income level). */
  readonly spendScale: number;
  readonly cardRate: number;
  readonly atmRate: number;
  readonly p2pRate: number;
  readonly merchantRate: number;
  readonly topUpRate: number;
  readonly cashDepositRate: number;
  /** Chance per day of starting a trip abroad. */
  readonly travelRate: number;
  /** Salary from an external employer (a customer business pays its employees itself). */
  salary: MonthlyPayment | null;
  /** Whether a customer business pays this consumer's salary. */
  employedByCustomer: boolean;
  readonly rent: MonthlyPayment | null;
  readonly bills: readonly MonthlyPayment[];
  /** A round monthly transfer to the consumer's own savings account elsewhere. */
  readonly savings: MonthlyPayment | null;
  /** Own account elsewhere: where top-ups come from and savings and sweeps go. */
  readonly ownExternal: Side;
  /** Moves most of each salary (monthly) or client payment (weekly) to its own account elsewhere within hours. */
  readonly sweep: 'monthly' | 'weekly' | null;
  /** Clients of a weekly sweeper (a freelancer), who pay it by transfer. */
  readonly clients: readonly Side[];
  /** Monthly remittance to a relative abroad. */
  readonly remittance: MonthlyPayment | null;
  /**
   * A one-off honest look-alike: a large purchase just below the reporting threshold, gifts to
   * several contacts on one day, or a loan to a contact repaid weeks later (a two-hop cycle).
   */
  readonly oneOff: { readonly kind: 'large_purchase' | 'distribution' | 'loan'; readonly day: number } | null;
  /** After an honest break, comes back with a large sum in and most of it paid out (a look-alike of a burst after dormancy). */
  returnsWithSum: boolean;
  readonly contacts: number[];
  readonly favouriteBusinesses: number[];
}

/** How a business pays and gets paid. */
export interface BusinessBehaviour {
  readonly kind: 'business';
  /** Multiplier of amounts (size of the business). */
  readonly size: number;
  readonly sector: 'SHOP' | 'RESTAURANT' | 'SERVICES';
  /** Whether it banks its cash takings (a cash-intensive business). */
  readonly cashTakingsRate: number;
  /** Card-takings settlements from the acquirer per business day. */
  readonly settlementRate: number;
  readonly supplierRate: number;
  readonly suppliers: number;
  readonly rent: MonthlyPayment;
  /** Day of the month it pays salaries. */
  readonly payday: number;
  /** Employees who are customers, with their monthly pay. */
  readonly employees: { readonly index: number; readonly amount: number }[];
  /** Popularity among consumers (weights the choice of favourite businesses). */
  readonly popularity: number;
}

/** A customer. */
export interface UserProfile {
  readonly index: number;
  readonly userId: string;
  readonly type: 'CONSUMER' | 'BUSINESS';
  readonly country: ResidenceCountry;
  readonly currency: string;
  /** Units of the account currency per EUR (amounts are modelled in EUR, then converted). */
  readonly fx: number;
  readonly nationality: string;
  readonly displayName: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly dateOfBirth: string;
  readonly createdTimestamp: number;
  readonly account: PaymentDetails;
  readonly card: PaymentDetails | null;
  /** Hours local time is ahead of UTC (standard time; used to place the day's activity). */
  readonly utcOffset: number;
  readonly behaviour: ConsumerBehaviour | BusinessBehaviour;
  /** First day (from the start) with ordinary activity: the day the account opened, or 0. */
  activeFromDay: number;
  /** Day from which ordinary activity stops (a dormant account); the history's length otherwise. */
  activeUntilDay: number;
  /** An honest break: no activity from `breakFromDay` until before `breakUntilDay`. */
  breakFromDay: number;
  breakUntilDay: number;
  /** Whether it rents flats to other customers (they pay it rent). */
  landlord: boolean;
  /** The scheme it takes part in, if any. */
  scheme: SchemeLabel | null;
}

/** Shares and medians of the population (docs/typologies.md). */
export const POPULATION = Object.freeze({
  businessShare: 0.04,
  migrantShare: 0.12,
  joinedDuringShare: 0.08,
  salariedShare: 0.72,
  renterShare: 0.55,
  landlordShare: 0.004,
  customerLandlordShare: 0.015,
  customerEmployerShare: 0.08,
  savingsShare: 0.25,
  monthlySweeperShare: 0.02,
  weeklySweeperShare: 0.004,
  remitterShare: 0.6,
  returnerShare: 0.015,
  returnWithSumShare: 0.1,
  loanShare: 0.01,
  largePurchaseShare: 0.003,
  distributionShare: 0.0005,
  /** Share of shops and restaurants that bank cash takings (a quarter of all businesses). */
  cashTakingsShare: 0.375,
});

/** Median monthly net income by country, EUR. */
const MEDIAN_INCOME_EUR: Readonly<Record<ResidenceCountry, number>> = Object.freeze({
  DE: 2900,
  FR: 2400,
  ES: 1800,
  IT: 1900,
  NL: 3000,
  GB: 2700,
  US: 4000,
  PL: 1400,
  SE: 2800,
  CH: 5500,
});

const UTC_OFFSET: Readonly<Record<ResidenceCountry, number>> = Object.freeze({ DE: 1, FR: 1, ES: 1, IT: 1, NL: 1, GB: 0, US: -5, PL: 1, SE: 1, CH: 1 });

/** External employers per country (salaries come from one of them). */
export const EMPLOYERS_PER_COUNTRY = 400;
/** External billers per country. */
export const BILLERS_PER_COUNTRY = 12;
/** External suppliers per country. */
export const SUPPLIERS_PER_COUNTRY = 300;

/** A user id: `u-` and the index, zero-padded to `width` digits. */
export function formatUserId(index: number, width: number): string {
  return `u-${String(index).padStart(width, '0')}`;
}

/** Digits of user ids for `users` customers (at least 6, so ids look alike at every size). */
export function userIdWidth(users: number): number {
  return Math.max(6, String(users - 1).length);
}

interface PopulationContext {
  readonly random: Random;
  readonly start: number;
  readonly days: number;
  readonly width: number;
}

/** Amount in `currency` of an EUR amount, rounded to `step` units of the currency (0: to cents). */
export function localAmount(amountEur: number, fx: number, step = 0): number {
  const local = amountEur * fx;
  return step > 0 ? Math.max(step, Math.round(local / step) * step) : roundAmount(local);
}

function drawIdentity(context: PopulationContext, index: number) {
  const { random, start, days } = context;
  const type = random.chance(POPULATION.businessShare) ? 'BUSINESS' : 'CONSUMER';
  const country = pickResidence(random);
  let nationality: string = country;
  if (type === 'CONSUMER' && random.chance(POPULATION.migrantShare)) {
    do nationality = pickMigrantNationality(random);
    while (nationality === country);
  }
  const joinedDuring = type === 'CONSUMER' && random.chance(POPULATION.joinedDuringShare);
  // Accounts opened during the history start their activity that day; the others up to eight years before it.
  const created = joinedDuring ? start + Math.floor(random.uniform(0, days) * DAY_MS) : start - Math.floor(random.uniform(30, 2920) * DAY_MS);
  const person = drawPersonName(random, nationality);
  const legalName = type === 'BUSINESS' ? drawCompanyName(random, country) : '';
  const age = random.int(18, 82);
  const birth = new Date(start - age * 365.25 * DAY_MS - random.int(0, 364) * DAY_MS);
  return {
    index,
    userId: formatUserId(index, context.width),
    type,
    country,
    currency: HOME_CURRENCY[country],
    fx: unitsPerEur(HOME_CURRENCY[country]),
    nationality,
    firstName: person.firstName,
    lastName: person.lastName,
    displayName: type === 'BUSINESS' ? legalName : `${person.firstName} ${person.lastName}`,
    dateOfBirth: birth.toISOString().slice(0, 10),
    createdTimestamp: created,
    // From the day after the account opened, so that no payment comes before its opening instant.
    activeFromDay: joinedDuring ? Math.floor((created - start) / DAY_MS) + 1 : 0,
  } as const;
}

function drawCard(random: Random, country: string, holder: { firstName: string; lastName: string }): PaymentDetails {
  return {
    method: 'CARD',
    cardFingerprint: `cf-${drawDigits(random, 16)}`,
    cardIssuedCountry: country,
    cardBrand: random.chance(0.6) ? 'VISA' : 'MASTERCARD',
    cardFunding: random.chance(0.85) ? 'DEBIT' : 'CREDIT',
    cardType: random.chance(0.3) ? 'VIRTUAL' : 'PHYSICAL',
    cardLast4Digits: drawDigits(random, 4),
    nameOnCard: { firstName: holder.firstName, lastName: holder.lastName },
  };
}

function monthly(day: number, amount: number, party: Side | null, variable = false, counterpartIndex = -1): MonthlyPayment {
  return { day, amount, variable, party, counterpartIndex };
}

function drawConsumerBehaviour(random: Random, identity: ReturnType<typeof drawIdentity>, externals: Externals): ConsumerBehaviour {
  const { country, fx } = identity;
  const unit = roundUnit(identity.currency);
  // One activity factor drives all discretionary rates, so busy users are busy at everything (heavy tail).
  const activity = random.logNormal(1, 0.75);
  const income = MEDIAN_INCOME_EUR[country] * random.logNormal(1, 0.45);
  const spendScale = Math.min(4, income / MEDIAN_INCOME_EUR[country]) ** 0.6;
  const salaried = random.chance(POPULATION.salariedShare);
  const salaryDay = random.pick([1, 15, 25, 26, 27, 28, 31]);
  const salary = salaried ? monthly(salaryDay, localAmount(income, fx), externals.employer(country, random.int(0, EMPLOYERS_PER_COUNTRY - 1))) : null;
  const renter = random.chance(POPULATION.renterShare);
  // Rents are whole figures: to 10 units mostly, to 50 often (so some are multiples of 100).
  const rentStep = (random.chance(0.6) ? 10 : 50) * unit;
  const rent = renter ? monthly(random.pick([1, 1, 1, 2, 3, 28, 30]), localAmount(income * random.uniform(0.22, 0.4), fx, rentStep), null) : null;
  const bills: MonthlyPayment[] = [];
  const billCount = random.int(2, 4);
  for (let i = 0; i < billCount; i++) {
    // Billers 0–3 are utilities (variable bills), the others telecoms, insurers and subscriptions (fixed).
    const biller = random.int(0, BILLERS_PER_COUNTRY - 1);
    const amountEur = random.logNormal(biller < 4 ? 85 : 35, 0.35);
    bills.push(monthly(random.int(1, 28), localAmount(amountEur, fx), externals.biller(country, biller), biller < 4));
  }
  const ownExternal = drawExternalPerson(random, country);
  const savings = random.chance(POPULATION.savingsShare)
    ? monthly(random.pick([1, 2, 26, 28]), random.pick([50, 100, 100, 150, 200, 250, 300, 500, 1000]) * unit, ownExternal)
    : null;
  const sweep = salaried ? (random.chance(POPULATION.monthlySweeperShare) ? 'monthly' : null) : random.chance(POPULATION.weeklySweeperShare) ? 'weekly' : null;
  const clients = sweep === 'weekly' ? [0, 1, 2].map(() => drawExternalCompany(random, country)) : [];
  const migrant = identity.nationality !== country;
  const remittance =
    migrant && random.chance(POPULATION.remitterShare)
      ? monthly(
          random.int(1, 28),
          localAmount(random.logNormal(250, 0.6) * Math.min(2, spendScale), fx),
          drawExternalPerson(random, identity.nationality),
          true,
        )
      : null;
  const oneOff = drawOneOff(random.next());
  return {
    kind: 'consumer',
    spendScale,
    cardRate: 0.42 * activity * random.logNormal(1, 0.35),
    atmRate: 0.045 * random.logNormal(1, 0.8),
    p2pRate: 0.06 * activity * random.logNormal(1, 0.6),
    merchantRate: 0.04 * activity,
    topUpRate: salaried ? 0.01 : 0.08 * random.logNormal(1, 0.5),
    cashDepositRate: 0.004,
    travelRate: (1 / 200) * random.logNormal(1, 0.6),
    salary,
    employedByCustomer: false,
    rent,
    bills,
    savings,
    ownExternal,
    sweep,
    clients,
    remittance,
    oneOff,
    returnsWithSum: false,
    contacts: [],
    favouriteBusinesses: [],
  };
}

function drawOneOff(draw: number): ConsumerBehaviour['oneOff'] {
  const { largePurchaseShare, distributionShare, loanShare } = POPULATION;
  if (draw < largePurchaseShare) return { kind: 'large_purchase', day: -1 };
  if (draw < largePurchaseShare + distributionShare) return { kind: 'distribution', day: -1 };
  if (draw < largePurchaseShare + distributionShare + loanShare) return { kind: 'loan', day: -1 };
  return null;
}

function drawBusinessBehaviour(random: Random, identity: ReturnType<typeof drawIdentity>, externals: Externals): BusinessBehaviour {
  const size = random.logNormal(1, 0.8);
  const sector = random.pick(['SHOP', 'RESTAURANT', 'SERVICES'] as const);
  const cashIntensive = sector !== 'SERVICES' && random.chance(POPULATION.cashTakingsShare);
  return {
    kind: 'business',
    size,
    sector,
    cashTakingsRate: cashIntensive ? 0.3 : 0,
    settlementRate: sector === 'SERVICES' ? 0 : 0.9,
    supplierRate: 0.25 * Math.sqrt(size),
    suppliers: random.int(3, 12),
    rent: monthly(
      random.int(1, 5),
      localAmount(random.logNormal(1800, 0.6) * size ** 0.5, identity.fx, 10),
      externals.supplier(identity.country, random.int(0, SUPPLIERS_PER_COUNTRY - 1)),
    ),
    payday: random.pick([25, 28, 31]),
    employees: [],
    popularity: random.logNormal(1, 1.0),
  };
}

/**
 * Draws the population: identities, behaviours, then the relations between customers (contacts,
 * employees, tenants, favourite businesses), all from one stream in a fixed order.
 */
export function drawPopulation(seed: number, users: number, start: number, days: number, externals: Externals): UserProfile[] {
  const random = createRandom(deriveSeed(seed, STREAMS.population));
  const context: PopulationContext = { random, start, days, width: userIdWidth(users) };
  const profiles: UserProfile[] = [];
  for (let index = 0; index < users; index++) {
    const identity = drawIdentity(context, index);
    const holder = identity.displayName;
    const account = drawOwnAccount(random, identity.country, holder);
    const card = identity.type === 'CONSUMER' ? drawCard(random, identity.country, identity) : null;
    const behaviour = identity.type === 'CONSUMER' ? drawConsumerBehaviour(random, identity, externals) : drawBusinessBehaviour(random, identity, externals);
    profiles.push({
      ...identity,
      account,
      card,
      utcOffset: UTC_OFFSET[identity.country],
      behaviour,
      activeUntilDay: days,
      breakFromDay: days,
      breakUntilDay: days,
      landlord: false,
      scheme: null,
    });
  }
  relate(random, profiles, days);
  return profiles;
}

function relate(random: Random, profiles: UserProfile[], days: number): void {
  const consumersByCountry = new Map<string, UserProfile[]>();
  const businessesByCountry = new Map<string, UserProfile[]>();
  for (const p of profiles) {
    const map = p.type === 'CONSUMER' ? consumersByCountry : businessesByCountry;
    const list = map.get(p.country) ?? [];
    list.push(p);
    map.set(p.country, list);
  }
  const consumers = profiles.filter((p) => p.type === 'CONSUMER');
  for (const p of consumers) {
    const b = p.behaviour as ConsumerBehaviour;
    if (random.chance(POPULATION.landlordShare) && p.activeFromDay === 0) p.landlord = true;
    // Honest returners: accounts without salary that go quiet for a long while and come back.
    if (b.salary === null && random.chance(POPULATION.returnerShare)) {
      const gap = Math.max(7, Math.floor(days / 2)) + random.int(0, 10);
      const from = random.int(1, Math.max(1, days - gap - 1));
      p.breakFromDay = from;
      p.breakUntilDay = from + gap;
      b.returnsWithSum = random.chance(POPULATION.returnWithSumShare);
    }
    if (b.oneOff !== null) (b.oneOff as { day: number }).day = random.int(0, days - 1);
  }
  for (const p of consumers) drawContacts(random, p, consumersByCountry.get(p.country) ?? [], consumers);
  for (const p of consumers) {
    const b = p.behaviour as ConsumerBehaviour;
    const local = businessesByCountry.get(p.country) ?? [];
    const favourites = random.poisson(1.2);
    for (let i = 0; i < favourites && local.length > 0; i++) {
      const chosen = pickByPopularity(random, local);
      if (!b.favouriteBusinesses.includes(chosen.index)) b.favouriteBusinesses.push(chosen.index);
    }
    if (b.salary !== null && local.length > 0 && random.chance(POPULATION.customerEmployerShare) && p.activeFromDay === 0) {
      const employer = pickByPopularity(random, local);
      (employer.behaviour as BusinessBehaviour).employees.push({ index: p.index, amount: b.salary.amount });
      b.salary = null;
      b.employedByCustomer = true;
    }
  }
  assignLandlords(random, consumers, consumersByCountry);
}

function drawContacts(random: Random, p: UserProfile, sameCountry: readonly UserProfile[], everyone: readonly UserProfile[]): void {
  const b = p.behaviour as ConsumerBehaviour;
  const wanted = 1 + random.poisson(3);
  for (let i = 0; i < wanted && b.contacts.length < 40; i++) {
    const pool = random.chance(0.85) && sameCountry.length > 1 ? sameCountry : everyone;
    const other = random.pick(pool);
    if (other.index === p.index || b.contacts.includes(other.index)) continue;
    // Contacts are mutual: whoever pays a friend is also paid by them.
    b.contacts.push(other.index);
    const ob = other.behaviour as ConsumerBehaviour;
    if (ob.contacts.length < 40) ob.contacts.push(p.index);
  }
}

function pickByPopularity(random: Random, businesses: readonly UserProfile[]): UserProfile {
  // Two candidates, the more popular wins: a cheap preference for popular shops (a skewed, heavy-tailed clientele).
  const a = random.pick(businesses);
  const b = random.pick(businesses);
  return (a.behaviour as BusinessBehaviour).popularity >= (b.behaviour as BusinessBehaviour).popularity ? a : b;
}

function assignLandlords(random: Random, consumers: readonly UserProfile[], byCountry: ReadonlyMap<string, UserProfile[]>): void {
  const landlordsByCountry = new Map<string, UserProfile[]>();
  for (const p of consumers) {
    if (!p.landlord) continue;
    const list = landlordsByCountry.get(p.country) ?? [];
    list.push(p);
    landlordsByCountry.set(p.country, list);
  }
  for (const [country, people] of byCountry) {
    const landlords = landlordsByCountry.get(country) ?? [];
    for (const p of people) {
      const b = p.behaviour as ConsumerBehaviour;
      if (b.rent === null) continue;
      const rent = b.rent;
      if (landlords.length > 0 && !p.landlord && random.chance(POPULATION.customerLandlordShare)) {
        const landlord = random.pick(landlords);
        (b as { rent: MonthlyPayment }).rent = { ...rent, party: null, counterpartIndex: landlord.index };
      } else {
        (b as { rent: MonthlyPayment }).rent = {
          ...rent,
          party: random.chance(0.5) ? drawExternalPerson(random, country) : drawExternalCompany(random, country),
        };
      }
    }
  }
}

/** Whether a customer has ordinary activity on `day` (opened, not dormant, not on a break). */
export function isActive(p: UserProfile, day: number): boolean {
  return day >= p.activeFromDay && day < p.activeUntilDay && (day < p.breakFromDay || day >= p.breakUntilDay);
}

/** The wire body of `POST /consumer/users` or `POST /business/users` for a customer. */
export function toUserRecord(p: UserProfile): ConsumerUser | BusinessUser {
  const common = {
    userId: p.userId,
    createdTimestamp: p.createdTimestamp,
    userStateDetails: { state: 'ACTIVE' as const },
    kycStatusDetails: { status: 'SUCCESSFUL' as const },
  };
  if (p.type === 'BUSINESS') {
    const b = p.behaviour as BusinessBehaviour;
    return {
      ...common,
      legalEntity: {
        companyGeneralDetails: { legalName: p.displayName, businessIndustry: [b.sector], userSegment: b.size > 2 ? 'MEDIUM' : 'SMALL' },
        companyRegistrationDetails: { registrationCountry: p.country, dateOfRegistration: new Date(p.createdTimestamp).toISOString().slice(0, 10) },
      },
    };
  }
  return {
    ...common,
    userDetails: {
      name: { firstName: p.firstName, lastName: p.lastName },
      dateOfBirth: p.dateOfBirth,
      countryOfResidence: p.country,
      countryOfNationality: p.nationality,
    },
    userSegment: 'RETAIL',
  };
}
