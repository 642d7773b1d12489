import { describe, expect, it } from 'vitest';
import { createMemoryRepositories } from '../../src/index.js';
import { checkRepositoriesAgainstModel } from '../../src/testing/index.js';
import { FAULTY_REPOSITORIES, type FaultyRepositories } from './faulty-repositories.js';

describe('checkRepositoriesAgainstModel', () => {
  it('resolves for the in-memory repositories and disposes every instance it created', async () => {
    let created = 0;
    let disposed = 0;
    await checkRepositoriesAgainstModel(
      () => {
        created += 1;
        return createMemoryRepositories();
      },
      {
        numRuns: 20,
        dispose: () => {
          disposed += 1;
        },
      },
    );
    expect(created).toBeGreaterThanOrEqual(20);
    expect(disposed).toBe(created);
  });

  // Each row injects one realistic adapter bug; random operation sequences must expose it.
  const rows: { name: string; input: FaultyRepositories }[] = [
    { name: 'ignoring expectedVersion', input: FAULTY_REPOSITORIES.ignoresVersion },
    { name: 'accepting a duplicate eventId', input: FAULTY_REPOSITORIES.acceptsDuplicateEventId },
    { name: 'partial application before a conflict', input: FAULTY_REPOSITORIES.partialOnConflict },
    { name: 'double counting', input: FAULTY_REPOSITORIES.doublesCounters },
    { name: 'corrupting aggregate amounts', input: FAULTY_REPOSITORIES.corruptsAggregates },
    { name: 'returning events newest first', input: FAULTY_REPOSITORIES.reversesEvents },
    { name: 'opening a new alert for every hit', input: FAULTY_REPOSITORIES.neverAppendsAlerts },
    { name: 'seen users overwriting profiles', input: FAULTY_REPOSITORIES.seenOverwrites },
    { name: 'put resetting counters', input: FAULTY_REPOSITORIES.putResetsCounters },
    { name: 'a revision that never changes', input: FAULTY_REPOSITORIES.staticRevision },
  ];
  for (const row of rows) {
    it(`rejects repositories ${row.name}, with a seed to replay`, async () => {
      await expect(checkRepositoriesAgainstModel(row.input.create, { numRuns: 200 })).rejects.toThrow(/seed/);
    });
  }

  it('replays a failure from its seed and path', async () => {
    const first = await checkRepositoriesAgainstModel(FAULTY_REPOSITORIES.doublesCounters.create, { numRuns: 200, seed: 42 }).catch((e: Error) => e);
    expect(first).toBeInstanceOf(Error);
    const match = /seed: (-?\d+), path: "([^"]+)"/.exec((first as Error).message);
    expect(match).not.toBeNull();
    await expect(checkRepositoriesAgainstModel(FAULTY_REPOSITORIES.doublesCounters.create, { seed: Number(match![1]), path: match![2]! })).rejects.toThrow(
      /ruleInstances\.list\(\)/,
    );
  });
});
