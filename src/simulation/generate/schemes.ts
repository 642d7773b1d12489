/**
 * Deals the injected schemes out: how many of each typology, which customers take part, and what
 * must be fixed before the history is drafted. Accounts are drawn from a shuffled list of the
 * candidates, so nothing about an account (its id, its country, its activity) marks it in advance.
 */
import type { ResolvedGenerateOptions } from './options.js';
import type { UserProfile } from './population.js';
import { STREAMS, createRandom, deriveSeed, shuffled } from './random.js';
import { TYPOLOGY_MODULES } from './typologies/index.js';
import { isCandidate } from './typologies/shared.js';
import type { SchemeLabel, Typology } from './types.js';

/** One planned scheme. */
export interface SchemePlan {
  readonly label: SchemeLabel;
  /** Its accounts, the key account first (collector, disperser, mule, origin …). */
  readonly accounts: readonly UserProfile[];
  /** Seed of the stream its transactions are drafted from. */
  readonly seed: number;
  readonly params: Readonly<Record<string, number>>;
}

/** At most this share of the customers takes part in schemes, whatever the options ask. */
export const MAX_PARTICIPANT_SHARE = 0.3;

/**
 * Schemes per typology: the account budget (`users × typologyRate`) shared evenly between the chosen
 * typologies' rounds — one scheme of each per round, a round taking the sum of their mean scheme
 * sizes — and never fewer than `minSchemes`.
 */
export function schemesPerTypology(options: ResolvedGenerateOptions): number {
  if (options.typologies.length === 0) return 0;
  const accountsPerRound = options.typologies.reduce((sum, t) => sum + TYPOLOGY_MODULES[t].meanAccounts, 0);
  return Math.max(options.minSchemes, Math.round((options.users * options.typologyRate) / accountsPerRound));
}

/** A scheme id: `s-` and its number, zero-padded to 4 digits. */
export function formatSchemeId(n: number): string {
  return `s-${String(n).padStart(4, '0')}`;
}

/**
 * Plans the schemes: typologies take turns (one scheme each per round), each scheme takes the
 * first candidates of the shuffled list its typology accepts. A scheme that cannot find enough
 * accounts is left out, and planning stops when {@link MAX_PARTICIPANT_SHARE} of the customers take part.
 * Marks each account's `scheme` and lets the typology fix what it must (e.g. a dormancy).
 */
export function planSchemes(options: ResolvedGenerateOptions, profiles: readonly UserProfile[]): SchemePlan[] {
  const random = createRandom(deriveSeed(options.seed, STREAMS.plan));
  const pool = shuffled(random, profiles.filter(isCandidate));
  const budget = Math.floor(profiles.length * MAX_PARTICIPANT_SHARE);
  const rounds = schemesPerTypology(options);
  const plans: SchemePlan[] = [];
  let taken = 0;
  // Taken accounts gather at the front of the list: the scan starts after them.
  let cursor = 0;
  for (let round = 0; round < rounds; round++) {
    for (const typology of options.typologies) {
      const module = TYPOLOGY_MODULES[typology];
      const size = module.drawSize(random);
      if (taken + size > budget) return plans;
      while (cursor < pool.length && !isCandidate(pool[cursor] as UserProfile)) cursor += 1;
      const accounts = chooseAccounts(pool, cursor, size, (candidate, chosen) => isCandidate(candidate) && module.accepts(candidate, chosen));
      if (accounts === null) continue;
      const number = plans.length + 1;
      const label = { typology, scheme: formatSchemeId(number) } as const;
      for (const p of accounts) p.scheme = label;
      taken += accounts.length;
      const params = module.prepare?.(createRandom(deriveSeed(options.seed, STREAMS.plan, number)), accounts, options.days) ?? {};
      plans.push({ label, accounts, seed: deriveSeed(options.seed, STREAMS.scheme, number), params });
    }
  }
  return plans;
}

function chooseAccounts(
  pool: readonly UserProfile[],
  from: number,
  size: number,
  accepts: (candidate: UserProfile, chosen: readonly UserProfile[]) => boolean,
): UserProfile[] | null {
  const chosen: UserProfile[] = [];
  for (let i = from; i < pool.length && chosen.length < size; i++) {
    const candidate = pool[i] as UserProfile;
    if (!chosen.includes(candidate) && accepts(candidate, chosen)) chosen.push(candidate);
  }
  return chosen.length === size ? chosen : null;
}

/** Typologies of the plans, counted. */
export function countSchemes(plans: readonly SchemePlan[]): Record<Typology, number> {
  const counts = { structuring: 0, fan_in: 0, fan_out: 0, pass_through: 0, dormancy_burst: 0, round_amounts: 0, high_risk_corridor: 0, cycle: 0 };
  for (const plan of plans) counts[plan.label.typology] += 1;
  return counts;
}
