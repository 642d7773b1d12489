/**
 * High-risk corridor: repeated sizeable transfers to (or from) a beneficiary in a jurisdiction on
 * FATF's call-for-action list, often funded by a deposit just before, within days or weeks.
 */
import { drawReference } from '../drafting.js';
import { HOUR_MS } from '../../../domain/index.js';
import { HIGH_RISK_COUNTRIES } from '../geography.js';
import { drawExternalCompany, drawExternalPerson } from '../parties.js';
import type { ConsumerBehaviour } from '../population.js';
import { createWeightedPicker } from '../random.js';
import {
  accountOf,
  depositInto,
  amountFor,
  cashSide,
  distinctDays,
  drawDomesticParty,
  drawStartDay,
  fitSpan,
  hoursAfter,
  isCandidate,
  schemeTransaction,
  timeOn,
  unitOf,
  type TypologyModule,
} from './shared.js';

/** Parameters of the high-risk-corridor typology (docs/typologies.md). */
export const HIGH_RISK_CORRIDOR = Object.freeze({
  /** Countries and how often each is the corridor's other end. */
  countries: HIGH_RISK_COUNTRIES,
  countryWeights: [5, 3, 2],
  /** Transfers to (or from) the high-risk country per scheme. */
  transfers: { min: 2, max: 5 },
  /** Days from the first to the last. */
  spanDays: { min: 3, max: 21 },
  /** Each transfer, EUR equivalent. */
  amountEur: { min: 1500, max: 12000 },
  /** Share of schemes where the money comes from the high-risk country (and leaves to a domestic stranger within 1–3 days). */
  inboundShare: 0.25,
  /** Share of outbound transfers funded by a deposit (cash or from a stranger) of 100–105 % of it, 1–48 hours before. */
  fundedShare: 0.5,
});

const pickCountry = createWeightedPicker(HIGH_RISK_CORRIDOR.countries, HIGH_RISK_CORRIDOR.countryWeights);

/** The high-risk-corridor typology: one account. */
export const highRiskCorridor: TypologyModule = {
  typology: 'high_risk_corridor',
  meanAccounts: 1,
  drawSize: () => 1,
  // An honest remitter to a high-risk country would mix honest and injected transfers of the same corridor: kept apart.
  accepts: (candidate) => {
    if (!isCandidate(candidate)) return false;
    const country = (candidate.behaviour as ConsumerBehaviour).remittance?.party?.country;
    return country === undefined || !(HIGH_RISK_COUNTRIES as readonly string[]).includes(country);
  },
  draft(context) {
    const { random } = context;
    const p = context.accounts[0];
    if (p === undefined) return;
    const country = pickCountry(random);
    const span = fitSpan(context, random.int(HIGH_RISK_CORRIDOR.spanDays.min, HIGH_RISK_CORRIDOR.spanDays.max), 4);
    const count = Math.min(random.int(HIGH_RISK_CORRIDOR.transfers.min, HIGH_RISK_CORRIDOR.transfers.max), span + 1);
    const first = drawStartDay(context, span, 4);
    const parties = Array.from({ length: random.int(1, 2) }, () =>
      random.chance(0.6) ? drawExternalPerson(random, country) : drawExternalCompany(random, country),
    );
    const inbound = random.chance(HIGH_RISK_CORRIDOR.inboundShare);
    for (const day of distinctDays(random, first, span, count)) {
      const at = timeOn(context, day, 'office', p);
      const amountEur = random.uniform(HIGH_RISK_CORRIDOR.amountEur.min, HIGH_RISK_CORRIDOR.amountEur.max);
      const party = random.pick(parties);
      const reference = drawReference(random, amountEur);
      const withReference = reference === undefined ? {} : { reference };
      if (inbound) {
        const received = amountFor(p, amountEur);
        depositInto(context, party, p, received, at, reference);
        const onward = Math.round(received * random.uniform(0.8, 1) * 100) / 100;
        schemeTransaction(context, {
          type: 'TRANSFER',
          timestamp: hoursAfter(random, at, 24, 72),
          origin: accountOf(p),
          destination: drawDomesticParty(random, p.country),
          amount: onward,
        });
        continue;
      }
      const amount = amountFor(p, amountEur);
      if (random.chance(HIGH_RISK_CORRIDOR.fundedShare)) {
        const funding = Math.ceil((amount * random.uniform(1, 1.05)) / (10 * unitOf(p))) * 10 * unitOf(p);
        const origin = random.chance(0.5) ? cashSide(random, p) : drawDomesticParty(random, p.country);
        // Up to two days before, but never before the history starts.
        const back = Math.min(48, (at - context.start) / HOUR_MS);
        depositInto(context, origin, p, funding, hoursAfter(random, at, -back, -Math.min(1, back)));
      }
      schemeTransaction(context, { type: 'TRANSFER', timestamp: at, origin: accountOf(p), destination: party, amount, ...withReference });
    }
  },
};
