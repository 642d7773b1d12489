// Prints the closing line of `npm test`: every unit and property test (from vitest's JSON report)
// plus the examples and the two package smoke tests, as "tests: N passed, N failed".
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(new URL('../test-results/vitest.json', import.meta.url), 'utf8'));
const examples = JSON.parse(readFileSync(new URL('../test-results/examples.json', import.meta.url), 'utf8'));
const smoke = 2; // test/smoke/smoke.mjs and smoke.cjs; npm test stops before this line if either fails
const passed = report.numPassedTests + examples.passed + smoke;
const failed = report.numFailedTests + examples.failed;
console.log(`vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed (${report.numTotalTestSuites} suites)`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
