/**
 * Which aggregate series the repositories hold, and bringing them in line with what the active
 * instances read: a series an instance starts reading is filled from the stored transactions, one
 * no instance reads any more is dropped. Keeping only the series read saves a write per series on
 * every transaction.
 */
import type { SeriesEntry } from '../../aggregation/aggregate-store.js';
import type { Repositories } from '../repositories.js';
import { SERIES_NAMES, contributionsOf, type DerivedSeries, type SeriesName } from '../../rules/series.js';
import type { MoneyContext } from '../../rules/types.js';
import type { SeriesWanted } from './prepare-instance.js';

/** The series held: built-in ones by name, derived (filtered) ones by name. */
export interface KeptSeries {
  readonly bases: ReadonlySet<SeriesName>;
  readonly derived: readonly DerivedSeries[];
}

/** See {@link createSeriesCatalog} and {@link createSharedSeriesCatalog}. */
export interface SeriesCatalog {
  /** Brings the held series in line with the active instances just prepared (`wanted` is what they read). */
  onRefresh(wanted: SeriesWanted, repositories: Repositories): Promise<void>;
  /**
   * Before a rule-instance write stores: fills the series the instances after it read that are not
   * held (`before` and `after`: what the active instances read before and after the write).
   */
  beforeWrite(before: SeriesWanted, after: SeriesWanted, repositories: Repositories): Promise<void>;
  /**
   * Refills the held series among `names` whole from the stored transactions (a prune left less
   * of them than an instance now reads).
   */
  refill(names: ReadonlySet<string>, repositories: Repositories): Promise<void>;
  /** The series held now (a snapshot). */
  kept(): KeptSeries;
  /**
   * Stops trusting that held entries carry their values: after entries were written without them,
   * after a failed instance write, or when another engine changed the instances.
   */
  distrustValues(): void;
}

/** Fills `bases` and `derived` from every stored transaction, in one scan. */
async function fillFromHistory(
  repositories: Repositories,
  money: MoneyContext,
  bases: ReadonlySet<SeriesName>,
  derived: readonly DerivedSeries[],
  values: boolean,
): Promise<void> {
  if (bases.size === 0 && derived.length === 0) return;
  const filled = new Map<string, SeriesEntry[]>();
  for (const name of [...bases, ...derived.map((d) => d.name)]) filled.set(name, []);
  for await (const transaction of repositories.transactions.scanTransactions()) {
    for (const entry of contributionsOf(transaction, bases, money, derived, values)) filled.get(entry.series)?.push(entry);
  }
  for (const [name, entries] of filled) await repositories.aggregates.replaceSeries(name, entries);
}

/** Refills the series of `kept` named in `names` from every stored transaction, with entry values. */
function refillKept(repositories: Repositories, money: MoneyContext, kept: KeptSeries, names: ReadonlySet<string>): Promise<void> {
  const bases = new Set([...kept.bases].filter((base) => names.has(base)));
  return fillFromHistory(
    repositories,
    money,
    bases,
    kept.derived.filter((d) => names.has(d.name)),
    true,
  );
}

/**
 * The catalogue of a store one process uses: the series it holds are those the active instances
 * read, filled on demand. It trusts, conservatively, that every held entry carries its values
 * (distinct counts read them) only while that is certain.
 */
export function createSeriesCatalog(money: MoneyContext): SeriesCatalog {
  const bases = new Set<SeriesName>();
  const derived = new Map<string, DerivedSeries>();
  let entriesHaveValues = true;

  /** Whether every held series is one `wanted` names or one just filled. */
  const keptOnly = (filledBases: ReadonlySet<SeriesName>, filledDerived: readonly DerivedSeries[], wanted: SeriesWanted): boolean => {
    for (const base of bases) if (!wanted.bases.has(base) && !filledBases.has(base)) return false;
    for (const name of derived.keys()) if (!wanted.derived.has(name) && !filledDerived.some((d) => d.name === name)) return false;
    return true;
  };

  async function fill(wanted: SeriesWanted, repositories: Repositories): Promise<void> {
    // Entries held without values cannot answer a value read: when values become wanted, every
    // wanted series is filled afresh.
    const refill = wanted.values && !entriesHaveValues;
    const newBases = new Set([...wanted.bases].filter((b) => refill || !bases.has(b)));
    const newDerived = [...wanted.derived.values()].filter((d) => refill || !derived.has(d.name));
    await fillFromHistory(repositories, money, newBases, newDerived, wanted.values);
    for (const b of newBases) bases.add(b);
    for (const d of newDerived) derived.set(d.name, d);
    // After a refill every wanted series has its values; a series held beyond them was not
    // refilled and may lack them, so the trust comes back only when no such series is held.
    if (!wanted.values) entriesHaveValues = false;
    else if (refill) entriesHaveValues = keptOnly(newBases, newDerived, wanted);
  }

  async function drop(wanted: SeriesWanted, repositories: Repositories): Promise<void> {
    for (const base of [...bases]) {
      if (wanted.bases.has(base)) continue;
      await repositories.aggregates.replaceSeries(base, []);
      bases.delete(base);
    }
    for (const name of [...derived.keys()]) {
      if (wanted.derived.has(name)) continue;
      await repositories.aggregates.replaceSeries(name, []);
      derived.delete(name);
    }
  }

  return {
    async onRefresh(wanted, repositories) {
      await drop(wanted, repositories);
      await fill(wanted, repositories);
    },
    beforeWrite(_before, after, repositories) {
      // Series no longer read are dropped by the refresh that follows the write.
      return fill(after, repositories);
    },
    refill(names, repositories) {
      return refillKept(repositories, money, { bases, derived: [...derived.values()] }, names);
    },
    kept() {
      return { bases: new Set(bases), derived: [...derived.values()] };
    },
    distrustValues() {
      entriesHaveValues = false;
    },
  };
}

/**
 * The catalogue of a store shared across processes: every built-in series is held at all times,
 * with entry values, so no process ever fills one while another writes to it. A derived series
 * (historical filters) is filled by the rule-instance write that makes an active instance read it
 * and dropped by the one that makes no active instance read it any more — inside that write's
 * exclusive unit, so every process sees the series exactly when it sees the instances that read
 * it. A write changes only what the instances before and after it differ in; a process that
 * prepares the instances of a revision another process wrote changes nothing.
 */
export function createSharedSeriesCatalog(money: MoneyContext): SeriesCatalog {
  const bases: ReadonlySet<SeriesName> = new Set(SERIES_NAMES);
  /** The derived series of the instances this process prepared last. */
  let derived: ReadonlyMap<string, DerivedSeries> = new Map();
  return {
    async onRefresh(wanted) {
      derived = new Map(wanted.derived);
    },
    async beforeWrite(before, after, repositories) {
      const added = [...after.derived.values()].filter((d) => !before.derived.has(d.name));
      await fillFromHistory(repositories, money, new Set(), added, true);
      for (const name of before.derived.keys()) if (!after.derived.has(name)) await repositories.aggregates.replaceSeries(name, []);
    },
    refill(names, repositories) {
      return refillKept(repositories, money, { bases, derived: [...derived.values()] }, names);
    },
    kept() {
      return { bases, derived: [...derived.values()] };
    },
    distrustValues() {
      // Entries always carry their values here.
    },
  };
}
