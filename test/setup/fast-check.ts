/**
 * Pins every property of a run to one seed when `FC_SEED` is set (`FC_SEED=<n> npx vitest run
 * <file>`), for fast-check used directly and through `@fast-check/vitest` (one fast-check module,
 * one global configuration). A failing property reports its seed: `test.prop` names the test
 * "… (with seed=<n>)", and fast-check's error reads `{ seed: <n>, path: … }`.
 */
import fc from 'fast-check';

const raw = process.env.FC_SEED;
if (raw !== undefined && raw.trim() !== '') {
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(raw)}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
