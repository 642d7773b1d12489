/**
 * Which aggregate series the repositories hold, and bringing them in line with what the active
 * instances read: a series an instance starts reading is filled from the stored transactions, one
 * no instance reads any more is dropped. Keeping only the series read saves a write per series on
 * every transaction.
 */
import type { SeriesEntry } from '../../aggregation/aggregate-store.js';
import type { Repositories } from '../../repositories/types.js';
import { contributionsOf, type DerivedSeries, type SeriesName } from '../../rules/series.js';
import type { MoneyContext } from '../../rules/types.js';
import type { SeriesWanted } from './prepare-instance.js';

/** The series held: built-in ones by name, derived (filtered) ones by name. */
export interface KeptSeries {
  readonly bases: ReadonlySet<SeriesName>;
  readonly derived: readonly DerivedSeries[];
}

/** See {@link createSeriesCatalog}. */
export interface SeriesCatalog {
  /** Fills, in one scan of the stored transactions, the wanted series not held yet (all of them when values became wanted and some held entries may lack them). */
  fill(wanted: SeriesWanted): Promise<void>;
  /** Drops the held series that `wanted` does not name. */
  drop(wanted: SeriesWanted): Promise<void>;
  /** The series held now (a snapshot). */
  kept(): KeptSeries;
  /**
   * Stops trusting that held entries carry their values: after entries were written without them,
   * after a failed instance write, or when another engine changed the instances.
   */
  distrustValues(): void;
}

/**
 * A catalogue of the series `repositories` hold for one engine. It trusts, conservatively, that
 * every held entry carries its values (distinct counts read them) only while that is certain.
 */
export function createSeriesCatalog(repositories: Repositories, money: MoneyContext): SeriesCatalog {
  const bases = new Set<SeriesName>();
  const derived = new Map<string, DerivedSeries>();
  let entriesHaveValues = true;

  /** Whether every held series is one `wanted` names or one just filled. */
  const keptOnly = (filledBases: ReadonlySet<SeriesName>, filledDerived: readonly DerivedSeries[], wanted: SeriesWanted): boolean => {
    for (const base of bases) if (!wanted.bases.has(base) && !filledBases.has(base)) return false;
    for (const name of derived.keys()) if (!wanted.derived.has(name) && !filledDerived.some((d) => d.name === name)) return false;
    return true;
  };

  return {
    async fill(wanted) {
      // Entries held without values cannot answer a value read: when values become wanted, every
      // wanted series is filled afresh.
      const refill = wanted.values && !entriesHaveValues;
      const newBases = new Set([...wanted.bases].filter((b) => refill || !bases.has(b)));
      const newDerived = [...wanted.derived.values()].filter((d) => refill || !derived.has(d.name));
      if (newBases.size > 0 || newDerived.length > 0) {
        const filled = new Map<string, SeriesEntry[]>();
        for (const name of [...newBases, ...newDerived.map((d) => d.name)]) filled.set(name, []);
        for await (const transaction of repositories.transactions.scanTransactions()) {
          for (const entry of contributionsOf(transaction, newBases, money, newDerived, wanted.values)) filled.get(entry.series)?.push(entry);
        }
        for (const [name, entries] of filled) await repositories.aggregates.replaceSeries(name, entries);
        for (const b of newBases) bases.add(b);
        for (const d of newDerived) derived.set(d.name, d);
      }
      // After a refill every wanted series has its values; a series held beyond them was not
      // refilled and may lack them, so the trust comes back only when no such series is held.
      if (!wanted.values) entriesHaveValues = false;
      else if (refill) entriesHaveValues = keptOnly(newBases, newDerived, wanted);
    },
    async drop(wanted) {
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
    },
    kept() {
      return { bases: new Set(bases), derived: [...derived.values()] };
    },
    distrustValues() {
      entriesHaveValues = false;
    },
  };
}
