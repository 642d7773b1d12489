/** Rules not evaluated on the memory repositories (the suite: test/engine/not-evaluated-suite.ts). */
import { createMemoryRepositories } from '../../src/index.js';
import { describeNotEvaluated } from './not-evaluated-suite.js';

describeNotEvaluated('memory', async () => createMemoryRepositories());
