import { describe, expect, it } from 'vitest';
import { createMemoryRepositories } from '../../src/index.js';
import { describeRepositoryConformance, repositoryConformanceCases } from '../../src/testing/index.js';
import { FAULTY_REPOSITORIES, type FaultyRepositories } from './faulty-repositories.js';

function caseNamed(cases: ReturnType<typeof repositoryConformanceCases>, fragment: string) {
  const found = cases.filter((c) => c.name.includes(fragment));
  if (found.length !== 1) throw new Error(`expected exactly one case containing "${fragment}", found ${found.length}`);
  return found[0]!;
}

describe('repositoryConformanceCases', () => {
  it('returns uniquely named cases that all pass on the in-memory repositories', async () => {
    const cases = repositoryConformanceCases(() => createMemoryRepositories());
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    for (const c of cases) await c.run();
  });

  it('runs every case on a fresh repositories instance and disposes it afterwards', async () => {
    const created: object[] = [];
    const disposed: object[] = [];
    const cases = repositoryConformanceCases(
      () => {
        const repos = createMemoryRepositories();
        created.push(repos);
        return repos;
      },
      { dispose: (repos) => void disposed.push(repos) },
    );
    for (const c of cases) await c.run();
    expect(new Set(created).size).toBe(cases.length);
    expect(disposed).toEqual(created);
  });

  it('accepts an async factory', async () => {
    const cases = repositoryConformanceCases(async () => createMemoryRepositories());
    await caseNamed(cases, 'saveOutcome of a create').run();
  });

  // Each row injects one realistic adapter bug; the named case must catch it.
  const rows: { name: string; input: FaultyRepositories; expected: string }[] = [
    { name: 'partial application before a version conflict', input: FAULTY_REPOSITORIES.partialOnConflict, expected: 'expectedVersion that differs' },
    { name: 'partial application before a create conflict', input: FAULTY_REPOSITORIES.partialOnConflict, expected: 'create of an existing transaction' },
    { name: 'partial application on a missing transaction', input: FAULTY_REPOSITORIES.partialOnConflict, expected: 'transaction that does not exist' },
    { name: 'ignoring expectedVersion', input: FAULTY_REPOSITORIES.ignoresVersion, expected: 'expectedVersion that differs' },
    { name: 'accepting a duplicate eventId', input: FAULTY_REPOSITORIES.acceptsDuplicateEventId, expected: 'eventId is already stored' },
    { name: 'dropping counters', input: FAULTY_REPOSITORIES.dropsCounters, expected: 'counters of successive outcomes' },
    { name: 'double counting', input: FAULTY_REPOSITORIES.doublesCounters, expected: 'counters of successive outcomes' },
    { name: 'losing concurrent counter updates', input: FAULTY_REPOSITORIES.racyCounters, expected: 'concurrent outcomes' },
    { name: 'corrupting aggregate amounts', input: FAULTY_REPOSITORIES.corruptsAggregates, expected: 'replaced by remove + add' },
    { name: 'returning events newest first', input: FAULTY_REPOSITORIES.reversesEvents, expected: 'listEvents in arrival order' },
    { name: 'opening a new alert for every hit', input: FAULTY_REPOSITORIES.neverAppendsAlerts, expected: 'appends its transaction id' },
    { name: 'naming the ids a hit would open with', input: FAULTY_REPOSITORIES.namesNewIds, expected: 'saveOutcome names where each alert hit landed' },
    { name: 'seen users overwriting profiles', input: FAULTY_REPOSITORIES.seenOverwrites, expected: 'never overwrite a stored user' },
    { name: 'ignoring user updates', input: FAULTY_REPOSITORIES.dropsUserUpdates, expected: 'user updates set CRA' },
    { name: 'getUsers leaving out unknown ids', input: FAULTY_REPOSITORIES.compactsGetUsers, expected: 'order preserved with nulls' },
    { name: 'put resetting counters', input: FAULTY_REPOSITORIES.putResetsCounters, expected: 'replace keeps counters' },
    { name: 'a revision that never changes', input: FAULTY_REPOSITORIES.staticRevision, expected: 'revision changes' },
    { name: 'comments mixed across target kinds', input: FAULTY_REPOSITORIES.commentsIgnoreKind, expected: 'comments are listed per target' },
    { name: 'uploads not marked as uploaded', input: FAULTY_REPOSITORIES.contentNotMarked, expected: 'putFileContent marks the file uploaded' },
    { name: 'a second upload replacing the bytes', input: FAULTY_REPOSITORIES.replaceableUploads, expected: 'stores a slot once' },
    { name: 'uploads kept past maxBytes', input: FAULTY_REPOSITORIES.uploadsUnbounded, expected: 'past maxBytes or with failing content' },
  ];
  for (const row of rows) {
    it(`fails on ${row.name}`, async () => {
      const target = caseNamed(repositoryConformanceCases(row.input.create), row.expected);
      await expect(target.run()).rejects.toThrow(Error);
    });
  }

  it('reports a failure with the check and the differing path in the message', async () => {
    const target = caseNamed(repositoryConformanceCases(FAULTY_REPOSITORIES.compactsGetUsers.create), 'order preserved with nulls');
    await expect(target.run()).rejects.toThrow(/getUsers keeps order and duplicates: values differ at "\/1"/);
  });
});

describe('describeRepositoryConformance', () => {
  it('registers one test per case inside one describe block named after the backend', async () => {
    const suites: string[] = [];
    const tests: { name: string; body: () => Promise<void> }[] = [];
    describeRepositoryConformance('fake', () => createMemoryRepositories(), {
      describe(name, body) {
        suites.push(name);
        body();
      },
      it(name, body) {
        tests.push({ name, body });
      },
    });
    expect(suites).toEqual(['fake']);
    expect(tests.map((t) => t.name)).toEqual(repositoryConformanceCases(() => createMemoryRepositories()).map((c) => c.name));
    await tests[0]!.body();
  });

  it('registered tests fail when the repositories are faulty', async () => {
    const tests: { name: string; body: () => Promise<void> }[] = [];
    describeRepositoryConformance('faulty', FAULTY_REPOSITORIES.dropsCounters.create, {
      describe: (_name, body) => body(),
      it: (name, body) => tests.push({ name, body }),
    });
    const counters = tests.find((t) => t.name.includes('counters of successive outcomes'))!;
    await expect(counters.body()).rejects.toThrow(Error);
  });
});
