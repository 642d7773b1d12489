import type { AggregateStore, SeriesEntry } from '../../aggregation/aggregate-store.js';
import type { AggregateRepository } from '../../engine/repositories.js';
import { TxmonError } from '../../errors.js';

/** The aggregate port over an in-process aggregate store. */
export function createMemoryAggregates(aggregates: AggregateStore): AggregateRepository {
  return {
    async query(queries) {
      return aggregates.queryMany(queries);
    },
    async entries(series, key) {
      return aggregates.entries(series, key);
    },
    async replaceSeries(series, entries) {
      // Check everything first: a rejected call changes nothing.
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i] as SeriesEntry;
        if (entry.series !== series) {
          const path = `/${i}/series`;
          throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${path} must name the replaced series`, [
            { path, code: 'const', message: 'must name the replaced series' },
          ]);
        }
        if (!Number.isFinite(entry.timestamp)) {
          const path = `/${i}/timestamp`;
          throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${path} must be a finite number`, [
            { path, code: 'type', message: 'must be a finite number' },
          ]);
        }
      }
      aggregates.dropSeries(series);
      aggregates.apply([], entries);
    },
    async prune(horizons) {
      let dropped = 0;
      for (const [series, horizon] of horizons) dropped += aggregates.pruneBefore(horizon, series);
      return dropped;
    },
    async retainedFrom() {
      return aggregates.retainedFrom();
    },
  };
}
