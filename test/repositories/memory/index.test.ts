import { describe, it } from 'vitest';
import { createMemoryRepositories } from '../../../src/index.js';
import { checkRepositoriesAgainstModel, describeRepositoryConformance } from '../../../src/testing/index.js';

describeRepositoryConformance('createMemoryRepositories', () => createMemoryRepositories(), { describe, it });

describe('properties', () => {
  it('createMemoryRepositories agrees with the model after every step of random operation sequences', () =>
    checkRepositoriesAgainstModel(() => createMemoryRepositories(), { numRuns: 100 }));
});
