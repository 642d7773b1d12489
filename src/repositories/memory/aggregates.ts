import type { AggregateStore } from '../../aggregation/aggregate-store.js';
import { assertSeriesEntries } from '../../aggregation/checks.js';
import type { AggregateRepository } from '../../engine/repositories.js';

/** The aggregate port over an in-process aggregate store. */
export function createMemoryAggregates(aggregates: AggregateStore): AggregateRepository {
  return {
    async queryAggregates(queries) {
      return aggregates.queryMany(queries);
    },
    async listEntries(series, key) {
      return aggregates.entries(series, key);
    },
    async replaceSeries(series, entries) {
      // Check everything first: a rejected call changes nothing.
      assertSeriesEntries(entries, '', series);
      aggregates.dropSeries(series);
      aggregates.apply([], entries);
    },
    async pruneSeries(horizons) {
      let dropped = 0;
      for (const [series, horizon] of horizons) dropped += aggregates.pruneBefore(horizon, series);
      return dropped;
    },
    async getRetentionHorizons() {
      return aggregates.retainedFrom();
    },
  };
}
