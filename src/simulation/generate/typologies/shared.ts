/**
 * What every typology module is and the helpers they share: drafting a scheme's payments with its
 * label, placing them in time, and the parties schemes deal with.
 */
import { DAY_MS, HOUR_MS } from '../../../domain/index.js';
import { dayInfo, drawTimeOn, type DayProfile } from '../calendar.js';
import { customerSide, type Drafter, type TransactionSpec } from '../drafting.js';
import { OFFSHORE_COUNTRIES, REPORTING_THRESHOLD, convertAmount, roundUnit } from '../geography.js';
import { cashPayment, drawExternalCompany, drawExternalPerson, type Externals } from '../parties.js';
import { localAmount, type UserProfile } from '../population.js';
import type { Random } from '../random.js';
import type { DraftTransaction, SchemeLabel, Side, Typology } from '../types.js';

/** Everything a typology needs to draft one scheme. */
export interface SchemeContext {
  readonly random: Random;
  /** The scheme's accounts, in the order the typology chose them (the first is its key account). */
  readonly accounts: readonly UserProfile[];
  readonly label: SchemeLabel;
  /** First instant of the history (epoch ms) and its length in days. */
  readonly start: number;
  readonly days: number;
  /** What {@link TypologyModule.prepare} fixed before the history was drafted. */
  readonly params: Readonly<Record<string, number>>;
  readonly drafter: Drafter;
  readonly externals: Externals;
  readonly push: (draft: DraftTransaction) => void;
}

/** A typology: how big its schemes are, who may take part, and how a scheme is drafted. */
export interface TypologyModule {
  readonly typology: Typology;
  /** Mean number of accounts of a scheme (the planner divides the account budget by it). */
  readonly meanAccounts: number;
  /** Draws the number of accounts of a new scheme. */
  drawSize(random: Random): number;
  /** Whether `candidate` may join a scheme whose accounts so far are `chosen`. */
  accepts(candidate: UserProfile, chosen: readonly UserProfile[]): boolean;
  /** Fixes what the accounts' normal behaviour must know before the history is drafted (e.g. a dormancy). */
  prepare?(random: Random, accounts: readonly UserProfile[], days: number): Readonly<Record<string, number>>;
  /** Drafts the scheme's transactions. */
  draft(context: SchemeContext): void;
}

/** Whether a customer can take part in a scheme at all: a consumer with an account from before the history, in no other scheme. */
export function isCandidate(p: UserProfile): boolean {
  return p.type === 'CONSUMER' && p.activeFromDay === 0 && p.scheme === null && p.breakFromDay >= p.activeUntilDay;
}

/** Whether `candidate` lives where the scheme's first account lives (schemes between customers are domestic). */
export function sameCountryAsFirst(candidate: UserProfile, chosen: readonly UserProfile[]): boolean {
  const first = chosen[0];
  return first === undefined || first.country === candidate.country;
}

/** Drafts one labelled transaction of the scheme. Lifecycles are the always-successful scheme ones. */
export function schemeTransaction(
  context: SchemeContext,
  spec: Omit<TransactionSpec, 'lifecycle' | 'label'> & { readonly lifecycle?: TransactionSpec['lifecycle'] },
): void {
  // Schemes are placed to end a day before the history does; this guard only keeps a miscalculation out of the output.
  if (spec.timestamp < context.start || spec.timestamp >= context.start + context.days * DAY_MS) return;
  const lifecycle = spec.lifecycle ?? (spec.origin.country === spec.destination.country ? 'scheme-domestic' : 'scheme-international');
  context.push(context.drafter.draft(context.random, { ...spec, lifecycle, label: context.label }));
}

/**
 * Money paid into `p`'s account by `payer`: `received` is what arrives, in `p`'s currency; the payer
 * pays it in its own currency (converted at txmon's default rates). Credits are settled on arrival.
 */
