/** The decision log's verification (domain/decision-log.ts), read through the repositories page by page. */
import { createChainVerifier } from '../../domain/decision-log.js';
import { invalidField } from '../../errors.js';
import type { EngineSettings } from '../options.js';
import type { Engine } from '../types.js';

/** Rows read per page: memory stays bounded whatever the log's length. */
const PAGE = 1_000;

/** The decision log methods of one engine. */
export function createDecisionLogService(settings: EngineSettings): Pick<Engine, 'verifyDecisionLog'> {
  const { decisions } = settings.repositories;
  return {
    async verifyDecisionLog(options) {
      const expectedHead = options?.expectedHead;
      if (expectedHead !== undefined && !/^[0-9a-f]{64}$/.test(expectedHead)) {
        throw invalidField('/expectedHead', 'pattern', 'must be a SHA-256 hash: 64 lowercase hexadecimal digits');
      }
      // The head first: entries appended while the log is read lie past it and are left out.
      const stored = await decisions.decisionHead();
      const bound = stored?.seq ?? Number.MAX_SAFE_INTEGER;
      const verifier = createChainVerifier();
      let after = 0;
      while (after < bound) {
        const rows = (await decisions.readDecisions(after, PAGE)).filter((r) => r.seq <= bound);
        const last = rows.at(-1);
        if (last === undefined) break;
        verifier.push(rows);
        after = last.seq;
      }
      return verifier.end(stored, expectedHead);
    },
  };
}