export function depositInto(context: SchemeContext, payer: Side, p: UserProfile, received: number, timestamp: number, reference?: string): void {
  const amount = convertAmount(received, p.currency, payer.currency);
  schemeTransaction(context, {
    type: 'DEPOSIT',
    timestamp,
    origin: payer,
    destination: accountOf(p),
    amount,
    destinationAmount: received,
    lifecycle: 'settled',
    ...(reference === undefined ? {} : { reference }),
  });
}

/** A time on day `day` of the history for customer `p`. */
export function timeOn(context: SchemeContext, day: number, profile: DayProfile, p: UserProfile): number {
  return drawTimeOn(context.random, dayInfo(context.start, day), profile, p.utcOffset);
}

/** A random instant `minHours` to `maxHours` after `at`. */
export function hoursAfter(random: Random, at: number, minHours: number, maxHours: number): number {
  return at + Math.floor(random.uniform(minHours, maxHours) * HOUR_MS);
}

/** A first day for a scheme lasting `spanDays`, leaving `tailDays` before the end of the history. */
export function drawStartDay(context: SchemeContext, spanDays: number, tailDays: number): number {
  // Never the first day: payments drafted hours before a scheme's first one stay inside the history.
  return context.random.int(1, Math.max(1, context.days - spanDays - tailDays));
}

/** `span` shortened, when the history is short, so that a scheme of that span and `tailDays` after it fits. */
export function fitSpan(context: SchemeContext, span: number, tailDays: number): number {
  return Math.max(0, Math.min(span, context.days - tailDays - 2));
}

/** `count` distinct days from `first` to `first + span`, both included, ascending (`span + 1 ≥ count`). */
export function distinctDays(random: Random, first: number, span: number, count: number): number[] {
  const chosen = new Set<number>([first, first + span]);
  while (chosen.size < count) chosen.add(random.int(first, first + span));
  return [...chosen].sort((a, b) => a - b);
}

/** An amount in the currency of `p` for an EUR figure (to cents, or to `step` units). */
export function amountFor(p: UserProfile, amountEur: number, step = 0): number {
  return localAmount(amountEur, p.fx, step);
}

/** The reporting threshold of `p`'s currency. */
export function thresholdOf(p: UserProfile): number {
  return REPORTING_THRESHOLD[p.currency] ?? 10000;
}

/** The round unit of `p`'s currency (1, or 5 for PLN, 10 for SEK). */
export function unitOf(p: UserProfile): number {
  return roundUnit(p.currency);
}

/** Cash paid in or out at one of the bank's machines in `p`'s country. */
export function cashSide(random: Random, p: UserProfile): Side {
  return { country: p.country, currency: p.currency, payment: cashPayment(p.country, random.int(0, 399)) };
}

/** A person or company abroad that receives laundered money (not in a high-risk country). */
export function drawOffshoreParty(random: Random): Side {
  const country = random.pick(OFFSHORE_COUNTRIES);
  return random.chance(0.6) ? drawExternalPerson(random, country) : drawExternalCompany(random, country);
}

/** A person or company in `country` who is not a customer. */
export function drawDomesticParty(random: Random, country: string): Side {
  return random.chance(0.7) ? drawExternalPerson(random, country) : drawExternalCompany(random, country);
}

/** The customer's account as a side. */
export function accountOf(p: UserProfile): Side {
  return customerSide(p);
}

/** Splits `total` into `parts` amounts that differ by up to ±`spread` around the mean, to cents, summing to `total`. */
export function splitAmount(random: Random, total: number, parts: number, spread: number): number[] {
  const weights = Array.from({ length: parts }, () => random.uniform(1 - spread, 1 + spread));
  const sum = weights.reduce((a, b) => a + b, 0);
  const out = weights.map((w) => Math.round((total * w * 100) / sum) / 100);
  const drift = Math.round((total - out.reduce((a, b) => a + b, 0)) * 100) / 100;
  out[out.length - 1] = Math.round(((out[out.length - 1] as number) + drift) * 100) / 100;
  return out;
}
